"""Running a department's test floor: a scenario given as data (a shipped scenario's TOML
with sections edited), every record kept, and its findings less those of the functions the
floor lacks."""

from __future__ import annotations

from collections.abc import Iterable
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
