"""Random streams: one independent, reproducible generator per (seed, entity, purpose)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SCENARIOS

from twin.departments import load_scenario
from twin.patrons.population import Population, member_id
from twin.streams import Streams


def _draws(streams: Streams, entity: str, purpose: str, n: int = 8) -> list[float]:
    return streams.stream(entity, purpose).random(n).tolist()


def test_same_seed_entity_and_purpose_give_the_same_draws() -> None:
    a = _draws(Streams(42), "A-001", "games", 100)
    b = _draws(Streams(42), "A-001", "games", 100)
    assert a == b
    assert len(set(a)) == 100


def test_draws_are_pinned_to_the_seed_sequence_construction() -> None:
    """The stream is PCG64 seeded by SeedSequence(root seed, spawn key of the names)."""
    streams = Streams(7)
    seq = streams.seed_sequence("A-001", "games")
    assert seq.entropy == 7
    assert len(seq.spawn_key) == 4
    want = np.random.Generator(np.random.PCG64(seq)).random(5).tolist()
    assert streams.stream("A-001", "games").random(5).tolist() == want


def test_spawn_key_is_stable_across_processes() -> None:
    """The key is a hash of the names, not Python's salted hash(): fixed for ever."""
    key = Streams(0).seed_sequence("A-001", "games").spawn_key
    assert Streams(0).seed_sequence("A-001", "games").spawn_key == key
    assert key != Streams(0).seed_sequence("A-002", "games").spawn_key
    assert all(0 <= k < 2**32 for k in key)


@pytest.mark.parametrize(
    ("entity", "purpose"),
    [("A-002", "games"), ("A-001", "features"), ("a-001", "games"), ("A-001games", "")],
)
def test_a_different_entity_or_purpose_gives_different_draws(entity: str, purpose: str) -> None:
    base = _draws(Streams(42), "A-001", "games")
    other = _draws(Streams(42), entity, purpose)
    assert other != base
    assert not set(other) & set(base)


def test_the_separator_keeps_entity_and_purpose_apart() -> None:
    """("ab", "c") and ("a", "bc") are different streams."""
    assert _draws(Streams(1), "ab", "c") != _draws(Streams(1), "a", "bc")


def test_a_different_seed_gives_different_draws() -> None:
    assert _draws(Streams(1), "A-001", "games") != _draws(Streams(2), "A-001", "games")


def test_adding_entities_does_not_change_an_existing_stream() -> None:
    alone = Streams(5)
    want = _draws(alone, "B-003", "games", 50)

    crowded = Streams(5)
    for i in range(200):
        crowded.stream(f"P{i:06d}", "attributes").random(17)
        crowded.stream(f"A-{i:03d}", "games").random(3)
    crowded.stream("arrivals", "times").exponential(10.0, size=100)
    assert _draws(crowded, "B-003", "games", 50) == want


def test_a_population_and_its_visits_do_not_change_an_existing_stream() -> None:
    """Building any population, picking arrivals and drawing visit plans touch only their
    own streams: ("population", "members"), ("arrivals", "who"), (member, "visit:<n>")."""
    patrons = load_scenario(SCENARIOS / "small.toml").patrons
    alone = Streams(5)
    want = {
        (e, p): _draws(alone, e, p, 50) for e in ("B-003", "A-001") for p in ("games", "features")
    }
    want_times = _draws(alone, "arrivals", "times", 20)

    crowded = Streams(5)
    for size in (1, 2_000, 2_001):
        pop = Population.build(
            patrons.model_copy(
                update={"population": patrons.population.model_copy(update={"size": size})}
            ),
            crowded,
        )
        who = crowded.stream("arrivals", "who")
        for _ in range(min(size, 300)):
            i = pop.pick_outside(who)
            assert i is not None
            crowded.fresh(member_id(i), f"visit:{pop.enter(i)}").random(9)
    assert {k: _draws(crowded, *k, 50) for k in want} == want
    assert _draws(crowded, "arrivals", "times", 20) == want_times


def test_interleaving_draws_does_not_change_any_stream() -> None:
    s1, s2 = Streams(3), Streams(3)
    a1 = [s1.stream("A", "x").random() for _ in range(20)]
    b1 = [s1.stream("B", "x").random() for _ in range(20)]
    a2, b2 = [], []
    for _ in range(20):
        b2.append(s2.stream("B", "x").random())
        a2.append(s2.stream("A", "x").random())
    assert (a1, b1) == (a2, b2)


