"""The patron population: members with stable ids who come back, picked by propensity.

* attribute draws are pinned to the seed (exact values), prefix-stable in the size, and
  their shares match the scenario's within stated tolerances on a large population;
* picking: proportional to propensity, never someone inside, ``None`` when nobody can come;
* over three days members come back (visits 1, 2, 3... in order, never inside twice at once,
  each visit's plan from the member's own stream);
* ``[patrons.population]`` errors name the key; a scenario without it gets the documented
  default size;
* common random numbers: one more member leaves every machine's uniforms unchanged;
* layering: ``twin.patrons`` imports neither the casino nor ``SlotMachine``;
* the census: records in, a frozen summary out.
"""

from __future__ import annotations

import copy
import math
import subprocess
import sys
import tomllib
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import REPO, SCENARIOS
from test_architecture import imported_names
from test_casino_determinism import _played_uniforms

from twin.casino import Casino
from twin.departments import Scenario, load_scenario, parse_scenario
from twin.errors import InputError
from twin.patrons.census import PopulationSummary, summarize_population
from twin.patrons.patron import draw_plan
from twin.patrons.population import MAX_REDRAWS, Population, member_id
from twin.patrons.records import PatronArrived, PatronLeft
from twin.patrons.section import PatronsConfig
from twin.records import MemorySink
from twin.streams import Streams

DEFAULT = SCENARIOS / "default.toml"
SMALL = SCENARIOS / "small.toml"
TINY = SCENARIOS / "tiny.toml"


def _patrons(**population: Any) -> PatronsConfig:
    """small.toml's [patrons] with ``population`` replacing its [patrons.population]."""
    data = tomllib.loads(SMALL.read_text())["patrons"]
    data["population"] = population
    return PatronsConfig.model_validate(data)


# ---------------------------------------------------------------------------------------------
# Drawing the members
# ---------------------------------------------------------------------------------------------


def test_ids_are_stable_and_fixed_width() -> None:
    assert [member_id(i) for i in (0, 1, 19_999)] == ["P000001", "P000002", "P020000"]


def test_same_seed_gives_the_same_members_pinned_to_exact_values() -> None:
    """default.toml, seed 1: a few members drawn once and written down."""
    patrons = load_scenario(DEFAULT).patrons
    a = Population.build(patrons, Streams(1))
    b = Population.build(patrons, Streams(1))
    assert a.size == b.size == 20_000
    assert [a.member(i) for i in range(a.size)] == [b.member(i) for i in range(b.size)]
    first = a.member(0)
    assert (first.id, first.age, first.residency, first.nationality, first.segment) == (
        "P000001",
        55,
        "local",
        "GB",
        "local",
    )
    assert first.propensity == pytest.approx(0.2943477987030045, rel=1e-12)
    third = a.member(2)
    assert (third.age, third.nationality) == (47, "MT")
    assert third.propensity == pytest.approx(1.7410639528253773, rel=1e-12)
    last = a.member(19_999)
    assert (last.id, last.age, last.residency) == ("P020000", 47, "foreign")
    other = Population.build(patrons, Streams(2))
    assert [other.member(i) for i in range(50)] != [a.member(i) for i in range(50)]


def test_one_more_member_leaves_everyone_else_as_they_were() -> None:
    """Each attribute has its own child stream, so the first N members do not depend on N."""
    n = Population.build(_patrons(size=3_000), Streams(4))
    more = Population.build(_patrons(size=3_001), Streams(4))
    assert [n.member(i) for i in range(3_000)] == [more.member(i) for i in range(3_000)]


def test_building_draws_nothing_from_the_cached_stream() -> None:
    """The population reads its seed sequence; building twice gives the same members."""
    streams = Streams(3)
    patrons = _patrons(size=500)
    a = Population.build(patrons, streams)
    b = Population.build(patrons, streams)
    assert [a.member(i) for i in range(500)] == [b.member(i) for i in range(500)]


