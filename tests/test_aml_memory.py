"""The AML desk's and checkers' memory stays flat over a long run (issue 31, P7): a window
once left is never read again, so only each person's current window is kept; every money
transaction a later record may name is kept, packed (``Amounts``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from twin.casino import Casino
from twin.compliance.checks.aml import Amounts, MoneyTrail
from twin.departments import load_scenario
from twin.door.records import EntryAdmitted
from twin.records import MemorySink

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


def test_amounts_is_a_packed_dict_of_transactions() -> None:
    a = Amounts()
    a[10] = ("P1", 500)
    a[12] = ("P2", 700)
    a[11] = ("P1", 300)  # a late one (the notes of a session's first instant) in its place
    a[12] = ("P3", 900)  # the same seq again: its last reading, as a dict keeps it
    a[5] = ("P2", 100)  # before every other
    assert len(a) == 4
    assert [a[s] for s in (5, 10, 11, 12)] == [("P2", 100), ("P1", 500), ("P1", 300), ("P3", 900)]
    assert 11 in a and 13 not in a and 4 not in a and "11" not in a
    assert a.get(13) is None and a.get(13, ("", 0)) == ("", 0) and a.get(10) == ("P1", 500)
    with pytest.raises(KeyError):
        a[6]


def test_one_window_a_person_however_many_visits() -> None:
    """Two days of the AML floor: people come back (more admissions than people), and the
    desk and the checkers' money trail each hold one window a person, not one a visit."""
    sc = load_scenario(SCENARIOS / "aml.toml").with_overrides(duration_hours=48.0)
    sink = MemorySink()
    casino = Casino(sc, sinks=[sink])
    casino.run()
    desk = casino.aml
    assert desk is not None and casino.compliance is not None
    trail = casino.compliance.ctx.shared[MoneyTrail.KEY]
    assert isinstance(trail, MoneyTrail) and trail.home
    admitted = [
        r
        for r in sink.records
        if isinstance(r, EntryAdmitted) and r.purpose == "play" and r.casino == trail.home
    ]
    people = {r.person for r in admitted}
    assert len(admitted) > len(people) + 100  # many came back
    for current in (desk._current, trail._current):
        assert 0 < len(current) <= len(people) + len(desk.stays)
    # each window kept is the person's own, of a visit of theirs (their last with money)
    last = {r.person: r.visit for r in admitted}
    for person, (key, _) in trail._current.items():
        who, _, visit = key.partition("#")
        assert who == person and (visit == "stay" or 0 <= int(visit) <= last[person]), key
    assert len(trail.amounts) > 1000
