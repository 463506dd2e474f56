"""The ``twin`` command line, run as a real subprocess."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import besides_absent_functions

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"


def twin(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "twin", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def run_json(tmp: Path, *args: str) -> dict[str, object]:
    p = twin("run", "--hours", "2", "--json", "--out", tmp, *args)
    assert p.returncode == 0, p.stderr
    doc: dict[str, object] = json.loads(p.stdout)
    return doc


def test_same_seed_same_ledger_other_seed_other_ledger(tmp_path: Path) -> None:
    a = run_json(tmp_path / "a", "--seed", "7")
    b = run_json(tmp_path / "b", "--seed", "7")
    c = run_json(tmp_path / "c", "--seed", "8")
    assert a["ledger_sha256"] == b["ledger_sha256"]
    assert a["records"] == b["records"]
    assert a["ledger_sha256"] != c["ledger_sha256"]
    for key in ("scenario", "seed", "start", "end", "records", "wall_seconds", "machines", "kpis"):
        assert key in a
    assert a["start"] == "2026-03-02T10:00:00+01:00"
    assert a["end"] == "2026-03-02T12:00:00+01:00"
    machines = a["machines"]
    assert isinstance(machines, dict) and len(machines) == 600
    first = machines["A-001"]
    assert {"meters", "hopper_level", "downtime_seconds"} <= set(first)
    assert "total_coin_in" in first["meters"]
    kpis = a["kpis"]
    assert isinstance(kpis, dict)
    for key in (
        "spins",
        "coin_in_cents",
        "coin_out_cents",
        "hold_percent",
        "hand_pays",
        "hopper_fills",
        "staff_jobs",
        "utilisation",
    ):
        assert key in kpis
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["ledger_sha256"] == a["ledger_sha256"]
    v = twin(
        "ledger",
        "verify",
        tmp_path / "a" / "ledger.sqlite",
        "--expect-head",
        str(a["ledger_sha256"]),
    )
    assert v.returncode == 0, v.stderr
    assert "OK" in v.stdout


def test_existing_ledger_needs_force(tmp_path: Path) -> None:
    run_json(tmp_path, "--seed", "3")
    p = twin("run", "--hours", "1", "--out", tmp_path)
    assert p.returncode == 2
    assert "--force" in p.stderr and "Traceback" not in p.stderr
    assert twin("run", "--hours", "1", "--out", tmp_path, "--force").returncode == 0


def test_tampered_ledger_fails_verify_naming_the_row(tmp_path: Path) -> None:
    doc = run_json(tmp_path, "--seed", "5")
    db = tmp_path / "ledger.sqlite"
    con = sqlite3.connect(db)
    seq, body = con.execute(
        "SELECT seq, body FROM records WHERE kind = 'bill_accepted' ORDER BY seq LIMIT 1"
    ).fetchone()
    con.execute(
        "UPDATE records SET body = ? WHERE seq = ?",
        (body.replace('"bill_cents":', '"bill_cents":1'), seq),
    )
    con.commit()
    con.close()
    p = twin("ledger", "verify", db)
    assert p.returncode == 1
    assert f"seq={seq}" in p.stdout + p.stderr
    # one row deleted from a fresh copy
    run_json(tmp_path / "d", "--seed", "5")
    db2 = tmp_path / "d" / "ledger.sqlite"
    con = sqlite3.connect(db2)
    con.execute("DELETE FROM records WHERE seq = 100")
    con.commit()
    con.close()
    p = twin("ledger", "verify", db2)
    assert p.returncode == 1
    assert "seq=100" in p.stdout + p.stderr
    assert doc["records"]


BROKEN = [
    ("count = 80", 'count = "eighty"', "floor.banks[0].count"),
    ("max_wait_minutes = 5.0", "max_wait_minutes = 5.0\nmax_wiat = 1", "patrons.max_wiat"),
    (
        "hopper_capacity_coins = 20000",
        "hopper_capacity_coins = -5",
        "floor.banks[0].hopper_capacity_coins",
    ),
    ('game = "games/video-5reel.toml"', 'game = "games/no-such-game.toml"', "floor.banks[0].game"),
]


@pytest.mark.parametrize(("old", "new", "key"), BROKEN)
def test_broken_scenario_exits_2_naming_the_key(tmp_path: Path, old: str, new: str, key: str):
    text = (SCENARIOS / "default.toml").read_text()
    assert old in text
    bad = tmp_path / "bad.toml"
    (tmp_path / "games").symlink_to(SCENARIOS / "games")
    bad.write_text(text.replace(old, new, 1))
    p = twin("run", bad, "--hours", "1", "--out", tmp_path / "out")
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert str(bad) in lines[0] and key in lines[0] and "expected" in lines[0]
    assert not (tmp_path / "out" / "ledger.sqlite").exists()


def test_bad_arguments_exit_2_with_one_line() -> None:
    for args in (
        ["run", "--hours", "-1"],
        ["run", "--hours", "1", "--days", "1"],
        ["run", "--seed", "x"],
        ["par", "no-such.toml"],
    ):
        p = twin(*args)
        assert p.returncode == 2, args
        assert len(p.stderr.strip().splitlines()) == 1, p.stderr
        assert "Traceback" not in p.stderr


def test_par_prints_the_exact_return() -> None:
    p = twin("par", SCENARIOS / "games" / "video-5reel.toml", "--json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["rtp_exact"] == "61427015113245/65355334549504"
    text = twin("par", SCENARIOS / "games" / "video-5reel.toml").stdout
    assert "93.9893" in text


def test_controls_lists_every_catalogued_control() -> None:
    p = twin("controls", "--json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["total"] == 149 and len(doc["controls"]) == 149
    assert doc["implemented"] >= 38
    row = next(c for c in doc["controls"] if c["id"] == "MT98.S1.7b")
    assert row["status"] == "implemented" and row["test"].startswith("tests/test_controls.py")
    text = twin("controls").stdout
    assert "of 149)" in text


def _floor_with(tmp: Path, extra: str) -> Path:
    text = (ROOT / "tests" / "data" / "controls.toml").read_text()
    text = text.replace('"../../scenarios/games/', f'"{SCENARIOS}/games/')
    path = tmp / "floor.toml"
    path.write_text(text + "\n" + extra)
    return path


def test_strict_exits_1_on_findings_and_writes_them(tmp_path: Path) -> None:
    floor = _floor_with(
        tmp_path, '[[inject]]\nkind = "hand_pay_without_inspector"\nmachine = "A-001"\n'
    )
    p = twin("run", floor, "--strict", "--json", "--out", tmp_path / "out")
    assert p.returncode == 1, p.stderr
    summary = json.loads(p.stdout)
    assert summary["compliance"]["by_control"]["MT98.S1.10a"] == 1
    every = json.loads((tmp_path / "out" / "findings.json").read_text())
    findings = besides_absent_functions(every)  # the floor has no door, no AML function
    assert {f["control"] for f in findings} == {"MT98.S1.10a", "MT98.S1.8"}
    first = findings[0]
    assert first["subjects"][0] == "A-001" and first["evidence"]
    # the findings are ledger records too, chained like the rest
    con = sqlite3.connect(tmp_path / "out" / "ledger.sqlite")
    rows = con.execute("SELECT count(*) FROM records WHERE kind = 'finding'").fetchone()
    assert rows[0] == len(every)
    assert twin("ledger", "verify", tmp_path / "out" / "ledger.sqlite").returncode == 0
    # without the injection the test floor still lacks a door check and an AML function,
    # which --strict fails (issue 25); a whole casino (the default scenario) passes it
    (tmp_path / "c").mkdir()
    bare = twin("run", _floor_with(tmp_path / "c", ""), "--strict", "--out", tmp_path / "bare")
    assert bare.returncode == 1, bare.stderr
    bare_found = json.loads((tmp_path / "bare" / "findings.json").read_text())
    assert besides_absent_functions(bare_found) == []  # (and R46 where a buy-in needed it)
    n = len(bare_found)
    assert f"twin: --strict: {n} finding(s) ({n} control(s) breached);" in bare.stderr
    whole = twin("run", "--hours", "1", "--strict", "--out", tmp_path / "whole")
    assert whole.returncode == 0, whole.stderr
    assert "twin: --strict: passed;" in whole.stderr and "not exercised" in whole.stderr


@pytest.mark.parametrize(
    ("override", "key"),
    [
        ("min_rtp = 0.9\nmin_rpt = 0.9", "ruleset.overrides.min_rpt"),
        ('min_rtp = "high"', "ruleset.overrides.min_rtp"),
        ("min_rtp = 1.5", "ruleset.overrides.min_rtp"),
    ],
)
def test_bad_override_exits_2_naming_the_key(tmp_path: Path, override: str, key: str) -> None:
    text = (ROOT / "tests" / "data" / "controls.toml").read_text()
    text = text.replace('"../../scenarios/games/', f'"{SCENARIOS}/games/')
    old = next(line for line in text.splitlines() if line.startswith("max_prize_cents = "))
    text = text.replace(old, f"{old}\n{override}")
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    p = twin("run", bad, "--out", tmp_path / "out")
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and key in lines[0] and str(bad) in lines[0], p.stderr


def test_unknown_injection_exits_2(tmp_path: Path) -> None:
    floor = _floor_with(tmp_path, '[[inject]]\nkind = "gremlins"\nmachine = "A-001"\n')
    p = twin("run", floor, "--out", tmp_path / "out")
    assert p.returncode == 2
    assert "inject[0].kind" in p.stderr and "hand_pay_without_inspector" in p.stderr


def test_run_from_outside_the_repository_uses_the_packaged_default(tmp_path: Path) -> None:
    p = twin("run", "--hours", "0.25", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    out = tmp_path / "out" / "default-seed1"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["scenario"] == "default" and summary["sim_seconds"] == 900.0
    assert sorted(x.name for x in (tmp_path / "out").iterdir()) == ["default-seed1"]


def test_out_that_cannot_be_written_is_one_line_and_exit_2(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    for out in (blocker, blocker / "below"):
        p = twin("run", SCENARIOS / "tiny.toml", "--hours", "0.1", "--out", out)
        assert p.returncode == 2, p.stderr
        assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
        assert "--out" in p.stderr
    assert blocker.read_text() == "not a folder"


def test_a_file_where_the_side_folder_goes_is_one_line_and_kept(tmp_path: Path) -> None:
    """``<out>.incomplete`` is where a run writes; a file of the user's there is not ours to
    delete: one line naming the folder asked for and that file, exit 2, the file kept."""
    side = tmp_path / "run.incomplete"
    side.write_text("mine")
    p = twin("run", SCENARIOS / "tiny.toml", "--hours", "0.1", "--out", tmp_path / "run")
    assert p.returncode == 2, p.stderr
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    assert f"{tmp_path / 'run'}: --out:" in p.stderr and str(side) in p.stderr
    assert side.read_text() == "mine" and not (tmp_path / "run").exists()


def test_an_unwritable_out_is_named_as_asked_not_by_its_side_folder(tmp_path: Path) -> None:
    """Where the side folder cannot be made (``/proc`` takes no new folders, even from
    root), the message names the ``--out`` the user gave."""
    p = twin("run", SCENARIOS / "tiny.toml", "--hours", "0.1", "--out", "/proc/twin-run")
    assert p.returncode == 2, p.stderr
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    assert p.stderr.startswith("twin: error: /proc/twin-run: --out:"), p.stderr


def test_a_broken_scenario_touches_no_output(tmp_path: Path) -> None:
    out = tmp_path / "run"
    p = twin("run", SCENARIOS / "tiny.toml", "--out", out, "--set", "floor.banks[0].count=0")
    assert p.returncode == 2
    assert "floor.banks[0].count" in p.stderr and "--set" in p.stderr
    assert not out.exists() and not tmp_path.joinpath("run.incomplete").exists()


def test_ctrl_c_leaves_a_folder_marked_incomplete(tmp_path: Path) -> None:
    import signal
    import time

    out = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-m", "twin", "run", "--days", "30", "--out", str(out)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    ledger = tmp_path / "run.incomplete" / "ledger.sqlite"
    deadline = time.monotonic() + 120
    while not ledger.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)  # some of the run is done
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert not out.exists()
    marker = (tmp_path / "run.incomplete" / "INCOMPLETE").read_text()
    assert "Stopped: KeyboardInterrupt at simulation time" in marker
    v = twin("ledger", "verify", ledger)
    assert v.returncode == 3, v.stdout + v.stderr


# -- issue 33: the run folder is the twin's alone ---------------------------------------------


def _one_line(p: subprocess.CompletedProcess[str], code: int = 2) -> str:
    assert p.returncode == code, p.stderr
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr, p.stderr
    return p.stderr


@pytest.mark.parametrize("force", [(), ("--force",)], ids=["plain", "force"])
def test_a_folder_of_yours_is_never_emptied_even_with_force(
    tmp_path: Path, force: tuple[str, ...]
) -> None:
    """``mkdir -p mine/deep && echo precious > mine/keep.txt && twin run --out mine`` used to
    exit 0 with ``mine/`` holding only the run's files: now one line naming what is there."""
    mine = tmp_path / "mine"
    (mine / "deep").mkdir(parents=True)
    (mine / "keep.txt").write_text("precious\n")
    p = twin("run", SCENARIOS / "tiny.toml", "--hours", "0.1", "--out", mine, *force)
    err = _one_line(p)
    assert f"twin: error: {mine}: --out:" in err and "keep.txt" in err and "deep/" in err
    assert (mine / "keep.txt").read_text() == "precious\n" and (mine / "deep").is_dir()
    assert sorted(x.name for x in mine.iterdir()) == ["deep", "keep.txt"]
    assert not (tmp_path / "mine.incomplete").exists()


