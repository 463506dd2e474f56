"""What the Board knows about the floor, independent of what the machines report: the
register of machines and their approved programs, the approved worksheets and links, and the
exact analysis of every program the run may see (computed once per process)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NoReturn

from twin.machines.analysis import Analysis, CombinationLaw, analyse, combination_law
from twin.machines.par import Game

#: Analyses already computed in this process, by (program signature, file path): a program's
#: signature is the SHA-256 of its PAR sheet file, so the analysis of a signature never
#: changes; replications and benchmarks build many casinos over the same few games.
_ANALYSES: dict[tuple[str, str], Analysis] = {}
_ANALYSES_KEPT = 64


def analysis_of(game: Game) -> Analysis:
    """The exact PAR analysis of ``game``, computed once per process."""
    return _analysis_of(game)


def _analysis_of(game: Game) -> Analysis:
    key = (game.signature, str(game.path))
    got = _ANALYSES.get(key)
    if got is None:
        if len(_ANALYSES) >= _ANALYSES_KEPT:
            _ANALYSES.clear()
        got = _ANALYSES[key] = analyse(game)
    return got


#: One change of the Board's facts: (which table, key, new value, whether the key was
#: removed instead).
FactChange = tuple[str, str, Any, bool]

_TABLES = ("register", "worksheets", "programs", "approved_links")
_MISSING = object()


class _Logged(dict[str, Any]):
    """A table of :class:`FloorFacts` whose changes are logged, in order: item assignment,
    ``del`` and ``pop`` (what the twin does to them); the other ways to change a dict are
    refused, so that no change can miss the log."""

    def __init__(self, table: str, items: dict[str, Any], log: list[FactChange]) -> None:
        super().__init__(items)
        self._table = table
        self._log = log

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key, value)
        self._log.append((self._table, key, value, False))

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self._log.append((self._table, key, None, True))

    def pop(self, key: str, default: Any = _MISSING) -> Any:
        if key in self:
            value = self[key]
            del self[key]
            return value
        if default is _MISSING:
            raise KeyError(key)
        return default

    def _refuse(self, *_: Any, **__: Any) -> NoReturn:
        raise TypeError(
            f"the Board's {self._table} is logged: change it by item assignment, del or pop"
        )

    update = setdefault = popitem = clear = _refuse


@dataclass
class FloorFacts:
    """What the Board knows about the floor, independent of what the machines report.

    ``register``: Board registration number -> the program signature approved for it.
    ``worksheets``: the approved games (PAR sheets with their theoretical hold worksheet).
    ``programs``: every program the run may see, approved or not (so it can be analysed).
    ``approved_links``: progressive link id -> (reset cents, increment basis points).
    """

    register: dict[str, str] = field(default_factory=dict)
    worksheets: dict[str, Game] = field(default_factory=dict)
    programs: dict[str, Game] = field(default_factory=dict)
    approved_links: dict[str, tuple[int, int]] = field(default_factory=dict)
    _analyses: dict[str, Analysis] = field(default_factory=dict)
    _combinations: dict[tuple[str, bool], CombinationLaw] = field(default_factory=dict)

    def log_changes(self) -> list[FactChange]:
        """From now on, every change of the four tables is appended to the returned log (for
        a copy of these facts in a sink process, :mod:`twin.sinkproc`); tables replaced
        whole later are not followed."""
        log: list[FactChange] = []
        for table in _TABLES:
            setattr(self, table, _Logged(table, getattr(self, table), log))
        return log

    def apply(self, change: FactChange) -> None:
        """Make a logged change on this copy."""
        table, key, value, removed = change
        if removed:
            dict.pop(getattr(self, table), key, None)
        else:
            dict.__setitem__(getattr(self, table), key, value)

    def analysis(self, signature: str) -> Analysis | None:
        """The exact PAR analysis of the program with this signature (None if unknown)."""
        game = self.programs.get(signature)
        if game is None:
            return None
        got = self._analyses.get(signature)
        if got is None:
            got = self._analyses[signature] = _analysis_of(game)
        return got

    def combinations(self, signature: str, *, free: bool = False) -> CombinationLaw | None:
        """The exact law of the combination classes of the program with this signature, on
        its base reels (``free``: its feature reels); None if unknown or not a reel game."""
        game = self.programs.get(signature)
        if game is None or game.kind != "reels" or (free and game.free_spins is None):
            return None
        key = (signature, free)
        got = self._combinations.get(key)
        if got is None:
            got = self._combinations[key] = combination_law(game, free=free)
        return got


__all__ = ["FactChange", "FloorFacts", "analysis_of"]
