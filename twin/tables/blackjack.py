"""Blackjack: basic strategy and the exact law of one initial bet, from an infinite shoe.

The derivation is exact for an *infinite shoe* (every card is drawn with the probabilities of
a full deck: 1/13 for each of ace to nine, 4/13 for a ten-value card), the model of a
continuous shuffling machine. A finite shoe is refused (``rules.decks``): its exact law needs
composition-dependent play and pair-splitting calculations this module does not make.

Strategy: basic strategy computed here, by maximising the expected value of every decision
(stand, hit, double, split, surrender) given the player's hand and the dealer's up card, with
two conventions every published infinite-deck table shares: a pair is resplit (up to
``max_split_hands`` hands, aces only if ``resplit_aces``) whenever the first split was the
best play, and a tie between plays goes to the one listed first (stand, hit, double,
surrender, then split). Insurance is never taken.

Because the shoe is infinite, the player's cards are independent of the dealer's: given the
dealer's final result (17 to 21, bust, or a blackjack under the no-hole-card rule) every
player hand ends independently, so the law of the total net over all split hands is a
convolution, computed exactly with fractions. Nets are per initial unit: -1, +1, +3/2 (or
+6/5), -1/2 (surrender), and with doubles and splits anything from -8 to +8.

Rules (all optional; the defaults are those of Wizard of Odds' blackjack appendix 1, whose
house edge 0.511734 % the tests reproduce):

* ``shoe = "infinite"`` (required: the model this derivation is exact for);
* ``dealer_hits_soft_17`` (false);
* ``double``: ``"any_two"`` | ``"9-11"`` | ``"10-11"`` (on the hand's total; "any_two");
* ``double_after_split`` (true);
* ``max_split_hands``: 1 (no split) to 4 (4);
* ``resplit_aces`` (false), ``hit_split_aces`` (false: one card to each split ace);
* ``surrender``: ``"none"`` | ``"late"`` ("none"; late surrender needs the peek);
* ``blackjack_pays``: ``"3:2"`` | ``"6:5"`` ("3:2");
* ``hole_card``: ``"peek"`` (the dealer checks for blackjack under an ace or a ten; the
  player then loses only the initial bet to it) | ``"none"`` (European no-hole-card: the
  dealer draws the second card after the players, and a dealer blackjack takes every bet,
  doubles and splits included) ("peek").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from twin.errors import InputError
from twin.machines.diskcache import cached
from twin.tables.games import BetLaw, TableGame, kind, simulates

#: card values 2..11 (11 is the ace) and their probabilities in an infinite shoe
CARDS = tuple(range(2, 12))
P = {v: Fraction(4, 13) if v == 10 else Fraction(1, 13) for v in CARDS}
ACE = 11
#: integer probability scale: a probability q = k / 13**j (every player-side probability) is
#: held as the integer q * D; products of a split's hands stay exact while their denominators
#: divide D (a truncation would lose mass: BetLaw's sum-to-one check would refuse the law)
D = 13**120
DD = D * D
PD = {v: int(q * D) for v, q in P.items()}


def scaled(q: Fraction) -> int:
    x = q * D
    if x.denominator != 1:
        raise ArithmeticError(f"{q} is not a multiple of 1/13**120")
    return int(x)


#: dealer results: 17..21, BUST, DEALER_BJ (a dealer blackjack, no-hole-card rule only)
BUST = 22
DEALER_BJ = 0
#: player hand classes: 16 stands for any total of 16 or less (it loses to every dealer
#: total), 17..21, BUST
LOW = 16

DOUBLES = {"any_two": range(4, 22), "9-11": range(9, 12), "10-11": range(10, 12)}
BJ_PAYS = {"3:2": Fraction(3, 2), "6:5": Fraction(6, 5)}


@dataclass(frozen=True, slots=True)
class Rules:
    dealer_hits_soft_17: bool = False
    double: str = "any_two"
    double_after_split: bool = True
    max_split_hands: int = 4
    resplit_aces: bool = False
    hit_split_aces: bool = False
    surrender: str = "none"
    blackjack_pays: str = "3:2"
    hole_card: str = "peek"

    @property
    def peek(self) -> bool:
        return self.hole_card == "peek"

    @property
    def bj_pays(self) -> Fraction:
        return BJ_PAYS[self.blackjack_pays]


def best(hard: int, ace: bool) -> int:
    """The best total of a hand with hard total ``hard`` (aces as 1) holding an ace or not."""
    return hard + 10 if ace and hard + 10 <= 21 else hard


def add(hard: int, ace: bool, card: int) -> tuple[int, bool]:
    return hard + (1 if card == ACE else card), ace or card == ACE


def cls(hard: int, ace: bool) -> int:
    """The player's final class: LOW (16 or less), 17..21 or BUST."""
    t = best(hard, ace)
    return BUST if t > 21 else max(t, LOW)