def test_shares_match_the_scenario_on_a_large_population() -> None:
    """200,000 members; each share within 5 standard errors of the stated one.

    With 9 independent comparisons at 5 sigma the chance of a false failure is below 1e-5
    (and the draws are seeded, so a pass is a pass for ever).
    """
    n = 200_000
    patrons = _patrons(
        size=n,
        residency={"local": 0.55, "foreign": 0.45},
        nationalities={"MT": 0.5, "GB": 0.3, "IT": 0.2},
        self_excluded_share=0.01,
        barred_share=0.002,
        visit_propensity={"dist": "lognormal", "median": 1.0, "sigma": 1.2},
    )
    pop = Population.build(patrons, Streams(11))
    members = [pop.member(i) for i in range(n)]

    def close(observed: int, p: float) -> None:
        se = math.sqrt(p * (1 - p) / n)
        assert abs(observed / n - p) <= 5 * se, (observed / n, p)

    close(sum(m.residency == "local" for m in members), 0.55)
    close(sum(m.nationality == "MT" for m in members), 0.5)
    close(sum(m.nationality == "GB" for m in members), 0.3)
    close(sum(m.segment == "local" for m in members), 0.6)
    close(sum(m.self_excluded for m in members), 0.01)
    close(sum(m.barred for m in members), 0.002)
    ages = np.array([m.age for m in members], dtype=float)
    assert ages.min() >= 18 and ages.max() <= 90
    age = patrons.population.age
    # whole years are the floor of a continuous age: on average half a year below it
    assert abs(ages.mean() + 0.5 - age.mean) <= 5 * math.sqrt(age.variance / n)
    prop = np.array([m.propensity for m in members])
    lg = np.log(prop)  # lognormal(median 1, sigma 1.2): its log is normal(0, 1.2)
    assert abs(lg.mean()) <= 5 * 1.2 / math.sqrt(n)
    assert abs(lg.std() - 1.2) <= 5 * 1.2 / math.sqrt(2 * n)


# ---------------------------------------------------------------------------------------------
# Who comes
# ---------------------------------------------------------------------------------------------


def test_picks_are_proportional_to_propensity() -> None:
    """Propensities 1 or 3 (equal odds): a weight-3 member is drawn 3/4 of the time.

    100,000 picks; the share of weight-3 picks is within 5 standard errors of its exact
    expectation (sum of weight-3 propensity over the total).
    """
    pop = Population.build(
        _patrons(size=1_000, visit_propensity={"dist": "choice", "values": [1, 3]}),
        Streams(5),
    )
    weights = np.array([pop.member(i).propensity for i in range(pop.size)])
    p = weights[weights == 3].sum() / weights.sum()
    rng = np.random.default_rng(0)
    n = 100_000
    heavy = sum(weights[pop.pick_outside(rng)] == 3 for _ in range(n))  # type: ignore[index]
    assert abs(heavy / n - p) <= 5 * math.sqrt(p * (1 - p) / n)


def test_nobody_inside_is_picked_and_nobody_comes_when_all_are_in() -> None:
    pop = Population.build(_patrons(size=200), Streams(6))
    rng = np.random.default_rng(1)
    for i in range(0, 200, 2):
        assert pop.enter(i) == 1
    assert pop.inside_count == 100
    assert all(pop.pick_outside(rng) % 2 == 1 for _ in range(2_000))  # type: ignore[operator]
    for i in range(1, 199, 2):
        pop.enter(i)
    # one member left outside: the redraws miss, the exact fallback finds them
    assert all(pop.pick_outside(rng) == 199 for _ in range(5))
    pop.enter(199)
    assert pop.pick_outside(rng) is None
    pop.leave(6)
    assert pop.pick_outside(rng) == 6
    assert pop.visits(6) == 1 and not pop.is_inside(6)
    assert pop.enter(6) == 2
    with pytest.raises(ValueError, match="already inside"):
        pop.enter(6)
    assert MAX_REDRAWS >= 16


def test_members_with_no_propensity_never_come() -> None:
    pop = Population.build(
        _patrons(
            size=300, visit_propensity={"dist": "choice", "values": [0, 1], "weights": [2, 1]}
        ),
        Streams(8),
    )
    zero = {i for i in range(pop.size) if pop.member(i).propensity == 0}
    assert 150 < len(zero) < 250
    rng = np.random.default_rng(2)
    for _ in range(pop.size - len(zero)):
        i = pop.pick_outside(rng)
        assert i is not None and i not in zero
        pop.enter(i)
    assert pop.pick_outside(rng) is None


# ---------------------------------------------------------------------------------------------
# Coming back over days
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def three_days() -> tuple[Scenario, Casino, MemorySink]:
    """tiny.toml (no [patrons.population]: the default size) for three days."""
    scenario = load_scenario(TINY).with_overrides(duration_hours=72.0)
    sink = MemorySink()
    casino = Casino(scenario, sinks=[sink])
    casino.run()
    return scenario, casino, sink


def test_members_come_back_on_later_days(three_days: tuple[Scenario, Casino, MemorySink]) -> None:
    _, casino, sink = three_days
    clock = casino.world.clock
    arrived = sink.of(PatronArrived)
    assert len(arrived) > 150
    days: dict[str, set[object]] = defaultdict(set)
    for rec in arrived:
        days[rec.patron].add(clock.gaming_day(rec.t))
    assert len({d for ds in days.values() for d in ds}) == 3
    assert sum(len(ds) > 1 for ds in days.values()) >= 10
    assert len(days) < len(arrived)  # fewer people than visits
    assert casino.arrivals.count == len(arrived)


