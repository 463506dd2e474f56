"""Drill scores count only the trainee's acts (issue 25): other machines' events during the
attempt are shown, not scored; a slip is signed after the payout it records; the tilt drill
starts only on a machine a patron is playing at. Played headless on real pygame surfaces,
every verdict read back from the attempt's ledger."""

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
from conftest import besides_absent_functions
from test_viz_drills import _play as play_on_screen

from twin.errors import InputError
from twin.ledger import read_rows
from viz.app import Viewer, init_pygame
from viz.drill import Score, find_drill, load_drill, play_script, score, start_attempt

Script = list[tuple[str, Any]]
JACKPOT_DONE_RIGHT: Script = [("key", "1"), ("wait", 20), ("key", "2"), ("wait", 720), ("key", "3")]
NOT_PAID = "was not paid and recorded within 0.25 hours"


@pytest.fixture(autouse=True)
def _pygame() -> None:
    init_pygame(headless=True)


def _rows(ledger: Path, *kinds: str) -> list[tuple[int, float, dict[str, Any]]]:
    return [(s, t, json.loads(b)) for s, t, _k, b in read_rows(ledger, kinds=kinds)]


def _play(name: str, script: Script, out: Path) -> tuple[Score, Viewer]:
    """An attempt played on a real surface, ending on its summary screen."""
    sc, viewer, _ = play_on_screen(name, script, out)
    return sc, viewer


def test_other_machines_jackpots_during_the_attempt_are_shown_not_scored(tmp_path: Path) -> None:
    """The trainee pays A-003's jackpot right, then the attempt runs on for 45 minutes: A-004
    and A-002 lock on jackpots, and A-003 locks again (a later episode); nobody pays them,
    and the compliance engine finds all three late under S1.8. None is the trainee's: the
    score stays 100, passed, and the three findings are listed as shown, not scored."""
    sc, viewer = _play("jackpot-hand-pay", [*JACKPOT_DONE_RIGHT, ("wait", 2700)], tmp_path)
    ledger = tmp_path / "ledger.sqlite"
    assert sc.passed, sc.summary_text()
    assert sc.points == 100 and sc.mistakes == ()
    assert [(m.what, m.clause) for m in sc.shown] == [("finding", "MT98.S1.8")] * 3
    assert [m.text for m in sc.shown] == [
        f"the hand pay on {m} {NOT_PAID}" for m in ("A-003", "A-004", "A-002")
    ]
    assert all(m.title.startswith("Jackpots, fills, short pays") for m in sc.shown)
    # from the ledger: the attempt was about A-003's first lock; every finding's evidence is
    # a later lock (A-003's second one, or another machine's)
    locks = [
        (s, t, d["machine"]) for s, t, d in _rows(ledger, "machine_locked") if t >= sc.started_t
    ]
    assert [m for _s, _t, m in locks] == ["A-003", "A-003", "A-004", "A-002"]
    # (the drill's floor has no door check or AML function: those findings come before the
    # attempt, one each, and are no part of it)
    findings = besides_absent_functions([d for _s, _t, d in _rows(ledger, "finding")])
    assert [d["subjects"] for d in findings] == [["A-003"], ["A-004"], ["A-002"]]
    pending = {s: (t, d["machine"]) for s, t, d in _rows(ledger, "machine_exception")}
    later = [pending[e] for d in findings for e in d["evidence"]]
    assert later == [(t, m) for _s, t, m in locks[1:]]
    # the saved score and the summary screen list them apart from the mistakes
    saved = json.loads((tmp_path / "score.json").read_text())
    assert saved["points"] == 100 and saved["mistakes"] == []
    assert [m["text"] for m in saved["shown"]] == [m.text for m in sc.shown]
    assert "shown, not scored: the hand pay on A-004" in sc.summary_text()
    shot = viewer.screenshot(tmp_path / "score.png")
    assert pygame.image.load(str(shot)).get_size() == (1280, 800)


def test_the_drilled_machines_own_late_hand_pay_is_still_scored(tmp_path: Path) -> None:
    """The same floor, the trainee slow on A-003 (the call after 17 minutes): A-003's finding
    is deducted; A-004's and A-002's, raised later in the attempt, are only shown."""
    sc, _viewer = _play(
        "jackpot-hand-pay", [("wait", 1020), ("key", "2"), ("wait", 3000)], tmp_path
    )
    assert not sc.passed
    assert [(m.what, m.text) for m in sc.mistakes if m.what == "finding"] == [
        ("finding", f"the hand pay on A-003 {NOT_PAID}")
    ]
    # two steps missed (25 each), A-003's finding (25), late (10)
    assert sc.points == 100 - 25 - 25 - 25 - 10
    assert {m.text for m in sc.shown} == {
        f"the hand pay on {m} {NOT_PAID}" for m in ("A-003", "A-004", "A-002")
    }
    assert len(sc.shown) == 3  # A-003's second lock, A-004, A-002


