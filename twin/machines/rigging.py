"""Rigged programs (injected misconduct against First Schedule item 1(b)(i) and (ii)).

Each function returns a variant of an approved reel game that keeps the approved identity
(the same signature, so a signature check passes) but selects its outcomes otherwise:

* :func:`suppressed_combination`: a combination is never selected although its elements
  still land as approved: whenever the stops show it, the program presents the next lower
  paying combination instead (item 1(b)(i), "every permutation or combination of elements
  available on every play"). The stop counts stay those of the approved reels.
* :func:`biased_free_spin_reel`: the free-spin reels are not the approved ones: on the first
  feature reel some stops never land and their weight goes to their neighbours (item
  1(b)(i) and (ii) for the free games; the base game is untouched).

Both engines play a variant exactly alike (its pays and its reels are compiled as any
game's are). Only ``twin.slots.injections`` creates them (injections ``suppressed_combination`` and
``biased_free_spin_reel``), and a machine runs one through ``SlotMachine.swap_program``.
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import numpy as np

from twin.machines.par import Game, ReelSet
from twin.machines.par.game import _frozen
from twin.machines.par.loading import _line_table

__all__ = ["biased_free_spin_reel", "suppressed_combination"]


def _line_pays(game: Game) -> list[int]:
    return sorted({p for table in game.pays.values() for p in table.values()})


def suppressed_combination(game: Game, pay: int = 0) -> Game:
    """``game`` with every line combination paying ``pay`` per unit line bet (0: the
    top-paying one) shown as the next lower paying combination: it is never selected, while
    its stops land as approved. Raises ValueError if no line combination pays ``pay``."""
    if game.kind != "reels" or not game.pays:
        raise ValueError(f"game {game.id} has no line combinations")
    pays = _line_pays(game)
    target = pays[-1] if pay == 0 else pay
    if target not in pays:
        raise ValueError(f"no line combination of game {game.id} pays {pay} (pays: {pays})")
    lower = max((p for p in pays if p < target), default=0)
    new_pays = MappingProxyType(
        {
            sym: MappingProxyType({n: lower if p == target else p for n, p in table.items()})
            for sym, table in game.pays.items()
        }
    )
    line_pay, _ = _line_table(
        game.symbols,
        game.draws_per_spin,
        new_pays,
        set(game.wilds),
        set(game.wild_excludes),
        game.progressive,
    )
    return replace(game, pays=new_pays, line_pay=_frozen(line_pay))


def biased_free_spin_reel(game: Game, stops: int = 4) -> Game:
    """``game`` whose free spins play a first reel on which stops ``0 .. stops - 1`` never
    land, each one's weight moved to stop ``stops + i`` (the reel's total, and so every
    other stop's probability, unchanged). Raises ValueError without a feature, or when the
    first feature reel has fewer than ``2 * stops`` stops."""
    if game.free_spins is None or game.kind != "reels":
        raise ValueError(f"game {game.id} has no free spins")
    reels = game.feature_reels
    w = list(reels.weights[0])
    if not 0 < stops <= len(w) // 2:
        raise ValueError(f"a feature reel of {len(w)} stops cannot lose {stops} of them")
    for i in range(stops):
        w[stops + i] += w[i]
        w[i] = 0
    cum = _frozen(np.cumsum(w, dtype=np.int64))
    biased: ReelSet = replace(
        reels,
        weights=(tuple(w), *reels.weights[1:]),
        cum=(cum, *reels.cum[1:]),
        cum_lists=(tuple(int(x) for x in cum), *reels.cum_lists[1:]),
        totals=(sum(w), *reels.totals[1:]),
    )
    return replace(game, feature=biased)
