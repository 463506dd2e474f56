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

The package: :mod:`.schema` (the file's schema), :mod:`.game` (the compiled game) and
:mod:`.loading` (parse, validate, compile); it re-exports their public API.
"""

from __future__ import annotations

from twin.machines.par.game import (
    FreeSpins,
    Game,
    Outcome,
    Progressive,
    ReelSet,
    Scatter,
    TableOutcome,
)
from twin.machines.par.loading import (
    MAX_LINE_TABLE,
    column_count_distribution,
    load_game,
    parse_game,
)

__all__ = [
    "MAX_LINE_TABLE",
    "FreeSpins",
    "Game",
    "Outcome",
    "Progressive",
    "ReelSet",
    "Scatter",
    "TableOutcome",
    "column_count_distribution",
    "load_game",
    "parse_game",
]
