"""Slot play engines: a batched numpy engine and a per-spin reference engine.

Both play one stretch of a session on one machine: from a starting credit balance, games of a
fixed wager until a stop (session time used up, loss limit or bankroll exhausted, win goal
reached, or a win that locks the machine for a hand pay). They draw from the same two
uniform streams of the machine (base games and free-spin features) in the same order, so they
give identical results; ``tests/test_engine.py`` holds them together.

The batched engine draws a chunk of games in one numpy call, evaluates them vectorised,
finds the first stop with cumulative sums, and consumes exactly the uniforms of the games it
played (the rest stay on the tape for the next stretch). The first chunk is sized from the
request (the games the balance lasts at the game's return, bounded by the games allowed), the
next ones double up to 2,048. Free-spin features are evaluated ahead in blocks and handed out
lazily, in order, only for games that are really played.

Both engines tally what the randomness audit reads (:class:`StretchTally`): the base games'
stops, the free games' stops on the feature reels, and each game's combination classes
(its best line's pay class and its scatter count), which the batched engine counts with one
``np.bincount`` per block over codes its kernel already computed, for the games played only.

Evaluation goes through a :class:`_Kernel` per game and mode, which precomputes from the
compiled game (``twin.machines.par``) lookup tables that give exactly ``Game.evaluate``'s
results with fewer numpy operations: a stop is read from a table indexed by
``floor(u * total)`` instead of a binary search (the cumulative weights are integers, so
``searchsorted(cum, u * total, "right")`` only depends on that floor), and the per-reel
line-code tables, with the scatter and trigger counts as extra columns, are summed over
blocks of reels so that one gather serves two reels; the scatter and trigger counts are
shifted past the line codes so that one gather from an extended pay table (int32 when no
game's sum can overflow it) prices the lines and the scatter of every game together.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

import numpy as np
import numpy.typing as npt

from twin.machines.par import Game, ReelSet
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


def _first(mask: npt.NDArray[np.bool_], default: int) -> int:
    """Index of the first True in ``mask``, or ``default`` when there is none."""
    if mask.size == 0:
        return default
    idx = int(np.argmax(mask))
    return idx if mask[idx] else default


_LUT_LIMIT = 1 << 20  # stop-table entries of a game mode beyond which stops use a search
_BLOCK_ROWS = 4096  # the most rows of a table that serves a block of reels in one gather


class _Kernel:
    """Exactly ``Game.evaluate`` (or ``evaluate_free``) of one game, with fewer numpy calls.

    ``evaluate(u)`` returns ``(win_units, free_spins, progressive, stops)``; ``progressive``
    is None when the game has no progressive combination (no game is a progressive hit).
    """

    __slots__ = (
        "_blocks",
        "_classes",
        "_cost",
        "_cums",
        "_flat",
        "_lines",
        "_mult",
        "_offsets",
        "_pay",
        "_prog",
        "_scatter",
        "_spins",
        "_table",
        "_totals",
        "_trigger",
    )

    def __init__(self, game: Game, free: bool) -> None:
        self._table = game.kind == "table"
        self._cost = game.cost
        self._mult = 1
        # (the trigger column's value from which spins are awarded, spins awarded)
        self._spins: tuple[int, int] | None = None
        self._trigger = -1  # column of the trigger count in the code (-1: none)
        self._blocks: list[tuple[tuple[int, ...], tuple[int, ...], npt.NDArray[np.int64]]] = []
        self._lines = 0
        # the combination classes: the line pays in class order, and (column of the scatter
        # count, what turns its value in the code into its class) or None
        self._classes = game.line_pay_classes
        self._scatter: tuple[int, int] | None = None
        if self._table:
            assert game.table_cum is not None
            cums: tuple[npt.NDArray[np.int64], ...] = (game.table_cum,)
            lengths: tuple[int, ...] = (len(game.outcomes),)
            pays, prog = game._table_arrays
            self._pay = pays
            self._prog = prog if bool(prog.any()) else None
        else:
            reels = game.feature_reels if free else game.base
            assert reels is not None and game.line_pay is not None
            cums = reels.cum
            lengths = reels.lengths
            self._prog = None
            self._build_codes(game, reels, free)
        self._totals = np.array([float(c[-1]) for c in cums])
        self._cums = cums
        if sum(int(c[-1]) + 1 for c in cums) <= _LUT_LIMIT:
            # searchsorted(cum, x, "right") counts the integer cum <= x: cum <= floor(x)
            luts = [
                np.minimum(np.searchsorted(c, np.arange(int(c[-1]) + 1), side="right"), n - 1)
                for c, n in zip(cums, lengths, strict=True)
            ]
            self._flat: npt.NDArray[np.int64] | None = np.concatenate(luts).astype(np.int64)
            self._offsets = np.cumsum([0] + [lut.size for lut in luts[:-1]]).astype(np.int64)
        else:
            self._flat = None
            self._offsets = np.zeros(len(cums), np.int64)

    def _build_codes(self, game: Game, reels: ReelSet, free: bool) -> None:
        """Per block of reels, one table of every line's code plus the extra columns.

        Line codes are compressed: two prefixes (the symbols of the first block's reels) that
        pay the same, and hit the progressive the same, for every suffix are one class, and
        the first block's table holds the class instead of the prefix, so the pay table has
        a row per class instead of one per prefix (video-5reel: 12 rows of 12**3 instead of
        144). The extra columns hold the scatter count and the trigger count shifted past
        the end of the line codes (the shift in the first block's table only, so that the
        sum over blocks carries it once): one gather from the extended pay table then prices
        the lines and the scatter together, and the trigger column prices to 0.
        """
        assert game.line_pay is not None
        places = game._feature_places if reels is not game.base else game._base_places
        columns: list[list[npt.NDArray[np.int64]]] = [[p] for p in places]
        lines = self._lines = places[0].shape[1]
        groups: list[list[int]] = []
        i = 0
        while i < len(places):  # consecutive reels share a table while it stays small
            group = [i]
            rows = places[i].shape[0]
            while i + 1 < len(places) and rows * places[i + 1].shape[0] <= _BLOCK_ROWS:
                i += 1
                group.append(i)
                rows *= places[i].shape[0]
            groups.append(group)
            i += 1
        suffixes = len(game.symbols) ** (len(places) - len(groups[0]))
        keys = game.line_pay.reshape(-1, suffixes)
        if game.line_prog is not None:
            keys = np.hstack((keys, game.line_prog.reshape(-1, suffixes)))
        unique, inverse = np.unique(keys, axis=0, return_inverse=True)
        prefix_class = inverse.reshape(-1).astype(np.int64)
        line_pay = np.ascontiguousarray(unique[:, :suffixes]).reshape(-1)
        extra = lines
        pay_parts: list[npt.NDArray[np.int64]] = [line_pay]
        shift = [0] * lines
        at = line_pay.size
        if game.scatter is not None:
            assert game.scatter_by_count is not None
            for cols, counts in zip(columns, reels.scatter_counts, strict=True):
                cols.append(counts[:, None])
            top = sum(int(c.max()) for c in reels.scatter_counts)
            pay_parts.append(game.scatter_by_count[: top + 1] * game.cost)
            self._scatter = (extra, len(self._classes) - at)
            shift.append(at)
            at += top + 1
            extra += 1
        fs = game.free_spins
        if fs is not None and (fs.retrigger or not free):
            self._spins = (at + fs.count, fs.spins)
            self._trigger = extra
            for cols, counts in zip(columns, reels.trigger_counts, strict=True):
                cols.append(counts[:, None])
            top = sum(int(c.max()) for c in reels.trigger_counts)
            pay_parts.append(np.zeros(top + 1, np.int64))
            shift.append(at)
            at += top + 1
        if free and fs is not None:
            self._mult = fs.multiplier
        pay = np.concatenate(pay_parts)
        # every column's price fits an int32 and so does their sum: gather and sum in int32
        small = int(np.abs(pay).max()) * len(shift) < 2**31
        self._pay = pay.astype(np.int32) if small else pay
        if game.line_prog is not None:
            prog = unique[:, suffixes:].reshape(-1).astype(np.bool_)
            self._prog = np.concatenate((prog, np.zeros(at - prog.size, np.bool_)))
        tables = [np.hstack(cols) for cols in columns]
        for b, group in enumerate(groups):
            combined = tables[group[0]]
            for r in group[1:]:
                t = tables[r]
                combined = (combined[:, None, :] + t[None, :, :]).reshape(-1, t.shape[1])
            combined = combined.astype(np.int64)  # numpy's index type: no conversion to gather
            if b == 0:
                combined[:, :lines] = prefix_class[combined[:, :lines] // suffixes] * suffixes
                combined += np.array(shift, np.int64)
            radix = [
                int(np.prod([tables[r].shape[0] for r in group[k + 1 :]]))
                for k in range(len(group))
            ]
            self._blocks.append((tuple(group), tuple(radix), combined))

    def stops(self, u: F64) -> npt.NDArray[np.int64]:
        if self._flat is None:
            out = np.empty(u.shape, dtype=np.int64)
            for r, cum in enumerate(self._cums):
                idx = np.searchsorted(cum, u[:, r] * self._totals[r], side="right")
                out[:, r] = np.minimum(idx, len(cum) - 1)
            return out
        j = (u * self._totals).astype(np.int64)
        j += self._offsets
        found: npt.NDArray[np.int64] = self._flat.take(j)
        return found

    def evaluate(
        self, u: F64
    ) -> tuple[
        npt.NDArray[np.int64],
        npt.NDArray[np.int64] | None,
        npt.NDArray[np.bool_] | None,
        npt.NDArray[np.int64],
        _Classes | None,
    ]:
        """``(win_units, free_spins or None, progressive or None, stops, classes or None)``
        of the games ``u``; ``classes.upto(k)``: the combination classes of the first ``k``
        games (computed only for the games played; None for a table game)."""
        stops = self.stops(u)
        if self._table:
            idx = stops[:, 0]
            prog = None if self._prog is None else self._prog.take(idx)
            return self._pay.take(idx), None, prog, stops, None
        code: npt.NDArray[np.int64] | None = None
        for group, radix, table in self._blocks:
            if len(group) == 1:
                idx = stops[:, group[0]]
            else:
                idx = stops[:, group[0]] * radix[0]
                for r, m in zip(group[1:], radix[1:], strict=True):
                    idx += stops[:, r] * m if m != 1 else stops[:, r]
            part = table.take(idx, axis=0)
            if code is None:
                code = part
            else:
                code += part
        assert code is not None
        # einsum sums the short rows about twice as fast as sum(axis=1), exactly (integers:
        # the pay table is int32 only when no row's sum can overflow it)
        paid = self._pay.take(code)
        wins = np.einsum("ij->i", paid).astype(np.int64, copy=False)
        classes = _Classes(self, paid, code, wins)
        spins = None
        if self._spins is not None:
            at, awarded = self._spins
            spins = (code[:, self._trigger] >= at) * awarded
        if self._mult != 1:
            wins *= self._mult
        prog = None
        if self._prog is not None:
            prog = np.asarray(self._prog.take(code).any(axis=1), dtype=np.bool_)
        return wins, spins, prog, stops, classes


class _Classes:
    """The combination classes of a block of games evaluated by a kernel, computed on
    demand for the games actually played: the best line's pay class (the line columns of
    the priced codes hold the line pays, without multiplier), then the scatter count as a
    class after the pay classes."""

    __slots__ = ("_code", "_kernel", "_paid", "_wins")

    def __init__(
        self,
        kernel: _Kernel,
        paid: npt.NDArray[np.int32] | npt.NDArray[np.int64],
        code: npt.NDArray[np.int64],
        wins: npt.NDArray[np.int64],
    ) -> None:
        self._kernel = kernel
        self._paid = paid
        self._code = code
        self._wins = wins  # a game that won nothing has no line pay: class 0 (pay 0)

    def upto(self, end: int, start: int = 0) -> npt.NDArray[np.int64]:
        """``(end - start, 1 or 2)``: the classes of games ``start`` to ``end`` (the first
        ``end`` by default)."""
        k = self._kernel
        lines = k._lines
        out = np.zeros((end - start, 1 if k._scatter is None else 2), np.int64)
        paid = self._paid[start:end]
        if lines == 1:
            out[:, 0] = np.searchsorted(k._classes, paid[:, 0])
        else:
            # only games with a win can have a paying line (pays are never negative)
            won = np.flatnonzero(self._wins[start:end])
            if won.size:
                best = paid[won, :lines].max(axis=1)
                out[won, 0] = np.searchsorted(k._classes, best)
        if k._scatter is not None:
            col, add = k._scatter
            np.add(self._code[start:end, col], add, out=out[:, 1])
        return out


def _kernels(game: Game) -> tuple[_Kernel, _Kernel | None]:
    """The base and feature kernels of ``game`` (built once per game object)."""
    return _KERNELS.get(game)


def _build_kernels(game: Game) -> tuple[_Kernel, _Kernel | None]:
    feature = _Kernel(game, free=True) if game.free_spins is not None else None
    return _Kernel(game, free=False), feature


_KERNELS: PerObject[Game, tuple[_Kernel, _Kernel | None]] = PerObject(_build_kernels)


class BatchedEngine:
    """Plays a stretch with numpy: one draw per chunk of games, no Python loop per spin.

    The first chunk is ``first_games`` times the games the balance lasts without a win (at
    least ``first_chunk``, at most ``chunk``, never more than the games allowed); each
    further chunk doubles, up to ``chunk``. Chunking never changes a result.
    """

    def __init__(
        self, game: Game, chunk: int = 2048, first_chunk: int = 64, first_games: int = 4
    ) -> None:
        self.game = game
        self.chunk = chunk  # the largest chunk of games drawn at once
        self.first_chunk = min(first_chunk, chunk)  # the smallest first chunk
        self.first_games = first_games
        self._kernel, self._feature_kernel = _kernels(game)
        # free spins evaluated ahead, kept from one stretch to the next (see _FeatureCursor)
        self._features = _FeatureCursor(game, self._feature_kernel)

    def play(self, req: PlayRequest, base: UniformTape, feature: UniformTape) -> PlayResult:
        game = self.game
        kernel = self._kernel
        r = game.draws_per_spin
        bet = req.bet_units
        wager = bet * game.cost
        credits = req.credits
        goal = req.goal_credits
        lock_credits = req.lock_credits
        max_games = req.max_games
        games = won = games_won = free_games = 0
        threshold = req.floor_credits + wager
        tally = StretchTally(game)
        features = self._features
        features.begin(feature, tally)
        lasts = (credits - threshold) // wager + 1  # games played if none wins
        size = min(max(self.first_chunk, self.first_games * lasts), self.chunk)
        while games < max_games:
            n = min(size, max_games - games)
            size = min(2 * size, self.chunk)
            if not (threshold <= credits < goal):
                stop = Stop.WIN_GOAL if credits >= goal else Stop.LOSS_LIMIT
                features.close()
                return PlayResult(
                    games, games * wager, won, games_won, free_games, credits, stop, 0, tally
                )
            wins, spins, prog, stops, classes = kernel.evaluate(base.peek(n * r).reshape(n, r))
            win = wins * bet if bet != 1 else wins
            lock = win >= lock_credits
            if prog is not None:
                lock |= prog
            lk = _first(lock, n)
            # ``after``: the balance after each game, less the threshold; game i + 1 is played
            # only if the balance after game i is in [threshold, goal), i.e. after[i] in
            # [0, span): as unsigned 64-bit, a negative ``after`` is huge, so one comparison
            if lk < n:
                after = np.where(lock, 0, win)
                after -= wager
            else:
                after = win - wager
            np.cumsum(after, out=after)
            after += credits - threshold
            span = goal - threshold
            k = _first(after[:-1].view(np.uint64) >= span, n - 1) + 1
            end = min(k, lk + 1)
            if spins is not None:
                for j in np.flatnonzero(spins).tolist():
                    if j >= end:
                        break
                    # game j is played: its feature adds to its win, which changes the
                    # balance from j on (or locks the machine at j); games before j are
                    # unaffected
                    fw, fg = features.play(int(spins[j]))
                    free_games += fg
                    old = int(win[j])
                    win[j] = old + fw * bet
                    if lock[j]:
                        continue  # already a hand pay: the credit meter does not move
                    if win[j] >= lock_credits:
                        lock[j] = True
                        lk = j
                        change = -old
                    else:
                        change = fw * bet
                    if change:
                        after[j:] += change
                        tail = after[j : n - 1].view(np.uint64)
                        k = j + 1 + _first(tail >= span, n - j - 1)
                    end = min(k, lk + 1)
            base.advance(end * r)
            games += end
            played = win[:end]
            won_games = played > 0
            if prog is not None:
                won_games |= prog[:end]
            ones = int(np.count_nonzero(won_games))
            games_won += ones
            tally.add_games(
                stops[:end], won_games, played, ones, None if classes is None else classes.upto(end)
            )
            credits = int(after[end - 1]) + threshold
            if lk < k and lk < n:
                features.close()
                won += int(played[:-1].sum())
                stop = Stop.PROGRESSIVE if prog is not None and prog[lk] else Stop.JACKPOT
                return PlayResult(
                    games,
                    games * wager,
                    won,
                    games_won,
                    free_games,
                    credits,
                    stop,
                    int(win[lk]),
                    tally,
                )
            won += int(played.sum())
            if end < n:
                features.close()
                stop = Stop.WIN_GOAL if credits >= goal else Stop.LOSS_LIMIT
                return PlayResult(
                    games, games * wager, won, games_won, free_games, credits, stop, 0, tally
                )
        features.close()
        return PlayResult(
            games, games * wager, won, games_won, free_games, credits, Stop.TIME, 0, tally
        )


class _FeatureCursor:
    """Free spins evaluated ahead in vectorised blocks, consumed one at a time in draw order.

    Every free spin takes the next ``draws_per_spin`` uniforms of the feature tape whatever
    feature it belongs to, so a block of upcoming free spins can be evaluated in one call and
    handed out as features are played; ``close`` consumes exactly the spins handed out.

    The spins evaluated ahead and not handed out are kept for the next stretch (``begin``):
    the uniform at a place of a tape never changes once drawn into its buffer, so a spin
    evaluated at a place is that place's spin whenever the tape comes back to it. They are
    used again only on the same tape at or after the first of them, on a spin's boundary
    (after a rewind to before them, they are evaluated anew).
    """

    __slots__ = (
        "_classes",
        "_first",
        "_game",
        "_kernel",
        "_spins",
        "_start",
        "_stops",
        "_tally",
        "_tape",
        "_used",
        "_win",
    )

    def __init__(self, game: Game, kernel: _Kernel | None) -> None:
        self._game = game
        self._kernel = kernel
        self._tape: UniformTape | None = None
        self._tally: StretchTally | None = None  # where the spins handed out are tallied
        self._start = 0  # the tape's ``drawn`` at the first spin kept
        self._win: list[int] = []  # per spin kept, from _start on
        self._spins: list[int] = []
        self._stops: list[npt.NDArray[np.int64]] = []  # per block evaluated, in order
        self._classes: list[_Classes] = []  # per block (none for a table game)
        self._first = 0  # the stretch's first spin (index into _win)
        self._used = 0  # the next spin to hand out

    def begin(self, tape: UniformTape, tally: StretchTally) -> None:
        """Start a stretch at ``tape``'s position, tallying into ``tally``."""
        r = self._game.draws_per_spin
        at = tape.drawn - self._start
        if tape is self._tape and at >= 0 and at % r == 0 and at // r <= len(self._win):
            self._first = self._used = at // r
        else:
            self._drop(len(self._win))
            self._start = tape.drawn
            self._first = self._used = 0
        self._tape = tape
        self._tally = tally

    def _extend(self, need: int) -> None:
        assert self._tape is not None
        r = self._game.draws_per_spin
        have = len(self._win) - self._first  # evaluated from the tape's position on
        n = max(need - len(self._win), have, 64)
        u = self._tape.peek((have + n) * r)[have * r :]
        if self._kernel is None:
            raise ValueError(f"game {self._game.id} has no free spins")
        wins, spins, _, stops, classes = self._kernel.evaluate(u.reshape(n, r))
        self._stops.append(stops)
        if classes is not None:
            self._classes.append(classes)
        self._win.extend(wins.tolist())
        self._spins.extend([0] * n if spins is None else spins.tolist())

    def play(self, awarded: int) -> tuple[int, int]:
        """Play a feature of ``awarded`` free spins (and its retriggers): (win units, spins)."""
        i = self._used
        win, spins = self._win, self._spins
        total = 0
        pending = awarded
        while pending:
            if i >= len(win):
                self._extend(i + 1 + pending)
                win, spins = self._win, self._spins
            total += win[i]
            pending += spins[i] - 1
            i += 1
        played = i - self._used
        self._used = i
        return total, played

    def close(self) -> None:
        """End the stretch: consume and tally the spins handed out; keep the rest."""
        assert self._tape is not None and self._tally is not None
        first, used = self._first, self._used
        self._tape.advance((used - first) * self._game.draws_per_spin)
        if used > first:
            stops: list[npt.NDArray[np.int64]] = []
            classes: list[npt.NDArray[np.int64]] = []
            lo = 0  # the block's first spin
            for b, block in enumerate(self._stops):
                size = block.shape[0]
                a, z = max(first - lo, 0), min(used - lo, size)
                if a < z:
                    stops.append(block[a:z])
                    if self._classes:
                        classes.append(self._classes[b].upto(z, a))
                lo += size
                if lo >= used:
                    break
            tallied = None
            if classes:
                tallied = classes[0] if len(classes) == 1 else np.concatenate(classes)
            self._tally.add_free_games(
                stops[0] if len(stops) == 1 else np.concatenate(stops), tallied
            )
        self._tally = None
        self._first = used
        self._drop(used)

    def _drop(self, upto: int) -> None:
        """Forget the whole blocks before spin ``upto`` (consumed)."""
        gone = 0
        k = 0
        for block in self._stops:
            if gone + block.shape[0] > upto:
                break
            gone += block.shape[0]
            k += 1
        if not k:
            return
        del self._stops[:k], self._win[:gone], self._spins[:gone]
        if self._classes:
            del self._classes[:k]
        self._start += gone * self._game.draws_per_spin
        self._first -= gone
        self._used -= gone


