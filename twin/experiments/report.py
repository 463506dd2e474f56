"""A study's answer: a terminal table, a JSON document and a self-contained HTML report.

The HTML report is one file (plots embedded as PNG) a regulator can send on: the question,
the two arms, how many replications and why they stopped, every KPI's paired difference with
its interval, each control's finding counts, and the plots. matplotlib (Agg) draws the plots.
"""

from __future__ import annotations

import base64
import html
import io
import math
from dataclasses import dataclass
from typing import Any

from twin.experiments.answer import (
    _ci,
    _count,
    _headline,
    _num,
    _rel,
    _shown,
    _vrf,
    answer,
    currency_of,
    length_words,
    run_hours,
    sign_notes,
)
from twin.experiments.compare import INDEPENDENT_OFFSET, StudyResult
from twin.experiments.replication import KPIS, MACHINES_BREACHING
from twin.experiments.stats import NEGLIGIBLE_SHARE, Difference
from twin.experiments.words import label, shown


def verdict_summary(result: StudyResult) -> tuple[list[list[str]], list[str]]:
    """The controls' verdicts in the study (issue 25): the mean number of controls with each
    verdict per replication in each arm, and the controls no replication of either arm
    exercised (a clean study says nothing of them)."""
    from twin.compliance.verdicts import STATUS_WORDS, VERDICTS

    arms = (result.baseline, result.proposed)

    def mean(obs: Any, key: str) -> float:
        vals = [o.values.get(key, math.nan) for o in obs]
        vals = [v for v in vals if math.isfinite(v)]
        return sum(vals) / len(vals) if vals else math.nan

    table = [["verdict", result.plan.baseline.label, result.plan.proposed.label]]
    for s in VERDICTS:
        table.append([STATUS_WORDS[s], *(_num(mean(a, f"verdicts.{s}")) for a in arms)])
    keys = sorted({k for a in arms for o in a for k in o.values if k.startswith("exercised.")})
    never = [
        k.removeprefix("exercised.")
        for k in keys
        if all(o.values.get(k, 0.0) == 0.0 for a in arms for o in a)
    ]
    return table, never


def rows(result: StudyResult, *, every: bool = False, code: bool = True) -> list[list[str]]:
    """The differences table: each KPI's display name and unit (its code name last, for
    ``--focus`` and the JSON), the arms' means, the difference with its interval in the
    KPI's unit (money in the run's currency), the relative difference and the CRN gain."""
    cur = currency_of(result)
    header = ["KPI", "baseline", "proposed", "difference", f"{result.plan.confidence:.0%} CI",
              "relative", "CRN gain", ""] + (["code name"] if code else [])  # fmt: skip
    out = [header]
    for d in result.differences:
        if not every and not _shown(d):
            continue
        out.append([
            label(d.kpi).heading(cur), shown(d.kpi, d.baseline_mean, cur),
            shown(d.kpi, d.proposed_mean, cur), shown(d.kpi, d.difference, cur, signed=True),
            _ci(d, cur), _rel(d), _vrf(d), "*" if d.significant else "",
        ] + ([d.kpi] if code else []))  # fmt: skip
    return out


def facts(result: StudyResult) -> str:
    """The run's basis in one line: the simulated length of each replication, the seeds,
    how many pairs, the pairing, the confidence (issue 32: near the top of every report)."""
    p = result.plan
    hours = run_hours(result)
    span = "" if hours is None else f" ({hours:g} simulated hours)" if hours >= 24 else ""
    seeds = f"root seed {p.root_seed}: seeds {p.root_seed}–{p.root_seed + result.used - 1}"
    if p.independent:
        seeds += f" (the proposed arm's moved by {INDEPENDENT_OFFSET:,})"
    return (f"{result.used} paired replications of {length_words(hours)}{span} each, "
            f"{seeds}, " + ("independent arms" if p.independent else "common random numbers")
            + f"; {p.confidence * 100:g} % paired intervals")  # fmt: skip


def _wrap(text: str, indent: str) -> list[str]:
    """``text`` in lines of 96, never between a number and its unit ("4.2 %")."""
    import textwrap

    glued = text.replace(" %", "\u00a0%").replace(" min", "\u00a0min")
    lines = textwrap.wrap(glued, 96, initial_indent=indent, subsequent_indent=indent)
    return [line.replace("\u00a0", " ") for line in lines]


