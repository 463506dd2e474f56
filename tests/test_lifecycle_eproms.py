"""The internal controls manual and EPROM control (Malta First Schedule items 18, 19;
``twin.compliance.checks.eproms``), on the lifecycle's test floor (tests/lifecycle_floor.py:
scenarios/small.toml from Monday 2 March 2026 10:00, Europe/Malta, for four days).

On that floor the Secretary asks for the manual at 9 h (Monday 19:00); the licensee submits
it at the office's next opening (Tuesday 09:00). The four master EPROMs arrive at t = 0 and
are verified and registered; the media copy W09 (10 h) takes A-001's master (video-5reel)
out of the vault; the conversion W02 takes classic-3reel-90's master out on day 3 and seals
a copy into B-005; the acquisition W11 (12 h) seals B-N01's EPROM in the store.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any

import pytest
from lifecycle_floor import SMALL, findings, run, scenario_data

from twin.casino import Casino
from twin.compliance.findings import Finding
from twin.departments import parse_scenario
from twin.lifecycle.model import Lifecycle
from twin.lifecycle.records import EpromDestroyed, EpromVerified, SealChecked
from twin.lifecycle.section import BOARD_APPROVED, MANUAL_TOPICS, PROCEDURES
from twin.records import MemorySink, Record

CONTROLS = ("MT98.S1.18", "MT98.S1.19a", "MT98.S1.19b", "MT98.S1.19c", "MT98.S1.19d")
INJECTED_CONTROLS = frozenset(CONTROLS)
ALL_TOPICS = (*MANUAL_TOPICS, *PROCEDURES)

#: case -> (injection kind, the control, its subjects, the kinds of its evidence, message)
CASES: dict[str, tuple[str, str, tuple[str, ...], tuple[str, ...], str]] = {
    "S1.18": (
        "lifecycle_manual_not_submitted",
        "MT98.S1.18",
        ("icpm",),
        ("icpm_requested",),
        "the Secretary asked for the internal controls manual at 2026-03-02T19:00:00+01:00; "
        "it was not submitted within 2 working days (by the end of 2026-03-04)",
    ),
    "S1.19a": (
        "lifecycle_eprom_unverified",
        "MT98.S1.19a",
        ("M-16e6d1af",),
        ("eprom_received", "eprom_vault_access"),
        "master EPROM M-16e6d1af (classic-3reel-90) was taken from the secure area: never "
        "verified against the manufacturer's specification sheet",
    ),
    "S1.19b": (
        "lifecycle_eprom_single_custody",
        "MT98.S1.19b",
        ("M-ebd6c526", "TEC-evening-01"),
        ("eprom_vault_access",),
        "EPROM M-ebd6c526 was taken from the secure area by TEC-evening-01 alone (dual "
        "control needs two custodians)",
    ),
    "S1.19c": (
        "lifecycle_eprom_removal_unrecorded",
        "MT98.S1.19c",
        ("M-ebd6c526",),
        ("eprom_vault_access",),
        "the removal of master EPROM M-ebd6c526 from the secured area is entered in the "
        "register without the reason and the signatures of TEC-night-01, ATT-night-03",
    ),
    "S1.19d": (
        "lifecycle_seal_off_procedure",
        "MT98.S1.19d",
        ("B-N01", "M-f4a3c0b8"),
        ("eprom_sealed",),
        "EPROM M-f4a3c0b8 was sealed into B-N01 outside the manual's sealing procedure, with "
        "no seal number logged",
    ),
}


def only(sink: MemorySink, control: str) -> Finding:
    """The run's one finding, of ``control``."""
    found = findings(sink)
    assert [f.control for f in found] == [control], [(f.control, f.message) for f in found]
    return found[0]


def kinds(sink: MemorySink, f: Finding) -> tuple[str, ...]:
    assert f.evidence and all(sink.records[s].seq == s for s in f.evidence)
    return tuple(sink.records[s].kind for s in f.evidence)


def run_from(start: str, **kw: Any) -> tuple[Casino, MemorySink]:
    """The test floor started at ``start`` (local) instead of Monday 2 March 10:00."""
    data = scenario_data(**kw)
    data["scenario"]["start"] = datetime.fromisoformat(start)
    return run_data(data)


def run_data(data: dict[str, Any]) -> tuple[Casino, MemorySink]:
    sc = parse_scenario(data, source=str(SMALL), base_dir=SMALL.parent)
    sink = MemorySink()
    casino = Casino(sc, sinks=[sink])
    casino.run()
    return casino, sink


def of(sink: MemorySink, kind: str) -> list[Record]:
    return [r for r in sink.records if r.kind == kind]


@pytest.fixture(scope="module")
def clean() -> tuple[Casino, MemorySink]:
    return run()


# -- the clean floor -------------------------------------------------------------------------


