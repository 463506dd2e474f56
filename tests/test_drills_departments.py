"""The departments' drills (issue 32): a cage payout on a gaming cheque, an identification at
the door, a table fill, a suspicious transaction report. Each is played headless by a script
through the drill's own API (its steps go into the inbox as the departments' operator
commands) and scored from the attempt's ledger by the steps and the compliance engine's
findings; the drilled subject is the trigger record's (a cage window's cashier, a person, a
table, a patron), not a machine. The departments' operator hooks are off by default (the
shipped scenarios' ledger heads are unchanged: tests/test_ledger_heads.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest
from conftest import REPO

from twin.aml.actions import EvaluateCase, ReportSuspicion
from twin.cage.actions import PayCheque
from twin.door import Door
from twin.door.actions import AdmitEntrant, CheckId, RefuseEntrant
from twin.errors import InputError
from twin.ledger import read_rows
from twin.pit import Pit
from twin.pit.actions import FillTable, SignTableCard
from viz.app import Viewer, init_pygame
from viz.drill import (
    DRILLS,
    Attempt,
    DrillScreen,
    Score,
    find_drill,
    load_drill,
    play_script,
    start_attempt,
)

Script = list[tuple[str, Any]]

#: each drill's subject (the trigger record's field) and its right script
DRILLED = {
    "cheque-payout": "cashier",
    "door-identification": "person",
    "table-fill": "table",
    "suspicious-transaction-report": "patron",
}
RIGHT: dict[str, Script] = {
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


def _rows(ledger: Path, *kinds: str) -> list[tuple[int, float, dict[str, Any]]]:
    return [(s, t, json.loads(b)) for s, t, _k, b in read_rows(ledger, kinds=kinds)]


def _on_screen(name: str, script: Script, out: Path) -> tuple[Score, Attempt]:
    """An attempt played through the drill screen's keys, on a real (headless) surface."""
    attempt = start_attempt(find_drill(name), out=out)
    viewer = Viewer(attempt.source, (1280, 800))
    screen = DrillScreen(attempt)
    screen.attach(viewer)
    viewer.draw()
    sc = play_script(attempt, script, screen)
    viewer.draw()
    return sc, attempt


def _found(sc: Score) -> list[tuple[str, str]]:
    return [(m.what, m.clause) for m in sc.mistakes]


@pytest.mark.parametrize("name", sorted(DRILLED))
def test_the_right_steps_pass_with_100_points_and_exact_outcomes(name: str, tmp_path: Path) -> None:
    sc, attempt = _on_screen(name, RIGHT[name], tmp_path)
    spec = find_drill(name)
    assert spec.subject == DRILLED[name]
    assert sc.passed and sc.points == 100 and sc.mistakes == (), sc.summary_text()
    assert list(sc.steps_done) == [s.id for s in spec.steps]
    ledger = tmp_path / "ledger.sqlite"
    # the trigger is the attempt's first record, about the drilled subject
    (trigger,) = [d for _s, t, d in _rows(ledger, spec.trigger_kind) if t == sc.started_t]
    assert attempt.subject == trigger[spec.subject] != ""
    # every outcome's record is about the subject, after the trainee's command that made it
    ops = [(s, d) for s, _t, d in _rows(ledger, "command_accepted") if d["source"] == "operator"]
    assert len(ops) == sum(1 for what, _ in RIGHT[name] if what == "key")
    assert not _rows(ledger, "command_rejected")
    for o in spec.outcomes:
        hits = [
            (s, d)
            for s, t, d in _rows(ledger, o.kind)
            if t >= sc.started_t and all(d.get(k) == v for k, v in o.match.items())
        ]
        assert [d[spec.subject] for _s, d in hits] == [attempt.subject], o.id
        assert ops[0][0] < hits[0][0]
    # no finding of the compliance engine during the attempt is about the subject
    assert not [m for m in sc.shown if attempt.subject in m.text]
    saved = json.loads((tmp_path / "score.json").read_text())
    assert saved["points"] == 100 and saved["drill"] == name


