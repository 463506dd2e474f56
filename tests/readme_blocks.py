"""README.md's fenced blocks, as tests/test_readme.py runs them (issue 33).

Every fenced block of README.md is preceded by a comment that says what it is, e.g.

    <!-- readme-test: run -->
    ```console
    $ twin par scenarios/games/video-5reel.toml
    PAR sheet video-5reel: Wild Frontier
    ...

The kinds (README.md, "The README is tested", says the same for its readers):

- ``run``: a ``console`` block is a session: each ``$ `` line (a trailing ``\\`` continues
  it) is run by bash in the README's working directory, and the lines up to the next ``$ ``
  are what it prints (stdout and stderr together), compared exactly after the
  normalisations below. A last shown line ``...`` alone means "and more": only the lines
  before it are compared. A command exits 0, or 2 when what it prints is a ``twin: error:``
  line, unless the next command is ``echo $?`` (whose shown output is its exit code). In a
  ``sh`` block every command must exit 0 (it prints nothing compared). A ``python`` block is
  run as a script with the project's interpreter.
- ``slow``: the same, in the slow test (``-m slow``), in a working directory of its own: a slow
  block may not use what another block made.
- ``help``: a ``console`` block of one ``$ twin ... --help`` and its output, which
  ``python tests/readme_blocks.py`` writes from the live command (a test fails when it differs).
- ``file NAME``: the block is written to NAME in the working directory, for later blocks.
- ``skip: REASON``: not run, for the reason given (never empty).

A block without such a comment, or with a kind not listed here, fails the test: a new example
can never be silently untested.

The working directory is prepared as a user's checkout is: an empty temporary folder holding a
copy of ``scenarios/``. Blocks run in their order in the README, so a later block finds what an
earlier one wrote (``out/default-seed7/`` of the ``twin run`` example, say). ``twin`` is this
checkout's (``python -m twin`` with the checkout on ``PYTHONPATH``), with ``COLUMNS=80`` for
click's help.

Normalisations (applied to the README's lines and the real output alike; nothing else differs):
the wall time of a run (``simulated in 2.07 s``, ``"wall_seconds": 1.506``) is replaced by
``<wall>``; the progress lines a run without a terminal prints every 15 s of wall time are
dropped from the real output.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

KINDS = ("run", "slow", "help", "file", "skip")
#: the environment variable that names the interpreter python blocks run with
PYTHON = "README_TEST_PYTHON"
_MARK = re.compile(r"^\s*<!-- readme-test: (?P<body>.*?) -->\s*$")
_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+)(?P<info>[^`]*)$")

#: what differs between two identical runs, replaced by <wall> on both sides
NORMALISE = (
    (re.compile(r"(simulated in )\d+(?:\.\d+)? s\b"), r"\1<wall> s"),
    (re.compile(r'("wall_seconds": )\d+(?:\.\d+)?'), r"\1<wall>"),
)
#: a run's progress line without a terminal (twin/cli/running.py), dropped from the real output
PROGRESS = re.compile(
    r"^twin: \S+: [\d.]+ of [\d.]+ sim-h \(\d+%\) in \d+ s, x[\d,]+ real time, "
    r"about \d+ s left$"
)


@dataclass
class Block:
    """One fenced block: where it is, its info string, its comment and its lines."""

    line: int  # 1-based line of the opening fence
    info: str
    kind: str  # one of KINDS, or "" when the comment is missing or not understood
    arg: str  # file NAME, skip REASON
    lines: list[str]
    problem: str = ""  # why the block is not understood

    @property
    def where(self) -> str:
        return f"README.md:{self.line} ({self.info or 'no info string'}, {self.kind or '?'})"


def parse(text: str) -> list[Block]:
    """Every fenced block of `text`, with the readme-test comment before it."""
    lines = text.splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = m["indent"], m["fence"], m["info"].strip()
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and lines[i].strip() != fence:
            line = lines[i]
            body.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
            i += 1
        if i == len(lines):
            raise ValueError(f"README.md:{start + 1}: the fence is never closed")
        i += 1
        prev = start - 1
        while prev >= 0 and not lines[prev].strip():
            prev -= 1
        mark = _MARK.match(lines[prev]) if prev >= 0 else None
        block = Block(start + 1, info, "", "", body)
        if mark is None:
            block.problem = "no <!-- readme-test: KIND --> comment before it"
        else:
            word, _, arg = mark["body"].partition(" ")
            word = word.rstrip(":")
            block.kind, block.arg = word, arg.strip()
            if word not in KINDS:
                block.problem = f"unknown kind {word!r} (expected one of {', '.join(KINDS)})"
            elif word in ("file", "skip") and not block.arg:
                block.problem = f"{word} needs a {'file name' if word == 'file' else 'reason'}"
            elif word in ("run", "slow") and info not in ("console", "sh", "python"):
                block.problem = f"{word} runs console, sh and python blocks, not {info!r}"
            elif word == "help" and info != "console":
                block.problem = "a help block is a console block"
        blocks.append(block)
    return blocks


def blocks() -> list[Block]:
    return parse(README.read_text(encoding="utf-8"))


@dataclass
class Command:
    command: str
    shown: list[str] | None  # None: a sh block's command (nothing compared)
    line: int


def commands(block: Block) -> list[Command]:
    """The commands of a console or sh block, with the output each shows (console)."""
    cmds: list[Command] = []
    if block.info == "console":
        for n, line in enumerate(block.lines):
            if line.startswith("$ "):
                cmds.append(Command(line[2:], [], block.line + 1 + n))
            elif cmds and cmds[-1].command.endswith("\\"):
                cmds[-1].command += "\n" + line
            elif cmds:
                assert cmds[-1].shown is not None
                cmds[-1].shown.append(line)
            else:
                raise ValueError(f"{block.where}: output before the first `$ ` command")
        return cmds
    for n, line in enumerate(block.lines):
        if cmds and cmds[-1].command.endswith("\\"):
            cmds[-1].command += "\n" + line
        elif line.strip() and not line.lstrip().startswith("#"):
            cmds.append(Command(line, None, block.line + 1 + n))
    return cmds


def normalise(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        for pattern, repl in NORMALISE:
            line = pattern.sub(repl, line)
        out.append(line.rstrip())
    return out


def prepare(cwd: Path, installed: Path | None = None) -> dict[str, str]:
    """A user's folder in `cwd` (a copy of scenarios/) and the environment to run in.

    `installed`: the bin folder of a virtual environment the project was installed into, whose
    ``twin`` and ``python`` are then used (without this checkout on ``PYTHONPATH``); otherwise
    ``twin`` is this checkout's, run by this interpreter.
    """
    shutil.copytree(ROOT / "scenarios", cwd / "scenarios")
    env = dict(os.environ)
    env["COLUMNS"] = "80"
    env.pop("TWIN_PROGRESS_SECONDS", None)
    env.pop("PYTHONPATH", None)
    if installed is not None:
        env["PATH"] = f"{installed}{os.pathsep}{env.get('PATH', '')}"
        env["VIRTUAL_ENV"] = str(installed.parent)
        env[PYTHON] = str(installed / "python")
        return env
    shim = cwd.parent / f"{cwd.name}-bin"
    shim.mkdir(exist_ok=True)
    twin = shim / "twin"
    twin.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m twin "$@"\n')
    twin.chmod(0o755)
    env["PATH"] = f"{shim}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(ROOT)
    env[PYTHON] = sys.executable
    return env


@dataclass
class Outcome:
    block: Block
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)
    compared: int = 0  # commands whose output was compared
    #: each compared command with what it really printed (progress lines dropped)
    printed: list[tuple[Command, list[str]]] = field(default_factory=list)


def run_block(block: Block, cwd: Path, env: dict[str, str], timeout: float = 900) -> Outcome:
    """Run one block of kind run, slow or help (file: write it) in `cwd`."""
    outcome = Outcome(block)
    began = time.monotonic()
    if block.kind == "file":
        (cwd / block.arg).write_text("\n".join(block.lines) + "\n", encoding="utf-8")
        return outcome
    if block.info == "python":
        script = cwd / f"readme-{block.line}.py"
        script.write_text("\n".join(block.lines) + "\n", encoding="utf-8")
        done = subprocess.run(
            [env[PYTHON], script.name], cwd=cwd, env=env, capture_output=True,
            text=True, timeout=timeout,
        )  # fmt: skip
        if done.returncode != 0:
            outcome.failures.append(
                f"{block.where}: the Python example exited {done.returncode}:\n"
                f"{done.stdout}{done.stderr}"
            )
        outcome.seconds = time.monotonic() - began
        return outcome
    cmds = commands(block)
    rc = 0
    for i, cmd in enumerate(cmds):
        done = subprocess.run(
            ["bash", "-c", f"(exit {rc}); {cmd.command}"], cwd=cwd, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout,
        )  # fmt: skip
        rc = done.returncode
        got = [ln for ln in done.stdout.splitlines() if not PROGRESS.match(ln)]
        where = f"README.md:{cmd.line}: `{cmd.command}`"
        if cmd.shown is None:
            if rc != 0:
                outcome.failures.append(f"{where} exited {rc}:\n{done.stdout}")
            continue
        following = cmds[i + 1].command.strip() if i + 1 < len(cmds) else ""
        if following != "echo $?":
            want = 2 if any(s.startswith("twin: error:") for s in cmd.shown) else 0
            if rc != want:
                outcome.failures.append(f"{where} exited {rc}, not {want}:\n{done.stdout}")
        shown = normalise(cmd.shown)
        actual = normalise(got)
        if shown and shown[-1] == "...":
            shown, actual = shown[:-1], actual[: len(shown) - 1]
        outcome.compared += 1
        outcome.printed.append((cmd, got))
        if shown != actual:
            outcome.failures.append(f"{where} prints otherwise:\n{_diff(shown, actual)}")
    outcome.seconds = time.monotonic() - began
    return outcome


def _diff(shown: list[str], actual: list[str]) -> str:
    import difflib

    return "\n".join(
        difflib.unified_diff(shown, actual, "README.md", "real output", lineterm="", n=1)
    )


def help_output(command: str, env: dict[str, str]) -> list[str]:
    """What `command` (a `twin ... --help`) prints, as a help block shows it."""
    done = subprocess.run(
        ["bash", "-c", command], env=env, capture_output=True, text=True, check=True,
        cwd=ROOT,
    )  # fmt: skip
    return [line.rstrip() for line in done.stdout.splitlines()]


def regenerate(text: str, env: dict[str, str]) -> str:
    """README text with every help block rewritten from the live help."""
    lines = text.splitlines(keepends=True)
    for block in reversed(parse(text)):
        if block.kind != "help":
            continue
        (cmd,) = commands(block)
        fence = lines[block.line - 1]
        indent = fence[: len(fence) - len(fence.lstrip())]
        new = [f"{indent}$ {cmd.command}\n"]
        new += [f"{indent}{line}\n" if line else "\n" for line in help_output(cmd.command, env)]
        lines[block.line : block.line + len(block.lines)] = new
    return "".join(lines)


def rewrite_outputs(text: str, outcomes: list[Outcome]) -> str:
    """README text with every compared command's shown output replaced by what it printed
    (a shown output ending in ``...`` keeps its length and its ``...``)."""
    lines = text.splitlines(keepends=True)
    printed = [(cmd, got) for o in outcomes for cmd, got in o.printed]
    for cmd, got in sorted(printed, key=lambda p: p[0].line, reverse=True):
        assert cmd.shown is not None
        first = cmd.line + cmd.command.count("\n")  # 0-based index of the first shown line
        head = lines[cmd.line - 1]
        indent = head[: head.index("$ ")]
        new = got
        if cmd.shown and cmd.shown[-1] == "...":
            new = [*got[: len(cmd.shown) - 1], "..."]
        lines[first : first + len(cmd.shown)] = [
            f"{indent}{line}\n" if line else "\n" for line in new
        ]
    return "".join(lines)


def main() -> None:
    """`python tests/readme_blocks.py`: rewrite README.md's help blocks from the live help;
    with ``--outputs``, also run every `run` block in order (as the test does) and rewrite
    the outputs they show with what they print. Review the change with `git diff README.md`:
    a rewritten output is a claim about the twin."""
    import argparse
    import tempfile

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--outputs", action="store_true", help="rewrite the shown outputs too")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp) / "readme"
        env = prepare(cwd)
        old = README.read_text(encoding="utf-8")
        new = regenerate(old, env)
        if args.outputs:
            outcomes = [run_block(b, cwd, env) for b in parse(new) if b.kind in ("run", "file")]
            new = rewrite_outputs(new, outcomes)
    what = "help blocks" + (" and shown outputs" if args.outputs else "")
    if new != old:
        README.write_text(new, encoding="utf-8")
        print(f"README.md: {what} rewritten from the live twin")
    else:
        print(f"README.md: {what} already match the live twin")


if __name__ == "__main__":
    main()
