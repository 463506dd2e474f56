"""The canonical JSON of the link's records: the bytes the ledger hashes are ``json.dumps``'s.

The records of a SMIB event carry tuples of ints (meter deltas, snapshot values, evidence
seqs), which ``to_json`` writes without going through ``json``'s encoder; here they must be
exactly what ``json.dumps`` writes (bools stay ``true``/``false``, big ints stay exact).
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from twin.compliance.findings import Finding
from twin.hardware.records import SmibEvent, SmibMeters
from twin.records import _json_value

INTS = st.integers(min_value=-(2**80), max_value=2**80)


def canonical(doc: dict[str, Any]) -> str:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


@settings(max_examples=200, deadline=None)
@given(
    value=st.tuples(INTS, INTS)
    | st.lists(INTS, max_size=6).map(tuple)
    | st.lists(INTS | st.booleans(), max_size=4).map(tuple)
    | st.lists(st.text(max_size=5), max_size=3).map(tuple)
    | st.lists(INTS | st.text(max_size=3) | st.floats(), max_size=3).map(tuple)
)
def test_a_tuple_is_written_as_json_writes_it(value: tuple[Any, ...]) -> None:
    assert _json_value(value) == canonical(value)  # type: ignore[arg-type]


@settings(max_examples=100, deadline=None)
@given(deltas=st.lists(st.integers(min_value=0, max_value=2**70), max_size=5), seq=INTS)
def test_smib_records_to_json(deltas: list[int], seq: int) -> None:
    names = tuple(f"m{i}" for i in range(len(deltas)))
    evt = SmibEvent(
        seq=abs(seq),
        t=1.5,
        smib="B-001",
        eid=3,
        bd=1,
        code=127,
        name="game_ended",
        epoch=0,
        meters=names,
        deltas=tuple(deltas),
        data="{}",
        replay=False,
    )
    snap = SmibMeters(
        seq=2,
        t=0.0,
        smib="B-001",
        source="meters",
        epoch=0,
        as_of_eid=3,
        digits=8,
        meters=names,
        values=tuple(deltas),
        late=False,
    )
    found = Finding(
        seq=4,
        t=2.0,
        subjects=("B-001",),
        control="HW.reconcile",
        severity="breach",
        at="2026-01-01T00:00:00+00:00",
        message="m",
        evidence=(1, 2, abs(seq)),
    )
    for rec in (evt, snap, found):
        doc = {"kind": rec.kind, "seq": rec.seq, "t": rec.t, **rec.payload()}
        assert rec.to_json() == canonical(doc)
