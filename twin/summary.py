"""The run summary: per-machine meters and the floor's KPIs, as a JSON-ready dict."""

from __future__ import annotations

from typing import Any

from twin.casino import Casino, RunOutcome
from twin.machines.sas import MeterCode


def build_summary(casino: Casino, outcome: RunOutcome, ledger_sha256: str | None) -> dict[str, Any]:
    """Everything a reader of a run needs first; amounts in integer cents."""
    sc = casino.scenario
    clock = casino.world.clock
    machines: dict[str, Any] = {}
    coin_in = coin_out = jackpot = spins = 0
    for m in casino.machines:
        acc = m.accounts
        denom = m.spec.denomination_cents
        raw = acc.meters
        coin_in += raw[MeterCode.TOTAL_COIN_IN] * denom
        coin_out += raw[MeterCode.TOTAL_COIN_OUT] * denom
        jackpot += raw[MeterCode.TOTAL_JACKPOT] * denom
        spins += raw[MeterCode.GAMES_PLAYED]
        machines[m.id] = {
            "game": m.spec.game.id,
            "denomination_cents": denom,
            "meters": acc.readings(),
            "hopper_level": acc.hopper_level,
            "downtime_seconds": round(m.downtime.area(), 3),
        }
    staff = casino.staff_kpis.report(outcome.sim_seconds)
    jobs = staff.jobs_dict()
    win = coin_in - coin_out - jackpot
    kpis = {
        "visitors": casino.arrivals.count,
        "walkaways": casino.floor.walkaways,
        "spins": spins,
        "coin_in_cents": coin_in,
        "coin_out_cents": coin_out,
        "jackpot_cents": jackpot,
        "casino_win_cents": win,
        "hold_percent": round(100.0 * win / coin_in, 4) if coin_in else None,
        "hand_pays": jobs["hand_pay"]["completed"] if "hand_pay" in jobs else 0,
        "hopper_fills": jobs["hopper_fill"]["completed"] if "hopper_fill" in jobs else 0,
        "staff_jobs": jobs,
        "utilisation": staff.roles_dict(),
        "mean_occupied_machines": round(casino.floor.occupied.mean(), 3),
        "machine_downtime_seconds": round(sum(m.downtime.area() for m in casino.machines), 3),
    }
    compliance: dict[str, Any] | None = None
    if casino.compliance is not None:
        eng = casino.compliance
        counts = eng.counts()
        compliance = {
            "ruleset": casino.ruleset.name,
            "overridden": {k: casino.ruleset.get(k) for k in sorted(casino.ruleset.overridden)},
            "controls_checked": len(counts),
            "findings": len(eng.findings),
            "warnings": sum(1 for f in eng.findings if f.severity == "warning"),
            "by_control": counts,
            "wall_seconds": round(eng.wall_seconds, 3),
            "share_of_run": round(eng.wall_seconds / outcome.wall_seconds, 4)
            if outcome.wall_seconds
            else None,
        }
    return {
        "scenario": sc.scenario.name,
        "seed": sc.seed,
        "ruleset": sc.ruleset.name,
        "start": clock.iso(0.0),
        "end": clock.iso(outcome.sim_seconds),
        "sim_seconds": outcome.sim_seconds,
        "records": outcome.records,
        "ledger_sha256": ledger_sha256,
        "wall_seconds": round(outcome.wall_seconds, 3),
        "kpis": kpis,
        "compliance": compliance,
        "machines": machines,
    }


def render_summary(s: dict[str, Any]) -> str:
    """A short readable summary for the terminal."""
    k = s["kpis"]

    def eur(cents: int) -> str:
        return f"EUR {cents / 100:,.2f}"

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
    c = s.get("compliance")
    if c is not None:
        flagged = {k: v for k, v in c["by_control"].items() if v}
        lines.append(
            f"  compliance ({c['ruleset']}): {c['controls_checked']} controls checked, "
            f"{c['findings']} finding(s)"
            + (": " + ", ".join(f"{k} x{v}" for k, v in sorted(flagged.items())) if flagged else "")
        )
    return "\n".join(lines)
