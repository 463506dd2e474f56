"""Rendering the run summary (``twin.api.RunResult.summary()``) for the terminal."""

from __future__ import annotations

from typing import Any


def render_summary(s: dict[str, Any]) -> str:
    """A short readable summary for the terminal."""
    k = s["kpis"]

    def eur(cents: int) -> str:
        return f"{s['currency']} {cents / 100:,.2f}"

    def wait(x: float | None) -> str:
        return "-" if x is None else f"{x / 60:.1f} min"

    def job_line(kind: str, j: dict[str, Any]) -> str:
        qw, done = j["queue_wait"], j["to_completion"]
        still = j["open_waiting"] + j["open_in_service"]
        return (
            f"    {kind}: {j['completed']} done, {still} open; queue wait p50 {wait(qw['p50'])}, "
            f"p95 {wait(qw['p95'])}, max {wait(qw['max'])}; to completion p95 "
            f"{wait(done['p95'])}"
        )

    lines = [
        f"scenario {s['scenario']} (seed {s['seed']}, ruleset {s['ruleset']})",
        f"  {s['start']} -> {s['end']}  ({s['sim_seconds'] / 3600:.1f} h simulated "
        f"in {s['wall_seconds']:.2f} s)",
        f"  machines {len(s['machines'])}, visitors {k['visitors']:,} "
        f"(walked away: {k['walkaways']:,}), spins {k['spins']:,}",
        *(
            [
                f"  population {p['members']:,}: {p['visitors']:,} came "
                f"(visits each: median {p['visits_per_visitor_p50']:g}, "
                f"at most {p['visits_per_visitor_max']}), {p['local_share']:.0%} local"
            ]
            if (p := s.get("population"))
            else []
        ),
        f"  coin in {eur(k['coin_in_cents'])}, coin out {eur(k['coin_out_cents'])}, "
        f"jackpots {eur(k['jackpot_cents'])}, hold {k['hold_percent']}%",
        "  staff jobs:",
        *(job_line(kind, j) for kind, j in k["staff_jobs"].items()),
        "  utilisation (overtime included): "
        + ", ".join(
            f"{role} {u['utilisation']:.1%}" if u["utilisation"] is not None else f"{role} -"
            for role, u in k["utilisation"].items()
        ),
        f"  records {s['records']:,}; ledger head {s['ledger_sha256']}",
    ]
    for section in k.get("sections", {}).values():  # issue 10: each part's own lines
        lines.extend(section.get("lines", ()))
    c = s.get("compliance")
    if c is not None:
        flagged = {k: v for k, v in c["by_control"].items() if v}
        lines.append(
            f"  compliance ({c['ruleset']}): {c['controls_checked']} of "
            f"{c['controls_catalogued']} catalogued controls checked "
            f"({c['controls_implemented']} implemented), {c['findings']} finding(s)"
            + (": " + ", ".join(f"{k} x{v}" for k, v in sorted(flagged.items())) if flagged else "")
        )
    else:
        lines.append("  compliance off: no control checked")
    injections = s.get("injections", [])
    if injections:
        by_status: dict[str, int] = {}
        for i in injections:
            by_status[i["status"]] = by_status.get(i["status"], 0) + 1
        lines.append(
            "  injections: " + ", ".join(f"{n} {status}" for status, n in by_status.items())
        )
    return "\n".join(lines)