def test_stream_is_cached_and_continues() -> None:
    streams = Streams(9)
    gen = streams.stream("A-001", "games")
    assert streams.stream("A-001", "games") is gen
    first = gen.random(4).tolist()
    then = streams.stream("A-001", "games").random(4).tolist()
    assert first + then == Streams(9).stream("A-001", "games").random(8).tolist()


def test_fresh_restarts_at_the_beginning_and_is_independent() -> None:
    streams = Streams(9)
    start = _draws(Streams(9), "P000001", "attributes", 6)
    cached = streams.stream("P000001", "attributes")
    cached.random(10)
    fresh = streams.fresh("P000001", "attributes")
    assert fresh is not cached
    assert fresh.random(6).tolist() == start
    # a second fresh one starts over again, and drawing from it leaves the cached one alone
    assert streams.fresh("P000001", "attributes").random(6).tolist() == start
    assert cached.random() == Streams(9).stream("P000001", "attributes").random(11)[10]


def test_keyed_is_pcg64_seeded_by_the_hash_digest() -> None:
    """keyed(e, p): PCG64 whose state words are blake2b(seed, e, p), pinned draws."""
    import hashlib

    digest = hashlib.blake2b(b"7\x1fP000001\x1fvisit:1", digest_size=32).digest()
    words = [int.from_bytes(digest[i : i + 8], "little") for i in range(0, 32, 8)]
    gen = Streams(7).keyed("P000001", "visit:1")
    state = gen.bit_generator.state["state"]
    # numpy's PCG64 seeding: state from words 0-1, stream increment from words 2-3
    inc = (words[2] << 64 | words[3]) << 1 | 1
    assert state["inc"] == inc % 2**128
    assert gen.random(3).tolist() == Streams(7).keyed("P000001", "visit:1").random(3).tolist()
    assert gen.random() != Streams(7).fresh("P000001", "visit:1").random()


@pytest.mark.parametrize(
    ("seed", "entity", "purpose"),
    [(7, "P000002", "visit:1"), (7, "P000001", "visit:2"), (8, "P000001", "visit:1")],
)
def test_keyed_streams_differ_by_seed_entity_and_purpose(
    seed: int, entity: str, purpose: str
) -> None:
    base = Streams(7).keyed("P000001", "visit:1").random(8).tolist()
    other = Streams(seed).keyed(entity, purpose).random(8).tolist()
    assert not set(other) & set(base)


def test_negative_seed_is_refused() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        Streams(-1)


def _seeded(streams: Streams, entity: str, purpose: str) -> dict[str, object]:
    gen = np.random.Generator(np.random.PCG64(streams.seed_sequence(entity, purpose)))
    return gen.bit_generator.state


def test_fresh_is_the_generator_of_the_seed_sequence() -> None:
    """``fresh``/``stream`` compute the seed words themselves (``_SpawnMixer``): the very
    same PCG64 state as ``PCG64(seed_sequence(...))``, for every name tried and for roots
    of one, two, four and five 32-bit words (a root past four words is hashed in after the
    pool is mixed, like the key)."""
    for root in (0, 7, 2**32 - 1, 2**40 + 3, 2**128 - 1, 2**130 + 5):
        streams = Streams(root)
        for i in range(300):
            entity = f"P-{i:05d}"
            assert streams.fresh(entity, "visit").bit_generator.state == _seeded(
                streams, entity, "visit"
            )


@pytest.mark.parametrize(
    "words",
    [(1, 2, 3, 0), (5, 0, 0, 0), (0, 0, 0, 9), (0, 4, 0, 1), (2**32 - 1,) * 4, (0, 0, 0, 0)],
)
def test_fresh_keeps_every_word_of_any_digest(
    monkeypatch: pytest.MonkeyPatch, words: tuple[int, int, int, int]
) -> None:
    """Digests with zero words (a zero last word once in 2**32 names): the key is always
    hashed as its four words, as the seed sequence of the four-word spawn key does."""
    import struct

    import twin.streams as streams_module

    monkeypatch.setattr(streams_module, "_digest", lambda e, p: struct.pack("<4I", *words))
    streams = Streams(11)
    assert streams.seed_sequence("x", "y").spawn_key == words
    assert streams.fresh("x", "y").bit_generator.state == _seeded(streams, "x", "y")
