"""The disk cache of exact analyses: a hit in a new process, a miss for another program with
the same signature, for other code or parameters; damaged files and read-only folders."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import GAMES

from twin.machines import analysis, diskcache
from twin.machines.adaptive import scaled_pays
from twin.machines.analysis import analyse, combination_law, win_distribution
from twin.machines.par import load_game

PROBE = """
import sys, time
from twin.machines.par import load_game
from twin.machines import analysis
calls = []
for name in ("_analyse", "_win_distribution", "_combination_law"):
    real = getattr(analysis, name)
    def counting(*a, _real=real, _name=name, **k):
        calls.append(_name)
        return _real(*a, **k)
    setattr(analysis, name, counting)
game = load_game(sys.argv[1])
a = analysis.analyse(game)
w = analysis.win_distribution(game)
c = analysis.combination_law(game)
print(",".join(calls) or "-", a.rtp, float(w.base_probs.sum()), float(c.line_probs.sum()))
"""


def _probe(cache: Path, game: Path, hashseed: str = "0") -> str:
    env = {**os.environ, "TWIN_CACHE_DIR": str(cache), "PYTHONHASHSEED": hashseed}
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(game)], capture_output=True, text=True, env=env,
        check=True, timeout=600,
    )  # fmt: skip
    return out.stdout.strip()


def test_a_second_process_reads_what_the_first_computed(tmp_path: Path) -> None:
    game = GAMES / "classic-3reel.toml"
    first = _probe(tmp_path, game, hashseed="1")
    assert first.startswith("_analyse,_win_distribution,_combination_law ")
    assert len(list(tmp_path.glob("*.pickle"))) == 3
    second = _probe(tmp_path, game, hashseed="2")  # another hash seed: the same keys
    assert second.startswith("- ") and second.split()[1:] == first.split()[1:]


def test_cached_values_equal_computed_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = load_game(GAMES / "video-5reel.toml")
    monkeypatch.setenv("TWIN_CACHE_DIR", "off")
    monkeypatch.setattr(analysis, "_WIN_LAWS", {})
    monkeypatch.setattr(analysis, "_COMBINATION_LAWS", {})
    fresh = (analyse(game), win_distribution(game), combination_law(game, free=True))
    monkeypatch.setenv("TWIN_CACHE_DIR", str(tmp_path))
    for _ in range(2):  # written, then read
        monkeypatch.setattr(analysis, "_WIN_LAWS", {})
        monkeypatch.setattr(analysis, "_COMBINATION_LAWS", {})
        got = (analyse(game), win_distribution(game), combination_law(game, free=True))
        assert got[0] == fresh[0]
        for x, y in ((got[1], fresh[1]), (got[2], fresh[2])):
            for f in x.__dataclass_fields__:
                a, b = getattr(x, f), getattr(y, f)
                assert np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b, f
    assert len(list(tmp_path.glob("*.pickle"))) == 3


def test_a_program_that_keeps_the_signature_but_pays_otherwise_is_another_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TWIN_CACHE_DIR", str(tmp_path))
    honest = load_game(GAMES / "classic-3reel.toml")
    rigged = scaled_pays(honest, 0.5)
    assert rigged.signature == honest.signature
    assert diskcache.key("analysis", honest) != diskcache.key("analysis", rigged)
    assert analyse(rigged).rtp < analyse(honest).rtp
    assert analyse(honest).rtp == analyse(load_game(GAMES / "classic-3reel.toml")).rtp
    # the key depends on what is computed and with which parameters too
    assert diskcache.key("analysis", honest, (1,)) != diskcache.key("analysis", honest, (2,))
    assert diskcache.key("analysis", honest) != diskcache.key("winlaw", honest)


def test_a_damaged_file_is_computed_again_and_rewritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TWIN_CACHE_DIR", str(tmp_path))
    game = load_game(GAMES / "low-return.toml")
    right = analyse(game)
    (path,) = tmp_path.glob("analysis-*.pickle")
    path.write_bytes(b"not a pickle")
    assert analyse(game) == right
    assert pickle.loads(path.read_bytes()) == right


def test_a_read_only_folder_only_costs_the_computation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    monkeypatch.setenv("TWIN_CACHE_DIR", str(ro / "twin"))
    game = load_game(GAMES / "low-return.toml")
    try:
        if os.access(ro, os.W_OK):  # root ignores the mode: make the folder a file instead
            monkeypatch.setenv("TWIN_CACHE_DIR", str(tmp_path / "file"))
            (tmp_path / "file").write_text("in the way")
        assert analyse(game).rtp == analyse(load_game(GAMES / "low-return.toml")).rtp
    finally:
        ro.chmod(0o700)
    assert not (ro / "twin").exists()


def test_off_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TWIN_CACHE_DIR", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert diskcache.cache_dir() is None
    analyse(load_game(GAMES / "low-return.toml"))
    assert list(tmp_path.iterdir()) == []
    monkeypatch.delenv("TWIN_CACHE_DIR")
    assert diskcache.cache_dir() == tmp_path / "twin"


def test_a_blackjack_solution_is_kept_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The basic-strategy solution (~1 s a process) is computed once per rules and code; a
    later process (here: the in-process cache cleared) reads the same solution back."""
    from twin.tables import blackjack

    monkeypatch.setenv("TWIN_CACHE_DIR", str(tmp_path))
    calls: list[object] = []
    real = blackjack._solve

    def counting(rules: blackjack.Rules) -> blackjack.Solution:
        calls.append(rules)
        return real(rules)

    monkeypatch.setattr(blackjack, "_solve", counting)
    rules = blackjack.parse_rules({"shoe": "infinite"}, Path("bj.toml"))
    blackjack.solve.cache_clear()
    first = blackjack.solve(rules)
    assert len(calls) == 1 and len(list(tmp_path.glob("blackjack-solution-*.pickle"))) == 1
    blackjack.solve.cache_clear()
    assert blackjack.solve(rules) == first and len(calls) == 1  # read back, not solved
    other = blackjack.parse_rules({"shoe": "infinite", "blackjack_pays": "6:5"}, Path("b"))
    blackjack.solve.cache_clear()
    assert blackjack.solve(other) != first and len(calls) == 2  # other rules: a miss
    blackjack.solve.cache_clear()


def test_a_change_of_a_listed_source_is_a_miss(tmp_path: Path) -> None:
    src = tmp_path / "module.py"
    src.write_text("x = 1\n")
    before = diskcache.key("w", ("rules",), (), (str(src),))
    assert diskcache.key("w", ("rules",), (), (str(src),)) == before
    diskcache._source.cache_clear()
    src.write_text("x = 2\n")
    assert diskcache.key("w", ("rules",), (), (str(src),)) != before
    assert diskcache.key("w", ("rules",), ()) != before
