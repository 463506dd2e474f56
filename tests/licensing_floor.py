"""The test floor of the licensing controls (issue 28): ``scenarios/tiny.toml`` (4 machines)
with two twelve-hour shifts and a ``[licensing]`` section whose events exercise every
workflow over thirty days (hires, a provisional licence and a full one lapsing, a variation,
cover in both directions, changes, a request, a condition, two grounds, a leave), run with
injections, edits and ruleset overrides."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

from floors import findings_besides, for_run, run_data

from twin.casino import Casino
from twin.compliance.findings import Finding
from twin.records import MemorySink

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "scenarios" / "tiny.toml"
DAYS = 30.0

STAFF: dict[str, Any] = {
    "roles": [
        {"id": "attendant", "prefix": "ATT", "title": "Slot attendant"},
        {"id": "technician", "prefix": "TEC", "title": "Slot technician"},
        {"id": "inspector", "prefix": "INS", "title": "Board inspector", "employer": "board"},
        {"id": "cashier", "prefix": "CSH", "title": "Cashier"},
    ],
    "shifts": [
        {"name": "day", "start": "06:00", "end": "18:00",
         "crew": {"attendant": 3, "technician": 2, "inspector": 2, "cashier": 1}},
        {"name": "night", "start": "18:00", "end": "06:00",
         "crew": {"attendant": 3, "technician": 2, "inspector": 2}},
    ],
}  # fmt: skip

#: the staff's month: every kind of event, the Board taking two days unless told otherwise
EVENTS: list[dict[str, Any]] = [
    {"kind": "hire", "member": "ATT-day-04", "role": "attendant", "shift": "day",
     "at_days": 3, "applied_days_before": 3, "decision_days": 10},
    {"kind": "hire", "member": "ATT-day-05", "role": "attendant", "shift": "day",
     "at_days": 4, "applied_days_before": 2, "age": 17},
    {"kind": "hire", "member": "TEC-day-03", "role": "technician", "shift": "day",
     "at_days": 5, "applied_days_before": 1, "provisional": False, "decision_days": 6},
    {"kind": "change", "member": "ATT-day-01", "at_days": 1, "particular": "address"},
    {"kind": "info_request", "member": "ATT-day-04", "at_days": 1, "particular": "references"},
    {"kind": "condition", "member": "ATT-day-02", "at_days": 8,
     "condition": "no work at the cash desks"},
    {"kind": "variation", "member": "ATT-night-02", "role": "technician", "at_days": 2},
    {"kind": "cover", "member": "ATT-day-01", "role": "technician", "at_days": 10, "days": 3},
    {"kind": "cover", "member": "TEC-day-01", "role": "attendant", "at_days": 12, "days": 2},
    {"kind": "ground", "member": "ATT-day-03", "at_days": 1.5, "ground": "bankruptcy",
     "aware_hours": 2, "outcome": "suspend", "suspend_days": 3},
    {"kind": "ground", "member": "ATT-night-03", "at_days": 1.2, "ground": "condition_breach",
     "outcome": "condition", "condition": "AML refresher training", "term_days": 4,
     "complies": False, "suspend_days": 2},
    {"kind": "leave", "member": "TEC-night-02", "at_days": 20, "reason": "resignation"},
]  # fmt: skip
HOLDERS: list[dict[str, Any]] = [
    {"member": "ATT-night-01", "kind": "provisional", "issued_days_ago": 88, "decision_days": 6},
    {"member": "TEC-night-01", "kind": "full", "issued_days_ago": 5 * 365},
]  # fmt: skip


def licensing(**edits: Any) -> dict[str, Any]:
    """The floor's ``[licensing]`` table (a fresh copy), with ``edits`` set on it."""
    table: dict[str, Any] = {
        "casino": "Casino Tiny",
        "board_decision_days": 2,
        "events": copy.deepcopy(EVENTS),
        "holders": copy.deepcopy(HOLDERS),
    }
    table.update(edits)
    return table


def scenario_data(
    *,
    inject: list[dict[str, Any]] | None = None,
    overrides: dict[str, Any] | None = None,
    days: float = DAYS,
    **edits: Any,
) -> dict[str, Any]:
    data = tomllib.loads(TINY.read_text(encoding="utf-8"))
    data["scenario"]["duration_hours"] = days * 24
    data["staff"] = copy.deepcopy(STAFF)
    data["licensing"] = licensing(**edits)
    return for_run(data, inject, overrides)


def run(
    *,
    inject: list[dict[str, Any]] | None = None,
    overrides: dict[str, Any] | None = None,
    days: float = DAYS,
    **edits: Any,
) -> tuple[Casino, MemorySink]:
    """Run the floor (``edits`` set on ``[licensing]``) and keep every record."""
    data = scenario_data(inject=inject, overrides=overrides, days=days, **edits)
    return run_data(data, TINY)


def findings(sink: MemorySink) -> list[Finding]:
    """The run's findings (the tiny floor has no door, cage or AML desk: :data:`ABSENT`)."""
    return findings_besides(sink, ABSENT)


#: the tiny floor's own findings, whatever the licensing does
ABSENT = frozenset(
    {"MT98.R45", "MT98.R48", "MT98.R50.1", "MT98.R41.a", "MT98.R46.2", "MT98.R46.3",
     "MT98.R46.4"}
)  # fmt: skip
