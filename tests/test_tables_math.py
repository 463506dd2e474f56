"""Table games: the exact house edges (roulette, punto banco, blackjack), checked against
published figures and by play (a wheel spun, coups dealt, hands played card by card), the
validation of game files, and ``twin table`` as a real subprocess.

Simulation tests are seeded (so each is deterministic); the error rate stated for each is the
chance a correct derivation would fail it on a fresh seed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from math import sqrt
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from twin.errors import InputError
from twin.tables import baccarat, blackjack
from twin.tables.blackjack import ACE, Rules, UpCard, parse_rules, solve
from twin.tables.games import (
    ROULETTE_BETS,
    ROULETTE_POCKETS,
    SIMULATE,
    TableGame,
    load_table_game,
)

ROOT = Path(__file__).resolve().parent.parent
TABLES = ROOT / "scenarios" / "tables"
ROULETTE = TABLES / "roulette-single-zero.toml"
BACCARAT = TABLES / "punto-banco-8deck.toml"
BLACKJACK = TABLES / "blackjack-infinite-s17-das.toml"


def game_file(tmp: Path, kind: str, rules: str, name: str = "g.toml") -> Path:
    p = tmp / name
    p.write_text(
        f'[game]\nid = "g"\nkind = "{kind}"\nrounds_per_hour = 60\n\n[rules]\n{rules}\n',
        encoding="utf-8",
    )
    return p


def bad(tmp: Path, kind: str, rules: str, key: str) -> None:
    with pytest.raises(InputError) as e:
        load_table_game(game_file(tmp, kind, rules))
    assert e.value.key == key, e.value
    assert "g.toml" in str(e.value)


# -- roulette ---------------------------------------------------------------------------------


def test_every_roulette_bet_has_an_edge_of_one_in_37() -> None:
    g = load_table_game(ROULETTE)
    assert g.main_bet == "red"
    assert set(g.bets) == set(ROULETTE_BETS)
    for name, law in g.bets.items():
        assert law.house_edge == Fraction(1, 37), name


def test_la_partage_halves_the_edge_on_even_money_only(tmp_path: Path) -> None:
    g = load_table_game(game_file(tmp_path, "roulette", "la_partage = true"))
    even = {"red", "black", "odd", "even", "low", "high"}
    for name, law in g.bets.items():
        assert law.house_edge == (Fraction(1, 74) if name in even else Fraction(1, 37)), name


def test_the_wheel_settles_every_bet_on_the_pockets_it_covers(tmp_path: Path) -> None:
    """Spinning is exact over the 37 pockets: every pocket once gives the derived mean."""
    for partage in ("false", "true"):
        g = load_table_game(game_file(tmp_path, "roulette", f"la_partage = {partage}"))
        for name, (covered, _) in ROULETTE_BETS.items():
            assert len(ROULETTE_POCKETS[name]) == covered
            assert 0 not in ROULETTE_POCKETS[name]

            class Wheel:  # one spin per pocket, in order
                def integers(self, lo: int, hi: int, size: int) -> np.ndarray:
                    return np.arange(37)

            nets = SIMULATE["roulette"](g, name, Wheel(), 37)  # type: ignore[arg-type]
            assert Fraction(round(float(nets.sum()) * 2), 2) / 37 == g.bets[name].mean, name


def test_roulette_rules_are_validated(tmp_path: Path) -> None:
    bad(tmp_path, "roulette", "zeros = 2", "rules.zeros")
    bad(tmp_path, "roulette", 'la_partage = "yes"', "rules.la_partage")
    bad(tmp_path, "roulette", "en_prison = true", "rules.en_prison")


# -- punto banco ------------------------------------------------------------------------------

#: banker wins, player wins, ties as ordered six-card sequences (Wizard of Odds' counts)
PUBLISHED_COUNTS = {
    8: (2_292_252_566_437_888, 2_230_518_282_592_256, 475_627_426_473_216),
    6: (403_095_751_234_560, 392_220_492_728_832, 83_552_962_932_288),
}


@pytest.mark.parametrize("decks", [8, 6])
def test_punto_banco_counts_are_the_published_ones(decks: int) -> None:
    b, p, t, total = baccarat.outcome_counts(decks)
    assert (b, p, t) == PUBLISHED_COUNTS[decks]
    n = 52 * decks
    assert b + p + t == total == n * (n - 1) * (n - 2) * (n - 3) * (n - 4) * (n - 5)


def test_punto_banco_8_deck_edges_exact_and_published() -> None:
    g = load_table_game(BACCARAT)
    assert list(g.bets) == ["banker", "player", "tie"]
    assert g.main_bet == "banker"
    edge = {k: v.house_edge for k, v in g.bets.items()}
    assert edge == {
        "banker": Fraction(114753351728, 10847218479825),
        "player": Fraction(241149546272, 19524993263685),
        "tie": Fraction(103841353768, 723147898655),
    }
    # the figures Wizard of Odds (and Thorp) publish, to their four decimals of a percent
    assert [round(float(e) * 100, 4) for e in edge.values()] == [1.0579, 1.2351, 14.3596]
    assert g.bets["banker"].nets == (Fraction(19, 20), Fraction(0), Fraction(-1))


def test_punto_banco_rule_variants(tmp_path: Path) -> None:
    g = load_table_game(
        game_file(tmp_path, "punto_banco", 'banker_commission = "1/25"\ntie_pays = 9')
    )
    assert round(float(g.bets["banker"].house_edge) * 100, 4) == 0.5993  # 4 % commission
    assert round(float(g.bets["tie"].house_edge) * 100, 4) == 4.8440  # tie at 9 to 1
    g = load_table_game(game_file(tmp_path, "punto_banco", "pair_pays = 11"))
    assert list(g.bets) == ["banker", "player", "tie", "player_pair", "banker_pair"]
    # 8 decks: the second card matches the first's rank with probability 31/415; at 11 to 1
    # the edge is 1 - 12 * 31/415 = 43/415 (10.3614 %)
    assert g.bets["banker_pair"].house_edge == Fraction(43, 415)


def test_punto_banco_rules_are_validated(tmp_path: Path) -> None:
    bad(tmp_path, "punto_banco", "decks = 9", "rules.decks")
    bad(tmp_path, "punto_banco", "decks = true", "rules.decks")
    bad(tmp_path, "punto_banco", 'banker_commission = "five"', "rules.banker_commission")
    bad(tmp_path, "punto_banco", "banker_commission = 1.5", "rules.banker_commission")
    bad(tmp_path, "punto_banco", "tie_pays = 0", "rules.tie_pays")
    bad(tmp_path, "punto_banco", "dragon_bonus = true", "rules.dragon_bonus")
    bad(tmp_path, "punto_banco", "pair_pays = 0.5", "rules.pair_pays")


def test_dealt_coups_follow_the_exact_law() -> None:
    """200,000 coups dealt card by card from full shoes; chi-square against the exact
    banker/player/tie probabilities at the 0.1 % level (error rate 0.1 %)."""
    rng = np.random.default_rng(20260101)
    p, b, ranks = baccarat.deal(8, rng, 200_000)
    observed = [(b > p).sum(), (p > b).sum(), (p == b).sum()]
    bw, pw, tw, total = baccarat.outcome_counts(8)
    expected = [200_000 * x / total for x in (bw, pw, tw)]
    assert stats.chisquare(observed, expected).pvalue > 0.001
    pairs = (ranks[:, 0] == ranks[:, 1]).sum()  # 31/415 of coups (binomial, 0.1 % level)
    assert stats.binomtest(int(pairs), 200_000, 31 / 415).pvalue > 0.001


# -- blackjack --------------------------------------------------------------------------------

#: Wizard of Odds, blackjack appendix 1: infinite deck, dealer stands on soft 17, double any
#: two, double after split, split to four hands (aces once, one card each), no surrender,
#: 3 to 2; "the house edge is 0.511734%" (six decimals of a percent)
WIZARD_APPENDIX_1 = 0.511734


def test_blackjack_edge_is_wizard_of_odds_appendix_1() -> None:
    g = load_table_game(BLACKJACK)
    assert g.main_bet == "hand"
    law = g.bets["hand"]
    assert abs(float(law.house_edge) * 100 - WIZARD_APPENDIX_1) <= 0.0000005
    assert law.house_edge == Fraction(469430306791487675426722237, 91733330193268616658399616009)
    assert min(law.nets) == -8 and max(law.nets) == 8  # four split hands, all doubled
    assert Fraction(3, 2) in law.nets and Fraction(-1, 2) not in law.nets


def test_blackjack_plays_are_appendix_1s_values() -> None:
    """The same appendix's returns for 8,8 against a ten: stand -0.5404, hit -0.5398,
    split -0.4807 (four decimals), and the chart's best plays."""
    r = Rules()
    u = UpCard(10, r)
    assert round(float(u.stand_ev(16, False)), 4) == -0.5404
    assert round(float(u.ev(u.options(16, False, split_hand=False)["hit"])), 4) == -0.5398
    assert round(float(u.split_ev(8)), 4) == -0.4807
    s = solve(r).strategy
    assert s[(10, 8, 8)] == "split" and s[(10, 10, 10)] == "stand"
    assert s[(6, 6, 10)] == "stand" and s[(7, 6, 10)] == "hit"  # hard 16
    assert s[(ACE, 5, 6)] == "hit" and s[(10, 5, 6)] == "double"  # 11: hit an ace (S17)
    assert s[(3, 7, ACE)] == "double" and s[(2, 7, ACE)] == "stand"  # soft 18
    assert s[(7, 9, 9)] == "stand" and s[(8, 9, 9)] == "split"
    assert s[(5, 4, 4)] == "split" and s[(4, 4, 4)] == "hit"  # needs double after split


