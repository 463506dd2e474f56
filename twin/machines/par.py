"""PAR sheets: the game file of a machine, its validation and the compiled, evaluable `Game`.

A PAR sheet is a TOML file. Two kinds of game exist.

Reel games (``kind = "reels"``)::

    [game]
    id = "video-5reel"          # lower-case slug
    name = "Wild Frontier"
    kind = "reels"
    rows = 3                    # visible rows of the window
    lines = [[1, 1, 1, 1, 1], [0, 0, 0, 0, 0]]   # paylines: one row index per reel
    # cost = 2                  # optional; if given it must equal the number of lines

    [[reels]]                   # one table per reel, left to right
    symbols = ["A", "K", "WILD", ...]
    weights = [3, 3, 1, ...]    # optional virtual-reel weights (positive ints, one per stop)

    [pays]                      # left-aligned line pays, credits per unit line bet
    A = { 3 = 5, 4 = 20, 5 = 100 }

    [wild]                      # optional
    symbols = ["WILD"]
    excludes = ["SCAT"]         # symbols a wild may not replace

    [scatter]                   # optional; pays are multiples of the TOTAL bet
    symbol = "SCAT"
    pays = { 3 = 2, 4 = 10, 5 = 50 }

    [free_spins]                # optional
    trigger = "SCAT"            # defaults to the scatter symbol
    count = 3                   # trigger: at least this many anywhere in the window
    spins = 10                  # spins awarded (also per retrigger)
    multiplier = 2              # every free-spin win is multiplied by this
    retrigger = true
    # [[free_spins.reels]]      # optional feature strips, same shape as [[reels]]

    [progressive]               # optional
    symbol = "LINK"
    count = 3                   # this symbol at least `count` times on a line: link prize

Outcome-table games (``kind = "table"``)::

    [game]
    id = "promo-tournament"
    name = "Promo"
    kind = "table"
    cost = 10                   # credits per unit bet

    [[outcomes]]
    name = "small"
    weight = 90                 # positive int
    pay = 10                    # credits per unit bet
    # progressive = true        # this outcome wins the link prize instead of `pay`

Reel mechanics
--------------
A draw ``u`` in [0, 1) selects a stop on a reel with integer weights ``w`` (all 1 if none are
given): with ``cum`` the cumulative sums and ``total = cum[-1]`` the stop is the first index
``i`` with ``cum[i] > u * total``, that is ``searchsorted(cum, u * total, side="right")``
(``bisect_right`` in the scalar path); every stop ``i`` is hit with probability
``w[i] / total`` up to the 2**-53 granularity of ``u``. For a stop ``s`` on a strip of length
``L`` the window shows ``strip[(s + row) % L]`` in row ``row`` (row 0 on top). Outcome tables
select an outcome in the same way from the outcome weights.

Line evaluation, per payline (the symbols ``x[0..R-1]`` along it, left to right):

* the paying symbol ``s`` is the first non-wild symbol; the run is the number of leading
  positions holding ``s`` or, when ``s`` is not in ``wild.excludes``, any wild; the symbol
  pay is ``pays[s][run]`` (0 if not listed);
* if ``x[0]`` is a wild ``w``, the pure-wild run is the number of leading ``w``; its pay is
  ``pays[w][run]`` (a wild's own line pays);
* the line pays the larger of the two;
* if ``s`` is the progressive symbol and ``run >= progressive.count`` the line is a
  progressive hit instead: it pays 0 (its fixed pay, if listed, is excluded from the return)
  and the game reports ``progressive = True``.

Scatter: ``n`` = number of scatter symbols anywhere in the window; it pays the multiple
listed for the largest listed count ``<= n``, times the total bet. Free spins are triggered
when the trigger symbol shows at least ``count`` times anywhere in the window.

Units: ``cost`` is the number of lines (reel games) or the ``[game] cost`` (tables). A wager
is ``bet_units * cost`` credits. `Outcome.win_units` is in credits per unit bet: line pays
plus the scatter multiple times ``cost``; a player's win is ``win_units * bet_units``.
"""

from __future__ import annotations

import bisect
import hashlib
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from twin.errors import InputError

__all__ = [
    "MAX_LINE_TABLE",
    "FreeSpins",
    "Game",
    "Outcome",
    "Progressive",
    "ReelSet",
    "Scatter",
    "TableOutcome",
    "load_game",
    "parse_game",
]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]

