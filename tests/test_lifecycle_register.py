"""The Board's register controls (Malta regs 30-35): every control's injected violation on
the lifecycle's test floor, the clean floor silent and exercised, looser policies given as
data, and the deadlines on the calendar (end of the day, the Board's hours, the Secretary's
next working day over a weekend and Malta's public holidays)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pytest
import simpy
from lifecycle_floor import WORKS, findings, run

from twin.clock import Clock
from twin.compliance.checks.register import end_of_day, notice_deadline
from twin.compliance.engine import ComplianceEngine
from twin.compliance.findings import Finding
from twin.compliance.ruleset import load_ruleset
from twin.lifecycle.records import (
    BoardDecided,
    CasinoLicenceEvent,
    CertificateIssued,
    CertificateProduced,
    DisposalNotified,
    LicenseeNotified,
    MachineDisposed,
    MachineReplaced,
    SpecsFurnished,
    StoreAudited,
)
from twin.machines.events import MachineInstalled
from twin.machines.facts import FloorFacts
from twin.machines.verification import ProgramConverted
from twin.records import MemorySink, Record, RecordBus

MINE = frozenset(
    {
        "MT98.R30.1a",
        "MT98.R30.1b",
        "MT98.R30.1c",
        "MT98.R30.1d",
        "MT98.R30.2",
        "MT98.R31.1",
        "MT98.R31.1.p1",
        "MT98.R31.1.p2",
        "MT98.R32.1",
        "MT98.R33",
        "MT98.R34",
    }
)
#: the ids this module proves (tests/test_controls.py checks every control is proven in one
#: place): reg 30(2)'s injection is the slot floor's program swap, which tests/test_controls.py's
#: cases (S1.1a, S1.1b.i, S1.1b.ii, S1.15, S1.20f) prove there; its case here is this floor's
INJECTED_CONTROLS = MINE - {"MT98.R30.2"}


def _works(**changes: dict[str, Any]) -> list[dict[str, Any]]:
    """The floor's works with some changed, by kind: ``certificate_request={...}``."""
    works = copy.deepcopy(WORKS)
    for w in works:
        w.update(changes.get(w["kind"], {}))
    return works


@dataclass(frozen=True)
class Case:
    inject: dict[str, Any]
    subjects: tuple[str, ...]
    message: str
    evidence: tuple[str, ...]  # the kinds of the records cited
    edits: dict[str, Any] = field(default_factory=dict)
    #: other controls (not of this module) the same run finds; None: whatever they are
    besides: frozenset[str] | None = frozenset()


