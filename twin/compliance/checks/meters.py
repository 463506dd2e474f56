"""Meters: non-resettable, of the required width, counting what they must, reported.

Malta First Schedule items 4(a)-(d) and 20(d)-(e). Each meter reading is compared with what
the records since installation say the meter must show, modulo its rollover.
"""

from __future__ import annotations

from collections import defaultdict, deque

from twin.compliance.checks.book import MoneyBook, reads_with_book
from twin.compliance.params import MIN_METER_DIGITS, TILT_REPAIR_MAX_HOURS
from twin.compliance.registry import Checker, Kind, control
from twin.machines.events import (
    BillAccepted,
    CoinsAccepted,
    GamesPlayed,
    HandPaid,
    MachineException,
    MachineInstalled,
    MetersRead,
    TiltRepaired,
)
from twin.machines.sas import ExceptionCode
from twin.records import Record

T = "tests/test_controls.py::test_injected_violation_is_found"
TC = "tests/test_controls.py::test_injected_violation_is_found"
TM = "tests/test_controls_money.py::"

#: The meters item 4 names and what defines each (4(b)): "in" = total_coin_in (credits
#: wagered), "out" = total_coin_out (credits won by games), "drop" = coins_to_drop_credits
#: (coins diverted to the drop bucket; total_drop adds the bills, the cash box), "jackpot" =
#: total_jackpot (jackpots paid by hand pay) with handpaid_cancelled_credits (credit payouts
#: paid by hand pay): together the hand pay meter; and games played.
ACCOUNTING_METERS = (
    "total_coin_in",
    "total_coin_out",
    "total_drop",
    "coins_to_drop_credits",
    "total_jackpot",
    "handpaid_cancelled_credits",
    "games_played",
)
#: 20(d): coin-in, coin-out, drop (cash box), jackpot-credit win (hand pay), games played.
REQUIRED_METERS = (
    "total_coin_in",
    "total_coin_out",
    "total_drop",
    "total_jackpot",
    "handpaid_cancelled_credits",
    "games_played",
)
PLAY_METERS = ("games_since_power_reset", "games_since_door_closed")
TILTS = frozenset(
    int(c)
    for c in (
        ExceptionCode.GENERAL_TILT,
        ExceptionCode.COIN_IN_TILT,
        ExceptionCode.COIN_OUT_TILT,
        ExceptionCode.BILL_JAM,
        ExceptionCode.REVERSE_COIN_IN,
        ExceptionCode.CMOS_RAM_ERROR_NO_DATA,
        ExceptionCode.AC_POWER_LOST,
    )
)


#: How many of the latest records a meter finding cites as its evidence.
EVIDENCE_KEPT = 10


class ExpectedMeters:
    """What each machine's meters must show, rebuilt from the records (shared by checkers)."""

    def __init__(self) -> None:
        self.totals: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        # the latest records behind each machine's expected meters (findings cite the last
        # ten): bounded, so a long run's memory does not grow with its length
        self.evidence: dict[str, deque[int]] = defaultdict(lambda: deque(maxlen=EVIDENCE_KEPT))

    def observe(self, rec: Record) -> None:
        m = rec.entity("machine")
        t = self.totals[m]
        if isinstance(rec, GamesPlayed):
            t["total_coin_in"] += rec.wagered
            t["total_coin_out"] += rec.won
            t["games_played"] += rec.games
            t["games_since_power_reset"] += rec.games
            t["games_since_door_closed"] += rec.games
        elif isinstance(rec, HandPaid):
            if rec.reason == "credit_payout":
                t["handpaid_cancelled_credits"] += rec.credits
            else:
                t["total_jackpot"] += rec.credits
        elif isinstance(rec, CoinsAccepted):
            t["total_drop"] += rec.to_drop
            t["coins_to_drop_credits"] += rec.to_drop
        elif isinstance(rec, BillAccepted):
            t["total_drop"] += rec.credits
            t[f"bills_{rec.bill_cents}"] += 1
        elif isinstance(rec, MachineException):
            if rec.code == ExceptionCode.SLOT_DOOR_CLOSED:
                t["games_since_door_closed"] = 0
            elif rec.code == ExceptionCode.AC_POWER_LOST:
                t["games_since_power_reset"] = 0
        else:
            return
        self.evidence[m].append(rec.seq)


