"""The compiled, evaluable :class:`Game` of a PAR sheet and its parts."""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]

# ---------------------------------------------------------------------------------------------
# Compiled game
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Outcome:
    """Results of ``n`` games (or free spins), one entry per game.

    ``win_units``: credits per unit bet (line pays + scatter multiple × cost, × the free-spin
    multiplier in feature mode; a progressive line contributes 0). ``free_spins``: spins
    awarded (0 if none). ``progressive``: the link prize was hit.
    """

    win_units: IntArray
    free_spins: IntArray
    progressive: BoolArray
    stops: IntArray | None = None  # (n, draws): reel stops, or the outcome index of a table


@dataclass(frozen=True, slots=True)
class Scatter:
    """Scatter symbol and its pays: (count, multiple of the total bet), ascending counts."""

    symbol: str
    pays: tuple[tuple[int, int], ...]

    def pay_for(self, count: int) -> int:
        """The multiple for the largest listed count ``<= count`` (0 if none)."""
        best = 0
        for listed, multiple in self.pays:
            if listed <= count:
                best = multiple
        return best


@dataclass(frozen=True, slots=True)
class FreeSpins:
    """Free-spin feature: ``spins`` awarded when ``trigger`` shows ``count``+ times."""

    trigger: str
    count: int
    spins: int
    multiplier: int
    retrigger: bool


@dataclass(frozen=True, slots=True)
class Progressive:
    """Progressive link combination: ``symbol`` with a line run of at least ``count``."""

    symbol: str
    count: int


@dataclass(frozen=True, slots=True)
class TableOutcome:
    """One row of an outcome table."""

    name: str
    weight: int
    pay: int
    progressive: bool


@dataclass(frozen=True, eq=False, slots=True)
class ReelSet:
    """A set of reel strips, compiled for both evaluation paths.

    ``names[r][i]``: symbol name at stop ``i`` of reel ``r``; ``ids``: the same as symbol ids;
    ``weights[r][i]``: stop weight; ``cum``/``cum_lists``: cumulative weights (numpy / Python);
    ``window[r]``: int64 array (rows, L) of symbol ids, ``window[r][row, s]`` = symbol in
    ``row`` when reel ``r`` stops at ``s``; ``scatter_counts[r]``/``trigger_counts[r]``: number
    of scatter / trigger symbols in the column at each stop.
    """

    names: tuple[tuple[str, ...], ...]
    weights: tuple[tuple[int, ...], ...]
    cum: tuple[IntArray, ...]
    cum_lists: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]
    window: tuple[IntArray, ...]
    scatter_counts: tuple[IntArray, ...]
    trigger_counts: tuple[IntArray, ...]

    @property
    def lengths(self) -> tuple[int, ...]:
        return tuple(len(n) for n in self.names)

    def stops(self, u: FloatArray) -> IntArray:
        """Vectorised stop mapping: u (n, reels) -> stops (n, reels)."""
        out = np.empty(u.shape, dtype=np.int64)
        for r, cum in enumerate(self.cum):
            idx = np.searchsorted(cum, u[:, r] * self.totals[r], side="right")
            out[:, r] = np.minimum(idx, len(cum) - 1)
        return out

    def stops_one(self, u: Sequence[float]) -> list[int]:
        """Scalar stop mapping (bisect), bit-identical to `stops`."""
        return [
            min(bisect.bisect_right(cum, float(x) * total), len(cum) - 1)
            for cum, total, x in zip(self.cum_lists, self.totals, u, strict=True)
        ]


#: Lazily built tables a pickled Game leaves out (rebuilt on first use).
_GAME_CACHES = frozenset({"_table_arrays", "_base_places", "_feature_places", "line_pay_classes"})


