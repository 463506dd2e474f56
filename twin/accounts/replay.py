"""Day-by-day replay of a patron's premium-player status (regs 2B, 3 and 4; accounts.md C1-C6).

Each day applies its events in file order, then decides the status at the end of the day on
the end-of-day balance (C2), in this order:

1. reg 4(3): a foreign premium player who became a citizen or PR today keeps the status only
   with a new deposit today, after the change, in the forms of 2A(1)(a)-(d) that satisfies
   the minimum balance (switch ``reg4_3_new_deposit_must_meet_minimum``); the status then runs
   12 months from today. Otherwise it ends today (C4d) and cannot come back in this account
   through 4(2).
2. On the anniversary of the current period (start + 12 months, C1): a top-up that restores
   a spell below the minimum within reg 2B starts a 4(2) period; else a balance at or above
   the minimum renews the status for a further period (4(4)); else it lapses (4(5)).
3. Within a period: an additional 2A deposit that brings the balance back to the minimum,
   with the spell below it within reg 2B (C4), starts a new period today (4(2)).
4. Without status: the first day an account's qualifying balance reaches the minimum
   qualifies the patron (reg 3 + 4(1)); a lapsed status comes back through 4(2) only with
   ``sg_4_2_literal`` (C5); a top-up of an account that has qualified before qualifies afresh
   under reg 3 only when ``sg_reg3_requires_new_account`` is false (C6).

Closing the account ends the status at once (4(6), C4d). Money in a form reg 2A does not allow
for the patron counts towards no balance test and is a finding (C4b).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import date, timedelta
from typing import Any

from dateutil.relativedelta import relativedelta

from twin.accounts.forms import NON_CREDIT_FORMS, form_allowed, form_words, residency_words
from twin.accounts.ledger import Ledger
from twin.accounts.timeline import AccountEvent, Timeline

__all__ = [
    "DECIDED_CONTROLS",
    "FINDING_CONTROLS",
    "AccountRules",
    "DayStatus",
    "Finding",
    "Period",
    "Replay",
    "Stepper",
    "default_until",
    "money",
    "replay",
]

ONE_DAY = timedelta(days=1)

#: the catalog controls whose breaches a timeline alone shows, as findings
FINDING_CONTROLS = ("SG10.R2A.1d", "SG10.R2A.1e")
#: the catalog controls the replay decides (the basis of each day's status cites them)
DECIDED_CONTROLS = (
    "SG10.R2A.3",
    "SG10.R2B",
    "SG10.R3",
    "SG10.R4.1",
    "SG10.R4.2",
    "SG10.R4.3",
    "SG10.R4.4",
    "SG10.R4.5",
    "SG10.R4.6",
)
R3 = "reg 3 + 4(1)"


@dataclass(frozen=True, slots=True)
class AccountRules:
    """The numbers and readings the replay uses, from the ruleset (singapore-2010)."""

    min_balance_cents: int = 10_000_000
    period_months: int = 12
    max_below_months: int = 12
    sg_4_2_literal: bool = True
    sg_reg3_requires_new_account: bool = True
    reg4_3_new_deposit_must_meet_minimum: bool = True

    @classmethod
    def from_params(cls, get: Callable[[str], Any]) -> AccountRules:
        """Read every field by its name, the ruleset's key (``Ruleset.get``). The keys are
        declared once, in ``twin.premium.params``; its ``account_rules(ruleset)`` reads them
        typed, failing loudly when the ruleset lacks one."""
        values: dict[str, Any] = {
            f.name: bool(get(f.name)) if isinstance(f.default, bool) else int(get(f.name))
            for f in fields(cls)
        }
        return cls(**values)


@dataclass(slots=True)
class Period:
    """A premium-player period: ``start`` to ``last_day`` (C1). ``ended`` is the first day it
    no longer governs the status when that day is known by the end of the replay: cut short
    (4(2) restart, 4(3), 4(6)) or at its anniversary (4(2), 4(4) renewal, 4(5) lapse)."""

    start: date
    last_day: date
    basis: str
    ended: date | None = None
    end_basis: str | None = None

    @property
    def anniversary(self) -> date:
        return self.last_day + ONE_DAY

    def covers(self, day: date) -> bool:
        return self.start <= day <= self.last_day and (self.ended is None or day < self.ended)

    def to_json(self) -> dict[str, Any]:
        return {
            "start": self.start.isoformat(),
            "last_day": self.last_day.isoformat(),
            "basis": self.basis,
            "ended": self.ended.isoformat() if self.ended else None,
            "end_basis": self.end_basis,
        }


@dataclass(frozen=True, slots=True)
class Finding:
    """A breach the timeline shows, citing its catalog control (``SG10.R2A.1e``)."""

    control: str
    date: date
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"control": self.control, "date": self.date.isoformat(), "message": self.message}


@dataclass(frozen=True, slots=True)
class DayStatus:
    """The status at the end of one day (C2). ``changed``: an event, a change of status,
    basis or period, or a milestone (a spell below the minimum begins or passes reg 2B)."""

    date: date
    balance_cents: int
    qualifying_balance_cents: int
    premium_player: bool
    basis: str
    period_last_day: dt.date | None
    reason: str
    changed: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "date": self.date.isoformat(),
            "balance_cents": self.balance_cents,
            "qualifying_balance_cents": self.qualifying_balance_cents,
            "premium_player": self.premium_player,
            "basis": self.basis,
            "period_last_day": self.period_last_day.isoformat() if self.period_last_day else None,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class Replay:
    patron: str
    rules: AccountRules
    days: tuple[DayStatus, ...]
    periods: tuple[Period, ...]
    findings: tuple[Finding, ...]

    def to_json(self) -> dict[str, Any]:
        """The output document of accounts.md."""
        return {
            "patron": self.patron,
            "days": [d.to_json() for d in self.days],
            "periods": [p.to_json() for p in self.periods],
            "findings": [f.to_json() for f in self.findings],
        }


def money(cents: int) -> str:
    """S$ with thousands separators, cents only when there are some: S$100,000, S$99,999.99."""
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}S${whole:,}" + (f".{part:02d}" if part else "")


def default_until(timeline: Timeline) -> date:
    """The last event plus 13 months (accounts.md)."""
    return timeline.last_date + relativedelta(months=13)


def _months(day: date, n: int) -> date:
    result: date = day + relativedelta(months=n)
    return result


@dataclass(slots=True)
class _State:
    """The replay's state between days."""

    rules: AccountRules
    residency: str
    ledger: Ledger | None = None
    qualified_here: bool = False  # this account has qualified under reg 3
    final_here: str | None = None  # a cessation 4(2) cannot undo in this account (4(3))
    period: Period | None = None  # the current (or last) period of this account
    active: bool = False  # the period grants the status (until its anniversary is decided)
    off_basis: str = "reg 3"  # why the patron is not a premium player
    dip_start: date | None = None
    topped_up: bool = False  # an additional 2A deposit since the spell began (4(2)(c))
    periods: list[Period] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    # --- periods ---------------------------------------------------------------------------

    def start(self, day: date, basis: str) -> Period:
        if self.period is not None and self.active and self.period.ended is None:
            self.period.ended, self.period.end_basis = day, basis.removesuffix(" + 4(1)")
        last = _months(day, self.rules.period_months) - ONE_DAY
        self.period = Period(day, last, basis)
        self.periods.append(self.period)
        self.active = True
        return self.period

    def end(self, day: date, basis: str) -> None:
        if self.period is not None and self.active:
            if self.period.ended is None:
                self.period.ended, self.period.end_basis = day, basis
            self.active = False
        self.off_basis = basis

    def premium_on(self, day: date) -> bool:
        """Whether a period is running or awaits its anniversary decision on ``day``."""
        p = self.period
        return p is not None and self.active and p.start <= day <= p.anniversary

    def qualifying(self) -> int:
        return self.ledger.qualifying(self.residency) if self.ledger is not None else 0

    def balance(self) -> int:
        return self.ledger.balance() if self.ledger is not None else 0


