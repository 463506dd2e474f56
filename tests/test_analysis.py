"""Exact analysis: hand-computed games, brute-force cross-checks, rendering."""

from __future__ import annotations

import itertools
import json
import math
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import pytest

from twin.errors import InputError
from twin.machines.analysis import analyse, feature_spin_cap
from twin.machines.par import Game, load_game
from twin.machines.par_report import render_text, to_json_dict

# Hand-made: 3 reels, 1 row, 1 line. Reel 0 = A B C (weights 1 2 1), reel 1 = A B (1 1),
# reel 2 = A C (1 3): cycle 4 × 2 × 4 = 32.
#   A A A  weight 1·1·1 = 1   pays 20
#   A A C  weight 3, A B * weight 4: A pays only for 3       -> 0
#   B B *  weight 2·1·4 = 8   B run 2 pays 2
#   B A *  weight 8           B run 1 -> 0
#   C * *  weight 1·2·4 = 8   C run 1 pays 1
# RTP = (20 + 16 + 8) / 32 = 11/8; hit = (1 + 8 + 8) / 32 = 17/32;
# E[X²] = (400 + 32 + 8) / 32 = 55/4; variance = 55/4 - (11/8)² = 759/64.
HAND = """
[game]
id = "hand"
name = "Hand made"
kind = "reels"
rows = 1
lines = [[0, 0, 0]]

[[reels]]
symbols = ["A", "B", "C"]
weights = [1, 2, 1]

[[reels]]
symbols = ["A", "B"]

[[reels]]
symbols = ["A", "C"]
weights = [1, 3]

[pays]
A = { 3 = 20 }
B = { 2 = 2 }
C = { 1 = 1 }
"""

# Free spins by hand: 3 reels of S A (unweighted), 1 row, 1 line; A×3 pays 4; 2+ S trigger
# 3 free spins at ×2, no retrigger.
#   base: P(AAA) = 1/8 -> E[B] = 1/2, E[B²] = 2; P(I) = P(2+ S of 3) = 1/2; B·I = 0 always
#   free spin: W = 2B: E[W] = 1, E[W²] = 8; F = W1 + W2 + W3: E[F] = 3, E[F²] = 3·8 + 6·1 = 30
#   E[G] = 1/2 + 1/2·3 = 2; E[G²] = 2 + 1/2·30 = 17; Var = 17 - 4 = 13
#   hit = P(AAA) + P(I) = 5/8; max: base 4, one free spin 8, 3 spins: 4 + 8·3 = 28
FREE = """
[game]
id = "free"
name = "Free by hand"
kind = "reels"
rows = 1
lines = [[0, 0, 0]]

[[reels]]
symbols = ["S", "A"]
[[reels]]
symbols = ["S", "A"]
[[reels]]
symbols = ["S", "A"]

[pays]
A = { 3 = 4 }

[scatter]
symbol = "S"

[free_spins]
count = 2
spins = 3
multiplier = 2
"""

# Brute-force game: 5 reels, 3 rows, 4 lines, wild, scatter, weighted base reels, separate
# weighted feature reels, retriggering free spins.
BRUTE_REEL = '[[reels]]\nsymbols = ["A", "B", "W", "S", "C", "X"]\n'
BRUTE_FEATURE = (
    '[[free_spins.reels]]\nsymbols = ["A", "B", "C", "S", "A", "B", "W", "X"]\n'
    "weights = [2, 1, 1, 1, 1, 1, 1, 1]\n"
)
BRUTE = (
    """
[game]
id = "brute"
name = "Brute force"
kind = "reels"
rows = 3
lines = [[0, 0, 0, 0, 0], [1, 1, 1, 1, 1], [2, 2, 2, 2, 2], [0, 1, 2, 1, 0]]

[[reels]]
symbols = ["A", "B", "W", "S", "C", "X"]
weights = [3, 1, 1, 2, 1, 1]
"""
    + BRUTE_REEL * 4
    + """
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
spins = 2
multiplier = 3
retrigger = true
"""
    + BRUTE_FEATURE * 5
)


def write(tmp_path: Path, text: str, name: str = "game.toml") -> Game:
    path = tmp_path / name
    path.write_text(text)
    return load_game(path)


def test_hand_made_three_reel_game(tmp_path: Path) -> None:
    game = write(tmp_path, HAND)
    a = analyse(game)
    assert a.cycle == 32
    assert a.combinations == 12
    assert a.rtp == Fraction(11, 8)
    assert a.line_return == Fraction(11, 8)
    assert a.scatter_return == a.feature_return == 0
    assert a.hit_rate == Fraction(17, 32)
    assert a.variance == Fraction(759, 64)
    assert a.sd == pytest.approx(math.sqrt(759 / 64))
    assert a.max_base_win == a.max_win == 20
    assert a.progressive_rate == 0
    # the prefix loop (one combination per block) gives the same exact figures
    assert analyse(game, chunk=1) == a


def test_free_spins_by_hand(tmp_path: Path) -> None:
    a = analyse(write(tmp_path, FREE))
    assert a.line_return == Fraction(1, 2)
    assert a.trigger_rate == Fraction(1, 2)
    assert a.feature_spins_mean == 3
    assert a.feature_win_mean == 3
    assert a.feature_return == Fraction(3, 2)
    assert a.rtp == 2
    assert a.variance == 13
    assert a.hit_rate == Fraction(5, 8)
    assert (a.max_base_win, a.max_free_spin_win, a.feature_spin_cap, a.max_win) == (4, 8, 3, 28)


