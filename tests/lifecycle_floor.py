"""The test floor of the lifecycle's controls (issue 27): ``scenarios/small.toml`` (40
machines) with a ``[lifecycle]`` section whose works exercise every workflow over four days,
run with injections, edits of the works and ruleset overrides."""

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
SMALL = ROOT / "scenarios" / "small.toml"
HOURS = 96.0

#: every kind of work once (twice for repairs), spread over the four days: the Board's
#: decisions take 48 hours, so the works that wait for an approval are done on day 3
WORKS: list[dict[str, Any]] = [
    {"kind": "repair", "machine": "A-003", "at_hours": 2, "part": "bill validator"},
    {"kind": "conversion", "machine": "B-005", "at_hours": 3,
     "game": "games/classic-3reel-90.toml"},
    {"kind": "fault", "machine": "T-002", "at_hours": 4, "fault": "dim reel lamp"},
    {"kind": "replacement", "machine": "B-010", "reserve": "B-R01", "at_hours": 5},
    {"kind": "disposal", "machine": "B-R02", "at_hours": 6},
    {"kind": "repair", "machine": "A-007", "at_hours": 7, "part": "reel-stepper controller",
     "outcome_affecting": True},
    {"kind": "certificate_request", "at_hours": 8},
    {"kind": "manual_request", "at_hours": 9},
    {"kind": "media_copy", "machine": "A-001", "at_hours": 10},
    {"kind": "move", "machine": "T-004", "zone": "main", "at_hours": 11},
    {"kind": "acquisition", "machine": "B-N01", "bank": "B", "at_hours": 12},
    {"kind": "suspension", "machine": "A-010", "at_hours": 13, "reason": "RNG seed fault",
     "restore_hours": 20},
    {"kind": "repair_log_request", "at_hours": 70},
]  # fmt: skip


def lifecycle(**edits: Any) -> dict[str, Any]:
    """The floor's ``[lifecycle]`` table (a fresh copy), with ``edits`` set on it."""
    table: dict[str, Any] = {
        "licensed_machines": 40,
        "reserve": [{"bank": "B", "count": 2}],
        "works": copy.deepcopy(WORKS),
    }
    table.update(edits)
    return table


def scenario_data(
    *,
    inject: list[dict[str, Any]] | None = None,
    overrides: dict[str, Any] | None = None,
    hours: float = HOURS,
    **edits: Any,
) -> dict[str, Any]:
    data = tomllib.loads(SMALL.read_text(encoding="utf-8"))
    data["scenario"]["duration_hours"] = hours
    data["lifecycle"] = lifecycle(**edits)
    return for_run(data, inject, overrides)


def run(
    *,
    inject: list[dict[str, Any]] | None = None,
    overrides: dict[str, Any] | None = None,
    hours: float = HOURS,
    **edits: Any,
) -> tuple[Casino, MemorySink]:
    """Run the floor (``edits`` set on ``[lifecycle]``) and keep every record."""
    data = scenario_data(inject=inject, overrides=overrides, hours=hours, **edits)
    return run_data(data, SMALL)


#: the small floor's own findings, whatever the lifecycle does: it has no door, cage or AML
#: desk, so the controls of those functions find them missing ("no such function")
ABSENT = frozenset(
    {"MT98.R8", "MT98.R45", "MT98.R48", "MT98.R50.1", "MT98.R41.a", "MT98.R46.2", "MT98.R46.3",
     "MT98.R46.4"}
)  # fmt: skip


def findings(sink: MemorySink) -> list[Finding]:
    """The run's findings, less the small floor's own (:data:`ABSENT`)."""
    return findings_besides(sink, ABSENT)
