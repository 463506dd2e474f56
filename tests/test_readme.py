"""Every README example runs as written (issue 33).

README.md's fenced blocks each carry a `<!-- readme-test: KIND -->` comment (the convention is
in tests/readme_blocks.py and in README.md, "The README is tested"). These tests run every
`run` block in README order in a user's folder and compare what it prints, check the help
blocks against the live help, and (slow) run the `slow` blocks and the README's commands from
a `pip install .` of this checkout in a fresh virtual environment, from another folder.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import readme_blocks as rb

BLOCKS = rb.blocks()


def test_every_block_says_how_it_is_tested() -> None:
    problems = [f"{b.where}: {b.problem}" for b in BLOCKS if b.problem]
    assert problems == [], "README.md blocks without a treatment the test knows:\n" + "\n".join(
        problems
    )
    kinds = [b.kind for b in BLOCKS]
    assert len(BLOCKS) == 31
    assert {k: kinds.count(k) for k in rb.KINDS} == {
        "run": 15,
        "slow": 1,
        "help": 1,
        "file": 1,
        "skip": 13,
    }


def test_a_block_without_a_known_kind_is_a_failure() -> None:
    text = "\n".join(
        [
            "```sh",
            "twin run",
            "```",
            "<!-- readme-test: maybe -->",
            "```sh",
            "twin run",
            "```",
            "<!-- readme-test: skip -->",
            "```sh",
            "```",
            "<!-- readme-test: run -->",
            "```toml",
            "```",
            "<!-- readme-test: skip: no window here -->",
            "   ```",
            "   x",
            "   ```",
        ]
    )
    got = [(b.line, b.kind, b.problem) for b in rb.parse(text)]
    assert got == [
        (1, "", "no <!-- readme-test: KIND --> comment before it"),
        (5, "maybe", "unknown kind 'maybe' (expected one of run, slow, help, file, skip)"),
        (9, "skip", "skip needs a reason"),
        (12, "run", "run runs console, sh and python blocks, not 'toml'"),
        (15, "skip", ""),
    ]
    with pytest.raises(ValueError, match=r"README\.md:1: the fence is never closed"):
        rb.parse("```sh\ntwin run\n")


def test_console_commands_outputs_and_normalisation() -> None:
    (block,) = rb.parse(
        "<!-- readme-test: run -->\n```console\n$ twin a \\\n  --b\nout 1\n\n$ echo $?\n2\n```\n"
    )
    cmds = rb.commands(block)
    assert [(c.command, c.shown, c.line) for c in cmds] == [
        ("twin a \\\n  --b", ["out 1", ""], 3),
        ("echo $?", ["2"], 7),
    ]
    assert rb.normalise(["  (2.0 h simulated in 2.07 s)", '  "wall_seconds": 1.506,']) == [
        "  (2.0 h simulated in <wall> s)",
        '  "wall_seconds": <wall>,',
    ]
    assert rb.PROGRESS.match(
        "twin: small: 6.2 of 24 sim-h (26%) in 15 s, x1,488 real time, about 43 s left"
    )


def test_help_blocks_are_the_live_help(tmp_path: Path) -> None:
    env = rb.prepare(tmp_path / "readme")
    text = rb.README.read_text(encoding="utf-8")
    assert rb.regenerate(text, env) == text, (
        "a help block of README.md differs from the live help: "
        "run `python tests/readme_blocks.py` to rewrite it"
    )


def _run(kinds: tuple[str, ...], cwd: Path) -> list[rb.Outcome]:
    env = rb.prepare(cwd)
    outcomes = []
    for block in BLOCKS:
        if block.kind in kinds:
            outcomes.append(rb.run_block(block, cwd, env))
    for o in outcomes:
        print(f"{o.block.where}: {o.seconds:.1f} s, {o.compared} output(s) compared")
    failures = [f for o in outcomes for f in o.failures]
    assert failures == [], "README examples that do not run as written:\n\n" + "\n\n".join(failures)
    return outcomes


def test_every_readme_example_runs_as_written(tmp_path: Path) -> None:
    outcomes = _run(("run", "file"), tmp_path / "readme")
    assert sum(o.compared for o in outcomes) == 38


@pytest.mark.slow
def test_slow_readme_examples_run_as_written(tmp_path: Path) -> None:
    outcomes = _run(("slow",), tmp_path / "readme")
    assert len(outcomes) == 1


#: what a checkout holds that is not the project's source (never copied into the install)
_NOT_SOURCE = shutil.ignore_patterns(
    ".git", "out", "build", "*.egg-info", "__pycache__", ".venv", ".*_cache", "*.pyc"
)


def _twin_lines(twin: str, args: list[str], cwd: Path, env: dict[str, str]) -> list[str]:
    done = subprocess.run(
        [twin, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, f"twin {' '.join(args)} exited {done.returncode}:\n{done.stderr}"
    return done.stdout.splitlines()


def _shipped(lines: list[str]) -> list[str]:
    return [re.sub(r"/\S+/twin/data/", "<twin>/data/", line) for line in lines]


@pytest.mark.slow
def test_installed_with_pip_the_readme_runs_from_another_folder(tmp_path: Path) -> None:
    """`pip install .` (not editable) into a fresh venv; then, from other folders, the README.

    The checkout is copied first (pip builds in the source tree, which must stay clean), the
    venv is a plain one (`python -m venv`, no system site-packages: pip takes the
    dependencies from the machine's package index). Then every fast README block runs with
    the venv's `twin` and `python`, in a folder holding only a copy of `scenarios/` (as the
    README's paths expect), and the shipped names run from an empty folder.
    """
    began = time.monotonic()
    src, venv = tmp_path / "src", tmp_path / "venv"
    shutil.copytree(rb.ROOT, src, ignore=_NOT_SOURCE)
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    subprocess.run([sys.executable, "-m", "venv", str(venv)], env=clean, check=True, timeout=300)
    pip = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(src)],
        env=clean, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert pip.returncode == 0, pip.stdout + pip.stderr
    installed = time.monotonic()
    print(f"python -m venv + pip install .: {installed - began:.1f} s")
    bin_dir = venv / "bin"
    twin = str(bin_dir / "twin")

    # the installed twin is not this checkout's: it runs from the venv's site-packages
    where = subprocess.run(
        [str(bin_dir / "python"), "-c", "import twin, viz; print(twin.__file__, viz.__file__)"],
        cwd=tmp_path, env=clean, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert where.count(str(venv / "lib")) == 2, where

    # every README example that the fast test runs, and the help block, as written
    cwd = tmp_path / "user"
    env = rb.prepare(cwd, installed=bin_dir)
    outcomes = [rb.run_block(b, cwd, env) for b in BLOCKS if b.kind in ("help", "run", "file")]
    for o in outcomes:
        print(f"{o.block.where}: {o.seconds:.1f} s, {o.compared} output(s) compared")
    failures = [f for o in outcomes for f in o.failures]
    assert failures == [], "README examples that fail when installed:\n\n" + "\n\n".join(failures)
    assert sum(o.compared for o in outcomes) == 39  # with the viewer's two --at examples

    # the shipped names from an empty folder: the same output as this checkout's twin
    empty = tmp_path / "empty"
    empty.mkdir()
    checkout, checkout_env = tmp_path / "checkout", rb.prepare(tmp_path / "checkout")
    printed: dict[str, list[str]] = {}
    for args in (
        ["run", "singapore", "--hours", "1", "--no-progress"],
        ["par", "video-5reel"],
        ["table", "punto-banco-8deck"],
        ["scenarios"],
    ):
        # a shipped file is named by its path: the package's folder differs, nothing else
        got = _shipped(rb.normalise(_twin_lines(twin, args, empty, env)))
        want = _shipped(rb.normalise(_twin_lines("twin", args, checkout, checkout_env)))
        assert got == want, args
        printed[args[0]] = got
    assert printed["run"][-1] == (
        "  wrote out/singapore-seed11/ledger.sqlite, out/singapore-seed11/findings.json and "
        "out/singapore-seed11/summary.json"
    )
    assert printed["par"][0] == "PAR sheet video-5reel: Wild Frontier"
    assert printed["par"][1] == "  file          <twin>/data/scenarios/games/video-5reel.toml"
    summary = (empty / "out" / "singapore-seed11" / "summary.json").read_text()
    assert '"scenario": "singapore"' in summary
    print(f"README from the installed package: {time.monotonic() - installed:.1f} s")
