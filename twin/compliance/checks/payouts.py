"""Hopper fills, hand pays and who may handle a machine's money.

Malta First Schedule items 7 (hopper fills), 8 (records countersigned), 10 (jackpot and
credit payments before a certifying inspector) and reg 36 (only the licensee's people remove
money from a machine; nothing leaves it but the prizes of games played).
"""

from __future__ import annotations

from collections import defaultdict

from twin.compliance.checks.book import Account, MoneyBook, reads_with_book
from twin.compliance.params import HAND_PAY_MAX_HOURS, MONEY_REMOVAL_ROLES
from twin.compliance.registry import Checker, Kind, control
from twin.machines.events import (
    BillAccepted,
    CoinsAccepted,
    HandPaid,
    HopperFilled,
    MachineException,
    MachineInstalled,
    MoneyRemoved,
    ShortPayCompleted,
)
from twin.machines.sas import Door, ExceptionCode
from twin.records import Record
from twin.slots.params import HAND_PAY_SECOND_INSPECTOR_ABOVE
from twin.staff.records import JobStarted

T = "tests/test_controls.py::test_injected_violation_is_found"
TM = "tests/test_controls_money.py::"


@control(
    "MT98.S1.7a",
    kind=Kind.RUNTIME,
    title="Hopper fill when the hopper runs dry mid-payout, or on a new machine",
    reads=("machine_installed", "machine_exception", "hopper_filled", "short_pay_completed"),
    test=T,
    checks={
        "a hopper that runs dry during a payout is filled before the payout is finished": T
        + "[S1.7a]",
        "a new machine's first coins are a recorded hopper fill": TM
        + "test_new_machine_needs_a_fill",
    },
)
class FillWhenEmpty(Checker):
    def setup(self) -> None:
        self.empty: dict[str, int] = {}  # machine -> seq of its hopper-empty exception
        self.new: dict[str, int] = {}  # machine installed with coins, awaiting its "new" fill

    def on_record(self, rec: Record) -> None:
        m = rec.entity("machine")
        if isinstance(rec, MachineInstalled):
            if rec.hopper_coins > 0:
                self.new[m] = rec.seq
        elif isinstance(rec, MachineException):
            if rec.code == ExceptionCode.HOPPER_EMPTY:
                self.empty[m] = rec.seq
        elif isinstance(rec, HopperFilled):
            if rec.reason == "new":
                self.new.pop(m, None)
            self.empty.pop(m, None)
        elif isinstance(rec, ShortPayCompleted):
            seq = self.empty.pop(m, None)
            if seq is not None or rec.coins == 0:
                self.report(
                    rec.entities,
                    f"machine {m}'s hopper ran dry mid-payout and the short pay of "
                    f"{rec.short_coins} coins was settled with no hopper fill",
                    tuple(x for x in (seq, rec.seq) if x is not None),
                )

    def finish(self) -> None:
        for m, seq in sorted(self.new.items()):
            self.report(
                (m,),
                f"new machine {m} was loaded with coins without a recorded hopper fill",
                (seq,),
            )


@control(
    "MT98.S1.7b",
    kind=Kind.RUNTIME,
    title="Board inspector witnesses and certifies every hopper fill",
    reads=("hopper_filled",),
    test=T,
    checks={
        "a Board inspector is present at every fill": T + "[S1.7b]",
        "the inspector certifies the number of coins declared (certified = put in)": T
        + "[S1.7b.count]",
    },
    unchecked=("7(b)'s permission to fill a hopper that is not empty needs no check",),
)
class FillCertified(Checker):
    def on_record(self, rec: Record) -> None:
        assert isinstance(rec, HopperFilled)
        m = rec.machine
        if not self.ctx.is_inspector(rec.inspector):
            self.report(
                (m, rec.attendant),
                f"hopper fill of {rec.coins} coins on {m} was made with no Board inspector present",
                (rec.seq,),
            )
        elif rec.certified_coins != rec.coins:
            self.report(
                (m, rec.attendant, rec.inspector),
                f"hopper fill on {m}: {rec.coins} coins put in, {rec.certified_coins} certified",
                (rec.seq,),
            )