def test_a_cheque_paid_out_on_the_cashiers_own_authority_is_a_finding_of_r41b(
    tmp_path: Path,
) -> None:
    """The cash goes out against the cheque with the paying cashier named as its authoriser
    (not a Chief Cashier): the floor pays as ordered, the compliance engine finds the payment
    out not properly authorised under reg 41(b): 25 points, the drill failed."""
    attempt = start_attempt(find_drill("cheque-payout"), out=tmp_path)
    cashier, patron = attempt.trigger_doc["cashier"], attempt.trigger_doc["patron"]
    attempt.perform(0)
    attempt.wait(30)
    attempt.source.put(PayCheque(patron, cashier, cashier))  # done badly
    attempt.wait(30)
    sc = play_script(attempt, [("key", "3")])
    assert list(sc.steps_done) == ["verify", "pay", "record"]
    assert _found(sc) == [("finding", "MT98.R41.b")]
    assert sc.points == 75 and not sc.passed
    (m,) = sc.mistakes
    assert m.title == "Authorised payments; control over liabilities and assets"
    (txn,) = [d for _s, _t, d in _rows(tmp_path / "ledger.sqlite", "cage_transaction")
              if d["method"] == "cheque"]  # fmt: skip
    assert (txn["cashier"], txn["authoriser"]) == (cashier, cashier)
    assert (
        m.text == f"payment out of {txn['cash_out_cents']} cents (buy_in) not properly authorised"
    )


def test_a_self_excluded_person_let_in_fails_on_regs_24_2_and_20_1(tmp_path: Path) -> None:
    """The document is checked and shows the person self-excluded, and the operator lets them
    in all the same: the refusal is missed (25), no refusal is recorded (20), and the engine
    finds the admission (24(2)) and the person in the gaming area (20(1)): 25 each."""
    attempt = start_attempt(find_drill("door-identification"), out=tmp_path)
    person = attempt.subject
    attempt.perform(0)
    attempt.wait(20)
    attempt.source.put(AdmitEntrant(person))
    attempt.wait(20)
    sc = play_script(attempt, [("key", "3")])
    assert list(sc.steps_done) == ["check", "log"]
    assert sorted(_found(sc)) == [
        ("finding", "MT98.R20.1"),
        ("finding", "MT98.R24.2"),
        ("missed", "MT98.R24.2"),
        ("outcome", "MT98.R24.2"),
    ]
    assert sc.points == 100 - 25 - 20 - 25 - 25 and not sc.passed
    texts = {m.clause: m.text for m in sc.mistakes if m.what == "finding"}
    # (24(2)'s checker takes an admission as identified only by a check in its instant: the
    # operator's admission comes 20 seconds after the check)
    assert (
        texts["MT98.R24.2"]
        == f"{person} (self excluded) went in at home with no id check at the door"
    )
    assert (
        texts["MT98.R20.1"] == f"{person} (self excluded) was admitted to the gaming area of home"
    )


def test_a_refusal_with_no_id_check_is_missed_out_of_order_and_outcomes_missing(
    tmp_path: Path,
) -> None:
    """Turning the person away without checking the document: the check is missed (25), the
    refusal comes before the check it must follow (10, 24(2)), no check is recorded (20) and
    the refusal gives no reason of the lists ("not_identified", not the outcome: 20)."""
    sc, _a = _on_screen("door-identification", [("key", "2"), ("wait", 20), ("key", "3")], tmp_path)
    assert _found(sc) == [
        ("order", "MT98.R24.2"),
        ("missed", "MT98.R45"),
        ("outcome", "MT98.R45"),
        ("outcome", "MT98.R24.2"),
    ]
    assert sc.points == 100 - 10 - 25 - 20 - 20 and not sc.passed
    (refused,) = [d for _s, t, d in _rows(tmp_path / "ledger.sqlite", "entry_refused")
                  if t >= sc.started_t]  # fmt: skip
    assert refused["reason"] == "not_identified"


def test_a_fill_left_off_the_table_card_is_found_at_the_count(tmp_path: Path) -> None:
    """The chips reach the tray with their slip, but the dealer never enters the fill on the
    table card: the step is missed (25) and the table's count (at the attempt's end) finds
    the card's fills short of those recorded, under reg 41(a) (25)."""
    sc, attempt = _on_screen(
        "table-fill", [("key", "1"), ("wait", 30), ("key", "2"), ("wait", 60)], tmp_path
    )
    assert _found(sc) == [("missed", "MT98.R41.a"), ("finding", "MT98.R41.a")]
    assert sc.points == 50 and not sc.passed
    ledger = tmp_path / "ledger.sqlite"
    (fill,) = [d for _s, t, d in _rows(ledger, "table_fill") if t >= sc.started_t]
    (count,) = [d for _s, t, d in _rows(ledger, "table_count") if t >= sc.started_t]
    assert (count["table"], count["fills_cents"], fill["amount_cents"]) == (
        attempt.subject,
        0,
        attempt.trigger_doc["amount_cents"],
    )
    finding = next(m for m in sc.mistakes if m.what == "finding")
    assert finding.title == "Proper books giving a true and fair view"
    assert f"the card's fills 0 / credits 0, those recorded {fill['amount_cents']} / 0" in (
        finding.text
    )