CASES: dict[str, Case] = {
    "R30.1a": Case(
        {"kind": "lifecycle_specs_left_out", "target": "B-R02"},
        ("B-R02",),
        "machine B-R02 was kept for use at the casino licence's renewal on 2026-03-02, but its "
        "specifications were not furnished to the Board on the renewal",
        ("casino_licence_event", "machine_stored"),
    ),
    "R30.1b": Case(
        {"kind": "lifecycle_acquisition_unfiled"},
        ("B-N01",),
        "machine B-N01 was acquired on 2026-03-02, but its specifications were never furnished "
        "to the Board",
        ("machine_acquired",),
    ),
    "R30.1c": Case(
        {"kind": "lifecycle_alteration_oral"},
        ("B-005",),
        "machine B-005's altered specifications (its conversion to classic-3reel-90) were "
        "notified to the Board, but not in writing",
        ("program_converted", "specs_furnished"),
    ),
    "R30.1d": Case(
        {"kind": "lifecycle_disposal_unnotified"},
        ("B-R02",),
        "machine B-R02 was sold on 2026-03-02, but the Board was never notified of its disposal",
        ("machine_disposed",),
    ),
    # a program swap: reg 30(2); items 11(a), 14(a) (another helper's) and the statistical
    # controls of what it plays (MT98.S1.20f) find it too, reg 28(3)(a) no longer does
    "R30.2": Case(
        {
            "kind": "swap_game",
            "machine": "A-002",
            "game": "games/classic-3reel-90.toml",
            "at_hours": 2,
        },
        ("A-002",),
        "machine A-002 reports program 16e6d1afdbeb, not the program ebd6c526ef2a its "
        "registration authorises, without an approved conversion: it no longer corresponds to "
        "the specifications furnished to the Board and is treated as not registered (reg 30(2))",
        ("meters_read",),
        besides=None,
    ),
    "R31.1": Case(
        {"kind": "lifecycle_board_registers_beyond_licence"},
        ("B-R01",),
        "the Board registered machine B-R01 for the gaming area, taking the register to 41 "
        "machines, above the 40 the casino licence authorises",
        ("casino_licence_event", "board_decided"),
    ),
    "R31.1.p1": Case(
        {"kind": "lifecycle_store_unlocked"},
        ("store",),
        "the daily audit found store unlocked on 2026-03-03: reserve machines must be kept in "
        "closed and locked premises",
        ("store_audited",),
    ),
    # item 13 (another helper's MT98.S1.13) finds the same replacement: a move unapproved
    "R31.1.p2": Case(
        {"kind": "lifecycle_replacement_unapproved"},
        ("B-R01", "B-010"),
        "reserve machine B-R01 replaced B-010 (work W04) without the Board's prior written "
        "approval",
        ("machine_replaced",),
        besides=None,
    ),
    "R32.1": Case(
        {"kind": "lifecycle_board_register_stale"},
        ("B-R02",),
        "machine B-R02 was notified as disposed of on 2026-03-02T16:00:00+01:00; the Board was "
        "to delete it in the register within 48 hours, and never did",
        ("disposal_notified",),
    ),
    # the request at 1 h, before the disposal at 6 h sends the certificate to the Board
    "R33": Case(
        {"kind": "lifecycle_certificate_refused"},
        ("P000310",),
        "player P000310 asked to see the certificate of registered machines and was not shown "
        "it (at head office), although it was not with the Board",
        ("certificate_requested",),
        edits={"works": _works(certificate_request={"at_hours": 1})},
    ),
    "R34": Case(
        {"kind": "lifecycle_board_refusal_unnotified"},
        ("B-N01",),
        "the Board's refusal to register machine B-N01 on 2026-03-04 was not notified to the "
        "licensee in writing by 2026-03-06T00:00+01:00 (immediately)",
        ("board_decided",),
    ),
}


def _found(sink: MemorySink) -> list[Finding]:
    return findings(sink)


@pytest.mark.parametrize("cid", sorted(CASES))
def test_injected_violation_is_found(cid: str) -> None:
    case = CASES[cid]
    control = "MT98." + cid
    _, sink = run(inject=[case.inject], **case.edits)
    got = _found(sink)
    controls = {f.control for f in got}
    assert controls & MINE == {control}
    if case.besides is not None:
        assert controls == {control} | case.besides
    (f,) = [f for f in got if f.control == control]
    assert f.subjects == case.subjects
    assert f.message == case.message
    by_seq = {r.seq: r for r in sink.records}
    assert tuple(by_seq[s].kind for s in f.evidence) == case.evidence


def test_every_control_has_a_case() -> None:
    assert {"MT98." + c for c in CASES} == MINE


def test_a_program_swap_is_reg_30_2_not_28_3a() -> None:
    """The swapped machine's registration is in the register and it was installed with the
    program its registration authorises: reg 28(3)(a) holds; reg 30(2) treats it as not
    registered once it runs another program. The lying variant (the machine reports the
    approved signature) is found by its signature challenge."""
    _, sink = run(inject=[CASES["R30.2"].inject])
    controls = {f.control for f in _found(sink)}
    assert "MT98.R30.2" in controls and "MT98.R28.3a" not in controls


