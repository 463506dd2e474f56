"""``twin viz --ledger``: a finished run replayed from its ledger alone. At any chosen time the
state of every machine the viewer holds is what ``twin state`` gives for that time."""

from __future__ import annotations

import json
import os
from pathlib import Path

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest
from conftest import REPO

import twin.cli
from twin import api
from twin.ledger import read_rows
from viz import palette as P
from viz.app import Viewer, init_pygame
from viz.sources import ReplaySource


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small run with frequent faults, so machines are down at many moments."""
    out = tmp_path_factory.mktemp("run") / "tiny"
    api.run(
        REPO / "scenarios" / "tiny.toml",
        overrides=["faults.tilt_mtbf_hours=0.4", "faults.bill_jam_mtbf_hours=0.6"],
        out=out,
    )
    return out


def _twin_state(ledger: Path, machine: str, at: float, capsys: pytest.CaptureFixture[str]) -> dict:
    capsys.readouterr()
    twin.cli.main(["state", str(ledger), "--machine", machine, "--at", repr(at), "--json"])
    doc: dict = json.loads(capsys.readouterr().out)
    doc.pop("local_time")
    return doc


def _chosen_times(ledger: Path) -> list[float]:
    """Moments worth checking: when a fault or a door exception was written, and between."""
    exceptions = [t for _s, t, _k, _b in read_rows(ledger, kinds=("machine_exception",))]
    assert len(exceptions) >= 4
    end = max(t for _s, t, _k, _b in read_rows(ledger))
    return sorted({exceptions[0], exceptions[len(exceptions) // 2], exceptions[-1], end / 3, end})


def test_the_replay_at_a_chosen_time_is_what_twin_state_says(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger = run_dir / "ledger.sqlite"
    src = ReplaySource(ledger)
    times = _chosen_times(ledger)
    downs = 0
    for at in [*times, *reversed(times)]:  # forward, then jumping back
        src.seek(at)
        for machine, view in src.model.machines.items():
            mine = view.machine_state(at).to_json()
            assert mine == _twin_state(ledger, machine, at, capsys), (machine, at)
            downs += bool(mine["down"])
            if mine["down"] and not view.locked:
                assert view.state is not P.IDLE and view.state is not P.IN_PLAY
    assert downs > 0  # the check saw machines out of play, not only idle ones


def test_the_time_bar_jumps_and_frames_render(run_dir: Path, tmp_path: Path) -> None:
    init_pygame(headless=True)
    src = ReplaySource(run_dir / "ledger.sqlite", factor=600.0)
    viewer = Viewer(src, (1280, 800))
    viewer.draw()
    bar = viewer.timebar_rect
    assert bar is not None
    viewer.click((bar.x + bar.w // 2, bar.centery))
    assert src.t == pytest.approx(src.end / 2, rel=0.01)
    half = {m: v.state for m, v in src.model.machines.items()}
    src.paused = False
    viewer.frame(1.0)
    assert src.t == pytest.approx(src.end / 2 + 600.0, rel=0.01)
    viewer.key(pygame.K_COMMA)  # an hour back
    viewer.click((bar.x + bar.w // 2, bar.centery))
    assert {m: v.state for m, v in src.model.machines.items()} == half
    shot = viewer.screenshot(tmp_path / "replay.png")
    assert pygame.image.load(str(shot)).get_size() == (1280, 800)


def test_a_replay_takes_no_commands(run_dir: Path) -> None:
    src = ReplaySource(run_dir / "ledger.sqlite")
    assert src.put(object()) is None and not src.live