def test_a_card_signed_before_the_fill_is_refused_by_the_floor(tmp_path: Path) -> None:
    """Key 3 before key 2: nothing waits to be entered on the card, so the floor refuses the
    command (a command_rejected record with its reason: 5 points), and the right steps after
    it pass."""
    script: Script = [("key", "1"), ("key", "3"), ("wait", 30), ("key", "2"), ("wait", 30),
                      ("key", "3")]  # fmt: skip
    sc, attempt = _on_screen("table-fill", script, tmp_path)
    assert _found(sc) == [("refused", "-")] and sc.points == 95 and sc.passed
    (rejected,) = [d for _s, _t, d in _rows(tmp_path / "ledger.sqlite", "command_rejected")]
    assert rejected["command"] == "sign_table_card"
    assert rejected["reason"] == (
        f"no fill or credit of table {attempt.subject!r} waits to be entered on its table card"
    )


def test_a_suspicion_reported_to_a_sergeant_is_a_finding_of_r49_1(tmp_path: Path) -> None:
    """The police report goes to a Sergeant, below the ruleset's Inspector: the step is done,
    badly, and the engine finds it under reg 49(1) (25)."""
    attempt = start_attempt(find_drill("suspicious-transaction-report"), out=tmp_path)
    case = attempt.trigger_doc["case"]
    attempt.perform(0)  # review
    attempt.wait(30)
    attempt.perform(1)  # evaluate
    attempt.wait(30)
    attempt.source.put(ReportSuspicion(case, "police", "Sergeant"))
    attempt.wait(30)
    sc = play_script(attempt, [("key", "4")])
    assert list(sc.steps_done) == ["review", "evaluate", "police", "board"]
    assert _found(sc) == [("finding", "MT98.R49.1")]
    assert sc.points == 75 and not sc.passed
    (m,) = sc.mistakes
    assert m.text == f"case {case} reported to a police officer of rank 'Sergeant', below Inspector"


def test_the_board_told_before_the_police_is_out_of_order(tmp_path: Path) -> None:
    """The two reports are told apart by their arguments (recipient): the Board's report
    first is the board step, done before the police step (10)."""
    script: Script = [("key", "1"), ("wait", 30), ("key", "2"), ("wait", 30), ("key", "4"),
                      ("wait", 30), ("key", "3")]  # fmt: skip
    sc, _a = _on_screen("suspicious-transaction-report", script, tmp_path)
    assert list(sc.steps_done) == ["review", "evaluate", "board", "police"]
    assert _found(sc) == [("order", "MT98.R49.1")] and sc.points == 90 and not sc.passed


def test_the_floor_refuses_a_department_command_about_nobody_waiting(tmp_path: Path) -> None:
    attempt = start_attempt(find_drill("cheque-payout"), out=tmp_path)
    cashier = attempt.trigger_doc["cashier"]
    attempt.source.put(PayCheque("P999999", cashier, ""))
    attempt.source.put(FillTable("RL-1", 100, False))
    sc = play_script(attempt, [("wait", 5), *RIGHT["cheque-payout"]])
    assert _found(sc) == [("refused", "-"), ("refused", "-")] and sc.points == 90 and sc.passed
    reasons = [d["reason"] for _s, _t, d in _rows(tmp_path / "ledger.sqlite", "command_rejected")]
    assert reasons == [
        f"no cheque payout to 'P999999' waits (waiting: {attempt.trigger_doc['patron']})",
        "no fill of table 'RL-1' is asked for (asked: none)",
    ]


def test_the_readme_lists_the_departments_drills() -> None:
    readme = (DRILLS / "README.md").read_text(encoding="utf-8")
    for name in DRILLED:
        spec = find_drill(name)
        assert f"| `{name}` | {spec.procedure} |" in readme
        for clause in {s.clause for s in spec.steps} | {o.clause for o in spec.outcomes}:
            assert clause.removeprefix("MT98.") in readme


def _drill(tmp_path: Path, step: str = "", trigger: str = "") -> Path:
    path = tmp_path / "d.toml"
    path.write_text(
        '[drill]\nid="x"\ntitle="x"\nprocedure="x"\nscenario="tiny"\ntime_limit_minutes=5\n'
        f'[trigger]\nkind="table_fill_requested"\n{trigger}\n'
        f'[[step]]\nid="a"\ntext="a"\ncommand="fill_table"\nclause="MT98.R41.b"\n{step}\n'
    )
    return path