def test_the_clean_floor_is_silent_and_exercises_every_control(
    clean: tuple[Casino, MemorySink],
) -> None:
    casino, sink = clean
    assert findings(sink) == []
    assert casino.compliance is not None
    verdicts = {v.control: v.status for v in casino.compliance.verdicts()}
    assert {c: verdicts[c] for c in CONTROLS} == dict.fromkeys(CONTROLS, "checked")
    # the manual asked for on Monday at 19:00, submitted at Tuesday's opening (in 2 days)
    (asked,) = of(sink, "icpm_requested")
    (sent,) = of(sink, "icpm_submitted")
    clock = casino.world.clock
    assert clock.iso(asked.t) == "2026-03-02T19:00:00+01:00"
    assert clock.iso(sent.t) == "2026-03-03T09:00:00+01:00"
    assert clock.iso(asked.due_t) == "2026-03-05T00:00:00+01:00"  # type: ignore[attr-defined]


def test_register_entries_are_complete_on_the_clean_floor(
    clean: tuple[Casino, MemorySink],
) -> None:
    """Every master received is verified and registered with its number, the Board licence
    number and the manufacturer; every removal is by two custodians who sign for it."""
    _, sink = clean
    received = {r.eprom for r in of(sink, "eprom_received")}  # type: ignore[attr-defined]
    assert received == {"M-16e6d1af", "M-eb654685", "M-ebd6c526", "M-f4a3c0b8"}
    entries = {r.eprom: r for r in of(sink, "eprom_registered")}  # type: ignore[attr-defined]
    assert set(entries) == received
    assert all(e.board_licence_no == "MGB-CL-001" for e in entries.values())  # type: ignore[attr-defined]
    assert all(e.manufacturer == "Acme Gaming Ltd" for e in entries.values())  # type: ignore[attr-defined]
    outs = [r for r in of(sink, "eprom_vault_access") if r.action == "out"]  # type: ignore[attr-defined]
    assert [(r.eprom, r.reason, len(set(r.signatures))) for r in outs] == [  # type: ignore[attr-defined]
        ("M-ebd6c526", "a spare copy", 2),
        ("M-16e6d1af", "conversion of B-005", 2),
    ]


# -- one injection, exactly its finding ------------------------------------------------------


@pytest.mark.parametrize("case", sorted(CASES))
def test_injection_is_found_exactly(case: str) -> None:
    kind, control, subjects, evidence, message = CASES[case]
    _, sink = run(inject=[{"kind": kind}])
    f = only(sink, control)
    assert f.subjects == subjects
    assert kinds(sink, f) == evidence
    assert f.message == message


# -- item 18: the manual ---------------------------------------------------------------------


def test_a_manual_without_security_seals_is_found() -> None:
    topics = [t for t in ALL_TOPICS if t != "security_seals"]
    _, sink = run(manual={"topics": topics, "approved": list(BOARD_APPROVED)})
    f = only(sink, "MT98.S1.18")
    assert f.subjects == ("icpm",)
    assert kinds(sink, f) == ("icpm_filed",)
    assert f.message == "the internal controls manual (version 1) does not specify security seals"


def test_a_work_whose_procedure_the_manual_lacks_is_found() -> None:
    """The manual has no conversions procedure; the conversion W02 follows one on day 3."""
    topics = [t for t in ALL_TOPICS if t != "conversions"]
    _, sink = run(manual={"topics": topics, "approved": list(BOARD_APPROVED)})
    f = only(sink, "MT98.S1.18")
    assert f.subjects == ("icpm", "W02")
    assert kinds(sink, f) == ("icpm_filed", "procedure_followed")
    assert f.message == (
        "work W02 on B-005 follows the conversions procedure, which the internal controls "
        "manual (version 1) does not specify"
    )
    assert f.at == "2026-03-04T13:00:00+01:00"


def test_a_submission_after_the_deadline_is_late() -> None:
    """With 0 working days the manual is due by the end of the request's own day (Monday):
    found missing at midnight; the licensee's submission at Tuesday's opening comes late."""
    casino, sink = run(overrides={"icpm_submit_business_days": 0})
    f = only(sink, "MT98.S1.18")
    assert kinds(sink, f) == ("icpm_requested",)
    assert f.at == "2026-03-03T00:00:00+01:00"
    assert f.message == (
        "the Secretary asked for the internal controls manual at 2026-03-02T19:00:00+01:00; "
        "it was not submitted within 0 working days (by the end of 2026-03-02)"
    )
    (sent,) = of(sink, "icpm_submitted")
    assert casino.world.clock.iso(sent.t) == "2026-03-03T09:00:00+01:00"


