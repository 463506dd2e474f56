"""Issue 25: every control states one verdict per run, none over-claims, none reads the truth.

breached / checked (N observations) / not exercised (what it needed) / not applicable / not
implemented: the five add up to the regulation's catalogue; a control is never "checked" with
zero observations; ``summary.json``, the summary lines, ``twin controls --run`` and
``--strict`` use the same words and counts; no checker subscribes to a record of the twin's
ground truth.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import twin.aml.records
import twin.door.records  # noqa: F401  (registers the truth kinds they hold)
from twin import api
from twin.compliance.catalog import load_catalog
from twin.compliance.registry import control, registry
from twin.compliance.verdicts import VERDICTS, totals_line, verdict
from twin.records import kinds, truth_kinds

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "scenarios" / "tiny.toml"


def test_no_checker_subscribes_to_a_truth_record() -> None:
    """Checkers see only what the casino and the Board could see: the truth kinds are
    registered (launderers' acts, borrowed documents) and no checker reads any of them."""
    truth = truth_kinds()
    assert {"laundering_act", "document_borrowed"} <= truth
    readers = {cid: sorted(set(s.reads) & truth) for cid, s in registry().items()}
    assert {cid: r for cid, r in readers.items() if r} == {}


def test_every_kind_a_checker_reads_or_observes_is_a_record_kind() -> None:
    known = set(kinds())
    for cid, spec in registry().items():
        assert set(spec.reads) <= known, (cid, sorted(set(spec.reads) - known))
        assert set(spec.observes) <= set(spec.reads), cid


def test_a_control_cannot_observe_what_it_does_not_read_nor_read_a_kind_twice() -> None:
    with pytest.raises(ValueError, match="observes \\['b'\\], not read"):
        control("X.1", kind="runtime", title="t", reads=("a",), observes=("b",), test="t")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="reads a record kind twice"):
        control("X.2", kind="runtime", title="t", reads=("a", "a"), test="t")  # type: ignore[arg-type]


def test_the_verdict_rules() -> None:
    """Findings win; then the ruleset's inapplicability; then observations; else not
    exercised with what was needed."""
    v = verdict("C", findings=2, observations=0, not_applicable=None, needed="x")
    assert (v.status, v.findings) == ("breached", 2)
    v = verdict("C", findings=0, observations=5, not_applicable="off", needed="x")
    assert (v.status, v.why) == ("not_applicable", "off")
    v = verdict("C", findings=0, observations=5, not_applicable=None, needed="x")
    assert (v.status, v.observations) == ("checked", 5)
    v = verdict("C", findings=0, observations=0, not_applicable=None, needed="a record of y")
    assert (v.status, v.why) == ("not_exercised", "needed a record of y; none occurred")


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    out = tmp_path_factory.mktemp("verdicts") / "tiny"
    api.run(TINY, hours=1.0, out=out)
    return out, json.loads((out / "summary.json").read_text())


def test_the_five_verdicts_add_up_to_the_catalogue_and_none_over_claims(
    tiny_run: tuple[Path, dict[str, object]],
) -> None:
    _, doc = tiny_run
    c = doc["compliance"]
    assert isinstance(c, dict)
    verdicts = c["verdicts"]
    malta = [k for k in load_catalog().controls if k.startswith("MT98.")]
    assert list(verdicts) == malta  # catalogue order, every control once
    counts = {s: sum(1 for v in verdicts.values() if v["status"] == s) for s in VERDICTS}
    assert c["verdict_counts"] == counts
    assert sum(counts.values()) == c["controls_catalogued"] == len(malta)
    for cid, v in verdicts.items():
        if v["status"] == "checked":
            assert v["observations"] > 0 and v["findings"] == 0, cid
        if v["status"] == "breached":
            assert v["findings"] == c["by_control"][cid] > 0, cid
        if v["status"] in ("not_exercised", "not_applicable", "not_implemented"):
            assert v["why"], cid
        if v["status"] == "not_implemented":
            assert cid not in registry(), cid
    # the tiny casino has no door check, no AML function, no books and no employees' licences:
    # exactly the findings the regulation implies (one each, "no such function in this
    # casino"), nothing else
    assert {k: v["status"] for k, v in verdicts.items() if v["status"] == "breached"} == {
        "MT98.R8": "breached",
        "MT98.R41.a": "breached",
        "MT98.R45": "breached",
        "MT98.R48": "breached",
        "MT98.R50.1": "breached",
    }
    assert c["findings"] == 5
    # the tiny floor has no tables, cage or junkets, and no layout declares its gaming area:
    # their controls are not exercised (R20.1 used to say "checked" with nothing to check)
    for cid in ("MT98.R20.1", "MT98.R21.1", "MT98.R25.1", "MT98.R38.2", "MT98.R26"):
        assert verdicts[cid]["status"] == "not_exercised", cid
    # a floor with no linked progressive never exercises the link approvals
    assert verdicts["MT98.S1.2a"] == {
        "status": "not_exercised",
        "findings": 0,
        "observations": 0,
        "why": "needed a machine on a progressive link; none occurred",
    }
    # every machine installed is one observation of its registration (4 machines)
    assert verdicts["MT98.R28.3a"]["observations"] == 4


def _twin(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "twin", *args], cwd=cwd, capture_output=True, text=True, timeout=600
    )


def test_twin_controls_run_lists_each_verdict_with_the_same_counts(
    tiny_run: tuple[Path, dict[str, object]], tmp_path: Path
) -> None:
    out, doc = tiny_run
    c = doc["compliance"]
    assert isinstance(c, dict)
    got = _twin("controls", "--run", str(out), cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    lines = got.stdout.splitlines()
    assert lines[-1] == (
        f"tiny (seed 1, ruleset malta-1998): {c['controls_catalogued']} catalogued controls: "
        f"{totals_line(c['verdict_counts'])}"
    )
    n = c["verdict_counts"]["not_exercised"]
    assert f"not exercised ({n}):" in lines
    row = next(line for line in lines if line.lstrip().startswith("MT98.S1.2a "))
    assert row.endswith("needed a machine on a progressive link; none occurred")
    as_json = json.loads(_twin("controls", "--run", str(out), "--json", cwd=tmp_path).stdout)
    assert as_json["verdicts"] == c["verdicts"]


@pytest.mark.parametrize(
    ("where", "found"),
    [("nowhere", "no such folder"), ("empty", "no summary.json in it")],
)
def test_twin_controls_run_on_a_wrong_path_is_one_line_and_exit_2(
    tmp_path: Path, where: str, found: str
) -> None:
    (tmp_path / "empty").mkdir()
    got = _twin("controls", "--run", str(tmp_path / where), cwd=tmp_path)
    assert got.returncode == 2
    assert got.stderr.strip().splitlines() == [
        f"twin: error: {tmp_path / where}: --run: expected a run's folder or its "
        f"summary.json, found '{found}'"
    ]
