"""Premium players and their deposit accounts (Singapore Casino Control (Credit) Regulations
2010, regs 2A, 2B, 3 and 4; the reading of /work/shared/design/accounts.md, C1-C6).

The forms of deposit (2A(1)(a)-(e)) are checked on each record. The status controls (2A(3),
2B, 3, 4(1)-(6)) replay each player's account records through ``twin.accounts`` (the exact
ledger and the day-by-day status under the ruleset's numbers and switches) and compare the
status the replay decides on every day with the one the operator's decisions
(``premium_status_decided``) state; each run of days on which they differ is one finding,
of the control whose rule makes the difference. Premium play (a privilege of the status) is
checked against the operator's own decisions (4(5)) and the account's closure (4(6)).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, timedelta

from dateutil.relativedelta import relativedelta

from twin.accounts.replay import DayStatus, replay
from twin.accounts.timeline import AccountEvent, Timeline
from twin.compliance.context import CheckContext
from twin.compliance.registry import Checker, Kind, control
from twin.premium.params import RULES, account_rules
from twin.premium.records import (
    OPERATOR,
    ChequeReceived,
    CreditExtended,
    DepositAccountClosed,
    DepositAccountOpened,
    DepositMade,
    PremiumDayClosed,
    PremiumPlayed,
    PremiumPlayerRegistered,
    PremiumStatusDecided,
    ResidencyChanged,
    account_event,
)
from twin.records import Record

T = "tests/test_premium.py::"
TI = T + "test_injected_violation_gives_exactly_its_finding"
R3 = "reg 3 + 4(1)"
ONE_DAY = timedelta(days=1)
PARAMS = tuple(r.key for r in RULES)
KINDS = (
    "premium_player_registered",
    "deposit_account_opened",
    "deposit_account_closed",
    "premium_deposit_made",
    "premium_cheque_received",
    "premium_cheque_cleared",
    "premium_cheque_dishonoured",
    "premium_credit_extended",
    "premium_drawdown",
    "premium_residency_changed",
    "premium_status_decided",
    "premium_played",
    "premium_day_closed",
)
State = tuple[bool, str, date | None]


@dataclass(frozen=True, slots=True)
class Difference:
    """A run of days on which the operator's status differs from the replay's."""

    control: str
    player: str
    day: date
    message: str
    evidence: tuple[int, ...]


@dataclass
class _Player:
    residency: str = "foreigner"
    first: date | None = None
    records: list[Record] = field(default_factory=list)  # account events, in order
    decisions: list[PremiumStatusDecided] = field(default_factory=list)
    plays: list[PremiumPlayed] = field(default_factory=list)
    closed: dict[str, DepositAccountClosed] = field(default_factory=dict)
    opened: dict[str, DepositAccountOpened] = field(default_factory=dict)


class PremiumBook:
    """Every premium record of the run, by player (shared; each record kept once)."""

    def __init__(self, ctx: CheckContext) -> None:
        self.rules = account_rules(ctx.ruleset)
        self.players: dict[str, _Player] = defaultdict(_Player)
        self.last_seq = -1
        self.last_day: date | None = None
        self._differences: list[Difference] | None = None

    @staticmethod
    def of(ctx: CheckContext) -> PremiumBook:
        book = ctx.shared.get("premium_book")
        if book is None:
            book = ctx.shared["premium_book"] = PremiumBook(ctx)
        assert isinstance(book, PremiumBook)
        return book

    def observe(self, rec: Record) -> None:
        if rec.seq <= self.last_seq:
            return
        self.last_seq = rec.seq
        if isinstance(rec, PremiumDayClosed):
            self._day(date.fromisoformat(rec.day))
            return
        p = self.players[rec.entity("player")]
        if isinstance(rec, PremiumPlayerRegistered):
            p.residency, p.first = rec.residency, date.fromisoformat(rec.day)
        elif isinstance(rec, PremiumStatusDecided):
            p.decisions.append(rec)
            self._day(date.fromisoformat(rec.day))
        elif isinstance(rec, PremiumPlayed):
            p.plays.append(rec)
        else:
            if isinstance(rec, DepositAccountClosed):
                p.closed[rec.account] = rec
            elif isinstance(rec, DepositAccountOpened):
                p.opened[rec.account] = rec
            p.records.append(rec)

    def _day(self, day: date) -> None:
        if self.last_day is None or day > self.last_day:
            self.last_day = day

    # -- the comparison ----------------------------------------------------------------------

    def differences(self) -> list[Difference]:
        """Every difference between the operator's status and the replay's (computed once,
        at the end of the run, over the days the operator has decided)."""
        if self._differences is None:
            self._differences = []
            for pid in sorted(self.players):
                self._differences += self._compare(pid, self.players[pid])
        return self._differences

    def _compare(self, pid: str, p: _Player) -> list[Difference]:
        events: list[AccountEvent] = []
        for rec in p.records:
            ev = account_event(rec, len(events))
            if ev is not None:
                events.append(ev)
        if not events or self.last_day is None or events[0].date > self.last_day:
            return self._plays(pid, p, (), [])
        first = events[0].date
        timeline = Timeline("records", pid, ((first, p.residency),), tuple(events), {})  # type: ignore[arg-type]
        days = replay(timeline, self.rules, until=self.last_day).days
        operator = self._operator(p, [d.date for d in days])
        out: list[Difference] = []
        previous_differs = False
        for i, d in enumerate(days):
            mine: State = (d.premium_player, d.basis, d.period_last_day)
            op, seqs = operator[i]
            differs = mine != op if (mine[0] or op[0]) else False
            if differs and not previous_differs:
                before = operator[i - 1][0] if i else (False, "reg 3", None)
                control, why = self._cause(p, days, i, op, before)
                evidence = (*seqs, *self._day_seqs(p, d.date))
                out.append(Difference(control, pid, d.date, why, tuple(evidence)))
            previous_differs = differs
        out += self._plays(pid, p, days, operator)
        return out

    @staticmethod
    def _operator(p: _Player, days: list[date]) -> list[tuple[State, tuple[int, ...]]]:
        """The operator's status at the end of each day, from its decisions."""
        out: list[tuple[State, tuple[int, ...]]] = []
        ds = sorted(p.decisions, key=lambda r: (r.day, r.seq))
        j = 0
        state: State = (False, "reg 3", None)
        seqs: tuple[int, ...] = ()
        for day in days:
            text = day.isoformat()
            while j < len(ds) and ds[j].day <= text:
                r = ds[j]
                if r.decision == "ended":
                    state = (False, r.basis, None)
                else:
                    state = (True, r.basis, date.fromisoformat(r.period_last_day))
                seqs = (r.seq,)
                j += 1
            out.append((state, seqs))
        return out

    def _day_seqs(self, p: _Player, day: date) -> list[int]:
        text = day.isoformat()
        return [r.seq for r in p.records if getattr(r, "day", "") == text]

    def _cause(
        self, p: _Player, days: tuple[DayStatus, ...], i: int, op: State, before: State
    ) -> tuple[str, str]:
        d = days[i]
        when = d.date.isoformat()
        if not d.premium_player and op[0]:
            if d.basis == "reg 4(6)":
                return (
                    "SG10.R4.6",
                    f"the account was closed on {when} and the operator "
                    "kept the premium-player status; it ends at once (reg 4(6))",
                )
            if d.basis == "reg 4(3)":
                return (
                    "SG10.R4.3",
                    f"a foreign premium player became a citizen or PR on "
                    f"{when} with no new deposit meeting the minimum balance in the forms of "
                    "2A(1)(a)-(d), and the operator kept the status (reg 4(3))",
                )
            if op[1] == "reg 4(2)":
                start = self._dip_start(days, i)
                limit = start + relativedelta(months=self.rules.max_below_months) if start else None
                if limit is not None and d.date > limit:
                    return (
                        "SG10.R2B",
                        f"the operator re-qualified the player under reg 4(2) "
                        f"on {when} although the balance had been below the minimum since "
                        f"{start} (more than {self.rules.max_below_months} continuous months, "
                        "reg 2B)",
                    )
                return (
                    "SG10.R4.2",
                    f"the operator re-qualified the player under reg 4(2) on "
                    f"{when} without its conditions (a)-(c) being met",
                )
            if op[1] == "reg 4(4)":
                return (
                    "SG10.R4.4",
                    f"the operator renewed the status under reg 4(4) on "
                    f"{when} with a qualifying balance of {d.qualifying_balance_cents} cents, "
                    f"below the minimum of {self.rules.min_balance_cents} cents",
                )
            if d.basis == "reg 4(5)":
                return (
                    "SG10.R4.5",
                    f"the status was neither renewed nor ended at the end of "
                    f"its period (last day {op[2]}): on {when} the operator still treats the "
                    "player as a premium player (reg 4(5))",
                )
            return (
                "SG10.R3",
                f"the operator granted the status on {when} with a qualifying "
                f"balance of {d.qualifying_balance_cents} cents, below the minimum balance of "
                f"{self.rules.min_balance_cents} cents (reg 3)",
            )
        if d.premium_player and not op[0]:
            if d.basis == R3:
                if before[0]:
                    return (
                        "SG10.R4.1",
                        f"the operator ended the status on {when}, inside "
                        f"the first {self.rules.period_months} months (to {d.period_last_day}) "
                        "that reg 4(1) keeps whatever the balance",
                    )
                forms = self._forms(p, d.date)
                if (
                    p.residency == "foreigner"
                    and len(forms) > 1
                    and forms & {"credit_operator", "credit_ima"}
                ):
                    return (
                        "SG10.R2A.3",
                        f"a foreigner's deposits in {sorted(forms)} meet the "
                        f"minimum balance on {when}, and the operator refused the status; reg "
                        "2A(3) lets a foreigner combine the forms, credit included",
                    )
                return (
                    "SG10.R3",
                    f"the player qualified on {when} (a qualifying balance of "
                    f"{d.qualifying_balance_cents} cents) and the operator did not grant the "
                    "status (reg 3)",
                )
            cid = {"reg 4(2)": "SG10.R4.2", "reg 4(4)": "SG10.R4.4"}.get(d.basis, "SG10.R4.3")
            return (
                cid,
                f"on {when} the player is a premium player under {d.basis} to "
                f"{d.period_last_day}, and the operator has no such status",
            )
        control = {"reg 4(2)": "SG10.R4.2", "reg 4(4)": "SG10.R4.4", "reg 4(3)": "SG10.R4.3"}
        return (
            control.get(d.basis, "SG10.R4.1"),
            f"on {when} the status runs under {d.basis} "
            f"to {d.period_last_day}; the operator states {op[1]} to {op[2]}",
        )

    def _dip_start(self, days: tuple[DayStatus, ...], i: int) -> date | None:
        minimum = self.rules.min_balance_cents
        j = i - 1
        while j >= 0 and days[j].qualifying_balance_cents < minimum:
            j -= 1
        return days[j + 1].date if j + 1 < i else None

    @staticmethod
    def _forms(p: _Player, day: date) -> set[str]:
        """The forms deposited into the player's latest account up to ``day``."""
        forms: set[str] = set()
        text = day.isoformat()
        for r in p.records:
            if getattr(r, "day", "") > text:
                break
            if isinstance(r, DepositAccountOpened):
                forms = set()
            elif isinstance(r, DepositMade):
                forms.add(r.form)
            elif isinstance(r, CreditExtended):
                forms.add("credit_operator" if r.lender == OPERATOR else "credit_ima")
            elif isinstance(r, ChequeReceived):
                forms.add(r.cheque_kind)
        return forms

    def _plays(
        self,
        pid: str,
        p: _Player,
        days: tuple[DayStatus, ...],
        operator: list[tuple[State, tuple[int, ...]]],
    ) -> list[Difference]:
        """Premium play: after the account closed (4(6)), or while the operator's own
        decisions say the player is not a premium player (4(5))."""
        out: list[Difference] = []
        index = {d.date: i for i, d in enumerate(days)}
        for play in p.plays:
            closed = p.closed.get(play.account)
            if closed is not None and play.t > closed.t:
                out.append(Difference(
                    "SG10.R4.6", pid, date.fromisoformat(play.day),
                    f"{pid} played in the premium room after account {play.account} was "
                    "closed; the status ends the moment the account closes (reg 4(6))",
                    (closed.seq, play.seq),
                ))  # fmt: skip
                continue
            i = index.get(date.fromisoformat(play.day) - ONE_DAY)
            state, seqs = operator[i] if i is not None else ((False, "reg 3", None), ())
            if not state[0]:
                out.append(Difference(
                    "SG10.R4.5", pid, date.fromisoformat(play.day),
                    f"{pid} was given premium play on {play.day} although the operator's own "
                    f"decisions say the status had ended ({state[1]})",
                    (*seqs, play.seq),
                ))  # fmt: skip
        return out