def test_a_request_on_a_friday_is_due_after_the_weekend() -> None:
    """Friday 6 March 19:00, one working day: due by the end of Monday 9 March; the licensee
    submits at Monday's opening (in time), or never (found at Tuesday 00:00)."""
    casino, sink = run_from("2026-03-06T10:00:00", hours=90,
                            overrides={"icpm_submit_business_days": 1})  # fmt: skip
    assert findings(sink) == []
    clock = casino.world.clock
    (sent,) = of(sink, "icpm_submitted")
    assert clock.iso(sent.t) == "2026-03-09T09:00:00+01:00"
    _, sink = run_from("2026-03-06T10:00:00", hours=90,
                       overrides={"icpm_submit_business_days": 1},
                       inject=[{"kind": "lifecycle_manual_not_submitted"}])  # fmt: skip
    f = only(sink, "MT98.S1.18")
    assert f.at == "2026-03-10T00:00:00+01:00"
    assert f.message == (
        "the Secretary asked for the internal controls manual at 2026-03-06T19:00:00+01:00; "
        "it was not submitted within 1 working days (by the end of 2026-03-09)"
    )


def test_a_request_before_st_josephs_day_is_due_after_it() -> None:
    """Wednesday 18 March 19:00; Thursday 19 March is St Joseph's (a public holiday in
    Malta): one working day runs to the end of Friday 20 March, where the licensee's
    submission (at Friday's opening) falls; none is found at Saturday 00:00; with 0 days
    the manual is missing at Thursday 00:00."""
    start = "2026-03-18T10:00:00"
    one = {"icpm_submit_business_days": 1}
    casino, sink = run_from(start, hours=72, overrides=one)
    assert findings(sink) == []
    (sent,) = of(sink, "icpm_submitted")
    assert casino.world.clock.iso(sent.t) == "2026-03-20T09:00:00+01:00"
    _, sink = run_from(start, hours=72, overrides=one,
                       inject=[{"kind": "lifecycle_manual_not_submitted"}])  # fmt: skip
    f = only(sink, "MT98.S1.18")
    assert f.at == "2026-03-21T00:00:00+01:00"
    assert f.message.endswith("not submitted within 1 working days (by the end of 2026-03-20)")
    _, sink = run_from(start, hours=72, overrides={"icpm_submit_business_days": 0})
    f = only(sink, "MT98.S1.18")
    assert f.at == "2026-03-19T00:00:00+01:00"
    assert f.message.endswith("not submitted within 0 working days (by the end of 2026-03-18)")


def test_a_request_not_yet_due_at_the_end_is_no_finding() -> None:
    """The manual, never submitted, is due by the end of Wednesday 4 March; a run that ends
    on Wednesday at 10:00 finds nothing."""
    casino, sink = run(hours=48, inject=[{"kind": "lifecycle_manual_not_submitted"}])
    assert findings(sink) == []
    assert len(of(sink, "icpm_requested")) == 1
    assert of(sink, "icpm_submitted") == []
    assert casino.world.clock.iso(casino.world.env.now) == "2026-03-04T10:00:00+01:00"


# -- item 19 ----------------------------------------------------------------------------------


