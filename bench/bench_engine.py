"""Benchmark of the slot engines (targets P1 and P2 of shared/design/performance.md).

Run as ``python bench/bench_engine.py`` (``--quick`` for a smoke run, ``--reps N``).

For each game (``video-5reel``: 5 reels, 20 lines, free spins; ``classic-3reel``: 3 weighted
reels, 1 line) and each size (number of sessions), it builds seeded ``PlayRequest`` s
(credits, bet units, 300-1500 games allowed, a loss floor, a win goal and, for half of them,
a lock threshold that a big win can reach) and plays them in order, as one machine would, on
one base stream and one feature stream (``PCG64``, fresh for every timing). Per repetition,
interleaved:

* ``batched``  - ``BatchedEngine.play`` over ``UniformTape`` s of the two generators (its
  numpy path: ``compiled=False``);
* ``compiled`` - the same with the compiled kernels (``twin.speedups``: built, or
  ``TWIN_SPEEDUPS=<folder>``), when there are; its results must be the batched ones;
* ``per-spin`` - ``PerSpinEngine.play`` on the plain generators (the reference);
* ``bare``     - the numpy ceiling: for each session, ``rng.random((games, reels))`` for the
  games the batched engine actually played, ``game.evaluate`` and a sum of ``win_units``;
  nothing else (no features, no stops, no meters).

The per-spin results must equal the batched ones exactly (every ``PlayResult`` field, and
both streams left at the same place), or the script stops with an error. Throughput is paid
games ("spins") per second; free games are played too but not counted. P1 is
per-spin time ÷ batched time and P2 is bare time ÷ batched time (the batched engine's share
of the bare ceiling), each the median of per-repetition ratios; ``C×`` is batched time ÷
compiled time.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from _util import Verdict, environment, fmt, median, spread, table, verdict_table

from twin import speedups
from twin.machines.engine import BatchedEngine, PerSpinEngine, PlayRequest, PlayResult, UniformTape
from twin.machines.par import Game, load_game

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("video-5reel", "classic-3reel")
P1_TARGET = 25.0
P2_TARGET = 0.5
SIZES = (200, 800)
QUICK_SIZES = (40, 160)


def make_requests(game: Game, n: int, seed: int) -> list[PlayRequest]:
    """``n`` varied sessions for ``game`` (all amounts in credits)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        bet = int(rng.integers(1, 6))
        wager = bet * game.cost
        credits = wager * int(rng.integers(40, 400))
        floor = credits - int(credits * rng.uniform(0.3, 1.0))
        goal = int(credits * rng.uniform(1.5, 4.0))
        lock = wager * int(rng.integers(100, 400)) if rng.random() < 0.5 else 2**62
        out.append(
            PlayRequest(
                credits=credits,
                bet_units=bet,
                max_games=int(rng.integers(300, 1501)),
                floor_credits=max(0, floor),
                goal_credits=goal,
                lock_credits=lock,
            )
        )
    return out


def streams(seed: int) -> tuple[np.random.Generator, np.random.Generator]:
    """Fresh base and feature generators (the same values on every call)."""
    base, feature = np.random.SeedSequence(seed).spawn(2)
    return np.random.Generator(np.random.PCG64(base)), np.random.Generator(np.random.PCG64(feature))


@dataclass
class Case:
    game: Game
    requests: list[PlayRequest]
    seed: int
    results: list[PlayResult] | None = None

    def run_batched(self, compiled: bool = False) -> tuple[float, list[PlayResult], float]:
        engine = BatchedEngine(self.game, compiled=compiled)
        base_rng, feature_rng = streams(self.seed)
        t0 = time.perf_counter()
        base, feature = UniformTape(base_rng), UniformTape(feature_rng)
        play = engine.play
        results = [play(req, base, feature) for req in self.requests]
        dt = time.perf_counter() - t0
        # the next uniform of each stream, to check where the engines left them
        return dt, results, float(base.peek(1)[0]) + float(feature.peek(1)[0])

    def run_per_spin(self) -> tuple[float, list[PlayResult], float]:
        engine = PerSpinEngine(self.game)
        base, feature = streams(self.seed)
        t0 = time.perf_counter()
        play = engine.play
        results = [play(req, base, feature) for req in self.requests]
        dt = time.perf_counter() - t0
        return dt, results, base.random() + feature.random()

    def run_bare(self, games: list[int]) -> float:
        game = self.game
        r = game.draws_per_spin
        rng, _ = streams(self.seed)
        t0 = time.perf_counter()
        total = 0
        for n in games:
            if n:
                total += int(game.evaluate(rng.random((n, r))).win_units.sum())
        dt = time.perf_counter() - t0
        assert total >= 0
        return dt


