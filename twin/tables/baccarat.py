"""Punto banco: the exact law of the banker, player and tie bets from a finite shoe.

Every deal from a full shoe of ``decks`` decks is enumerated: the player's two cards, the
banker's two, then the third cards the tableau calls for, each drawn without replacement.
Only the ten point values matter (ten, jack, queen and king count 0: 16 cards a deck; ace
to nine: 4 each), so the enumeration runs over values with their multiplicities and every
deal is weighted by the number of ordered card sequences that produce it. A deal that stops
at four or five cards is extended to six cards (by the number of ways to draw the unused
cards) so that every weight counts ordered six-card sequences: the three totals are exact
integers over ``N (N-1) ... (N-5)`` for a shoe of ``N`` cards (for eight decks: banker
2,292,252,566,437,888, player 2,230,518,282,592,256, tie 475,627,426,473,216 of
4,998,398,275,503,360 — the counts Wizard of Odds publishes).

The tableau (the standard drawing rules):

* a natural (8 or 9 on two cards, either hand): both stand;
* the player draws on 0-5 and stands on 6-7;
* if the player stood, the banker draws on 0-5 and stands on 6-7;
* if the player drew a third card ``c``, the banker draws on 0-2, on 3 unless ``c`` is 8,
  on 4 if ``c`` is 2-7, on 5 if ``c`` is 4-7, on 6 if ``c`` is 6-7, and stands on 7.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from math import prod
from pathlib import Path
from typing import Any

import numpy as np

from twin.errors import InputError
from twin.tables.games import BetLaw, TableGame, kind, simulates

_RANKS = range(10)


def _counts(decks: int) -> tuple[int, ...]:
    """Cards of each point value 0..9 in a shoe of ``decks`` decks."""
    return (16 * decks, *(4 * decks for _ in range(1, 10)))


def banker_draws(banker: int, player_third: int | None) -> bool:
    """The tableau: does the banker, on ``banker`` points, draw a third card?"""
    if player_third is None:
        return banker <= 5
    c = player_third
    if banker <= 2:
        return True
    if banker == 3:
        return c != 8
    if banker == 4:
        return 2 <= c <= 7
    if banker == 5:
        return 4 <= c <= 7
    if banker == 6:
        return c in (6, 7)
    return False


@lru_cache(maxsize=16)
def outcome_counts(decks: int) -> tuple[int, int, int, int]:
    """(banker wins, player wins, ties, all) as ordered six-card sequences of the shoe."""
    counts = list(_counts(decks))
    n = sum(counts)
    wins = [0, 0, 0]  # banker, player, tie

    def settle(p: int, b: int, weight: int) -> None:
        wins[0 if b > p else 1 if p > b else 2] += weight

    def take(r: int) -> int:
        c = counts[r]
        counts[r] -= 1
        return c

    # initial cards: player p1 p2, banker b1 b2 (the order of drawing does not change the law)
    for p1 in _RANKS:
        w1 = take(p1)
        for p2 in _RANKS:
            if counts[p2] == 0:
                continue
            w2 = w1 * take(p2)
            for b1 in _RANKS:
                if counts[b1] == 0:
                    continue
                w3 = w2 * take(b1)
                for b2 in _RANKS:
                    if counts[b2] == 0:
                        continue
                    w4 = w3 * take(b2)
                    _third_cards(counts, n, (p1 + p2) % 10, (b1 + b2) % 10, w4, settle)
                    counts[b2] += 1
                counts[b1] += 1
            counts[p2] += 1
        counts[p1] += 1
    return wins[0], wins[1], wins[2], prod(range(n - 5, n + 1))


def _third_cards(counts: list[int], n: int, p: int, b: int, w: int, settle: Any) -> None:
    left = n - 4  # cards in the shoe after the first four
    if p >= 8 or b >= 8 or (p >= 6 and b >= 6):  # naturals, or both stand on 6-7
        settle(p, b, w * left * (left - 1))
        return
    if p >= 6:  # the player stands; the banker draws on 0-5
        for c in _RANKS:
            if counts[c]:
                settle(p, (b + c) % 10, w * counts[c] * (left - 1))
        return
    for c in _RANKS:  # the player draws
        wc = counts[c]
        if not wc:
            continue
        p3 = (p + c) % 10
        if not banker_draws(b, c):
            settle(p3, b, w * wc * (left - 1))
            continue
        counts[c] -= 1
        for d in _RANKS:
            if counts[d]:
                settle(p3, (b + d) % 10, w * wc * counts[d])
        counts[c] += 1


def _fraction(rules: Mapping[str, Any], key: str, default: Fraction, path: Path) -> Fraction:
    if key not in rules:
        return default
    v = rules[key]
    if isinstance(v, bool) or not isinstance(v, int | float | str):
        raise InputError(path, f"rules.{key}", 'a number (e.g. 0.05 or "1/20")', v)
    try:
        return Fraction(str(v))  # 0.05 is read as its decimal text: exactly 1/20
    except (ValueError, ZeroDivisionError):
        raise InputError(path, f"rules.{key}", 'a number (e.g. 0.05 or "1/20")', v) from None


@kind("punto_banco")
def punto_banco(rules: Mapping[str, Any], path: Path) -> dict[str, BetLaw]:
    """Banker (1 to 1 less commission, push on a tie), player (1 to 1, push on a tie) and
    tie (``tie_pays`` to 1) from a full shoe of ``decks`` decks under the tableau; with
    ``pair_pays``, the player pair and banker pair bets (that many to 1)."""
    known = {"decks", "banker_commission", "tie_pays", "pair_pays"}
    for key in rules:
        if key not in known:
            raise InputError(path, f"rules.{key}", f"one of {', '.join(sorted(known))}", key)
    decks = rules.get("decks", 8)
    if isinstance(decks, bool) or not isinstance(decks, int) or not 1 <= decks <= 8:
        raise InputError(path, "rules.decks", "an integer from 1 to 8", decks)
    commission = _fraction(rules, "banker_commission", Fraction(1, 20), path)
    if not 0 <= commission < 1:
        raise InputError(path, "rules.banker_commission", "a fraction in [0, 1)", commission)
    tie_pays = rules.get("tie_pays", 8)
    if isinstance(tie_pays, bool) or not isinstance(tie_pays, int) or not 1 <= tie_pays <= 100:
        raise InputError(path, "rules.tie_pays", "an integer from 1 to 100 (to 1)", tie_pays)
    pair_pays = rules.get("pair_pays")
    if pair_pays is not None and (
        isinstance(pair_pays, bool) or not isinstance(pair_pays, int) or not 1 <= pair_pays <= 100
    ):
        raise InputError(path, "rules.pair_pays", "an integer from 1 to 100 (to 1)", pair_pays)
    banker, player, tie, total = outcome_counts(decks)
    pb, pp, pt = Fraction(banker, total), Fraction(player, total), Fraction(tie, total)
    pct = f"{float(commission * 100):g} %"
    bets = {
        "banker": BetLaw(
            "banker", (1 - commission, Fraction(0), Fraction(-1)), (pb, pt, pp),
            f"1 to 1 less {pct} commission, push on a tie",
        ),
        "player": BetLaw(
            "player", (Fraction(1), Fraction(0), Fraction(-1)), (pp, pt, pb),
            "1 to 1, push on a tie",
        ),
        "tie": BetLaw(
            "tie", (Fraction(tie_pays), Fraction(-1)), (pt, 1 - pt), f"{tie_pays} to 1",
        ),
    }  # fmt: skip
    if pair_pays is not None:
        # a hand's first two cards of the same rank (ten, jack, queen, king are four ranks)
        pair = Fraction(4 * decks - 1, 52 * decks - 1)
        for side in ("player_pair", "banker_pair"):
            bets[side] = BetLaw(
                side, (Fraction(pair_pays), Fraction(-1)), (pair, 1 - pair),
                f"{pair_pays} to 1 when the first two cards are of one rank",
            )  # fmt: skip
    return bets


def deal(decks: int, rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Deal ``n`` coups, each from a freshly shuffled full shoe, card by card under the
    tableau: the player's and the banker's final points, and the ranks (0..12) of the
    first four cards (player, player, banker, banker)."""
    size = 52 * decks
    pos = rng.integers(0, size, size=(n, 6))
    while True:  # six distinct cards of the shoe: redeal any coup that drew a card twice
        s = np.sort(pos, axis=1)
        dup = (s[:, 1:] == s[:, :-1]).any(axis=1)
        if not dup.any():
            break
        pos[dup] = rng.integers(0, size, size=(int(dup.sum()), 6))
    rank = pos % 13  # 0 ace, 1..8 two to nine, 9..12 ten to king
    v = np.where(rank < 9, rank + 1, 0)
    p = (v[:, 0] + v[:, 1]) % 10
    b = (v[:, 2] + v[:, 3]) % 10
    natural = (p >= 8) | (b >= 8)
    p_draws = ~natural & (p <= 5)
    p3 = np.where(p_draws, v[:, 4], -1)  # -1: the player stood
    table = np.array([[banker_draws(t, None if c < 0 else c) for c in range(-1, 10)]
                      for t in range(10)])  # fmt: skip
    b_draws = ~natural & table[b, p3 + 1]
    b_card = np.where(p_draws, v[:, 5], v[:, 4])  # the next card of the shoe
    p_final = np.where(p_draws, (p + v[:, 4]) % 10, p)
    b_final = np.where(b_draws, (b + b_card) % 10, b)
    return p_final, b_final, rank[:, :4]


@simulates("punto_banco")
def deal_coups(game: TableGame, bet: str, rng: np.random.Generator, n: int) -> np.ndarray:
    """Deal ``n`` coups and settle ``bet`` on each."""
    p, b, ranks = deal(int(game.rules.get("decks", 8)), rng, n)
    law = game.bets[bet]
    if bet in ("player_pair", "banker_pair"):
        i = 0 if bet == "player_pair" else 2
        return np.where(ranks[:, i] == ranks[:, i + 1], float(law.nets[0]), -1.0)
    win, push, lose = (float(x) for x in law.nets) if bet != "tie" else (0.0, 0.0, 0.0)
    if bet == "banker":
        return np.where(b > p, win, np.where(b == p, push, lose))
    if bet == "player":
        return np.where(p > b, win, np.where(b == p, push, lose))
    return np.where(p == b, float(law.nets[0]), -1.0)


__all__ = ["banker_draws", "deal", "deal_coups", "outcome_counts", "punto_banco"]
