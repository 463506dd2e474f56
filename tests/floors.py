"""Running a department's test floor: a scenario given as data (a shipped scenario's TOML
with sections edited), every record kept, and its findings less those of the functions the
floor lacks."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twin.casino import Casino
from twin.compliance.findings import Finding
from twin.departments import parse_scenario
from twin.records import MemorySink


def run_data(data: dict[str, Any], path: Path) -> tuple[Casino, MemorySink]:
    """Run the scenario ``data`` (read from ``path``: its games resolve beside it) and keep
    every record."""
    sc = parse_scenario(data, source=str(path), base_dir=path.parent)
    sink = MemorySink()
    casino = Casino(sc, sinks=[sink])
    casino.run()
    return casino, sink


def findings_besides(sink: MemorySink, absent: Iterable[str]) -> list[Finding]:
    """The run's findings, less those of the controls in ``absent``."""
    skip = frozenset(absent)
    return [r for r in sink.records if isinstance(r, Finding) and r.control not in skip]


def for_run(
    data: dict[str, Any], inject: list[dict[str, Any]] | None, overrides: dict[str, Any] | None
) -> dict[str, Any]:
    """``data`` with the run's ``[[inject]]`` entries and ruleset overrides set on it."""
    data["inject"] = list(inject or [])
    if overrides:
        data["ruleset"].setdefault("overrides", {}).update(overrides)
    return data


def cited_kinds(sink: MemorySink, finding: Finding) -> tuple[str, ...]:
    """The kinds of the records a finding cites as its evidence, in its order."""
    by_seq = {r.seq: r for r in sink.records}
    return tuple(by_seq[s].kind for s in finding.evidence)


@dataclass(frozen=True)
class Case:
    """An injected violation and exactly the finding it must produce."""

    inject: dict[str, Any]
    subjects: tuple[str, ...]
    message: str
    evidence: tuple[str, ...]  # the kinds of the records cited
