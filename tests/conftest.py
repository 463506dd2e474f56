"""Shared test helpers: where the shipped scenarios and game files live, and a cached loader."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
import warnings
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from twin.licensing import Licensing
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


#: Issue 25: a casino without a door check or an AML function breaches the regulation by
#: itself, one finding per clause citing "no such function in this casino": reg 45 (no door:
#: nobody entering is identified), 48 and 50(1) (no AML function: nobody trained, no
#: Reporting Officer) and, when a transaction needed it, 46(1)-(4) (nobody identifies or
#: cross-references). The machine-side test floors (tests/data/controls.toml,
#: scenarios/tiny.toml) and several department floors are such casinos.
ABSENT = "no such function in this casino"
NO_DOOR = frozenset({"MT98.R45"})
NO_AML = frozenset({"MT98.R48", "MT98.R50.1"})
NO_AML_WHEN_NEEDED = frozenset({"MT98.R46.1", "MT98.R46.2", "MT98.R46.3", "MT98.R46.4"})
NO_CAGE = frozenset({"MT98.R41.a"})
#: issue 28: a casino whose employees work and which keeps no employee's licence (no
#: [licensing]) breaches reg 8 by itself, one finding standing for every employee
NO_LICENSING = frozenset({"MT98.R8"})


def _field(f: Any, name: str) -> Any:
    return f[name] if isinstance(f, dict) else getattr(f, name)


def besides_absent_functions(
    findings: Any,
    *,
    door: bool = False,
    aml: bool = False,
    cage: bool = False,
    entrants: bool = True,
    licensing: bool = False,
) -> list[Any]:
    """The findings other than those of the functions the casino lacks, after asserting those:
    without a door exactly one R45 (when anyone came in: ``entrants``; a run whose patrons
    never arrive has no one to find unidentified); without an AML function exactly one R48
    and one R50.1,
    and at most one of each of R46(1)-(4) (at the first transaction that needed it); without
    a cage (no books) exactly one R41.a (at the first gaming operation: ``entrants``); with
    the function, none of its. (Issue 25: "0 findings" on such a floor was a false clean.)
    ``findings``: Finding records or their JSON (``RunResult.findings``)."""
    gated = NO_DOOR | NO_AML | NO_AML_WHEN_NEEDED | NO_CAGE | NO_LICENSING

    def of_absence(f: Any) -> bool:  # (R22's absent notice is a finding of its own)
        return ABSENT in _field(f, "message") and _field(f, "control") in gated

    absent = [f for f in findings if of_absence(f)]
    got = Counter(_field(f, "control") for f in absent)
    must = (
        (set() if door or not entrants else set(NO_DOOR))
        | (set() if aml else set(NO_AML))
        | (set() if cage or not entrants else set(NO_CAGE))
        | (set() if licensing else set(NO_LICENSING))
    )
    may = set() if aml else set(NO_AML_WHEN_NEEDED)
    shown = [(_field(f, "control"), _field(f, "message")) for f in absent]
    assert must <= set(got) <= must | may, shown
    assert all(n == 1 for n in got.values()), shown
    return [f for f in findings if not of_absence(f)]


def besides_absent(casino: Any) -> list[Any]:
    """:func:`besides_absent_functions` for a built casino: its findings, with the functions
    it has (``casino.entrance``, ``casino.aml``, ``casino.cage``, its licensing) taken from it;
    a casino fed by hand (not finished) with the findings the bus has not numbered yet."""
    return besides_absent_functions(
        casino.compliance.findings_so_far(),
        door=casino.entrance is not None,
        aml=casino.aml is not None,
        cage=casino.cage is not None,
        licensing=casino.find(Licensing) is not None,
    )
