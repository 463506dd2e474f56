"""Issue 33: the batched engine's compiled kernel (``_speedups.SlotKernel``), built here with the
real Cython and C compiler into a folder of the test's own, plays exactly as the numpy path
(the reference, and the fallback) and the per-spin engine: the same results, tallies and
uniforms consumed, on every shipped game; and whole runs give the same ledger either way."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType, SimpleNamespace

import numpy as np
import pytest
from conftest import GAMES, REPO
from test_engine import (
    HAND_CASES,
    HAND_GAME,
    NEXT,
    Script,
    _check_result,
    _random_request,
    _tally_of,
)
from test_ledger_heads import HEADS

from twin import speedups
from twin.machines.engine import (
    BatchedEngine,
    PerSpinEngine,
    PlayRequest,
    PlayResult,
    Stop,
    UniformTape,
)
from twin.machines.engine import batched as engine_module
from twin.machines.engine.common import _tally_layout
from twin.machines.par import Game, load_game

# every PAR sheet shipped: the library, and the package's copy of it where that differs
_SHEETS: dict[str, Path] = {}
for _dir in (GAMES, REPO / "twin" / "data" / "scenarios" / "games"):
    for _path in sorted(_dir.glob("*.toml")):
        _SHEETS.setdefault(_path.read_text(), _path)
SHIPPED = list(_SHEETS.values())
SHIPPED_IDS = [str(p.relative_to(REPO)) for p in SHIPPED]
REQUESTS = 1500


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The kernels built once for this module, into a folder of its own."""
    folder = tmp_path_factory.mktemp("speedups-engine")
    speedups.build(folder)
    return folder


@pytest.fixture(scope="module")
def module(built: Path) -> ModuleType:
    """The built kernels, loaded as ``TWIN_SPEEDUPS=<folder>`` loads them."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(speedups.ENV, str(built))
        mp.setattr(speedups, "_loaded", None)
        kernels = speedups.load()
        assert kernels is not None and speedups.status().startswith("compiled kernels: ")
    return kernels


@pytest.fixture
def kernels(module: ModuleType, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """Engines made in the test use the built kernels (unless made with ``compiled=False``)."""
    monkeypatch.setattr(speedups, "_loaded", (module, "compiled kernels (test)"))
    yield module


def _tapes(seed: int) -> tuple[UniformTape, UniformTape]:
    return (
        UniformTape(np.random.default_rng([seed, 1]), block=1000),
        UniformTape(np.random.default_rng([seed, 2]), block=1000),
    )


@pytest.mark.parametrize("path", SHIPPED, ids=SHIPPED_IDS)
@pytest.mark.parametrize("chunk", [64, 2048])
def test_the_compiled_engine_plays_exactly_as_numpy_and_per_spin(
    kernels: ModuleType, path: Path, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Random requests (every stop, features and retriggers, progressive and jackpot locks,
    interrupted stretches given back and played again) on one machine's tapes: the compiled
    engine's results, tallies and tapes' positions are the numpy path's and the per-spin
    engine's; and its base games never go through the numpy kernel."""
    game = load_game(path)
    fast = BatchedEngine(game, chunk=chunk)
    slow = BatchedEngine(game, chunk=chunk, compiled=False)
    assert fast._fast is not None and slow._fast is None
    assert (fast._features._fast is not None) == game.has_free_spins
    evaluated: list[int] = []  # games the numpy kernels evaluated
    evaluate = engine_module._Kernel.evaluate

    def counted(self: engine_module._Kernel, u: np.ndarray) -> object:
        evaluated.append(u.shape[0])
        return evaluate(self, u)

    monkeypatch.setattr(engine_module._Kernel, "evaluate", counted)
    per_spin = PerSpinEngine(game)
    seed = 20261205 + SHIPPED.index(path)
    req_rng = np.random.default_rng([seed, 0])
    fast_tapes, slow_tapes = _tapes(seed), _tapes(seed)
    base_rng, feature_rng = np.random.default_rng([seed, 1]), np.random.default_rng([seed, 2])
    stops: Counter[Stop] = Counter()
    games = free_games = 0
    for i in range(REQUESTS):
        req = _random_request(req_rng, game)
        results = []
        before = len(evaluated)
        for engine, (base, feature) in ((fast, fast_tapes), (slow, slow_tapes)):
            if engine is slow:  # the compiled engine's games never go through numpy
                assert len(evaluated) == before
            if i % 7 == 3 and req.max_games > 1:  # the machine's interrupted stretch
                base.mark()
                feature.mark()
                first = engine.play(req, base, feature)
                base.rewind()
                feature.rewind()
                started = (first.games * (i % 5)) // 4
                req_i = PlayRequest(
                    req.credits, req.bet_units, started, req.floor_credits,
                    req.goal_credits, req.lock_credits,
                )  # fmt: skip
                results.append((engine.play(req_i, base, feature), req_i))
                base.commit()
                feature.commit()
            else:
                results.append((engine.play(req, base, feature), req))
        (got, req), (ref, ref_req) = results
        assert req == ref_req
        want = per_spin.play(req, base_rng, feature_rng)
        assert got == ref == want, (i, req)
        assert _tally_of(got) == _tally_of(ref) == _tally_of(want), (i, req)
        _check_result(req, got, game)
        for tape, other in zip(fast_tapes, slow_tapes, strict=True):
            assert tape.drawn == other.drawn, (i, req)
        stops[got.stop] += 1
        games += got.games
        free_games += got.free_games
    # the streams are at the same place: the next uniforms are the same
    for tape, other, rng in zip(fast_tapes, slow_tapes, (base_rng, feature_rng), strict=True):
        assert tape.random() == other.random() == rng.random()
    assert games > 50_000
    assert all(stops[s] > 0 for s in (Stop.TIME, Stop.LOSS_LIMIT, Stop.WIN_GOAL, Stop.JACKPOT))
    assert (stops[Stop.PROGRESSIVE] > 0) == game.has_progressive
    assert (free_games > 0) == game.has_free_spins
    assert sum(evaluated) >= games  # (and the reference engine's did)