def _weights(game: Game, free: bool) -> tuple[list[range], list[tuple[int, ...]]]:
    reels = game.feature_reels if free else game.base
    assert reels is not None
    return [range(n) for n in reels.lengths], list(reels.weights)


def test_brute_force_enumeration_and_feature(tmp_path: Path) -> None:
    game = write(tmp_path, BRUTE)
    fs = game.free_spins
    assert fs is not None and game.feature is not None
    a = analyse(game)
    assert analyse(game, chunk=7) == a  # two-reel prefix

    # base game: every combination through the scalar reference
    ranges, weights = _weights(game, free=False)
    cyc = s_b = s_b2 = s_i = s_bi = s_hit = 0
    for stops in itertools.product(*ranges):
        w = math.prod(weights[r][s] for r, s in enumerate(stops))
        b, spins, _ = game.evaluate_stops_one(stops)
        i = 1 if spins else 0
        cyc += w
        s_b += w * b
        s_b2 += w * b * b
        s_i += w * i
        s_bi += w * b * i
        s_hit += w * (1 if b or i else 0)
    assert a.cycle == cyc
    assert a.line_return + a.scatter_return == Fraction(s_b, cyc * game.cost)
    assert a.trigger_rate == Fraction(s_i, cyc)
    assert a.hit_rate == Fraction(s_hit, cyc)

    # one free spin: joint law of (win, retriggered spins)
    ranges, weights = _weights(game, free=True)
    law: dict[tuple[int, int], int] = defaultdict(int)
    fcyc = 0
    for stops in itertools.product(*ranges):
        w = math.prod(weights[r][s] for r, s in enumerate(stops))
        win, spins, _ = game.evaluate_stops_one(stops, free=True)
        law[win, spins] += w
        fcyc += w
    steps = [(w / fcyc, win, spins) for (win, spins), w in law.items()]

    # the feature as a Markov chain on the number of pending spins, carrying the first two
    # moments of the win so far (mass, Σ p·win, Σ p·win²); run until the mass left is tiny
    state = {fs.spins: (1.0, 0.0, 0.0)}
    done = [0.0, 0.0, 0.0]
    for _ in range(2000):
        nxt: dict[int, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
        for pending, (m0, m1, m2) in state.items():
            for p, win, spins in steps:
                acc = done if pending - 1 + spins == 0 else nxt[pending - 1 + spins]
                acc[0] += p * m0
                acc[1] += p * (m1 + win * m0)
                acc[2] += p * (m2 + 2 * win * m1 + win * win * m0)
        state = {k: (v[0], v[1], v[2]) for k, v in nxt.items()}
        if sum(v[0] for v in state.values()) < 1e-15:
            break
    assert done[0] == pytest.approx(1.0, abs=1e-12)
    ef, ef2 = done[1], done[2]
    assert float(a.feature_win_mean) == pytest.approx(ef, rel=1e-10)

    p_i, e_b, e_b2, e_bi = s_i / cyc, s_b / cyc, s_b2 / cyc, s_bi / cyc
    mean = e_b + p_i * ef
    second = e_b2 + 2 * e_bi * ef + p_i * ef2
    assert float(a.rtp) == pytest.approx(mean / game.cost, rel=1e-10)
    assert float(a.variance) == pytest.approx((second - mean * mean) / game.cost**2, rel=1e-9)


def test_feature_spin_cap() -> None:
    assert feature_spin_cap(10, 0.3, retrigger=False) == 10
    # one spin per award: the number of retriggers is geometric, P(more than n spins) = p**n
    assert feature_spin_cap(1, 0.2, retrigger=True) == 9  # 0.2**8 = 2.6e-6, 0.2**9 = 5.1e-7
    assert feature_spin_cap(10, 0.0, retrigger=True) == 10


def test_too_many_combinations_is_a_clear_error(tmp_path: Path) -> None:
    strip = "[[reels]]\nsymbols = [" + ", ".join(['"A", "B"'] * 25) + "]\n"
    text = (
        '[game]\nid = "big"\nname = "Big"\nkind = "reels"\nrows = 1\nlines = [[0, 0, 0, 0, 0]]\n'
        + strip * 5
        + "[pays]\nA = { 5 = 1 }\n"
    )
    game = write(tmp_path, text)
    with pytest.raises(InputError, match=r"reels: expected at most 200000000 stop combinations"):
        analyse(game)


def test_table_analysis(tmp_path: Path) -> None:
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
    a = analyse(write(tmp_path, text))
    # pays per game: 0 (3/5), 5 (1/5), link prize excluded (1/5): E = 1, E[X²] = 5, Var = 4
    assert a.rtp == a.table_return == Fraction(1, 2)
    assert a.hit_rate == Fraction(2, 5)
    assert a.progressive_rate == Fraction(1, 5)
    assert a.variance == 1  # 4 / cost²
    assert a.max_win == 5
    assert a.cycle == 5


def test_render_text_and_json(tmp_path: Path) -> None:
    a = analyse(write(tmp_path, HAND))
    text = render_text(a)
    assert "PAR sheet hand: Hand made" in text
    assert a.signature[:16] in text
    assert "137.5000 %" in text and "exact 11/8" in text
    assert "1 in 1.88 (53.1250 %)" in text
    doc = to_json_dict(a)
    assert doc["rtp_exact"] == "11/8"
    assert doc["hit_rate_exact"] == "17/32"
    assert doc["variance_exact"] == "759/64"
    assert json.loads(json.dumps(doc)) == doc

    b = analyse(write(tmp_path, FREE, "free.toml"))
    text = render_text(b)
    assert "Free spins" in text and "bound 28" in text
    assert to_json_dict(b)["feature"]["spin_cap"] == 3