class _StatusChecker(Checker):
    """Reports the differences the shared replay attributes to this checker's control."""

    def setup(self) -> None:
        self.book = PremiumBook.of(self.ctx)

    def on_record(self, rec: Record) -> None:
        self.book.observe(rec)

    def finish(self) -> None:
        for d in self.book.differences():
            if d.control == self.spec.id:
                self.report_once((d.player, d.day), (d.player,), d.message, d.evidence)


class _RecordChecker(_StatusChecker):
    """A form-of-deposit check on each record (the book is still fed)."""

    def on_record(self, rec: Record) -> None:
        self.book.observe(rec)
        self.check(rec)

    def check(self, rec: Record) -> None:  # pragma: no cover - overridden
        ...

    def finish(self) -> None:
        pass


@control(
    "SG10.R2A.1a",
    kind=Kind.RUNTIME,
    title="Deposit form: cash, cashier's order, bank draft or EFT",
    reads=KINDS,
    params=PARAMS,
    test=TI,
    checks={
        "a cashier's order or bank draft taken as a deposit is payable to the casino operator": TI
        + "[premium_bank_draft_to_third_party]",
        "an electronic transfer is into the operator's own bank account (payee the operator)": T
        + "test_form_checks_on_records",
    },
    unchecked=(
        "that the cash, order, draft or transfer comes from the patron himself: every deposit "
        "of the twin is made by the account's holder (there is no third-party payer)",
    ),
)
class DepositFormA(_RecordChecker):
    def check(self, rec: Record) -> None:
        payable = isinstance(rec, DepositMade) and rec.form in (
            "cashiers_order",
            "bank_draft",
            "eft",
        )
        if payable and isinstance(rec, DepositMade) and rec.payee != OPERATOR:
            self.report(
                rec.entities,
                f"{rec.player}'s deposit of {rec.amount_cents} cents by {rec.form} on "
                f"{rec.day} is payable to {rec.payee!r}, not to the casino operator (reg "
                "2A(1)(a))",
                (rec.seq,),
            )