def test_the_clean_floor_is_silent_and_exercises_every_control() -> None:
    casino, sink = run()
    assert _found(sink) == []
    assert casino.compliance is not None
    verdicts = {v.control: v.status for v in casino.compliance.verdicts()}
    assert {c: verdicts[c] for c in sorted(MINE)} == {c: "checked" for c in sorted(MINE)}


def test_the_default_left_out_machine_then_operates_unregistered() -> None:
    """Left out of the renewal's pack (the first reserve machine, B-R01), the machine is
    never registered; brought to the floor by the replacement it operates unregistered:
    reg 28(3)(a) finds it too (30(1)(a) -> 31 -> 28(3)(a)), and item 13 the replacement of
    B-010 by a machine that is no reserve machine the Board approved."""
    _, sink = run(inject=[{"kind": "lifecycle_specs_left_out"}])
    assert {(f.control, f.subjects) for f in _found(sink)} == {
        ("MT98.R30.1a", ("B-R01",)),
        ("MT98.R28.3a", ("B-R01",)),
        ("MT98.S1.13", ("B-010",)),
    }


def test_an_acquired_machine_registered_beyond_the_licence() -> None:
    """The Board registers the machine acquired at 12 h (work W11) for the gaming area, two
    days later, with the licensed 40 already there: the registration that takes it to 41."""
    _, sink = run(inject=[{"kind": "lifecycle_board_registers_beyond_licence", "target": "W11"}])
    (f,) = _found(sink)
    assert (f.control, f.subjects, f.at) == (
        "MT98.R31.1",
        ("B-N01",),
        "2026-03-04T22:00:00+01:00",
    )


def test_a_licence_grant_files_every_machine_as_granted() -> None:
    """On a grant (not a renewal) the pack is filed with the grant: every machine, no
    finding, and the control is exercised."""
    casino, sink = run(licence="grant")
    assert _found(sink) == []
    reasons = {r.reason for r in sink.records if isinstance(r, SpecsFurnished) and r.t == 0.0}
    assert reasons == {"grant"}
    assert casino.compliance is not None
    verdicts = {v.control: v.status for v in casino.compliance.verdicts()}
    assert verdicts["MT98.R30.1a"] == "checked"


# -- data: looser and stricter floors ---------------------------------------------------------


def test_too_many_reserve_machines() -> None:
    """Nine reserve machines for 40 licensed: 9 > 20 % of 40 = 8 (one finding for the store)."""
    _, sink = run(reserve=[{"bank": "B", "count": 9}])
    (f,) = _found(sink)
    assert (f.control, f.subjects) == ("MT98.R31.1.p1", ("B-R01",))
    assert f.message == (
        "9 reserve machines are kept in store, more than 20% of the 40 machines the Board "
        "authorises (8)"
    )


def test_eight_reserve_machines_are_within_the_cap() -> None:
    _, sink = run(reserve=[{"bank": "B", "count": 8}])
    assert "MT98.R31.1.p1" not in {f.control for f in _found(sink)}


def test_a_store_in_the_gaming_area() -> None:
    _, sink = run(store={"in_gaming_area": True})
    (f,) = _found(sink)
    assert (f.control, f.subjects) == ("MT98.R31.1.p1", ("B-R01",))
    assert f.message == "reserve machines are kept in store, which is part of the gaming area"


def test_an_unapproved_replacement_is_no_finding_when_the_ruleset_drops_the_approval() -> None:
    """replacement_needs_prior_approval = false (a proposal): the replacement is done at
    once, and without an approval it is no finding of the second proviso."""
    _, sink = run(overrides={"replacement_needs_prior_approval": False})
    (replaced,) = [r for r in sink.records if isinstance(r, MachineReplaced)]
    assert replaced.approval == "" and replaced.t < 7 * 3600.0  # asked at 5 h, done at once
    assert "MT98.R31.1.p2" not in {f.control for f in _found(sink)}


