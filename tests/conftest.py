"""Shared test helpers: where the shipped scenarios and game files live, and a cached loader."""

from __future__ import annotations

import contextlib
import warnings
from functools import cache
from pathlib import Path

import pytest

from twin.machines.par import Game, load_game

# Hypothesis imports its patch writer (and through it libcst / mypy_extensions) only when a
# property test fails; that import raises a DeprecationWarning, which `filterwarnings =
# error` turns into a pytest INTERNALERROR hiding the real failure. Import it once here.
with warnings.catch_warnings(), contextlib.suppress(ImportError):
    warnings.simplefilter("ignore", DeprecationWarning)
    import hypothesis.extra._patching  # noqa: F401

REPO = Path(__file__).resolve().parents[1]
SCENARIOS = REPO / "scenarios"
GAMES = SCENARIOS / "games"
GAME_IDS = tuple(sorted(p.stem for p in GAMES.glob("*.toml")))


@cache
def load(game_id: str) -> Game:
    """The library game ``scenarios/games/<game_id>.toml``, compiled once per test session."""
    return load_game(GAMES / f"{game_id}.toml")


@pytest.fixture
def scenarios_dir() -> Path:
    return SCENARIOS


@pytest.fixture
def games_dir() -> Path:
    return GAMES