def _frozen(a: npt.NDArray[Any]) -> npt.NDArray[Any]:
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class Game:
    """A compiled PAR sheet. Immutable; all arrays are read-only.

    Reel games evaluate through a lookup table ``line_pay`` indexed by the symbol ids along a
    line read as a base-``K`` number (reel 0 most significant), built once from the line rules
    (see the module docstring); `evaluate_one` re-implements the rules in plain Python as an
    independent reference.
    """

    id: str
    name: str
    path: Path
    signature: str
    kind: Literal["reels", "table"]
    cost: int
    draws_per_spin: int
    rows: int = 0
    lines: tuple[tuple[int, ...], ...] = ()
    symbols: tuple[str, ...] = ()
    pays: Mapping[str, Mapping[int, int]] = field(default_factory=lambda: MappingProxyType({}))
    wilds: frozenset[str] = frozenset()
    wild_excludes: frozenset[str] = frozenset()
    scatter: Scatter | None = None
    free_spins: FreeSpins | None = None
    progressive: Progressive | None = None
    base: ReelSet | None = None
    feature: ReelSet | None = None
    outcomes: tuple[TableOutcome, ...] = ()
    line_pay: IntArray | None = None
    line_prog: BoolArray | None = None
    scatter_by_count: IntArray | None = None
    table_cum: IntArray | None = None
    table_cum_list: tuple[int, ...] = ()

    # -- pickling (runs go to worker processes) ------------------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in _GAME_CACHES}
        state["pays"] = {sym: dict(by_count) for sym, by_count in self.pays.items()}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        state["pays"] = MappingProxyType(
            {sym: MappingProxyType(by_count) for sym, by_count in state["pays"].items()}
        )
        for value in state.values():
            if isinstance(value, np.ndarray):
                _frozen(value)
        self.__dict__.update(state)

    # -- properties ---------------------------------------------------------------------------

    @property
    def has_free_spins(self) -> bool:
        return self.free_spins is not None

    @property
    def has_progressive(self) -> bool:
        return self.progressive is not None or any(o.progressive for o in self.outcomes)

    @property
    def reel_count(self) -> int:
        return self.draws_per_spin if self.kind == "reels" else 0

    @property
    def feature_reels(self) -> ReelSet:
        """Reels used in free spins: the feature strips if given, else the base strips."""
        if self.feature is not None:
            return self.feature
        assert self.base is not None
        return self.base

    @cached_property
    def line_pay_classes(self) -> IntArray:
        """The pay classes of a reel game's combinations: its distinct line pays per unit line
        bet, ascending, 0 first. A game's class is the index of its best line's pay here (the
        randomness audit tallies games by class; empty for a table game)."""
        if self.line_pay is None:
            return _frozen(np.zeros(0, np.int64))
        return _frozen(np.unique(np.concatenate(([0], self.line_pay))).astype(np.int64))

    @property
    def scatter_classes(self) -> int:
        """How many scatter-count classes a game has: 0 to every cell of the window (0 when
        it has no scatter). The audit tallies games by scatter count after the pay classes."""
        return self.rows * self.draws_per_spin + 1 if self.scatter is not None else 0

    # -- vectorised evaluation ----------------------------------------------------------------

    def evaluate(self, u: npt.ArrayLike) -> Outcome:
        """Evaluate ``n`` base games from uniforms ``u`` of shape (n, draws_per_spin)."""
        return self._evaluate(self._check_u(u), free=False)

    def evaluate_free(self, u: npt.ArrayLike) -> Outcome:
        """Evaluate ``n`` free spins (feature reels, wins × multiplier, retriggers)."""
        if self.free_spins is None:
            raise ValueError(f"game {self.id} has no free spins")
        return self._evaluate(self._check_u(u), free=True)

    def evaluate_stops(self, stops: npt.ArrayLike, *, free: bool = False) -> Outcome:
        """Vectorised evaluation from explicit stops (n, reels) (reel games only)."""
        s = np.asarray(stops, dtype=np.int64)
        reels = self.feature_reels if free else self.base
        if reels is None or s.ndim != 2 or s.shape[1] != self.draws_per_spin:
            raise ValueError("evaluate_stops needs a reel game and stops of shape (n, reels)")
        return self._evaluate_reel_stops(s, reels, free)

    def _check_u(self, u: npt.ArrayLike) -> FloatArray:
        a = np.asarray(u, dtype=np.float64)
        if a.ndim != 2 or a.shape[1] != self.draws_per_spin:
            raise ValueError(
                f"game {self.id}: uniforms must have shape (n, {self.draws_per_spin}), "
                f"got {a.shape}"
            )
        return a

    def _evaluate(self, u: FloatArray, free: bool) -> Outcome:
        if self.kind == "table":
            assert self.table_cum is not None
            pays, prog = self._table_arrays
            total = int(self.table_cum[-1])
            idx = np.searchsorted(self.table_cum, u[:, 0] * total, side="right")
            idx = np.minimum(idx, len(self.outcomes) - 1)
            return Outcome(pays[idx], np.zeros(len(idx), np.int64), prog[idx], idx[:, None])
        reels = self.feature_reels if free else self.base
        assert reels is not None
        stops = reels.stops(u)
        out = self._evaluate_reel_stops(stops, reels, free)
        return Outcome(out.win_units, out.free_spins, out.progressive, stops)

    @cached_property
    def _table_arrays(self) -> tuple[IntArray, BoolArray]:
        pays = np.array([0 if o.progressive else o.pay for o in self.outcomes], np.int64)
        prog = np.array([o.progressive for o in self.outcomes], np.bool_)
        return _frozen(pays), _frozen(prog)

    @cached_property
    def _base_places(self) -> tuple[IntArray, ...]:
        assert self.base is not None
        return self._places(self.base)

    @cached_property
    def _feature_places(self) -> tuple[IntArray, ...]:
        return self._places(self.feature_reels)

    def _places(self, reels: ReelSet) -> tuple[IntArray, ...]:
        """Per reel, an (L, lines) table: each stop's contribution to every line's code.

        A line's code is the base-K number of the symbol ids along it (reel 0 most
        significant), so the code of all lines at once is the sum over reels of one gather
        from these tables, and ``line_pay[code]`` prices every line of every game together.
        """
        k = len(self.symbols)
        n_reels = self.draws_per_spin
        out = []
        for r in range(n_reels):
            rows = np.array([line[r] for line in self.lines], np.int64)
            weight = k ** (n_reels - 1 - r)
            out.append(_frozen(np.ascontiguousarray(reels.window[r][rows, :].T * weight)))
        return tuple(out)

    def _evaluate_reel_stops(self, stops: IntArray, reels: ReelSet, free: bool) -> Outcome:
        assert self.line_pay is not None and self.scatter_by_count is not None
        n_reels = self.draws_per_spin
        places = self._feature_places if reels is not self.base else self._base_places
        code = places[0][stops[:, 0]]
        for r in range(1, n_reels):
            code += places[r][stops[:, r]]
        wins = self.line_pay[code].sum(axis=1)
        if self.line_prog is not None:
            prog = np.asarray(self.line_prog[code].any(axis=1), dtype=np.bool_)
        else:
            prog = np.zeros(stops.shape[0], np.bool_)
        if self.scatter is not None:
            count = reels.scatter_counts[0][stops[:, 0]]
            for r in range(1, n_reels):
                count = count + reels.scatter_counts[r][stops[:, r]]
            wins += self.scatter_by_count[count] * self.cost
        spins = np.zeros(stops.shape[0], np.int64)
        fs = self.free_spins
        if fs is not None and (fs.retrigger or not free):
            tcount = reels.trigger_counts[0][stops[:, 0]]
            for r in range(1, n_reels):
                tcount = tcount + reels.trigger_counts[r][stops[:, r]]
            spins = np.where(tcount >= fs.count, fs.spins, 0).astype(np.int64)
        if free and fs is not None:
            wins *= fs.multiplier
        return Outcome(wins, spins, prog)

    # -- scalar reference ---------------------------------------------------------------------

    def evaluate_one(self, u: Sequence[float]) -> tuple[int, int, bool]:
        """Pure-Python evaluation of one base game: (win_units, free_spins, progressive)."""
        return self._evaluate_one(u, free=False)

    def evaluate_free_one(self, u: Sequence[float]) -> tuple[int, int, bool]:
        """Pure-Python evaluation of one free spin."""
        if self.free_spins is None:
            raise ValueError(f"game {self.id} has no free spins")
        return self._evaluate_one(u, free=True)

    def _evaluate_one(self, u: Sequence[float], free: bool) -> tuple[int, int, bool]:
        if len(u) != self.draws_per_spin:
            raise ValueError(f"game {self.id}: expected {self.draws_per_spin} uniforms")
        if self.kind == "table":
            total = self.table_cum_list[-1]
            i = min(
                bisect.bisect_right(self.table_cum_list, float(u[0]) * total),
                len(self.outcomes) - 1,
            )
            o = self.outcomes[i]
            return (0, 0, True) if o.progressive else (o.pay, 0, False)
        reels = self.feature_reels if free else self.base
        assert reels is not None
        return self.evaluate_stops_one(reels.stops_one(u), free=free)

    def stops_one(self, u: Sequence[float]) -> list[int]:
        """The base-game stops (or the table outcome index) that uniforms ``u`` select."""
        if self.kind == "table":
            total = self.table_cum_list[-1]
            return [
                min(
                    bisect.bisect_right(self.table_cum_list, float(u[0]) * total),
                    len(self.outcomes) - 1,
                )
            ]
        assert self.base is not None
        return self.base.stops_one(u)

    @property
    def stop_weights(self) -> tuple[tuple[int, ...], ...]:
        """Per draw, the weight of each stop (table games: one draw over the outcomes)."""
        if self.kind == "table":
            return (tuple(o.weight for o in self.outcomes),)
        assert self.base is not None
        return self.base.weights

    def window(self, stops: Sequence[int], *, free: bool = False) -> list[list[str]]:
        """The visible window as symbol names: ``window[row][reel]``."""
        reels = self.feature_reels if free else self.base
        assert reels is not None
        return [
            [strip[(s + row) % len(strip)] for strip, s in zip(reels.names, stops, strict=True)]
            for row in range(self.rows)
        ]

    def line_result_one(self, symbols: Sequence[str]) -> tuple[int, bool]:
        """Pure-Python line rule: (pay per unit line bet, progressive hit) for one line."""
        wilds = self.wilds
        sym_pay = 0
        first = next((x for x in symbols if x not in wilds), None)
        if first is not None:
            substitutes = first not in self.wild_excludes
            run = 0
            for x in symbols:
                if x == first or (substitutes and x in wilds):
                    run += 1
                else:
                    break
            p = self.progressive
            if p is not None and first == p.symbol and run >= p.count:
                return 0, True
            sym_pay = self.pays.get(first, {}).get(run, 0)
        wild_pay = 0
        if symbols[0] in wilds:
            w = symbols[0]
            run = 0
            for x in symbols:
                if x != w:
                    break
                run += 1
            wild_pay = self.pays.get(w, {}).get(run, 0)
        return max(sym_pay, wild_pay), False

    def evaluate_stops_one(
        self, stops: Sequence[int], *, free: bool = False
    ) -> tuple[int, int, bool]:
        """Pure-Python evaluation from explicit stops (reel games only)."""
        win, spins, prog, _ = self._evaluate_stops_classes(stops, free)
        return win, spins, prog

    def outcome_one(
        self, u: Sequence[float], *, free: bool = False
    ) -> tuple[int, int, bool, list[int], list[int]]:
        """Pure-Python evaluation of one game with what the randomness audit tallies:
        ``(win_units, free_spins, progressive, stops, classes)``. ``stops``: the reels' stops
        (a table game: its outcome's index); ``classes``: the index of the best line's pay in
        :attr:`line_pay_classes`, then (with a scatter) ``len(line_pay_classes)`` plus the
        scatter count ([] for a table game)."""
        if self.kind == "table":
            win, spins, prog = self._evaluate_one(u, free)
            return win, spins, prog, self.stops_one(u), []
        if len(u) != self.draws_per_spin:
            raise ValueError(f"game {self.id}: expected {self.draws_per_spin} uniforms")
        reels = self.feature_reels if free else self.base
        assert reels is not None
        stops = reels.stops_one(u)
        win, spins, prog, classes = self._evaluate_stops_classes(stops, free)
        return win, spins, prog, stops, classes

    def _evaluate_stops_classes(
        self, stops: Sequence[int], free: bool
    ) -> tuple[int, int, bool, list[int]]:
        grid = self.window(stops, free=free)
        win = 0
        best = 0
        prog = False
        for line in self.lines:
            pay, hit = self.line_result_one([grid[row][r] for r, row in enumerate(line)])
            win += pay
            best = max(best, pay)
            prog = prog or hit
        classes = [bisect.bisect_left(self.line_pay_classes.tolist(), best)]
        cells = [x for row in grid for x in row]
        if self.scatter is not None:
            count = cells.count(self.scatter.symbol)
            classes.append(len(self.line_pay_classes) + count)
            win += self.scatter.pay_for(count) * self.cost
        spins = 0
        fs = self.free_spins
        if fs is not None and (fs.retrigger or not free):
            spins = fs.spins if cells.count(fs.trigger) >= fs.count else 0
        if free and fs is not None:
            win *= fs.multiplier
        return win, spins, prog, classes

    def u_for_stops(self, stops: Sequence[int], *, free: bool = False) -> list[float]:
        """Uniforms that select exactly these stops (mid-point of each stop's interval)."""
        if self.kind == "table":
            (i,) = stops
            lo = self.table_cum_list[i - 1] if i else 0
            return [(lo + self.outcomes[i].weight / 2) / self.table_cum_list[-1]]
        reels = self.feature_reels if free else self.base
        assert reels is not None
        out = []
        for cum, total, s in zip(reels.cum_lists, reels.totals, stops, strict=True):
            lo = cum[s - 1] if s else 0
            out.append((lo + (cum[s] - lo) / 2) / total)
        return out