HAND_PAY_REASONS = frozenset({"jackpot", "progressive", "credit_payout"})
_DOORS_OPENED = frozenset(int(d.opened_code) for d in Door)


@control(
    "MT98.S1.8",
    kind=Kind.RECORD,
    title="Jackpots, fills, short pays and credit payouts: recorded and countersigned",
    reads=(
        "machine_installed",
        "machine_exception",
        "hand_paid",
        "hopper_filled",
        "short_pay_completed",
    ),
    params=(HAND_PAY_MAX_HOURS.key,),
    test=T,
    checks={
        "every jackpot payout / credit payout is recorded (a hand-pay slip within "
        "hand_pay_max_hours of the lock-up)": "tests/test_controls.py::"
        "test_injected_violation_is_found[S1.8]",
        "hand-pay slips countersigned by a Board inspector": "tests/test_controls.py::"
        "test_injected_violation_is_found[S1.10a]",
        "fill slips countersigned by a Board inspector": "tests/test_controls.py::"
        "test_injected_violation_is_found[S1.7b]",
        "slip particulars: machine, kind of payout, amount in credits and in money "
        "(credits x denomination), who paid and who countersigned": TM
        + "test_slip_particulars_are_checked",
        "the slip is made by the licensee's own employee (its internal controls)": "tests/"
        "test_controls.py::test_injected_violation_is_found[S1.8.outsider]",
        "short pays: the coins owed after the hopper ran dry are paid under a countersigned "
        "fill slip": TM + "test_short_pay_needs_a_countersigned_fill_slip",
    },
    unchecked=(
        "'recorded as per the casino licensee's internal control procedures manual': the twin "
        "has no manual, so only the particulars the clause itself implies are checked",
        "the slip as a document (form number, signatures on paper, copies to the cage) is not "
        "modelled: a slip is the hand_paid / hopper_filled record",
    ),
)
class PayoutsRecorded(Checker):
    """Every hand pay (jackpot or credit payout) is made and recorded within the deadline;
    every hand-pay and fill slip carries its particulars and an inspector's countersignature,
    and every short pay is settled under a countersigned fill slip."""

    def setup(self) -> None:
        self.pending: dict[str, int] = {}  # machine -> seq of its open "hand pay pending"
        self.signed_fill: dict[str, int | None] = {}  # machine -> countersigned fill since dry

    def on_record(self, rec: Record) -> None:
        m = rec.entity("machine")
        if isinstance(rec, MachineException):
            if rec.code == ExceptionCode.HOPPER_EMPTY:
                self.signed_fill[m] = None
            if rec.code != ExceptionCode.HANDPAY_PENDING:
                return
            self.pending[m] = rec.seq
            hours = float(self.ctx.rule(HAND_PAY_MAX_HOURS))

            def overdue(seq: int = rec.seq) -> None:
                if self.pending.get(m) == seq:
                    self.report(
                        (m,),
                        f"the hand pay on {m} was not paid and recorded within {hours:g} hours",
                        (seq,),
                    )

            self.ctx.after(hours * 3600.0, overdue)
        elif isinstance(rec, HandPaid):
            self.pending.pop(m, None)
            self.hand_pay_slip(rec)
        elif isinstance(rec, HopperFilled):
            if not rec.inspector:
                self.report(
                    (m,),
                    f"the hopper fill slip for {rec.coins} coins on {m} carries no "
                    "inspector's countersignature",
                    (rec.seq,),
                )
            elif m in self.signed_fill:
                self.signed_fill[m] = rec.seq
            if rec.attendant and not self.ctx.is_employee(rec.attendant):
                self.report(
                    (m, rec.attendant),
                    f"the hopper fill slip on {m} is made by {rec.attendant}, who is not "
                    "the licensee's employee",
                    (rec.seq,),
                )
        elif isinstance(rec, ShortPayCompleted) and rec.coins > 0:
            fill = self.signed_fill.pop(m, None)
            if fill is None:
                self.report(
                    (m, rec.patron),
                    f"the short pay of {rec.coins} coins on {m} was paid under no "
                    "countersigned fill slip",
                    (rec.seq,),
                )

    def hand_pay_slip(self, rec: HandPaid) -> None:
        m = rec.machine
        inst = self.ctx.installed.get(m)
        wrong: list[str] = []
        if rec.reason not in HAND_PAY_REASONS:
            wrong.append(f"names no kind of payout ({rec.reason!r})")
        if rec.credits <= 0:
            wrong.append(f"gives no amount ({rec.credits} credits)")
        if inst is not None and rec.cents != rec.credits * inst.denomination_cents:
            wrong.append(
                f"gives {rec.cents} cents for {rec.credits} credits of "
                f"{inst.denomination_cents} cents"
            )
        if not rec.attendant:
            wrong.append("names nobody who paid")
        if wrong:
            self.report(
                (m, rec.patron),
                f"the {rec.reason} slip on {m} " + "; ".join(wrong),
                (rec.seq,),
            )
        if not rec.inspector:
            self.report(
                (m, rec.patron),
                f"the {rec.reason} slip for {rec.cents} cents on "
                f"{m} carries no inspector's countersignature",
                (rec.seq,),
            )
        if rec.attendant and not self.ctx.is_employee(rec.attendant):
            self.report(
                (m, rec.attendant),
                f"the {rec.reason} slip on {m} is made by {rec.attendant}, who is not the "
                "licensee's employee",
                (rec.seq,),
            )


