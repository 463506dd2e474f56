"""Rendering the run summary (``twin.api.RunResult.summary()``) for the terminal."""

from __future__ import annotations

from typing import Any

from twin.compliance.verdicts import totals_line

#: the roles the dispatcher staffs jobs with (a quiet one shows 0 %, not "not dispatched")
_DISPATCHED = frozenset({"attendant", "technician", "inspector"})


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
        "  utilisation of dispatched roles (overtime included): "
        + ", ".join(
            f"{role} {u['utilisation']:.1%}" if u["utilisation"] is not None else f"{role} -"
            for role, u in k["utilisation"].items()
            if u["busy_s"] or role in _DISPATCHED
        )
        + "".join(
            f"; {role}: not dispatched (desk or table work)"
            for role, u in k["utilisation"].items()
            if not u["busy_s"] and role not in _DISPATCHED
        ),
        *section_lines(k.get("sections", {}), eur),
        f"  records {s['records']:,}; ledger head {s['ledger_sha256']}",
    ]
    c = s.get("compliance")
    if c is not None:
        lines.extend(compliance_lines(c))
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


def compliance_lines(c: dict[str, Any]) -> list[str]:
    """The verdict of every catalogued control of the run's regulation, counted (issue 25):
    the five kinds add up to the catalogue, and the controls not exercised are named."""
    flagged = {k: v for k, v in c["by_control"].items() if v}
    found = f"{c['findings']} finding(s)" + (
        ": " + ", ".join(f"{k} x{v}" for k, v in sorted(flagged.items())) if flagged else ""
    )
    counts = c.get("verdict_counts")
    if not counts:  # a summary from before the verdicts
        return [
            f"  compliance ({c['ruleset']}): {c['controls_checked']} of "
            f"{c['controls_catalogued']} catalogued controls checked "
            f"({c['controls_implemented']} implemented), {found}"
        ]
    out = [
        f"  compliance ({c['ruleset']}): {c['controls_catalogued']} catalogued controls: "
        f"{totals_line(counts)}; {found}"
    ]
    idle = [k for k, v in c.get("verdicts", {}).items() if v["status"] == "not_exercised"]
    if idle:
        out.append(
            "  not exercised (what they needed never happened; `twin controls --run` says "
            "what): " + ", ".join(idle)
        )
    na = [k for k, v in c.get("verdicts", {}).items() if v["status"] == "not_applicable"]
    if na:
        out.append("  not applicable under this ruleset: " + ", ".join(na))
    return out


def _counts(d: dict[str, Any]) -> str:
    return ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in sorted(d.items())) or "none"


def section_lines(sections: dict[str, Any], eur: Any) -> list[str]:
    """A line or two for each department around the slot floor (issue 10, 11)."""
    out: list[str] = []
    for name, d in sections.items():
        try:
            out.extend(_section_lines(name, d, eur))
        except (KeyError, TypeError):  # a section of another shape: its flat figures
            flat = {k: v for k, v in d.items() if isinstance(v, int | float | str)}
            out.append(f"  {name}: " + ", ".join(f"{k} {v}" for k, v in flat.items()))
    return out


