"""The works on machines (First Schedule items 9, 11-14, 17) on the lifecycle's test floor:
each injected deviation gives exactly its control's finding, the clean floor exercises every
control and finds nothing, looser policies given as data (a work with ``approval = "none"``,
a ruleset that drops the approval of replacements), and the deadlines on Malta's calendar.

Checker-level cases the floor's workflows never make (a removal with no container emptied, a
record that misstates a field, a list refused to the inspector) feed records to the checker
directly.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from fed import Fed
from lifecycle_floor import WORKS, findings, run

from twin.casino import Casino
from twin.compliance.checks.conversions import (
    ConversionLodgedAtOnce,
    ConversionRecords,
    lodge_deadline,
)
from twin.compliance.checks.works import (
    GoodCondition,
    MoveApproved,
    RemovalContentsSecured,
    RepairLog,
)
from twin.compliance.findings import Finding
from twin.lifecycle.records import (
    BoardDecided,
    ConversionLodged,
    ConversionRecorded,
    MachineFaultFound,
    MachineRepaired,
    MachineReplaced,
    RepairLogged,
    RepairLogInspected,
)
from twin.machines.events import GamesPlayed, MachineRemoved, MoneyRemoved
from twin.machines.verification import ProgramConverted
from twin.records import MemorySink, Record
from twin.staff.records import ShiftStarted

MALTA = ZoneInfo("Europe/Malta")
GAME = "games/classic-3reel-90.toml"


@cache
def floor(key: str = "clean") -> tuple[Casino, MemorySink]:
    """One run of the floor per case (a run takes seconds; several tests read the same)."""
    return run(**RUNS[key])


@dataclass(frozen=True)
class Case:
    control: str
    subject: str
    message: str
    run: dict[str, Any] = field(default_factory=dict)


#: case id -> the control it proves, the finding's subject and its exact message
CASES: dict[str, Case] = {
    "S1.9a": Case("MT98.S1.9a", "B-010",
                  "machine B-010 was taken off the floor (replacement) with 1376 coins still in "
                  "its hopper: its contents were not secured",
                  {"inject": [{"kind": "removal_contents_unsecured", "machine": "B-010"}]}),
    "S1.9b": Case("MT98.S1.9b", "B-010",
                  "machine B-010's contents were secured at its removal (replacement) with no "
                  "witness: no Board inspector was present",
                  {"inject": [{"kind": "removal_without_inspector", "machine": "B-010"}]}),
    "S1.11a": Case("MT98.S1.11a", "B-005",
                   "machine B-005 was converted to classic-3reel-90 with no written approval of "
                   "the Board",
                   {"inject": [{"kind": "lifecycle_conversion_unapproved"}]}),
    "S1.11a-unlicensed": Case("MT98.S1.11a", "B-005",
                              "machine B-005 was converted to classic-3reel-90 by CONTRACTOR, "
                              "whom the Board never licensed to perform maintenance",
                              {"inject": [{"kind": "lifecycle_conversion_by_unlicensed"}]}),
    "S1.11b": Case("MT98.S1.11b", "B-005",
                   "the record of machine B-005's conversion to 16e6d1afdbeb (W02) leaves out "
                   "who made it and its date",
                   {"inject": [{"kind": "lifecycle_conversion_unrecorded"}]}),
    "S1.11c": Case("MT98.S1.11c", "B-005",
                   "machine B-005's conversion of 2026-03-04T14:21:41+01:00 was not lodged with "
                   "the Secretary by 2026-03-06T00:00:00+01:00 (1 working day(s))",
                   {"inject": [{"kind": "lifecycle_conversion_lodged_late"}]}),
    "S1.12": Case("MT98.S1.12", "M-ebd6c526",
                  "EPROM M-ebd6c526 was copied (M-ebd6c526-C001) by REPAIR-SHOP, neither a "
                  "licensed manufacturer nor the casino licensee",
                  {"inject": [{"kind": "lifecycle_media_copied_by_outsider"}]}),
    "S1.13": Case("MT98.S1.13", "T-004",
                  "machine T-004 was moved from terrace to main with no written approval of the "
                  "Board",
                  {"inject": [{"kind": "lifecycle_move_unapproved"}]}),
    # reg 31(1)'s second proviso finds the same replacement (MT98.R31.1.p2, another module's)
    "S1.13-replacement": Case("MT98.S1.13", "B-010",
                              "machine B-010 was replaced by B-R01 with no written approval of "
                              "the Board",
                              {"inject": [{"kind": "lifecycle_replacement_unapproved"}]}),
    "S1.14a": Case("MT98.S1.14a", "A-003",
                   "machine A-003 was repaired by CONTRACTOR, whom the Board never licensed to "
                   "perform maintenance",
                   {"inject": [{"kind": "lifecycle_maintenance_by_unlicensed"}]}),
    "S1.14b": Case("MT98.S1.14b", "T-002",
                   "the fault 'dim reel lamp' found on machine T-002 at 2026-03-02T14:00:00+01:00 "
                   "was not repaired within 2 day(s), the machine still in play",
                   {"inject": [{"kind": "lifecycle_fault_left_open"}],
                    "overrides": {"fault_repair_max_days": 2}}),
    "S1.14c": Case("MT98.S1.14c", "A-007",
                   "the reel-stepper controller of machine A-007, a part that may affect the "
                   "game outcome, was repaired with no written approval of the Board",
                   {"inject": [{"kind": "lifecycle_repair_unauthorised"}]}),
    "S1.14d": Case("MT98.S1.14d", "A-007",
                   "the repair of machine A-007's reel-stepper controller (W06) by "
                   "TEC-evening-01, a part that may affect the game outcome, is not on the "
                   "written list of repairs",
                   {"inject": [{"kind": "lifecycle_repair_unlogged"}]}),
    "S1.17": Case("MT98.S1.17", "A-010",
                  "machine A-010, whose approval the Board suspended, was played (927 games by "
                  "P000094) before its approval was restored",
                  {"inject": [{"kind": "lifecycle_suspension_ignored"}]}),
}  # fmt: skip
#: a replacement without approval is also reg 31(1)'s (another module): ours is asserted
ALSO = {"S1.13-replacement": frozenset({"MT98.R31.1.p2"})}
#: the controls this module proves for tests/test_controls.py (each proven in one place): items
#: 11(a) and 14(a) are also the findings of a program swap there (its CASES), so they count there
INJECTED_CONTROLS = frozenset(c.control for c in CASES.values()) - {"MT98.S1.11a", "MT98.S1.14a"}


def _works(**by_kind: dict[str, Any]) -> list[dict[str, Any]]:
    """The floor's works, the first of each kind in ``by_kind`` edited."""
    works = copy.deepcopy(WORKS)
    for kind, edit in by_kind.items():
        next(w for w in works if w["kind"] == kind and w.get("part") != "bill validator").update(
            edit
        )
    return works


