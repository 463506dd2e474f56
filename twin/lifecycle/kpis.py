"""The lifecycle's KPIs, from records alone: machines by lifecycle state at the end, the
Board's decisions and their waits, conversions, repairs, faults and the works' downtime."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from twin.lifecycle.records import (
    ApprovalRestored,
    ApprovalSuspended,
    BoardDecided,
    CasinoLicenceEvent,
    MachineAcquired,
    MachineDisposed,
    MachineFaultCleared,
    MachineFaultFound,
    MachineRepaired,
    MachineReplaced,
    MachineStored,
    SpecsFurnished,
    WorkDone,
)
from twin.lifecycle.section import WORK_KINDS
from twin.machines.events import MachineInstalled
from twin.records import Record

#: the matters the Board decides and its decisions: every one is reported (0 when none), so
#: two arms of a study always compare the same keys
MATTERS = ("registration", "amendment", "deletion", "conversion", "replacement", "move",
           "repair", "suspension")  # fmt: skip
DECISIONS = ("registered", "refused", "amended", "deleted", "approved", "suspended")
STATES = ("floor", "reserve", "suspended", "disposed")


class LifecycleKpis:
    """The KPI section "lifecycle"."""

    name = "lifecycle"
    reads: tuple[type[Record], ...] = (
        CasinoLicenceEvent,
        MachineInstalled,
        SpecsFurnished,
        MachineAcquired,
        MachineStored,
        MachineReplaced,
        MachineDisposed,
        ApprovalSuspended,
        ApprovalRestored,
        BoardDecided,
        MachineRepaired,
        MachineFaultFound,
        MachineFaultCleared,
        WorkDone,
    )

    def __init__(self) -> None:
        self.active = False
        self.state: dict[str, str] = {}
        self.decisions: Counter[str] = Counter()
        self.waits: dict[str, list[float]] = defaultdict(list)
        self.works: Counter[str] = Counter()
        self.outcomes: Counter[str] = Counter()
        self.downtime: dict[str, float] = defaultdict(float)
        self.approval_waits: list[float] = []
        self.repairs = 0
        self.outcome_repairs = 0
        self.faults = 0
        self.faults_cleared = 0

    def accept(self, rec: Record) -> None:
        if isinstance(rec, CasinoLicenceEvent):
            self.active = True
        elif isinstance(rec, MachineInstalled):
            self.state[rec.machine] = "floor"
        elif isinstance(rec, MachineStored | MachineAcquired):
            self.state[rec.machine] = "reserve"
        elif isinstance(rec, MachineDisposed):
            self.state[rec.machine] = "disposed"
        elif isinstance(rec, ApprovalSuspended):
            self.state[rec.machine] = "suspended"
        elif isinstance(rec, ApprovalRestored):
            self.state[rec.machine] = "floor"
        elif isinstance(rec, BoardDecided):
            self.decisions[f"{rec.matter}:{rec.decision}"] += 1
            if rec.t > rec.requested_t or rec.requested_t > 0:
                self.waits[rec.matter].append((rec.t - rec.requested_t) / 3600.0)
        elif isinstance(rec, MachineRepaired):
            self.repairs += 1
            self.outcome_repairs += rec.outcome_affecting
        elif isinstance(rec, MachineFaultFound):
            self.faults += 1
        elif isinstance(rec, MachineFaultCleared):
            self.faults_cleared += 1
        elif isinstance(rec, WorkDone):
            self.works[rec.work_kind] += 1
            self.outcomes[rec.outcome] += 1
            self.downtime[rec.work_kind] += rec.downtime_s / 3600.0
            if rec.approved_t > rec.requested_t:
                self.approval_waits.append((rec.approved_t - rec.requested_t) / 3600.0)

    def report(self, end: float) -> dict[str, Any]:
        if not self.active:
            return {}  # no [lifecycle] in the scenario
        by_state = Counter(self.state.values())
        by_matter = Counter(k.partition(":")[0] for k in self.decisions.elements())
        by_decision = Counter(k.partition(":")[2] for k in self.decisions.elements())
        return {
            "machines_by_state": {s: by_state.get(s, 0) for s in STATES},
            "board_decisions": {m: by_matter.get(m, 0) for m in MATTERS},
            "board_decisions_by_outcome": {d: by_decision.get(d, 0) for d in DECISIONS},
            "board_wait_hours": {
                matter: {"n": len(w), "mean": round(sum(w) / len(w), 3), "max": round(max(w), 3)}
                for matter, w in sorted(self.waits.items())
            },
            "works": {k: self.works.get(k, 0) for k in WORK_KINDS},
            "work_outcomes": dict(sorted(self.outcomes.items())),
            "works_delayed_by_approval": len(self.approval_waits),
            "approval_wait_hours_total": round(sum(self.approval_waits), 3),
            "conversions": self.works.get("conversion", 0),
            "repairs": self.repairs,
            "outcome_affecting_repairs": self.outcome_repairs,
            "faults_found": self.faults,
            "faults_cleared": self.faults_cleared,
            "downtime_hours": {k: round(self.downtime.get(k, 0.0), 3) for k in WORK_KINDS},
            "downtime_hours_total": round(sum(self.downtime.values()), 3),
        }
