"""One replication of one arm: a run, reduced to the numbers a study compares.

A :class:`Task` pickles (it goes to Dask workers); :func:`replicate` runs it with the run API
and returns an :class:`Observation`: every KPI and every control's finding count as a flat
mapping of floats, plus the ledger head that proves which world was run. Replication ``i`` of
every arm uses the seed ``root_seed + i``: the same streams for every entity and purpose, so
the arms differ only where the rules make them differ (common random numbers).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from twin.api import RunResult, prepare, run
from twin.departments import Scenario
from twin.machines.events import GamesPlayed, MachineInstalled
from twin.machines.facts import analysis_of
from twin.machines.par import load_game
from twin.machines.verification import ProgramConverted
from twin.records import Record


@dataclass(frozen=True, slots=True)
class Task:
    scenario: str
    arm: str
    index: int
    seed: int
    settings: tuple[tuple[str, Any], ...]
    hours: float | None = None


@dataclass(frozen=True, slots=True)
class Observation:
    arm: str
    index: int
    seed: int
    ledger_sha256: str | None
    values: Mapping[str, float]
    wall_seconds: float
    #: the simulated length of the run, and the currency its amounts are in (cents of it)
    sim_seconds: float = float("nan")
    currency: str = "EUR"


#: the KPIs every study reports (besides ``findings`` and ``findings.<control>``), with what
#: each means; the terminal, JSON and HTML reports keep this order
KPIS: dict[str, str] = {
    "theo_win_cents": "theoretical win: money wagered × (1 − designed return), cents",
    "theo_hold_percent": "theoretical win ÷ money wagered, %",
    "hold_percent": "actual win ÷ coin in, %",
    "casino_win_cents": "actual win: coin in − coin out − hand-paid jackpots, cents",
    "coin_in_cents": "money wagered, cents",
    "visitors": "patrons who came in",
    "walkaways": "patrons who left without a free machine",
    "spins": "games played",
    "hand_pays": "hand pays completed",
    "hand_pay_wait_p50_s": "median wait for an attendant at a hand pay, s",
    "hand_pay_wait_p95_s": "95th percentile of that wait, s",
    "hopper_fills": "hopper fills completed",
    "hopper_fill_wait_p50_s": "median wait for a hopper fill, s",
    "machine_downtime_hours": "machine-hours out of play (tilts, empty hoppers, locks)",
    "findings": "findings of every control",
}

#: per control, ``machines_breaching.<control>``: how many distinct machines its findings name
MACHINES_BREACHING = "machines_breaching."


def is_kpi(name: str) -> bool:
    """Whether a study can compare ``name``: a KPI of :data:`KPIS`, ``findings.<control>``,
    or a department's KPI as ``<section>.<key>[.<subkey>...]`` (``lifecycle.downtime_hours.
    replacement``, ``entrance.refusals``): every department section is observed, flattened."""
    if name in KPIS or name.startswith(("findings.", MACHINES_BREACHING)):
        return True
    from twin.departments import plans

    head, dot, rest = name.partition(".")
    sections = {k().name for p in plans() if (k := p.kpis) is not None}
    return bool(dot and rest) and head in sections


def observe(result: RunResult) -> dict[str, float]:
    """The numbers of one run a study compares (NaN where a run has none, e.g. no play)."""
    k = result.kpis
    nan = float("nan")

    def wait(kind: str, q: str) -> float:
        job: Mapping[str, Any] = k.staff_jobs.get(kind, {})
        got = job.get("queue_wait", {}).get(q)
        return float(got) if got is not None else nan

    out: dict[str, float] = {
        "hold_percent": nan if k.hold_percent is None else float(k.hold_percent),
        "casino_win_cents": float(k.casino_win_cents),
        "coin_in_cents": float(k.coin_in_cents),
        "visitors": float(k.visitors),
        "walkaways": float(k.walkaways),
        "spins": float(k.spins),
        "hand_pays": float(k.hand_pays),
        "hand_pay_wait_p50_s": wait("hand_pay", "p50"),
        "hand_pay_wait_p95_s": wait("hand_pay", "p95"),
        "hopper_fills": float(k.hopper_fills),
        "hopper_fill_wait_p50_s": wait("hopper_fill", "p50"),
        "machine_downtime_hours": k.machine_downtime_seconds / 3600.0,
    }
    for name, section in k.sections.items():  # the departments around the slot floor
        out.update(_flat(section, name))
    c = result.compliance
    out["findings"] = float(c.findings) if c is not None else nan
    if c is not None:
        for control, n in sorted(c.by_control.items()):
            out[f"findings.{control}"] = float(n)
        # issue 25: how many controls each verdict had, and whether each control observed
        # anything at all (a clean arm says nothing of a control it never exercised)
        for status, n in c.verdict_counts.items():
            out[f"verdicts.{status}"] = float(n)
        for control, v in c.verdicts.items():
            if v["status"] != "not_implemented":
                out[f"exercised.{control}"] = float(v["status"] in ("breached", "checked"))
    return out


def machines_breaching(result: RunResult, machines: set[str]) -> dict[str, float]:
    """For every control the run counted (``findings.<control>``), how many distinct machines
    of ``machines`` its findings name as a subject: the machines that cannot be operated as
    they are under the run's rules (a control about staff or patrons names none)."""
    c = result.compliance
    if c is None:
        return {}
    named: dict[str, set[str]] = {control: set() for control in c.by_control}
    for f in result.findings:
        hit = named.setdefault(str(f["control"]), set())
        hit.update(s for s in f["subjects"] if s in machines)
    return {f"{MACHINES_BREACHING}{k}": float(len(v)) for k, v in sorted(named.items())}