@dataclass(slots=True)
class _Day:
    """What happened during one day, for the end-of-day decision."""

    notes: list[str] = field(default_factory=list)
    inflow: bool = False  # an additional deposit in accordance with reg 2A (4(2)(c))
    became_local: bool = False  # a foreign premium player became a citizen or PR (4(3))
    new_deposit: int = 0  # 2A(1)(a)-(d) money provided after that change
    status_note: bool = False  # the notes say why the status changed or did not


def replay(timeline: Timeline, rules: AccountRules, until: date | None = None) -> Replay:
    """The status of ``timeline``'s patron on every day from its first event to ``until``
    (default: the last event plus 13 months). Events after ``until`` are not applied."""
    end = default_until(timeline) if until is None else until
    first = timeline.first_date
    # the residency in force before the first day's events; later entries apply on their day
    entries = timeline.residency
    n = max(i for i, (since, _) in enumerate(entries) if i == 0 or since < first)
    listed = dict(entries[n + 1 :])
    st = _State(rules, entries[n][1])
    by_day: dict[date, list[AccountEvent]] = {}
    for ev in timeline.events:
        by_day.setdefault(ev.date, []).append(ev)
    days: list[DayStatus] = []
    previous: DayStatus | None = None
    day = first
    while day <= end:
        events = by_day.get(day, [])
        today = _Day()
        if day in listed and not any(e.type == "residency_change" for e in events):
            _change_residency(st, today, day, listed[day])
        for ev in events:
            _apply(st, today, ev)
        _decide(st, today, day)
        status = _record(st, today, day, previous)
        days.append(status)
        previous = status
        day += ONE_DAY
    return Replay(timeline.patron, rules, tuple(days), tuple(st.periods), tuple(st.findings))