def test_visits_count_up_and_nobody_is_inside_twice(
    three_days: tuple[Scenario, Casino, MemorySink],
) -> None:
    scenario, casino, sink = three_days
    pop = casino.population
    streams = Streams(scenario.seed)
    inside: dict[str, bool] = defaultdict(bool)
    last_visit: dict[str, int] = defaultdict(int)
    for rec in sink.records:
        if isinstance(rec, PatronArrived):
            assert not inside[rec.patron], rec
            inside[rec.patron] = True
            assert rec.visit == last_visit[rec.patron] + 1, rec
            last_visit[rec.patron] = rec.visit
            index = int(rec.patron[1:]) - 1
            member = pop.member(index)
            # the true age is not on the record (issue 25): what the casino knows of it is
            # the age on the document its door checks
            assert (rec.residency, rec.segment) == (member.residency, member.segment)
            # the plan comes from the member's own stream for this visit, and nothing else
            plan = draw_plan(pop.segment_of(index), streams.fresh(rec.patron, f"visit:{rec.visit}"))
            assert rec.bankroll_cents == plan.bankroll_cents
        elif isinstance(rec, PatronLeft):
            assert inside[rec.patron], rec
            inside[rec.patron] = False
    assert max(last_visit.values()) >= 3
    for mid, n in last_visit.items():
        assert pop.visits(int(mid[1:]) - 1) == n
    assert pop.inside_count == sum(inside.values())


def test_census_of_the_three_days(three_days: tuple[Scenario, Casino, MemorySink]) -> None:
    scenario, casino, sink = three_days
    summary = summarize_population(sink.records, casino.population.size)
    arrived = sink.of(PatronArrived)
    assert summary.members == scenario.patrons.members == 336  # 4 x 84, tiny's default
    assert summary.visits == len(arrived)
    assert summary.visitors == len({r.patron for r in arrived})
    assert summary.visits_per_visitor_max >= 3
    assert summary.visits_per_visitor_p50 >= 1
    assert summary.local_share == 1.0  # the default residency
    assert summary.residency_shares == (("local", 1.0),)


def test_census_is_a_pure_function_of_records() -> None:
    def arrived(seq: int, who: str, visit: int, residency: str) -> PatronArrived:
        return PatronArrived(
            seq=seq,
            t=float(seq),
            patron=who,
            segment="s",
            bankroll_cents=100,
            visit=visit,
            residency=residency,
        )

    records = [
        arrived(0, "P000001", 1, "local"),
        arrived(1, "P000002", 1, "foreign"),
        PatronLeft(seq=2, t=2.0, patron="P000001", machine="", reason="no_machine", spent_cents=0),
        arrived(3, "P000001", 2, "local"),
        arrived(4, "P000003", 1, "local"),
        arrived(5, "P000001", 3, "local"),
    ]
    assert summarize_population(records, 10) == PopulationSummary(
        members=10,
        visits=5,
        visitors=3,
        visits_per_visitor_p50=1.0,
        visits_per_visitor_max=3,
        local_share=2 / 3,
        residency_shares=(("foreign", 1 / 3), ("local", 2 / 3)),
    )
    empty = summarize_population([], 5)
    assert (empty.visitors, empty.visits, empty.local_share) == (0, 0, 0.0)


# ---------------------------------------------------------------------------------------------
# Common random numbers
# ---------------------------------------------------------------------------------------------


def test_one_more_member_leaves_every_machine_stream_unchanged(tmp_path: Path) -> None:
    """small.toml with 2,001 members instead of 2,000: who comes changes, machines' draws not.

    Every machine plays the leading uniforms of its own (machine, purpose) stream in both
    runs (tests/test_casino_determinism.py does the same for doubled arrivals).
    """
    base = load_scenario(SMALL)
    text = SMALL.read_text().replace("size = 2000", "size = 2001")
    text = text.replace('game = "games/', f'game = "{(SCENARIOS / "games").as_posix()}/')
    path = tmp_path / "one-more.toml"
    path.write_text(text)
    more = load_scenario(path)
    assert more.patrons.members == base.patrons.members + 1
    a = _played_uniforms(base, "batched")
    b = _played_uniforms(more, "batched")
    streams = Streams(base.seed)
    changed = 0
    for mid in a:
        for purpose in ("games", "features"):
            x, y = a[mid][purpose], b[mid][purpose]
            n = max(len(x), len(y))
            if n == 0:
                continue
            own = streams.fresh(mid, purpose).random(n).tolist()
            assert x == own[: len(x)], (mid, purpose)
            assert y == own[: len(y)], (mid, purpose)
            changed += x != y
    assert sum(1 for mid in a if a[mid]["games"]) >= 30
    assert changed >= 1  # one more member did change who came, and so how machines played


