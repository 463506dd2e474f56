"""Scenario loading and validation: shipped scenarios load; every mistake is one InputError.

Game files live in scenarios/games/ (written separately). The schema only checks that a
game file exists, so a test that finds one missing runs against a copy of the scenario in
tmp_path whose games/ folder holds the real files where they exist and placeholders
otherwise. Broken inputs are always written to tmp_path that way.
"""

from __future__ import annotations

import hashlib
import shutil
import tomllib
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any

import pytest

from twin.clock import Clock, OpeningHours
from twin.departments import Scenario, load_scenario, parse_scenario
from twin.dists import Choice, Lognormal, Triangular
from twin.errors import InputError
from twin.slots.section import Bank

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
ANY = object()  # "found" not compared


def _games_of(text: str) -> list[str]:
    data = tomllib.loads(text)
    tables = data.get("tables", {}).get("tables", [])  # issue 10: table game files
    works = data.get("lifecycle", {}).get("works", [])  # issue 27: conversions' programs
    return sorted(
        {b["game"] for b in data["floor"]["banks"]}
        | {t["game"] for t in tables}
        | {w["game"] for w in works if "game" in w}
    )


def _copy_with_games(tmp_path: Path, name: str, text: str) -> Path:
    """Write ``text`` as tmp_path/name with every referenced game file present beside it."""
    for game in _games_of((SCENARIOS / name).read_text()):
        target = tmp_path / game
        target.parent.mkdir(parents=True, exist_ok=True)
        real = SCENARIOS / game
        if real.is_file():
            shutil.copyfile(real, target)
        else:
            target.write_text("# placeholder game file for a schema test\n")
    path = tmp_path / name
    path.write_text(text)
    return path


def shipped(name: str, tmp_path: Path) -> Path:
    """The shipped scenario if all its games exist, else an equivalent copy in tmp_path."""
    path = SCENARIOS / name
    text = path.read_text()
    if all((SCENARIOS / g).is_file() for g in _games_of(text)):
        return path
    return _copy_with_games(tmp_path, name, text)


def broken(tmp_path: Path, name: str, old: str, new: str) -> Path:
    """A copy of a shipped scenario with the one occurrence of ``old`` replaced."""
    text = (SCENARIOS / name).read_text()
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {name}"
    return _copy_with_games(tmp_path, name, text.replace(old, new))


def load_error(path: Path | str) -> InputError:
    with pytest.raises(InputError) as info:
        load_scenario(path)
    return info.value


def assert_error(err: InputError, path: Path | str, key: str, expected: str, found: Any) -> None:
    assert err.source == str(path)
    assert err.key == key
    assert err.expected == expected
    if found is not ANY:
        assert err.found == found
    text = str(err)
    prefix = f"{path}: {key}: " if key else f"{path}: "
    assert text.startswith(prefix + f"expected {expected}, found "), text


# --- the shipped scenarios -----------------------------------------------------------------