@pytest.mark.parametrize(("req", "values", "want"), HAND_CASES)
def test_hand_computed_sessions_on_the_compiled_engine(
    kernels: ModuleType, tmp_path: Path, req: PlayRequest, values: list[float], want: PlayResult
) -> None:
    """The hand-computed table-game sessions of test_engine (a progressive outcome, every
    stop), on the compiled engine: the same results, exactly the scripted uniforms used."""
    path = tmp_path / "hand-table.toml"
    path.write_text(HAND_GAME)
    engine = BatchedEngine(load_game(path), chunk=4)
    assert engine._fast is not None
    tape = UniformTape(Script(values), block=3)  # type: ignore[arg-type]
    assert engine.play(req, tape, UniformTape(Script([]))) == want  # type: ignore[arg-type]
    assert tape.random() == NEXT


def test_a_game_the_kernel_does_not_take_is_played_by_numpy(
    kernels: ModuleType, tmp_path: Path
) -> None:
    """Stops found by a search (weights beyond the lookup tables' limit) are not compiled:
    the numpy path plays the game, as the per-spin engine does."""

    def heavier(m: re.Match[str]) -> str:  # the same odds, in weights 20,000 times larger
        return "weights = [" + ", ".join(str(int(w) * 20_000) for w in m[1].split(",")) + "]"

    text = (GAMES / "classic-3reel.toml").read_text()
    path = tmp_path / "heavy.toml"
    path.write_text(re.sub(r"weights = \[([^\]]*)\]", heavier, text))
    game = load_game(path)
    engine = BatchedEngine(game)
    assert engine._kernel._flat is None and engine._fast is None
    base, feature = _tapes(3)
    per_spin = PerSpinEngine(game)
    base_rng, feature_rng = np.random.default_rng([3, 1]), np.random.default_rng([3, 2])
    req_rng = np.random.default_rng(4)
    for _ in range(200):
        req = _random_request(req_rng, game)
        got = engine.play(req, base, feature)
        assert got == per_spin.play(req, base_rng, feature_rng)
    assert base.random() == base_rng.random()


