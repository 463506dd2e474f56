"""A study's answer in plain words (issue 32): the first paragraph of its reports, generated
from the numbers (the headline KPI's change with its interval, the other KPIs the proposal
moves, the machines a control's findings name), the notes on a negative win, and the number
formats the reports share (money in the run's currency, lengths in words)."""

from __future__ import annotations

import math

from twin.experiments.compare import StudyResult
from twin.experiments.replication import KPIS, MACHINES_BREACHING
from twin.experiments.stats import Difference
from twin.experiments.words import expects_positive, label, shown, with_unit


def _shown(d: Difference) -> bool:
    """Rows of the tables: every fixed KPI, and each control and department KPI that is not
    0 in both arms (the verdict counts have a table of their own; everything is in the
    JSON)."""
    if d.kpi.startswith(("exercised.", "verdicts.")):
        return False
    if d.kpi in KPIS:
        return True
    return bool(d.baseline_mean or d.proposed_mean)


def _num(v: float | None, digits: int = 2) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "—" if v is None or math.isnan(v) else ("∞" if v > 0 else "-∞")
    if abs(v) >= 1e4:
        return f"{v:,.0f}"
    return f"{v:,.{digits}f}"


def currency_of(result: StudyResult) -> str:
    """The currency the study's amounts are in (its runs' floor currency)."""
    for o in (*result.baseline, *result.proposed):
        return o.currency
    return "EUR"


def run_hours(result: StudyResult) -> float | None:
    """The simulated length of each replication, in hours (the plan's, else the runs')."""
    if result.plan.hours is not None:
        return result.plan.hours
    secs = [o.sim_seconds for o in result.baseline if math.isfinite(o.sim_seconds)]
    return secs[0] / 3600.0 if secs else None