def _flat(value: Any, key: str, depth: int = 3) -> dict[str, float]:
    """The numbers of a KPI section as ``section.key.subkey`` (entrance.refusals,
    junkets.commission_cents, tables.games.punto-banco-8deck.win_cents...): numeric leaves
    of nested tables, at most ``depth`` levels down; lists and text are left out."""
    if isinstance(value, bool):
        return {}
    if isinstance(value, int | float):
        return {key: float(value)}
    if isinstance(value, Mapping) and depth > 0:
        out: dict[str, float] = {}
        for k, v in value.items():
            out.update(_flat(v, f"{key}.{k}", depth - 1))
        return out
    return {}


class TheoreticalWin:
    """A sink: the casino's theoretical win, Σ money wagered × (1 − designed return) of the
    program each stretch was played on (a linked machine's increment counts as return).

    The actual win of a floor is dominated by its rare large prizes; the theoretical win is
    what the pay tables make the casino earn on the play it had, the figure operators plan
    with, and far less noisy, so a rule that changes pay tables shows in it at a few
    replications. Stretches on a program the scenario does not know (an injected one) are
    counted in ``unknown_cents`` and left out."""

    def __init__(self, returns: Mapping[str, Fraction], increments: Mapping[str, int]) -> None:
        self.returns = returns
        self.increments = increments  # link id -> increment, basis points
        self.machines: dict[str, tuple[str, int, int]] = {}  # signature, denomination, bp
        self.theo = Fraction(0)
        self.wagered_cents = 0
        self.unknown_cents = 0

    def accept(self, rec: Record) -> None:
        if isinstance(rec, GamesPlayed):
            got = self.machines.get(rec.machine)
            if got is None:
                return
            signature, denomination, bp = got
            cents = rec.wagered * denomination
            rtp = self.returns.get(signature)
            if rtp is None:
                self.unknown_cents += cents
                return
            self.wagered_cents += cents
            self.theo += cents * (1 - rtp - Fraction(bp, 10_000))
        elif isinstance(rec, MachineInstalled):
            bp = self.increments.get(rec.progressive, 0) if rec.progressive else 0
            self.machines[rec.machine] = (rec.game_signature, rec.denomination_cents, bp)
        elif isinstance(rec, ProgramConverted) and rec.machine in self.machines:
            _, denomination, bp = self.machines[rec.machine]
            self.machines[rec.machine] = (rec.to_signature, denomination, bp)

    def close(self) -> None:
        pass

    def values(self) -> dict[str, float]:
        nan = float("nan")
        w = self.wagered_cents
        return {
            "theo_win_cents": float(self.theo),
            "theo_hold_percent": float(self.theo * 100 / w) if w else nan,
        }


def _returns(sc: Scenario) -> tuple[dict[str, Fraction], dict[str, int]]:
    """The designed return of every program the scenario names, by signature."""
    paths = {p for b in sc.floor.banks for p in (b.game, *b.pay_tables)}
    if sc.lifecycle is not None:
        paths |= {w.game for w in sc.lifecycle.works if w.game is not None}
    returns: dict[str, Fraction] = {}
    for path in sorted(paths):
        game = load_game(path)
        returns[game.signature] = analysis_of(game).rtp
    return returns, {p.id: p.increment_bp for p in sc.floor.progressives}


def replicate(task: Task) -> Observation:
    """Run one replication (in whatever process it lands) and reduce it."""
    began = time.perf_counter()
    sc = prepare(Path(task.scenario), seed=task.seed, hours=task.hours,
                 overrides=list(task.settings))  # fmt: skip
    theo = TheoreticalWin(*_returns(sc))
    result = run(sc, sinks=[theo], chain=True)
    values = observe(result)
    values.update(theo.values())
    values.update(machines_breaching(result, set(theo.machines)))
    return Observation(
        arm=task.arm,
        index=task.index,
        seed=task.seed,
        ledger_sha256=result.ledger_sha256,
        values=values,
        wall_seconds=time.perf_counter() - began,
        sim_seconds=result.sim_seconds,
        currency=result.currency,
    )


__all__ = [
    "KPIS",
    "MACHINES_BREACHING",
    "Observation",
    "Task",
    "TheoreticalWin",
    "is_kpi",
    "machines_breaching",
    "observe",
    "replicate",
]