def test_a_replacement_approved_before_the_run_is_no_finding() -> None:
    """approval = "granted": the Board's written approval is on record before the run."""
    _, sink = run(works=_works(replacement={"approval": "granted"}))
    assert _found(sink) == []


def test_a_replacement_done_with_approval_none_is_found() -> None:
    _, sink = run(works=_works(replacement={"approval": "none"}))
    assert "MT98.R31.1.p2" in {f.control for f in _found(sink)}


def test_a_request_while_the_certificate_is_with_the_board_is_no_finding() -> None:
    """The floor's request at 8 h falls while the certificate is with the Board (produced
    with the disposal's notice at 6 h): not shown, and no finding (reg 33's exception);
    the armed refusal never comes (the workflow only refuses when it is at hand)."""
    casino, sink = run(inject=[{"kind": "lifecycle_certificate_refused"}])
    (req,) = [r for r in sink.records if r.kind == "certificate_requested"]
    assert (req.shown, req.with_board) == (False, True)  # type: ignore[attr-defined]
    assert {f.control for f in _found(sink)} & MINE == set()
    assert casino.compliance is not None
    verdicts = {v.control: v for v in casino.compliance.verdicts()}
    assert verdicts["MT98.R33"].status == "checked"


# -- the calendar --------------------------------------------------------------------------------


def test_specs_on_the_licence_event_are_due_by_the_end_of_its_day() -> None:
    """'On' an event: by the end of its calendar day, whatever the day (a Saturday, St
    Joseph's day); an acquisition at 22:00 on Monday 2 March 2026 left unfiled is found at
    midnight, and not at all by a run that ends before it."""
    tz = Clock(datetime(2026, 3, 2, 10, 0), "Europe/Malta").zone
    assert end_of_day(datetime(2026, 3, 2, 22, 0, tzinfo=tz)) == datetime(2026, 3, 3, tzinfo=tz)
    assert end_of_day(datetime(2026, 3, 7, 9, 0, tzinfo=tz)) == datetime(2026, 3, 8, tzinfo=tz)
    assert end_of_day(datetime(2026, 3, 19, 9, 0, tzinfo=tz)) == datetime(2026, 3, 20, tzinfo=tz)
    inject = [{"kind": "lifecycle_acquisition_unfiled"}]
    _, sink = run(inject=inject, hours=13.5)  # ends at 23:30
    assert _found(sink) == []
    _, sink = run(inject=inject, hours=14.5)  # ends at 00:30
    (f,) = _found(sink)
    assert (f.control, f.at) == ("MT98.R30.1b", "2026-03-03T00:00:00+01:00")


def test_the_secretarys_notice_is_due_the_next_working_day() -> None:
    """'Immediately' (reg 34): by the end of the first working day after the decision's
    day. A Friday's decision is due on Monday; one of Wednesday 18 March 2026 skips St
    Joseph's day (Thursday 19) to Friday 20; one of Monday 30 March skips Freedom Day
    (Tuesday 31) to Wednesday 1 April."""
    tz = Clock(datetime(2026, 3, 2, 10, 0), "Europe/Malta").zone

    def due(y: int, m: int, d: int) -> datetime:
        return notice_deadline(datetime(y, m, d, 15, 0, tzinfo=tz), 1, "MT")

    assert due(2026, 3, 4) == datetime(2026, 3, 6, tzinfo=tz)  # Wednesday -> Thursday
    assert due(2026, 3, 6) == datetime(2026, 3, 10, tzinfo=tz)  # Friday -> Monday
    assert due(2026, 3, 18) == datetime(2026, 3, 21, tzinfo=tz)  # St Joseph's day
    assert due(2026, 3, 30) == datetime(2026, 4, 2, tzinfo=tz)  # Freedom Day
    # on a record stream: a refusal of Wednesday 18 March notified on Friday 20 is in time,
    # one notified on Saturday 21 is late
    for sent, late in (((2026, 3, 20, 16, 0), False), ((2026, 3, 21, 9, 0), True)):
        e = _Engine("MT98.R34")
        e.at((2026, 3, 18, 15, 0), BoardDecided, machine="B-N01", **_refused())
        e.at(sent, LicenseeNotified, machine="B-N01", decision="refused", in_writing=True,
             decided_t=0.0)  # fmt: skip
        got = e.findings(until=(2026, 3, 25, 0, 0))
        assert [f.at for f in got] == (["2026-03-21T00:00:00+01:00"] if late else [])


