"""Caches added for speed: each gives exactly what it caches, computed once."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import GAMES

import twin.compliance.engine as compliance_engine
from twin.compliance.engine import FloorFacts
from twin.machines.analysis import Analysis, analyse
from twin.machines.par import load_game


def test_floor_facts_analyse_a_program_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two casinos' facts (two FloorFacts, two loads of the file) share one analysis."""
    calls: list[str] = []

    def counting(game: Any) -> Analysis:
        calls.append(game.signature)
        return analyse(game)

    monkeypatch.setattr(compliance_engine, "analyse", counting)
    monkeypatch.setattr(compliance_engine, "_ANALYSES", {})
    path = GAMES / "classic-3reel.toml"
    first, second = load_game(path), load_game(path)
    a = FloorFacts(programs={first.signature: first}).analysis(first.signature)
    b = FloorFacts(programs={second.signature: second}).analysis(second.signature)
    assert a is b
    assert a == analyse(second)
    assert calls == [first.signature]
    other = load_game(GAMES / "video-5reel.toml")
    c = FloorFacts(programs={other.signature: other}).analysis(other.signature)
    assert c is not None and c.signature == other.signature != first.signature
    assert len(calls) == 2
