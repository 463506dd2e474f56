"""The emulator plays a game without free spins with the batched engine: the same games."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from twin.hardware.bench import play_like_a_patron
from twin.hardware.emulator import SmibEmulator
from twin.hardware.link import Broker
from twin.machines.par import load_game

from .floors import GAME, REPO


def _sent(emu: SmibEmulator) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def capture(messages: list[tuple[str, bytes]]) -> None:
        for _, payload in messages:
            doc = json.loads(payload)
            doc.pop("ts", None)  # the wall clock
            out.append(doc)

    emu._send_all = capture  # type: ignore[method-assign]
    return out


def _play(batched: bool, seed: int, activities: int) -> tuple[SmibEmulator, list[dict[str, Any]]]:
    emu = SmibEmulator("S-001", Broker("127.0.0.1", 1), "pw", load_game(GAME), seed=seed)
    if not batched:
        emu._batched = None  # the per-spin engine on the generator itself
    sent = _sent(emu)
    rng = np.random.default_rng([seed, 7])
    for k in range(1, activities + 1):
        play_like_a_patron(emu, rng)
        if k % 50 == 0:
            emu.overflow_queue(5)
        if k % 10 == 0:
            emu.send_meters()
    return emu, sent


def test_batched_and_per_spin_play_send_the_same_messages() -> None:
    for seed in (0, 1, 2):
        (batched, fast), (per_spin, reference) = _play(True, seed, 400), _play(False, seed, 400)
        assert any(m.get("code") == 0x7F for m in fast)  # games were played
        assert batched._tape.drawn > 0 and per_spin._tape.drawn == 0  # two engines, ...
        assert fast == reference  # ... the same messages


def test_a_game_with_free_spins_keeps_the_per_spin_engine() -> None:
    game = load_game(REPO / "scenarios" / "games" / "video-5reel.toml")
    assert game.has_free_spins
    emu = SmibEmulator("S-001", Broker("127.0.0.1", 1), "pw", game)
    assert emu._batched is None
    assert SmibEmulator("S-001", Broker("127.0.0.1", 1), "pw", load_game(GAME))._batched