def test_default_loads(tmp_path: Path) -> None:
    path = shipped("default.toml", tmp_path)
    sc = load_scenario(path)
    assert sc.scenario.name == "default"
    assert sc.ruleset.name == "malta-1998"
    assert sc.seed == 1
    assert 550 <= sc.machine_count <= 650
    assert len(sc.all_machine_ids()) == sc.machine_count
    assert len(set(sc.all_machine_ids())) == sc.machine_count
    assert 8 <= len(sc.floor.banks) <= 14
    assert set(sc.zones()) == {"main", "high-limit", "terrace"}
    assert 5000 <= sc.patrons.expected_arrivals_per_day <= 7000
    assert sc.start_datetime == datetime(2026, 3, 2, 10, 0, tzinfo=sc.start_datetime.tzinfo)
    assert sc.start_datetime.weekday() == 0  # a Monday
    assert sc.start_datetime.utcoffset() == timedelta(hours=1)  # CET in March
    assert sc.timezone == "Europe/Malta"
    assert sc.duration_seconds == 24 * 3600.0
    assert sc.opening_hours == OpeningHours(time(10, 0), time(4, 0))
    assert sc.gaming_day_start == time(6, 0)
    progressive_banks = [b for b in sc.floor.banks if b.progressive is not None]
    assert [b.count for b in progressive_banks] == [8]
    assert sc.progressive("link-P").increment_bp == 150
    assert all("low-return" not in b.game.name for b in sc.floor.banks)
    assert all(b.game.is_absolute() and b.game.is_file() for b in sc.floor.banks)
    assert [s.name for s in sc.staff.shifts] == ["day", "evening", "night", "late"]
    assert sc.source_path == path.resolve()
    assert sc.source_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_small_and_tiny_load(tmp_path: Path) -> None:
    small = load_scenario(shipped("small.toml", tmp_path))
    assert 35 <= small.machine_count <= 45
    assert 400 <= small.patrons.expected_arrivals_per_day <= 600
    tiny = load_scenario(shipped("tiny.toml", tmp_path / "t"))
    assert tiny.machine_count == 4
    assert tiny.duration_hours == 2.0
    assert tiny.all_machine_ids() == ["A-001", "A-002", "A-003", "A-004"]
    # Defaults.
    bank = tiny.floor.banks[0]
    assert bank.hopper_initial_coins == bank.hopper_standard_fill_coins
    assert bank.meter_digits == 8
    assert bank.coin_acceptor and bank.bill_acceptor
    assert bank.manufacturer == "Acme Gaming Ltd"
    assert bank.model == "AX-100"
    assert bank.manufactured == date(2025, 1, 1)
    assert bank.progressive is None
    assert tiny.floor.coin_pay_seconds == 0.125
    assert tiny.floor.progressives == ()
    assert tiny.ruleset.overrides == {}
    assert tiny.scenario.description == "4 machines, 2 hours"
    assert tiny.faults.tilt_mtbf_hours == 400.0
    assert tiny.faults.ram_error_mtbf_hours == 0.0
    assert tiny.faults.door_checks_per_day == 0.3
    assert isinstance(tiny.staff.timing.hand_pay_minutes, Triangular)
    assert isinstance(tiny.staff.timing.repair_minutes, Lognormal)
    seg = tiny.patrons.segments[0]
    assert (seg.loss_limit_share, seg.win_goal_multiple, seg.pays_with_bills_share) == (
        1.0,
        3.0,
        0.7,
    )
    assert seg.zones == ()
    assert isinstance(seg.bet_units, Choice)
    assert seg.bet_units.probabilities == pytest.approx((1 / 3, 1 / 3, 1 / 3))


def test_accessors_and_clock(tmp_path: Path) -> None:
    sc = load_scenario(shipped("small.toml", tmp_path))
    assert isinstance(sc.bank("A"), Bank)
    with pytest.raises(KeyError):
        sc.bank("nope")
    assert sc.bank("P").machine_ids()[-1] == "P-008"
    clock = sc.clock()
    assert isinstance(clock, Clock)
    assert clock.at(0) == sc.start_datetime
    assert clock.is_open(0)
    assert not clock.is_open(19 * 3600)  # 05:00 local next morning


def test_with_overrides(tmp_path: Path) -> None:
    sc = load_scenario(shipped("tiny.toml", tmp_path))
    other = sc.with_overrides(seed=42, duration_hours=48)
    assert (other.seed, other.duration_hours, other.duration_seconds) == (42, 48.0, 172800.0)
    assert (sc.seed, sc.duration_hours) == (1, 2.0)  # the original is unchanged
    assert other.floor == sc.floor
    assert other.source_sha256 == sc.source_sha256
    assert other.source_path == sc.source_path
    assert sc.with_overrides(seed=7).duration_hours == 2.0
    assert sc.with_overrides(duration_hours=0.5).seed == 1
    assert sc.with_overrides() == sc
    with pytest.raises(InputError, match=r"scenario\.seed"):
        sc.with_overrides(seed=-1)
    with pytest.raises(InputError, match=r"scenario\.duration_hours"):
        sc.with_overrides(duration_hours=0)
    with pytest.raises(InputError, match=r"scenario\.duration_hours"):
        sc.with_overrides(duration_hours=float("nan"))


def test_offset_datetime_start(tmp_path: Path) -> None:
    path = broken(
        tmp_path, "tiny.toml", "start = 2026-03-02T10:00:00", "start = 2026-03-02T09:00:00Z"
    )
    sc = load_scenario(path)
    assert sc.start_datetime == datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    assert sc.start_datetime.hour == 10  # shown in Europe/Malta


def test_parse_scenario_from_dict(tmp_path: Path) -> None:
    path = shipped("tiny.toml", tmp_path)
    data = tomllib.loads(path.read_text())
    sc = parse_scenario(data, source="mem", base_dir=path.parent)
    assert isinstance(sc, Scenario)
    assert sc.source_sha256 is None
    data["floor"]["banks"][0]["count"] = 0
    with pytest.raises(InputError) as info:
        parse_scenario(data, source="mem", base_dir=path.parent)
    expected = "an integer from 1 to 20,000 (machines in one bank)"  # issue 33: bounded
    assert_error(info.value, "mem", "floor.banks[0].count", expected, 0)