RUNS: dict[str, dict[str, Any]] = {
    "clean": {},
    **{k: c.run for k, c in CASES.items()},
    "manual": {"manual": {"approved": ["eprom_copy_seal", "eprom_promo"]}},
    "swap": {"inject": [{"kind": "swap_game", "machine": "A-005", "game": GAME, "at_hours": 10}]},
    "none-conversion": {"works": _works(conversion={"approval": "none"})},
    "none-move": {"works": _works(move={"approval": "none"})},
    "none-repair": {"works": _works(repair={"approval": "none"})},
    "granted": {
        "works": _works(
            conversion={"approval": "granted"},
            move={"approval": "granted"},
            repair={"approval": "granted"},
            replacement={"approval": "granted"},
        )
    },
    "no-replacement-approval": {"overrides": {"replacement_needs_prior_approval": False}},
    "lodge-2-days": {
        "inject": [{"kind": "lifecycle_conversion_lodged_late"}],
        "overrides": {"conversion_lodge_business_days": 2},
    },
    "fault-7-days": {"inject": [{"kind": "lifecycle_fault_left_open"}]},
}


def _controls(sink: MemorySink) -> set[str]:
    return {f.control for f in findings(sink)}


# -- every control: its injection, the clean floor -------------------------------------------


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_injected_violation_is_found(case_id: str) -> None:
    case = CASES[case_id]
    _, sink = floor(case_id)
    found = findings(sink)
    assert _controls(sink) - ALSO.get(case_id, frozenset()) == {case.control}, [
        (f.control, f.message) for f in found
    ]
    mine = [f for f in found if f.control == case.control]
    assert [(f.subjects[0], f.message) for f in mine] == [(case.subject, case.message)]
    seqs = {r.seq for r in sink.records}
    for f in mine:
        assert f.evidence and set(f.evidence) <= seqs
        assert all(sink.records[s].seq == s for s in f.evidence)
        assert all(case.subject in repr(sink.records[s]) for s in f.evidence)


