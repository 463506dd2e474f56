"""Error rates of the statistical controls, measured over many seeded runs (slow).

False alarms: the fair floor of tests/data/controls.toml (14 machines, a day) over 100
seeds. The design rate is about q = 0.01 (randomness, Benjamini-Hochberg) + 0.001 (hold)
per run; measured: 0 alarming runs of 100. Allowing at most 5, the test fails by chance
with probability 9e-4 (binomial tail at p = 0.011).

Detection: each statistical violation over 30 seeds; the bounds are set below the rates
measured when the test was written (biased reel 30/30, halved pay table 30/30, a stop
that all but never lands 30/30, wager-dependent pays 26/30), so that a chance failure has
probability below 3e-4 each (binomial, taking the true rates as 29.5/30 and 26/30). The
adaptive pay table (1(e), one classic machine, one day) was found on 7 of 20 seeds
(100-119); at least 3 of 30 is asserted (chance failure 3.6e-4 at a true rate of 0.35).
A suppressed combination (three cherries never selected on a classic machine, about 16
expected a day) was found 30/30: at least 26 is asserted (chance failure 1.3e-4 at a true
rate of 29.5/30). A biased free-spin reel (four stops of the first feature reel never land,
one video machine, about 550 free games a day) was found under 1(b), (i) and (ii) together
29/30 (seed 121: (ii) only): at least 24 is asserted (chance failure 4.7e-5 at 29/30).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from conftest import besides_absent
from scipy import stats as sps
from test_controls import CASES, FLOOR, GAMES, Case, classic_variant

from twin.casino import Casino
from twin.departments import parse_scenario

pytestmark = pytest.mark.slow


def controls_found(tmp: Path, case: Case | None, seed: int) -> set[str]:
    data = tomllib.loads(FLOOR.read_text())
    data["scenario"]["seed"] = seed
    if case is not None:
        assert case.inject is not None
        inj = dict(case.inject)
        if case.game is not None:
            inj["game"] = str(classic_variant(tmp, case.game, GAMES[case.game]))
        data["inject"] = [inj]
    casino = Casino(parse_scenario(data, source=str(FLOOR), base_dir=FLOOR.parent))
    casino.run()
    assert casino.compliance is not None
    # (the floor has no door check and no AML function: those findings, asserted exactly,
    # are no alarm of a statistical test)
    return {f.control for f in besides_absent(casino)}


def test_a_fair_floor_rarely_raises_an_alarm(tmp_path: Path) -> None:
    alarms = [seed for seed in range(100, 200) if controls_found(tmp_path, None, seed)]
    assert len(alarms) <= 5, alarms


@pytest.mark.parametrize(
    ("case_id", "at_least"),
    [
        ("S1.1b.ii", 26),
        ("S1.20f", 26),
        ("S1.1b.i", 26),
        ("S1.1b.iii", 19),
        ("S1.1e", 3),
        ("S1.1b.i.combination", 26),
        ("S1.1b.free", 24),
    ],
)
def test_statistical_violations_are_detected(tmp_path: Path, case_id: str, at_least: int) -> None:
    case = CASES[case_id]
    found = sum(case.controls <= controls_found(tmp_path, case, seed) for seed in range(100, 130))
    assert found >= at_least, found


# --- the default floor: the share of fair days with any statistical finding -----------------

#: The design rate stated in README.md ("Statistics that keep their promise").
DESIGN_RATE = 0.02
DAYS = 200
_REQUESTS: dict[str, Any] = {}


def _replay(seed: int) -> list[tuple[str, str]]:
    import floor_replay

    floor_replay.share_analyses()
    return floor_replay.replay_day(seed, _REQUESTS)


def test_default_floor_days_with_any_statistical_finding_stay_below_the_design_rate() -> None:
    """200 independent days of the default floor (600 machines; the real machines replaying
    the default day's play requests with a new seed each day: tests/floor_replay.py), over
    2 processes, under every statistical control (1(a), 1(b) and its parts, 1(c), 1(e),
    3(a), 20(f)). The design rate is 2 % of days; the levels sum to 0.005 (1(b)) + 0.001
    (20(f)) + 0.001 (1(e), which 3(a) shares) + 0.001 (3(a)'s own test) = 0.8 %. Asserted: at
    most 4 of 200 days (2 %). With a true rate of 0.8 % the test fails by chance with
    probability 2.4 % (Poisson 1.6, P(X >= 5)); the seeds are fixed. The measured share and
    its Clopper-Pearson 95 % interval are printed."""
    import multiprocessing

    import floor_replay

    _REQUESTS.update(floor_replay.reference_requests(1))
    with multiprocessing.get_context("fork").Pool(2) as pool:
        days = pool.map(_replay, range(5000, 5000 + DAYS), chunksize=5)
    alarms = [(5000 + i, f) for i, f in enumerate(days) if f]
    k = len(alarms)
    lo = sps.beta.ppf(0.025, k, DAYS - k + 1) if k else 0.0
    hi = sps.beta.ppf(0.975, k + 1, DAYS - k)
    print(f"days with a statistical finding: {k} of {DAYS} ({k / DAYS:.2%}, "
          f"Clopper-Pearson 95 % [{lo:.2%}, {hi:.2%}]): {alarms}")  # fmt: skip
    assert k <= DESIGN_RATE * DAYS, alarms


# --- item 3(a): the payback change test on the default floor --------------------------------

#: Replayed default days for the 3(a) false-alarm rate (about 1 s each, one core).
PAYBACK_DAYS = 150


def test_payback_change_false_alarms_on_the_default_floor() -> None:
    """MT98.S1.3a alone on PAYBACK_DAYS independent days of the default floor (the default
    day's play requests replayed with a new seed each day: tests/floor_replay.py). Only the
    machines with enough stretches to be tested (MIN_STRETCHES + 1, about 60 of the 600 a
    day) are replayed: the others enter neither the test nor its Benjamini-Hochberg, so the
    verdict is the full floor's.

    Floor: the design rate is payback_change_fdr = 0.001 of days (plus the days on which
    1(e)'s own test alarms, which are 1(e)'s false alarms as well). Asserted: at most 1
    alarming day of 150 (a chance failure has probability 1.0 % at a true rate of 0.001);
    measured when written: 0 of 150, which bounds the rate below 2.0 % at 95 %
    (Clopper-Pearson; printed). Machine: the test's size on the floor's real stretches
    (9,000 p-values: 60 machines a day): the shares of p-values at or below 0.05 and 0.01
    stay within binomial limits of the level (chance failure below 1e-3 each); measured when
    written: 5.18 % and 0.80 % (printed). About 3 minutes on one core."""
    import floor_replay
    import numpy as np

    from twin.compliance.checks.outcomes import MIN_STRETCHES

    floor_replay.share_analyses()
    requests = {
        m: r for m, r in floor_replay.reference_requests(1).items() if len(r) > MIN_STRETCHES
    }
    alarms: list[tuple[int, list[tuple[str, str]]]] = []
    ps: list[float] = []
    for seed in range(7000, 7000 + PAYBACK_DAYS):
        casino = floor_replay.replay_casino(seed, requests, ["MT98.S1.3a"])
        assert casino.compliance is not None
        (checker,) = casino.compliance.checkers
        ps.extend(r.p_value for _, r in checker.results)  # type: ignore[attr-defined]
        found = [(f.control, f.subjects[0]) for f in casino.compliance.findings]
        if found:
            alarms.append((seed, found))
    k, n = len(alarms), len(ps)
    hi = sps.beta.ppf(0.95, k + 1, PAYBACK_DAYS - k)  # one-sided 95 % upper bound
    p = np.array(ps)
    print(f"3(a) on the default floor: {k} alarming days of {PAYBACK_DAYS} (rate < {hi:.2%} "
          f"at 95 %) {alarms}; {n} machine tests, p <= 0.05: {(p <= 0.05).mean():.3%}, "
          f"p <= 0.01: {(p <= 0.01).mean():.3%}")  # fmt: skip
    assert k <= 1, alarms
    for level in (0.05, 0.01):
        assert (p <= level).sum() <= sps.binom.ppf(0.999, n, level), level
