"""What both engines share: the uniform tape, a stretch's request, result and stop, and
the tally of what the randomness audit reads (:class:`StretchTally`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

import numpy as np
import numpy.typing as npt

from twin.machines.par import Game
from twin.memo import PerObject

F64 = npt.NDArray[np.float64]


class Draws(Protocol):
    """Where uniforms come from: a tape (batched) or a generator (per spin)."""

    def random(self) -> float: ...


class UniformTape:
    """A buffered view of a generator's ``random()`` sequence.

    ``peek(n)`` shows the next ``n`` uniforms without consuming them; ``advance(k)`` consumes.
    The values are exactly those that ``k`` scalar ``rng.random()`` calls would return, since
    numpy fills arrays with the same ``next_double`` sequence.
    """

    __slots__ = ("_block", "_buf", "_mark", "_pos", "_rng", "drawn")

    def __init__(self, rng: np.random.Generator, block: int = 1 << 12) -> None:
        self._rng = rng
        self._block = block
        self._buf: F64 = np.empty(0)
        self._pos = 0
        self._mark: int | None = None
        self.drawn = 0  # uniforms consumed so far

    def peek(self, n: int) -> F64:
        have = self._buf.size - self._pos
        if have < n:
            keep = self._pos if self._mark is None else self._mark
            more = self._rng.random(max(self._block, n - have))
            self._buf = np.concatenate((self._buf[keep:], more))
            self._pos -= keep
            if self._mark is not None:
                self._mark = 0
        return self._buf[self._pos : self._pos + n]

    def mark(self) -> None:
        """Remember this position so that ``rewind`` can return to it."""
        self._mark = self._pos

    def rewind(self) -> None:
        """Un-consume everything since ``mark`` (used when play is cut short)."""
        assert self._mark is not None
        self.drawn -= self._pos - self._mark
        self._pos = self._mark
        self._mark = None

    def commit(self) -> None:
        """Forget the mark: what was consumed since stays consumed."""
        self._mark = None

    def advance(self, n: int) -> None:
        self._pos += n
        self.drawn += n

    def take(self, n: int) -> F64:
        out = self.peek(n)
        self.advance(n)
        return out

    def random(self) -> float:
        return float(self.take(1)[0])


class Stop(StrEnum):
    """Why a stretch of play ended."""

    TIME = "time"  # the games allowed for this stretch were played
    LOSS_LIMIT = "loss_limit"  # the next wager would cross the loss limit (or credits ran out)
    WIN_GOAL = "win_goal"  # credits reached the patron's goal
    JACKPOT = "jackpot"  # a win at or above the jackpot limit locked the machine
    PROGRESSIVE = "progressive"  # the progressive combination locked the machine


@dataclass(frozen=True, slots=True)
class PlayRequest:
    """One stretch of play; all amounts in credits."""

    credits: int
    bet_units: int
    max_games: int
    floor_credits: int = 0  # never wager below this balance (the loss limit)
    goal_credits: int = 2**62  # stop once the balance reaches this
    lock_credits: int = 2**62  # a single game win at or above this locks the machine


class StretchTally:
    """The games of a stretch as the randomness audit sees them.

    ``stop_counts[d][s]``: how often draw ``d`` (a reel, or a table's outcome) landed on
    ``s`` in a base game; ``transitions[2 * previous_won + won]``: consecutive pairs of base
    games in the stretch; ``first_won``/``last_won``: the first and last game's outcome (-1:
    no game). ``classes[c]``: base games of combination class ``c`` (the best line's pay
    class, then the scatter count: see ``Game.outcome_one``), ``pays`` the pay of each pay
    class; ``feature_stop_counts`` and ``feature_classes``: the same for the free games, on
    the feature reels.
    """

    __slots__ = (
        "_counts",
        "_feature_counts",
        "_feature_offsets",
        "_fspans",
        "_offsets",
        "_spans",
        "_views",
        "classes",
        "credits",
        "feature_classes",
        "first_won",
        "last_won",
        "pays",
        "transitions",
        "won",
    )

    def __init__(self, game: Game) -> None:
        spans, self._offsets, fspans, self._feature_offsets, self.pays = _tally_layout(game)
        self._spans, self._fspans = spans, fspans
        self._counts = np.zeros(spans[-1][1], np.int64)  # every draw's counts, end to end
        self._feature_counts = np.zeros(fspans[-1][1] if fspans else 0, np.int64)
        # the per-draw views of the two, made on the first ask (a stretch's tally is only
        # added to its machine's, which never asks)
        self._views: tuple[list[npt.NDArray[np.int64]], list[npt.NDArray[np.int64]]] | None
        self._views = None
        n_classes = len(game.line_pay_classes) + game.scatter_classes
        self.classes = np.zeros(n_classes, np.int64)
        self.feature_classes = np.zeros(n_classes if fspans else 0, np.int64)
        self.transitions = np.zeros(4, np.int64)
        self.first_won = -1
        self.last_won = -1
        self.won = 0  # games whose selected outcome won
        self.credits = 0  # credits the selected outcomes won (progressive prizes apart)

    @property
    def stop_counts(self) -> list[npt.NDArray[np.int64]]:
        """``stop_counts[d][s]`` (views: adding to one adds to the tally)."""
        return self._draw_views()[0]

    @property
    def feature_stop_counts(self) -> list[npt.NDArray[np.int64]]:
        """``feature_stop_counts[d][s]`` (views, as ``stop_counts``)."""
        return self._draw_views()[1]

    def _draw_views(self) -> tuple[list[npt.NDArray[np.int64]], list[npt.NDArray[np.int64]]]:
        views = self._views
        if views is None:
            views = self._views = (
                [self._counts[a:b] for a, b in self._spans],
                [self._feature_counts[a:b] for a, b in self._fspans],
            )
        return views

    def add_stop_counts(self, other: StretchTally) -> None:
        """Add ``other``'s stop counts (base and feature) to these: the same draws and
        stops, so one addition per array."""
        if other._spans != self._spans or other._fspans != self._fspans:
            raise ValueError("stop counts of games with other reels cannot be added")
        self._counts += other._counts
        self._feature_counts += other._feature_counts

    def add_games(
        self,
        stops: npt.NDArray[np.int64],
        won: npt.NDArray[np.bool_],
        credits: npt.NDArray[np.int64] | None = None,
        wins: int = -1,
        classes: npt.NDArray[np.int64] | None = None,
    ) -> None:
        """Tally a run of consecutive games (vectorised); ``credits``: each game's win;
        ``wins``: ``won``'s count if known; ``classes``: each game's combination classes."""
        n = won.size
        if n == 0:
            return
        if credits is not None:
            self.credits += int(credits.sum())
        counts = self._counts
        cells = (stops + self._offsets).ravel() if stops.shape[1] > 1 else stops[:, 0]
        counts += np.bincount(cells, minlength=counts.size)
        if classes is not None:
            self.classes += np.bincount(classes.ravel(), minlength=self.classes.size)
        ones = int(np.count_nonzero(won)) if wins < 0 else wins
        first, last = int(won[0]), int(won[-1])
        # the pairs (a, b) of consecutive games from their counts: 11 directly, then 10 = ones
        # among the a's - 11, 01 = ones among the b's - 11, 00 = the rest
        both = int(np.count_nonzero(won[:-1] & won[1:])) if n > 1 else 0
        pairs = n - 1
        a_ones = ones - last
        b_ones = ones - first
        if self.last_won >= 0:  # the pair (previous stretch's last game, this first game)
            pairs += 1
            a_ones += self.last_won
            b_ones += first
            both += self.last_won & first
        t = self.transitions
        t[3] += both
        t[2] += a_ones - both
        t[1] += b_ones - both
        t[0] += pairs - a_ones - b_ones + both
        self.won += ones
        if self.first_won < 0:
            self.first_won = first
        self.last_won = last

    def add_classes(self, other: StretchTally) -> None:
        """Add ``other``'s combination classes to these. Another program (other pays on the
        same reels: a machine that plays other pays at some bets) has other pay classes: the
        classes of both are aligned by pay, and a pay of either is a class of the sum."""
        theirs, ftheirs = other.classes, other.feature_classes
        if other.pays != self.pays:
            pays = tuple(sorted(set(self.pays) | set(other.pays)))
            self.classes = _realign(self.classes, self.pays, pays)
            self.feature_classes = _realign(self.feature_classes, self.pays, pays)
            theirs = _realign(theirs, other.pays, pays)
            ftheirs = _realign(ftheirs, other.pays, pays)
            self.pays = pays
        self.classes += theirs
        if self.feature_classes.size and ftheirs.size:
            self.feature_classes += ftheirs

    def add_free_games(
        self, stops: npt.NDArray[np.int64], classes: npt.NDArray[np.int64] | None
    ) -> None:
        """Tally a run of free games (vectorised): their stops on the feature reels and
        their combination classes."""
        if stops.shape[0] == 0:
            return
        counts = self._feature_counts
        counts += np.bincount((stops + self._feature_offsets).ravel(), minlength=counts.size)
        if classes is not None:
            fc = self.feature_classes
            fc += np.bincount(classes.ravel(), minlength=fc.size)

    def add_free_game(self, stops: list[int], classes: list[int]) -> None:
        """Tally one free game (the per-spin reference)."""
        for d, s in enumerate(stops):
            self.feature_stop_counts[d][s] += 1
        for c in classes:
            self.feature_classes[c] += 1

    def add_game(
        self, stops: list[int], won: bool, credits: int = 0, classes: Sequence[int] = ()
    ) -> None:
        """Tally one game (the per-spin reference); ``credits``: its win; ``classes``: its
        combination classes."""
        self.credits += credits
        for d, s in enumerate(stops):
            self.stop_counts[d][s] += 1
        for c in classes:
            self.classes[c] += 1
        self.won += int(won)
        if self.last_won >= 0:
            self.transitions[2 * self.last_won + int(won)] += 1
        if self.first_won < 0:
            self.first_won = int(won)
        self.last_won = int(won)


def _realign(
    counts: npt.NDArray[np.int64], pays: tuple[int, ...], into: tuple[int, ...]
) -> npt.NDArray[np.int64]:
    """Class counts over the pay classes ``pays`` (then the scatter counts) as counts over
    the pay classes ``into`` (a superset of ``pays``), the scatter counts unchanged."""
    if counts.size == 0:
        return counts
    n = len(pays)
    out = np.zeros(len(into) + counts.size - n, np.int64)
    out[np.searchsorted(np.asarray(into, np.int64), np.asarray(pays, np.int64))] = counts[:n]
    out[len(into) :] = counts[n:]
    return out


_Spans = tuple[tuple[int, int], ...]
_Layout = tuple[_Spans, npt.NDArray[np.int64], _Spans, npt.NDArray[np.int64], tuple[int, ...]]


def _spans(weights: tuple[tuple[int, ...], ...]) -> tuple[_Spans, npt.NDArray[np.int64]]:
    spans = []
    at = 0
    for w in weights:
        spans.append((at, at + len(w)))
        at += len(w)
    offsets = np.array([a for a, _ in spans], np.int64)
    offsets.setflags(write=False)
    return tuple(spans), offsets


def _tally_layout(game: Game) -> _Layout:
    """Where each draw's stop counts lie in one array: (start, end) and the starts as numpy,
    for the base draws, then for the feature reels (none when the game has no feature); then
    the pay of each pay class."""
    return _LAYOUTS.get(game)


def _derive_layout(game: Game) -> _Layout:
    feature = game.feature_reels.weights if game.free_spins is not None else ()
    pays = tuple(game.line_pay_classes.tolist())
    return (*_spans(game.stop_weights), *_spans(feature), pays)


_LAYOUTS: PerObject[Game, _Layout] = PerObject(_derive_layout)


@dataclass(frozen=True, slots=True)
class PlayResult:
    games: int
    wagered: int
    won: int  # credits won onto the credit meter (excludes a locking win)
    games_won: int
    free_games: int
    end_credits: int
    stop: Stop
    lock_win: int = 0  # the locking game's win in credits (hand paid), progressive prize apart
    tally: StretchTally | None = field(default=None, compare=False, repr=False)