def test_the_clean_floor_is_silent_and_exercises_every_control() -> None:
    casino, sink = floor()
    assert findings(sink) == []
    assert casino.compliance is not None
    verdicts = {v.control: v for v in casino.compliance.verdicts()}
    for cid in INJECTED_CONTROLS:
        assert verdicts[cid].status == "checked", verdicts[cid]
        assert verdicts[cid].observations > 0, cid


# -- item 9 ---------------------------------------------------------------------------------


def test_a_manual_without_the_removal_procedure_approved_is_found() -> None:
    """The manual's approved procedures leave out machine_removal: both removals of the floor
    (the suspension's, the replacement's) are found, citing the procedure followed."""
    _, sink = floor("manual")
    found = findings(sink)
    assert {f.control for f in found} == {"MT98.S1.9a"}
    assert [(f.subjects, f.message) for f in found] == [
        (("A-010",), "machine A-010's contents were secured at its removal (suspended) under a "
                     "procedure that the Board has not approved (machine_removal)"),
        (("B-010",), "machine B-010's contents were secured at its removal (replacement) under "
                     "a procedure that the Board has not approved (machine_removal)"),
    ]  # fmt: skip
    for f in found:
        kinds = [sink.records[s].kind for s in f.evidence]
        assert kinds == ["procedure_followed", "machine_removed"]


# -- a checker fed records directly ---------------------------------------------------------


def _removed(fed: Fed, at: float, machine: str = "B-010") -> Record:
    return fed.feed(MachineRemoved, at, machine=machine, date="2026-03-04", reason="repair",
                    returning=True, asset_number="AN", registration="R", technician="TEC",
                    attendant="ATT", witness="INS", hopper_left=0)  # fmt: skip


def test_a_removal_with_no_container_emptied_is_found() -> None:
    fed = Fed(RemovalContentsSecured)
    fed.feed(MoneyRemoved, 10.0, machine="A-001", container="cash_box", coins=0, cents=500,
             staff="ATT", witness="INS", reason="machine_removed")  # fmt: skip
    _removed(fed, 20.0, "A-001")
    assert fed.found == []
    fed.feed(MoneyRemoved, 30.0, machine="B-010", container="hopper", coins=5, cents=5,
             staff="ATT", witness="INS", reason="hopper_emptied")  # fmt: skip
    _removed(fed, 40.0)
    assert fed.found == [
        (("B-010",), "machine B-010 was taken off the floor (repair) with its drop not emptied: "
                     "no container was emptied at the removal", (3, 4)),
    ]  # fmt: skip


# -- item 11 --------------------------------------------------------------------------------


def _converted(fed: Fed, at: float, **over: Any) -> Record:
    fields: dict[str, Any] = {
        "machine": "B-005", "from_signature": "aa" * 32, "to_signature": "bb" * 32,
        "game_id": "classic", "technician": "TEC-1", "inspector": "INS-1", "approval": "BA-0001",
    }  # fmt: skip
    fields.update(over)
    return fed.feed(ProgramConverted, at, **fields)