def test_models_are_frozen(tmp_path: Path) -> None:
    sc = load_scenario(shipped("tiny.toml", tmp_path))
    with pytest.raises(ValueError, match="frozen"):
        sc.floor.banks[0].count = 5  # type: ignore[misc]


# --- broken inputs -------------------------------------------------------------------------


def test_wrong_type(tmp_path: Path) -> None:
    path = broken(
        tmp_path,
        "default.toml",
        'count = 60\ngame = "games/classic',
        'count = "forty"\ngame = "games/classic',
    )
    assert_error(load_error(path), path, "floor.banks[4].count", "an integer", "forty")


@pytest.mark.parametrize(
    ("old", "new", "key", "allowed"),
    [
        ("[scenario]\n", "[scenario]\nnmae = 1\n", "scenario.nmae", "name, description, start"),
        (
            'opening_hours = { open = "10:00", close = "04:00" }',
            'opening_hours = { open = "10:00", shut = "04:00" }',
            "scenario.opening_hours.shut",
            "open, close",
        ),
        ("[floor]\n", "[floor]\nlights = true\n", "floor.lights", "coin_pay_seconds, banks"),
        ('id = "A"\n', 'id = "A"\ncolour = "red"\n', "floor.banks[0].colour", "id, zone, count"),
        (
            "reset_cents = 500000",
            "reset_cents = 500000\ncap_cents = 1",
            "floor.progressives[0].cap_cents",
            "id, reset_cents, increment_bp",
        ),
        (
            'name = "tourist"\n',
            'name = "tourist"\nage = 30\n',
            "patrons.segments[1].age",
            "name, share, bankroll_cents",
        ),
        (
            '{ dist = "lognormal", median = 35, sigma = 0.6 }',
            '{ dist = "lognormal", median = 35, sigma = 0.6, mu = 1 }',
            "patrons.segments[1].session_minutes.mu",
            "dist, median, sigma",
        ),
        (
            "[staff.timing]\n",
            "[staff.timing]\ncoffee_minutes = 5\n",
            "staff.timing.coffee_minutes",
            "walk_minutes, hand_pay_minutes",
        ),
        (
            'name = "evening"\n',
            'name = "evening"\nbreaks = 2\n',
            "staff.shifts[1].breaks",
            "name, start, end",
        ),
        ("[faults]\n", "[faults]\nfire_mtbf_hours = 1\n", "faults.fire_mtbf_hours", "tilt_mtbf"),
        ("[ruleset]\n", "[rules]\nx = 1\n[ruleset]\n", "rules", "scenario, ruleset, floor"),
    ],
)
def test_unknown_keys(tmp_path: Path, old: str, new: str, key: str, allowed: str) -> None:
    path = broken(tmp_path, "default.toml", old, new)
    err = load_error(path)
    assert err.key == key
    assert err.expected.startswith(f"no such key (allowed: {allowed}")
    assert str(err).startswith(f"{path}: {key}: expected no such key (allowed: ")


def test_negative_hopper_capacity(tmp_path: Path) -> None:
    path = broken(
        tmp_path, "tiny.toml", "hopper_capacity_coins = 2000", "hopper_capacity_coins = -2000"
    )
    assert_error(
        load_error(path), path, "floor.banks[0].hopper_capacity_coins", "a positive integer", -2000
    )


def test_fill_above_capacity(tmp_path: Path) -> None:
    path = broken(
        tmp_path,
        "tiny.toml",
        "hopper_standard_fill_coins = 1000",
        "hopper_standard_fill_coins = 2500",
    )
    assert_error(
        load_error(path),
        path,
        "floor.banks[0].hopper_standard_fill_coins",
        "at most hopper_capacity_coins (2000)",
        2500,
    )


def test_initial_above_capacity(tmp_path: Path) -> None:
    path = broken(
        tmp_path,
        "tiny.toml",
        "hopper_pay_limit_credits",
        "hopper_initial_coins = 2001\nhopper_pay_limit_credits",
    )
    err = load_error(path)
    assert err.key == "floor.banks[0].hopper_initial_coins"


