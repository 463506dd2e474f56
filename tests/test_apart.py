"""Issue 31: at the end of a run with a sink process, the randomness audit is computed in a
fork while the other checkers finish (``twin.compliance.apart``); the ledger and the verdicts
are those of the checks in one process."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from test_controls import CASES, case_scenario

from twin import api
from twin.compliance.apart import ApartError
from twin.compliance.checks import randomness
from twin.compliance.checks.randomness import VERDICT
from twin.departments import load_scenario
from twin.sinkproc import SinkProcessError


@pytest.mark.parametrize("case_ids", [("S1.1b.ii", "S1.20f"), ("S1.1b.free", "S1.1e")])
def test_the_audit_apart_gives_the_ledger_and_verdicts_of_one_process(
    tmp_path: Path, case_ids: tuple[str, ...]
) -> None:
    """Floors whose randomness checkers and checkers after them (20(f) hold variance, 1(e)
    adaptation) report at the end of the run: the findings in the same order, the same head,
    the same observations."""
    sc = case_scenario(tmp_path, *(CASES[c] for c in case_ids))
    inline = api.run(sc)
    apart = api.run(sc, sink_process=True)
    assert (apart.records, apart.ledger_sha256) == (inline.records, inline.ledger_sha256)
    assert inline.compliance is not None and apart.compliance is not None
    times = {"wall_seconds": 0.0, "share_of_run": 0.0}  # what differs: where the time went
    # the verdicts, observation for observation
    assert replace(apart.compliance, **times) == replace(inline.compliance, **times)
    found = [(f["control"], f["message"]) for f in apart.findings]
    assert found == [(f["control"], f["message"]) for f in inline.findings]
    # the audit's findings come before those of the checkers that finished first apart
    controls = [c for c, _ in found]
    later = {"MT98.S1.20f", "MT98.S1.1e"} & set(controls)
    assert later and "MT98.S1.1b" in controls
    assert max(controls.index(c) for c in later) > controls.index("MT98.S1.1b")


def _fails(ctx: object) -> object:
    raise ZeroDivisionError("the audit failed")


def test_a_failure_apart_stops_the_run_with_its_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(randomness._Randomness, "finish_shared", (VERDICT, _fails))
    sc = load_scenario(Path(__file__).parent.parent / "scenarios" / "tiny.toml")
    with pytest.raises(SinkProcessError, match=r"(?s)ApartError.*ZeroDivisionError: the audit"):
        api.run(sc, sink_process=True)
    with pytest.raises(ApartError, match="ZeroDivisionError: the audit failed"):
        from twin.compliance.apart import compute_apart
        from twin.compliance.context import CheckContext

        compute_apart(None, [(VERDICT, _fails)])()  # type: ignore[arg-type]
    assert CheckContext  # the context type the jobs take