def test_an_inaccurate_conversion_record_is_found() -> None:
    fed = Fed(ConversionRecords)
    at = fed.t(datetime(2026, 3, 4, 23, 59, tzinfo=MALTA))
    _converted(fed, at)
    fed.feed(ConversionRecorded, at, machine="B-005", work="W02", from_signature="aa" * 32,
             to_signature="bb" * 32, technician="TEC-2", date="2026-03-05",
             approval="BA-0001")  # fmt: skip
    assert fed.found == [
        (("B-005",), "the record of machine B-005's conversion to bbbbbbbbbbbb (W02) misstates "
                     "who made it and its date", (1, 2)),
    ]  # fmt: skip


def test_a_conversion_with_no_record_is_found() -> None:
    fed = Fed(ConversionRecords)
    _converted(fed, 100.0)
    fed.end(200.0)
    assert fed.found == [(("B-005",), "machine B-005's conversion to classic has no conversion "
                                      "record", (1,))]  # fmt: skip


def _lodging(converted: datetime, lodged: datetime, days: int = 1) -> list[Any]:
    fed = Fed(ConversionLodgedAtOnce, {"conversion_lodge_business_days": days})
    at = fed.t(converted)
    _converted(fed, at)
    fed.feed(ConversionLodged, fed.t(lodged), machine="B-005", work="W02", converted_t=at)
    fed.end(fed.t(datetime(2026, 4, 30, tzinfo=MALTA)))
    return fed.found


def test_the_lodging_deadline_on_the_calendar() -> None:
    """ "Immediately" is the end of the next working day of Malta: a Friday evening's
    conversion by Monday's end; the day before St Joseph (Thursday 19 March 2026) by Friday's;
    before Freedom Day (Tuesday 31 March, after the change to summer time) by Wednesday's."""

    def at(*a: int) -> datetime:
        return datetime(*a, tzinfo=MALTA)  # type: ignore[misc]

    assert lodge_deadline(at(2026, 3, 6, 21, 30), 1, "MT") == at(2026, 3, 10)
    assert lodge_deadline(at(2026, 3, 6, 21, 30), 2, "MT") == at(2026, 3, 11)
    assert lodge_deadline(at(2026, 3, 18, 16, 0), 1, "MT") == at(2026, 3, 21)
    assert lodge_deadline(at(2026, 3, 30, 11, 0), 1, "MT") == at(2026, 4, 2)
    assert lodge_deadline(at(2026, 3, 30, 11, 0), 1, "MT").utcoffset().total_seconds() == 7200  # type: ignore[union-attr]
    # the checker holds the same instants
    assert _lodging(at(2026, 3, 6, 21, 30), at(2026, 3, 9, 23, 59)) == []
    assert _lodging(at(2026, 3, 6, 21, 30), at(2026, 3, 10, 9, 0)) == [
        (("B-005",), "machine B-005's conversion of 2026-03-06T21:30:00+01:00 was not lodged "
                     "with the Secretary by 2026-03-10T00:00:00+01:00 (1 working day(s))", (1,)),
    ]  # fmt: skip
    assert _lodging(at(2026, 3, 18, 16, 0), at(2026, 3, 20, 16, 0)) == []
    assert len(_lodging(at(2026, 3, 18, 16, 0), at(2026, 3, 21, 0, 1))) == 1
    assert _lodging(at(2026, 3, 30, 11, 0), at(2026, 4, 1, 23, 0)) == []
    assert _lodging(at(2026, 3, 30, 11, 0), at(2026, 4, 2, 0, 5)) == [
        (("B-005",), "machine B-005's conversion of 2026-03-30T11:00:00+02:00 was not lodged "
                     "with the Secretary by 2026-04-02T00:00:00+02:00 (1 working day(s))", (1,)),
    ]  # fmt: skip


def test_a_lodging_deadline_after_the_run_is_not_a_finding() -> None:
    """Two working days from Wednesday 4 March's conversion end on Saturday 7 March at 00:00,
    after the run: lodged a month later, it is no finding in it (one day: the finding)."""
    _, sink = floor("lodge-2-days")
    assert findings(sink) == []
    lodged = [r for r in sink.records if r.kind == "conversion_lodged"]
    assert lodged == []  # still to come, a month later


