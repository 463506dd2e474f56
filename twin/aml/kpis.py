"""The KPI section "aml" (``twin.metrics``): what the AML function did, and what it caught.

Built from records alone. The licensee's side: identifications by reason, cross-references
and their outcomes, red flags by kind, internal reports, the Reporting Officer's decisions,
reports to the police. The twin's side, read from ``laundering_act`` (which the licensee
never sees): for each strategy, the launderers who acted, how many of them were reported to
the police (the launderer or the associate named), and the hours from a launderer's first act
to that first report; and the honest patrons (admitted, never a launderer or an associate)
reported to the police: false reports.
"""

from __future__ import annotations

from statistics import median
from typing import Any

from twin.aml.records import (
    CashOutCrossReferenced,
    IdentificationRecorded,
    InternalReport,
    LaunderingAct,
    RedFlagObserved,
    ReportingOfficerAppointed,
    RoEvaluation,
    SuspicionReported,
)
from twin.door.records import CasinoLicensed, EntryAdmitted
from twin.records import Record


class AmlKpis:
    """The KPI section "aml" (see the module docstring)."""

    name = "aml"
    reads: tuple[type[Record], ...] = (
        ReportingOfficerAppointed,
        CasinoLicensed,
        EntryAdmitted,
        IdentificationRecorded,
        CashOutCrossReferenced,
        RedFlagObserved,
        InternalReport,
        RoEvaluation,
        SuspicionReported,
        LaunderingAct,
    )

    def __init__(self) -> None:
        self.home = ""
        self.admitted: set[str] = set()  # patrons admitted to play here
        self.identified: dict[str, int] = {}
        self.cross = {"checked": 0, "unmatched": 0, "not_from_winnings": 0}
        self.flags: dict[str, int] = {}
        self.flagged_patrons: set[str] = set()
        self.internal = 0
        self.decisions: dict[str, int] = {}
        self.police: dict[str, float] = {}  # patron -> first police report t
        self.police_reports = 0
        self.first_act: dict[str, tuple[str, float]] = {}  # launderer -> (strategy, t)
        self.associates: dict[str, str] = {}  # associate -> launderer
        self.seen = False

    def accept(self, rec: Record) -> None:
        self.seen = self.seen or not isinstance(rec, EntryAdmitted | CasinoLicensed)
        if isinstance(rec, CasinoLicensed):
            if rec.home:
                self.home = rec.casino
        elif isinstance(rec, EntryAdmitted):
            if rec.purpose == "play" and rec.casino == self.home:
                self.admitted.add(rec.person)
        elif isinstance(rec, IdentificationRecorded):
            self.identified[rec.reason] = self.identified.get(rec.reason, 0) + 1
        elif isinstance(rec, CashOutCrossReferenced):
            self.cross["checked"] += 1
            self.cross["unmatched"] += not rec.matched
            self.cross["not_from_winnings"] += rec.matched and not rec.from_winnings
        elif isinstance(rec, RedFlagObserved):
            self.flags[rec.flag] = self.flags.get(rec.flag, 0) + 1
            self.flagged_patrons.add(rec.patron)
        elif isinstance(rec, InternalReport):
            self.internal += 1
        elif isinstance(rec, RoEvaluation):
            self.decisions[rec.decision] = self.decisions.get(rec.decision, 0) + 1
        elif isinstance(rec, SuspicionReported):
            if rec.recipient == "police":
                self.police_reports += 1
                self.police.setdefault(rec.patron, rec.t)
        elif isinstance(rec, LaunderingAct):
            self.first_act.setdefault(rec.launderer, (rec.strategy, rec.t))
            if rec.associate:
                self.associates.setdefault(rec.associate, rec.launderer)

    def detection(self) -> dict[str, dict[str, Any]]:
        """Per strategy: launderers who acted, detected (reported to the police: themselves
        or their associate), the hours from the first act to that report, and the share."""
        report_of: dict[str, float] = {}
        for patron, t in self.police.items():
            lau = patron if patron in self.first_act else self.associates.get(patron)
            if lau is not None:
                report_of[lau] = min(t, report_of.get(lau, t))
        out: dict[str, dict[str, Any]] = {}
        for lau, (strategy, first) in sorted(self.first_act.items()):
            row = out.setdefault(strategy, {"launderers": 0, "detected": 0, "hours": []})
            row["launderers"] += 1
            if lau in report_of:
                row["detected"] += 1
                row["hours"].append(round(max(0.0, report_of[lau] - first) / 3600.0, 3))
        for row in out.values():
            row["detected_share"] = row["detected"] / row["launderers"]
            row["median_hours_to_report"] = median(row["hours"]) if row["hours"] else None
        return out

    def report(self, end: float) -> dict[str, Any]:
        if not self.seen:
            return {}
        involved = set(self.first_act) | set(self.associates)
        honest = self.admitted - involved
        false = sorted(p for p in self.police if p not in involved)
        return {
            "identifications": dict(sorted(self.identified.items())),
            "cross_references": dict(self.cross),
            "red_flags": dict(sorted(self.flags.items())),
            "internal_reports": self.internal,
            "evaluations": dict(sorted(self.decisions.items())),
            "police_reports": self.police_reports,
            "patrons_reported": len(self.police),
            "strategies": self.detection(),
            "honest_patrons": len(honest),
            "honest_flagged": len(self.flagged_patrons & honest),
            "false_reports": len(false),
            "false_report_share": len(false) / len(honest) if honest else 0.0,
            "falsely_reported": false[:50],
        }


__all__ = ["AmlKpis"]