class Stepper:
    """The replay of one patron's timeline fed one event and one day at a time, for a desk
    that decides each day's status as the days go by (the same rules as :func:`replay`):
    ``apply`` each event of a day in order, then ``end_day`` decides that day's status.
    Every day from the first event on must be ended, in order, events or not."""

    __slots__ = ("_previous", "_state", "_today")

    def __init__(self, residency: str, rules: AccountRules) -> None:
        self._state = _State(rules, residency)
        self._today = _Day()
        self._previous: DayStatus | None = None

    def apply(self, ev: AccountEvent) -> None:
        """One event of the day being played (``ev.date``)."""
        _apply(self._state, self._today, ev)

    def end_day(self, day: date) -> DayStatus:
        """The status at the end of ``day`` (C2), after the day's events."""
        st, today = self._state, self._today
        _decide(st, today, day)
        status = _record(st, today, day, self._previous)
        self._previous, self._today = status, _Day()
        return status

    @property
    def ledger(self) -> Ledger | None:
        """The open account's ledger (None when there is none)."""
        return self._state.ledger

    @property
    def residency(self) -> str:
        return self._state.residency

    @property
    def dip_start(self) -> date | None:
        """The first day of the current spell below the minimum (C4), if in one."""
        return self._state.dip_start

    @property
    def periods(self) -> tuple[Period, ...]:
        return tuple(self._state.periods)

    @property
    def findings(self) -> tuple[Finding, ...]:
        return tuple(self._state.findings)


# --- events --------------------------------------------------------------------------------


def _change_residency(st: _State, today: _Day, day: date, to: str) -> None:
    before = st.residency
    q_before = st.qualifying()
    st.residency = to
    note = f"became {residency_words(to)}"
    dropped = q_before - st.qualifying()
    if dropped:
        note += f" ({money(dropped)} of credit on the account no longer counts, reg 2A(1)(e))"
    today.notes.append(note)
    if before == "foreigner" and to != "foreigner" and st.premium_on(day):
        today.became_local = True
        today.new_deposit = 0


def _inflow(st: _State, today: _Day, form: str, amount: int) -> None:
    today.inflow = True
    if st.dip_start is not None:
        st.topped_up = True
    if today.became_local and form in NON_CREDIT_FORMS:
        today.new_deposit += amount


