"""Nothing passes silently (issue 7): an injection that never took effect says so, a run says
how many of its ruleset's catalogued controls it checked, ``--strict`` fails a run that
checked nothing, and regulatory numbers are the ruleset's, not the scenario schema's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from twin import api
from twin.compliance.catalog import load_catalog
from twin.compliance.registry import registry
from twin.injections import InjectionIdle, InjectViolation
from twin.machines.misconduct import AWAITS, Misconduct
from twin.records import MemorySink

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "scenarios" / "tiny.toml"


def _tiny_with(tmp_path: Path, extra: str) -> Path:
    text = TINY.read_text(encoding="utf-8").replace(
        'game = "games/classic-3reel.toml"',
        f'game = "{ROOT / "scenarios" / "games" / "classic-3reel.toml"}"',
    )
    path = tmp_path / "tiny-plus.toml"
    path.write_text(text + extra, encoding="utf-8")
    return path


def _twin(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "twin", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


IDLE = """
[[inject]]
kind = "fill_miscounted"
machine = "A-001"
at_hours = 1.9
amount = 5
"""


def test_every_misconduct_says_what_it_waits_for() -> None:
    assert set(AWAITS) == set(Misconduct)


def test_an_injection_that_never_took_effect_is_reported_with_its_reason(
    tmp_path: Path,
) -> None:
    """A miscounted fill armed six minutes before the end, on a machine that is not filled
    again: the ledger and the summary say it never took effect, and why."""
    sink = MemorySink()
    result = api.run(_tiny_with(tmp_path, IDLE), sinks=[sink], chain=False)
    idle = [r for r in sink.records if isinstance(r, InjectionIdle)]
    assert [(r.machine, r.injection, r.t) for r in idle] == [("A-001", "fill_miscounted", 7200.0)]
    assert idle[0].reason == "armed, but A-001 never had its hopper filled before the run ended"
    assert [dict(i) for i in result.injections] == [
        {
            "source": "scenario",
            "number": 1,
            "t": 6840.0,
            "kind": "fill_miscounted",
            "machine": "A-001",
            "target": None,
            "status": "never took effect",
            "reason": idle[0].reason,
        }
    ]
    assert result.summary()["injections"] == [dict(i) for i in result.injections]


def test_an_injection_that_took_effect_and_one_refused_are_told_apart(tmp_path: Path) -> None:
    extra = '\n[[inject]]\nkind = "meter_skew"\nmachine = "A-002"\nmeter = "total_coin_in"\n'
    extra += "amount = 500\nat_hours = 1.0\n"
    sc = api.prepare(_tiny_with(tmp_path, extra))
    from twin.casino import Casino

    casino = Casino(sc, compliance=False)
    log = __import__("twin.injections", fromlist=["InjectionLog"]).InjectionLog()
    casino.attach(log)
    casino.start()
    casino.inbox.put(
        InjectViolation(kind="progressive_skim", machine="A-003", amount=5), source="desk"
    )
    casino.run()
    got = [(e["source"], e["kind"], e["machine"], e["status"], e["reason"]) for e in log.report()]
    assert got == [
        ("desk", "progressive_skim", "A-003", "rejected", "A-003 is on no progressive link"),
        ("scenario", "meter_skew", "A-002", "applied", None),
    ]


def test_an_injection_after_the_run_ends_is_an_input_error(tmp_path: Path) -> None:
    late = '\n[[inject]]\nkind = "meter_skew"\nmachine = "A-001"\nmeter = "total_coin_in"\n'
    late += "amount = 5\nat_hours = 2.0\n"
    path = _tiny_with(tmp_path, late)
    got = _twin("run", str(path), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert got.returncode == 2
    assert "Traceback" not in got.stderr
    assert (
        f"{path}: inject[0].at_hours: expected a time before the run ends (under 2 h), found 2.0"
        in got.stderr
    )
    assert not (tmp_path / "out").exists()


def test_strict_fails_a_run_whose_injection_never_took_effect(tmp_path: Path) -> None:
    path = _tiny_with(tmp_path, IDLE)
    got = _twin("run", str(path), "--out", str(tmp_path / "o"), "--strict", cwd=tmp_path)
    assert got.returncode == 1, got.stderr
    assert (
        "twin: injection fill_miscounted on A-001 (scenario #1) never took effect: armed, but "
        "A-001 never had its hopper filled before the run ended" in got.stderr
    )
    assert "1 injection(s) did not take effect" in got.stderr
    assert "injections: 1 never took effect" in got.stdout
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["injections"][0]["status"] == "never took effect"


def _catalogued(prefix: str) -> tuple[int, int]:
    ids = [c for c in load_catalog().controls if c.startswith(prefix + ".")]
    return len(ids), sum(1 for c in ids if c in registry())


def test_a_run_says_how_many_of_its_rulesets_controls_it_checked(tmp_path: Path) -> None:
    """Issue 25: "checked" means observed at least once; the tiny floor (no door, tables,
    cage, junkets) checks far fewer controls than are implemented, and says so."""
    result = api.run(TINY, hours=0.5, chain=False)
    c = result.summary()["compliance"]
    catalogued, implemented = _catalogued("MT98")
    assert (c["controls_catalogued"], c["controls_implemented"]) == (catalogued, implemented)
    counts = c["verdict_counts"]
    assert sum(counts.values()) == catalogued
    assert counts["not_implemented"] == catalogued - implemented
    assert c["controls_checked"] == counts["breached"] + counts["checked"]
    assert 0 < c["controls_checked"] < implemented  # the tiny floor leaves many unexercised
    from twin.compliance.verdicts import totals_line
    from twin.summary import render_summary

    text = render_summary(result.summary())
    assert (
        f"compliance (malta-1998): {catalogued} catalogued controls: {totals_line(counts)}; "
        in text
    )


def test_a_ruleset_with_no_implemented_control_says_so_and_strict_fails() -> None:
    """Both packaged rulesets have implemented controls now (SG10 since issue 11), so the
    case is a run's summary as a ruleset with none would leave it: a real run's, with the
    compliance block such a ruleset gives (nothing checked)."""
    from twin.cli.running import run_warnings, strict_failures

    summary = api.run(TINY, hours=0.25, chain=False).summary()
    assert run_warnings(summary) == []
    # the tiny casino has no door check, no AML function, no books (issue 25) and no
    # employees' licences (issue 28): --strict fails it
    assert strict_failures(summary) == [
        "5 finding(s) (5 control(s) breached); "
        f"{summary['compliance']['verdict_counts']['not_exercised']} control(s) not exercised "
        "(what they needed never happened)"
    ]
    summary["compliance"].update(
        ruleset="tomorrow-2027", controls_checked=0, controls_catalogued=12,
        controls_implemented=0, by_control={},
    )  # fmt: skip
    assert run_warnings(summary) == [
        "ruleset tomorrow-2027: none of its 12 catalogued controls is implemented yet, so "
        "this run checked nothing (see `twin controls`)"
    ]
    assert strict_failures(summary) == ["no control was checked"]


def test_the_singapore_ruleset_checks_its_own_controls_on_any_floor(tmp_path: Path) -> None:
    """Under singapore-2010 a floor with no premium room runs every SG10 checker (and none of
    Malta's), but none of them observes anything: the run says so (issue 25: it used to
    claim 14 of 14 checked) and --strict fails a run that checked nothing."""
    catalogued, implemented = _catalogued("SG10")
    assert implemented == catalogued == 14
    args = ["run", str(TINY), "--hours", "0.25", "--set", "ruleset.name=singapore-2010"]
    got = _twin(*args, "--out", str(tmp_path / "sg"), "--strict", cwd=tmp_path)
    assert got.returncode == 1, got.stderr
    assert (
        "compliance (singapore-2010): 14 catalogued controls: 0 breached, 0 checked clean, "
        "14 not exercised, 0 not applicable, 0 not implemented; 0 finding(s)" in got.stdout
    )
    assert (
        "twin: ruleset singapore-2010: none of its 14 implemented controls was exercised"
        in got.stderr
    )
    assert "twin: --strict: no control was checked" in got.stderr
    doc = json.loads((tmp_path / "sg" / "summary.json").read_text())
    assert set(doc["compliance"]["by_control"]) == {c for c in registry() if c.startswith("SG10.")}
    assert {v["status"] for v in doc["compliance"]["verdicts"].values()} == {"not_exercised"}


def test_meter_width_below_the_rulesets_minimum_is_a_finding_not_an_input_error(
    tmp_path: Path,
) -> None:
    """The scenario schema accepts any SAS meter width (1-18 digits); the regulation's minimum
    (six digits, First Schedule 4(a)) is the ruleset's, so a 4-digit machine is a finding."""
    result = api.run(TINY, hours=0.25, overrides={"floor.banks[0].meter_digits": 4}, chain=False)
    flagged = {f["control"] for f in result.findings}
    assert "MT98.S1.4a" in flagged
    relaxed = api.run(
        TINY,
        hours=0.25,
        overrides={"floor.banks[0].meter_digits": 4, "ruleset.overrides.min_meter_digits": 4},
        chain=False,
    )
    assert "MT98.S1.4a" not in {f["control"] for f in relaxed.findings}


def test_a_record_field_may_not_shadow_the_records_kind() -> None:
    from twin.records import Record, record

    with pytest.raises(TypeError, match=r"record 'shadowing': \['kind'\] are the record's own"):

        @record("shadowing")
        class Shadowing(Record):
            kind: str  # type: ignore[misc]