def sign(player: int, dealer: int) -> int:
    """+1 win, 0 push, -1 loss of a player class against a dealer result (per unit bet)."""
    if player == BUST or dealer == DEALER_BJ:
        return -1
    if dealer == BUST:
        return 1
    return (player > dealer) - (player < dealer)


# -- the dealer -----------------------------------------------------------------------------


def dealer_law(up: int, rules: Rules) -> dict[int, Fraction]:
    """The dealer's final result given the up card; under the peek, given no blackjack."""
    h17 = rules.dealer_hits_soft_17

    @cache
    def play(hard: int, ace: bool) -> dict[int, Fraction]:
        t = best(hard, ace)
        if t > 21:
            return {BUST: Fraction(1)}
        soft = ace and hard + 10 <= 21
        if t >= 18 or (t == 17 and not (soft and h17)):
            return {t: Fraction(1)}
        out: dict[int, Fraction] = {}
        for c in CARDS:
            for r, q in play(*add(hard, ace, c)).items():
                out[r] = out.get(r, Fraction(0)) + P[c] * q
        return out

    natural = {ACE: 10, 10: ACE}.get(up)  # the hole card that makes a blackjack
    hole = dict(P)
    if natural is not None and rules.peek:
        del hole[natural]
        total = sum(hole.values(), Fraction(0))
        hole = {c: q / total for c, q in hole.items()}
    start = add(0, False, up)
    out: dict[int, Fraction] = {}
    for c, q in hole.items():
        law = {DEALER_BJ: Fraction(1)} if c == natural else play(*add(*start, c))
        for r, s in law.items():
            out[r] = out.get(r, Fraction(0)) + q * s
    return out


def dealer_natural(up: int) -> Fraction:
    """P(the dealer has a blackjack | up card)."""
    return P[{ACE: 10, 10: ACE}[up]] if up in (ACE, 10) else Fraction(0)


# -- the player -----------------------------------------------------------------------------

#: the end of one hand: class -> probability, and the hand's stake (1, or 2 once doubled);
#: a surrendered hand is the class SURRENDER
SURRENDER = -1
Ends = dict[tuple[int, int], Fraction]


def _mix(into: Ends, ends: Ends, weight: Fraction) -> None:
    for k, q in ends.items():
        into[k] = into.get(k, Fraction(0)) + weight * q


def net_given(end: tuple[int, int], dealer: int) -> Fraction:
    c, stake = end
    if c == SURRENDER:
        return Fraction(-1, 2)
    return Fraction(stake * sign(c, dealer))


