"""Caches added for speed: each gives exactly what it caches, computed once."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import GAMES

import twin.machines.facts as compliance_engine
from twin.machines.analysis import Analysis, analyse
from twin.machines.facts import FloorFacts
from twin.machines.par import load_game


def test_floor_facts_analyse_a_program_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two casinos' facts (two FloorFacts, two loads of the file) share one analysis."""
    calls: list[str] = []

    def counting(game: Any) -> Analysis:
        calls.append(game.signature)
        return analyse(game)

    monkeypatch.setattr(compliance_engine, "analyse", counting)
    monkeypatch.setattr(compliance_engine, "_ANALYSES", {})
    path = GAMES / "classic-3reel.toml"
    first, second = load_game(path), load_game(path)
    a = FloorFacts(programs={first.signature: first}).analysis(first.signature)
    b = FloorFacts(programs={second.signature: second}).analysis(second.signature)
    assert a is b
    assert a == analyse(second)
    assert calls == [first.signature]
    other = load_game(GAMES / "video-5reel.toml")
    c = FloorFacts(programs={other.signature: other}).analysis(other.signature)
    assert c is not None and c.signature == other.signature != first.signature
    assert len(calls) == 2


class _Venue:
    """Closes every 100 s (at 100, 200, ...); counts the questions."""

    def __init__(self) -> None:
        self.asked: list[float] = []

    def closing_after(self, t: float) -> float:
        self.asked.append(t)
        return (t // 100 + 1) * 100.0


def test_closing_times_give_the_venue_answer_and_ask_once_per_opening() -> None:
    from twin.patrons.patron import ClosingTimes

    venue = _Venue()
    closing = ClosingTimes(venue)  # type: ignore[arg-type]
    times = [0.0, 5.0, 99.5, 100.0, 100.0, 150.0, 199.984375, 250.0, 30.0]
    got = [closing(t) for t in times]
    assert got == [_Venue().closing_after(t) for t in times]
    assert got == [100.0, 100.0, 100.0, 200.0, 200.0, 200.0, 200.0, 300.0, 100.0]
    assert venue.asked == [0.0, 100.0, 250.0, 30.0]


def test_to_json_is_the_canonical_json_whatever_the_values() -> None:
    """The compiled encoder tests the declared type first; any value still encodes exactly."""
    import json
    import math

    from twin.records import Record, record

    @record("test_perf_mixed")
    class Mixed(Record):
        n: int
        x: float
        s: str
        flag: bool
        ids: tuple[str, ...]

    def canonical(r: Record) -> str:
        doc = {"kind": r.kind, "seq": r.seq, "t": r.t, **r.payload()}
        return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)

    odd: list[dict[str, Any]] = [
        {"n": 3, "x": 0.1, "s": 'é\n"', "flag": True, "ids": ("a", "b")},
        {"n": True, "x": 2, "s": "", "flag": False, "ids": ()},  # a bool as int, int as float
        {"n": 2.5, "x": math.inf, "s": "x", "flag": 1, "ids": ("",)},  # float as int, inf
        {"n": -(2**70), "x": -math.inf, "s": "y", "flag": True, "ids": ("z",)},
        {"n": 0, "x": math.nan, "s": "q", "flag": False, "ids": ("z",)},
        {"n": 0, "x": -0.0, "s": 7, "flag": None, "ids": (1, 2)},  # wrong types
    ]
    for i, values in enumerate(odd):
        rec = Mixed(seq=i, t=float(i) / 64, **values)
        assert rec.to_json() == canonical(rec), values
    late = Mixed(seq=1, t=math.inf, n=1, x=1.0, s="", flag=True, ids=())
    assert late.to_json() == canonical(late)


@pytest.mark.parametrize("threshold", [(700, 10, 10), (50_000, 5, 5), (0, 10, 10)])
def test_young_collections_are_batched_while_the_model_runs(threshold: tuple[int, int, int]):
    """While the model runs, Python collects young objects every 20,000 allocations (not
    every 700); a higher setting, or collection turned off, is left alone; and whatever the
    setting was, it is back once the run returns, after ``advance`` and after ``finish``."""
    import gc

    from conftest import SCENARIOS

    from twin.casino import Casino
    from twin.departments import load_scenario
    from twin.records import MemorySink

    casino = Casino(load_scenario(SCENARIOS / "tiny.toml"), sinks=[MemorySink()])
    casino.start()
    seen: list[tuple[int, int, int]] = []

    def probe(env: Any) -> Any:
        yield env.timeout(60.0)
        seen.append(gc.get_threshold())

    casino.env.process(probe(casino.env))
    old = gc.get_threshold()
    gc.set_threshold(*threshold)
    try:
        casino.advance(3600.0)
        assert gc.get_threshold() == threshold
        casino.finish()
        assert gc.get_threshold() == threshold
        again = Casino(load_scenario(SCENARIOS / "tiny.toml"), sinks=[MemorySink()])
        again.start()
        again.env.process(probe(again.env))
        again.run(until=3600.0)  # the fast driver, around its whole loop
        assert gc.get_threshold() == threshold
    finally:
        gc.set_threshold(*old)
    relaxed = threshold if threshold[0] in (0, 50_000) else (20_000, *threshold[1:])
    assert seen == [relaxed, relaxed]


def test_per_object_cache_derives_once_per_object_and_stays_bounded() -> None:
    """``twin.memo.PerObject``: one derivation per object (by identity: an equal object is
    another entry), the object kept with its value (so a recycled id cannot return another
    object's value), and at most ``size`` entries."""
    import gc

    from twin.memo import PerObject

    made: list[object] = []

    def derive(obj: list[int]) -> int:
        made.append(obj)
        return sum(obj)

    cache: PerObject[list[int], int] = PerObject(derive, size=3)
    a, b = [1, 2], [1, 2]
    assert cache.get(a) == 3 and cache.get(a) == 3 and cache.get(b) == 3
    assert made == [a, b] and made[0] is a and made[1] is b
    for i in range(10):  # short-lived objects: their ids may be reused, never their values
        x = [i]
        assert cache.get(x) == i
        del x
        gc.collect()
    assert len(cache._hits) <= 3