def test_the_board_decides_within_its_hours_whatever_the_day() -> None:
    """The Board's 48 hours are real hours, weekends included: a disposal notified on Friday
    6 March 2026 at 16:00 is due deleted by Sunday 8 March at 16:00. A deletion on Sunday at
    16:00 is in time, one on Monday is late; one not yet due when the run ends is none."""
    for deleted, late in (((2026, 3, 8, 16, 0), False), ((2026, 3, 9, 10, 0), True)):
        e = _Engine("MT98.R32.1")
        e.at((2026, 3, 6, 16, 0), DisposalNotified, machine="B-R02", method="sold",
             in_writing=True, certificate_produced=True)  # fmt: skip
        e.at(deleted, BoardDecided, machine="B-R02", **_deleted())
        got = e.findings(until=(2026, 3, 12, 0, 0))
        assert [f.subjects for f in got] == ([("B-R02",)] if late else [])
    e = _Engine("MT98.R32.1")
    e.at((2026, 3, 6, 16, 0), DisposalNotified, machine="B-R02", method="sold",
         in_writing=True, certificate_produced=True)  # fmt: skip
    assert e.findings(until=(2026, 3, 8, 15, 59)) == []


# -- the parts no injection reaches: hand-made records ------------------------------------------


class _Engine:
    """An engine of the given controls over hand-made records, at local dates of March 2026
    (the floor opens on Monday 2 March at 10:00, Malta)."""

    def __init__(self, *controls: str) -> None:
        self.env = simpy.Environment()
        self.clock = Clock(datetime(2026, 3, 2, 10, 0), "Europe/Malta")
        self.bus = RecordBus(lambda: self.env.now)
        self.sink = MemorySink()
        self.engine = ComplianceEngine(
            load_ruleset("malta-1998"), self.clock, FloorFacts(),
            controls=controls,
        )  # fmt: skip
        self.bus.attach(self.engine)
        self.bus.attach_producer(self.engine)
        self.bus.attach(self.sink)

    def t(self, when: tuple[int, ...]) -> float:
        y, mo, d, h, mi = when
        return self.clock.seconds(datetime(y, mo, d, h, mi))

    def at(self, when: tuple[int, ...], cls: type[Record], **fields: Any) -> None:
        t = self.t(when)
        if t > self.env.now:
            self.env.run(until=t)
        self.bus.emit(cls, **fields)

    def findings(self, until: tuple[int, ...]) -> list[Finding]:
        self.env.run(until=self.t(until))
        self.bus.finish_producers(self.env.now)
        return list(self.engine.findings)


def _refused() -> dict[str, Any]:
    return {"matter": "registration", "decision": "refused", "work": "W11", "approval": "",
            "requested_t": 0.0, "in_writing": True, "registered": 40, "reserve": 2,
            "reason": "incomplete"}  # fmt: skip


def _deleted(reason: str = "sold: reg 32(1)(a)") -> dict[str, Any]:
    return {"matter": "deletion", "decision": "deleted", "work": "", "approval": "",
            "requested_t": 0.0, "in_writing": True, "registered": 40, "reserve": 1,
            "reason": reason}  # fmt: skip


def _specs(machine: str, reason: str, **changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "machine": machine, "reason": reason, "registration": "MGB-B-0005",
        "serial": "AX-100-B00005", "game_signature": "s" * 64, "denomination_cents": 25,
        "max_bet_units": 3, "place": "floor", "in_writing": True, "certificate_produced": True,
    }  # fmt: skip
    fields.update(changes)
    return fields