class UpCard:
    """Basic strategy against one dealer up card, and the end laws of its plays."""

    def __init__(self, up: int, rules: Rules) -> None:
        self.up = up
        self.rules = rules
        self.dealer = dealer_law(up, rules)
        self._hs: dict[tuple[int, bool], tuple[str, Ends, Fraction]] = {}
        self._split: dict[tuple[int, int], tuple[str, Ends, Fraction]] = {}
        self._options: dict[tuple[int, bool, bool], dict[str, Ends]] = {}
        self._ends: dict[tuple[int, int], Fraction] = {}

    def ev(self, ends: Ends) -> Fraction:
        """Expected net of a hand's end law against the dealer's law."""
        return sum((q * self._end_ev(e) for e, q in ends.items()), Fraction(0))

    def _end_ev(self, end: tuple[int, int]) -> Fraction:
        if end not in self._ends:
            self._ends[end] = sum(
                (s * net_given(end, d) for d, s in self.dealer.items()), Fraction(0)
            )
        return self._ends[end]

    def stand_ev(self, hard: int, ace: bool) -> Fraction:
        return self.ev({(cls(hard, ace), 1): Fraction(1)})

    def hit_or_stand(self, hard: int, ace: bool) -> tuple[str, Ends, Fraction]:
        """The better of hitting and standing (a tie stands), its end law and its EV."""
        key = (hard, ace)
        if key not in self._hs:
            stand: Ends = {(cls(hard, ace), 1): Fraction(1)}
            if best(hard, ace) >= 21:
                self._hs[key] = ("stand", stand, self.ev(stand))
            else:
                hit = self.after_hit(hard, ace)
                es, eh = self.ev(stand), self.ev(hit)
                self._hs[key] = ("stand", stand, es) if es >= eh else ("hit", hit, eh)
        return self._hs[key]

    def after_hit(self, hard: int, ace: bool) -> Ends:
        out: Ends = {}
        for c in CARDS:
            h, a = add(hard, ace, c)
            _mix(out, self.hit_or_stand(h, a)[1], P[c])
        return out

    def doubled(self, hard: int, ace: bool) -> Ends:
        out: Ends = {}
        for c in CARDS:
            h, a = add(hard, ace, c)
            _mix(out, {(cls(h, a), 2): Fraction(1)}, P[c])
        return out

    def options(self, hard: int, ace: bool, *, split_hand: bool) -> dict[str, Ends]:
        """The plays of a two-card hand (not a pair being split) and their end laws."""
        key = (hard, ace, split_hand)
        if key not in self._options:
            self._options[key] = self._make_options(hard, ace, split_hand=split_hand)
        return self._options[key]

    def _make_options(self, hard: int, ace: bool, *, split_hand: bool) -> dict[str, Ends]:
        out: dict[str, Ends] = {"stand": {(cls(hard, ace), 1): Fraction(1)}}
        if best(hard, ace) < 21:
            out["hit"] = self.after_hit(hard, ace)
        may_double = not split_hand or self.rules.double_after_split
        if may_double and best(hard, ace) in DOUBLES[self.rules.double]:
            out["double"] = self.doubled(hard, ace)
        if not split_hand and self.rules.surrender == "late":
            out["surrender"] = {(SURRENDER, 1): Fraction(1)}
        return out

    def choose(self, options: dict[str, Ends]) -> tuple[str, Ends, Fraction]:
        best_play = ""
        best_ev = Fraction(-100)
        for play, ends in options.items():  # in order: a tie goes to the earlier play
            e = self.ev(ends)
            if e > best_ev:
                best_play, best_ev = play, e
        return best_play, options[best_play], best_ev

    def split_hand(self, pair: int, second: int) -> tuple[str, Ends, Fraction]:
        """The play of a split hand holding ``pair`` then ``second`` (no further split)."""
        key = (pair, second)
        if key not in self._split:
            h, a = add(*add(0, False, pair), second)
            if pair == ACE and not self.rules.hit_split_aces:
                self._split[key] = "stand", {(cls(h, a), 1): Fraction(1)}, self.stand_ev(h, a)
            else:
                self._split[key] = self.choose(self.options(h, a, split_hand=True))
        return self._split[key]

    def may_resplit(self, pair: int) -> bool:
        return pair != ACE or self.rules.resplit_aces

    def split_ev(self, pair: int) -> Fraction:
        """EV of splitting ``pair`` (resplitting whenever allowed), per initial unit."""
        most = self.rules.max_split_hands

        @cache
        def go(hands: int, waiting: int) -> Fraction:
            if waiting == 0:
                return Fraction(0)
            total = Fraction(0)
            for c in CARDS:
                if c == pair and hands < most and self.may_resplit(pair):
                    total += P[c] * go(hands + 1, waiting + 1)
                else:
                    total += P[c] * (self.split_hand(pair, c)[2] + go(hands, waiting - 1))
            return total

        return go(2, 2)

    def split_law(self, pair: int, dealer: int) -> dict[int, int]:
        """The law of the total net of a split given the dealer's final result, as integer
        weights over :data:`D` (exact: every player probability is a power-of-13 fraction)."""
        most = self.rules.max_split_hands
        hand: dict[int, dict[int, int]] = {}
        for c in CARDS:
            law: dict[int, int] = {}
            for e, q in self.split_hand(pair, c)[1].items():
                n = int(net_given(e, dealer))  # split hands never surrender: whole nets
                law[n] = law.get(n, 0) + scaled(q)
            hand[c] = law

        @cache
        def go(hands: int, waiting: int) -> tuple[tuple[int, int], ...]:
            if waiting == 0:
                return ((0, D),)
            out: dict[int, int] = {}
            for c in CARDS:
                pc = PD[c]
                if c == pair and hands < most and self.may_resplit(pair):
                    for n, q in go(hands + 1, waiting + 1):
                        out[n] = out.get(n, 0) + pc * q // D
                else:
                    rest = go(hands, waiting - 1)
                    for n1, q1 in hand[c].items():
                        for n2, q2 in rest:
                            out[n1 + n2] = out.get(n1 + n2, 0) + pc * q1 * q2 // DD
            return tuple(out.items())

        return dict(go(2, 2))

    def initial(self, c1: int, c2: int) -> tuple[str, Fraction]:
        """The best play of a non-natural initial hand and its EV."""
        h, a = add(*add(0, False, c1), c2)
        play, _, ev = self.choose(self.options(h, a, split_hand=False))
        if c1 == c2 and self.rules.max_split_hands >= 2:
            s = self.split_ev(c1)
            if s > ev:
                return "split", s
        return play, ev