@control(
    "MT98.S1.10a",
    kind=Kind.RUNTIME,
    title="Jackpot and credit payments made before a certifying inspector",
    reads=reads_with_book("hand_paid", "job_started"),
    params=(HAND_PAY_SECOND_INSPECTOR_ABOVE.key,),
    test=T,
    checks={
        "a jackpot or credit payment is made in the presence of a Board inspector": "tests/"
        "test_controls.py::test_injected_violation_is_found[S1.10a]",
        "a proposal's rule: a payment of more than hand_pay_second_inspector_above_cents is "
        "made before two Board inspectors (the hand-pay job's staff)": "tests/"
        "test_floor_policy.py::test_a_floor_that_never_calls_a_second_inspector_is_found",
        "the payment certified is due: a jackpot hand pay equals the locked-up win": TM
        + "test_jackpot_hand_pay_must_equal_the_locked_win",
        "the payment certified is due: a credit payout is no more than the credits that play "
        "and money in left on the meter": TM + "test_phantom_credits_are_money_from_nowhere",
    },
    unchecked=(
        "10(b) the definitions (jackpot = balance after a jackpot combination; credit payment "
        "= credits above the maximum hopper payout) are how the machine routes payouts, not "
        "checked separately",
    ),
)
class HandPaysCertified(Checker):
    """Every hand pay is certified by a Board inspector (by two above a proposal's amount,
    ``hand_pay_second_inspector_above_cents``: the inspectors who staffed the hand-pay job)."""

    def setup(self) -> None:
        self.book = MoneyBook.of(self.ctx)
        above = HAND_PAY_SECOND_INSPECTOR_ABOVE  # absent (the 1998 text): 0, never two
        self.two_above = self.ctx.rule_money(above) if self.ctx.rule(above) > 0 else None
        # (machine, requested_t) -> (seq, inspectors) of the hand-pay job that staffed it
        self.jobs: dict[tuple[str, float], tuple[int, int]] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, JobStarted):
            if rec.job_kind == "hand_pay":
                n = sum(1 for w in rec.members if self.ctx.is_inspector(w))
                self.jobs[(rec.machine, rec.requested_t)] = (rec.seq, n)
            return
        a = self.book.observe(rec)
        if not isinstance(rec, HandPaid):
            return
        assert a is not None
        m = rec.machine
        job = self.jobs.pop((m, rec.requested_t), None)
        if not self.ctx.is_inspector(rec.inspector):
            self.report(
                (m, rec.patron),
                f"{rec.reason} of {rec.cents} cents on {m} was paid with no Board "
                "inspector certifying it",
                (rec.seq,),
            )
        elif (
            self.two_above is not None
            and rec.cents > self.two_above
            and job is not None
            and job[1] < 2
        ):
            self.report(
                (m, rec.patron),
                f"{rec.reason} of {rec.cents} cents on {m}, more than "
                f"{self.ctx.ruleset.money_text(HAND_PAY_SECOND_INSPECTOR_ABOVE.key)}, "
                f"was certified by {job[1]} Board inspector, not two",
                (job[0], rec.seq),
            )
        if rec.reason == "credit_payout":
            due = a.before - a.surplus
            if rec.credits > due:
                self.report(
                    (m, rec.patron),
                    f"a credit payout of {rec.credits} credits on {m} was certified as due; "
                    f"the play and money in recorded leave {max(due, 0)} credits to pay",
                    (*a.session[-20:], rec.seq),
                )
            return
        win, lock = a.paid_lock
        if lock is None:
            self.report(
                (m, rec.patron),
                f"a {rec.reason} hand pay of {rec.credits} credits on {m} was certified with "
                "no jackpot lock-up recorded",
                (rec.seq,),
            )
        elif rec.credits != win:
            self.report(
                (m, rec.patron),
                f"a {rec.reason} hand pay of {rec.credits} credits on {m} was certified as "
                f"due; the lock-up was for {win} credits",
                (lock, rec.seq),
            )