OBSERVED = (
    "games_played",
    "hand_paid",
    "coins_accepted",
    "bill_accepted",
    "machine_exception",
)


class _MeterChecker(Checker):
    """Base: keeps the shared expected meters up to date and the previous reading."""

    def setup(self) -> None:
        shared = self.ctx.shared
        if "expected_meters" not in shared:
            shared["expected_meters"] = ExpectedMeters()
            shared["expected_meters_owner"] = self
        self.expected: ExpectedMeters = shared["expected_meters"]
        self.previous: dict[str, MetersRead] = {}

    #: for controls that also require a meter width: what the width applies to
    digits_of: str | None = None

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, MachineInstalled):
            self.check_digits(rec)
            return
        if not isinstance(rec, MetersRead):
            if self.ctx.shared.get("expected_meters_owner") is self:
                self.expected.observe(rec)
            return
        self.on_reading(rec, self.previous.get(rec.machine))
        self.previous[rec.machine] = rec

    def on_reading(self, rec: MetersRead, previous: MetersRead | None) -> None:
        raise NotImplementedError

    def check_digits(self, rec: MachineInstalled) -> None:
        if self.digits_of is None:
            return
        need = int(self.ctx.rule(MIN_METER_DIGITS))
        if rec.meter_digits < need:
            self.report(
                (rec.machine,),
                f"machine {rec.machine}'s {self.digits_of} have {rec.meter_digits} digits; "
                f"at least {need} are required",
                (rec.seq,),
            )

    def flag_once(self, m: str, what: str, message: str, evidence: tuple[int, ...]) -> None:
        self.report_once((m, what), (m,), message, evidence)

    def rollover(self, m: str) -> int:
        return int(10 ** self.ctx.installed[m].meter_digits)

    def mismatches(self, rec: MetersRead, names: tuple[str, ...]) -> list[tuple[str, int, int]]:
        """(meter, shown, expected) for each listed meter present whose reading is off."""
        m = rec.machine
        shown = dict(rec.meters)
        want = self.expected.totals[m]
        r = self.rollover(m)
        return [
            (name, shown[name], want[name] % r)
            for name in names
            if name in shown and shown[name] != want[name] % r
        ]


@control(
    "MT98.S1.4a",
    kind=Kind.RUNTIME,
    title="Non-resettable in/out/drop/jackpot meters of at least 6 digits",
    reads=("machine_installed", "meters_read", *OBSERVED),
    params=(MIN_METER_DIGITS.key,),
    test=T,
    checks={
        "in/out/drop/jackpot meters are not reset or wound back (a reading below what the "
        "records give, modulo rollover)": TC + "[S1.4a]",
        "the meters have at least min_meter_digits digits": TC + "[S1.4a.digits]",
    },
    unchecked=(
        "'in units equal to the denomination': every meter counts credits of the machine's "
        "denomination by construction (one coin is one credit); not checked separately",
        "a note acceptor's total-value meter is allowed, not required: nothing to check",
        "'electronic digital storage ... on-demand display': the readings are the display; a "
        "machine that does not report a meter is 20(d)'s finding",
    ),
)
class NonResettableMeters(_MeterChecker):
    digits_of = "in/out/drop/jackpot meters"

    def on_reading(self, rec: MetersRead, previous: MetersRead | None) -> None:
        """A meter showing less than its records give was reset or wound back."""
        m = rec.machine
        r = self.rollover(m)
        for name, shown, want in self.mismatches(rec, ACCOUNTING_METERS):
            short = (want - shown) % r
            if 0 < short < r // 2:
                self.flag_once(
                    m,
                    name,
                    f"machine {m}'s {name} meter shows {shown}, {short} less than its records "
                    "give: a non-resettable meter was reset or wound back",
                    (*self.expected.evidence[m], rec.seq),
                )


