"""Drills (issue 9): data files, played by scripted input (keys and clicks through the drill
screen, so into the inbox), scored from the attempt's ledger by the steps and the compliance
engine: a correct sequence passes, a wrong one fails with the expected findings."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from twin.errors import InputError
from twin.ledger import read_rows, verify
from twin.records import LIVE_LAG
from viz.app import Viewer, init_pygame
from viz.drill import (
    DRILLS,
    DrillScreen,
    all_drills,
    find_drill,
    load_drill,
    play_script,
    start_attempt,
)

Script = list[tuple[str, Any]]

CORRECT: dict[str, Script] = {
    "hopper-fill": [("key", "1"), ("wait", 600), ("key", "2"), ("wait", 30), ("key", "3")],
    "jackpot-hand-pay": [("key", "1"), ("wait", 20), ("key", "2"), ("wait", 720), ("key", "3")],
    "progressive-jackpot": [
        ("key", "1"), ("wait", 20), ("key", "2"), ("wait", 720), ("key", "3"), ("wait", 10),
        ("key", "4"),
    ],
    "door-opening": [
        ("key", "1"), ("wait", 20), ("key", "2"), ("wait", 60), ("key", "3"), ("wait", 20),
        ("key", "4"), ("wait", 10), ("key", "5"),
    ],
    "tilt-during-play": [("key", "1"), ("wait", 20), ("key", "2"), ("wait", 900), ("key", "3")],
    "drop-collection": [("key", "1"), ("wait", 300), ("key", "2"), ("wait", 20), ("key", "3")],
    # issue 32: the departments' drills (tests/test_drills_departments.py)
    "cheque-payout": [("key", "1"), ("wait", 30), ("key", "2"), ("wait", 30), ("key", "3")],
    "door-identification": [("key", "1"), ("wait", 20), ("key", "2"), ("wait", 20), ("key", "3")],
    "table-fill": [("key", "1"), ("wait", 30), ("key", "2"), ("wait", 30), ("key", "3")],
    "suspicious-transaction-report": [
        ("key", "1"), ("wait", 30), ("key", "2"), ("wait", 30), ("key", "3"), ("wait", 30),
        ("key", "4"),
    ],
}  # fmt: skip


@pytest.fixture(autouse=True)
def _pygame() -> None:
    init_pygame(headless=True)


def _play(name: str, script: Script, out: Path) -> tuple[Any, Viewer, DrillScreen]:
    attempt = start_attempt(find_drill(name), out=out)
    viewer = Viewer(attempt.source, (1280, 800))
    screen = DrillScreen(attempt)
    screen.attach(viewer)
    viewer.draw()
    sc = play_script(attempt, script, screen)
    viewer.draw()
    return sc, viewer, screen


def test_every_drill_is_a_file_listed_in_the_readme() -> None:
    drills = all_drills()
    assert {d.id for d in drills} == set(CORRECT)
    readme = (DRILLS / "README.md").read_text(encoding="utf-8")
    for d in drills:
        assert d.path.stem == d.id
        assert f"| `{d.id}` | {d.procedure} |" in readme
        for step in d.steps:
            assert step.clause.removeprefix("MT98.") in readme


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_a_correct_sequence_passes(name: str, tmp_path: Path) -> None:
    sc, _viewer, _screen = _play(name, CORRECT[name], tmp_path)
    assert sc.passed, sc.summary_text()
    assert sc.points == 100 and sc.mistakes == ()
    assert list(sc.steps_done) == [s.id for s in find_drill(name).steps]
    saved = json.loads((tmp_path / "score.json").read_text())
    assert saved["passed"] and saved["drill"] == name
    assert verify(tmp_path / "ledger.sqlite").status == "intact"
    # every step the operator took is a command in the attempt's ledger
    ops = [
        json.loads(b)
        for _s, _t, _k, b in read_rows(tmp_path / "ledger.sqlite", kinds=("command_accepted",))
    ]
    assert len([d for d in ops if d["source"] == "operator"]) == len(CORRECT[name]) - sum(
        1 for what, _ in CORRECT[name] if what == "wait"
    )


def test_a_drill_numbers_its_findings_at_the_next_batch(tmp_path: Path) -> None:
    """A drill is scored on the findings of its attempt: they are numbered a batch after they
    are found (LIVE_LAG), as in the viewer, not an hour of batches later."""
    attempt = start_attempt(find_drill("hopper-fill"), out=tmp_path)
    assert attempt.casino.bus.lag == LIVE_LAG == 1
    attempt.source.close()


def _found(sc: Any) -> set[tuple[str, str]]:
    return {(m.what, m.clause) for m in sc.mistakes}


def test_a_slow_jackpot_hand_pay_fails_with_the_findings_of_s1_8(tmp_path: Path) -> None:
    """Nobody verifies the win, the call comes after 17 minutes, no slip is signed: the
    compliance engine finds the hand pay not paid within the (drill's) 15 minutes."""
    sc, viewer, _ = _play(
        "jackpot-hand-pay", [("wait", 1020), ("key", "2"), ("wait", 720)], tmp_path
    )
    assert not sc.passed
    assert _found(sc) == {
        ("missed", "MT98.S1.10a"),
        ("missed", "MT98.S1.8"),
        ("finding", "MT98.S1.8"),
        ("late", "-"),
    }
    finding = next(m for m in sc.mistakes if m.what == "finding")
    assert "not paid and recorded within 0.25 hours" in finding.text
    assert finding.title.startswith("Jackpots, fills, short pays")
    shot = viewer.screenshot(tmp_path / "score.png")
    assert pygame.image.load(str(shot)).get_size() == (1280, 800)


def test_a_door_opened_before_its_reason_and_left_open_fails(tmp_path: Path) -> None:
    sc, _v, _s = _play("door-opening", [("key", "2"), ("wait", 30), ("key", "1")], tmp_path)
    assert not sc.passed
    assert _found(sc) == {
        ("order", "MT98.S1.18"),
        ("missed", "MT98.S1.4c"),
        ("missed", "MT98.S1.18"),
        ("outcome", "MT98.S1.4c"),
    }
    assert [m.what for m in sc.mistakes].count("missed") == 3


def test_a_fill_slip_signed_before_the_call_fails_on_order(tmp_path: Path) -> None:
    """The slip is signed before the call (the steps' order) and so before the fill it
    records (its ``after``, S1.8): two order mistakes, and the count is missed."""
    sc, _v, _s = _play("hopper-fill", [("key", "3"), ("key", "1"), ("wait", 600)], tmp_path)
    assert not sc.passed
    assert _found(sc) == {("order", "MT98.S1.7b"), ("order", "MT98.S1.8"), ("missed", "MT98.S1.7b")}
    assert sc.points == 100 - 10 - 10 - 25


def test_the_drop_team_is_called_by_the_operator(tmp_path: Path) -> None:
    """The drop waits for the operator: the attendant and the inspector the operator called
    (step 1, an ``assign_job`` through the inbox) empty it, the inspector witnessing."""
    sc, _v, _s = _play("drop-collection", CORRECT["drop-collection"], tmp_path)
    assert sc.passed
    rows = {
        k: [json.loads(b) for _s, _t, _k, b in read_rows(tmp_path / "ledger.sqlite", kinds=(k,))]
        for k in ("job_requested", "job_started", "money_removed")
    }
    (drop,) = [d for d in rows["job_requested"] if d["job_kind"] == "drop_collection"]
    assert drop["mode"] == "operator"
    (started,) = [d for d in rows["job_started"] if d["job_id"] == drop["job_id"]]
    assert started["by"] == "operator"
    team = dict(zip(started["roles"], started["members"], strict=True))
    assert {(d["staff"], d["witness"]) for d in rows["money_removed"]} == {
        (team["attendant"], team["inspector"])
    }


def test_a_drop_counted_with_no_team_called_fails_on_r36(tmp_path: Path) -> None:
    """Counting and recording without calling the drop team: the call is missed and the drop
    is never emptied, both against reg 36 (and no money moved, so no finding)."""
    sc, _v, _s = _play("drop-collection", [("key", "2"), ("wait", 300), ("key", "3")], tmp_path)
    assert not sc.passed
    assert _found(sc) == {("missed", "MT98.R36"), ("outcome", "MT98.R36")}
    assert sc.points == 100 - 25 - 20
    assert not list(read_rows(tmp_path / "ledger.sqlite", kinds=("money_removed",)))


def test_an_outsider_emptying_another_machines_drop_is_shown_not_scored(
    tmp_path: Path,
) -> None:
    """The operator's steps are right, but on a second machine someone not acting for the
    licensee empties the drop (an injected violation): the compliance engine's reg 36
    finding is about A-002, not the drilled machine nor the trainee's acts, so it is shown
    (cited by control id and title), never deducted. (Issue 9 failed the attempt on it;
    issue 25: drills score only the trainee's acts.)"""
    spec = find_drill("drop-collection")
    spec = replace(
        spec,
        settings=(
            *spec.settings,
            "floor.banks[0].count=2",
            'inject=[{kind="drop_by_outsider", machine="A-002"}]',
        ),
    )
    attempt = start_attempt(spec, out=tmp_path)
    assert attempt.machine == "A-001"  # the drop that waits for the operator
    sc = play_script(attempt, CORRECT["drop-collection"])
    assert sc.passed, sc.summary_text()
    assert list(sc.steps_done) == ["call", "count", "record"]
    assert sc.mistakes == () and sc.points == 100
    findings = list(sc.shown)
    assert findings and {(m.what, m.clause) for m in findings} == {("finding", "MT98.R36")}
    assert {m.title for m in findings} == {"Only the licensee's people remove money from machines"}
    assert all("of A-002: not the licensee's employee" in m.text for m in findings)
    saved = json.loads((tmp_path / "score.json").read_text())
    assert saved["mistakes"] == [] and len(saved["shown"]) == len(findings)


def test_a_second_call_is_refused_by_the_floor(tmp_path: Path) -> None:
    script: Script = [("key", "1"), ("key", "2"), ("key", "2"), ("wait", 900), ("key", "3")]
    sc, _v, _s = _play("tilt-during-play", script, tmp_path)
    assert sc.passed  # a refused command costs points, it does not fail the drill
    assert _found(sc) == {("refused", "-")} and sc.points == 95


def test_steps_are_taken_by_mouse_too(tmp_path: Path) -> None:
    attempt = start_attempt(find_drill("door-opening"), out=tmp_path)
    viewer = Viewer(attempt.source, (1280, 800))
    screen = DrillScreen(attempt)
    screen.attach(viewer)
    viewer.draw()
    for i in range(5):
        viewer.handle(
            pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=screen.rows[i].center)
        )
        attempt.wait(15)
    viewer.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_f, unicode="f"))
    assert attempt.score is not None and attempt.score.passed


def test_a_bad_drill_file_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(
        '[drill]\nid="x"\ntitle="x"\nprocedure="x"\nscenario="tiny"\ntime_limit_minutes=5\n'
        '[[step]]\nid="a"\ntext="a"\ncommand="dance"\nclause="MT98.R36"\n'
    )
    with pytest.raises(InputError, match=r"step\[0\]\.command"):
        load_drill(bad)


def test_every_clause_a_drill_cites_is_a_catalogued_control() -> None:
    from twin.compliance.catalog import load_catalog

    controls = load_catalog().controls
    for d in all_drills():
        for clause in [s.clause for s in d.steps] + [o.clause for o in d.outcomes]:
            assert clause in controls, (d.id, clause)