def test_an_empty_folder_of_yours_takes_the_run(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    p = twin("run", SCENARIOS / "tiny.toml", "--hours", "0.1", "--out", mine)
    assert p.returncode == 0, p.stderr
    assert (mine / "ledger.sqlite").is_file() and (mine / ".twin-run.json").is_file()


def test_a_file_you_added_to_a_run_folder_is_kept_and_named(tmp_path: Path) -> None:
    """The README exports ``records.csv`` into the default folder; a rerun used to delete
    it. Now the rerun (and a rerun with ``--force``) refuses, naming it, and keeps it."""
    tiny = SCENARIOS / "tiny.toml"
    first = twin("run", tiny, "--hours", "0.1", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    folder = tmp_path / "out" / "tiny-seed1"
    again = twin("run", tiny, "--hours", "0.1", cwd=tmp_path)  # the default folder: replaced
    assert again.returncode == 0, again.stderr
    (folder / "records.csv").write_text("seq,t,kind\n")
    for extra in ((), ("--force",), ("--out", folder, "--force")):
        p = twin("run", tiny, "--hours", "0.1", *extra, cwd=tmp_path)
        err = _one_line(p)
        assert "--out" in err and "records.csv" in err and "ledger.sqlite" not in err, err
        assert (folder / "records.csv").read_text() == "seq,t,kind\n"
        assert (folder / "ledger.sqlite").is_file()


@pytest.mark.parametrize("out", [".", "..", "", "above"])
def test_out_that_holds_the_working_directory_is_refused_before_the_run(
    tmp_path: Path, out: str
) -> None:
    """``--out .``, ``..`` and ``""`` were tracebacks (with ``..``, after the whole run)."""
    here = tmp_path / "above" / "here"
    here.mkdir(parents=True)
    (here / "notes.txt").write_text("mine")
    target = str(tmp_path / "above") if out == "above" else out
    p = twin("run", SCENARIOS / "tiny.toml", "--hours", "0.1", "--out", target, cwd=here)
    err = _one_line(p)
    assert err.startswith("twin: error: --out: expected a folder for the run's files alone")
    assert repr(target) in err and p.stdout == ""
    assert sorted(x.name for x in tmp_path.rglob("*")) == ["above", "here", "notes.txt"]


# -- issue 33: the smaller points --------------------------------------------------------------


def test_twin_without_arguments_prints_the_help_and_exits_0() -> None:
    for args in ((), ("ledger",)):
        p = twin(*args)
        assert p.returncode == 0 and p.stderr == "", p.stderr
        assert p.stdout.startswith(f"Usage: twin {' '.join(args)}".rstrip() + " [OPTIONS]")


def test_a_usage_error_has_one_prefix() -> None:
    """It read ``twin: error: twin run: No such option``."""
    p = twin("run", "--no-such-option")
    err = _one_line(p)
    assert err.startswith("twin: error: run: No such option"), err
    assert "twin run:" not in err


def test_the_top_level_help_cuts_no_description() -> None:
    p = twin("--help")
    assert p.returncode == 0, p.stderr
    commands = p.stdout.split("Commands:", 1)[1]
    assert "..." not in commands, commands
    for name in ("run", "ledger", "sweep", "smib", "controls"):
        assert f"\n  {name} " in commands


def test_every_option_has_a_description() -> None:
    """``sweep --replications``, ``sweep --confidence`` and ``smib emulate --seed`` had none."""
    import click

    from twin.cli import cli

    def walk(cmd: click.Command, path: str) -> list[str]:
        bare = [f"{path} {o.opts[0]}" for o in cmd.params
                if isinstance(o, click.Option) and not o.help]  # fmt: skip
        if isinstance(cmd, click.Group):
            for name, sub in cmd.commands.items():
                bare += walk(sub, f"{path} {name}")
        return bare

    assert walk(cli, "twin") == []


@pytest.mark.parametrize("args", [("--days", "nan"), ("--hours", "inf"), ("--hours", "-inf")])
def test_a_length_that_is_not_finite_names_the_option_not_a_set(args: tuple[str, str]) -> None:
    """``--days nan`` was reported as ``--set scenario.duration_hours=nan``."""
    p = twin("run", SCENARIOS / "tiny.toml", *args)
    err = _one_line(p)
    assert f"'{args[0]}'" in err and args[1] in err and "--set" not in err, err


def test_an_unknown_key_set_on_the_command_line_names_the_override() -> None:
    """``--set foo.bar=4`` blamed the scenario file, which has no ``foo``."""
    p = twin("run", SCENARIOS / "tiny.toml", "--set", "foo.bar=4")
    err = _one_line(p)
    assert err.startswith("twin: error: command line (--set foo.bar=4): foo: expected no such key")
    assert "tiny.toml" not in err


# -- shipped files by name (issue 33) -------------------------------------------------------


def test_shipped_scenarios_games_and_tables_run_by_name_from_any_folder(tmp_path: Path) -> None:
    """``twin run singapore``, ``twin par video-5reel``, ``twin table punto-banco-8deck`` from a
    folder with no scenarios/ of its own; ``twin scenarios`` lists them; a mistyped name is
    one line naming the shipped ones, exit 2."""
    listed = json.loads(twin("scenarios", "--json", cwd=tmp_path).stdout)
    assert {r["name"] for r in listed["scenarios"]} >= {"default", "tiny", "singapore", "aml"}
    assert {r["name"] for r in listed["games"]} >= {"video-5reel", "classic-3reel"}
    assert {r["name"] for r in listed["tables"]} == {
        "blackjack-infinite-s17-das", "punto-banco-8deck", "roulette-single-zero",
    }  # fmt: skip
    got = twin("run", "tiny", "--hours", "0.25", "--out", tmp_path / "t", cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    assert json.loads((tmp_path / "t" / "summary.json").read_text())["scenario"] == "tiny"
    par = twin("par", "video-5reel", cwd=tmp_path)
    assert par.returncode == 0 and par.stdout.startswith("PAR sheet video-5reel: Wild Frontier")
    table = twin("table", "punto-banco-8deck", cwd=tmp_path)
    assert table.returncode == 0 and table.stdout.startswith("Punto banco (punto-banco-8deck)")
    typo = twin("run", "singapor", cwd=tmp_path)
    assert (typo.returncode, typo.stderr) == (
        2,
        "twin: error: singapor: expected a scenario file or the name of a shipped one (aml, "
        "default, large, sas, singapore, small, staffing, study, tiny), found 'neither'\n",
    )
    (tmp_path / "tiny").write_text("")  # a path that exists wins over a shipped name
    assert twin("run", "tiny", cwd=tmp_path).returncode == 2


def test_twin_controls_ends_with_its_totals(tmp_path: Path) -> None:
    """The README's `twin controls | tail -1` (issue 33): the totals are the last line."""
    from twin.compliance.catalog import coverage, render_controls_text
    from twin.compliance.registry import registry

    totals = render_controls_text(coverage(registry())).rstrip("\n").split("\n")[-1]
    assert totals.endswith("(of 149)")
    for args in (("controls",), ("controls", "--parts")):
        assert twin(*args, cwd=tmp_path).stdout.rstrip("\n").split("\n")[-1] == totals
    readme = (ROOT / "README.md").read_text()
    assert f"$ twin controls | tail -1\n{totals}\n" in readme


def test_without_a_terminal_a_run_prints_progress_lines(tmp_path: Path) -> None:
    """Issue 33: a run whose stderr is no terminal (a CI log) says how far it is, every
    TWIN_PROGRESS_SECONDS (default 15) seconds, with the rate and the time left; --no-progress
    silences it; a bad cadence is one line, exit 2."""
    import os
    import re

    env = dict(os.environ, TWIN_PROGRESS_SECONDS="0.000001")

    def run(*args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "twin", "run", "tiny", "--hours", "24", *args],
            cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env | extra,
        )  # fmt: skip

    got = run("--out", str(tmp_path / "a"))
    assert got.returncode == 0, got.stderr
    lines = [x for x in got.stderr.splitlines() if x.startswith("twin: tiny: ")]
    assert lines
    pattern = (
        r"twin: tiny: [\d.]+ of 24 sim-h \(\d+%\) in \d+ s, x[\d,]+ real time, about \d+ s left"
    )
    assert all(re.fullmatch(pattern, x) for x in lines), lines
    quiet = run("--out", str(tmp_path / "b"), "--no-progress")
    assert quiet.returncode == 0 and "sim-h" not in quiet.stderr
    bad = run("--out", str(tmp_path / "c"), TWIN_PROGRESS_SECONDS="soon")
    assert (bad.returncode, bad.stderr) == (
        2,
        "twin: error: environment: TWIN_PROGRESS_SECONDS: expected a number of seconds, "
        "found 'soon'\n",
    )
    assert not (tmp_path / "c").exists() and not (tmp_path / "c.incomplete").exists()


def test_a_run_that_cannot_fit_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    """Issue 33: a million days of the tiny floor would need a ledger of about 166 GB, and a
    bank of a billion machines is no floor: each is one line, exit 2, nothing written."""
    from twin import api
    from twin.sizes import estimate

    est = estimate(api.prepare("default", hours=24.0))
    assert (est.machines, round(est.ledger_bytes / 2**20, 1)) == (600, 25.5)
    days = twin("run", "tiny", "--days", "1e6", "--out", tmp_path / "d", cwd=tmp_path)
    assert days.returncode == 2
    assert days.stderr.startswith("twin: error: ") and days.stderr.count("\n") == 1
    assert "expected a ledger the free space at" in days.stderr
    assert "found '1,000,000.0 days of 4 machines, a ledger of about 165.9 GB'" in days.stderr
    assert "--ignore-size-estimate" in days.stderr
    huge = twin("run", "tiny", "--set", "floor.banks[0].count=1000000000", cwd=tmp_path)
    assert (huge.returncode, huge.stderr) == (
        2,
        "twin: error: command line (--set floor.banks[0].count=1000000000): "
        "floor.banks[0].count: expected an integer from 1 to 20,000 (machines in one bank), "
        "found 1000000000\n",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    ok = twin("run", "tiny", "--hours", "0.1", "--ignore-size-estimate", "--out", tmp_path / "o",
              cwd=tmp_path)  # fmt: skip
    assert ok.returncode == 0, ok.stderr