def test_signing_the_hand_pay_slip_before_paying_is_an_order_mistake(tmp_path: Path) -> None:
    """Verify, call, and sign the slip 30 seconds later, long before the attendant and the
    inspector pay the jackpot: the slip records a payout not yet made (S1.8), an order
    mistake of 10 points, and the drill is failed."""
    script: Script = [("key", "1"), ("wait", 20), ("key", "2"), ("wait", 30), ("key", "3")]
    sc, _viewer = _play("jackpot-hand-pay", [*script, ("wait", 720)], tmp_path)
    assert not sc.passed
    assert list(sc.steps_done) == ["verify", "call", "slip"]
    assert [(m.what, m.clause, m.text) for m in sc.mistakes] == [
        (
            "order",
            "MT98.S1.8",
            "'Sign the hand-pay slip; the inspector countersigns' was done before "
            "'The jackpot is paid by hand before an inspector'",
        )
    ]
    assert sc.points == 90
    # from the ledger: the slip's note comes before the hand_paid record of the machine
    ledger = tmp_path / "ledger.sqlite"
    (slip,) = [
        s
        for s, _t, d in _rows(ledger, "command_accepted")
        if d["command"] == "note" and ": slip:" in d["args"]
    ]
    (paid,) = [s for s, t, d in _rows(ledger, "hand_paid") if t >= sc.started_t]
    assert slip < paid


def test_the_slip_after_the_payout_is_no_mistake(tmp_path: Path) -> None:
    sc, _viewer = _play("jackpot-hand-pay", JACKPOT_DONE_RIGHT, tmp_path)
    ledger = tmp_path / "ledger.sqlite"
    (slip,) = [s for s, _t, d in _rows(ledger, "command_accepted") if ": slip:" in d["args"]]
    (paid,) = [s for s, t, d in _rows(ledger, "hand_paid") if t >= sc.started_t]
    assert paid < slip and sc.passed and sc.points == 100


def _playing_at(ledger: Path, machine: str, before_seq: int) -> str:
    """The patron whose session on ``machine`` is in progress just before ``before_seq``."""
    patron = ""
    for s, _t, d in _rows(ledger, "session_started", "patron_left"):
        if s >= before_seq or d["machine"] != machine:
            continue
        if d["kind"] == "session_started":
            patron = d["patron"]
        elif d["patron"] == patron:
            patron = ""
    return patron


def _trigger(ledger: Path, t: float, machine: str) -> tuple[int, dict[str, Any]]:
    (hit,) = [
        (s, d)
        for s, rt, d in _rows(ledger, "job_requested")
        if rt == t and d["machine"] == machine and d["job_kind"] == "repair"
    ]
    return hit


def test_tilt_during_play_starts_on_a_tilt_under_a_patron(tmp_path: Path) -> None:
    """The drill's floor is full: the tilt that starts the attempt is on a machine a patron
    is playing at (their session started, they have not left), read from the ledger."""
    attempt = start_attempt(find_drill("tilt-during-play"), out=tmp_path)
    ledger = tmp_path / "ledger.sqlite"
    sc = play_script(
        attempt, [("key", "1"), ("wait", 20), ("key", "2"), ("wait", 900), ("key", "3")]
    )
    seq, job = _trigger(ledger, attempt.started_t, attempt.machine)
    assert job["job_id"] == attempt.trigger_job
    patron = _playing_at(ledger, attempt.machine, seq)
    assert patron and patron == attempt.patron
    # the tilt itself, on that machine, at that instant
    assert any(
        s < seq and t == attempt.started_t and d["name"] == "general_tilt"
        for s, t, d in _rows(ledger, "machine_exception")
        if d["machine"] == attempt.machine
    )
    assert sc.passed and sc.points == 100, sc.summary_text()


