"""Table game files and the exact law of each bet.

A table game file is TOML::

    [game]
    id = "roulette-single-zero"      # lower-case slug
    name = "European roulette"
    kind = "roulette"                # roulette | punto_banco | blackjack
    rounds_per_hour = 38             # the dealing pace at a full table
    seats = 7

    [rules]                          # kind-specific, each key validated by its kind
    la_partage = false

Each kind derives, from its rules alone, the exact law of every bet it offers: the net win
per unit staked and its probability, as fractions (``BetLaw``). The house edge, the
variance and the theoretical hold of a table follow from the law; the pit samples rounds
from it. Money stays integer: a net win is ``stake * num // den``, rounded toward the house
(a commission of 5 % on a 10-cent stake is not paid in fractions of a cent).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm
from pathlib import Path
from typing import Any

import numpy as np

from twin.errors import InputError

KINDS = ("roulette", "punto_banco", "blackjack")


@dataclass(frozen=True, slots=True)
class BetLaw:
    """The exact law of one bet's net result per unit staked.

    ``nets[i]`` (a fraction: +35, -1, +19/20, 0 for a push) has probability ``probs[i]``;
    the probabilities sum to 1.
    """

    name: str
    nets: tuple[Fraction, ...]
    probs: tuple[Fraction, ...]
    pays: str = ""  # how it pays, as a player reads it ("35 to 1", "1 to 1 less 5 %")
    # derived once from nets and probs (a pit reads them for every stretch of play)
    _mean: Fraction = field(init=False, repr=False, compare=False)
    _variance: Fraction = field(init=False, repr=False, compare=False)
    _denominator: int = field(init=False, repr=False, compare=False)
    _cum: tuple[float, ...] = field(init=False, repr=False, compare=False)
    _nums: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.nets) != len(self.probs) or not self.nets:
            raise ValueError(f"bet {self.name}: one probability per outcome")
        if sum(self.probs, Fraction(0)) != 1:
            raise ValueError(f"bet {self.name}: probabilities sum to {sum(self.probs)}, not 1")
        if any(p < 0 for p in self.probs):
            raise ValueError(f"bet {self.name}: a negative probability")
        pairs = tuple(zip(self.nets, self.probs, strict=True))
        m = sum((n * p for n, p in pairs), Fraction(0))
        den = lcm(*(n.denominator for n in self.nets))
        cum = np.cumsum(np.array([float(p) for p in self.probs]))
        cum[-1] = 1.0
        derived = {
            "_mean": m,
            "_variance": sum(((n - m) ** 2 * p for n, p in pairs), Fraction(0)),
            "_denominator": den,
            "_cum": tuple(cum.tolist()),
            "_nums": tuple(int(n * den) for n in self.nets),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    @property
    def mean(self) -> Fraction:
        """Expected net result per unit staked (negative: the house's edge)."""
        return self._mean

    @property
    def house_edge(self) -> Fraction:
        """The house's expected win per unit staked."""
        return -self._mean

    @property
    def variance(self) -> Fraction:
        """Variance of the net result per unit staked."""
        return self._variance

    @property
    def denominator(self) -> int:
        """The common denominator of the nets (a net in cents is ``stake * num // den``)."""
        return self._denominator

    def sample_net_cents(self, rng: np.random.Generator, stakes_cents: np.ndarray) -> np.ndarray:
        """The player's net result in cents of one round per stake (int64, one draw each).

        One uniform per round on ``rng``; outcome ``i`` when the uniform falls in its slice
        of [0, 1) (probabilities as float64 cumulative sums: exact to 2**-53).
        """
        stakes = np.asarray(stakes_cents, dtype=np.int64)
        cum = np.array(self._cum)
        idx = np.minimum(
            np.searchsorted(cum, rng.random(stakes.shape[0]), side="right"), len(self.probs) - 1
        )
        nums = np.array(self._nums, dtype=np.int64)
        return (stakes * nums[idx]) // self._denominator


@dataclass(frozen=True, slots=True)
class TableGame:
    """A validated table game: its rules and the exact law of every bet it offers."""

    id: str
    name: str
    kind: str
    path: Path
    rounds_per_hour: float
    seats: int
    rules: Mapping[str, Any]
    bets: Mapping[str, BetLaw]

    def bet(self, name: str) -> BetLaw:
        return self.bets[name]

    @property
    def main_bet(self) -> str:
        """The bet most players make (the first the kind lists)."""
        return next(iter(self.bets))


#: kind -> derive(rules, path) -> the bets' laws (each kind validates its own rules)
Derive = Callable[[Mapping[str, Any], Path], dict[str, BetLaw]]
DERIVE: dict[str, Derive] = {}


def kind(name: str) -> Callable[[Derive], Derive]:
    def wrap(fn: Derive) -> Derive:
        DERIVE[name] = fn
        return fn

    return wrap


#: kind -> simulate(game, bet, rng, n) -> n rounds' nets per unit (float64), played the
#: long way (a wheel spun, cards dealt): an independent check of the derived law
Simulate = Callable[["TableGame", str, np.random.Generator, int], np.ndarray]
SIMULATE: dict[str, Simulate] = {}


def simulates(name: str) -> Callable[[Simulate], Simulate]:
    def wrap(fn: Simulate) -> Simulate:
        SIMULATE[name] = fn
        return fn

    return wrap


# -- roulette ---------------------------------------------------------------------------------


#: inside and outside bets of single-zero roulette: pockets covered -> payout (to 1)
ROULETTE_BETS: dict[str, tuple[int, int]] = {
    "straight": (1, 35),
    "split": (2, 17),
    "street": (3, 11),
    "corner": (4, 8),
    "six_line": (6, 5),
    "dozen": (12, 2),
    "column": (12, 2),
    "red": (18, 1),
    "black": (18, 1),
    "odd": (18, 1),
    "even": (18, 1),
    "low": (18, 1),
    "high": (18, 1),
}
_EVEN_MONEY = frozenset({"red", "black", "odd", "even", "low", "high"})


@kind("roulette")
def roulette(rules: Mapping[str, Any], path: Path) -> dict[str, BetLaw]:
    """Single-zero roulette (37 pockets). ``la_partage``: an even-money bet loses half
    when zero comes up. Every bet's edge is 1/37 (1/74 on even money under la partage)."""
    known = {"zeros", "la_partage"}
    for key in rules:
        if key not in known:
            raise InputError(path, f"rules.{key}", f"one of {', '.join(sorted(known))}", key)
    zeros = rules.get("zeros", 1)
    if zeros != 1:
        raise InputError(path, "rules.zeros", "1 (single-zero roulette; reg 21)", zeros)
    partage = rules.get("la_partage", False)
    if not isinstance(partage, bool):
        raise InputError(path, "rules.la_partage", "true or false", partage)
    pockets = 36 + zeros
    out: dict[str, BetLaw] = {}
    for name, (covered, pays) in ROULETTE_BETS.items():
        win = Fraction(covered, pockets)
        if partage and name in _EVEN_MONEY:
            zero = Fraction(1, pockets)
            out[name] = BetLaw(
                name, (Fraction(pays), Fraction(-1, 2), Fraction(-1)),
                (win, zero, 1 - win - zero), f"{pays} to 1, half back on zero",
            )  # fmt: skip
        else:
            out[name] = BetLaw(name, (Fraction(pays), Fraction(-1)), (win, 1 - win), f"{pays} to 1")
    # the first bet is the main one: even money is what most stakes go on
    return {"red": out.pop("red"), **out}


#: the pockets (0..36) a bet of each kind covers, one representative bet of each kind
_REDS = frozenset({1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36})
ROULETTE_POCKETS: dict[str, frozenset[int]] = {
    "straight": frozenset({17}),
    "split": frozenset({17, 20}),
    "street": frozenset({13, 14, 15}),
    "corner": frozenset({1, 2, 4, 5}),
    "six_line": frozenset(range(31, 37)),
    "dozen": frozenset(range(13, 25)),
    "column": frozenset(range(2, 37, 3)),
    "red": _REDS,
    "black": frozenset(range(1, 37)) - _REDS,
    "odd": frozenset(range(1, 37, 2)),
    "even": frozenset(range(2, 37, 2)),
    "low": frozenset(range(1, 19)),
    "high": frozenset(range(19, 37)),
}


@simulates("roulette")
def spin_roulette(game: TableGame, bet: str, rng: np.random.Generator, n: int) -> np.ndarray:
    """Spin a 37-pocket wheel ``n`` times and settle ``bet`` on each pocket."""
    pays = ROULETTE_BETS[bet][1]
    net = np.full(37, -1.0)
    net[sorted(ROULETTE_POCKETS[bet])] = pays
    if game.rules.get("la_partage", False) and bet in _EVEN_MONEY:
        net[0] = -0.5
    return net[rng.integers(0, 37, size=n)]


# -- loading ------------------------------------------------------------------------------------


def load_table_game(path: str | Path) -> TableGame:
    """Read, validate and derive a table game file; every problem raises ``InputError``."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise InputError(p, "", "a readable table game file", exc.strerror or str(exc)) from None
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(p, "", "a UTF-8 TOML file", str(exc)) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(p, "", "valid TOML", str(exc)) from None
    for key in doc:
        if key not in ("game", "rules"):
            raise InputError(p, key, "[game] or [rules]", key)
    game = doc.get("game")
    if not isinstance(game, dict):
        raise InputError(p, "game", "a [game] table", game)
    allowed = {"id", "name", "kind", "rounds_per_hour", "seats"}
    for key in game:
        if key not in allowed:
            raise InputError(p, f"game.{key}", f"one of {', '.join(sorted(allowed))}", key)
    gid = game.get("id")
    if not isinstance(gid, str) or not gid or not all(c.isalnum() or c in "-_" for c in gid):
        raise InputError(p, "game.id", "a slug of letters, digits, - and _", gid)
    name = game.get("name", gid)
    if not isinstance(name, str) or not name.strip():
        raise InputError(p, "game.name", "a non-empty string", name)
    k = game.get("kind")
    if k not in KINDS:
        raise InputError(p, "game.kind", f"one of {', '.join(KINDS)}", k)
    derive = DERIVE.get(k)
    if derive is None:
        raise InputError(p, "game.kind", f"a kind this build derives ({', '.join(DERIVE)})", k)
    pace = game.get("rounds_per_hour")
    if isinstance(pace, bool) or not isinstance(pace, int | float) or not 0 < pace <= 1000:
        raise InputError(p, "game.rounds_per_hour", "a number in (0, 1000]", pace)
    seats = game.get("seats", 7)
    if isinstance(seats, bool) or not isinstance(seats, int) or not 1 <= seats <= 14:
        raise InputError(p, "game.seats", "an integer from 1 to 14", seats)
    rules = doc.get("rules", {})
    if not isinstance(rules, dict):
        raise InputError(p, "rules", "a [rules] table", rules)
    bets = derive(rules, p)
    return TableGame(gid, name, k, p, float(pace), seats, dict(rules), bets)


__all__ = [
    "DERIVE", "KINDS", "ROULETTE_BETS", "ROULETTE_POCKETS", "SIMULATE", "BetLaw", "TableGame",
    "kind", "load_table_game", "simulates",
]  # fmt: skip

# the kinds beyond roulette register themselves on import (they import BetLaw and kind above)
from twin.tables import baccarat as _baccarat  # noqa: E402,F401
from twin.tables import blackjack as _blackjack  # noqa: E402,F401
