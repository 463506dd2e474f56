"""PAR sheet loading, validation and evaluation (vectorised against the scalar reference)."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import numpy as np
import pytest

from twin.errors import InputError
from twin.machines.par import Game, load_game, parse_game

# A 5-reel, 1-row, 1-line game whose strips are all A B W S C X (stop i shows symbol i), so a
# window is spelled directly by its stops. W is wild except for S (scatter) and X (bonus).
RULES = """
[game]
id = "rules"
name = "Rules"
kind = "reels"
rows = 1
lines = [[0, 0, 0, 0, 0]]

[[reels]]
symbols = ["A", "B", "W", "S", "C", "X"]
[[reels]]
symbols = ["A", "B", "W", "S", "C", "X"]
[[reels]]
symbols = ["A", "B", "W", "S", "C", "X"]
[[reels]]
symbols = ["A", "B", "W", "S", "C", "X"]
[[reels]]
symbols = ["A", "B", "W", "S", "C", "X"]

[pays]
A = { 3 = 10, 4 = 50, 5 = 200 }
B = { 3 = 5, 4 = 20, 5 = 100 }
C = { 1 = 1, 2 = 2 }
X = { 3 = 7 }
W = { 3 = 30, 4 = 100, 5 = 1000 }

[wild]
symbols = ["W"]
excludes = ["S", "X"]

[scatter]
symbol = "S"
pays = { 2 = 1, 4 = 20 }

[free_spins]
count = 3
spins = 4
multiplier = 3
retrigger = true
"""
SYM = {"A": 0, "B": 1, "W": 2, "S": 3, "C": 4, "X": 5}


def write(tmp_path: Path, text: str, name: str = "game.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.fixture()
def rules(tmp_path: Path) -> Game:
    return load_game(write(tmp_path, RULES))


def play(game: Game, window: str, *, free: bool = False) -> tuple[int, int, bool]:
    """Evaluate a window given as symbol names through all three paths; they must agree."""
    stops = [SYM[s] for s in window.split()]
    one = game.evaluate_stops_one(stops, free=free)
    vec = game.evaluate_stops(np.array([stops]), free=free)
    assert (int(vec.win_units[0]), int(vec.free_spins[0]), bool(vec.progressive[0])) == one
    u = game.u_for_stops(stops, free=free)
    ev = game.evaluate_free_one(u) if free else game.evaluate_one(u)
    assert ev == one
    return one


# -- line rules -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("window", "win"),
    [
        ("A A A B C", 10),  # plain run of 3
        ("W A A B C", 10),  # leading wild substitutes: A run of 3
        ("A W A A B", 50),  # wild in the middle: A run of 4
        ("W W W W A", 200),  # A run of 5 beats the pure-wild run of 4 (100)
        ("W W W B C", 30),  # pure-wild run of 3 (30) beats B run of 4 (20)
        ("W W W W W", 1000),  # all wild: the wild's own pays
        ("C A A A A", 1),  # C pays for 1, the run stops at A
        ("C W A A A", 2),  # C with a wild: run of 2
        ("C W C A A", 0),  # C run of 3, but C lists only 1 and 2: counts are exact
        ("X X X A A", 7),  # the excluded symbol pays on its own
        ("W X X X A", 0),  # the wild may not replace X: X run is 0, wild run 1 pays nothing
        ("B B A A A", 0),  # left-aligned only
    ],
)
def test_line_rules(rules: Game, window: str, win: int) -> None:
    assert play(rules, window) == (win, 0, False)


def test_scatter_pays_largest_listed_count_and_triggers(rules: Game) -> None:
    # scatter pays are multiples of the total bet (cost 1 here): {2: 1, 4: 20}
    # 1 scatter pays nothing; the line's first non-wild is S, which has no line pays
    assert play(rules, "S B C C A") == (0, 0, False)
    assert play(rules, "S S C C A") == (1, 0, False)  # 2 scatters: 1 × cost
    assert play(rules, "S S S C A") == (1, 4, False)  # 3: largest listed <= 3 is 2; triggers
    assert play(rules, "S S S S A") == (20, 4, False)  # 4 scatters
    assert play(rules, "A S S S A") == (1, 4, False)  # anywhere in the window


def test_free_spin_mode_multiplies_and_retriggers(rules: Game) -> None:
    assert play(rules, "A A A S S", free=True) == ((10 + 1) * 3, 0, False)
    assert play(rules, "S S S A A", free=True) == (1 * 3, 4, False)


def test_progressive_line_replaces_fixed_pay(tmp_path: Path) -> None:
    text = RULES + '\n[progressive]\nsymbol = "A"\ncount = 4\n'
    game = load_game(write(tmp_path, text))
    assert game.has_progressive
    assert play(game, "A A A B C") == (10, 0, False)  # run 3 < 4: ordinary pay
    assert play(game, "A A A A C") == (0, 0, True)  # fixed pay (50) excluded
    assert play(game, "W A W A C") == (0, 0, True)  # wilds substitute into the combination
    assert play(game, "A A A A A") == (0, 0, True)


# -- stop mapping -----------------------------------------------------------------------------


def test_stop_mapping_searchsorted_and_bisect_agree(tmp_path: Path) -> None:
    text = """