@control(
    "SG10.R2A.1b",
    kind=Kind.RUNTIME,
    title="Deposit form: chips or traveller's cheques",
    reads=KINDS,
    params=PARAMS,
    test=TI,
    checks={
        "chips deposited were not bought against a cheque not yet cleared (flagged, as a "
        "warning: it gets round 2A(1)(d))": TI + "[premium_chips_from_uncleared_cheque]",
    },
    unchecked=(
        "traveller's cheques: the text sets no condition on them beyond being received from "
        "the patron (counted from the day received), so there is nothing more to test",
    ),
)
class DepositFormB(_RecordChecker):
    def check(self, rec: Record) -> None:
        if (
            isinstance(rec, DepositMade)
            and rec.form == "chips"
            and (rec.provenance == "uncleared_cheque")
        ):
            self.report(
                rec.entities,
                f"{rec.player} deposited {rec.amount_cents} cents in chips on {rec.day} "
                "bought against a cheque not yet cleared: counting them gets round reg "
                "2A(1)(d)",
                (rec.seq,),
                warning=True,
            )


@control(
    "SG10.R2A.1c",
    kind=Kind.RUNTIME,
    title="Deposit form: accepted casino cheque",
    reads=KINDS,
    params=PARAMS,
    test=TI,
    checks={
        "a casino cheque taken as a deposit is payable to the patron": TI
        + "[premium_casino_cheque_payable_to_another]",
        "it is issued by a casino operator (the issuer is recorded) and accepted by the "
        "operator (its receipt is the acceptance)": T + "test_form_checks_on_records",
    },
)
class DepositFormC(_RecordChecker):
    def check(self, rec: Record) -> None:
        if (
            isinstance(rec, ChequeReceived)
            and rec.cheque_kind == "casino_cheque"
            and (rec.payee != rec.player or not rec.issuer)
        ):
            self.report(
                rec.entities,
                f"casino cheque {rec.ref} of {rec.amount_cents} cents taken on {rec.day} "
                f"as {rec.player}'s deposit is payable to {rec.payee!r} (issuer "
                f"{rec.issuer!r}); reg 2A(1)(c) needs a casino operator's cheque payable "
                "to the patron",
                (rec.seq,),
            )