def test_kernels_of_another_state_layout_or_none_are_not_used(
    kernels: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = load_game(GAMES / "video-5reel.toml")
    kernel = engine_module._kernels(game)[0]
    offsets = _tally_layout(game)[1]
    assert isinstance(kernel.compiled(kernels, offsets), kernels.SlotKernel)
    other = SimpleNamespace(
        STATE_FIELDS=kernels.STATE_FIELDS[:-1], STATUS=kernels.STATUS, SlotKernel=None
    )
    assert kernel.compiled(other, offsets) is None  # type: ignore[arg-type]

    def refuse(*args: object) -> None:
        raise ValueError("tables the kernel does not take")

    refusing = SimpleNamespace(
        STATE_FIELDS=kernels.STATE_FIELDS, STATUS=kernels.STATUS, SlotKernel=refuse
    )
    assert kernel.compiled(refusing, offsets) is None  # type: ignore[arg-type]
    # what the kernel does not take: codes beyond int32, more than 512 columns of code
    args = [kernel._flat, kernel._offsets, kernel._totals, offsets]
    rest = [kernel._pay, None, kernel._classes, kernel._lines, None, None, -1, 1, False]
    group, radix, table = kernel._blocks[0]
    with pytest.raises(ValueError, match="codes beyond int32"):
        kernels.SlotKernel(*args, [(group, radix, table + 2**31)], *rest)
    wide = np.zeros((table.shape[0], 513), np.int64)
    with pytest.raises(ValueError, match="more than 512 columns of code"):
        kernels.SlotKernel(*args, [(group, radix, wide)], *rest)
    kernels.SlotKernel(*args, [(group, radix, wide[:, :512])], *rest)
    monkeypatch.setattr(speedups, "_loaded", (None, "pure Python (test)"))
    assert BatchedEngine(game)._fast is None and BatchedEngine(game)._features._fast is None


def _run(args: list[str], setting: str, cwd: Path) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-m", "twin", "run", *args, "--seed", "1", "--json"],
        cwd=cwd, env={**os.environ, speedups.ENV: setting}, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    return result["records"], result["ledger_sha256"]


@pytest.mark.parametrize(
    ("name", "extra"), [("small", []), ("default", ["--hours", "2"])], ids=["small", "default-2h"]
)
def test_a_run_gives_the_same_ledger_with_and_without_the_compiled_engine(
    built: Path, tmp_path: Path, name: str, extra: list[str]
) -> None:
    heads = {}
    for setting in (str(built), "0"):
        out = tmp_path / ("compiled" if setting != "0" else "pure")
        scenario = str(REPO / "scenarios" / f"{name}.toml")
        heads[setting != "0"] = _run([scenario, *extra, "--out", str(out)], setting, tmp_path)
    assert heads[True] == heads[False]
    if not extra:  # a whole run of a scenario of the heads' table
        assert heads[True] == HEADS[name]


def test_the_slot_kernel_refuses_uniforms_short_of_its_games(kernels: ModuleType) -> None:
    game: Game = load_game(GAMES / "classic-3reel.toml")
    fast = BatchedEngine(game)._fast
    st = np.zeros(len(kernels.STATE_FIELDS), np.int64)
    tally = np.zeros(100, np.int64)
    with pytest.raises(ValueError, match="fewer uniforms than games"):
        fast.play(np.zeros(5), 0, 2, st, tally, tally, tally, False)
    with pytest.raises(ValueError, match="fewer uniforms than games"):
        fast.evaluate(np.zeros(5), 2)