def test_six_to_five_costs_exactly_three_tenths_of_the_naturals(tmp_path: Path) -> None:
    """Basic strategy does not depend on what a natural pays, so paying 6:5 instead of 3:2
    costs exactly 3/10 times P(player natural, no dealer natural) = 3/10 * 8/169 * 161/169."""
    base = load_table_game(BLACKJACK).bets["hand"].house_edge
    rules = BLACKJACK.read_text(encoding="utf-8").replace('"3:2"', '"6:5"')
    (tmp_path / "b.toml").write_text(rules, encoding="utf-8")
    worse = load_table_game(tmp_path / "b.toml").bets["hand"].house_edge
    assert worse - base == Fraction(3, 10) * Fraction(8, 169) * Fraction(161, 169)


def test_blackjack_rules_are_validated(tmp_path: Path) -> None:
    inf = 'shoe = "infinite"\n'
    bad(tmp_path, "blackjack", "decks = 6", "rules.decks")
    bad(tmp_path, "blackjack", "", "rules.shoe")
    bad(tmp_path, "blackjack", 'shoe = "six decks"', "rules.shoe")
    bad(tmp_path, "blackjack", inf + 'double = "any"', "rules.double")
    bad(tmp_path, "blackjack", inf + "max_split_hands = 5", "rules.max_split_hands")
    bad(tmp_path, "blackjack", inf + 'dealer_hits_soft_17 = "yes"', "rules.dealer_hits_soft_17")
    bad(tmp_path, "blackjack", inf + 'blackjack_pays = "2:1"', "rules.blackjack_pays")
    bad(tmp_path, "blackjack", inf + 'surrender = "early"', "rules.surrender")
    bad(tmp_path, "blackjack", inf + 'surrender = "late"\nhole_card = "none"', "rules.surrender")
    bad(tmp_path, "blackjack", inf + "insurance = true", "rules.insurance")