@control(
    "SG10.R2A.1d",
    kind=Kind.RUNTIME,
    title="Personal cheques count only after bank clearance",
    reads=KINDS,
    params=PARAMS,
    test=TI,
    checks={
        "a personal cheque is never credited to the account before an authorised bank clears it": TI
        + "[premium_personal_cheque_counted_uncleared]",
        "a personal cheque is payable to the casino operator": T + "test_form_checks_on_records",
        "the status never counts an uncleared cheque (the replay counts it from its "
        "clearance; a status granted on it differs, SG10.R3)": T + "test_clean_run",
    },
)
class PersonalCheque(_RecordChecker):
    def check(self, rec: Record) -> None:
        if isinstance(rec, DepositMade) and rec.form == "personal_cheque":
            self.report(
                rec.entities,
                f"a personal cheque of {rec.amount_cents} cents was credited to {rec.player}'s "
                f"account on {rec.day} with no clearance by an authorised bank (reg 2A(1)(d))",
                (rec.seq,),
            )
        elif (
            isinstance(rec, ChequeReceived)
            and rec.cheque_kind == "personal_cheque"
            and rec.payee != OPERATOR
        ):
            self.report(
                rec.entities,
                f"personal cheque {rec.ref} taken on {rec.day} is payable to "
                f"{rec.payee!r}, not to the casino operator (reg 2A(1)(d))",
                (rec.seq,),
            )