def length_words(hours: float | None) -> str:
    """``4 hours``, ``1 day``, ``7 days``, ``36 hours``."""
    if hours is None:
        return "the scenario's length"
    if hours >= 24 and float(hours / 24).is_integer():
        days = int(hours // 24)
        return "1 day" if days == 1 else f"{days} days"
    return "1 hour" if hours == 1 else f"{hours:g} hours"


def length_adjective(hours: float | None) -> str:
    """``4-hour``, ``1-day``, ``7-day`` (before "run")."""
    if hours is None:
        return "scenario-length"
    if hours >= 24 and float(hours / 24).is_integer():
        return f"{int(hours // 24)}-day"
    return f"{hours:g}-hour"


def _ci(d: Difference, cur: str = "EUR") -> str:
    if d.n < 2:
        return "—"
    if d.half_width == 0:
        return "exact"
    return f"[{shown(d.kpi, d.low, cur, signed=True)}, {shown(d.kpi, d.high, cur, signed=True)}]"


def _rel(d: Difference) -> str:
    if d.relative is None:
        return "—"
    return f"{d.relative:+.1%}".replace("-", "−")


def _vrf(d: Difference) -> str:
    if d.variance_reduction is None:
        return "—"
    if math.isinf(d.variance_reduction):
        return "exact"
    return f"{d.variance_reduction:.1f}"


def _pct(x: float) -> str:
    """A share as a rounded percentage: ``14 %``, ``4.3 %``, ``0.4 %``."""
    v = abs(x) * 100.0
    return f"{v:.0f} %" if v >= 9.5 else f"{v:.1f} %"


def _headline(result: StudyResult) -> Difference | None:
    """The KPI the answer leads with: the first focus KPI outside the findings, else the
    theoretical win, else the first KPI."""
    p = result.plan
    names = [d.kpi for d in result.differences]
    order = [k for k in (p.focus.kpis if p.focus else ()) if label(k).family != "findings"]
    order += ["theo_win_cents", *names]
    for k in order:
        if k in names:
            return result.difference(k)
    return None


def _effect(d: Difference, cur: str, conf: str, length: str) -> str:
    """One KPI's difference in words, never claiming a direction its interval does not;
    ``length`` as an adjective (``4-hour``)."""
    lab = label(d.kpi)
    noun = ("the number of " if lab.unit == "count" else "the ") + lab.noun
    if d.n < 2:
        return f"with fewer than 2 paired replications, {noun} has no interval and no answer"
    b, pr = with_unit(d.kpi, d.baseline_mean, cur), with_unit(d.kpi, d.proposed_mean, cur)
    span = f"over a {length} run" if length[0].isdigit() else "over a run"
    if d.difference == 0 and d.half_width == 0:
        return f"{noun} is the same under both rules in every replication ({b} {span})"
    points = lab.unit in ("percent", "share")
    scale = 100.0 if lab.unit == "share" else 1.0
    if not d.significant:
        if points or d.relative is None:
            lo = with_unit(d.kpi, d.low, cur, signed=True)
            hi = with_unit(d.kpi, d.high, cur, signed=True)
            diff = with_unit(d.kpi, d.difference, cur, signed=True)
            what = f"{diff}, {conf} interval {lo} to {hi}"
        else:
            mb = abs(d.baseline_mean)
            what = (f"{_signed_pct(d.relative)} of today's {b}, {conf} interval "
                    f"{_signed_pct(d.low / mb)} to {_signed_pct(d.high / mb)}")  # fmt: skip
        return (
            f"the difference in {noun} ({what}) is not distinguishable from zero at this "
            f"precision: the study cannot say whether the proposal raises or lowers it"
        )
    verb = "falls" if d.difference < 0 else "rises"
    exact = d.half_width == 0
    if points:
        size = f"{abs(d.difference) * scale:,.2f} points"
        ci = ("in every replication alike" if exact else
              f"({conf} interval {min(abs(d.low), abs(d.high)) * scale:,.2f} to "
              f"{max(abs(d.low), abs(d.high)) * scale:,.2f} points)")  # fmt: skip
        return f"{noun} {verb} by {size} {ci}, from {b} to {pr} {span}"
    if d.relative is None:
        ci = ("in every replication alike" if exact else
              f"({conf} interval {with_unit(d.kpi, d.low, cur, signed=True)} to "
              f"{with_unit(d.kpi, d.high, cur, signed=True)})")  # fmt: skip
        return f"{noun} {verb} from {b} to {pr} {ci} {span}"
    mb = abs(d.baseline_mean)
    near, far = sorted((abs(d.low) / mb, abs(d.high) / mb))
    ci = "in every replication alike" if exact else f"({conf} interval {_pct(near)} to {_pct(far)})"
    return f"{noun} {verb} by about {_pct(d.relative)} {ci}, from {b} to {pr} {span}"


def _signed_pct(x: float) -> str:
    v = x * 100.0
    text = f"{abs(v):.0f} %" if abs(v) >= 9.5 else f"{abs(v):.1f} %"
    return ("−" if v < 0 else "+") + text


def _title(cid: str) -> str:
    from twin.compliance.catalog import load_catalog

    ctl = load_catalog().controls.get(cid)
    return ctl.title if ctl is not None else ""


def _count(v: float) -> str:
    return f"{v:,.0f}" if float(v).is_integer() else f"{v:,.1f}"


def _signed(v: float) -> str:
    text = _count(abs(v))
    return ("−" if v < 0 else "+") + text


def _consequences(result: StudyResult, conf: str) -> list[str]:
    """The controls whose findings the proposal changes, distinguishably from zero: first the
    machines a control names (they cannot be operated as they are), then the other counts."""
    out: list[str] = []
    named: set[str] = set()
    for d in result.differences:
        if not d.kpi.startswith(MACHINES_BREACHING) or not d.significant:
            continue
        cid = d.kpi.removeprefix(MACHINES_BREACHING)
        named.add(cid)
        title = _title(cid)
        who = f"{cid} (“{title}”)" if title else cid
        today = "none today" if d.baseline_mean == 0 else f"{_count(d.baseline_mean)} today"
        if d.difference > 0:
            if d.half_width == 0 and float(d.proposed_mean).is_integer():
                n = f"{_count(d.proposed_mean)} machines breach {who} in every replication"
            else:
                n = (f"on average {_count(d.proposed_mean)} machines breach {who} ({conf} "
                     f"interval of the change {_signed(d.low)} to {_signed(d.high)})")  # fmt: skip
            out.append(f"Under the proposal {n} ({today}): they can no longer be operated as "
                       "they are.")  # fmt: skip
        else:
            out.append(f"Under the proposal {_count(d.proposed_mean)} machines breach {who} "
                       f"({today}).")  # fmt: skip
    others = [
        d for d in result.differences
        if d.kpi.startswith("findings.") and d.significant
        and d.kpi.removeprefix("findings.") not in named
    ]  # fmt: skip
    for d in others[:4]:
        cid = d.kpi.removeprefix("findings.")
        title = _title(cid)
        who = f"{cid} (“{title}”)" if title else cid
        verb = "rise" if d.difference > 0 else "fall"
        ci = ("in every replication alike" if d.half_width == 0 else
              f"({conf} interval of the change {_signed(d.low)} to {_signed(d.high)})")  # fmt: skip
        out.append(f"Findings of {who} {verb} from {_count(d.baseline_mean)} to "
                   f"{_count(d.proposed_mean)} a run {ci}.")  # fmt: skip
    if len(others) > 4:
        out.append(f"The findings of {len(others) - 4} more controls change too (see the "
                   "findings by control).")  # fmt: skip
    if not out:
        out.append("No control's findings change distinguishably from zero.")
    return out


def _others(result: StudyResult, head: Difference | None, cur: str) -> str:
    """The other KPIs (not the findings) whose interval excludes 0, in report order: at most
    four by name, with the size of the change, then how many more."""
    moved = [
        d for d in result.differences
        if d.significant and d is not head and label(d.kpi).family != "findings"
        and not d.kpi.startswith(("verdicts.", "exercised."))
    ]  # fmt: skip
    if not moved:
        return "No other KPI changes distinguishably from zero."

    def size(d: Difference) -> str:
        lab = label(d.kpi)
        if lab.unit in ("percent", "share"):
            k = 100.0 if lab.unit == "share" else 1.0
            return f"{d.difference * k:+.2f} points".replace("-", "−")
        if d.relative is not None:
            return _signed_pct(d.relative)
        return with_unit(d.kpi, d.difference, cur, signed=True)

    named = ", ".join(f"{'the number of ' if label(d.kpi).unit == 'count' else 'the '}"
                      f"{label(d.kpi).noun} ({size(d)})" for d in moved[:4])  # fmt: skip
    more = f", and {len(moved) - 4} more (see the table)" if len(moved) > 4 else ""
    return f"Other KPIs that change distinguishably from zero: {named}{more}."


def answer(result: StudyResult) -> str:
    """The report's first paragraph: the answer in plain words, generated from the numbers
    (the headline KPI's paired difference and interval, the controls it changes, the basis
    and whether the precision asked was reached)."""
    p = result.plan
    cur = currency_of(result)
    conf = f"{p.confidence * 100:g} %"
    length = length_adjective(run_hours(result))
    title = p.proposed.title if p.proposed.title != p.proposed.ruleset else p.proposed.describe()
    if p.operators == "keep":
        title += " (the operators keeping today's procedures)"
    parts: list[str] = []
    head = _headline(result)
    if head is not None:
        effect = _effect(head, cur, conf, length)
        parts.append(f"{title}: {effect}.")
    parts.append(_others(result, head, cur))
    parts += _consequences(result, conf)
    seeds = f"seeds {p.root_seed}–{p.root_seed + result.used - 1}"
    pairing = "arms on independent seeds" if p.independent else "common random numbers"
    basis = (f"Based on {result.used} paired replications of "
             f"{length_words(run_hours(result))} each ({seeds}, "
             f"{pairing}).")  # fmt: skip
    if p.focus is not None:
        if result.stopped.startswith("stopped at the cap"):
            basis += (f" The study stopped at its cap of {p.replications} replications "
                      "without the precision asked (see the stopping note).")  # fmt: skip
        elif result.stopped.startswith(("precision reached", "all ")):
            basis += (f" The focus KPIs are known to ±{p.focus.relative_precision * 100:g} % of "
                      "their difference.")  # fmt: skip
    if result.failures:
        basis += f" {len(result.failures)} failed replication(s) are left out."
    parts.append(basis)
    return " ".join(parts)


def sign_notes(result: StudyResult) -> list[str]:
    """A comment for each win or hold whose mean is negative in an arm (a casino that lost):
    what it means, and why the theoretical win is the figure to read."""
    cur = currency_of(result)
    length = length_adjective(run_hours(result))
    theo = next((d for d in result.differences if d.kpi == "theo_win_cents"), None)
    hold = next((d for d in result.differences if d.kpi == "theo_hold_percent"), None)
    out: list[str] = []
    flagged = {
        d.kpi for d in result.differences
        if expects_positive(d.kpi) and (d.baseline_mean < 0 or d.proposed_mean < 0)
    }  # fmt: skip
    # the actual win first: the hold's note refers to it
    ordered = sorted(result.differences, key=lambda d: d.kpi != "casino_win_cents")
    for d in ordered:
        if not expects_positive(d.kpi) or d.n == 0:
            continue
        neg = [(arm, v) for arm, v in (("today", d.baseline_mean),
                                       ("under the proposal", d.proposed_mean))
               if math.isfinite(v) and v < 0]  # fmt: skip
        if not neg:
            continue
        lab = label(d.kpi)
        vals = ", ".join(f"{with_unit(d.kpi, v, cur)} {arm}" for arm, v in neg)
        if d.kpi == "hold_percent" and "casino_win_cents" in flagged:
            out.append(f"{lab.name} is negative ({vals}): the same loss as the actual win's, "
                       "as a share of the money wagered.")  # fmt: skip
            continue
        text = (f"{lab.name} is negative ({vals}): over these {length} runs the casino paid "
                "out more than it took in on this play (prizes and hand-paid jackpots "
                "exceeded the money played), so it lost money here.")  # fmt: skip
        if d.kpi in ("casino_win_cents", "hold_percent"):
            text += (" The actual win counts every prize paid in the run, progressive jackpots "
                     "included, so a few large prizes decide it")  # fmt: skip
            if hold is not None and math.isfinite(hold.baseline_mean) and hold.baseline_mean > 0:
                text += (", and it can be negative although by design the pay tables hold "
                         f"{with_unit('theo_hold_percent', hold.baseline_mean)} of the money "
                         "played")  # fmt: skip
            if theo is not None and math.isfinite(theo.baseline_mean) and theo.baseline_mean > 0:
                text += (f"; the theoretical win, which the pay tables fix, is "
                         f"{with_unit('theo_win_cents', theo.baseline_mean, cur)} today and "
                         f"is the figure to read")  # fmt: skip
            text += "."
        out.append(text)
    return out