@control(
    "MT98.R36",
    kind=Kind.RUNTIME,
    title="Only the licensee's people remove money from machines",
    reads=reads_with_book("money_removed", "machine_exception"),
    params=(MONEY_REMOVAL_ROLES.key,),
    test=T,
    checks={
        "money removed from a machine (drop bucket, bill stacker, hopper) by someone who is "
        "not the licensee's employee": "tests/test_controls.py::"
        "test_injected_violation_is_found[R36]",
        "... or by one of its employees in a role not authorised to remove money "
        "(money_removal_roles), a Board inspector witnessing is not removing": TM
        + "test_removal_by_an_unauthorised_role_is_found",
        "money taken out with no record of it: hopper coins missing at a meter reading, "
        "citing who opened the machine's doors": "tests/test_controls.py::"
        "test_injected_violation_is_found[R36.hopper]",
        "... at every reading, the run's closing reading included, whenever it falls (a "
        "reading taken while a hopper payout's coins drop, or hours before a delayed "
        "cash-out, is no finding)": TM + "test_a_reading_before_a_delayed_cash_out_is_no_finding",
        "nothing leaves the machine but the prizes of games played: a cash-out of credits "
        "that no game paid and no money in explains (credits in + won - wagered - cashed out "
        "- hand paid = credits on the meter)": "tests/test_controls.py::"
        "test_injected_violation_is_found[R36.phantom]",
        "the hopper, drop and stacker emptied when a machine is taken out of operation, by "
        "someone not acting for the licensee": "tests/test_controls_removal.py::"
        "test_a_hopper_emptied_by_an_outsider_at_removal_is_found",
        "the drop collected holds what went in: the drop bucket every coin diverted to it, "
        "the bill stacker every bill accepted, since the last collection": TM
        + "test_a_drop_short_of_what_went_in_is_found",
    },
    unchecked=(
        "'any arrangement with him': contractors acting for the licensee are not modelled; "
        "every removal by someone outside the licensee's staff is a finding",
        "credits on the meter that no play explains but that never leave the machine (played "
        "away, or still there at the end of the run) are not a removal and not reported",
    ),
)
class LicenseeStaffOnly(Checker):
    """Who removed money, and money that left a machine with no prize and no record behind it.

    Reg 36 forbids anyone but the licensee's people to remove money from a machine "other
    than any money ... delivered by the machine as, or as part of, a prize in respect of a
    game played". A patron's cash-out is lawful because it is money put in plus prizes won;
    credits that no game paid and no money in explains (the money book's surplus) are
    neither, so paying them out is money removed that is not a prize: this control's
    finding. (The meters of 4(a)/(b) count the credits correctly in that case, and 20(d)/(e)
    are about which meters exist, so neither is the clause it breaks.)
    """

    def setup(self) -> None:
        self.book = MoneyBook.of(self.ctx)
        self.doors: dict[str, list[tuple[int, str]]] = defaultdict(list)  # since last reading
        self.at_reading: dict[str, list[tuple[int, str]]] = {}
        # what each container must hold now: (coins or cents, seqs of the records that say so)
        self.held: dict[tuple[str, str], tuple[int, list[int]]] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, MachineException):
            if rec.code in _DOORS_OPENED:
                self.doors[rec.machine].append((rec.seq, rec.staff))
            return
        if isinstance(rec, MoneyRemoved):
            self.removal(rec)
            self.reconcile(rec)
        elif isinstance(rec, CoinsAccepted) and rec.to_drop:
            self.hold(rec.machine, "drop_bucket", rec.to_drop, rec.seq)
        elif isinstance(rec, BillAccepted):
            self.hold(rec.machine, "cash_box", rec.bill_cents, rec.seq)
        a = self.book.observe(rec)
        if a is None:
            return
        m = rec.entity("machine")
        if rec.kind == "meters_read":
            self.at_reading[m] = self.doors.pop(m, [])
        self.found(rec, m, a)

    def found(self, rec: Record, m: str, a: Account) -> None:
        """Report what the book found on ``rec``: surplus credits paid out, coins missing."""
        if a.paid_out_surplus:
            denom = self.ctx.denomination(m)
            cents = a.paid_out_surplus * denom
            self.report(
                (m, rec.entity("patron")) if rec.entity("patron") else (m,),
                f"machine {m} paid out {a.paid_out_surplus} credits ({cents} cents) that no "
                "game paid and no money put in explains: money left the machine that was not "
                "a prize",
                tuple(x for x in (*a.session, a.surplus_seen) if x is not None),
            )
        if a.missing_coins:
            opened = self.at_reading.get(m, [])
            who = sorted({s for _, s in opened if s})
            self.report(
                (m, *who),
                f"{a.missing_coins} coins are missing from {m}'s hopper with no record of "
                "their removal; the machine was opened by "
                + (", ".join(who) if who else "nobody recorded"),
                (*(s for s, _ in opened), a.shown_by),
            )

    def hold(self, m: str, container: str, amount: int, seq: int) -> None:
        total, seqs = self.held.get((m, container), (0, []))
        seqs.append(seq)
        self.held[(m, container)] = (total + amount, seqs[-20:])

    def reconcile(self, rec: MoneyRemoved) -> None:
        """The container emptied held what went in since the last time it was emptied."""
        m = rec.machine
        if rec.container not in ("drop_bucket", "cash_box"):
            return
        want, seqs = self.held.pop((m, rec.container), (0, []))
        got = rec.coins if rec.container == "drop_bucket" else rec.cents
        if got < want:
            unit = "coins" if rec.container == "drop_bucket" else "cents"
            self.report(
                (m, rec.staff) if rec.staff else (m,),
                f"the {rec.container} of {m} held {got} {unit} when {rec.staff or 'someone'} "
                f"emptied it; {want} went in since it was last emptied: {want - got} {unit} "
                "were removed with no record",
                (*seqs, rec.seq),
            )

    def removal(self, rec: MoneyRemoved) -> None:
        who = rec.staff
        what = f"{rec.cents} cents" + (f" ({rec.coins} coins)" if rec.coins else "")
        taken = f"{who or 'someone unnamed'} took {what} from the {rec.container} of {rec.machine}"
        if self.ctx.is_inspector(who):
            why = "a Board inspector, who may witness a removal but not make it"
        elif not self.ctx.is_employee(who):
            why = "not the licensee's employee nor acting for it"
        else:
            allowed = {r.strip() for r in str(self.ctx.rule(MONEY_REMOVAL_ROLES)).split(",")}
            role = self.ctx.roles.get(who, "")
            if role in allowed:
                return
            why = f"a {role}, a role the licensee does not authorise to remove money"
        self.report((rec.machine, who) if who else (rec.machine,), f"{taken}: {why}", (rec.seq,))