def _within(nets: np.ndarray, law_mean: Fraction, z: float) -> bool:
    half = z * float(nets.std(ddof=1)) / sqrt(nets.shape[0])
    return abs(float(nets.mean()) - float(law_mean)) <= half


def _fits(nets: np.ndarray, law: dict[Fraction, Fraction]) -> float:
    """Chi-square p-value of the simulated nets against the law (tail outcomes pooled so
    every cell expects at least 20)."""
    n = nets.shape[0]
    cells: list[tuple[list[float], float]] = []
    pool: list[float] = []
    pooled = 0.0
    for net, p in sorted(law.items(), key=lambda kv: kv[1]):
        pool.append(float(net))
        pooled += float(p)
        if pooled * n >= 20:
            cells.append((pool, pooled))
            pool, pooled = [], 0.0
    if pool:
        last, q = cells.pop()
        cells.append((last + pool, q + pooled))
    observed = [np.isin(nets, vals).sum() for vals, _ in cells]
    expected = [q * n for _, q in cells]
    return float(stats.chisquare(observed, expected).pvalue)


def test_hands_played_card_by_card_match_the_law() -> None:
    """100,000 hands dealt and played card by card with the derived strategy: the mean within
    3.29 standard errors of the exact edge (error rate 0.1 %), and the whole distribution of
    nets (doubles, splits, naturals) fits the law by chi-square at the 0.1 % level."""
    r = Rules()
    nets = blackjack.simulate(r, np.random.default_rng(7), 100_000)
    law = solve(r).law
    assert _within(nets, -load_table_game(BLACKJACK).bets["hand"].house_edge, 3.29)
    assert _fits(nets, law) > 0.001