def test_the_tilt_trigger_passes_over_a_tilt_at_an_empty_machine(tmp_path: Path) -> None:
    """On the quiet tiny floor (the drill's settings before issue 25) the first tilt, A-001 at
    10:10, has nobody at it: the drill does not start there, but at the first tilt with a
    patron playing (A-003, P000002's session)."""
    spec = find_drill("tilt-during-play")
    quiet = tuple(s for s in spec.settings if not s.startswith(("patrons.", "staff.timing")))
    attempt = start_attempt(replace(spec, settings=quiet), out=tmp_path)
    sc = play_script(attempt, [("key", "1")])
    ledger = tmp_path / "ledger.sqlite"
    repairs = [(s, t, d) for s, t, d in _rows(ledger, "job_requested") if d["job_kind"] == "repair"]
    before = [(s, d["machine"]) for s, t, d in repairs if t < attempt.started_t]
    assert before and before[0][1] == "A-001"
    assert all(_playing_at(ledger, m, s) == "" for s, m in before)  # nobody at them
    assert (attempt.machine, attempt.patron) == ("A-003", "P000002")
    seq, _job = _trigger(ledger, attempt.started_t, "A-003")
    assert _playing_at(ledger, "A-003", seq) == "P000002"
    assert sc.started_t == attempt.started_t > repairs[0][1]


def _drill_file(tmp_path: Path, step_extra: str, trigger_extra: str = "") -> Path:
    path = tmp_path / "d.toml"
    path.write_text(
        '[drill]\nid="x"\ntitle="x"\nprocedure="x"\nscenario="tiny"\ntime_limit_minutes=5\n'
        f'[trigger]\nkind="machine_locked"\n{trigger_extra}\n'
        f'[[step]]\nid="a"\ntext="a"\ncommand="note"\nclause="MT98.S1.8"\n{step_extra}\n'
        '[[outcome]]\nid="paid"\nkind="hand_paid"\ntext="paid"\nclause="MT98.S1.10a"\n'
    )
    return path


def test_after_and_patron_playing_are_read_and_checked(tmp_path: Path) -> None:
    spec = load_drill(_drill_file(tmp_path, 'after=["paid"]', "patron_playing=true"))
    assert spec.steps[0].after == ("paid",) and spec.trigger_patron_playing
    assert [o.id for o in spec.outcomes] == ["paid"]
    with pytest.raises(InputError, match=r"step\[0\]\.after"):
        load_drill(_drill_file(tmp_path, 'after=["slip"]'))
    with pytest.raises(InputError, match=r"trigger\.patron_playing"):
        load_drill(_drill_file(tmp_path, "", 'patron_playing="yes"'))
    drills = {d: find_drill(d) for d in ("jackpot-hand-pay", "progressive-jackpot", "hopper-fill")}
    for d in drills.values():
        (slip,) = [s for s in d.steps if s.id == "slip"]
        assert slip.clause == "MT98.S1.8" and len(slip.after) == 1
    assert find_drill("tilt-during-play").trigger_patron_playing


def test_time_waiting_for_the_floor_is_not_the_trainees(tmp_path: Path) -> None:
    """The slip must follow the payout (``after``), so from the trainee's previous act to the
    payout the trainee waits for the floor (the attendant walking, the machine paying): that
    time is shown, not held against the limit. A prompt trainee on a slow floor is not late;
    a slow trainee still is."""
    sc, _viewer = _play("jackpot-hand-pay", JACKPOT_DONE_RIGHT, tmp_path)
    ledger = tmp_path / "ledger.sqlite"
    acts = [t for _s, t, d in _rows(ledger, "command_accepted") if d["source"] == "operator"]
    (paid,) = [t for _s, t, _d in _rows(ledger, "hand_paid") if t >= sc.started_t]
    assert len(acts) == 3 and acts[1] < paid < acts[2]
    assert sc.waited_s == paid - acts[1]
    assert sc.time_taken_s == acts[2] - sc.started_t
    own = sc.time_taken_s - sc.waited_s
    assert 0 < own < sc.time_taken_s
    spec = find_drill("jackpot-hand-pay")
    # a limit the whole attempt overruns but the trainee's own time does not: not late
    between = replace(spec, time_limit_s=(own + sc.time_taken_s) / 2)
    kept = score(between, ledger, sc.started_t, _machine(ledger, sc))
    assert kept.passed and not [m for m in kept.mistakes if m.what == "late"]
    assert f"(and {sc.waited_s / 60:.1f} waiting for the floor)" in kept.summary_text()
    # a limit below the trainee's own time: late, the message saying both times
    tight = replace(spec, time_limit_s=own / 2)
    late = score(tight, ledger, sc.started_t, _machine(ledger, sc))
    (m,) = [m for m in late.mistakes if m.what == "late"]
    assert m.text == (
        f"took {own / 60:.1f} minutes ({sc.waited_s / 60:.1f} more waiting for the floor), "
        f"the limit is {tight.time_limit_s / 60:.0f}"
    )
    assert not late.passed


def _machine(ledger: Path, sc: Score) -> str:
    """The drilled machine: the trigger's (the attempt's first hand-pay job)."""
    return str(next(d["machine"] for _s, t, d in _rows(ledger, "hand_paid") if t >= sc.started_t))