def _installed(machine: str, **changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "machine": machine, "bank": "B", "zone": "main", "game_id": "g",
        "game_signature": "s" * 64, "denomination_cents": 25, "max_bet_units": 3,
        "registration": "MGB-B-0005", "serial": "AX-100-B00005", "hopper_coins": 0,
        "progressive": "", "meter_digits": 10, "manufacturer": "m", "model": "x",
        "manufactured": "2020-01-01", "certified_min_payout_bp": 0, "certificate": (),
        "paytable_displayed": True, "promotional": False, "asset_number": "AN-1",
        "bill_denominations_cents": (),
    }  # fmt: skip
    fields.update(changes)
    return fields


def _licence(e: _Engine) -> None:
    e.at((2026, 3, 2, 10, 0), CasinoLicenceEvent, event="renewal", licensed_machines=40,
         board_licence_no="MGB-CL-001")  # fmt: skip


def test_a_replacement_files_the_incoming_machine() -> None:
    e = _Engine("MT98.R30.1b")
    e.at((2026, 3, 4, 15, 0), MachineReplaced, machine="B-R01", replaced="B-010", work="W04",
         source="reserve", approval="BA-0002", floor_machines=40,
         licensed_machines=40)  # fmt: skip
    (f,) = e.findings(until=(2026, 3, 6, 0, 0))
    assert f.message == (
        "machine B-R01 was brought in to replace B-010 on 2026-03-04, but its specifications "
        "were never furnished to the Board"
    )
    assert f.at == "2026-03-05T00:00:00+01:00"


def test_an_oral_disposal_notice_is_not_in_writing() -> None:
    e = _Engine("MT98.R30.1d")
    e.at((2026, 3, 4, 15, 0), MachineDisposed, machine="B-R02", work="W05", method="destroyed")
    e.at((2026, 3, 4, 16, 0), DisposalNotified, machine="B-R02", method="destroyed",
         in_writing=False, certificate_produced=True)  # fmt: skip
    (f,) = e.findings(until=(2026, 3, 6, 0, 0))
    assert f.message == (
        "machine B-R02's disposal (destroyed) was notified to the Board, but not in writing"
    )


def _converted(e: _Engine, when: tuple[int, ...]) -> None:
    e.at(when, ProgramConverted, machine="B-005", from_signature="s" * 64,
         to_signature="t" * 64, game_id="classic-3reel-90", technician="TEC-1",
         inspector="INS-1", approval="BA-0001")  # fmt: skip


def test_an_unnotified_alteration_is_found_at_the_end_of_its_day() -> None:
    e = _Engine("MT98.R30.1c")
    _licence(e)
    _converted(e, (2026, 3, 4, 14, 0))
    (f,) = e.findings(until=(2026, 3, 6, 0, 0))
    assert (f.at, f.message) == (
        "2026-03-05T00:00:00+01:00",
        "machine B-005's program was converted on 2026-03-04 (to classic-3reel-90), but the "
        "Board was never notified of the altered specifications",
    )
    # notified in writing the same day: no finding; a floor with no lifecycle: not checked
    e = _Engine("MT98.R30.1c")
    _licence(e)
    _converted(e, (2026, 3, 4, 14, 0))
    e.at((2026, 3, 4, 14, 0), SpecsFurnished, **_specs("B-005", "alteration"))
    assert e.findings(until=(2026, 3, 6, 0, 0)) == []
    e = _Engine("MT98.R30.1c")
    _converted(e, (2026, 3, 4, 14, 0))
    assert e.findings(until=(2026, 3, 6, 0, 0)) == []


def test_an_alteration_the_board_never_amends() -> None:
    e = _Engine("MT98.R32.1")
    e.at((2026, 3, 4, 14, 0), SpecsFurnished, **_specs("B-005", "alteration"))
    (f,) = e.findings(until=(2026, 3, 7, 0, 0))
    assert f.message == (
        "machine B-005 was notified with altered specs on 2026-03-04T14:00:00+01:00; the Board "
        "was to amend its entry in the register within 48 hours, and never did"
    )


