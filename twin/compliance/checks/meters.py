"""Meters: non-resettable, of the required width, counting what they must, reported.

Malta First Schedule items 4(a)-(d) and 20(d)-(e). Each meter reading is compared with what
the records since installation say the meter must show, modulo its rollover.
"""

from __future__ import annotations

from collections import defaultdict

from twin.compliance.registry import Checker, Kind, control
from twin.machines.events import (
    BillAccepted,
    CoinsAccepted,
    GamesPlayed,
    MachineException,
    MachineInstalled,
    MachineLocked,
    MetersRead,
    TiltRepaired,
)
from twin.machines.sas import ExceptionCode
from twin.records import Record

T = "tests/test_controls.py::test_injected_violation_is_found"

#: The meters item 4 names ("in", "out", "drop", "jackpot") and games played.
ACCOUNTING_METERS = (
    "total_coin_in",
    "total_coin_out",
    "total_drop",
    "total_jackpot",
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


class ExpectedMeters:
    """What each machine's meters must show, rebuilt from the records (shared by checkers)."""

    def __init__(self) -> None:
        self.totals: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self.evidence: dict[str, list[int]] = defaultdict(list)

    def observe(self, rec: Record) -> None:
        m = rec.entity("machine")
        t = self.totals[m]
        if isinstance(rec, GamesPlayed):
            t["total_coin_in"] += rec.wagered
            t["total_coin_out"] += rec.won
            t["games_played"] += rec.games
            t["games_since_power_reset"] += rec.games
            t["games_since_door_closed"] += rec.games
        elif isinstance(rec, MachineLocked):
            t["total_jackpot"] += rec.win
        elif isinstance(rec, CoinsAccepted):
            t["total_drop"] += rec.to_drop
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
    "machine_locked",
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
        need = int(self.ctx.param("min_meter_digits"))
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
    params=("min_meter_digits",),
    test=T,
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
                    (*self.expected.evidence[m][-10:], rec.seq),
                )


@control(
    "MT98.S1.4b",
    kind=Kind.RUNTIME,
    title="Meter semantics: what each meter must count",
    reads=("meters_read", *OBSERVED),
    test=T,
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
                (*ev[-10:], rec.seq),
            )


@control(
    "MT98.S1.4c",
    kind=Kind.RUNTIME,
    title="Games since power-up and since door close meters (at least 6 digits)",
    reads=("machine_installed", "meters_read", *OBSERVED),
    params=("min_meter_digits",),
    test=T,
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
                (*self.expected.evidence[m][-10:], rec.seq),
            )


@control(
    "MT98.S1.4d",
    kind=Kind.RUNTIME,
    title="Tilt and malfunction handling",
    reads=("machine_exception", "tilt_repaired"),
    params=("tilt_repair_max_hours",),
    test=T,
)
class TiltsRemedied(Checker):
    """Every tilt or malfunction is repaired within the deadline (a timer per tilt)."""

    def setup(self) -> None:
        self.open: dict[tuple[str, int], int] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, TiltRepaired):
            self.open.pop((rec.machine, rec.code), None)
            return
        assert isinstance(rec, MachineException)
        if rec.code not in TILTS:
            return
        key = (rec.machine, rec.code)
        self.open[key] = rec.seq
        hours = float(self.ctx.param("tilt_repair_max_hours"))

        def overdue(seq: int = rec.seq, name: str = rec.name) -> None:
            if self.open.get(key) == seq:
                self.report(
                    (key[0],),
                    f"machine {key[0]}'s {name} was not remedied within {hours:g} hours",
                    (seq,),
                )

        self.ctx.after(hours * 3600.0, overdue)


@control(
    "MT98.S1.20d",
    kind=Kind.PERIODIC,
    title="Required functioning meters",
    reads=("meters_read",),
    test=T,
)
class RequiredMeters(Checker):
    def on_record(self, rec: Record) -> None:
        assert isinstance(rec, MetersRead)
        m = rec.machine
        shown = dict(rec.meters)
        missing = [n for n in (*ACCOUNTING_METERS, *PLAY_METERS) if n not in shown]
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
                (*self.expected.evidence[m][-10:], rec.seq),
            )
