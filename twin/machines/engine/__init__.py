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

With the optional compiled kernels built (``python -m twin.speedups build``), a kernel's
tables also serve its compiled twin: the base games of a chunk are played, settled and tallied
one at a time in C, stopping at a feature trigger for Python to play the feature, and free
spins are evaluated and tallied in C, with exactly the numpy path's results (the numpy path
stays the reference and the fallback; ``tests/test_speedups_engine.py`` holds the three
engines equal on every shipped game).

The package: :mod:`.common` (tape, request, result, tally), :mod:`.batched` and
:mod:`.per_spin`; it re-exports their public API.
"""

from __future__ import annotations

from twin.machines.engine.batched import BatchedEngine
from twin.machines.engine.common import (
    Draws,
    PlayRequest,
    PlayResult,
    Stop,
    StretchTally,
    UniformTape,
)
from twin.machines.engine.per_spin import PerSpinEngine, PerSpinRun

__all__ = [
    "BatchedEngine",
    "Draws",
    "PerSpinEngine",
    "PerSpinRun",
    "PlayRequest",
    "PlayResult",
    "Stop",
    "StretchTally",
    "UniformTape",
]