@control(
    "MT98.S1.4b",
    kind=Kind.RUNTIME,
    title="Meter semantics: what each meter must count",
    reads=("meters_read", *OBSERVED),
    test=T,
    checks={
        "'out' counts the credits paid for winning combinations": TC + "[S1.4b]",
        "'in' counts the credits wagered (a wound-back in meter is off)": TC + "[S1.4a]",
        "'drop' counts the coins diverted into the drop bucket": TM
        + "test_skewed_meter_is_found[coins_to_drop_credits]",
        "the jackpot meter counts the coins paid by hand pay (jackpots)": TM
        + "test_skewed_meter_is_found[total_jackpot]",
        "... and the credit payouts paid by hand pay (the hand pay meter)": TM
        + "test_skewed_meter_is_found[handpaid_cancelled_credits]",
        "the cash box (total drop) counts the coins to the drop and the bills": TM
        + "test_skewed_meter_is_found[total_drop]",
    },
    unchecked=(
        "a meter short by an amount that is a whole multiple of its rollover (10**digits) "
        "reads the same and cannot be told from the records",
    ),
)
class MeterSemantics(_MeterChecker):
    def on_reading(self, rec: MetersRead, previous: MetersRead | None) -> None:
        m = rec.machine
        for name, shown, want in self.mismatches(rec, ACCOUNTING_METERS):
            ev = self.expected.evidence[m]
            self.flag_once(
                m,
                name,
                f"machine {m}'s {name} meter shows {shown}; the records of its play give {want}",
                (*ev, rec.seq),
            )


@control(
    "MT98.S1.4c",
    kind=Kind.RUNTIME,
    title="Games since power-up and since door close meters (at least 6 digits)",
    reads=("machine_installed", "meters_read", *OBSERVED),
    params=(MIN_METER_DIGITS.key,),
    test=T,
    checks={
        "plays since door closure restart at the door's closing and count every play after it": TC
        + "[S1.4c]",
        "both meters have at least min_meter_digits digits": TC + "[S1.4a.digits]",
        "both meters are reported (on-demand display)": TM + "test_play_meters_must_be_reported",
    },
    unchecked=(
        "plays since power on: checked the same way (reset only by a recorded power loss) but "
        "no injection resets it alone",
    ),
)
class PlayMeters(_MeterChecker):
    digits_of = "games-since meters"

    def on_reading(self, rec: MetersRead, previous: MetersRead | None) -> None:
        m = rec.machine
        shown = dict(rec.meters)
        for name in PLAY_METERS:
            if name not in shown:
                self.flag_once(m, name, f"machine {m} does not report its {name} meter", (rec.seq,))
        for name, got, want in self.mismatches(rec, PLAY_METERS):
            self.flag_once(
                m,
                name,
                f"machine {m}'s {name} meter shows {got}; the records give {want} "
                "(reset with no recorded door closing or power loss)",
                (*self.expected.evidence[m], rec.seq),
            )