def test_missing_game_file(tmp_path: Path) -> None:
    path = broken(
        tmp_path, "tiny.toml", 'game = "games/classic-3reel.toml"', 'game = "games/missing.toml"'
    )
    err = load_error(path)
    expected_file = (tmp_path / "games" / "missing.toml").resolve()
    assert_error(
        err,
        path,
        "floor.banks[0].game",
        f"an existing game file (looked for {expected_file})",
        "games/missing.toml",
    )


def test_shares_must_sum_to_one(tmp_path: Path) -> None:
    path = broken(tmp_path, "small.toml", "share = 0.4", "share = 0.3")
    err = load_error(path)
    assert_error(
        err, path, "patrons.segments", "segment shares summing to 1", "shares summing to 0.9"
    )
    assert str(err).endswith("found shares summing to 0.9")


def test_bad_time_zone(tmp_path: Path) -> None:
    path = broken(tmp_path, "tiny.toml", 'timezone = "Europe/Malta"', 'timezone = "Europe/Gozo"')
    assert_error(
        load_error(path),
        path,
        "scenario.timezone",
        "an IANA time zone such as 'Europe/Malta'",
        "Europe/Gozo",
    )


@pytest.mark.parametrize(
    ("old", "new", "key", "found"),
    [
        ('end = "06:00"', 'end = "24:00"', "staff.shifts[0].end", "24:00"),
        ('start = "06:00"', 'start = "6:00"', "staff.shifts[0].start", "6:00"),
        ('open = "10:00"', 'open = "10:60"', "scenario.opening_hours.open", "10:60"),
        ('close = "04:00"', 'close = "4 am"', "scenario.opening_hours.close", "4 am"),
        (
            "seed = 1\n",
            'seed = 1\ngaming_day_start = "06:00:00"\n',
            "scenario.gaming_day_start",
            "06:00:00",
        ),
        ('end = "06:00"', "end = 600", "staff.shifts[0].end", 600),
    ],
)
def test_bad_hhmm(tmp_path: Path, old: str, new: str, key: str, found: object) -> None:
    path = broken(tmp_path, "tiny.toml", old, new)
    assert_error(load_error(path), path, key, 'a time "HH:MM" (00:00 to 23:59)', found)


def test_23_arrival_rates(tmp_path: Path) -> None:
    path = broken(tmp_path, "tiny.toml", "  4, 3,\n]", "  4,\n]")
    err = load_error(path)
    assert_error(
        err,
        path,
        "patrons.arrivals_per_hour",
        "exactly 24 numbers (one per local hour 0..23)",
        "23 numbers",
    )


def test_negative_arrival_rate(tmp_path: Path) -> None:
    path = broken(tmp_path, "tiny.toml", "  4, 3,\n]", "  4, -3,\n]")
    assert_error(load_error(path), path, "patrons.arrivals_per_hour[23]", "a number >= 0", -3)


def test_unknown_progressive(tmp_path: Path) -> None:
    path = broken(tmp_path, "small.toml", 'progressive = "link-P"', 'progressive = "link-Q"')
    assert_error(load_error(path), path, "floor.banks[2].progressive", "one of 'link-P'", "link-Q")


def test_progressive_with_none_defined(tmp_path: Path) -> None:
    path = broken(
        tmp_path, "tiny.toml", "jackpot_limit_cents", 'progressive = "x"\njackpot_limit_cents'
    )
    err = load_error(path)
    assert err.key == "floor.banks[0].progressive"
    assert "none defined" in err.expected


def test_bad_toml_syntax(tmp_path: Path) -> None:
    path = broken(tmp_path, "tiny.toml", "count = 4\n", "count = = 4\n")
    err = load_error(path)
    assert err.key == ""
    assert err.expected == "valid TOML"
    line = (SCENARIOS / "tiny.toml").read_text().splitlines().index("count = 4") + 1
    assert str(err).startswith(f"{path}: expected valid TOML, found line {line}, column ")


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.toml"
    assert_error(load_error(path), path, "", "an existing scenario file", "no such file")
    assert (
        str(load_error(str(path)))
        == f"{path}: expected an existing scenario file, found no such file"
    )