# -- the law of one initial bet -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Solution:
    rules: Rules
    law: dict[Fraction, Fraction]  # net per initial unit -> probability
    strategy: dict[tuple[int, int, int], str]  # (up, c1, c2) with c1 <= c2 -> play


@cache
def solve(rules: Rules) -> Solution:
    """The exact law and basic strategy of ``rules`` (kept on disk: the same rules and the
    same code give the same solution, :mod:`twin.machines.diskcache`)."""
    return cached("blackjack-solution", rules, (), lambda: _solve(rules), sources=(__file__,))


def _solve(rules: Rules) -> Solution:
    law: dict[Fraction, Fraction] = {}

    def put(n: Fraction, q: Fraction) -> None:
        if q:
            law[n] = law.get(n, Fraction(0)) + q

    natural = 2 * P[ACE] * P[10]  # the player's blackjack
    strategy: dict[tuple[int, int, int], str] = {}
    for up in CARDS:
        pu = P[up]
        u = UpCard(up, rules)
        if rules.peek:  # the dealer's blackjack settles the round at once
            dbj = dealer_natural(up)
            put(Fraction(0), pu * dbj * natural)
            put(Fraction(-1), pu * dbj * (1 - natural))
            pu *= 1 - dbj
        for c1 in CARDS:
            for c2 in CARDS:
                key = (up, min(c1, c2), max(c1, c2))
                if {c1, c2} != {ACE, 10} and key not in strategy:
                    strategy[key] = u.initial(c1, c2)[0]
        for d, s in u.dealer.items():
            w = pu * s
            put(Fraction(0) if d == DEALER_BJ else rules.bj_pays, w * natural)
            player: dict[Fraction, int] = {}  # the player's net given d, scaled by D
            for c1 in CARDS:
                for c2 in CARDS:
                    if {c1, c2} == {ACE, 10}:
                        continue
                    q = PD[c1] * PD[c2] // D
                    play = strategy[(up, min(c1, c2), max(c1, c2))]
                    if play == "split":
                        for k, x in u.split_law(c1, d).items():
                            player[Fraction(k)] = player.get(Fraction(k), 0) + q * x // D
                        continue
                    h, a = add(*add(0, False, c1), c2)
                    for e, r in u.options(h, a, split_hand=False)[play].items():
                        n = net_given(e, d)
                        player[n] = player.get(n, 0) + q * scaled(r) // D
            for n, x in player.items():
                put(n, w * Fraction(x, D))
    return Solution(rules, dict(sorted(law.items())), strategy)