@control(
    "MT98.S1.4d",
    kind=Kind.RUNTIME,
    title="Tilt and malfunction handling",
    reads=reads_with_book("machine_exception", "tilt_repaired"),
    params=(TILT_REPAIR_MAX_HOURS.key,),
    test=T,
    checks={
        "every tilt or malfunction is remedied (repaired within tilt_repair_max_hours)": TC
        + "[S1.4d]",
        "no play while the machine is tilted: no game after a tilt until it is repaired": TC
        + "[S1.4d.play]",
        "no credits lost: the credit meter never shows fewer credits than play and money "
        "in give (a wound-back credit meter, credits lost over a tilt or reset)": TM
        + "test_credit_rollback_mid_session_runs_to_the_end_and_is_found",
    },
    unchecked=(
        "'adequately equipped': the machine's equipment itself is not modelled, only what it "
        "does with a tilt",
        "meter data kept across a tilt is 4(a)/4(b)'s finding when a reading is off",
    ),
)
class TiltsRemedied(Checker):
    """Every tilt or malfunction is repaired within the deadline (a timer per tilt); no game
    is played while a tilt is open; no credits are lost."""

    def setup(self) -> None:
        self.open: dict[tuple[str, int], int] = {}
        self.open_at: dict[tuple[str, int], float] = {}
        self.book = MoneyBook.of(self.ctx)

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, TiltRepaired):
            self.open.pop((rec.machine, rec.code), None)
            self.open_at.pop((rec.machine, rec.code), None)
            return
        if not isinstance(rec, MachineException):
            self.on_money(rec)
            return
        if rec.code not in TILTS:
            return
        key = (rec.machine, rec.code)
        self.open[key] = rec.seq
        self.open_at[key] = rec.t
        hours = float(self.ctx.rule(TILT_REPAIR_MAX_HOURS))

        def overdue(seq: int = rec.seq, name: str = rec.name) -> None:
            if self.open.get(key) == seq:
                self.report(
                    (key[0],),
                    f"machine {key[0]}'s {name} was not remedied within {hours:g} hours",
                    (seq,),
                )

        self.ctx.after(hours * 3600.0, overdue)

    def on_money(self, rec: Record) -> None:
        a = self.book.observe(rec)
        m = rec.entity("machine")
        if isinstance(rec, GamesPlayed):
            for (mm, code), at in self.open_at.items():
                if mm == m and rec.t > at:
                    seq = self.open[(mm, code)]
                    self.report_once(
                        ("play", seq),
                        (m, rec.patron),
                        f"machine {m} played {rec.games} games while tilted (tilt at record "
                        f"#{seq}, not yet repaired)",
                        (seq, rec.seq),
                    )
        if a is not None and a.lost:
            self.report(
                (m,),
                f"machine {m}'s credit meter shows {a.lost} credits fewer than the play and "
                "money in recorded give: credits were lost",
                (*a.session[-20:], a.shown_by),
            )


@control(
    "MT98.S1.20d",
    kind=Kind.PERIODIC,
    title="Required functioning meters",
    reads=("meters_read",),
    test=T,
    checks={
        "the machine reports coin-in, coin-out, drop (cash box), jackpot-credit win (hand "
        "pay: total_jackpot and handpaid_cancelled_credits) and games played": TC + "[S1.20d]",
    },
    unchecked=(
        "'functioning': a meter that is reported but counts wrongly is 4(a)/4(b)'s finding",
        "the penny-pusher exemption: the twin has no penny-pushers",
    ),
)
class RequiredMeters(Checker):
    def on_record(self, rec: Record) -> None:
        assert isinstance(rec, MetersRead)
        m = rec.machine
        shown = dict(rec.meters)
        missing = [n for n in (*REQUIRED_METERS, *PLAY_METERS) if n not in shown]
        if missing:
            self.report_once(
                m,
                (m,),
                f"machine {m} does not report the required meters: " + ", ".join(missing),
                (rec.seq,),
            )


@control(
    "MT98.S1.20e",
    kind=Kind.RUNTIME,
    title="Bill-in meters by denomination",
    reads=("meters_read", *OBSERVED),
    test=T,
    checks={
        "a bill meter for each denomination the acceptor takes, counting the bills accepted": TC
        + "[S1.20e]",
    },
)
class BillMeters(_MeterChecker):
    def on_reading(self, rec: MetersRead, previous: MetersRead | None) -> None:
        m = rec.machine
        inst = self.ctx.installed[m]
        shown = dict(rec.meters)
        names = tuple(f"bills_{c}" for c in inst.bill_denominations_cents)
        for name in names:
            if name not in shown:
                self.flag_once(m, name, f"machine {m} has no {name} bill meter", (rec.seq,))
        for name, got, want in self.mismatches(rec, names):
            self.flag_once(
                m,
                name,
                f"machine {m}'s {name} meter shows {got} bills; the records show {want}",
                (*self.expected.evidence[m], rec.seq),
            )
