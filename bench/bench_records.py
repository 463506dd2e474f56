"""What one record costs: made, encoded for the ledger, handed to the sink process (issue 31).

Run as ``python bench/bench_records.py`` (``--n N`` records per timing, ``--reps R``).

For the most common record of a default day, ``games_played`` (12 fields; ~40 % of a day's
records), each repetition times, per record:

* ``make``: ``GamesPlayed(seq=..., t=..., **fields)``, as the record bus makes every record
  (a frozen, slotted dataclass);
* ``ledger JSON``: ``Record.to_json()``, the canonical text the ledger hashes (a per-class
  function built once);
* ``to the sink process``: the record as (kind, values) by ``operator.attrgetter`` and
  pickled in batches of 100 (what the run's side of :mod:`twin.sinkproc` costs), and
  ``rebuilt``: unpickled and made again (the sink process's side).

With msgspec importable (it is not a dependency: ``pip install msgspec`` into a scratch
folder and ``PYTHONPATH`` it), the same record as a frozen ``msgspec.Struct`` is timed too:
made, and encoded by ``msgspec.json.encode`` (whose bytes are checked against ``to_json``).
"""

from __future__ import annotations

import argparse
import dataclasses
import pickle
import statistics
import time
from collections.abc import Callable
from operator import attrgetter
from typing import Any

import _util  # noqa: F401 - this checkout first on sys.path
from _util import environment

from twin.machines.events import GamesPlayed

FIELDS: dict[str, Any] = dict(
    machine="A-017", patron="P004711", games=87, bet_units=3, wagered=261, won=198,
    games_won=19, free_games=0, credits=1234, stop="bankroll",
)  # fmt: skip


def per_record(fn: Callable[[int], object], n: int) -> float:
    t0 = time.perf_counter()
    fn(n)
    return (time.perf_counter() - t0) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    n = args.n
    recs = [GamesPlayed(seq=i, t=float(i), **FIELDS) for i in range(1000)]
    names = tuple(f.name for f in dataclasses.fields(GamesPlayed))
    get = attrgetter(*names)

    def make(k: int) -> None:
        for i in range(k):
            GamesPlayed(seq=i, t=1.5, **FIELDS)

    def to_json(k: int) -> None:
        for i in range(k):
            recs[i % 1000].to_json()

    def hand_over(k: int) -> None:
        for start in range(0, k, 100):
            at = start % 1000
            pickle.dumps([("games_played", get(r)) for r in recs[at : at + 100]])

    batch = pickle.dumps([("games_played", get(r)) for r in recs[:100]])

    def rebuilt(k: int) -> None:
        for _ in range(0, k, 100):
            for _kind, values in pickle.loads(batch):
                GamesPlayed(**dict(zip(names, values, strict=True)))

    cases: dict[str, Callable[[int], None]] = {
        "make (frozen dataclass)": make,
        "ledger JSON (to_json)": to_json,
        "to the sink process (attrgetter + pickle)": hand_over,
        "rebuilt in the sink process (unpickle + make)": rebuilt,
    }
    try:
        import msgspec

        class GamesPlayedStruct(msgspec.Struct, frozen=True, kw_only=True, tag="games_played",
                                tag_field="kind"):  # fmt: skip
            seq: int
            t: float
            machine: str
            patron: str
            games: int
            bet_units: int
            wagered: int
            won: int
            games_won: int
            free_games: int
            credits: int
            stop: str

        structs = [GamesPlayedStruct(seq=i, t=float(i), **FIELDS) for i in range(1000)]
        encode = msgspec.json.Encoder().encode
        same = all(encode(s).decode() == r.to_json() for s, r in zip(structs, recs, strict=True))

        def make_struct(k: int) -> None:
            for i in range(k):
                GamesPlayedStruct(seq=i, t=1.5, **FIELDS)

        def encode_struct(k: int) -> None:
            for i in range(k):
                encode(structs[i % 1000])

        cases["make (msgspec.Struct)"] = make_struct
        cases[f"JSON (msgspec.json.encode; same bytes as to_json: {same})"] = encode_struct
    except ImportError:
        print("(msgspec not importable: its rows are left out)")
    print("bench_records: " + environment())
    got: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.reps):
        for name, fn in cases.items():
            got[name].append(per_record(fn, n))
    print(f"\n| per record, µs (median of {args.reps}) | µs | reps |")
    print("|---|---:|---|")
    for name, xs in got.items():
        print(f"| {name} | {statistics.median(xs):.2f} | {min(xs):.2f}..{max(xs):.2f} |")


if __name__ == "__main__":
    main()
