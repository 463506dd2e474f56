"""Shared test helpers: where the shipped scenarios and game files live, and a cached loader."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
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

# The exact analyses are kept on disk (twin.machines.diskcache): the suite and the processes
# it starts (CLIs, Dask workers) share one cache of their own, not the user's, emptied after.
if "TWIN_CACHE_DIR" not in os.environ:
    os.environ["TWIN_CACHE_DIR"] = tempfile.mkdtemp(prefix="twin-test-cache-")
    atexit.register(shutil.rmtree, os.environ["TWIN_CACHE_DIR"], ignore_errors=True)

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