# ---------------------------------------------------------------------------------------------
# The schema
# ---------------------------------------------------------------------------------------------


def _tiny_with(population: dict[str, Any]) -> InputError:
    data = tomllib.loads(TINY.read_text())
    data = copy.deepcopy(data)
    data["patrons"]["population"] = population
    with pytest.raises(InputError) as info:
        parse_scenario(data, source="tiny.toml", base_dir=SCENARIOS)
    return info.value


@pytest.mark.parametrize(
    ("population", "key", "expected", "found"),
    [
        (
            {"size": -5},
            "patrons.population.size",
            "an integer from 1 to 9999999",
            -5,
        ),
        (
            {"residency": {"local": 0.5, "foreign": 0.4}},
            "patrons.population.residency",
            "shares summing to 1",
            "shares summing to 0.9",
        ),
        (
            {"nationalities": {"MT": 0.7, "GB": 0.7}},
            "patrons.population.nationalities",
            "shares summing to 1",
            "shares summing to 1.4",
        ),
        (
            {"residency": {"local": 1.5, "foreign": -0.5}},
            "patrons.population.residency.local",
            "a number in [0, 1]",
            1.5,
        ),
        (
            {"sise": 100},
            "patrons.population.sise",
            "no such key (allowed: size, age, residency, nationalities, visit_propensity, "
            "self_excluded_share, barred_share, minor_share, minor_age)",
            100,
        ),
        (
            {"age": {"dist": "uniform", "low": 16, "high": 80}},
            "patrons.population.age",
            "a distribution of ages within [18, 110]",
            "values from 16 to 80",
        ),
        (
            {"age": {"dist": "normal", "mean": 40, "sd": 10}},
            "patrons.population.age",
            "a distribution of ages within [18, 110] (give a normal a min and a max)",
            "values from -inf to inf",
        ),
        (
            {"visit_propensity": {"dist": "fixed", "value": 0}},
            "patrons.population.visit_propensity",
            "a distribution of values >= 0 with a positive mean",
            "values down to 0, mean 0",
        ),
        (
            {"barred_share": 2},
            "patrons.population.barred_share",
            "a number in [0, 1]",
            2,
        ),
    ],
)
def test_population_errors_name_the_key(
    population: dict[str, Any], key: str, expected: str, found: object
) -> None:
    err = _tiny_with(population)
    assert (err.source, err.key, err.expected) == ("tiny.toml", key, expected)
    assert str(err.found) == str(found)
    assert str(err).startswith(f"tiny.toml: {key}: expected {expected}, found ")


def test_the_default_size_follows_the_expected_arrivals() -> None:
    tiny = load_scenario(TINY)
    assert tiny.patrons.population.size is None
    assert tiny.patrons.expected_arrivals_per_day == 84
    assert tiny.patrons.members == 336  # the expected arrivals of 4 days
    data = tomllib.loads(TINY.read_text())["patrons"]
    data["arrivals_per_hour"] = [0.0] * 23 + [1.0]
    assert PatronsConfig.model_validate(data).members == 100  # never fewer than 100
    assert load_scenario(SMALL).patrons.members == 2_000
    assert load_scenario(DEFAULT).patrons.members == 20_000


# ---------------------------------------------------------------------------------------------
# Layering
# ---------------------------------------------------------------------------------------------

PATRONS = REPO / "twin" / "patrons"


@pytest.mark.parametrize(
    "path",
    [*sorted(PATRONS.glob("*.py")), REPO / "twin" / "slots" / "floor.py"],
    ids=lambda p: str(p.relative_to(REPO)),
)
def test_patrons_and_floor_import_neither_the_casino_nor_slot_machine(path: Path) -> None:
    bad = [
        f"line {line}: {name}"
        for line, name in imported_names(path)
        if name in ("twin.casino", "twin.machines.machine")
        or name.startswith(("twin.casino.", "twin.machines.machine."))
    ]
    assert bad == [], f"{path.relative_to(REPO)} imports {bad}"


def test_importing_the_patrons_loads_no_casino() -> None:
    code = (
        "import twin.patrons.patron, twin.patrons.census, sys; "
        "bad = [m for m in ('twin.casino', 'twin.machines.machine') if m in sys.modules]; "
        "assert not bad, bad"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