def _apply(st: _State, today: _Day, ev: AccountEvent) -> None:
    day = ev.date
    if ev.type == "residency_change":
        assert ev.to is not None
        _change_residency(st, today, day, ev.to)
        return
    if ev.type == "open_account":
        st.ledger = Ledger()
        st.qualified_here, st.final_here = False, None
        st.dip_start, st.topped_up = None, False
        st.period, st.active, st.off_basis = None, False, "reg 3"
        today.notes.append("opened a deposit account")
        return
    ledger = st.ledger
    assert ledger is not None  # the timeline was checked: events need an open account
    if ev.type == "close_account":
        was = st.premium_on(day)
        paid, returned = ledger.close()
        st.ledger, st.dip_start, st.topped_up = None, None, False
        note = f"closed the account ({money(paid)} paid out"
        if returned:
            note += f"; uncleared cheque {', '.join(returned)} returned"
        note += ")"
        if was:
            note += ": premium-player status ends at once (reg 4(6))"
            today.status_note = True
        st.end(day, "reg 4(6)")
        today.became_local = False
        today.notes.append(note)
    elif ev.type == "deposit":
        assert ev.form is not None and ev.amount_cents is not None
        form, amount = ev.form, ev.amount_cents
        allowed = form_allowed(form, st.residency)
        counts = allowed and form != "personal_cheque"
        ledger.deposit(form, amount, day, allowed=counts)
        note = f"deposited {money(amount)} {form_words(form)}"
        if form == "personal_cheque":
            note += " with no record of its clearance: it counts towards no balance test"
            st.findings.append(
                Finding(
                    "SG10.R2A.1d",
                    day,
                    f"{ev.key}: a personal cheque of {money(amount)} was credited to the "
                    "deposit account without being cleared by an authorised bank (no "
                    "cheque_received/cheque_cleared); reg 2A(1)(d) counts it only once cleared",
                )
            )
        elif not allowed:
            note += (
                f" although the patron is {residency_words(st.residency)}: it counts towards "
                "no balance test (reg 2A(1)(e))"
            )
            st.findings.append(
                Finding(
                    "SG10.R2A.1e",
                    day,
                    f"{ev.key}: {money(amount)} {form_words(form)} was deposited for a patron "
                    f"who is {residency_words(st.residency)}; reg 2A(1)(e) and 2A(2) allow "
                    "credit as a deposit only for a patron who is neither a citizen nor a "
                    "permanent resident of Singapore",
                )
            )
        else:
            _inflow(st, today, form, amount)
        today.notes.append(note)
    elif ev.type == "cheque_received":
        assert ev.ref is not None and ev.kind is not None and ev.amount_cents is not None
        ledger.receive_cheque(ev.ref, ev.kind, ev.amount_cents, day, allowed=True)
        what = form_words(ev.kind).removeprefix("by ").removeprefix("in ")
        if ev.kind == "personal_cheque":
            today.notes.append(
                f"received {what} {ev.ref} for {money(ev.amount_cents)}: it counts once an "
                "authorised bank clears it (reg 2A(1)(d))"
            )
        else:
            clause = "2A(1)(c)" if ev.kind == "casino_cheque" else "2A(1)(b)"
            verb = "accepted" if ev.kind == "casino_cheque" else "received"
            today.notes.append(
                f"{verb} {what} {ev.ref} for {money(ev.amount_cents)}: it counts from today "
                f"(reg {clause})"
            )
            _inflow(st, today, ev.kind, ev.amount_cents)
    elif ev.type == "cheque_cleared":
        assert ev.ref is not None
        amount, waited = ledger.clear_cheque(ev.ref, day)
        if waited:
            today.notes.append(
                f"personal cheque {ev.ref} for {money(amount)} cleared: it counts from today "
                "(reg 2A(1)(d))"
            )
            _inflow(st, today, "personal_cheque", amount)
        else:
            today.notes.append(f"cheque {ev.ref} cleared (it has counted since it was taken)")
    elif ev.type == "cheque_dishonoured":
        assert ev.ref is not None
        amount, taken = ledger.dishonour_cheque(ev.ref)
        note = f"cheque {ev.ref} for {money(amount)} dishonoured"
        if taken:
            note += f": {money(taken)} of it comes off the balance"
            if taken < amount:
                note += f" (the other {money(amount - taken)} was drawn already)"
        else:
            note += ": it never counted"
        today.notes.append(note)
    elif ev.type == "drawdown":
        assert ev.amount_cents is not None
        parts_taken = ledger.drawdown(ev.amount_cents)
        note = f"drew down {money(ev.amount_cents)}"
        if len(parts_taken) > 1 or any(f != "cash" for f, _ in parts_taken):
            parts = ", ".join(f"{money(c)} {form_words(f)}" for f, c in parts_taken)
            note += f" (taken: {parts})"
        today.notes.append(note)


