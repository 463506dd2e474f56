"""Detection power of the controls: each injection case of tests/test_controls.py over many
seeds, with its Clopper-Pearson 95 % interval (a measurement, not a test).

    python tests/detection_power.py                       # the default cases, seeds 1-20
    python tests/detection_power.py --cases S1.1e --amounts 2,4,8 --days 1,3 --seeds 1-20

A case is *found* on a seed when every control the case expects reports; *other* names any
other control that reported on some seed. The case ``clean`` runs the floor with no injection
and counts the seeds with any finding (false alarms: it should stay 0). The floor is
tests/data/controls.toml; ``--days`` lengthens the run, ``--amounts`` overrides the
injection's ``amount`` (the adaptive pay table's gain, a skew...).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import tomllib
from dataclasses import replace
from pathlib import Path

from scipy import stats as sps

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conftest import besides_absent
from test_controls import CASES, CLASSIC, FLOOR, GAMES, LOW, Case, classic_variant

from twin.casino import Casino
from twin.departments import parse_scenario

DEFAULT_CASES = (
    "S1.1e",  # self-adjusting program (1(e), 3(a))
    "S1.1a",  # another program, reported as itself (1(a), reg 28(3)(a), 20(a))
    "S1.20f",  # tampered program with halved pays, approved signature (28(3)(a), 1(a), 20(f))
    "S1.4b",  # a skewed meter (4(b))
    "S1.4b.undocumented",  # a payout off the books (4(b), 4(d))
    "R36.phantom",  # money from nowhere (reg 36, 10(a))
    "R36.hopper",  # coins taken out of the hopper, unrecorded (reg 36)
)


def found_on(case: Case, seed: int, days: float, tmp: Path) -> tuple[bool, set[str]]:
    data = tomllib.loads(FLOOR.read_text())
    data["scenario"]["seed"] = seed
    data["scenario"]["duration_hours"] = 24.0 * days
    if case.inject is None:  # the clean floor: any finding is a false alarm
        data["inject"] = []
        casino = Casino(parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent))
        casino.run()
        assert casino.compliance is not None
        got = {f.control for f in besides_absent(casino)}  # (no door, no AML function)
        return bool(got), got
    inj = dict(case.inject)
    if case.game == "low-return":
        inj["game"] = str(LOW)
    elif case.game == "classic-3reel":
        inj["game"] = str(CLASSIC)
    elif case.game is not None:
        inj["game"] = str(classic_variant(tmp, case.game, GAMES[case.game]))
    data["inject"] = [inj]
    data["ruleset"]["overrides"].update(case.overrides)
    casino = Casino(parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent))
    casino.run()
    assert casino.compliance is not None
    got = {f.control for f in besides_absent(casino)}
    return case.controls <= got, got - case.controls


def interval(k: int, n: int) -> tuple[float, float]:
    lo = float(sps.beta.ppf(0.025, k, n - k + 1)) if k else 0.0
    hi = float(sps.beta.ppf(0.975, k + 1, n - k)) if k < n else 1.0
    return lo, hi


def seeds_of(text: str) -> list[int]:
    a, _, b = text.partition("-")
    return list(range(int(a), int(b or a) + 1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default=",".join(DEFAULT_CASES))
    ap.add_argument("--seeds", default="1-20", help="a range, e.g. 1-20")
    ap.add_argument("--days", default="1", help="run lengths in days, e.g. 1,3")
    ap.add_argument("--amounts", default="", help="override the injection's amount, e.g. 2,4,8")
    args = ap.parse_args()
    seeds = seeds_of(args.seeds)
    print("| case | amount | days | found | 95 % interval | other controls |")
    print("|---|---:|---:|---:|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for cid in args.cases.split(","):
            base = CASES[cid] if cid != "clean" else Case(frozenset(), None)
            given = [int(a) for a in args.amounts.split(",") if a]
            amounts = given or [int((base.inject or {}).get("amount", 0))]
            for amount in amounts:
                case = base
                if base.inject is not None:
                    case = replace(base, inject={**base.inject, "amount": amount})
                for days in (float(d) for d in args.days.split(",")):
                    k, other = 0, set()
                    for seed in seeds:
                        hit, extra = found_on(case, seed, days, Path(tmp))
                        k += hit
                        other |= extra
                    lo, hi = interval(k, len(seeds))
                    print(
                        f"| {cid} | {amount} | {days:g} | {k}/{len(seeds)} | "
                        f"[{lo:.0%}, {hi:.0%}] | {', '.join(sorted(other)) or '-'} |",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
