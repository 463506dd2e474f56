"""Issue 31: the optional compiled kernels (``twin.speedups``), built here with the real Cython
and C compiler into a folder of the test's own (the checkout's pure-Python path is untouched),
held equal to their pure-Python references and giving the same ledger heads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO
from test_ledger_heads import HEADS

from twin import speedups
from twin.streams import Streams, _key, _SpawnMixer

ROOTS = (0, 1, 7, 2**32 - 1, 2**32, 2**40 + 3, 2**128 - 1, 2**130 + 5, 20_261_205)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The kernels built once for this module, into a folder of its own."""
    folder = tmp_path_factory.mktemp("speedups")
    path = speedups.build(folder)
    assert path.parent == folder and path.name.startswith("_speedups.")
    assert (folder / speedups.STAMP).read_text().strip() == speedups.source_digest()
    return folder


@pytest.fixture
def use(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This process loads the kernels afresh under the environment the test sets."""
    monkeypatch.setattr(speedups, "_loaded", None)
    yield


def _env(setting: str) -> dict[str, str]:
    return {**os.environ, speedups.ENV: setting}


def test_the_compiled_mixer_gives_the_seed_words_of_the_python_mixer_and_numpy(
    built: Path, use: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(speedups.ENV, str(built))
    kernels = speedups.load()
    assert kernels is not None and speedups.status().startswith("compiled kernels: ")
    for root in ROOTS:
        fast, slow = kernels.SpawnMixer(root), _SpawnMixer(root)
        for i in range(2_000):
            key = _key(f"P-{i:05d}", f"visit {i % 7}")
            assert fast.seed_bytes(key) == slow.seed_bytes(key)
        for key in ((0, 0, 0, 0), (2**32 - 1,) * 4, (1, 0, 0, 0), (0, 0, 0, 1)):
            seq = np.random.SeedSequence(entropy=root, spawn_key=key)
            assert fast.seed_bytes(key) == seq.generate_state(4, np.uint64).tobytes()
    with pytest.raises(ValueError, match="non-negative"):
        kernels.SpawnMixer(-1)
    # and the streams built on it are numpy's generators of the seed sequences
    streams = Streams(11)
    assert isinstance(streams._mixer, kernels.SpawnMixer)
    gen = streams.fresh("A-001", "spins")
    ref = np.random.Generator(np.random.PCG64(streams.seed_sequence("A-001", "spins")))
    assert gen.bit_generator.state == ref.bit_generator.state


def test_a_stale_or_absent_build_is_never_loaded(
    built: Path, tmp_path: Path, use: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(speedups.ENV, "0")
    assert speedups.load() is None
    assert speedups.status() == f"pure Python ({speedups.ENV}=0)"

    monkeypatch.setattr(speedups, "_loaded", None)
    monkeypatch.setenv(speedups.ENV, str(tmp_path))  # nothing built there
    assert speedups.load() is None
    assert speedups.status() == (
        f"pure Python ({speedups.ENV}={tmp_path}: no build in {tmp_path}; "
        "`python -m twin.speedups build` makes one)"
    )

    stale = tmp_path / "stale"
    stale.mkdir()
    so = speedups._built(built)
    assert so is not None
    (stale / so.name).write_bytes(so.read_bytes())
    (stale / speedups.STAMP).write_text("0" * 64 + "\n")  # built from another source
    monkeypatch.setattr(speedups, "_loaded", None)
    monkeypatch.setenv(speedups.ENV, str(stale))
    assert speedups.load() is None
    assert speedups.status() == (
        f"pure Python (the build {stale / so.name} is not of this _speedups.pyx: "
        "`python -m twin.speedups build` again)"
    )
    assert isinstance(Streams(3)._mixer, _SpawnMixer)


@pytest.mark.parametrize("name", ["small", "tiny"])
def test_a_run_gives_the_same_ledger_head_with_and_without_the_kernels(
    built: Path, tmp_path: Path, name: str
) -> None:
    """Whole runs in subprocesses, one on the compiled kernels and one on pure Python: the same
    records and head, the head of the shipped table."""
    heads = {}
    for setting in (str(built), "0"):
        out = tmp_path / ("compiled" if setting != "0" else "pure")
        done = subprocess.run(
            [sys.executable, "-m", "twin", "run", str(REPO / "scenarios" / f"{name}.toml"),
             "--seed", "1", "--out", str(out), "--json"],
            cwd=tmp_path, env=_env(setting), capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        heads[setting != "0"] = (result["records"], result["ledger_sha256"])
    assert heads[True] == heads[False] == HEADS[name]


def test_status_and_build_from_the_command_line(built: Path, tmp_path: Path) -> None:
    said = subprocess.run(
        [sys.executable, "-m", "twin.speedups", "status"],
        env=_env(str(built)), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert said.returncode == 0 and said.stdout.startswith("compiled kernels: ")
    # without Cython the build says what to install, and nothing is left behind
    no_cython = (
        "import sys; sys.modules['Cython'] = None; from twin.speedups import main; "
        f"sys.exit(main(['build', '--into', {str(tmp_path / 'k')!r}]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", no_cython], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert done.stderr == (
        "twin.speedups: error: Cython is not installed: `python -m pip install cython` "
        "(only to build)\n"
    )
    assert not list((tmp_path / "k").glob("_speedups*"))