@control(
    "SG10.R2A.1e",
    kind=Kind.RUNTIME,
    title="Credit counts as a deposit only for foreigners",
    reads=KINDS,
    params=PARAMS,
    test=TI,
    checks={
        "credit (the operator's or an agent's) is provided as a deposit only to a patron who "
        "is neither a citizen nor a PR on that day": TI + "[premium_credit_to_citizen]",
        "agent credit names the international market agent": T + "test_form_checks_on_records",
    },
    unchecked=(
        "that the agent holds a licence under s.108(7A) and the operator's credit is under "
        "s.108(7)(a): the Act's licensing is outside the regulation's text and the twin",
    ),
)
class CreditForeignersOnly(_RecordChecker):
    def setup(self) -> None:
        super().setup()
        self.residency: dict[str, str] = {}

    def check(self, rec: Record) -> None:
        if isinstance(rec, PremiumPlayerRegistered):
            self.residency[rec.player] = rec.residency
        elif isinstance(rec, ResidencyChanged):
            self.residency[rec.player] = rec.to_residency
        elif isinstance(rec, CreditExtended):
            who = self.residency.get(rec.player, "foreigner")
            if who != "foreigner":
                self.report(
                    rec.entities,
                    f"{rec.amount_cents} cents of credit ({rec.lender}) was provided on "
                    f"{rec.day} as the deposit of {rec.player}, who is a {who}; reg 2A(1)(e) "
                    "and 2A(2) allow it only for a patron who is neither a citizen nor a PR",
                    (rec.seq,),
                )
            elif rec.lender != OPERATOR and not rec.agent:
                self.report(
                    rec.entities,
                    f"credit of {rec.amount_cents} cents on {rec.day} names no international "
                    "market agent (reg 2A(1)(e))",
                    (rec.seq,),
                )