class PerSpinEngine:
    """The reference: one game at a time, scalar draws, pure-Python evaluation."""

    def __init__(self, game: Game) -> None:
        self.game = game

    def start(self, req: PlayRequest, base: Draws, feature: Draws) -> PerSpinRun:
        return PerSpinRun(self.game, req, base, feature)

    def play(self, req: PlayRequest, base: Draws, feature: Draws) -> PlayResult:
        run = self.start(req, base, feature)
        while run.check() is None:
            run.play_one()
        return run.result()


class PerSpinRun:
    """A stretch of play advanced one game at a time (so SimPy can wait between games)."""

    def __init__(self, game: Game, req: PlayRequest, base: Draws, feature: Draws) -> None:
        self.game = game
        self.req = req
        self.base = base
        self.feature = feature
        self.wager = req.bet_units * game.cost
        self.threshold = req.floor_credits + self.wager
        self.credits = req.credits
        self.games = self.won = self.games_won = self.free_games = 0
        self.lock_win = 0
        self.stop: Stop | None = None
        self.tally = StretchTally(game)

    def check(self) -> Stop | None:
        """The stop that applies before the next game, if any."""
        if self.stop is None:
            if self.games >= self.req.max_games:
                self.stop = Stop.TIME
            elif self.credits >= self.req.goal_credits:
                self.stop = Stop.WIN_GOAL
            elif self.credits < self.threshold:
                self.stop = Stop.LOSS_LIMIT
        return self.stop

    def play_one(self) -> None:
        """Play the next game: draw its reels, its feature if triggered, settle the credits."""
        game = self.game
        r = game.draws_per_spin
        bet = self.req.bet_units
        base = self.base
        u = [base.random() for _ in range(r)]
        units, spins, progressive, stops, classes = game.outcome_one(u)
        win = units * bet
        pending = spins
        feature = self.feature
        while pending:
            fu = [feature.random() for _ in range(r)]
            funits, fspins, _, fstops, fclasses = game.outcome_one(fu, free=True)
            self.tally.add_free_game(fstops, fclasses)
            win += funits * bet
            self.free_games += 1
            pending += fspins - 1
        self.games += 1
        if win > 0 or progressive:
            self.games_won += 1
        self.tally.add_game(stops, win > 0 or progressive, win, classes)
        if progressive or win >= self.req.lock_credits:
            self.credits -= self.wager
            self.lock_win = win
            self.stop = Stop.PROGRESSIVE if progressive else Stop.JACKPOT
            return
        self.credits += win - self.wager
        self.won += win

    def result(self) -> PlayResult:
        return PlayResult(
            self.games,
            self.games * self.wager,
            self.won,
            self.games_won,
            self.free_games,
            self.credits,
            self.stop or Stop.TIME,
            self.lock_win,
            self.tally,
        )