def test_a_master_used_after_a_failed_verification_is_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The model always verifies a master as matching (or, injected, not at all); here the
    verification of classic-3reel-90's master shows its par percentage differs, and the
    master is still taken out for the conversion."""
    emit = Lifecycle.emit

    def mismatch(self: Lifecycle, cls: type[Record], **fields: Any) -> None:
        if cls is EpromVerified and fields["eprom"] == "M-16e6d1af":
            fields["par_ok"] = False
        emit(self, cls, **fields)

    monkeypatch.setattr(Lifecycle, "emit", mismatch)
    _, sink = run()
    f = only(sink, "MT98.S1.19a")
    assert kinds(sink, f) == ("eprom_received", "eprom_verified", "eprom_vault_access")
    assert f.message == (
        "master EPROM M-16e6d1af (classic-3reel-90) was taken from the secure area: its "
        "verification showed a mismatch of the par percentage"
    )


def test_a_master_never_verified_nor_used_is_found() -> None:
    """Unverified classic-3reel-90 master; the run ends (day 2) before the conversion uses it."""
    _, sink = run(hours=24, inject=[{"kind": "lifecycle_eprom_unverified"}])
    f = only(sink, "MT98.S1.19a")
    assert kinds(sink, f) == ("eprom_received",)
    assert f.message == (
        "master EPROM M-16e6d1af (classic-3reel-90) was received at 2026-03-02T10:00:00+01:00 "
        "and never verified against the manufacturer's specification sheet"
    )


def test_a_destruction_without_signatures_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """The model has no workflow that destroys a master; this test enters one destruction
    in the register (at t = 0, after the masters arrive) with no signatures."""
    start = Lifecycle.start

    def destroy(self: Lifecycle) -> None:
        start(self)
        self.emit(EpromDestroyed, eprom="M-16e6d1af", date="2026-03-02", reason="obsolete",
                  signatures=())  # fmt: skip

    monkeypatch.setattr(Lifecycle, "start", destroy)
    _, sink = run(hours=4)
    f = only(sink, "MT98.S1.19c")
    assert kinds(sink, f) == ("eprom_destroyed",)
    assert f.message == (
        "the destruction of master EPROM M-16e6d1af is entered in the register without its "
        "signatures"
    )


def test_a_manual_without_an_approved_copy_and_seal_procedure_is_found() -> None:
    approved = [p for p in BOARD_APPROVED if p != "eprom_copy_seal"]
    _, sink = run(manual={"topics": list(ALL_TOPICS), "approved": approved})
    f = only(sink, "MT98.S1.19d")
    assert f.subjects == ("icpm",)
    assert kinds(sink, f) == ("icpm_filed",)
    assert f.message == (
        "the internal controls manual as approved by the Board (version 1) does not document "
        "the EPROM copying and sealing procedure"
    )


def test_a_promotional_eprom_sealed_without_an_approved_procedure_is_found() -> None:
    """Bank T made promotional tournament machines: their EPROMs, sealed at t = 0, need the
    Board-approved procedure for promotional EPROMs (item 19(e)); the default manual has it."""
    for approved, expected in (
        (list(BOARD_APPROVED), []),
        (["machine_removal", "eprom_copy_seal"], ["MT98.S1.19d"]),
    ):
        data = scenario_data(hours=24, manual={"topics": list(ALL_TOPICS), "approved": approved})
        for bank in data["floor"]["banks"]:
            if bank["id"] == "T":
                bank.update(promotional=True, game="games/promo-tournament.toml")
        _, sink = run_data(data)
        assert [f.control for f in findings(sink)] == expected
    f = findings(sink)[0]
    assert kinds(sink, f) == ("icpm_filed", "eprom_sealed")
    assert sink.records[f.evidence[1]].machine == "T-001"  # type: ignore[attr-defined]
    assert f.message == (
        "the internal controls manual as approved by the Board (version 1) does not document "
        "the competition and promotional EPROM procedure"
    )


def test_daily_seal_checks_cost_staff_time_and_are_clean() -> None:
    """eprom_seal_check_days = 1: a technician and an inspector check every machine in play
    each day (A-010, suspended on 3 March, is not), 2 minutes a machine, and find every
    seal as registered."""
    casino, sink = run(overrides={"eprom_seal_check_days": 1})
    assert findings(sink) == []
    clock = casino.world.clock
    checks = of(sink, "seal_checked")
    days = Counter(clock.at(r.t).date().isoformat() for r in checks)
    assert days == {"2026-03-03": 39, "2026-03-04": 40, "2026-03-05": 40}
    assert all(r.intact for r in checks)  # type: ignore[attr-defined]
    jobs = [r for r in of(sink, "job_completed") if r.job_kind == "seal_check"]  # type: ignore[attr-defined]
    assert [(r.t - r.started_t) / 60 for r in jobs] == [78.0, 80.0, 80.0]  # type: ignore[attr-defined]
    assert all(len(r.members) == 2 for r in jobs)  # type: ignore[attr-defined]
    assert casino.compliance is not None
    verdicts = {v.control: v for v in casino.compliance.verdicts()}
    assert verdicts["MT98.S1.19d"].status == "checked"


def test_a_seal_found_other_than_registered_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """Daily checks; the first finds A-005 carrying a seal other than the one registered
    for it at t = 0 (S-00005). The model's checks always find the seal it applied."""
    emit = Lifecycle.emit

    def tampered(self: Lifecycle, cls: type[Record], **fields: Any) -> None:
        if cls is SealChecked and fields["machine"] == "A-005":
            fields.update(seal="S-99999")
        emit(self, cls, **fields)

    monkeypatch.setattr(Lifecycle, "emit", tampered)
    _, sink = run(hours=30, overrides={"eprom_seal_check_days": 1})
    f = only(sink, "MT98.S1.19d")
    assert f.subjects == ("A-005",)
    assert kinds(sink, f) == ("eprom_sealed", "seal_checked")
    assert f.message == (
        "the EPROM seal of A-005 was found S-99999 at a check, not the registered S-00005"
    )


def test_seal_checks_that_never_come_are_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """eprom_seal_check_days = 1 and nobody checks a seal: the day (and 12 hours' grace)
    passes with no check."""

    def idle(self: Lifecycle) -> Any:
        return
        yield

    monkeypatch.setattr(Lifecycle, "check_seals", idle)
    _, sink = run(hours=48, overrides={"eprom_seal_check_days": 1})
    found = findings(sink)
    assert [(f.control, f.message) for f in found] == [
        ("MT98.S1.19d", "no EPROM seal was checked from 2026-03-02T10:00:00+01:00 to "
         "2026-03-04T10:00:00+01:00 (every 1 days)"),
    ]  # fmt: skip