def render_text(result: StudyResult) -> str:
    p = result.plan
    lines = [
        f"Study of {p.scenario}",
        *_wrap(answer(result), "  "),
        "",
        f"  baseline  {p.baseline.label}: {p.baseline.describe()}",
        f"  proposed  {p.proposed.label}: {p.proposed.describe()}"
        + (f" ({p.proposed.title})" if p.proposed.title != p.proposed.ruleset else ""),
        f"  {facts(result)}",
        f"  stopping: {result.stopped}",
        "  operators: "
        + (
            "keep today's procedures under the proposal (the compliance gap on the day the "
            "rule changes): " + ", ".join(f"{k} = {v}" for k, v in p.kept)
            if p.operators == "keep"
            else "adapt their procedures to the proposed law (the cost of the rule)"
        ),
        f"  on {result.executor}, {result.wall_seconds:.1f} s"
        + (
            f"; {result.computed_not_used} more computed, not used"
            if result.computed_not_used
            else ""
        ),
        "",
    ]
    table = rows(result)
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    last = len(widths) - 1
    for r in table:
        cells = (
            c.rjust(w) if 0 < i < last else c.ljust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        lines.append("  ".join(cells).rstrip())
    lines.append("")
    lines.append(
        "* the interval excludes 0. CRN gain: variance of an independent-arms difference ÷ "
        "variance of the paired one (×1 = no gain). Controls with no finding in either arm, "
        "and department KPIs 0 in both, are left out here (in the JSON)."
    )
    for note in sign_notes(result):
        lines += _wrap("Note: " + note, "")
    vt, never = verdict_summary(result)
    lines.append("")
    lines.append("Controls per replication, by verdict (mean):")
    for r in vt[1:]:
        lines.append(f"  {r[0]:<16} {r[1]:>8} {r[2]:>8}")
    if never:
        lines.append(
            f"Not exercised in any replication of either arm ({len(never)}; a clean study says "
            "nothing of them): " + ", ".join(never)
        )
    for f in result.failures:
        lines.append(f"FAILED (twice): {f.arm} replication {f.index} (seed {f.seed}): {f.error}")
    return "\n".join(lines) + "\n"


def to_json(result: StudyResult) -> dict[str, Any]:
    p = result.plan

    def arm(a: Any) -> dict[str, Any]:
        return {"label": a.label, "ruleset": a.ruleset, "overrides": dict(a.overrides),
                "title": a.title, "question": a.question, "source": a.source}  # fmt: skip

    def obs(o: Any) -> dict[str, Any]:
        return {
            "index": o.index,
            "seed": o.seed,
            "ledger_sha256": o.ledger_sha256,
            "wall_seconds": round(o.wall_seconds, 3),
            "values": {k: (v if math.isfinite(v) else None) for k, v in o.values.items()},
        }

    return {
        "scenario": p.scenario,
        "hours": p.hours,
        "baseline": arm(p.baseline),
        "proposed": arm(p.proposed),
        "root_seed": p.root_seed,
        "simulated_hours": run_hours(result),
        "replications_max": p.replications,
        "replications_min": p.min_replications,
        "replications_used": result.used,
        "confidence": p.confidence,
        "independent": p.independent,
        "operators": p.operators,
        "operators_kept": {k: v for k, v in p.kept} if p.operators == "keep" else {},
        "focus": None
        if p.focus is None
        else {"kpis": list(p.focus.kpis), "relative_precision": p.focus.relative_precision},
        "stopped": result.stopped,
        "computed_not_used": result.computed_not_used,
        "executor": result.executor,
        "wall_seconds": round(result.wall_seconds, 3),
        "kpis": dict(KPIS),
        # issue 32: the answer in words, the currency of the amounts (cents of it), and each
        # KPI's display name with its unit
        "answer": answer(result),
        "currency": currency_of(result),
        "display": {d.kpi: label(d.kpi).heading(currency_of(result)) for d in result.differences},
        "differences": [d.to_dict() for d in result.differences],
        "failures": [
            {"arm": f.arm, "index": f.index, "seed": f.seed, "error": f.error}
            for f in result.failures
        ],
        "observations": {
            p.baseline.label: [obs(o) for o in result.baseline],
            p.proposed.label: [obs(o) for o in result.proposed],
        },
    }


# -- HTML ---------------------------------------------------------------------------------------


def png(fig: Any) -> str:
    """A matplotlib figure as base64 PNG (for an <img> data URL)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _forest_rows(result: StudyResult) -> dict[str, list[Difference]]:
    """The forest plot's KPIs by family: every fixed KPI, and any other (a department's, a
    control's findings) whose difference is not exactly 0 or that the study focuses on."""
    focus = set(result.plan.focus.kpis) if result.plan.focus else set()
    out: dict[str, list[Difference]] = {}
    for d in result.differences:
        if d.kpi.startswith(("verdicts.", "exercised.", MACHINES_BREACHING)) or d.n < 2:
            continue
        if d.kpi not in KPIS and d.kpi not in focus and d.difference == 0 and d.half_width == 0:
            continue
        lab = label(d.kpi)
        relative = lab.family in ("money", "time", "counts")
        if relative and not d.baseline_mean:
            continue  # a share of nothing: the table has it
        out.setdefault(lab.family, []).append(d)
    return out


def _forest_value(d: Difference) -> tuple[float, float, float]:
    """(low, mid, high) on the panel's axis: % of the baseline for money, time and counts;
    points for rates (shares ×100); findings per run for the findings."""
    lab = label(d.kpi)
    if lab.family in ("money", "time", "counts"):
        s = abs(d.baseline_mean) / 100.0
        return d.low / s, d.difference / s, d.high / s
    k = 100.0 if lab.unit == "share" else 1.0
    return d.low * k, d.difference * k, d.high * k


FOREST_UNITS = {"money": " %", "time": " %", "counts": " %", "rates": " pts", "findings": ""}
FOREST_AXES = {"money": "% of the baseline", "time": "% of the baseline",
               "counts": "% of the baseline", "rates": "percentage points",
               "findings": "findings per run"}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Panel:
    """One panel of the forest plot: a family, its axis half-range, and its KPIs as (code
    name, low, mid, high) on the panel's axis (see :func:`forest_panels`)."""

    family: str
    limit: float
    rows: tuple[tuple[str, float, float, float], ...]

    def clipped(self, kpi: str) -> bool:
        """Whether ``kpi``'s interval runs past the panel's edge."""
        return any(k == kpi and (lo < -self.limit or hi > self.limit)
                   for k, lo, _, hi in self.rows)  # fmt: skip


def forest_panels(result: StudyResult) -> list[Panel]:
    """The forest plot's panels, one per KPI family, each scaled to its own effects: the axis
    spans the focus KPIs' and the distinguishable effects' intervals, with 40 % of room (all
    the family's intervals when none is either); a wider interval runs to the edge."""
    fams = _forest_rows(result)
    focus = set(result.plan.focus.kpis) if result.plan.focus else set()
    out: list[Panel] = []
    for fam in ("money", "rates", "time", "counts", "findings"):
        ds = fams.get(fam)
        if not ds:
            continue
        vals = [_forest_value(d) for d in ds]
        anchors = [v for d, v in zip(ds, vals, strict=True) if d.kpi in focus or d.significant]
        lim = max((max(abs(lo), abs(hi)) for lo, _, hi in anchors or vals), default=0.0) * 1.4
        rows = tuple((d.kpi, *v) for d, v in zip(ds, vals, strict=True))
        out.append(Panel(fam, lim or 1.0, rows))
    return out


def _forest(result: StudyResult, plt: Any) -> str | None:
    """Draw :func:`forest_panels`: an interval past its panel's edge is drawn to the edge
    with an arrow and its true end written beside it, so a noisy KPI cannot squash the
    headline to a dot at zero."""
    from twin.experiments.words import FAMILY_TITLES

    panels = forest_panels(result)
    if not panels:
        return None
    focus = set(result.plan.focus.kpis) if result.plan.focus else set()
    sig = {d.kpi for d in result.differences if d.significant}
    cur = currency_of(result)
    heights = [len(p.rows) + 1.2 for p in panels]
    fig, axes = plt.subplots(len(panels), 1, figsize=(8.0, 0.38 * sum(heights) + 0.6 * len(panels)),
                             gridspec_kw={"height_ratios": heights}, squeeze=False)  # fmt: skip
    for ax, panel in zip(axes[:, 0], panels, strict=True):
        lim, fam = panel.limit, panel.family
        y = list(range(len(panel.rows)))[::-1]
        for yi, (kpi, lo, mid, hi) in zip(y, panel.rows, strict=True):
            colour = "#0072B2" if kpi in sig else "#999999"  # Okabe-Ito blue / grey
            a, b = max(lo, -lim), min(hi, lim)
            ax.plot([a, b], [yi, yi], color=colour, lw=2.5 if kpi in focus else 1.8)
            if -lim <= mid <= lim:
                ax.plot([mid], [yi], "o", color=colour)
            for end, edge, mark in ((lo, -lim, "<"), (hi, lim, ">")):
                if (end < edge) if mark == "<" else (end > edge):
                    ax.plot([edge], [yi], mark, color=colour)
                    text = f"{end:+,.0f}" if abs(end) >= 10 else f"{end:+.1f}"
                    ax.annotate(text.replace("-", "−") + FOREST_UNITS[fam], (edge, yi),
                                xytext=(-4 if mark == ">" else 4, 5), textcoords="offset points",
                                fontsize=7, color=colour,
                                ha="right" if mark == ">" else "left")  # fmt: skip
        ax.axvline(0, color="black", lw=0.8)
        ax.set_xlim(-lim, lim)
        names = [label(k).heading(cur) + (" ★" if k in focus else "") for k, *_ in panel.rows]
        ax.set_yticks(y, names, fontsize=8)
        ax.set_title(FAMILY_TITLES[fam], fontsize=9, loc="left")  # type: ignore[index]
        ax.set_xlabel(f"proposed − baseline, {FOREST_AXES[fam]}", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    out = png(fig)
    plt.close(fig)
    return out


def _plots(result: StudyResult) -> list[tuple[str, str]]:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    out: list[tuple[str, str]] = []
    cur = currency_of(result)
    # 1. the proposal's effects, one scaled panel per family (a forest plot)
    forest = _forest(result, plt)
    if forest is not None:
        out.append(("The proposal's effects, by family", forest))
    # 2. findings by control, both arms, with the difference's interval
    fs = [d for d in result.differences
          if d.kpi.startswith("findings.") and (d.baseline_mean or d.proposed_mean)]  # fmt: skip
    if fs:
        fig, ax = plt.subplots(figsize=(7.5, 0.42 * len(fs) + 1.2))
        y = list(range(len(fs)))[::-1]
        ax.barh([v + 0.18 for v in y], [d.baseline_mean for d in fs], height=0.36,
                color="#E69F00", label="baseline")  # fmt: skip
        ax.barh([v - 0.18 for v in y], [d.proposed_mean for d in fs], height=0.36,
                color="#56B4E9", label="proposed")  # fmt: skip
        ax.set_yticks(y, [d.kpi.removeprefix("findings.") for d in fs])
        ax.set_xlabel("mean findings per replication")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.35), ncol=2, frameon=False)
        ax.grid(axis="x", alpha=0.3)
        out.append(("Findings by control", png(fig)))
        plt.close(fig)
    # 3. the paired replications of the headline KPI: why pairing helps
    head = _headline(result)
    kpi = head.kpi if head is not None else "hold_percent"
    lab = label(kpi)
    k = {"money": 0.01, "seconds": 1 / 60.0, "share": 100.0}.get(lab.unit, 1.0)
    b = [o.values.get(kpi, math.nan) * k for o in result.baseline]
    p = [o.values.get(kpi, math.nan) * k for o in result.proposed]
    if b:
        fig, ax = plt.subplots(figsize=(7.5, 3.4))
        xs = [o.index for o in result.baseline]
        for x, bb, pp in zip(xs, b, p, strict=True):
            ax.plot([x, x], [bb, pp], color="#999999", lw=1)
        ax.plot(xs, b, "o", color="#E69F00", label="baseline")
        ax.plot(xs, p, "s", color="#56B4E9", label="proposed")
        ax.set_xlabel("replication (same seed in both arms)")
        ax.set_xticks(xs)
        ax.set_ylabel(lab.heading(cur))
        ax.legend()
        ax.grid(alpha=0.3)
        out.append((f"{lab.heading(cur)} in each replication, both arms", png(fig)))
        plt.close(fig)
    return out