def test_filed_specs_that_differ_from_the_machine() -> None:
    """The denomination and serial filed are not the machine's as installed: reg 30(2)."""
    e = _Engine("MT98.R30.2")
    e.at((2026, 3, 2, 10, 0), MachineInstalled, **_installed("B-005", denomination_cents=50))
    e.at((2026, 3, 2, 10, 0), SpecsFurnished,
         **_specs("B-005", "renewal", serial="AX-100-B00099"))  # fmt: skip
    (f,) = e.findings(until=(2026, 3, 2, 11, 0))
    assert f.subjects == ("B-005",)
    assert f.message == (
        "machine B-005 as installed differs from its filed specifications: serial "
        "AX-100-B00005 (filed: AX-100-B00099); denomination 50 cents (filed: 25 cents): it no "
        "longer corresponds to the specifications furnished to the Board and is treated as "
        "not registered (reg 30(2))"
    )
    # the same filing for a machine that matches it: no finding
    e = _Engine("MT98.R30.2")
    e.at((2026, 3, 2, 10, 0), MachineInstalled, **_installed("B-005"))
    e.at((2026, 3, 2, 10, 0), SpecsFurnished, **_specs("B-005", "renewal"))
    assert e.findings(until=(2026, 3, 2, 11, 0)) == []


def test_a_floor_above_the_licensed_number() -> None:
    e = _Engine("MT98.R31.1.p2")
    e.at((2026, 3, 3, 6, 0), StoreAudited, store="store", machines=("B-R01",), locked=True,
         in_gaming_area=False, licensed_machines=40, floor_machines=41)  # fmt: skip
    (f,) = e.findings(until=(2026, 3, 3, 7, 0))
    assert (f.subjects, f.message) == (
        ("store",),
        "41 machines are in the gaming area, more than the 40 the casino licence authorises",
    )


def test_a_deletion_after_a_disposal_needs_no_notice() -> None:
    """Reg 34(b) asks a notice of deletions under 32(1)(b) and 32(2), not of a machine the
    licensee itself notified as disposed of (32(1)(a))."""
    e = _Engine("MT98.R34")
    e.at((2026, 3, 2, 16, 0), DisposalNotified, machine="B-R02", method="sold",
         in_writing=True, certificate_produced=True)  # fmt: skip
    e.at((2026, 3, 4, 16, 0), BoardDecided, machine="B-R02", **_deleted())
    assert e.findings(until=(2026, 3, 9, 0, 0)) == []
    e = _Engine("MT98.R34")
    e.at((2026, 3, 4, 16, 0), BoardDecided, machine="B-005",
         **_deleted("no longer an authorised machine: reg 32(1)(b)"))  # fmt: skip
    (f,) = e.findings(until=(2026, 3, 9, 0, 0))
    assert f.message == (
        "the Board's deletion from the register of machine B-005 on 2026-03-04 was not "
        "notified to the licensee in writing by 2026-03-06T00:00+01:00 (immediately)"
    )


def test_a_filing_without_the_certificate() -> None:
    """Reg 35(1): the specifications of 30(1)(b) and the notices of 30(1)(c), (d) go with the
    certificate; those of the licence's grant or renewal (30(1)(a)) need not."""
    e = _Engine("MT98.R34")
    e.at((2026, 3, 2, 10, 0), SpecsFurnished,
         **_specs("B-005", "renewal", certificate_produced=False))  # fmt: skip
    e.at((2026, 3, 4, 14, 0), SpecsFurnished,
         **_specs("B-005", "alteration", certificate_produced=False))  # fmt: skip
    (f,) = e.findings(until=(2026, 3, 5, 0, 0))
    assert f.message == (
        "the altered specifications of machine B-005 reached the Board without the "
        "certificate of registered machines for amendment (reg 35(1))"
    )


