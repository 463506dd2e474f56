"""The batched numpy engine: a :class:`_Kernel` per game and mode, chunks of games
evaluated vectorised, free-spin features evaluated ahead (:class:`_FeatureCursor`).

With the optional compiled kernels built (``twin.speedups``), a kernel's tables also serve its
compiled twin (``_speedups.SlotKernel``): the base games of a chunk are then played, settled
and tallied one at a time in C (``BatchedEngine._play_compiled``) and free games evaluated and
tallied in C, with exactly the numpy path's results, which stays the reference and serves
what the compiled kernel does not take (stops found by a search)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from twin import speedups
from twin.machines.engine.common import (
    F64,
    PlayRequest,
    PlayResult,
    Stop,
    StretchTally,
    UniformTape,
    _tally_layout,
)
from twin.machines.par import Game, ReelSet
from twin.memo import PerObject


def _first(mask: npt.NDArray[np.bool_], default: int) -> int:
    """Index of the first True in ``mask``, or ``default`` when there is none."""
    if mask.size == 0:
        return default
    idx = int(np.argmax(mask))
    return idx if mask[idx] else default


# the compiled kernel's stretch state (``SlotKernel.play``'s int64 array) and its statuses
_STATE_FIELDS = (
    "after",  # the balance less the threshold: a game is played while 0 <= after < span
    "span",  # the goal less the threshold
    "wager",
    "bet",
    "lock",  # a win at or above it locks the machine
    "won",  # credits won onto the meter
    "games_won",
    "credits",  # credits of the games played (the tally's: locking wins included)
    "first_won",
    "last_won",
    "win",  # the game stopped at: its win in credits (at a feature: without the feature's)
    "spins",  # the game stopped at: the free spins it triggered
    "prog",  # the game stopped at: a progressive hit
    "at",  # the game stopped at, or the chunk's size when every game was played
)
_S = {name: i for i, name in enumerate(_STATE_FIELDS)}
_CHUNK, _OUT, _LOCKED, _FEATURE = range(4)  # as _speedups.pyx's STATUS
_STATUS = {"chunk": _CHUNK, "out": _OUT, "locked": _LOCKED, "feature": _FEATURE}

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
        "_fast",
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
        self._fast: tuple[ModuleType, Any] | None = None  # the compiled kernel, of a module
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

    def compiled(self, kernels: ModuleType, tally_offsets: npt.NDArray[np.int64]) -> Any:
        """The compiled twin (``kernels.SlotKernel``) of this base-game kernel fused with
        ``BatchedEngine.play``'s settling and tallying, or None where it does not serve: stops
        found by a search (no lookup table), codes beyond int32, or kernels of another state
        layout."""
        if self._fast is None or self._fast[0] is not kernels:
            fast = None
            same = kernels.STATE_FIELDS == _STATE_FIELDS and kernels.STATUS == _STATUS
            if self._flat is not None and same:
                fast = self._compile(kernels, tally_offsets)
            self._fast = (kernels, fast)
        return self._fast[1]

    def _compile(self, kernels: ModuleType, tally_offsets: npt.NDArray[np.int64]) -> Any:
        try:
            return kernels.SlotKernel(
                self._flat,
                self._offsets,
                self._totals,
                tally_offsets,
                self._blocks,
                self._pay,
                self._prog,
                self._classes,
                self._lines,
                self._scatter,
                self._spins,
                self._trigger,
                self._mult,
                self._table,
            )
        except ValueError:  # tables the kernel does not take (codes beyond int32)
            return None

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


class _Rows:
    """Combination classes of a block of games computed with them (by a compiled kernel):
    ``upto`` as :class:`_Classes`'s."""

    __slots__ = ("rows",)

    def __init__(self, rows: npt.NDArray[np.int64]) -> None:
        self.rows = rows

    def upto(self, end: int, start: int = 0) -> npt.NDArray[np.int64]:
        return self.rows[start:end]


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
        self,
        game: Game,
        chunk: int = 2048,
        first_chunk: int = 64,
        first_games: int = 4,
        compiled: bool = True,
    ) -> None:
        self.game = game
        self.chunk = chunk  # the largest chunk of games drawn at once
        self.first_chunk = min(first_chunk, chunk)  # the smallest first chunk
        self.first_games = first_games
        self._kernel, self._feature_kernel = _kernels(game)
        # the kernels compiled (``twin.speedups``, when built; ``compiled=False``: never):
        # the same results as the numpy path, which stays the reference
        kernels = speedups.load() if compiled else None
        self._fast: Any = None
        fast_feature = None
        if kernels is not None:
            _, base_offsets, _, feature_offsets, _ = _tally_layout(game)
            self._fast = self._kernel.compiled(kernels, base_offsets)
            if self._feature_kernel is not None:
                fast_feature = self._feature_kernel.compiled(kernels, feature_offsets)
        # free spins evaluated ahead, kept from one stretch to the next (see _FeatureCursor)
        self._features = _FeatureCursor(game, self._feature_kernel, fast_feature)

    def play(self, req: PlayRequest, base: UniformTape, feature: UniformTape) -> PlayResult:
        if self._fast is not None:
            return self._play_compiled(req, base, feature)
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

    def _play_compiled(
        self, req: PlayRequest, base: UniformTape, feature: UniformTape
    ) -> PlayResult:
        """``play`` with the compiled kernel: it plays, settles and tallies the base games of
        a chunk one at a time in C and comes back at a stop or a feature, which is played
        here (``_FeatureCursor``) and settled by the kernel's next call."""
        game, fast = self.game, self._fast
        r = game.draws_per_spin
        bet, max_games = req.bet_units, req.max_games
        wager = bet * game.cost
        threshold = req.floor_credits + wager
        tally = StretchTally(game)
        features = self._features
        features.begin(feature, tally)
        span = max(req.goal_credits - threshold, 0)  # 0: no balance is played from
        # the state, in _STATE_FIELDS' order: no game played yet
        after = req.credits - threshold
        state = (after, span, wager, bet, req.lock_credits, 0, 0, 0, -1, -1, 0, 0, 0, 0)
        st = np.array(state, np.int64)
        counts, classes, transitions = tally._counts, tally.classes, tally.transitions
        games = free_games = 0
        status = _CHUNK
        lasts = (req.credits - threshold) // wager + 1  # games played if none wins
        size = min(max(self.first_chunk, self.first_games * lasts), self.chunk)
        while games < max_games and status == _CHUNK:
            n = min(size, max_games - games)
            size = min(2 * size, self.chunk)
            u = base.peek(n * r)
            status = fast.play(u, 0, n, st, counts, classes, transitions, False)
            while status == _FEATURE:
                fw, fg = features.play(int(st[_S["spins"]]))
                free_games += fg
                st[_S["win"]] += fw * bet
                status = fast.play(u, int(st[_S["at"]]), n, st, counts, classes, transitions, True)
            played = int(st[_S["at"]]) + (status == _LOCKED)
            base.advance(played * r)
            games += played
        features.close()
        after, _, _, _, _, won, games_won, credits, first, last, win, _, prog, _ = st.tolist()
        tally.won, tally.credits, tally.first_won, tally.last_won = games_won, credits, first, last
        credits = after + threshold
        lock_win = 0
        if status == _LOCKED:
            stop, lock_win = (Stop.PROGRESSIVE if prog else Stop.JACKPOT), win
        elif status == _OUT:
            stop = Stop.WIN_GOAL if credits >= req.goal_credits else Stop.LOSS_LIMIT
        else:
            stop = Stop.TIME
        return PlayResult(
            games, games * wager, won, games_won, free_games, credits, stop, lock_win, tally
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
        "_fast",
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

    def __init__(self, game: Game, kernel: _Kernel | None, fast: Any = None) -> None:
        self._game = game
        self._kernel = kernel
        self._fast = fast  # the kernel compiled (``_speedups.SlotKernel``), or None
        self._tape: UniformTape | None = None
        self._tally: StretchTally | None = None  # where the spins handed out are tallied
        self._start = 0  # the tape's ``drawn`` at the first spin kept
        self._win: list[int] = []  # per spin kept, from _start on
        self._spins: list[int] = []
        self._stops: list[npt.NDArray[np.int64]] = []  # per block evaluated, in order
        self._classes: list[_Classes | _Rows] = []  # per block (none for a table game)
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
        classes: _Classes | _Rows | None
        if self._fast is not None:
            wins, spins, stops, rows = self._fast.evaluate(u, n)
            classes = None if rows is None else _Rows(rows)
        else:
            won, spun, _, stops, classes = self._kernel.evaluate(u.reshape(n, r))
            wins, spins = won.tolist(), [0] * n if spun is None else spun.tolist()
        self._stops.append(stops)
        if classes is not None:
            self._classes.append(classes)
        self._win.extend(wins)
        self._spins.extend(spins)

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
                    rows = self._classes[b].upto(z, a) if self._classes else None
                    if self._fast is not None:  # tallied at once, in C
                        t = self._tally
                        self._fast.tally(block[a:z], rows, t._feature_counts, t.feature_classes)
                    else:
                        stops.append(block[a:z])
                        if rows is not None:
                            classes.append(rows)
                lo += size
                if lo >= used:
                    break
            if stops:
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
