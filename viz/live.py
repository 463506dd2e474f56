"""A scenario opened for the live view: the casino, its ledger and the viewer's model."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from twin import api
from twin.casino import Casino
from twin.ledger import Ledger
from twin.records import BOUNDARY_SECONDS
from viz.model import FloorModel
from viz.sources import LiveSource


def open_live(
    scenario: str | Path | None,
    *,
    seed: int | None = None,
    hours: float | None = None,
    overrides: Sequence[str] = (),
    out: Path | None = None,
    factor: float = 60.0,
) -> LiveSource:
    """Build the scenario's casino with a viewer model attached (and a ledger in ``out``,
    replaced if there is one: the viewer's runs are rehearsals)."""
    sc = api.prepare(scenario, seed=seed, hours=hours, overrides=overrides)
    casino = Casino(sc)
    casino.bus.cut_every(BOUNDARY_SECONDS)  # live: each finding a batch after it is found
    ledger = None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        path = out / "ledger.sqlite"
        if path.exists():
            path.unlink()
        ledger = Ledger(path, meta=api.ledger_meta(sc))
        casino.attach(ledger)
    layout = [(m.id, m.spec.bank, m.spec.zone) for m in casino.machines]
    model = FloorModel(casino.world.clock, layout)
    return LiveSource(casino, model, factor=factor, ledger=ledger)