def _section_lines(name: str, d: dict[str, Any], eur: Any) -> list[str]:
    """The lines of one section (KeyError/TypeError when it has another shape)."""
    out: list[str] = []
    if "lines" in d:  # a section that says itself what to print (the pit)
        out.extend(d["lines"])
    elif name == "lifecycle":
        done = {k: v for k, v in d["works"].items() if v}
        down = {k: v for k, v in d["downtime_hours"].items() if v}
        states = {k: v for k, v in d["machines_by_state"].items() if v}
        decided = {k: v for k, v in d["board_decisions"].items() if v}
        out.append(f"  lifecycle: machines {_counts(states)}; Board decisions: {_counts(decided)}")
        out.append(
            f"  lifecycle works: {_counts(done)}; {d['works_delayed_by_approval']} waited "
            f"{d['approval_wait_hours_total']:,.1f} h for the Board's approval; faults found "
            f"{d['faults_found']}, cleared {d['faults_cleared']}; machine downtime "
            f"{d['downtime_hours_total']:,.1f} h"
            + (" (" + ", ".join(f"{k} {v:,.1f} h" for k, v in sorted(down.items())) + ")"
               if down else "")
        )  # fmt: skip
    elif name == "entrance":
        refused = d["refusals"]
        peers = ", ".join(f"{p} {n:,}" for p, n in sorted(d["peer_entries"].items()))
        out.append(
            f"  door ({d['casino']}): {d['entries']:,} entries, {refused:,} refused"
            + (f" ({_counts(d['refusals_by_reason'])})" if refused else "")
            + f"; self-exclusions {d['self_exclusion_requests']} (Board notices "
            f"{d['board_notices']}, copies {d['notice_copies']})"
            + (f"; entries at peers: {peers}" if peers else "")
        )
    elif name == "cage":
        kinds = d["transactions_by_kind"]
        buy = {k.split(":", 1)[1]: v for k, v in kinds.items() if k.startswith("buy_in:")}
        n = sum(v["count"] for v in buy.values())
        cents = sum(v["amount_cents"] for v in buy.values())
        drop = d["drop_count"]
        var = d["drop_variances"]
        out.append(
            f"  cage: {n:,} buy-ins {eur(cents)} ("
            + ", ".join(f"{m.replace('_', ' ')} {v['count']:,}" for m, v in sorted(buy.items()))
            + f"); cheques dishonoured {d['cheques_dishonoured']}; unclaimed items "
            f"{d['unclaimed_found']['items']}"
        )
        out.append(
            f"  count: {drop['containers']:,} drop containers, {eur(drop['counted_cents'])} "
            f"counted; variances {var['count']} (investigated {var['investigated']}, net "
            f"{eur(var['net_cents'])})"
        )
    elif name == "junkets":
        out.append(
            f"  junkets: {d['junkets']} ({d['settled']} settled), {d['members']} members, "
            f"deposits {eur(d['deposits_cents'])}; rolling turnover "
            f"{eur(d['rolling_turnover_cents'])}, win {eur(d['win_cents'])}, commission "
            f"{eur(d['commission_cents'])}, rebates {eur(d['rebates_cents'])}, net to the "
            f"house {eur(d['net_to_house_cents'])}"
        )
    elif name == "premium":
        room, credit = d["room"], d["credit"]
        out.append(
            f"  premium players: {d['players']} ({_counts(d['players_by_status'])}); "
            f"accounts open {d['accounts']['open']}; credit extended "
            f"{eur(credit['extended_cents'])}, outstanding {eur(credit['outstanding_cents'])}"
        )
        out.append(
            "  status decisions: " + _counts(d["status_decisions"]) + f"; room "
            f"{room['sessions']:,} sessions, turnover {eur(room['turnover_cents'])}, win "
            f"{eur(room['win_cents'])}"
        )
    elif name == "aml":
        ids = d["identifications"]
        cross = d["cross_references"]
        out.append(
            f"  aml: {sum(ids.values()):,} identifications ({_counts(ids)}); cash-outs "
            f"cross-referenced {cross['checked']:,} (unmatched {cross['unmatched']}, not "
            f"from winnings {cross['not_from_winnings']}); red flags "
            f"{sum(d['red_flags'].values()):,}; internal reports {d['internal_reports']}; "
            f"evaluations ({_counts(d['evaluations'])}); patrons reported to the police "
            f"{d['patrons_reported']}"
        )
        caught = "; ".join(
            f"{s.replace('_', ' ')} {r['detected']}/{r['launderers']}"
            + (f" (median {r['median_hours_to_report']:.1f} h)" if r["detected"] else "")
            for s, r in sorted(d["strategies"].items())
        )
        out.append(
            f"  launderers reported (the twin's truth): {caught or 'none acted'}; honest "
            f"patrons reported {d['false_reports']} of {d['honest_patrons']:,}"
        )
    else:
        flat = {k: v for k, v in d.items() if isinstance(v, int | float | str)}
        out.append(f"  {name}: " + ", ".join(f"{k} {v}" for k, v in flat.items()))
    return out