def test_the_drill_files_validate_with_one_clear_error(tmp_path: Path) -> None:
    spec = load_drill(
        _drill(tmp_path, 'args={credit=true}\nstaff={table="dealer"}', 'subject="table"')
    )
    assert (spec.subject, dict(spec.steps[0].args), dict(spec.steps[0].staff)) == (
        "table",
        {"credit": True},
        {"table": "dealer"},
    )
    assert load_drill(_drill(tmp_path)).subject == "machine"  # the default
    cases = (
        ('args="x"', "", "step[0].args", "a table of the command's arguments"),
        ("staff={table=1}", "", "step[0].staff", "a table of argument = role"),
        ("", 'subject="a table"', "trigger.subject", "the name of the trigger record's field"),
        # an argument the command does not take
        ("args={tabel=1}", "", "step[0].args", "arguments of fill_table (table, amount_cents"),
        # an argument the trigger record does not give (a cheque payout's patron, on a fill)
        ("", "", "step[1].args", "a value for pay_cheque's patron (the trigger record"),
    )
    for step, trigger, key, expected in cases:
        path = _drill(tmp_path, step, trigger)
        if key == "step[1].args":
            path.write_text(
                path.read_text()
                + '[[step]]\nid="b"\ntext="b"\ncommand="pay_cheque"\nclause="MT98.R41.b"\n'
            )
        with pytest.raises(InputError) as err:
            load_drill(path)
        assert key in str(err.value) and expected in str(err.value), str(err.value)
    for name in DRILLED:  # the shipped ones
        assert load_drill(DRILLS / f"{name}.toml").id == name


