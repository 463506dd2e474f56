"""A self-adjusting program (injected misconduct against First Schedule item 1(e)).

Item 1(e): a machine shall "not automatically alter pay-tables or any function of the
machine based on internal computation of the hold percentage". :class:`AdaptivePayTable` is
such a program: before every stretch of play it computes its hold over its most recent games
and scales its pays, down when that hold has fallen below the theoretical hold (it has been
paying too much) and up when it is above. Its reels, and so its outcome tally, are the
approved ones, and it keeps reporting the approved program's signature: only the pays
drift. Only ``twin.slots.injections`` creates one (injection ``adaptive_paytable``).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import replace
from types import MappingProxyType

import numpy as np

from twin.machines.analysis import analyse
from twin.machines.engine import BatchedEngine, PerSpinEngine
from twin.machines.par import Game, TableOutcome

__all__ = ["AdaptivePayTable", "scaled_pays"]


def scaled_pays(game: Game, factor: float) -> Game:
    """``game`` with every pay multiplied by ``factor`` and rounded down (same reels, same
    signature: what a self-adjusting program does behind its approved identity)."""
    if game.kind == "table":
        outcomes = tuple(
            TableOutcome(o.name, o.weight, int(o.pay * factor), o.progressive)
            for o in game.outcomes
        )
        return replace(game, outcomes=outcomes)
    assert game.line_pay is not None and game.scatter_by_count is not None
    line_pay = np.floor(game.line_pay * factor).astype(np.int64)
    scatter = np.floor(game.scatter_by_count * factor).astype(np.int64)
    line_pay.setflags(write=False)
    scatter.setflags(write=False)
    # the per-spin reference reads the pays themselves: scale them alike (floor is monotone,
    # so the larger of a symbol's and a wild's pay scales to the larger of the scaled ones)
    pays = MappingProxyType(
        {
            sym: MappingProxyType({run: math.floor(pay * factor) for run, pay in by_run.items()})
            for sym, by_run in game.pays.items()
        }
    )
    sc = game.scatter
    if sc is not None:
        sc = replace(sc, pays=tuple((n, math.floor(m * factor)) for n, m in sc.pays))
    return replace(game, line_pay=line_pay, scatter_by_count=scatter, pays=pays, scatter=sc)


class AdaptivePayTable:
    """Pays scaled by ``1 + gain * (recent hold - theoretical hold)``, clipped to
    ``[low, high]`` and rounded to tenths; the recent hold is over the last ``window``
    games' stretches (credits wagered and won)."""

    def __init__(
        self,
        game: Game,
        *,
        window: int = 200,
        gain: float = 4.0,
        low: float = 0.5,
        high: float = 1.5,
    ) -> None:
        self.game = game
        self.theoretical_hold = float(1 - analyse(game).rtp)
        self.window = window
        self.gain = gain
        self.low, self.high = low, high
        self.recent: deque[tuple[int, int, int]] = deque()  # (games, wagered, won)
        self._variants: dict[int, tuple[Game, BatchedEngine, PerSpinEngine]] = {}

    def factor(self) -> float:
        wagered = sum(w for _, w, _ in self.recent)
        if wagered == 0:
            return 1.0
        hold = 1.0 - sum(x for _, _, x in self.recent) / wagered
        raw = 1.0 + self.gain * (hold - self.theoretical_hold)
        return round(min(max(raw, self.low), self.high), 1)

    def _variant(self) -> tuple[Game, BatchedEngine, PerSpinEngine]:
        tenths = round(self.factor() * 10)
        hit = self._variants.get(tenths)
        if hit is None:
            g = self.game if tenths == 10 else scaled_pays(self.game, tenths / 10)
            hit = (g, BatchedEngine(g), PerSpinEngine(g))
            self._variants[tenths] = hit
        return hit

    def batched(self) -> BatchedEngine:
        return self._variant()[1]

    def per_spin(self) -> PerSpinEngine:
        return self._variant()[2]

    def observe(self, games: int, wagered: int, won: int) -> None:
        """A stretch was played: its games, credits wagered and credits won."""
        self.recent.append((games, wagered, won))
        while sum(g for g, _, _ in self.recent) - self.recent[0][0] >= self.window:
            self.recent.popleft()