def _status(
    cid: str, title: str, inj: str, more: dict[str, str], unchecked: tuple[str, ...] = ()
) -> type[_StatusChecker]:
    checks = {
        "the operator's status on every day equals the replay's (twin.accounts)": TI + f"[{inj}]"
    }
    checks |= more
    cls = type(cid.replace(".", "_"), (_StatusChecker,), {"__doc__": title})
    return control(cid, kind=Kind.RUNTIME, title=title, reads=KINDS, params=PARAMS, test=TI,
                   checks=checks, unchecked=unchecked)(cls)  # fmt: skip


CLEAN = T + "test_clean_run"
_status(
    "SG10.R2A.3",
    "Foreigners may combine deposit forms",
    "premium_mixed_forms_refused",
    {"a foreigner whose mix of forms incl. credit meets the minimum is granted": CLEAN},
)
_status(
    "SG10.R2B",
    "Below-S$100,000 spell capped at 12 continuous months",
    "premium_requalified_after_long_dip",
    {
        "a 4(2) re-qualification needs the spell below the minimum to be at most 12 calendar "
        "months (C4)": T + "test_spell_limit_calendar"
    },
)
_status(
    "SG10.R3",
    "Qualifying as a premium player",
    "premium_qualified_below_minimum",
    {
        "the status is granted only when an opened account's qualifying balance (2A forms, "
        "cleared cheques) reaches S$100,000 inclusive": CLEAN
    },
)
_status(
    "SG10.R4.1",
    "Initial 12-month premium-player period",
    "premium_downgraded_in_first_period",
    {"the first period runs start + 12 months - 1 day (C1)": T + "test_period_calendar"},
)
_status(
    "SG10.R4.2",
    "Re-qualifying after a dip below S$100,000",
    "premium_requalify_keeps_old_expiry",
    {"a top-up within reg 2B starts a new period from that day": CLEAN},
)
_status(
    "SG10.R4.3",
    "Foreign premium player becomes a citizen or PR",
    "premium_kept_after_residency_change",
    {
        "the status ends on the day of the change unless a new non-credit deposit meets the "
        "minimum that day": CLEAN
    },
)
_status(
    "SG10.R4.4",
    "Anniversary renewal",
    "premium_renewed_below_minimum",
    {"a renewal needs S$100,000 on the anniversary (start + 12 months)": CLEAN},
)
_status(
    "SG10.R4.5",
    "Premium-player status lapses",
    "premium_kept_after_lapse",
    {
        "premium play only while the operator's own decisions give the status": T
        + "test_play_checks"
    },
)
_status(
    "SG10.R4.6",
    "Closing the deposit account ends status immediately",
    "premium_kept_after_closure",
    {"no premium play after the account's closure record": T + "test_play_checks"},
)