def test_a_program_swap_is_a_conversion_without_approval_and_an_alteration() -> None:
    """A program changed with no conversion (swap_game): a conversion without the Board's
    approval (11(a)) and an alteration of the machine's operation (14(a)), beside reg
    30(2)'s and 20(f)'s findings of the same machine."""
    _, sink = floor("swap")
    found = {f.control: f for f in findings(sink)}
    assert set(found) == {"MT98.R30.2", "MT98.S1.20f", "MT98.S1.11a", "MT98.S1.14a"}
    assert found["MT98.S1.11a"].message == (
        "machine A-005 runs program 16e6d1afdbeb (its meter reading), not the program "
        "ebd6c526ef2a it is approved to run, with no conversion recorded: a conversion without "
        "the Board's written approval"
    )
    assert found["MT98.S1.14a"].message == (
        "machine A-005's operation was altered: it runs program 16e6d1afdbeb (its meter "
        "reading), not the program ebd6c526ef2a it is approved to run"
    )
    for cid in ("MT98.S1.11a", "MT98.S1.14a"):
        assert [sink.records[s].kind for s in found[cid].evidence] == ["meters_read"]


# -- looser policies given as data ----------------------------------------------------------


@pytest.mark.parametrize(
    ("work", "control"),
    [("conversion", "MT98.S1.11a"), ("move", "MT98.S1.13"), ("repair", "MT98.S1.14c")],
)
def test_a_work_without_approval_given_as_data_is_found(work: str, control: str) -> None:
    _, sink = floor(f"none-{work}")
    found = findings(sink)
    assert [(f.control, f.message.endswith("with no written approval of the Board"))
            for f in found] == [(control, True)]  # fmt: skip
    assert not any(r.kind == "approval_requested" and r.matter == work for r in sink.records)


def test_works_approved_before_the_run_are_silent() -> None:
    """``approval = "granted"``: the Board's approvals at t = 0 are the ones the works name."""
    _, sink = floor("granted")
    assert findings(sink) == []
    named = {r.approval for r in sink.records
             if r.kind in ("program_converted", "machine_moved", "machine_repaired",
                           "machine_replaced") and r.approval}  # fmt: skip
    decided = {r.approval for r in sink.records if isinstance(r, BoardDecided) and r.t == 0.0}
    assert named and named <= decided


def test_a_ruleset_without_replacement_approval_finds_none() -> None:
    """``replacement_needs_prior_approval = false``: the replacement goes ahead at once, and
    item 13's control does not ask for the approval the ruleset dropped."""
    _, sink = floor("no-replacement-approval")
    assert findings(sink) == []
    rep = [r for r in sink.records if isinstance(r, MachineReplaced)]
    assert [(r.approval, r.t < 86400) for r in rep] == [("", True)]


def test_a_replacement_by_an_unregistered_machine_is_found() -> None:
    fed = Fed(MoveApproved)
    fed.feed(BoardDecided, 0.0, matter="replacement", decision="approved", machine="B-010",
             work="W04", approval="BA-0002", requested_t=0.0, in_writing=True, registered=40,
             reserve=2, reason="")  # fmt: skip
    fed.feed(MachineReplaced, 10.0, machine="B-R09", replaced="B-010", work="W04",
             source="reserve", approval="BA-0002", floor_machines=40,
             licensed_machines=40)  # fmt: skip
    assert fed.found == [(("B-010",), "machine B-010 was replaced by B-R09, a reserve machine "
                                      "the Board never registered", (2,))]  # fmt: skip


# -- item 14 --------------------------------------------------------------------------------


