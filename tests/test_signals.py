"""SIGINT and SIGTERM sent to a real ``twin run`` at many instants (issue 33).

Whatever the moment (start-up, mid-run, a ledger commit, the run's files being written, the
summary being printed), the run ends with one line on stderr and exit 130 (SIGINT) or 143
(SIGTERM), never a traceback, and leaves either nothing, or a folder marked INCOMPLETE whose
ledger verifies as incomplete (``twin ledger verify`` exit 3), or the complete run.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROC = Path("/proc")

#: (what to wait for, then how long): the handler in place (read from /proc: Python itself
#: starts first, and a signal before it has imported twin ends it as Python does), the side
#: folder's ledger (the run is under way), findings.json (the run's files being written),
#: the finished folder (the summary being printed)
INSTANTS = [
    ("handler", 0.0),
    ("handler", 0.5),
    ("ledger", 0.0),
    ("ledger", 0.1),
    ("ledger", 0.3),
    ("findings", 0.0),
    ("out", 0.0),
    ("out", 0.2),
]


def _handles_sigterm(pid: int) -> bool:
    """Whether the process has its own SIGTERM handler yet (Python alone has none)."""
    try:
        status = (PROC / str(pid) / "status").read_text()
    except OSError:
        return False
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) >> (signal.SIGTERM - 1) & 1)


def _interrupt(tmp: Path, sig: signal.Signals, wait_for: str, delay: float) -> dict[str, object]:
    out = tmp / f"{sig.name}-{wait_for}-{delay}"
    work = out.with_name(out.name + ".incomplete")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "twin",
            "run",
            str(ROOT / "scenarios" / "tiny.toml"),
            "--hours",
            "72",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    ready = {
        "handler": lambda: _handles_sigterm(proc.pid),
        "ledger": lambda: (work / "ledger.sqlite").exists(),
        "findings": lambda: (work / "findings.json").exists(),
        "out": lambda: out.exists(),
    }[wait_for]
    deadline = time.monotonic() + 120
    while not ready() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    time.sleep(delay)
    proc.send_signal(sig)  # nothing when the run has already ended
    stdout, stderr = proc.communicate(timeout=120)
    verdict = None
    if work.exists():
        v = subprocess.run(
            [sys.executable, "-m", "twin", "ledger", "verify", str(work / "ledger.sqlite")],
            cwd=ROOT, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        verdict = v.returncode
    return {
        "at": f"{wait_for}+{delay}s",
        "code": proc.returncode,
        "stderr": stderr,
        "stdout": stdout,
        "out": out,
        "work": work,
        "verify": verdict,
    }


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_at_any_instant_is_one_line_and_an_honest_folder(
    tmp_path: Path, sig: signal.Signals
) -> None:
    # the test waits for the handler through /proc: the project's machines and CI are Linux
    assert (PROC / "self" / "status").exists(), "this test reads /proc (Linux)"
    code = 128 + sig
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda i: _interrupt(tmp_path, sig, *i), INSTANTS))
    partial = 0
    for r in results:
        err, at, out, work = str(r["stderr"]), r["at"], Path(str(r["out"])), Path(str(r["work"]))
        assert "Traceback" not in err, (at, err)
        if r["code"] == 0:  # the signal came after the run had ended
            assert err == "" and (out / "summary.json").is_file() and not work.exists(), r
            continue
        assert r["code"] == code, r
        assert err.count("\n") == 1 and err.startswith(f"twin: interrupted ({sig.name})"), r
        if work.exists():
            partial += 1
            assert not out.exists(), r
            marker = (work / "INCOMPLETE").read_text()
            said = "KeyboardInterrupt" if sig == signal.SIGINT else "SIGTERM (terminated)"
            assert f"Stopped: {said}" in marker, (at, marker)
            assert r["verify"] == 3, r
            assert str(work) in err, r
        elif out.exists():  # stopped while its summary was printed: the run is complete
            assert (out / "summary.json").is_file() and not (out / "INCOMPLETE").exists(), r
            assert f"after the run was complete: it is in {out}" in err, r
            v = subprocess.run(
                [sys.executable, "-m", "twin", "ledger", "verify", str(out / "ledger.sqlite")],
                cwd=ROOT, capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            assert v.returncode == 0, v.stderr
        else:  # stopped at start-up: nothing was written
            assert err == f"twin: interrupted ({sig.name})\n", r
    assert partial >= 3, [(r["at"], r["code"], r["stderr"]) for r in results]


#: the studies: each writes its report folder through ``<out>.incomplete`` like a run
#: a study's progress line: ``k/n runs`` (aml), ``k of at most n pairs`` (compare), ``k of n``
#: (sweep)
PROGRESS = re.compile(r"(\d+)/(\d+) runs$|; (\d+) of (?:at most )?(\d+)(?: pairs)?(?:;|$)")

STUDIES = {
    "compare": [
        "compare", str(ROOT / "scenarios" / "tiny.toml"),
        "--proposed", str(ROOT / "scenarios" / "proposals" / "hand-pay-deadline-1h.toml"),
        "--replications", "4", "--hours", "48",
    ],
    "sweep": [
        "sweep", str(ROOT / "scenarios" / "tiny.toml"),
        "--grid", str(ROOT / "scenarios" / "proposals" / "hand-pay-deadline-grid.toml"),
        "--replications", "2", "--hours", "48",
    ],
    "aml": ["aml", "--replications", "3", "--days", "2"],
}  # fmt: skip


@pytest.mark.parametrize(
    ("study", "sig"),
    [
        # compare and sweep share one Dask pool; aml has its own worker pool
        ("compare", signal.SIGINT),
        ("sweep", signal.SIGTERM),
        ("aml", signal.SIGINT),
        ("aml", signal.SIGTERM),
    ],
    ids=["compare-SIGINT", "sweep-SIGTERM", "aml-SIGINT", "aml-SIGTERM"],
)
def test_a_study_stopped_mid_way_is_one_line_and_an_incomplete_folder(
    tmp_path: Path, sig: signal.Signals, study: str
) -> None:
    """``twin compare``, ``sweep`` and ``aml`` stopped while their replications run: one line,
    exit 130 or 143, no traceback, no report folder that looks complete (its work folder
    stays marked INCOMPLETE)."""
    out = tmp_path / "study"
    work = out.with_name(out.name + ".incomplete")
    proc = subprocess.Popen(
        [sys.executable, "-m", "twin", *STUDIES[study], "--out", str(out)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not work.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert proc.poll() is None, proc.communicate()
    time.sleep(1.0)  # the replications under way
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 128 + sig, (stdout, stderr)
    assert "Traceback" not in stderr, stderr
    # the stop is one line, the last; before it only the study's progress, a line a run it
    # finished (a run of the AML floor can end within the second waited), never all of them
    *progress, last = stderr.splitlines()
    assert stderr.endswith("\n") and last.startswith(f"twin: interrupted ({sig.name})"), stderr
    for line in progress:
        m = PROGRESS.search(line)
        assert line.startswith("twin: ") and m is not None, stderr
        done, total = (int(g) for g in m.groups() if g is not None)
        assert done < total, stderr
    assert not out.exists()
    assert (work / "INCOMPLETE").is_file()


def test_a_signal_during_a_finalizer_is_delivered_after_it_not_lost(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """An exception raised in a ``__del__`` is printed ("Exception ignored in ...", with a
    traceback) and dropped: a signal that lands in one (seen in CI: tqdm's, as a run ended)
    is delivered again just after it, and stops the process as any other."""
    import os

    from twin import signals

    restore = signals.install()
    try:

        class Finalized:
            def __del__(self) -> None:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.05)  # the handler runs in here, inside the finalizer

        with pytest.raises(signals.Interrupted) as stop:
            Finalized()  # collected at once
            time.sleep(2)  # the signal comes again, here
        assert stop.value.name == "SIGTERM"
        assert "Exception ignored" not in capfd.readouterr().err
    finally:
        restore()


def test_the_run_is_told_complete_as_its_folder_is_put_in_place(tmp_path: Path) -> None:
    """``api.run(on_committed=...)`` is called with the finished folder as it is put in place,
    with signals deferred: the CLI's "interrupted after the run was complete" then holds for a
    signal at any instant after the commit (CI once saw a SIGTERM land between the run's
    return and the CLI noting its folder, which said only "interrupted")."""
    from twin import api
    from twin.outputs import MARKER

    seen: list[tuple[Path, bool, bool]] = []

    def told(out: Path) -> None:
        seen.append((out, (out / "summary.json").is_file(), (out / MARKER).exists()))

    out = tmp_path / "run"
    api.run(ROOT / "scenarios" / "tiny.toml", hours=0.5, out=out, on_committed=told)
    assert seen == [(out, True, False)]
    seen.clear()
    api.run(ROOT / "scenarios" / "tiny.toml", hours=0.5, out=out, replace=True, sink_process=True,
            on_committed=told)  # fmt: skip
    assert seen == [(out, True, False)]


def test_a_signal_as_the_command_returns_is_one_line_naming_the_finished_run(
    tmp_path: Path,
) -> None:
    """A signal that lands as the command returns, after its run was put in place (CI saw
    it: "twin: interrupted (SIGTERM)" with nothing more, or, from the console script, a
    traceback), still says where the finished run is, in one line. The command here is a
    stand-in that finished a run and is signalled on its way out."""
    script = (
        "import os, signal\n"
        "from pathlib import Path\n"
        "from twin import cli\n"
        "def command(argv):\n"
        f"    cli.WRITTEN.append(Path({str(tmp_path / 'run')!r}))\n"
        "    os.kill(os.getpid(), signal.SIGTERM)  # handled as the command returns\n"
        "cli._main = command\n"
        "cli.main()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert (proc.returncode, proc.stdout) == (143, "")
    assert proc.stderr == (
        f"twin: interrupted (SIGTERM) after the run was complete: it is in {tmp_path / 'run'}\n"
    )