@dataclass
class Measured:
    game: str
    sessions: int
    games: int
    free_games: int
    stops: Counter[str]
    batched: list[float]
    per_spin: list[float]
    bare: list[float]
    compiled: list[float]  # empty without compiled kernels

    def rate(self, times: list[float]) -> float:
        return self.games / median(times)

    @property
    def p1(self) -> list[float]:
        return [p / b for p, b in zip(self.per_spin, self.batched, strict=True)]

    @property
    def speedup(self) -> list[float]:
        return [b / c for b, c in zip(self.batched, self.compiled, strict=True)]

    @property
    def p2(self) -> list[float]:
        return [c / b for c, b in zip(self.bare, self.batched, strict=True)]


def measure(
    game: Game, sessions: int, reps: int, seed: int, say: Callable[[str], None]
) -> Measured:
    case = Case(game, make_requests(game, sessions, seed), seed)
    times: dict[str, list[float]] = {"batched": [], "per_spin": [], "bare": [], "compiled": []}
    kernels = speedups.load() is not None
    games: list[int] = []
    ref: list[PlayResult] = []
    for rep in range(reps):
        dt, results, tail = case.run_batched()
        times["batched"].append(dt)
        if rep == 0:
            ref = results
            games = [res.games for res in results]
        elif results != ref:
            raise SystemExit(f"{game.id}: the batched engine is not reproducible")
        if kernels:
            dt, results, fast_tail = case.run_batched(compiled=True)
            times["compiled"].append(dt)
            if results != ref or fast_tail != tail:
                raise SystemExit(f"{game.id}: the compiled engine differs from numpy")
        times["bare"].append(case.run_bare(games))
        dt, slow, slow_tail = case.run_per_spin()
        times["per_spin"].append(dt)
        if slow != ref:
            bad = next(i for i, (a, b) in enumerate(zip(slow, ref, strict=True)) if a != b)
            raise SystemExit(
                f"{game.id}: engines differ at session {bad}:\n"
                f"  per-spin {slow[bad]}\n  batched  {ref[bad]}"
            )
        if slow_tail != tail:
            raise SystemExit(f"{game.id}: engines left the streams at different places")
        say(
            f"  {game.id:14s} {sessions:5d} sessions rep {rep + 1}/{reps}: "
            f"batched {times['batched'][-1]:.3f} s, "
            + (f"compiled {times['compiled'][-1]:.3f} s, " if kernels else "")
            + f"bare {times['bare'][-1]:.3f} s, "
            f"per-spin {times['per_spin'][-1]:.2f} s"
        )
    return Measured(
        game=game.id,
        sessions=sessions,
        games=sum(games),
        free_games=sum(r.free_games for r in ref),
        stops=Counter(r.stop.value for r in ref),
        batched=times["batched"],
        per_spin=times["per_spin"],
        bare=times["bare"],
        compiled=times["compiled"],
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, 2 repetitions")
    ap.add_argument("--reps", type=int, default=None, help="repetitions (default 5, quick 2)")
    ap.add_argument("--sizes", default=None, help="comma-separated session counts")
    ap.add_argument("--seed", type=int, default=20261130)
    args = ap.parse_args(argv)
    reps = args.reps or (2 if args.quick else 5)
    sizes = (
        tuple(int(s) for s in args.sizes.split(","))
        if args.sizes
        else (QUICK_SIZES if args.quick else SIZES)
    )

    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    print(f"bench_engine: {environment()}; {reps} repetitions, sizes {sizes} sessions")
    print(f"bench_engine: {speedups.status()}")
    rows: list[list[str]] = []
    verdicts: list[Verdict] = []
    for name in GAMES:
        game = load_game(ROOT / "scenarios" / "games" / f"{name}.toml")
        for i, sessions in enumerate(sizes):
            m = measure(game, sessions, reps, args.seed + 1000 * i, say)
            stops = " ".join(f"{k}:{v}" for k, v in sorted(m.stops.items()))
            rows.append(
                [
                    m.game,
                    str(m.sessions),
                    fmt(m.games),
                    fmt(m.free_games),
                    fmt(m.rate(m.batched)),
                    fmt(m.rate(m.compiled)) if m.compiled else "-",
                    f"{median(m.speedup):.1f}x" if m.compiled else "-",
                    fmt(m.rate(m.per_spin)),
                    fmt(m.rate(m.bare)),
                    f"{median(m.p1):.1f}x",
                    f"{median(m.p2):.2f}",
                    stops,
                ]
            )
            label = f"{m.game}, {m.sessions} sessions"
            verdicts.append(
                Verdict("P1", f"batched / per-spin, {label}", median(m.p1), P1_TARGET, m.p1)
            )
            verdicts.append(
                Verdict("P2", f"batched / bare numpy, {label}", median(m.p2), P2_TARGET, m.p2)
            )
            say(f"  P1 reps {spread(m.p1)}, P2 reps {spread(m.p2)}")
    headers = [
        "game",
        "sessions",
        "spins",
        "free",
        "batched/s",
        "compiled/s",
        "C×",
        "per-spin/s",
        "bare/s",
        "P1",
        "P2",
        "stops (identical in both engines)",
    ]
    print()
    print(table(headers, rows, "Slot engines: paid spins per second (medians)", left=(0, 11)))
    print()
    print(verdict_table(verdicts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