# --- the end-of-day decision ---------------------------------------------------------------


def _decide(st: _State, today: _Day, day: date) -> None:
    rules = st.rules
    minimum = rules.min_balance_cents
    q = st.qualifying()
    m_text = money(minimum)
    period_words = f"{rules.period_months} months"

    def say(text: str) -> None:
        today.notes.append(text)
        today.status_note = True

    if today.became_local and st.ledger is not None:
        if rules.reg4_3_new_deposit_must_meet_minimum:
            ok = today.new_deposit >= minimum
            need = f"new deposit of at least {m_text} in the forms of reg 2A(1)(a)-(d)"
        else:
            ok = today.new_deposit > 0 and q >= minimum
            need = (
                "new deposit in the forms of reg 2A(1)(a)-(d) bringing the qualifying balance "
                f"to {m_text}"
            )
        if ok:
            new = st.start(day, "reg 4(3)")
            say(
                f"provided a new deposit of {money(today.new_deposit)} on becoming a citizen "
                f"or PR: premium player for {period_words} from today, to "
                f"{new.last_day.isoformat()} (reg 4(3))"
            )
        else:
            st.end(day, "reg 4(3)")
            st.final_here = "reg 4(3)"
            say(
                f"a foreign premium player who became a citizen or PR gave no {need} that "
                f"day (new deposits after the change: {money(today.new_deposit)}): ceases to "
                "be a premium player today (reg 4(3))"
            )
        _track_dip(st, today, day, q)
        return
    if st.ledger is None:
        return

    # 4(2)(a) the balance fell below the minimum (a spell began on an earlier day), (c) one
    # or more additional 2A deposits were made since, and today it is back at the minimum
    restored = st.dip_start is not None and st.topped_up and q >= minimum
    limit = _months(st.dip_start, rules.max_below_months) if st.dip_start else None
    within = restored and limit is not None and day <= limit  # 4(2)(b) with reg 2B (C4)
    spell = f"the spell below the minimum from {st.dip_start.isoformat()}" if st.dip_start else ""
    current = st.period
    if current is not None and st.active and day == current.anniversary:
        if within:
            new = st.start(day, "reg 4(2)")
            say(
                f"an additional deposit brings the balance to {money(q)} on the anniversary, "
                f"ending {spell} within reg 2B: premium player to {new.last_day.isoformat()} "
                "(reg 4(2))"
            )
        elif q >= minimum:
            new = st.start(day, "reg 4(4)")
            say(
                f"the balance of {money(q)} on the anniversary is at least {m_text}: premium "
                f"player for a further {period_words}, to {new.last_day.isoformat()} "
                "(reg 4(4))"
            )
        else:
            st.end(day, "reg 4(5)")
            say(
                f"the period ended on {current.last_day.isoformat()} and the balance of {money(q)} "
                f"on the anniversary is below {m_text}: not renewed under reg 4(4), so the "
                "patron is no longer a premium player (reg 4(5))"
            )
    elif current is not None and st.active and current.covers(day):
        if within:
            new = st.start(day, "reg 4(2)")
            say(
                f"an additional deposit brings the balance back to {money(q)}, ending {spell} "
                f"within reg 2B: premium player for {period_words} from today, to "
                f"{new.last_day.isoformat()} (reg 4(2))"
            )
        elif restored:
            say(
                f"the balance is back at {money(q)}, but {spell} lasted more than "
                f"{rules.max_below_months} months (reg 2B), so reg 4(2) does not restart the "
                f"period; it still runs to {current.last_day.isoformat()}"
            )
    elif not st.qualified_here:
        if q >= minimum:
            new = st.start(day, R3)
            st.qualified_here = True
            say(
                f"the account's qualifying balance of {money(q)} meets the minimum balance of "
                f"{m_text}: qualifies as a premium player (reg 3) for {period_words}, to "
                f"{new.last_day.isoformat()} (reg 4(1))"
            )
    elif restored or (today.inflow and q >= minimum):
        lapsed = st.final_here is None and st.off_basis == "reg 4(5)"
        topped = today.inflow and q >= minimum
        if within and lapsed and rules.sg_4_2_literal:
            new = st.start(day, "reg 4(2)")
            say(
                f"an additional deposit brings the balance back to {money(q)}, ending {spell} "
                f"within reg 2B: the lapsed status comes back through reg 4(2) (reading C5, "
                f"sg_4_2_literal), to {new.last_day.isoformat()}"
            )
        elif topped and not rules.sg_reg3_requires_new_account:
            new = st.start(day, R3)
            say(
                f"a top-up brings the account's qualifying balance to {money(q)}: qualifies "
                f"afresh (reg 3, reading C6 with sg_reg3_requires_new_account false) for "
                f"{period_words}, to {new.last_day.isoformat()} (reg 4(1))"
            )
        elif topped:
            if st.final_here is not None:
                why = f"the status ended under {st.final_here}, which 4(2) cannot undo"
            elif not lapsed:
                why = "the status ended for good"
            elif not within:
                why = f"{spell} lasted more than {rules.max_below_months} months (reg 2B)"
            else:
                why = "reg 4(2) does not revive a lapsed status (sg_4_2_literal is false)"
            say(
                f"the balance is back at {money(q)}, but {why}; a fresh qualification under "
                "reg 3 needs a newly opened account (reading C6)"
            )
    _track_dip(st, today, day, q)