MAX_LINE_TABLE = 1 << 22
"""Largest ``symbols ** reels``: the line pay lookup table has one entry per symbol tuple."""

MAX_WEIGHT_TOTAL = 1 << 40
"""Largest total weight of a reel or outcome table (keeps ``u * total`` exact enough)."""

# ---------------------------------------------------------------------------------------------
# Schema (pydantic, strict, unknown keys rejected)
# ---------------------------------------------------------------------------------------------

PosInt = Annotated[int, Field(gt=0)]
NonNegInt = Annotated[int, Field(ge=0)]
Symbol = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_]+$")]
GameId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[a-z0-9][a-z0-9_-]*$")]
Text = Annotated[str, Field(min_length=1, max_length=200)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class _ReelModel(_Strict):
    symbols: list[Symbol] = Field(min_length=1)
    weights: list[PosInt] | None = None


class _ReelsHeader(_Strict):
    id: GameId
    name: Text
    kind: Literal["reels"]
    rows: PosInt
    lines: list[list[NonNegInt]] = Field(min_length=1)
    cost: PosInt | None = None


class _WildModel(_Strict):
    symbols: list[Symbol] = Field(min_length=1)
    excludes: list[Symbol] = Field(default_factory=list)


class _ScatterModel(_Strict):
    symbol: Symbol
    pays: dict[str, PosInt] = Field(default_factory=dict)


class _FreeSpinsModel(_Strict):
    trigger: Symbol | None = None
    count: PosInt
    spins: PosInt
    multiplier: PosInt = 1
    retrigger: bool = False
    reels: list[_ReelModel] | None = None


class _ProgressiveModel(_Strict):
    symbol: Symbol
    count: PosInt


class _ReelsFile(_Strict):
    game: _ReelsHeader
    reels: list[_ReelModel] = Field(min_length=1)
    pays: dict[str, dict[str, PosInt]] = Field(default_factory=dict)
    wild: _WildModel | None = None
    scatter: _ScatterModel | None = None
    free_spins: _FreeSpinsModel | None = None
    progressive: _ProgressiveModel | None = None


class _TableHeader(_Strict):
    id: GameId
    name: Text
    kind: Literal["table"]
    cost: PosInt


class _OutcomeModel(_Strict):
    name: Text
    weight: PosInt
    pay: NonNegInt
    progressive: bool = False


class _TableFile(_Strict):
    game: _TableHeader
    outcomes: list[_OutcomeModel] = Field(min_length=1)


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


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------


class _Missing:
    def __repr__(self) -> str:
        return "nothing"


def _key(loc: Sequence[int | str]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _from_pydantic(source: Path, err: ValidationError) -> InputError:
    e = err.errors(include_url=False)[0]
    loc = [p for p in e["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
    key = _key(loc)
    kind = e["type"]
    if kind == "extra_forbidden":
        return InputError(source, key, "a known key (unknown keys are rejected)", loc[-1])
    if kind == "missing":
        return InputError(source, key, "a value (required key)", _Missing())
    return InputError(source, key, _expected(e["msg"] or kind), e.get("input"))


def _expected(msg: str) -> str:
    """Rephrase a pydantic message ("Input should be greater than 0") as what was expected."""
    for prefix, lead in (
        ("Input should be ", ""),
        ("String should match ", "a string matching "),
        ("String should have ", "a string with "),
        ("List should have ", "a list with "),
        ("Dictionary should have ", "a table with "),
    ):
        if msg.startswith(prefix):
            rest = msg.removeprefix(prefix)
            if rest.startswith(("greater", "less")):
                return "a number " + rest
            return lead + rest
    return msg[0].lower() + msg[1:]


def load_game(path: str | Path) -> Game:
    """Read, validate and compile a PAR sheet; every problem raises `InputError`."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(p, "", "a readable PAR sheet file", exc.strerror or str(exc)) from None
    return parse_game(data, p)


def parse_game(data: bytes, path: str | Path = "<memory>") -> Game:
    """Validate and compile PAR sheet bytes (``path`` names the source in errors)."""
    p = Path(path)
    signature = hashlib.sha256(data).hexdigest()
    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(p, "", "a UTF-8 TOML file", str(exc)) from None
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        key = f"line {m.group(1)}" if m else ""
        raise InputError(p, key, "valid TOML", str(exc)) from None
    header = raw.get("game")
    if not isinstance(header, dict):
        raise InputError(p, "game", "a [game] table", header if header is not None else _Missing())
    kind = header.get("kind")
    if kind not in ("reels", "table"):
        raise InputError(p, "game.kind", '"reels" or "table"', kind if kind else _Missing())
    try:
        if kind == "table":
            return _compile_table(_TableFile.model_validate(raw), p, signature)
        return _compile_reels(_ReelsFile.model_validate(raw), p, signature)
    except ValidationError as exc:
        raise _from_pydantic(p, exc) from None


def _compile_table(m: _TableFile, p: Path, signature: str) -> Game:
    names: set[str] = set()
    for i, o in enumerate(m.outcomes):
        if o.name in names:
            raise InputError(p, f"outcomes[{i}].name", "a unique outcome name", o.name)
        names.add(o.name)
    rows = tuple(TableOutcome(o.name, o.weight, o.pay, o.progressive) for o in m.outcomes)
    cum = np.cumsum([o.weight for o in rows], dtype=np.int64)
    if int(cum[-1]) > MAX_WEIGHT_TOTAL:
        raise InputError(p, "outcomes", f"total weight <= {MAX_WEIGHT_TOTAL}", int(cum[-1]))
    return Game(
        id=m.game.id,
        name=m.game.name,
        path=p,
        signature=signature,
        kind="table",
        cost=m.game.cost,
        draws_per_spin=1,
        outcomes=rows,
        table_cum=_frozen(cum),
        table_cum_list=tuple(int(c) for c in cum),
    )


def _check_reels(p: Path, prefix: str, reels: list[_ReelModel]) -> None:
    for r, reel in enumerate(reels):
        if reel.weights is None:
            continue
        key = f"{prefix}[{r}].weights"
        if len(reel.weights) != len(reel.symbols):
            raise InputError(
                p, key, f"{len(reel.symbols)} weights (one per stop)", len(reel.weights)
            )
        if sum(reel.weights) > MAX_WEIGHT_TOTAL:
            raise InputError(p, key, f"total weight <= {MAX_WEIGHT_TOTAL}", sum(reel.weights))


def _counts(p: Path, key: str, table: Mapping[str, int], top: int) -> dict[int, int]:
    out: dict[int, int] = {}
    for text, pay in table.items():
        k = f"{key}.{text}"
        if not re.fullmatch(r"[0-9]+", text):
            raise InputError(p, k, f"a count 1..{top} as key", text)
        count = int(text)
        if not 1 <= count <= top:
            raise InputError(p, k, f"a count 1..{top}", count)
        out[count] = pay
    return dict(sorted(out.items()))


def _compile_reels(m: _ReelsFile, p: Path, signature: str) -> Game:
    g = m.game
    n_reels = len(m.reels)
    _check_reels(p, "reels", m.reels)
    for j, line in enumerate(g.lines):
        if len(line) != n_reels:
            raise InputError(
                p, f"game.lines[{j}]", f"{n_reels} row indexes (one per reel)", len(line)
            )
        for r, row in enumerate(line):
            if row >= g.rows:
                raise InputError(p, f"game.lines[{j}][{r}]", f"a row index 0..{g.rows - 1}", row)
    cost = len(g.lines)
    if g.cost is not None and g.cost != cost:
        raise InputError(p, "game.cost", f"the number of lines ({cost}) or no cost", g.cost)
    fs_model = m.free_spins
    if fs_model is not None and fs_model.reels is not None:
        if len(fs_model.reels) != n_reels:
            raise InputError(p, "free_spins.reels", f"{n_reels} feature reels", len(fs_model.reels))
        _check_reels(p, "free_spins.reels", fs_model.reels)

    symbols: list[str] = []
    for reel in [*m.reels, *(fs_model.reels or [] if fs_model else [])]:
        for s in reel.symbols:
            if s not in symbols:
                symbols.append(s)
    on_reels = set(symbols)

    def known(key: str, sym: str) -> None:
        if sym not in on_reels:
            raise InputError(p, key, "a symbol that appears on a reel", sym)

    wilds: list[str] = []
    excludes: list[str] = []
    if m.wild is not None:
        for i, s in enumerate(m.wild.symbols):
            known(f"wild.symbols[{i}]", s)
        wilds = list(m.wild.symbols)
        for i, s in enumerate(m.wild.excludes):
            known(f"wild.excludes[{i}]", s)
            if s in wilds:
                raise InputError(p, f"wild.excludes[{i}]", "a non-wild symbol", s)
        excludes = list(m.wild.excludes)

    window_size = g.rows * n_reels
    scatter: Scatter | None = None
    if m.scatter is not None:
        known("scatter.symbol", m.scatter.symbol)
        if m.scatter.symbol in wilds:
            raise InputError(p, "scatter.symbol", "a symbol that is not wild", m.scatter.symbol)
        sp = _counts(p, "scatter.pays", m.scatter.pays, window_size)
        scatter = Scatter(m.scatter.symbol, tuple(sp.items()))

    pays: dict[str, Mapping[int, int]] = {}
    for sym, table in m.pays.items():
        known(f"pays.{sym}", sym)
        if scatter is not None and sym == scatter.symbol:
            raise InputError(p, f"pays.{sym}", "no line pays for the scatter symbol", sym)
        pays[sym] = MappingProxyType(_counts(p, f"pays.{sym}", table, n_reels))

    free: FreeSpins | None = None
    if fs_model is not None:
        trigger = fs_model.trigger or (scatter.symbol if scatter else None)
        if trigger is None:
            raise InputError(
                p, "free_spins.trigger", "a trigger symbol (no scatter to default to)", _Missing()
            )
        known("free_spins.trigger", trigger)
        if fs_model.count > window_size:
            raise InputError(p, "free_spins.count", f"a count 1..{window_size}", fs_model.count)
        free = FreeSpins(
            trigger, fs_model.count, fs_model.spins, fs_model.multiplier, fs_model.retrigger
        )

    prog: Progressive | None = None
    if m.progressive is not None:
        known("progressive.symbol", m.progressive.symbol)
        if m.progressive.symbol in wilds:
            raise InputError(
                p, "progressive.symbol", "a symbol that is not wild", m.progressive.symbol
            )
        if m.progressive.count > n_reels:
            raise InputError(p, "progressive.count", f"a count 1..{n_reels}", m.progressive.count)
        prog = Progressive(m.progressive.symbol, m.progressive.count)

    k = len(symbols)
    if k**n_reels > MAX_LINE_TABLE:
        raise InputError(
            p, "reels", f"symbols ** reels <= {MAX_LINE_TABLE} (line pay table)", k**n_reels
        )
    ids = {s: i for i, s in enumerate(symbols)}
    base = _reelset(m.reels, g.rows, ids, scatter, free)
    feature = (
        _reelset(fs_model.reels, g.rows, ids, scatter, free)
        if fs_model is not None and fs_model.reels is not None
        else None
    )
    line_pay, line_prog = _line_table(symbols, n_reels, pays, set(wilds), set(excludes), prog)
    sbc = np.zeros(window_size + 1, np.int64)
    if scatter is not None:
        for c in range(window_size + 1):
            sbc[c] = scatter.pay_for(c)
    game = Game(
        id=g.id,
        name=g.name,
        path=p,
        signature=signature,
        kind="reels",
        cost=cost,
        draws_per_spin=n_reels,
        rows=g.rows,
        lines=tuple(tuple(line) for line in g.lines),
        symbols=tuple(symbols),
        pays=MappingProxyType(pays),
        wilds=frozenset(wilds),
        wild_excludes=frozenset(excludes),
        scatter=scatter,
        free_spins=free,
        progressive=prog,
        base=base,
        feature=feature,
        line_pay=_frozen(line_pay),
        line_prog=None if line_prog is None else _frozen(line_prog),
        scatter_by_count=_frozen(sbc),
    )
    if free is not None and free.retrigger:
        rate = retrigger_probability(game) * free.spins
        if rate >= 1:
            raise InputError(
                p,
                "free_spins.retrigger",
                "a subcritical retrigger: P(retrigger per free spin) × spins < 1",
                round(float(rate), 6),
            )
    return game


def _reelset(
    reels: list[_ReelModel],
    rows: int,
    ids: Mapping[str, int],
    scatter: Scatter | None,
    free: FreeSpins | None,
) -> ReelSet:
    names = tuple(tuple(r.symbols) for r in reels)
    weights = tuple(tuple(r.weights) if r.weights else (1,) * len(r.symbols) for r in reels)
    cum = tuple(_frozen(np.cumsum(w, dtype=np.int64)) for w in weights)
    window = []
    scat = []
    trig = []
    for strip in names:
        length = len(strip)
        grid = np.array(
            [[ids[strip[(s + row) % length]] for s in range(length)] for row in range(rows)],
            dtype=np.int64,
        )
        window.append(_frozen(grid))
        col = [[strip[(s + row) % length] for row in range(rows)] for s in range(length)]
        sc = scatter.symbol if scatter else None
        tr = free.trigger if free else None
        scat.append(_frozen(np.array([c.count(sc) if sc else 0 for c in col], np.int64)))
        trig.append(_frozen(np.array([c.count(tr) if tr else 0 for c in col], np.int64)))
    return ReelSet(
        names=names,
        weights=weights,
        cum=cum,
        cum_lists=tuple(tuple(int(x) for x in c) for c in cum),
        totals=tuple(sum(w) for w in weights),
        window=tuple(window),
        scatter_counts=tuple(scat),
        trigger_counts=tuple(trig),
    )


def _line_table(
    symbols: Sequence[str],
    n_reels: int,
    pays: Mapping[str, Mapping[int, int]],
    wilds: set[str],
    excludes: set[str],
    prog: Progressive | None,
) -> tuple[IntArray, BoolArray | None]:
    """Line pay for every symbol tuple (vectorised line rules over all ``K ** R`` tuples).

    Index of a tuple ``(x0, ..., x_{R-1})`` is ``sum(x_r * K ** (R-1-r))``.
    """
    k = len(symbols)
    codes = np.arange(k**n_reels, dtype=np.int64)
    sym = np.empty((codes.size, n_reels), np.int64)
    rest = codes.copy()
    for r in range(n_reels - 1, -1, -1):
        sym[:, r] = rest % k
        rest //= k
    paytab = np.zeros((k, n_reels + 1), np.int64)
    for name, table in pays.items():
        for count, amount in table.items():
            paytab[symbols.index(name), count] = amount
    is_wild = np.array([s in wilds for s in symbols], np.bool_)
    excluded = np.array([s in excludes for s in symbols], np.bool_)
    rows = np.arange(codes.size)

    def run_length(match: BoolArray) -> IntArray:
        return np.where(match.all(axis=1), n_reels, np.argmin(match, axis=1)).astype(np.int64)

    wild_at = is_wild[sym]
    has_plain = ~wild_at.all(axis=1)
    first = sym[rows, np.argmax(~wild_at, axis=1)]
    subst = ~excluded[first]
    run = run_length((sym == first[:, None]) | (wild_at & subst[:, None]))
    sym_pay = np.where(has_plain, paytab[first, run], 0)
    lead = sym[:, 0]
    wrun = run_length(sym == lead[:, None])
    wild_pay = np.where(is_wild[lead], paytab[lead, wrun], 0)
    pay = np.maximum(sym_pay, wild_pay)
    hit: BoolArray | None = None
    if prog is not None:
        hit = has_plain & (first == symbols.index(prog.symbol)) & (run >= prog.count)
        pay = np.where(hit, 0, pay)
    return pay.astype(np.int64), hit


def column_count_distribution(reels: ReelSet, counts: Sequence[IntArray]) -> list[int]:
    """Weighted distribution of a window count summed over reels (exact ints).

    ``counts[r][s]`` is the count in reel ``r``'s column at stop ``s``; entry ``c`` of the
    result is the total weight (product of stop weights) of the combinations whose count is
    ``c``: the convolution over reels of each reel's weighted count histogram.
    """
    dist = [1]
    for r, col in enumerate(counts):
        hist: dict[int, int] = {}
        for s, c in enumerate(col.tolist()):
            hist[c] = hist.get(c, 0) + reels.weights[r][s]
        new = [0] * (len(dist) + max(hist))
        for a, wa in enumerate(dist):
            for b, wb in hist.items():
                new[a + b] += wa * wb
        dist = new
    return dist


def retrigger_probability(game: Game) -> Fraction:
    """P(a free spin shows the trigger symbol at least ``count`` times), exact."""
    fs = game.free_spins
    if fs is None or game.kind != "reels":
        return Fraction(0)
    reels = game.feature_reels
    dist = column_count_distribution(reels, reels.trigger_counts)
    hit = sum(dist[fs.count :])
    return Fraction(hit, sum(dist))