[game]
id = "w"
name = "Weights"
kind = "reels"
rows = 1
lines = [[0]]

[[reels]]
symbols = ["A", "B", "C"]
weights = [1, 2, 5]

[pays]
A = { 1 = 8 }
B = { 1 = 1 }
"""
    game = load_game(write(tmp_path, text))
    assert game.base is not None
    # boundaries: u * 8 against cum = [1, 3, 8]: the first index with cum > u * total
    edges = [0.0, 0.124999, 0.125, 0.374999, 0.375, 0.999999, np.nextafter(1.0, 0.0)]
    expect = [0, 0, 1, 1, 2, 2, 2]
    vec = game.base.stops(np.array(edges)[:, None])
    assert vec[:, 0].tolist() == expect
    assert [game.base.stops_one([u])[0] for u in edges] == expect
    # frequencies follow the weights
    u = np.random.default_rng(3).random((80_000, 1))
    counts = np.bincount(game.base.stops(u)[:, 0], minlength=3) / len(u)
    assert np.allclose(counts, [1 / 8, 2 / 8, 5 / 8], atol=0.006)


def test_vectorised_equals_scalar_on_random_uniforms(rules: Game) -> None:
    u = np.random.default_rng(11).random((20_000, rules.draws_per_spin))
    for free in (False, True):
        out = rules.evaluate_free(u) if free else rules.evaluate(u)
        one = rules.evaluate_free_one if free else rules.evaluate_one
        ref = np.array([one(row.tolist()) for row in u], dtype=np.int64)
        assert np.array_equal(out.win_units, ref[:, 0])
        assert np.array_equal(out.free_spins, ref[:, 1])
        assert np.array_equal(out.progressive, ref[:, 2].astype(bool))


def test_evaluate_checks_shape(rules: Game) -> None:
    with pytest.raises(ValueError, match="shape"):
        rules.evaluate(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="expected 5 uniforms"):
        rules.evaluate_one([0.1, 0.2])


# -- the compiled game ------------------------------------------------------------------------


def test_game_attributes_signature_and_immutability(tmp_path: Path) -> None:
    path = write(tmp_path, RULES)
    game = load_game(path)
    assert game.id == "rules" and game.name == "Rules" and game.kind == "reels"
    assert game.path == path
    assert game.signature == hashlib.sha256(path.read_bytes()).hexdigest()
    assert game.cost == 1 and game.draws_per_spin == 5
    assert game.has_free_spins and not game.has_progressive
    with pytest.raises(dataclasses.FrozenInstanceError):
        game.cost = 2  # type: ignore[misc]
    assert game.line_pay is not None
    with pytest.raises(ValueError, match="read-only"):
        game.line_pay[0] = 1


def test_table_game(tmp_path: Path) -> None:
    text = """
[game]
id = "t"
name = "Table"
kind = "table"
cost = 2

[[outcomes]]
name = "lose"
weight = 3
pay = 0

[[outcomes]]
name = "win"
weight = 1
pay = 5