# -- the rules of a game file ---------------------------------------------------------------


def _choice(rules: Mapping[str, Any], key: str, allowed: tuple[str, ...], path: Path) -> str:
    v = rules.get(key, allowed[0])
    if v not in allowed:
        raise InputError(path, f"rules.{key}", " or ".join(f'"{a}"' for a in allowed), v)
    return str(v)


def _flag(rules: Mapping[str, Any], key: str, default: bool, path: Path) -> bool:
    v = rules.get(key, default)
    if not isinstance(v, bool):
        raise InputError(path, f"rules.{key}", "true or false", v)
    return v


def parse_rules(rules: Mapping[str, Any], path: Path) -> Rules:
    known = {
        "shoe", "decks", "dealer_hits_soft_17", "double", "double_after_split",
        "max_split_hands", "resplit_aces", "hit_split_aces", "surrender", "blackjack_pays",
        "hole_card",
    }  # fmt: skip
    for key in rules:
        if key not in known:
            raise InputError(path, f"rules.{key}", f"one of {', '.join(sorted(known))}", key)
    if "decks" in rules:
        raise InputError(
            path, "rules.decks",
            'no deck count: the exact derivation is for an infinite shoe (shoe = "infinite")',
            rules["decks"],
        )  # fmt: skip
    if rules.get("shoe") != "infinite":
        raise InputError(path, "rules.shoe", '"infinite" (the shoe derived exactly)',
                         rules.get("shoe"))  # fmt: skip
    most = rules.get("max_split_hands", 4)
    if isinstance(most, bool) or not isinstance(most, int) or not 1 <= most <= 4:
        raise InputError(path, "rules.max_split_hands", "an integer from 1 to 4", most)
    r = Rules(
        dealer_hits_soft_17=_flag(rules, "dealer_hits_soft_17", False, path),
        double=_choice(rules, "double", ("any_two", "9-11", "10-11"), path),
        double_after_split=_flag(rules, "double_after_split", True, path),
        max_split_hands=most,
        resplit_aces=_flag(rules, "resplit_aces", False, path),
        hit_split_aces=_flag(rules, "hit_split_aces", False, path),
        surrender=_choice(rules, "surrender", ("none", "late"), path),
        blackjack_pays=_choice(rules, "blackjack_pays", ("3:2", "6:5"), path),
        hole_card=_choice(rules, "hole_card", ("peek", "none"), path),
    )
    if r.surrender == "late" and not r.peek:
        raise InputError(path, "rules.surrender",
                         '"none" with hole_card = "none" (late surrender needs the peek)',
                         "late")  # fmt: skip
    return r


@kind("blackjack")
def blackjack(rules: Mapping[str, Any], path: Path) -> dict[str, BetLaw]:
    """The initial bet under basic strategy (see the module's docstring)."""
    r = parse_rules(rules, path)
    sol = solve(r)
    pays = f"1 to 1, blackjack {r.blackjack_pays.replace(':', ' to ')}"
    return {"hand": BetLaw("hand", tuple(sol.law), tuple(sol.law.values()), pays)}


# -- simulation: the same strategy, hand by hand, card by card --------------------------------