def test_a_fault_deadline_after_the_run_is_not_a_finding() -> None:
    """A fault left open for less than fault_repair_max_days (7) when the run ends is no
    finding; one whose machine is taken off the floor before the deadline is not in play."""
    _, sink = floor("fault-7-days")
    assert findings(sink) == []
    fed = Fed(GoodCondition, {"fault_repair_max_days": 1})
    fed.feed(MachineFaultFound, 0.0, machine="T-002", fault="dim lamp", member="TEC")
    _removed(fed, 3600.0, "T-002")
    fed.feed(MachineFaultFound, 7200.0, machine="T-003", fault="worn button", member="TEC")
    fed.end(3 * 86400.0)
    assert fed.found == [
        (("T-003",), "the fault 'worn button' found on machine T-003 at "
                     "2026-03-02T12:00:00+01:00 was not repaired within 1 day(s), the machine "
                     "still in play", (3,)),
    ]  # fmt: skip


def _repair_log() -> Fed:
    fed = Fed(RepairLog)
    fed.feed(ShiftStarted, 0.0, role="technician", shift="day", member="TEC-1",
             name="Ann Borg", employer="licensee")  # fmt: skip
    fed.feed(MachineRepaired, 100.0, machine="A-007", work="W06", part="reel controller",
             outcome_affecting=True, technician="TEC-1", approval="BA-1")  # fmt: skip
    return fed


def test_a_repair_log_entry_with_a_wrong_name_is_found() -> None:
    fed = _repair_log()
    fed.feed(RepairLogged, 100.0, machine="A-007", work="W06", part="reel controller",
             technician_name="TEC-1", date="2026-03-02")  # fmt: skip
    fed.end(200.0)
    assert fed.found == [
        (("A-007",), "the list's entry for the repair of machine A-007's reel controller (W06) "
                     "has wrong or no the name of who made it (made by Ann Borg on 2026-03-02)",
         (2, 3)),
    ]  # fmt: skip


def test_a_repair_log_refused_to_the_inspector_is_found() -> None:
    fed = _repair_log()
    fed.feed(RepairLogged, 100.0, machine="A-007", work="W06", part="reel controller",
             technician_name="Ann Borg", date="2026-03-02")  # fmt: skip
    fed.feed(RepairLogInspected, 200.0, inspector="INS-1", shown=True, entries=1)
    assert fed.found == []
    fed.feed(RepairLogInspected, 300.0, inspector="INS-2", shown=False, entries=0)
    fed.feed(RepairLogInspected, 400.0, inspector="INS-3", shown=True, entries=0)
    assert fed.found == [
        (("INS-2",), "inspector INS-2 asked for the list of outcome-affecting repairs and was "
                     "shown nothing", (5,)),
        (("INS-3",), "inspector INS-3 asked for the list of outcome-affecting repairs and was "
                     "shown 0 of its 1 entries", (6,)),
    ]  # fmt: skip


# -- item 17 --------------------------------------------------------------------------------


def test_the_session_under_way_at_a_suspension_may_finish() -> None:
    """A-010's patron in session at the notice (the suspension moved to 12 h, while P000883
    plays it) plays on to the end of the session (no finding); nobody else plays it until the
    approval is restored."""
    works = copy.deepcopy(WORKS)
    (susp,) = [w for w in works if w["kind"] == "suspension"]
    susp["at_hours"] = 12.0
    _, sink = run(works=works, hours=40.0)
    assert [f.control for f in findings(sink)] == []
    notice = next(r for r in sink.records if r.kind == "approval_suspended")
    restored = next(r for r in sink.records if r.kind == "approval_restored")
    during = [r for r in sink.records if isinstance(r, GamesPlayed) and r.machine == "A-010"
              and notice.t < r.t < restored.t]  # fmt: skip
    assert during and {r.patron for r in during} == {"P000883"}
    started = [r for r in sink.records if r.kind == "session_started" and r.machine == "A-010"
               and r.t < notice.t]  # fmt: skip
    assert started[-1].patron == "P000883"


def _evidence_kinds(sink: MemorySink, f: Finding) -> list[str]:
    return [sink.records[s].kind for s in f.evidence]


def test_the_suspension_finding_cites_the_notice_and_the_play() -> None:
    _, sink = floor("S1.17")
    (f,) = [f for f in findings(sink) if f.control == "MT98.S1.17"]
    assert _evidence_kinds(sink, f) == ["approval_suspended", "games_played"]