@pytest.mark.parametrize(
    ("name", "old", "new", "key", "expected", "found"),
    [
        (
            "tiny.toml",
            "max_wait_minutes = 5.0\n",
            "",
            "patrons.max_wait_minutes",
            "a value for this required key",
            ANY,
        ),
        (
            "default.toml",
            'id = "B"',
            'id = "A"',
            "floor.banks[1].id",
            "a unique bank id (already used by banks[0])",
            "A",
        ),
        (
            "default.toml",
            'id = "U"',
            'id = "9U"',
            "floor.banks[8].id",
            "an identifier matching ^[A-Za-z][A-Za-z0-9_-]*$",
            "9U",
        ),
        (
            "tiny.toml",
            "denomination_cents = 25",
            "denomination_cents = 300",
            "floor.banks[0].bill_denominations_cents[0]",
            "a multiple of denomination_cents (300)",
            500,
        ),
        (
            "tiny.toml",
            "bill_denominations_cents = [500, 1000, 2000, 5000]\n",
            "",
            "floor.banks[0].bill_denominations_cents",
            "a non-empty array when bill_acceptor = true",
            [],
        ),
        (
            "small.toml",
            'zones = ["main", "terrace"]',
            'zones = ["main", "rooftop"]',
            "patrons.segments[1].zones[1]",
            "one of 'main', 'high-limit', 'terrace'",
            "rooftop",
        ),
        (
            "tiny.toml",
            'name = "malta-1998"',
            'name = "malta-2004"',
            "ruleset.name",
            "one of 'malta-1998', 'singapore-2010'",
            "malta-2004",
        ),
        (
            "tiny.toml",
            "median = 4000, sigma = 0.7",
            "median = 4000, sigma = 0",
            "patrons.segments[0].bankroll_cents.sigma",
            "a positive number",
            0,
        ),
        (
            "tiny.toml",
            "low = 3.5, high = 7.0",
            "low = 7.5, high = 7.0",
            "patrons.segments[0].spin_seconds.high",
            "a number greater than low (7.5)",
            7.0,
        ),
        (
            "tiny.toml",
            'dist = "lognormal", median = 30',
            'dist = "log-normal", median = 30',
            "patrons.segments[0].session_minutes.dist",
            "one of 'fixed', 'uniform', 'exponential', 'lognormal', 'normal', 'triangular', "
            "'choice'",
            "log-normal",
        ),
        (
            "tiny.toml",
            "values = [1, 2, 3]",
            "values = [0, 1, 2]",
            "patrons.segments[0].bet_units",
            "a distribution of values >= 1",
            "values down to 0",
        ),
        (
            "tiny.toml",
            "duration_hours = 2.0",
            "duration_hours = 0",
            "scenario.duration_hours",
            "a positive number",
            0,
        ),
        (
            "tiny.toml",
            "duration_hours = 2.0",
            "duration_hours = nan",
            "scenario.duration_hours",
            "a finite number",
            ANY,
        ),
        (
            "tiny.toml",
            "start = 2026-03-02T10:00:00",
            'start = "2026-03-02T10:00:00"',
            "scenario.start",
            "a TOML datetime such as 2026-03-02T10:00:00 (not quoted)",
            "2026-03-02T10:00:00",
        ),
        (
            "tiny.toml",
            "start = 2026-03-02T10:00:00",
            "start = 2026-03-29T02:30:00",
            "scenario.start",
            "a local time that exists in Europe/Malta (not skipped by a DST change)",
            datetime(2026, 3, 29, 2, 30),
        ),
        (
            "tiny.toml",
            "attendant = 1,",
            "attendant = -1,",
            "staff.shifts[0].crew.attendant",
            "an integer >= 0",
            -1,
        ),
        (
            "tiny.toml",
            "[ruleset]\n",
            "[ruleset]\noverrides = { max_bet = [1, 2] }\n",
            "ruleset.overrides.max_bet",
            "a number, string or boolean",
            [1, 2],
        ),
    ],
)
def test_more_broken_inputs(
    tmp_path: Path, name: str, old: str, new: str, key: str, expected: str, found: object
) -> None:
    path = broken(tmp_path, name, old, new)
    err = load_error(path)
    assert_error(err, path, key, expected, found)


def test_missing_section(tmp_path: Path) -> None:
    text = (SCENARIOS / "tiny.toml").read_text()
    head, _, _ = text.partition("[staff]")
    path = _copy_with_games(tmp_path, "tiny.toml", head)
    err = load_error(path)
    assert_error(err, path, "staff", "a value for this required key", ANY)
    assert str(err).endswith("found nothing")


def test_empty_shifts(tmp_path: Path) -> None:
    text = (SCENARIOS / "tiny.toml").read_text()
    head, _, _ = text.partition("[[staff.shifts]]")
    path = _copy_with_games(tmp_path, "tiny.toml", head + "shifts = []\n")
    assert_error(load_error(path), path, "staff.shifts", "at least one [[staff.shifts]] table", [])