CSS = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
td, th { padding: .25em .5em; border-bottom: 1px solid #ddd; text-align: right; }
td:first-child, th:first-child { text-align: left; }
td { white-space: nowrap; } td:first-child, td.text { white-space: normal; }
td:first-child { min-width: 13em; } .text { text-align: left; min-width: 14em; }
span.code { font: .75em monospace; color: #777; }
tr.sig td { background: #eef6fb; } table.meta td { text-align: left; white-space: normal; }
p.answer { font-size: 1.08em; }
.muted { color: #666; } img { max-width: 100%; }
code { background: #f4f4f4; padding: 0 .25em; }
"""


def page_head(title: str, kind: str, question: str) -> list[str]:
    """The start of a self-contained report page: head, title and the question asked."""
    e = html.escape
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{e(title)} — {e(kind)}</title><style>{CSS}</style></head><body>",
        f"<h1>{e(title)}</h1>",
    ]
    if question:
        parts.append(f"<p><strong>Question.</strong> {e(question)}</p>")
    return parts


def findings_by_control(result: StudyResult) -> list[list[str]]:
    """Each control that found anything in either arm: its id and title (the controls
    catalog's, as ``twin controls`` shows them), the mean findings per run in each arm, the
    difference with its interval, and the machines its findings name under each arm."""
    from twin.compliance.catalog import load_catalog

    titles = {k: v.title for k, v in load_catalog().controls.items()}
    conf = f"{result.plan.confidence:.0%} CI"
    table = [["control", "title", "baseline", "proposed", "difference", conf,
              "machines named (baseline → proposed)"]]  # fmt: skip
    names = {d.kpi for d in result.differences}
    for d in result.differences:
        if not d.kpi.startswith("findings.") or not (d.baseline_mean or d.proposed_mean):
            continue
        cid = d.kpi.removeprefix("findings.")
        m = MACHINES_BREACHING + cid
        machines = "—"
        if m in names:
            md = result.difference(m)
            if md.baseline_mean or md.proposed_mean:
                machines = f"{_count(md.baseline_mean)} → {_count(md.proposed_mean)}"
        table.append([cid, titles.get(cid, "(not in the catalog)"), shown(d.kpi, d.baseline_mean),
                      shown(d.kpi, d.proposed_mean), shown(d.kpi, d.difference, signed=True),
                      _ci(d), machines])  # fmt: skip
    return table


def _html_table(
    table: list[list[str]],
    marked: int | None = None,
    classes: dict[int, str] | None = None,
    code: int | None = None,
) -> str:
    """Rows as an HTML table; ``marked``: the column whose ``*`` shades the row;
    ``classes``: a class for the cells of a column (``text``: words); ``code``: a column of
    code names, shown small under the row's name instead of in a column of its own."""
    e = html.escape
    cls = classes or {}
    head = "".join(
        f"<th class='{cls[i]}'>{e(h)}</th>" if i in cls else f"<th>{e(h)}</th>"
        for i, h in enumerate(table[0])
        if i != code
    )
    out = [f"<table><tr>{head}</tr>"]
    for r in table[1:]:
        row = " class='sig'" if marked is not None and r[marked] == "*" else ""
        cells = []
        for i, c in enumerate(r):
            if i == code:
                continue
            text = e(c)
            if i == 0 and code is not None:
                text += f"<br><span class='code'>{e(r[code])}</span>"
            cells.append(f"<td class='{cls[i]}'>{text}</td>" if i in cls else f"<td>{text}</td>")
        out.append(f"<tr{row}>{''.join(cells)}</tr>")
    out.append("</table>")
    return "".join(out)


def render_html(result: StudyResult) -> str:
    p = result.plan
    e = html.escape
    title = p.proposed.title or p.proposed.describe()
    parts = page_head(title, "rule-change study", p.proposed.question)
    parts.append(f"<p class='answer'><strong>Answer.</strong> {e(answer(result))}</p>")
    parts.append(f"<p><strong>Basis.</strong> {e(facts(result))}.</p>")
    rule = ""
    if p.focus is not None:
        rp = f"{p.focus.relative_precision * 100:g} %"
        floor = f"{NEGLIGIBLE_SHARE * 100:g} %"
        rule = (f" The rule: after at least {p.min_replications} pairs, stop when every focus KPI "
                f"({', '.join(label(k).heading(currency_of(result)) for k in p.focus.kpis)}) "
                f"has an interval whose half-width is at most {rp} of the size of its "
                f"difference; for a difference smaller than {floor} of the KPI's "
                f"level, at most {rp} of {floor} of the level (the difference "
                f"is then known to be negligible); otherwise run to the cap of "
                f"{p.replications}.")  # fmt: skip
    parts.append(f"<p><strong>Stopping.</strong> {e(result.stopped[:1].upper())}"
                 f"{e(result.stopped[1:])}.{e(rule)}</p>")  # fmt: skip
    hours = run_hours(result)
    parts.append(
        "<table class='meta'>"
        f"<tr><th>scenario</th><td>{e(p.scenario)}</td></tr>"
        f"<tr><th>baseline</th><td>{e(p.baseline.describe())}</td></tr>"
        f"<tr><th>proposed</th><td>{e(p.proposed.describe())}</td></tr>"
        f"<tr><th>length of a run</th><td>{e(length_words(hours))}"
        + (f" ({hours:g} simulated hours)" if hours is not None else "")
        + "</td></tr>"
        f"<tr><th>replications</th><td>{result.used} pairs (at most {p.replications}), "
        f"root seed {p.root_seed}: seeds {p.root_seed}–{p.root_seed + result.used - 1}, "
        f"{'the proposed arm on independent seeds' if p.independent else 'common random numbers'}"
        "</td></tr>"
        "<tr><th>operators</th><td>"
        + (
            e("keep today's procedures: " + ", ".join(f"{k} = {v}" for k, v in p.kept))
            if p.operators == "keep"
            else "adapt to the proposed law"
        )
        + "</td></tr>"
        f"<tr><th>run on</th><td>{e(result.executor)}, {result.wall_seconds:.0f} s</td></tr>"
        "</table>"
    )
    if result.failures:
        parts.append("<h2>Failed replications</h2><ul>")
        parts += [f"<li>{e(f.arm)} {f.index} (seed {f.seed}): {e(f.error)}</li>"
                  for f in result.failures]  # fmt: skip
        parts.append("</ul>")
    parts.append(f"<h2>Differences (proposed − baseline), {p.confidence:.0%} paired intervals</h2>")
    table = rows(result)
    keep = [table[0]]
    for r, d in zip(table[1:], [d for d in result.differences if _shown(d)], strict=True):
        if not d.kpi.startswith(("findings.", MACHINES_BREACHING)):  # those: by control
            keep.append(r)
    zero = sum(1 for d in result.differences if not _shown(d)
               and not d.kpi.startswith(("exercised.", "verdicts.", "findings.",
                                         MACHINES_BREACHING)))  # fmt: skip
    parts.append(_html_table(keep, marked=7, code=8))
    parts.append(
        "<p class='muted'>* the interval excludes 0 (shaded). Money in "
        f"{e(currency_of(result))} (the floor's currency), waits in minutes. CRN gain: the "
        "variance of the difference between independent arms over that of the paired "
        "difference; the paired interval is √(gain) times narrower. "
        + (f"{zero} department KPIs that are 0 in both arms are left out of the table. "
           if zero else "")
        + "Every number is in <code>compare.json</code> under its code name.</p>"
    )  # fmt: skip
    notes = sign_notes(result)
    if notes:
        parts.append("<h2>Why some numbers are negative</h2><ul>")
        parts += [f"<li>{e(n)}</li>" for n in notes]
        parts.append("</ul>")
    ft = findings_by_control(result)
    parts.append("<h2>Findings by control</h2>")
    if len(ft) > 1:
        parts.append(_html_table(ft, classes={1: "text"}))
        parts.append("<p class='muted'>Mean findings per replication. Titles are the controls "
                     "catalog's (<code>twin controls</code>) and quote the regulation as it "
                     "stands; the thresholds applied are each arm's ruleset's. Machines named: "
                     "the distinct machines the control's findings name, mean per "
                     "replication.</p>")  # fmt: skip
    else:
        parts.append("<p>No control found anything in either arm.</p>")
    vt, never = verdict_summary(result)
    parts.append("<h2>What the controls could say</h2><table><tr>"
                 + "".join(f"<th>{e(h)}</th>" for h in vt[0]) + "</tr>")  # fmt: skip
    parts += ["<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in vt[1:]]
    parts.append("</table><p class='muted'>Mean number of the regulation's controls with each "
                 "verdict per replication. A control is checked only when it observed something; "
                 "breached when it found something.</p>")  # fmt: skip
    if never:
        parts.append(f"<p>Not exercised in any replication of either arm ({len(never)}): "
                     f"{e(', '.join(never))}. A clean study says nothing of them.</p>")  # fmt: skip
    for heading, img in _plots(result):
        parts.append(f"<h2>{e(heading)}</h2><img alt='{e(heading)}' "
                     f"src='data:image/png;base64,{img}'>")  # fmt: skip
        if heading.startswith("The proposal's effects"):
            parts.append("<p class='muted'>Each panel has its own scale: money, time and counts "
                         "as a share of the baseline, rates in percentage points, findings per "
                         "run. Blue: the interval excludes 0; ★: a focus KPI; an arrow: the "
                         "interval runs past the edge, to the value written.</p>")  # fmt: skip
    parts.append("</body></html>\n")
    return "".join(parts)


__all__ = ["CSS", "Panel", "answer", "facts", "findings_by_control", "forest_panels", "png",
           "render_html", "render_text", "rows", "sign_notes", "to_json"]  # fmt: skip
