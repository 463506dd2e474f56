"""Benchmark of the end-of-run compliance checks (``ComplianceEngine.finish``).

Run as ``python bench/bench_finish.py`` (``--quick`` for a few hours of each floor instead
of a day, ``--reps N``, ``--no-large`` to skip the 2,500-machine floor, ``--dump FILE`` to
write every end-of-run result of the last repetition of each case as JSON).

Per repetition and case (``scenarios/default.toml`` and ``scenarios/large.toml`` for a day,
``with_overrides(duration_hours=...)``; in process, no ledger), one full ``Casino.run()``
whose ``ComplianceEngine.finish`` is timed checker by checker (the time in each checker's
``finish``; the timers due at the end are a row of their own). Two checkers that share a
verdict computed once per run (the randomness tests, the 1(e) test) charge it to the first
one that asks. Figures are medians over the repetitions; ``min..max`` shows the spread. Every
repetition of a case must give the same findings, or the script stops with an error.

``--dump`` writes, for each case, the findings (control, text) and the p-value, statistic
and detail of every test the end-of-run checks ran (hold tails, randomness, 1(e), 3(a)), the
floats as ``repr``: two checkouts' dumps compare equal when their results are bit-identical.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from _util import environment, fmt, median, spread, table

from twin.casino import Casino
from twin.compliance import stats
from twin.compliance.engine import ComplianceEngine
from twin.departments import load_scenario

ROOT = Path(__file__).resolve().parent.parent
CASES = (("default", 24.0), ("large", 24.0))
QUICK_CASES = (("default", 6.0), ("large", 3.0))


class Timings:
    """The wall seconds of one finish, per checker (control id)."""

    def __init__(self) -> None:
        self.parts: dict[str, float] = defaultdict(float)
        self.total = 0.0


def _result_row(res: stats.TestResult) -> list[Any]:
    return [res.name, repr(res.statistic), repr(res.p_value), res.n, res.detail]


@contextmanager
def timed_finish(into: list[Timings], results: list[list[Any]]) -> Iterator[None]:
    """``ComplianceEngine.finish`` timed per checker (appended to ``into``), and every test
    result the end-of-run checks computed (appended to ``results``) while in the block."""
    original = ComplianceEngine.finish
    import twin.compliance.checks.outcomes as outcomes
    import twin.compliance.checks.programs as programs

    originals: list[tuple[Any, str, Callable[..., Any]]] = [
        (stats, "hold_tail_test", stats.hold_tail_test),
        (stats, "hold_tail_tests", getattr(stats, "hold_tail_tests", None)),
        (outcomes, "adaptation_test", outcomes.adaptation_test),
        (outcomes, "adaptation_tests", getattr(outcomes, "adaptation_tests", None)),
        (programs, "payback_change_test", programs.payback_change_test),
    ]

    def recording(fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            res = fn(*args, **kwargs)
            for one in res if isinstance(res, list) else [res]:
                results.append(["test", *_result_row(one)])
            return res

        return wrapper

    def finish(self: ComplianceEngine, end: float) -> Any:
        if self._finished:
            return original(self, end)
        t = Timings()
        checkers = self.checkers
        wrapped = []
        for c in checkers:
            inner = c.finish

            def timed(inner: Callable[[], None] = inner, cid: str = c.spec.id) -> None:
                t0 = time.perf_counter()
                inner()
                t.parts[cid] += time.perf_counter() - t0

            wrapped.append((c, inner))
            c.finish = timed  # type: ignore[method-assign]
        run_timers = self.ctx.run_timers

        def timers(end: float) -> None:
            t0 = time.perf_counter()
            run_timers(end)
            t.parts["(timers)"] += time.perf_counter() - t0

        self.ctx.run_timers = timers  # type: ignore[method-assign]
        t0 = time.perf_counter()
        try:
            out = original(self, end)
        finally:
            t.total = time.perf_counter() - t0
            for c, inner in wrapped:
                c.finish = inner  # type: ignore[method-assign]
            del self.ctx.run_timers
        into.append(t)
        for a, bad in self.ctx.shared.get("randomness_verdict", []):
            results.append(["randomness", a.machine, a.sub, *_result_row(a.result), bad])
        return out

    ComplianceEngine.finish = finish  # type: ignore[method-assign]
    originals = [o for o in originals if o[2] is not None]  # (a checkout before the batch)
    for mod, name, fn in originals:
        setattr(mod, name, recording(fn))
    try:
        yield
    finally:
        ComplianceEngine.finish = original  # type: ignore[method-assign]
        for mod, name, fn in originals:
            setattr(mod, name, fn)


def run_case(name: str, hours: float, reps: int) -> tuple[list[Timings], list[list[Any]]]:
    scenario = load_scenario(ROOT / "scenarios" / f"{name}.toml").with_overrides(
        duration_hours=hours
    )
    timings: list[Timings] = []
    first: list[list[Any]] | None = None
    results: list[list[Any]] = []
    for rep in range(reps):
        results = []
        with timed_finish(timings, results):
            casino = Casino(scenario)
            casino.run()
        assert casino.compliance is not None
        results += [
            ["finding", f.control, f.message, list(f.evidence)] for f in casino.compliance.findings
        ]
        if first is None:
            first = results
        elif results != first:
            raise SystemExit(f"{name} {hours:g} h: repetition {rep + 1} gave other results")
        print(
            f"  {name} {hours:g} h rep {rep + 1}/{reps}: finish {timings[-1].total:.3f} s",
            file=sys.stderr,
        )
    return timings, results


def report(label: str, timings: list[Timings]) -> str:
    ids = sorted({k for t in timings for k in t.parts}, key=lambda k: -median(
        [t.parts.get(k, 0.0) for t in timings]
    ))  # fmt: skip
    rows = [["finish (total)", fmt(median([t.total for t in timings])),
             spread([t.total for t in timings])]]  # fmt: skip
    for k in ids:
        vals = [t.parts.get(k, 0.0) for t in timings]
        if median(vals) >= 0.0005:
            rows.append([k, fmt(median(vals)), spread(vals)])
    return table(["checker", "median s", "min..max"], rows, f"{label}: ComplianceEngine.finish")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a few hours of each floor, 1 rep")
    ap.add_argument("--reps", type=int, default=None, help="repetitions (default 3, quick 1)")
    ap.add_argument("--no-large", action="store_true", help="skip scenarios/large.toml")
    ap.add_argument("--dump", type=Path, default=None, help="write every result as JSON")
    args = ap.parse_args()
    reps = args.reps if args.reps is not None else (1 if args.quick else 3)
    cases = [c for c in (QUICK_CASES if args.quick else CASES) if not (args.no_large and
             c[0] == "large")]  # fmt: skip
    print(environment(), file=sys.stderr)
    dump: dict[str, list[list[Any]]] = {}
    out = []
    for name, hours in cases:
        timings, results = run_case(name, hours, reps)
        dump[f"{name} {hours:g} h"] = results
        out.append(report(f"{name} {hours:g} h ({reps} reps)", timings))
    print("\n\n".join(out))
    if args.dump is not None:
        args.dump.write_text(json.dumps(dump, indent=0))


if __name__ == "__main__":
    main()