VARIANTS = {
    "h17": Rules(dealer_hits_soft_17=True),
    "no-hole-card": Rules(hole_card="none"),
    "late-surrender": Rules(surrender="late"),
    "10-11-no-das-rsa-hit-aces": Rules(
        double="10-11", double_after_split=False, resplit_aces=True, hit_split_aces=True
    ),
    "6:5-two-hands": Rules(blackjack_pays="6:5", max_split_hands=2),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(VARIANTS))
def test_rule_variants_played_card_by_card_match_their_laws(name: str) -> None:
    """1,000,000 hands of each variant: mean within 3.29 standard errors (error rate 0.1 %
    each) and the distribution by chi-square at the 0.1 % level."""
    r = VARIANTS[name]
    sol = solve(r)
    assert sum(sol.law.values()) == 1
    mean = sum((n * p for n, p in sol.law.items()), Fraction(0))
    nets = blackjack.simulate(r, np.random.default_rng(list(VARIANTS).index(name)), 1_000_000)
    assert _within(nets, mean, 3.29)
    assert _fits(nets, sol.law) > 0.001


@pytest.mark.slow
def test_rule_effects_have_the_published_signs() -> None:
    """Hitting soft 17 and the no-hole-card rule cost the player, late surrender helps
    (Wizard of Odds' rule effects: about +0.2 %, +0.1 % and -0.08 % on the edge)."""
    base = -sum((n * p for n, p in solve(Rules()).law.items()), Fraction(0))

    def edge(r: Rules) -> float:
        return float(-sum((n * p for n, p in solve(r).law.items()), Fraction(0)) - base) * 100

    assert 0.15 < edge(VARIANTS["h17"]) < 0.25
    assert 0.05 < edge(VARIANTS["no-hole-card"]) < 0.2
    assert -0.12 < edge(VARIANTS["late-surrender"]) < -0.04


def test_the_pit_can_sample_every_law() -> None:
    """The pit draws rounds from ``BetLaw.sample_net_cents``: integer cents, every net a
    multiple of the stake's fraction, rounded toward the house."""
    rng = np.random.default_rng(3)
    for path in (ROULETTE, BACCARAT, BLACKJACK):
        g: TableGame = load_table_game(path)
        for law in g.bets.values():
            out = law.sample_net_cents(rng, np.full(1000, 2_500))
            assert out.dtype == np.int64
            allowed = {int(np.floor(n * 2_500)) for n in law.nets}
            assert set(out.tolist()) <= allowed


# -- twin table -------------------------------------------------------------------------------


def twin(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "twin", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_twin_table_prints_the_exact_edges() -> None:
    p = twin("table", BACCARAT, "--json", "--simulate", "20000", "--seed", "5")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["game"]["kind"] == "punto_banco" and doc["game"]["main_bet"] == "banker"
    bets = {b["name"]: b for b in doc["bets"]}
    assert bets["banker"]["house_edge_exact"] == "114753351728/10847218479825"
    assert bets["tie"]["pays"] == "8 to 1"
    sim = bets["player"]["simulation"]
    assert sim["rounds"] == 20000 and sim["seed"] == 5
    lo, hi = sim["ci95_percent"]
    assert lo < sim["edge_percent"] < hi
    again = json.loads(
        twin("table", BACCARAT, "--json", "--simulate", "20000", "--seed", "5").stdout
    )
    assert again == doc  # seeded
    text = twin("table", ROULETTE).stdout
    assert "1/37" in text and "2.7027 %" in text and "la_partage = false" in text


def test_twin_table_blackjack_text() -> None:
    p = twin("table", BLACKJACK)
    assert p.returncode == 0, p.stderr
    assert "0.5117 %" in p.stdout and "blackjack 3 to 2" in p.stdout
    assert "standard deviation per unit 1.1538" in p.stdout


def test_twin_table_bad_input_is_one_line_naming_file_and_key(tmp_path: Path) -> None:
    f = game_file(tmp_path, "blackjack", "decks = 6")
    for args, key in (
        ([f], "rules.decks"),
        ([tmp_path / "none.toml"], "none.toml"),
        ([BACCARAT, "--simulate", "1"], "--simulate"),
    ):
        p = twin("table", *args)
        assert p.returncode == 2, p
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
        assert key in lines[0]
    assert str(f) in twin("table", f).stderr


def test_parse_rules_defaults_are_appendix_1() -> None:
    assert parse_rules({"shoe": "infinite"}, Path("x")) == Rules()
