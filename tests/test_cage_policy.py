"""Issue 34: how long the casino keeps its books is its own policy (``[cage.policy]``); the
Board asks for what the law says must exist, not for what the casino made.

A casino that keeps its accounts and payment records 3 years (the law: 10 and 5) has no
volume older than that at the start of the run, and nothing in its records says so: the
finding comes when a Board inspector asks for such a period (43(1), 37(3)). The same casino
with the default policy produces every volume asked for.
"""

from __future__ import annotations

from datetime import date

from conftest import besides_absent_functions
from dateutil.relativedelta import relativedelta
from test_cage import run, scenario

from twin.floor.cage import retention_ends
from twin.floor.cage_events import (
    RecordDestroyed,
    RecordsNotProduced,
    RecordsProduced,
    RecordsRequested,
    RecordVolume,
)

SHORT = {"accounts_years": 3, "payment_records_years": 3}
LAW = {"accounts": 10, "payment_records": 5, "internal_audit": 1}


def test_a_casino_that_keeps_its_books_3_years_is_found_when_the_board_asks() -> None:
    casino, records = run(scenario(policy=SHORT, record_requests_per_day=24.0))
    asked = {r.request: r for r in records if isinstance(r, RecordsRequested)}
    missing = [r for r in records if isinstance(r, RecordsNotProduced)]
    clock = casino.world.clock
    listed = {r.volume: r.seq for r in records if isinstance(r, RecordVolume)}
    gone = {r.volume: r.seq for r in records if isinstance(r, RecordDestroyed)}
    not_held = {  # never listed (destroyed before the run) or destroyed before the request
        r.request
        for r in asked.values()
        if r.volume not in listed or gone.get(r.volume, r.seq) < r.seq
    }
    assert not_held  # the Board asked for periods the casino no longer had ...
    assert {m.request for m in missing} == not_held  # ... and exactly those were missing
    for q in not_held:  # each under the casino's 3 years, never the law's
        r = asked[q]
        assert r.category in SHORT_CATEGORIES
        assert retention_ends(date.fromisoformat(r.last_entry), 3) <= clock.at(r.t).date()
    assert any(asked[q].volume not in listed for q in not_held)  # the invisible ones too
    found = besides_absent_functions(casino.compliance.findings, cage=True)  # no door, no AML
    by_control: dict[str, set[str]] = {}
    for f in found:
        by_control.setdefault(f.control, set()).add(f.subjects[0])
    # one finding per volume: destroyed in the run before the law's period ended, or asked
    # for and missing (destroyed before the run: nothing else shows it)
    control_of = {"accounts": "MT98.R43.1", "payment_records": "MT98.R37.3"}
    expected: dict[str, set[str]] = {}
    for d in records:
        if isinstance(d, RecordDestroyed) and d.category in control_of:
            expected.setdefault(control_of[d.category], set()).add(d.volume)
    for m in missing:
        expected.setdefault(control_of[asked[m.request].category], set()).add(m.volume)
    assert by_control == expected
    assert set(expected) == {"MT98.R43.1", "MT98.R37.3"}
    # every period asked for lies within the law's own period
    for r in asked.values():
        ends = date.fromisoformat(r.last_entry) + relativedelta(years=LAW[r.category])
        assert casino.world.clock.at(r.t).date() < ends


def test_with_the_law_s_periods_every_volume_asked_for_is_produced() -> None:
    casino, records = run(scenario(record_requests_per_day=24.0))
    asked = [r for r in records if isinstance(r, RecordsRequested)]
    produced = [r for r in records if isinstance(r, RecordsProduced)]
    assert asked and not [r for r in records if isinstance(r, RecordsNotProduced)]
    assert len(produced) == len(asked)
    found = besides_absent_functions(casino.compliance.findings, cage=True)
    assert not {"MT98.R43.1", "MT98.R37.3"} & {f.control for f in found}


SHORT_CATEGORIES = {"accounts", "payment_records"}