[[outcomes]]
name = "link"
weight = 1
pay = 1000
progressive = true
"""
    game = load_game(write(tmp_path, text))
    assert game.kind == "table" and game.cost == 2 and game.draws_per_spin == 1
    assert game.has_progressive and not game.has_free_spins
    assert game.evaluate_one(game.u_for_stops([0])) == (0, 0, False)
    assert game.evaluate_one(game.u_for_stops([1])) == (5, 0, False)
    assert game.evaluate_one(game.u_for_stops([2])) == (0, 0, True)
    u = np.random.default_rng(5).random((5000, 1))
    out = game.evaluate(u)
    ref = [game.evaluate_one([x]) for x in u[:, 0]]
    assert out.win_units.tolist() == [r[0] for r in ref]
    assert out.progressive.tolist() == [r[2] for r in ref]
    assert not out.free_spins.any()


def test_feature_reels_are_used_in_free_spins(tmp_path: Path) -> None:
    feature = '\n[[free_spins.reels]]\nsymbols = ["A"]\n' * 5
    game = load_game(write(tmp_path, RULES + feature))
    assert game.feature is not None
    # feature strips are all A: every free spin pays A×5 = 200, times 3
    u = np.random.default_rng(1).random((100, 5))
    assert (game.evaluate_free(u).win_units == 600).all()
    assert game.evaluate_free_one([0.5] * 5) == (600, 0, False)


# -- validation -------------------------------------------------------------------------------


def check_error(tmp_path: Path, text: str, key: str) -> InputError:
    path = write(tmp_path, text, "bad.toml")
    with pytest.raises(InputError) as info:
        load_game(path)
    err = info.value
    assert err.source == str(path)
    assert err.key == key, str(err)
    assert str(err).startswith(f"{path}: {key}: expected "), str(err)
    return err


def test_unknown_key_rejected(tmp_path: Path) -> None:
    err = check_error(
        tmp_path, RULES.replace("rows = 1", 'rows = 1\ncolour = "red"'), "game.colour"
    )
    assert err.found == "colour"
    check_error(tmp_path, RULES + "\n[bonus]\nx = 1\n", "bonus")
    check_error(
        tmp_path,
        RULES.replace("multiplier = 3", "multiplier = 3\nmultipler = 2"),
        "free_spins.multipler",
    )


def test_negative_weight_rejected(tmp_path: Path) -> None:
    text = RULES.replace(
        '[[reels]]\nsymbols = ["A", "B", "W", "S", "C", "X"]\n[[reels]]',
        '[[reels]]\nsymbols = ["A", "B", "W", "S", "C", "X"]\nweights = [1, 1, -2, 1, 1, 1]\n'
        "[[reels]]",
        1,
    )
    err = check_error(tmp_path, text, "reels[0].weights[2]")
    assert err.found == -2


def test_weights_length_mismatch_rejected(tmp_path: Path) -> None:
    parts = RULES.split("[[reels]]")
    parts[3] = parts[3].replace('"X"]\n', '"X"]\nweights = [1, 2, 3]\n')
    err = check_error(tmp_path, "[[reels]]".join(parts), "reels[2].weights")
    assert err.found == 3


def test_pay_for_unknown_symbol_rejected(tmp_path: Path) -> None:
    err = check_error(
        tmp_path, RULES.replace("[pays]", "[pays]\nDRAGON = { 3 = 5 }"), "pays.DRAGON"
    )
    assert err.found == "DRAGON"


def test_pay_count_out_of_range_rejected(tmp_path: Path) -> None:
    check_error(tmp_path, RULES.replace("5 = 200 }", "6 = 200 }"), "pays.A.6")
    check_error(tmp_path, RULES.replace("5 = 200 }", "five = 200 }"), "pays.A.five")
    check_error(tmp_path, RULES.replace("X = { 3 = 7 }", "X = { 3 = 0 }"), "pays.X.3")


def test_bad_toml_reports_line(tmp_path: Path) -> None:
    err = check_error(tmp_path, '[game]\nid = "x"\nname = = "y"\n', "line 3")
    assert "valid TOML" in str(err)


def test_other_validation_errors(tmp_path: Path) -> None:
    check_error(tmp_path, RULES.replace('kind = "reels"', 'kind = "dice"'), "game.kind")
    check_error(tmp_path, RULES.replace("rows = 1", 'rows = "1"'), "game.rows")
    check_error(tmp_path, RULES.replace("[[0, 0, 0, 0, 0]]", "[[0, 0, 0, 0]]"), "game.lines[0]")
    check_error(
        tmp_path, RULES.replace("[[0, 0, 0, 0, 0]]", "[[0, 0, 1, 0, 0]]"), "game.lines[0][2]"
    )
    check_error(tmp_path, RULES.replace('symbols = ["W"]', 'symbols = ["Q"]'), "wild.symbols[0]")
    check_error(tmp_path, RULES.replace('symbol = "S"', 'symbol = "Z"'), "scatter.symbol")
    check_error(tmp_path, RULES.replace("[pays]", "[pays]\nS = { 3 = 5 }"), "pays.S")
    check_error(tmp_path, RULES.replace('name = "Rules"\n', ""), "game.name")
    check_error(tmp_path, RULES.replace("rows = 1", "rows = 1\ncost = 3"), "game.cost")
    check_error(tmp_path, RULES + '\n[[free_spins.reels]]\nsymbols = ["A"]\n', "free_spins.reels")


def test_supercritical_retrigger_rejected(tmp_path: Path) -> None:
    # P(3+ scatters in 5 reels, p = 1/6 each) ≈ 0.035; with 40 spins per retrigger: 1.4 > 1
    err = check_error(tmp_path, RULES.replace("spins = 4", "spins = 40"), "free_spins.retrigger")
    assert "subcritical" in str(err)
    load_game(write(tmp_path, RULES.replace("spins = 4", "spins = 28")))  # 0.985 < 1


def test_table_validation(tmp_path: Path) -> None:
    head = '[game]\nid = "t"\nname = "T"\nkind = "table"\ncost = 1\n'
    check_error(
        tmp_path, head + '[[outcomes]]\nname = "a"\nweight = 1\npay = -1\n', "outcomes[0].pay"
    )
    check_error(
        tmp_path, head + '[[outcomes]]\nname = "a"\nweight = 0\npay = 1\n', "outcomes[0].weight"
    )
    check_error(tmp_path, head + "rows = 1\n", "game.rows")
    check_error(tmp_path, head, "outcomes")
    dup = '[[outcomes]]\nname = "a"\nweight = 1\npay = 1\n'
    check_error(tmp_path, head + dup + dup, "outcomes[1].name")


def test_missing_file_and_game_table(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"no-such\.toml"):
        load_game(tmp_path / "no-such.toml")
    with pytest.raises(InputError, match=r"game: expected a \[game\] table"):
        parse_game(b"x = 1\n", "mem.toml")
