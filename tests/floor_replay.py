"""A fast, honest stand-in for a day of the default floor, for the statistical error rates.

``reference_requests`` runs one real day of scenarios/default.toml and logs every stretch of
play each machine's engine was asked for (starting credits, bet, games allowed, loss limit,
win goal, jackpot lock). ``replay_day(seed)`` builds the default casino with another seed
and replays those requests on its real machines: the real batched engine, the machine's own
random streams for that seed, the real commit (play records, meters, outcome tally), a
``machine_locked`` record for each locking win, and the closing meter reading; then the
compliance engine finishes with only the statistical controls. The volumes, bets and stop
rules are the default floor's; the outcomes are new every day. What it leaves out (patron
arrivals, staff, doors, hand-pay delays, progressive prizes) no statistical control reads.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from twin.casino import Casino
from twin.compliance.registry import Kind, registry
from twin.departments import load_scenario
from twin.machines.accounting import MeterCode
from twin.machines.engine import BatchedEngine, PlayRequest, Stop
from twin.machines.events import MachineLocked

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / "scenarios" / "default.toml"
STATISTICAL = [
    *sorted(
        c for c, s in registry().items() if c.startswith("MT98.") and s.kind is Kind.STATISTICAL
    ),
    "MT98.S1.1c",
    "MT98.S1.1e",
    "MT98.S1.3a",
]


_ANALYSES: dict[str, Any] = {}


def share_analyses() -> None:
    """Analyse each program once per process (the casino re-analyses every run)."""
    import twin.machines.facts as engine

    orig = engine.analyse
    if getattr(orig, "shared", False):
        return

    def cached(game: Any) -> Any:
        got = _ANALYSES.get(game.signature)
        if got is None:
            got = _ANALYSES[game.signature] = orig(game)
        return got

    cached.shared = True  # type: ignore[attr-defined]
    engine.analyse = cached


def reference_requests(seed: int = 1) -> dict[str, list[PlayRequest]]:
    """Every play request of each machine during one real default day."""
    log: list[tuple[int, PlayRequest]] = []
    orig = BatchedEngine.play

    def play(self: BatchedEngine, req: PlayRequest, *args: Any) -> Any:
        log.append((id(self), req))
        return orig(self, req, *args)

    casino = Casino(load_scenario(DEFAULT).with_overrides(seed=seed), compliance=False)
    owner = {id(m._batched): m.id for m in casino.machines}
    BatchedEngine.play = play  # type: ignore[method-assign]
    try:
        casino.run()
    finally:
        BatchedEngine.play = orig  # type: ignore[method-assign]
    out: dict[str, list[PlayRequest]] = defaultdict(list)
    for engine, req in log:
        out[owner[engine]].append(req)
    return dict(out)


def replay_day(
    seed: int, requests: dict[str, list[PlayRequest]], controls: list[str] | None = None
) -> list[tuple[str, str]]:
    """(control, machine) of every finding of the statistical controls on the replayed day."""
    casino = replay_casino(seed, requests, controls)
    assert casino.compliance is not None
    return sorted({(f.control, f.subjects[0]) for f in casino.compliance.findings})


def replay_casino(
    seed: int, requests: dict[str, list[PlayRequest]], controls: list[str] | None = None
) -> Casino:
    """The replayed day's casino, its compliance engine finished (``controls``: default the
    statistical ones)."""
    casino = Casino(
        load_scenario(DEFAULT).with_overrides(seed=seed), controls=controls or STATISTICAL
    )
    for m in casino.machines:
        m.install(None)
    for m in casino.machines:
        for req in requests.get(m.id, ()):
            m.accounts.meters[MeterCode.CURRENT_CREDITS] = req.credits
            r = m._batched.play(req, m._base_tape, m._feature_tape)
            m._commit("replay", r)
            if r.stop in (Stop.JACKPOT, Stop.PROGRESSIVE):
                m.emit(
                    MachineLocked,
                    patron="replay",
                    reason="jackpot",
                    win=r.lock_win,
                    prize_cents=r.lock_win * m.spec.denomination_cents,
                )
        m.read_meters()
    assert casino.compliance is not None
    casino.bus.finish_producers(casino.env.now)
    return casino