def _track_dip(st: _State, today: _Day, day: date, q: int) -> None:
    """The spell below the minimum (C4): it starts on the first day whose end-of-day
    qualifying balance is below it and ends on the day the balance is restored."""
    minimum = st.rules.min_balance_cents
    if st.ledger is None or q >= minimum:
        st.dip_start, st.topped_up = None, False
        return
    if st.dip_start is None:
        st.dip_start, st.topped_up = day, False
        if st.qualified_here and st.final_here is None:
            today.notes.append(
                f"the qualifying balance of {money(q)} is below the minimum of {money(minimum)} "
                "from today"
            )
        return
    past = _months(st.dip_start, st.rules.max_below_months) + ONE_DAY
    if day == past and st.qualified_here and st.final_here is None:
        today.notes.append(
            f"the balance has been below the minimum since {st.dip_start.isoformat()} for "
            f"more than {st.rules.max_below_months} months: reg 4(2) can no longer apply "
            "(reg 2B)"
        )


# --- the day's line ------------------------------------------------------------------------


def _record(st: _State, today: _Day, day: date, previous: DayStatus | None) -> DayStatus:
    p = st.period
    premium = p is not None and st.active and p.covers(day)
    basis = p.basis if premium and p is not None else st.off_basis
    last = p.last_day if premium and p is not None else None
    if premium:
        where = f"premium player until {last.isoformat() if last else ''} ({basis})"
    else:
        where = _off_words(st)
    if today.notes and not today.status_note:
        reason = "; ".join(today.notes) + f"; {where}"
    elif today.notes:
        reason = "; ".join(today.notes)
    else:
        reason = f"no change: {where}"
    changed = bool(today.notes) or (
        previous is None
        or previous.premium_player != premium
        or previous.basis != basis
        or previous.period_last_day != last
    )
    return DayStatus(day, st.balance(), st.qualifying(), premium, basis, last, reason, changed)


def _off_words(st: _State) -> str:
    basis = st.off_basis
    if basis == "reg 4(6)":
        return "not a premium player: the account was closed (reg 4(6))"
    if basis == "reg 4(3)":
        return "not a premium player since becoming a citizen or PR (reg 4(3))"
    if basis == "reg 4(5)":
        return "not a premium player: the last period was not renewed (reg 4(5))"
    if st.ledger is None:
        return "not a premium player: no deposit account (reg 3)"
    return (
        f"not a premium player: the qualifying balance is below "
        f"{money(st.rules.min_balance_cents)} (reg 3)"
    )