class Simulator:
    """Plays hands card by card from an infinite shoe with the derived basic strategy.

    Independent of the exact law's algebra: it deals real cards, applies the dealer's
    drawing rule, the peek and the payouts, and plays each hand with the decisions the
    strategy tables give (``UpCard`` plays), so its mean tests the derivation end to end.
    """

    def __init__(self, rules: Rules, rng: np.random.Generator) -> None:
        self.rules = rules
        self.rng = rng
        self.sol = solve(rules)
        self.ups = {up: UpCard(up, rules) for up in CARDS}
        self._cards = np.array(CARDS)
        self._p = np.array([float(P[c]) for c in CARDS])
        self._buf: list[int] = []

    def card(self) -> int:
        if not self._buf:
            self._buf = self.rng.choice(self._cards, size=4096, p=self._p).tolist()
        return self._buf.pop()

    def dealer_plays(self, up: int, hole: int) -> int:
        hard, ace = add(*add(0, False, up), hole)
        if best(hard, ace) == 21:
            return DEALER_BJ
        while True:
            t = best(hard, ace)
            if t > 21:
                return BUST
            soft = ace and hard + 10 <= 21
            if t >= 18 or (t == 17 and not (soft and self.rules.dealer_hits_soft_17)):
                return t
            hard, ace = add(hard, ace, self.card())

    def play_hand(self, u: UpCard, hard: int, ace: bool, first: str) -> tuple[int, int]:
        """Play out a hand whose first decision is ``first``: (class, stake)."""
        if first == "stand":
            return cls(hard, ace), 1
        if first == "double":
            return cls(*add(hard, ace, self.card())), 2
        if first == "surrender":
            return SURRENDER, 1
        while True:  # hit, then hit or stand by the table
            hard, ace = add(hard, ace, self.card())
            if u.hit_or_stand(hard, ace)[0] == "stand":
                return cls(hard, ace), 1

    def round(self) -> Fraction:
        """One round's net per initial unit."""
        up, hole = self.card(), self.card()
        c1, c2 = self.card(), self.card()
        u = self.ups[up]
        player_bj = {c1, c2} == {ACE, 10}
        dealer_bj = {up, hole} == {ACE, 10}
        if dealer_bj and self.rules.peek:
            return Fraction(0) if player_bj else Fraction(-1)
        if player_bj:
            return Fraction(0) if dealer_bj else self.rules.bj_pays
        play = self.sol.strategy[(up, min(c1, c2), max(c1, c2))]
        ends: list[tuple[int, int]] = []
        if play == "split":
            waiting, hands = 2, 2
            while waiting:
                c = self.card()
                if c == c1 and hands < self.rules.max_split_hands and u.may_resplit(c1):
                    hands += 1
                    waiting += 1
                    continue
                waiting -= 1
                h, a = add(*add(0, False, c1), c)
                ends.append(self.play_hand(u, h, a, u.split_hand(c1, c)[0]))
        else:
            h, a = add(*add(0, False, c1), c2)
            ends.append(self.play_hand(u, h, a, play))
        d = self.dealer_plays(up, hole)
        return sum((net_given(e, d) for e in ends), Fraction(0))


def simulate(rules: Rules, rng: np.random.Generator, n: int) -> np.ndarray:
    """Nets of ``n`` rounds (float64, per initial unit)."""
    sim = Simulator(rules, rng)
    return np.array([float(sim.round()) for _ in range(n)])


@simulates("blackjack")
def play_rounds(game: TableGame, bet: str, rng: np.random.Generator, n: int) -> np.ndarray:
    """Play ``n`` rounds card by card (the one bet: ``hand``)."""
    return simulate(parse_rules(game.rules, game.path), rng, n)


__all__ = [
    "CARDS", "P", "Rules", "Simulator", "Solution", "UpCard", "blackjack", "dealer_law",
    "parse_rules", "simulate", "solve",
]  # fmt: skip