def _approved(matter: str, work: str) -> dict[str, Any]:
    return {"matter": matter, "decision": "approved", "work": work, "approval": "BA-0007",
            "requested_t": 0.0, "in_writing": True, "registered": 40, "reserve": 2,
            "reason": ""}  # fmt: skip


def test_the_approval_must_come_before_the_replacement() -> None:
    """The second proviso's approval is a prior one, for the replacement: one given after it,
    or one for another work (a move), is none."""
    cases = (
        ((2026, 3, 4, 14, 0), "replacement", "W04", False),  # before: in order
        ((2026, 3, 4, 16, 0), "replacement", "W04", True),  # after the replacement
        ((2026, 3, 4, 14, 0), "move", "W10", True),  # another matter and work
    )
    for when, matter, work, found in cases:
        e = _Engine("MT98.R31.1.p2")
        replaced = {"machine": "B-R01", "replaced": "B-010", "work": "W04",
                    "source": "reserve", "approval": "", "floor_machines": 40,
                    "licensed_machines": 40}  # fmt: skip
        events = sorted([(when, BoardDecided, {"machine": "B-010", **_approved(matter, work)}),
                         ((2026, 3, 4, 15, 0), MachineReplaced, replaced)],
                        key=lambda x: x[0])  # fmt: skip
        for at, cls, fields in events:
            e.at(at, cls, **fields)
        got = e.findings(until=(2026, 3, 5, 0, 0))
        assert [f.subjects for f in got] == ([("B-R01", "B-010")] if found else []), when


def _never_restored() -> dict[str, Any]:
    """The floor's suspension alone, never restored (no filing keeps the certificate with
    the Board when the deletion comes)."""
    (susp,) = [dict(w) for w in WORKS if w["kind"] == "suspension"]
    del susp["restore_hours"]
    return {"works": [susp], "hours": 90.0}


def test_a_suspended_machine_never_restored_is_deleted_notified_and_amended() -> None:
    """A-010 suspended at 13 h and never restored: 48 hours later the Board deletes it (reg
    32(1)(b)), the Secretary notifies the licensee in writing at once (reg 34) and requires
    the certificate (reg 35(2)), which comes back without it. No finding."""
    _, sink = run(**_never_restored())
    assert _found(sink) == []
    (d,) = [r for r in sink.of(BoardDecided) if r.decision == "deleted" and r.machine == "A-010"]
    assert (d.t, d.reason) == (46800.0 + 48 * 3600.0, "32(1)(b): RNG seed fault")
    (n,) = [r for r in sink.of(LicenseeNotified) if r.machine == "A-010"]
    assert (n.t, n.decision, n.in_writing) == (d.t, "deleted", True)
    produced = [r for r in sink.of(CertificateProduced) if r.t == d.t]
    assert [(r.returned, r.demanded) for r in produced] == [(False, True), (True, False)]
    last = [r for r in sink.of(CertificateIssued) if r.t >= d.t][-1]
    assert "A-010" not in last.machines


def test_a_deletion_whose_certificate_is_never_demanded() -> None:
    """Reg 35(2), the catalog's violation: after the deletion the certificate shown to
    players still lists A-010, never produced for amendment."""
    _, sink = run(inject=[{"kind": "lifecycle_certificate_not_demanded"}], **_never_restored())
    (f,) = _found(sink)
    assert (f.control, f.subjects) == ("MT98.R34", ("A-010",))
    assert f.message == (
        "the certificate of registered machines (version 1) still lists machine A-010, deleted "
        "from the register on 2026-03-04: the Secretary never required it to be produced for "
        "amendment by 2026-03-06T00:00+01:00 (reg 35(2))"
    )
    by_seq = {r.seq: r.kind for r in sink.records}
    assert [by_seq[s] for s in f.evidence] == ["certificate_issued", "board_decided"]
