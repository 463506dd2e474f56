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
from typing import Any

from twin.experiments.compare import StudyResult
from twin.experiments.replication import KPIS
from twin.experiments.stats import Difference


def _shown(d: Difference) -> bool:
    """Rows for the terminal: every fixed KPI, and each control that found anything (the
    verdict counts have a table of their own)."""
    if d.kpi.startswith(("exercised.", "verdicts.")):
        return False
    if not d.kpi.startswith("findings."):
        return True
    return bool(d.baseline_mean or d.proposed_mean)


def _num(v: float | None, digits: int = 2) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "—" if v is None or math.isnan(v) else ("∞" if v > 0 else "-∞")
    if abs(v) >= 1e4:
        return f"{v:,.0f}"
    return f"{v:,.{digits}f}"


def _ci(d: Difference) -> str:
    if d.n < 2:
        return "—"
    return f"[{_num(d.low)}, {_num(d.high)}]"


def _rel(d: Difference) -> str:
    return "—" if d.relative is None else f"{d.relative:+.1%}"


def _vrf(d: Difference) -> str:
    if d.variance_reduction is None:
        return "—"
    if math.isinf(d.variance_reduction):
        return "exact"
    return f"{d.variance_reduction:.1f}"


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


def rows(result: StudyResult, *, every: bool = False) -> list[list[str]]:
    header = ["KPI", "baseline", "proposed", "difference", f"{result.plan.confidence:.0%} CI",
              "relative", "CRN gain", ""]  # fmt: skip
    out = [header]
    for d in result.differences:
        if not every and not _shown(d):
            continue
        out.append([
            d.kpi, _num(d.baseline_mean), _num(d.proposed_mean), _num(d.difference), _ci(d),
            _rel(d), _vrf(d), "*" if d.significant else "",
        ])  # fmt: skip
    return out


def render_text(result: StudyResult) -> str:
    p = result.plan
    lines = [
        f"Study of {p.scenario}",
        f"  baseline  {p.baseline.label}: {p.baseline.describe()}",
        f"  proposed  {p.proposed.label}: {p.proposed.describe()}"
        + (f" ({p.proposed.title})" if p.proposed.title != p.proposed.ruleset else ""),
        f"  {result.used} paired replications (seeds {p.root_seed}..{p.root_seed + result.used - 1}"
        + (
            ", the proposed arm on independent seeds"
            if p.independent
            else ", common random numbers"
        )
        + f"); stopped at {result.stopped}",
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
    for r in table:
        cells = (
            c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        lines.append("  ".join(cells).rstrip())
    lines.append("")
    lines.append(
        "* the interval excludes 0. CRN gain: variance of an independent-arms difference ÷ "
        "variance of the paired one (×1 = no gain). Controls with no finding in either arm "
        "are left out here (in the JSON)."
    )
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


def _plots(result: StudyResult) -> list[tuple[str, str]]:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    out: list[tuple[str, str]] = []
    # 1. relative differences of the KPIs with their intervals (a forest plot)
    ds = [d for d in result.differences
          if not d.kpi.startswith(("findings", "verdicts.", "exercised."))
          and d.baseline_mean and d.n >= 2]  # fmt: skip
    if ds:
        fig, ax = plt.subplots(figsize=(7.5, 0.42 * len(ds) + 1.2))
        y = list(range(len(ds)))[::-1]
        for yi, d in zip(y, ds, strict=True):
            scale = abs(d.baseline_mean)
            lo, hi, mid = d.low / scale * 100, d.high / scale * 100, d.difference / scale * 100
            colour = "#0072B2" if d.significant else "#999999"  # Okabe-Ito blue / grey
            ax.plot([lo, hi], [yi, yi], color=colour, lw=2.5)
            ax.plot([mid], [yi], "o", color=colour)
        ax.axvline(0, color="black", lw=0.8)
        ax.set_yticks(y, [d.kpi for d in ds])
        ax.set_xlabel(f"proposed − baseline, % of the baseline ({result.plan.confidence:.0%} "
                      "paired intervals; blue: excludes 0)")  # fmt: skip
        ax.grid(axis="x", alpha=0.3)
        out.append(("Every KPI: the proposal's effect", png(fig)))
        plt.close(fig)
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
    # 3. the paired replications of the first focus KPI (or hold): why pairing helps
    kpi = result.plan.focus.kpis[0] if result.plan.focus is not None else "hold_percent"
    b = [o.values.get(kpi, math.nan) for o in result.baseline]
    p = [o.values.get(kpi, math.nan) for o in result.proposed]
    if b:
        fig, ax = plt.subplots(figsize=(7.5, 3.4))
        xs = [o.index for o in result.baseline]
        for x, bb, pp in zip(xs, b, p, strict=True):
            ax.plot([x, x], [bb, pp], color="#999999", lw=1)
        ax.plot(xs, b, "o", color="#E69F00", label="baseline")
        ax.plot(xs, p, "s", color="#56B4E9", label="proposed")
        ax.set_xlabel("replication (same seed in both arms)")
        ax.set_xticks(xs)
        ax.set_ylabel(kpi)
        ax.legend()
        ax.grid(alpha=0.3)
        out.append((f"{kpi} in each replication, both arms", png(fig)))
        plt.close(fig)
    return out


CSS = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 62em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
td, th { padding: .25em .6em; border-bottom: 1px solid #ddd; text-align: right; }
td:first-child, th:first-child { text-align: left; }
tr.sig td { background: #eef6fb; } table.meta td { text-align: left; }
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


def render_html(result: StudyResult) -> str:
    p = result.plan
    e = html.escape
    title = p.proposed.title or p.proposed.describe()
    parts = page_head(title, "rule-change study", p.proposed.question)
    parts.append(
        "<table class='meta'>"
        f"<tr><th>scenario</th><td>{e(p.scenario)}</td></tr>"
        f"<tr><th>baseline</th><td>{e(p.baseline.describe())}</td></tr>"
        f"<tr><th>proposed</th><td>{e(p.proposed.describe())}</td></tr>"
        f"<tr><th>replications</th><td>{result.used} pairs, seeds {p.root_seed}–"
        f"{p.root_seed + result.used - 1}, "
        f"{'the proposed arm on independent seeds' if p.independent else 'common random numbers'}"
        "</td></tr>"
        f"<tr><th>stopped at</th><td>{e(result.stopped)}</td></tr>"
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
    parts.append("<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in table[0]) + "</tr>")
    for r in table[1:]:
        cls = " class='sig'" if r[-1] == "*" else ""
        parts.append(f"<tr{cls}>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>")
    parts.append("</table>")
    parts.append(
        "<p class='muted'>* the interval excludes 0 (shaded). CRN gain: the variance of the "
        "difference between independent arms over that of the paired difference; the paired "
        "interval is √(gain) times narrower. Controls that found nothing in either arm are "
        "left out of the table; every number is in <code>compare.json</code>.</p>"
    )
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
    for heading, png in _plots(result):
        parts.append(f"<h2>{e(heading)}</h2><img alt='{e(heading)}' "
                     f"src='data:image/png;base64,{png}'>")  # fmt: skip
    parts.append("</body></html>\n")
    return "".join(parts)


__all__ = ["CSS", "png", "render_html", "render_text", "rows", "to_json"]