def test_a_bad_drill_file_is_one_line_and_exit_2_from_the_cli(tmp_path: Path) -> None:
    bad = _drill(tmp_path, "", 'subject="a table"')
    env = {**os.environ, "PYTHONPATH": str(REPO), "SDL_VIDEODRIVER": "dummy"}
    done = subprocess.run(
        [sys.executable, "-m", "viz", "--drill", str(bad)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "trigger.subject" in lines[0] and "Traceback" not in done.stderr


def test_every_department_hook_is_off_by_default() -> None:
    """Without a drill's setting no act waits for the operator: the shipped scenarios' heads
    (tests/test_ledger_heads.py) hold, and the settings default to none."""
    from twin.aml.section import AmlConfig
    from twin.cage.section import CageConfig
    from twin.door.section import EntranceConfig
    from twin.pit.section import TablesConfig

    for model in (AmlConfig, CageConfig, EntranceConfig, TablesConfig):
        assert model.model_fields["operator"].default == ()


# -- the departments' hooks, command by command (what the drills do not reach) ----------------


def _at_once(name: str, tmp_path: Path, *settings: str) -> Attempt:
    """The drill's casino, with ``settings`` added, handed over at once (no trigger)."""
    spec = find_drill(name)
    spec = replace(
        spec, settings=(*spec.settings, *settings), trigger_kind="start", machine="A-001"
    )
    return start_attempt(spec, out=tmp_path)


def _commands(ledger: Path) -> list[tuple[str, str]]:
    """(command, reason or "") of the operator's commands, in order."""
    return [
        (d["command"], d.get("reason", ""))
        for _s, _t, d in _rows(ledger, "command_accepted", "command_rejected")
        if d["source"] == "operator"
    ]


def test_a_credit_goes_back_to_the_cage_and_onto_the_card(tmp_path: Path) -> None:
    """``tables.operator = ["credit"]``: a tray holding over twice its float asks for a credit
    of the excess; more than the tray holds is refused; the credit made and entered on the
    card, the count at the end reconciles (no finding of reg 41(a))."""
    attempt = _at_once("table-fill", tmp_path, 'tables.operator=["credit"]')
    pit = attempt.casino.find(Pit)
    assert pit is not None
    t = pit.tables["RL-1"]
    t.tray = 50_000  # the players lost: the tray holds 2.5 times its float of 20,000
    pit._keep_tray(t)
    pit._keep_tray(t)  # asked once: a request waits until the operator makes it
    attempt.source.put(FillTable("RL-1", 60_000, True))
    attempt.source.put(FillTable("RL-1", 30_000, False))
    attempt.source.put(FillTable("RL-1", 30_000, True))
    attempt.source.put(SignTableCard("RL-1"))
    attempt.wait(10)
    assert (t.tray, t.credits) == (20_000, 30_000)
    attempt.finish()
    ledger = tmp_path / "ledger.sqlite"
    asked = [d for _s, _t, d in _rows(ledger, "table_fill_requested")]
    assert [(d["amount_cents"], d["credit"]) for d in asked] == [(30_000, True)]
    assert _commands(ledger) == [
        ("fill_table", "a credit of 60000 cents from a tray of 50000"),
        ("fill_table", "no fill of table 'RL-1' is asked for (asked: RL-1 (credit))"),
        ("fill_table", ""),
        ("sign_table_card", ""),
    ]
    (count,) = [d for _s, _t, d in _rows(ledger, "table_count")]
    assert (count["credits_cents"], count["closing_cents"]) == (30_000, 20_000)
    findings = [d for _s, t, d in _rows(ledger, "finding") if d["control"] == "MT98.R41.a"]
    assert findings == []


def test_the_door_refuses_for_its_own_reason_and_admits_once(tmp_path: Path) -> None:
    """With nobody listed: a clean check and a refusal is the door's own decision
    ("door_decision"); a second check of the same entrant, and any command about someone
    not waiting, is refused; an admitted entrant goes in (``entry_admitted``)."""
    attempt = _at_once("door-identification", tmp_path, "patrons.population.self_excluded_share=0")
    door = attempt.casino.find(Door)
    assert door is not None
    while len(door.waiting) < 2:
        attempt.wait(60)
    first, second = sorted(door.waiting, key=lambda p: door.waiting[p].visit)[:2]
    others = ", ".join(sorted(p for p in door.waiting if p != first))  # (delivered at once)
    for cmd in (CheckId(first), CheckId(first), RefuseEntrant(first), AdmitEntrant(first),
                CheckId(second), AdmitEntrant(second)):  # fmt: skip
        attempt.source.put(cmd)
    attempt.wait(5)
    attempt.finish()
    ledger = tmp_path / "ledger.sqlite"
    assert _commands(ledger) == [
        ("check_id", ""),
        ("check_id", f"{first}'s identity document was checked already"),
        ("refuse_entrant", ""),
        ("admit_entrant", f"{first!r} is not waiting at the door (waiting: {others})"),
        ("check_id", ""),
        ("admit_entrant", ""),
    ]
    refused = [d for _s, _t, d in _rows(ledger, "entry_refused") if d["person"] == first]
    admitted = [d for _s, _t, d in _rows(ledger, "entry_admitted") if d["person"] == second]
    assert [d["reason"] for d in refused] == ["door_decision"] and len(admitted) == 1


def test_the_reporting_officer_s_commands_are_checked(tmp_path: Path) -> None:
    """A report before the evaluation, a decision the desk does not know, a report on a case
    found not suspicious and a second report to the same recipient are refused, each with
    its reason; a case not waiting cannot be evaluated."""
    attempt = start_attempt(find_drill("suspicious-transaction-report"), out=tmp_path)
    case = attempt.trigger_doc["case"]
    for cmd in (
        ReportSuspicion(case, "police", "Inspector"),
        EvaluateCase(case, "maybe", "x"),
        EvaluateCase(case, "no_suspicion", "a first report: watched"),
        EvaluateCase(case, "suspicious", "x"),
        ReportSuspicion(case, "police", "Inspector"),
    ):
        attempt.source.put(cmd)
    attempt.wait(5)
    attempt.finish()
    assert _commands(tmp_path / "ledger.sqlite") == [
        ("report_suspicion", f"case {case!r} has not been evaluated by the Reporting Officer"),
        ("evaluate_case", "a decision 'suspicious' or 'no_suspicion', not 'maybe'"),
        ("evaluate_case", ""),
        ("evaluate_case", f"no report {case!r} waits for the Reporting Officer (waiting: none)"),
        (
            "report_suspicion",
            f"case {case} was evaluated no_suspicion: there is no suspicion to report",
        ),
    ]


def test_a_second_report_to_the_same_recipient_is_refused(tmp_path: Path) -> None:
    attempt = start_attempt(find_drill("suspicious-transaction-report"), out=tmp_path)
    case = attempt.trigger_doc["case"]
    for cmd in (
        EvaluateCase(case, "suspicious", "chips not won"),
        ReportSuspicion(case, "board_mllo", ""),
        ReportSuspicion(case, "board_mllo", ""),
        ReportSuspicion(case, "press", ""),
    ):
        attempt.source.put(cmd)
    attempt.wait(5)
    attempt.finish()
    assert _commands(tmp_path / "ledger.sqlite") == [
        ("evaluate_case", ""),
        ("report_suspicion", ""),
        ("report_suspicion", f"case {case} was reported to board_mllo already"),
        ("report_suspicion", "a recipient 'police' or 'board_mllo', not 'press'"),
    ]
