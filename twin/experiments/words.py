"""The study reports' words: each KPI's display name, unit and family (issue 32).

A study compares KPIs by their code names (``theo_win_cents``, ``lifecycle.downtime_hours.
replacement``, ``findings.MT98.S1.1a``); a reader needs "Theoretical win (€)" and money in
euros. :data:`DISPLAY` is the one table of display names: a pattern of the code name (``*``
stands for one dotted segment: a game, a reason, a strategy; the dynamic part goes into the
name as ``{0}``, ``{1}``), the name in words and the unit of the value as the run gives it.
The units say how a value is shown (cents as the run's currency with thousands separators,
seconds as minutes, shares as %) and which panel of the forest plot it goes into (its
family). A KPI the table does not name is shown in humanized words and flagged (``known``
False); ``tests/test_compare_answer.py`` runs every shipped scenario and holds that every KPI
a study produces has a name here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Literal

Unit = Literal["money", "percent", "share", "seconds", "hours", "days", "count"]
Family = Literal["money", "rates", "time", "counts", "findings"]

#: each unit's family: the panel of the forest plot its KPIs share
FAMILY_OF_UNIT: dict[Unit, Family] = {
    "money": "money",
    "percent": "rates",
    "share": "rates",
    "seconds": "time",
    "hours": "time",
    "days": "time",
    "count": "counts",
}

FAMILY_TITLES: dict[Family, str] = {
    "money": "Money",
    "rates": "Rates and shares",
    "time": "Time",
    "counts": "Counts",
    "findings": "Findings of the controls",
}

#: the currency symbols the reports know (anything else is shown as its ISO code)
SYMBOLS = {"EUR": "€", "SGD": "S$", "GBP": "£", "USD": "US$"}

#: code-name pattern -> (display name, unit); ``*`` is one dotted segment (see the docstring)
DISPLAY: dict[str, tuple[str, Unit]] = {
    # -- the slot floor (twin.experiments.replication.KPIS) --
    "theo_win_cents": ("Theoretical win", "money"),
    "theo_hold_percent": ("Theoretical hold", "percent"),
    "hold_percent": ("Actual hold", "percent"),
    "casino_win_cents": ("Actual win", "money"),
    "coin_in_cents": ("Money wagered", "money"),
    "visitors": ("Patrons who came in", "count"),
    "walkaways": ("Patrons who left without a free machine", "count"),
    "spins": ("Games played", "count"),
    "hand_pays": ("Hand pays completed", "count"),
    "hand_pay_wait_p50_s": ("Median wait for a hand pay", "seconds"),
    "hand_pay_wait_p95_s": ("95th percentile of the wait for a hand pay", "seconds"),
    "hopper_fills": ("Hopper fills completed", "count"),
    "hopper_fill_wait_p50_s": ("Median wait for a hopper fill", "seconds"),
    "machine_downtime_hours": ("Machine-hours out of play", "hours"),
    "findings": ("Findings of every control", "count"),
    "findings.*": ("Findings of {0}", "count"),
    "machines_breaching.*": ("Machines breaching {0}", "count"),
    "exercised.*": ("Whether {0} observed anything (1 or 0)", "count"),
    "verdicts.*": ("Controls with the verdict {0}", "count"),
    # -- the entrance (twin.door) --
    "entrance.entries": ("Entries at the door", "count"),
    "entrance.refusals": ("Refusals at the door", "count"),
    "entrance.refusals_by_reason.*": ("Refusals at the door: {0}", "count"),
    "entrance.self_exclusion_requests": ("Self-exclusion requests (all casinos)", "count"),
    "entrance.self_exclusion_requests_here": ("Self-exclusion requests made here", "count"),
    "entrance.board_notices": ("Notices to the Board", "count"),
    "entrance.notice_copies": ("Copies of notices to other casinos", "count"),
    "entrance.peer_entries.*": ("Entries at {0}", "count"),
    "entrance.peer_refusals_by_reason.*": ("Refusals at other casinos: {0}", "count"),
    "entrance.visits_authorised": ("Authorised visits", "count"),
    "entrance.employee_visits": ("Employees' visits", "count"),
    # -- the tables (twin.pit) --
    "tables.games.*.tables": ("Tables of {0}", "count"),
    "tables.games.*.open_hours": ("Hours open, {0}", "hours"),
    "tables.games.*.stretches": ("Stretches open, {0}", "count"),
    "tables.games.*.rounds": ("Rounds played, {0}", "count"),
    "tables.games.*.handle_cents": ("Handle, {0}", "money"),
    "tables.games.*.drop_cents": ("Drop, {0}", "money"),
    "tables.games.*.win_cents": ("Table win, {0}", "money"),
    "tables.games.*.hold_percent": ("Hold of the drop, {0}", "percent"),
    "tables.games.*.win_of_handle_percent": ("Win of the handle, {0}", "percent"),
    "tables.games.*.theoretical_win_cents": ("Theoretical table win, {0}", "money"),
    "tables.games.*.theoretical_percent": ("Theoretical hold of the handle, {0}", "percent"),
    "tables.card_room.*.sessions": ("Card-room sessions, {0}", "count"),
    "tables.card_room.*.hours": ("Card-room hours charged, {0}", "hours"),
    "tables.card_room.*.charged_cents": ("Card-room charges, {0}", "money"),
    "tables.count_variances_investigated": ("Table count variances investigated", "count"),
    "tables.devices.carried": ("Cheating devices carried to the tables", "count"),
    "tables.devices.detected_before_play": ("Devices detected before play", "count"),
    "tables.devices.detected_after_play": ("Devices detected after play", "count"),
    "tables.devices.missed": ("Devices never detected", "count"),
    # -- the cage --
    "cage.transactions_by_kind.*.count": ("Cage transactions: {0}", "count"),
    "cage.transactions_by_kind.*.amount_cents": ("Cage transactions: {0}, amount", "money"),
    "cage.payments_accepted.*": ("Payments accepted at the cage: {0}", "count"),
    "cage.substitute_cheques": ("Substitute cheques", "count"),
    "cage.banked.*.payments": ("Payments banked: {0}", "count"),
    "cage.banked.*.amount_cents": ("Amount banked: {0}", "money"),
    "cage.cheques_dishonoured": ("Cheques dishonoured", "count"),
    "cage.dishonoured_paid_later": ("Dishonoured cheques paid later", "count"),
    "cage.unclaimed_found.items": ("Unclaimed items found", "count"),
    "cage.unclaimed_found.value_cents": ("Value of unclaimed items found", "money"),
    "cage.unclaimed_registered.items": ("Unclaimed items registered", "count"),
    "cage.unclaimed_registered.value_cents": ("Value of unclaimed items registered", "money"),
    "cage.unclaimed_written_off.*": ("Unclaimed items written off: {0}", "count"),
    "cage.cage_reconciliations": ("Cage reconciliations", "count"),
    "cage.cage_variance_cents": ("Cage variance", "money"),
    "cage.drop_count.containers": ("Drop containers counted", "count"),
    "cage.drop_count.counted_cents": ("Drop counted", "money"),
    "cage.drop_count.metered_cents": ("Drop metered", "money"),
    "cage.drop_count.*": ("Drop count: {0}", "count"),
    "cage.drop_variances.count": ("Drop variances", "count"),
    "cage.drop_variances.investigated": ("Drop variances investigated", "count"),
    "cage.drop_variances.net_cents": ("Net drop variance", "money"),
    "cage.volumes_destroyed": ("Record volumes destroyed", "count"),
    "cage.records_requests.asked": ("Records asked for", "count"),
    "cage.records_requests.produced": ("Records produced", "count"),
    # -- junkets --
    "junkets.junkets": ("Junkets", "count"),
    "junkets.settled": ("Junkets settled", "count"),
    "junkets.members": ("Junket members", "count"),
    "junkets.deposits_cents": ("Junket deposits", "money"),
    "junkets.rolling_turnover_cents": ("Junket rolling turnover", "money"),
    "junkets.win_cents": ("Win on junket play", "money"),
    "junkets.commission_cents": ("Junket commission", "money"),
    "junkets.rebates_cents": ("Junket rebates", "money"),
    "junkets.net_to_house_cents": ("Junket play's net to the house", "money"),
    # -- premium players --
    "premium.players": ("Premium players", "count"),
    "premium.players_by_status.*": ("Players by status: {0}", "count"),
    "premium.accounts.open": ("Deposit accounts open", "count"),
    "premium.accounts.opened": ("Deposit accounts opened", "count"),
    "premium.accounts.closed": ("Deposit accounts closed", "count"),
    "premium.deposits_cents_by_form.*": ("Deposits: {0}", "money"),
    "premium.credit.extended_cents": ("Credit extended", "money"),
    "premium.credit.repaid_cents": ("Credit repaid", "money"),
    "premium.credit.outstanding_cents": ("Credit outstanding", "money"),
    "premium.credit.*": ("Credit: {0}", "money"),
    "premium.drawdowns.count": ("Drawdowns", "count"),
    "premium.drawdowns.chips_cents": ("Drawdowns in chips", "money"),
    "premium.drawdowns.withdrawal_cents": ("Drawdowns withdrawn", "money"),
    "premium.status_decisions.*": ("Status decisions: {0}", "count"),
    "premium.room.sessions": ("Premium-room sessions", "count"),
    "premium.room.rounds": ("Premium-room rounds", "count"),
    "premium.room.turnover_cents": ("Premium-room turnover", "money"),
    "premium.room.win_cents": ("Premium-room win", "money"),
    "premium.room.hold": ("Premium-room hold", "share"),
    # -- anti-money laundering --
    "aml.identifications.*": ("Identifications: {0}", "count"),
    "aml.cross_references.*": ("Cross-references: {0}", "count"),
    "aml.red_flags.*": ("Red flags: {0}", "count"),
    "aml.internal_reports": ("Internal reports to the Reporting Officer", "count"),
    "aml.evaluations.*": ("Reporting Officer's evaluations: {0}", "count"),
    "aml.police_reports": ("Reports to the police", "count"),
    "aml.patrons_reported": ("Patrons reported to the police", "count"),
    "aml.strategies.*.launderers": ("Launderers acting: {0}", "count"),
    "aml.strategies.*.detected": ("Launderers reported: {0}", "count"),
    "aml.strategies.*.detected_share": ("Share of launderers reported: {0}", "share"),
    "aml.strategies.*.median_hours_to_report": ("Median hours to a police report: {0}", "hours"),
    "aml.honest_patrons": ("Honest patrons admitted", "count"),
    "aml.honest_flagged": ("Honest patrons flagged", "count"),
    "aml.false_reports": ("Honest patrons reported to the police", "count"),
    "aml.false_report_share": ("Share of honest patrons reported", "share"),
    # -- machine lifecycle (issue 27) --
    "lifecycle.machines_by_state.*": ("Machines by state: {0}", "count"),
    "lifecycle.board_decisions.*": ("Board decisions on machines: {0}", "count"),
    "lifecycle.board_decisions_by_outcome.*": ("Board's machine decisions, outcome {0}", "count"),
    "lifecycle.board_wait_hours.*.n": ("Board decisions waited for: {0}", "count"),
    "lifecycle.board_wait_hours.*.mean": ("Mean wait for the Board: {0}", "hours"),
    "lifecycle.board_wait_hours.*.max": ("Longest wait for the Board: {0}", "hours"),
    "lifecycle.works.*": ("Works on machines: {0}", "count"),
    "lifecycle.work_outcomes.*": ("Outcomes of works: {0}", "count"),
    "lifecycle.works_delayed_by_approval": ("Works delayed by an approval", "count"),
    "lifecycle.approval_wait_hours_total": ("Hours works waited for approval", "hours"),
    "lifecycle.conversions": ("Machines converted", "count"),
    "lifecycle.repairs": ("Repairs", "count"),
    "lifecycle.outcome_affecting_repairs": ("Outcome-affecting repairs", "count"),
    "lifecycle.faults_found": ("Faults found", "count"),
    "lifecycle.faults_cleared": ("Faults cleared", "count"),
    "lifecycle.downtime_hours.*": ("Machine-hours out of play for works: {0}", "hours"),
    "lifecycle.downtime_hours_total": ("Machine-hours out of play for works", "hours"),
    # -- staff licensing (issue 28) --
    "licensing.licences_by_state.*": ("Staff licences by state: {0}", "count"),
    "licensing.applications.*": ("Licence applications: {0}", "count"),
    "licensing.board_decisions.*": ("Board decisions on licences: {0}", "count"),
    "licensing.board_wait_days.n": ("Licence decisions waited for", "count"),
    "licensing.board_wait_days.mean": ("Mean wait for a licence decision", "days"),
    "licensing.board_wait_days.max": ("Longest wait for a licence decision", "days"),
    "licensing.renewals": ("Licence renewals", "count"),
    "licensing.duty_missed": ("Duties missed for want of a licence", "count"),
    "licensing.duty_missed_by_role.*": ("Duties missed: {0}", "count"),
    "licensing.duty_missed_by_reason.*": ("Duties missed: {0}", "count"),
    "licensing.staff_hours_short": ("Staff hours short (licence not in force)", "hours"),
    "licensing.jobs_without_licensed_staff": ("Jobs without licensed staff", "count"),
    "licensing.covers": ("Covers for unlicensed staff", "count"),
    "licensing.jobs_done_by_cover": ("Jobs done by a cover", "count"),
    "licensing.variations": ("Licence variations", "count"),
    # -- surveillance (issue 28) --
    "surveillance.cameras": ("Cameras", "count"),
    "surveillance.recordings_made": ("Recordings made", "count"),
    "surveillance.recordings_recycled": ("Recordings recycled", "count"),
    "surveillance.recordings_held_as_evidence": ("Recordings held as evidence", "count"),
    "surveillance.cases_opened": ("Surveillance cases opened", "count"),
    "surveillance.cases_closed": ("Surveillance cases closed", "count"),
    "surveillance.cases_open": ("Surveillance cases open", "count"),
    "surveillance.requests_answered": ("Requests for recordings answered", "count"),
    "surveillance.requests_refused": ("Requests for recordings refused", "count"),
}

#: KPIs whose value is expected to be positive: a negative mean gets a comment in the report
#: (a casino's win is what it took in less what it paid out)
WINS = ("casino_win_cents", "hold_percent", "tables.games.*.win_cents",
        "tables.games.*.hold_percent", "tables.games.*.win_of_handle_percent",
        "junkets.win_cents", "premium.room.win_cents", "premium.room.hold")  # fmt: skip

#: the prefixes whose rest is a control id (dotted)
_CONTROL_KEYED = ("findings", "machines_breaching", "exercised")

#: KPIs whose code names are controls (the finding counts): their family
_FINDINGS = ("findings", "findings.*", "machines_breaching.*")


@dataclass(frozen=True, slots=True)
class Label:
    """A KPI in words: its name, its unit, its family, and whether the table names it."""

    kpi: str
    name: str
    unit: Unit
    family: Family
    known: bool
    #: the dotted segments the pattern's ``*`` stood for (a control id, a game)
    parts: tuple[str, ...] = ()

    def heading(self, currency: str = "EUR") -> str:
        """The name with its unit: "Theoretical win (€)", "Median wait for a hand pay (min)"."""
        suffix = {"money": symbol(currency), "percent": "%", "share": "%", "seconds": "min",
                  "hours": "h", "days": "days", "count": ""}[self.unit]  # fmt: skip
        return f"{self.name} ({suffix})" if suffix else self.name

    @property
    def noun(self) -> str:
        """The name inside a sentence: "theoretical win" (an initial capital kept when the
        second letter is a capital too, as in "AML")."""
        n = self.name
        return n[0].lower() + n[1:] if len(n) > 1 and not n[1].isupper() else n


def _match(pattern: str, kpi: str) -> tuple[str, ...] | None:
    """The segments ``*`` stood for, or None. A trailing ``.*`` takes the rest (a control id
    has dots: ``findings.MT98.S1.1a``)."""
    p, k = pattern.split("."), kpi.split(".")
    if p[-1] == "*" and len(p) == 2 and p[0] in _CONTROL_KEYED:
        return (kpi.partition(".")[2],) if k[0] == p[0] and len(k) > 1 else None
    if len(p) != len(k):
        return None
    got: list[str] = []
    for a, b in zip(p, k, strict=True):
        if a == "*":
            got.append(b)
        elif a != b:
            return None
    return tuple(got)


def _humanize(kpi: str) -> str:
    words = kpi.replace("_cents", "").replace("_", " ").replace(".", ": ")
    return words[:1].upper() + words[1:]


def _guess_unit(kpi: str) -> Unit:
    last = kpi.rsplit(".", 1)[-1]
    for suffix, unit in (("_cents", "money"), ("_percent", "percent"), ("_share", "share"),
                         ("_s", "seconds"), ("_hours", "hours"), ("_days", "days")):  # fmt: skip
        if last.endswith(suffix):
            return unit  # type: ignore[return-value]
    return "count"


@cache
def label(kpi: str) -> Label:
    """The display of ``kpi``: the first pattern of :data:`DISPLAY` that matches (exact names
    before patterns), else humanized words with ``known`` False."""
    family_findings = any(_match(p, kpi) is not None for p in _FINDINGS)
    hit = DISPLAY.get(kpi)
    parts: tuple[str, ...] = ()
    if hit is None:
        for pattern, entry in DISPLAY.items():
            if "*" in pattern and (got := _match(pattern, kpi)) is not None:
                hit, parts = entry, got
                break
    if hit is None:
        unit = _guess_unit(kpi)
        return Label(kpi, _humanize(kpi), unit, FAMILY_OF_UNIT[unit], False)
    name, unit = hit
    words = name.format(*(p.replace("_", " ") for p in parts))
    family: Family = "findings" if family_findings else FAMILY_OF_UNIT[unit]
    return Label(kpi, words, unit, family, True, parts)


def expects_positive(kpi: str) -> bool:
    """Whether ``kpi`` is a win or a hold (see :data:`WINS`)."""
    return any(_match(p, kpi) is not None for p in WINS)


def symbol(currency: str) -> str:
    return SYMBOLS.get(currency, currency)


def _grouped(v: float, digits: int) -> str:
    return f"{v:,.{digits}f}"


def money(cents: float, currency: str = "EUR", *, signed: bool = False) -> str:
    """An amount in cents as the currency: ``€6,999.41``, ``−€787.12`` (a true minus sign);
    whole units from 100,000 up."""
    if not math.isfinite(cents):
        return "—"
    units = cents / 100.0
    digits = 0 if abs(units) >= 100_000 else 2
    body = f"{symbol(currency)}{_grouped(abs(units), digits)}"
    if units < 0 and round(abs(units), digits) > 0:
        return "−" + body
    return ("+" + body) if signed and round(units, digits) > 0 else body


def _plain(v: float, signed: bool, digits: int) -> str:
    if not math.isfinite(v):
        return "—"
    text = _grouped(abs(v), digits)
    if v < 0 and float(text.replace(",", "")) > 0:
        return "−" + text
    return ("+" + text) if signed and float(text.replace(",", "")) > 0 else text


def shown(kpi: str, v: float | None, currency: str = "EUR", *, signed: bool = False) -> str:
    """A value of ``kpi`` in its display unit, without the unit's name (the column heading
    carries it); money with its currency symbol."""
    if v is None or not math.isfinite(v):
        return "—"
    lab = label(kpi)
    if lab.unit == "money":
        return money(v, currency, signed=signed)
    if lab.unit == "seconds":
        return _plain(v / 60.0, signed, 1)
    if lab.unit == "share":
        return _plain(v * 100.0, signed, 2)
    if lab.unit == "count":
        whole = float(v).is_integer()
        return _plain(v, signed, 0 if whole or abs(v) >= 1e4 else 2)
    return _plain(v, signed, 2)


def with_unit(kpi: str, v: float, currency: str = "EUR", *, signed: bool = False) -> str:
    """A value with its unit, for a sentence: ``€699.94``, ``12.5 min``, ``8.61 %``, ``43``."""
    lab = label(kpi)
    text = shown(kpi, v, currency, signed=signed)
    unit = {"money": "", "percent": " %", "share": " %", "seconds": " min", "hours": " h",
            "days": " days", "count": ""}[lab.unit]  # fmt: skip
    return text + unit if text != "—" else text


__all__ = ["DISPLAY", "FAMILY_TITLES", "Label", "expects_positive", "label", "money", "shown",
           "symbol", "with_unit"]  # fmt: skip
