"""A disk cache for the exact analyses of a program (issue 6; P8's cold workers).

The exact PAR analysis, the law of the win (item 20(f)) and the law of the combination classes
(item 1(b)) of the 5-reel video game take about half a minute together (and a blackjack
game's basic-strategy solution under a second), and every process
that runs a floor with it computed them again: each ``twin run``, each Dask worker of a study,
each test process. They depend only on the program, so they are kept on disk, keyed by

* the program's whole compiled content (every field of the :class:`~twin.machines.par.Game`
  but its caches, digested canonically: a program that keeps its approved signature while
  paying otherwise, as the rigged ones of the injections do, has another key),
* what is computed and with which parameters,
* the source of the modules that compute it and numpy's version (a change of the code is a
  miss, never a stale hit).

Where: ``$TWIN_CACHE_DIR``, else ``$XDG_CACHE_HOME/twin``, else ``~/.cache/twin``;
``TWIN_CACHE_DIR=off`` turns it off. A folder that cannot be written, a file that cannot be
read or does not unpickle: the value is computed as if there were no cache (never an error).
Files are written to a temporary name and renamed, so a reader never sees half a file.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")

#: bump to drop every file written by an older layout of this module
FORMAT = 1


def cache_dir() -> Path | None:
    """The cache folder, or None when the cache is off."""
    got = os.environ.get("TWIN_CACHE_DIR")
    if got is not None:
        return None if got.strip().lower() in ("", "off", "0", "none") else Path(got)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "twin"


@cache
def _code_version() -> str:
    """The source of the modules whose code decides the cached values, and numpy's version."""
    h = hashlib.sha256(f"{FORMAT}|{np.__version__}".encode())
    here = Path(__file__).resolve().parent
    for path in (here / "analysis.py", *sorted((here / "par").glob("*.py")), here / "diskcache.py"):
        h.update(path.read_bytes())
    return h.hexdigest()


def _feed(h: Any, obj: object) -> None:
    """Digest ``obj`` canonically (the same bytes in every process, whatever the hash seed)."""
    if obj is None or isinstance(obj, bool | int | float | str | bytes):
        h.update(f"{type(obj).__name__}:{obj!r};".encode())
    elif isinstance(obj, np.ndarray):
        h.update(f"nd:{obj.dtype.str}:{obj.shape};".encode())
        h.update(np.ascontiguousarray(obj).tobytes())
    elif isinstance(obj, Path):
        h.update(f"path:{obj};".encode())
    elif isinstance(obj, Mapping):
        h.update(f"map:{len(obj)}[".encode())
        for k in sorted(obj, key=repr):
            _feed(h, k)
            _feed(h, obj[k])
        h.update(b"]")
    elif isinstance(obj, frozenset | set):
        h.update(f"set:{len(obj)}[".encode())
        for v in sorted(obj, key=repr):
            _feed(h, v)
        h.update(b"]")
    elif isinstance(obj, tuple | list):
        h.update(f"seq:{len(obj)}[".encode())
        for v in obj:
            _feed(h, v)
        h.update(b"]")
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        h.update(f"dc:{type(obj).__qualname__}[".encode())
        getstate = getattr(obj, "__getstate__", None)
        state = getstate() if callable(getstate) else None
        if isinstance(state, dict):  # the Game: its own pickled state (no caches)
            _feed(h, state)
        else:
            for f in dataclasses.fields(obj):
                h.update(f.name.encode())
                _feed(h, getattr(obj, f.name))
        h.update(b"]")
    else:  # an enum or another plain value
        h.update(f"{type(obj).__qualname__}:{obj!r};".encode())


@cache
def _source(path: str) -> bytes:
    return Path(path).read_bytes()


def key(
    what: str, game: object, params: tuple[object, ...] = (), sources: tuple[str, ...] = ()
) -> str:
    h = hashlib.sha256(f"{_code_version()}|{what}|".encode())
    for src in sources:  # the other modules whose code decides this value
        h.update(hashlib.sha256(_source(src)).digest())
    _feed(h, params)
    _feed(h, game)
    return h.hexdigest()


def cached(
    what: str,
    game: Any,
    params: tuple[object, ...],
    compute: Callable[[], T],
    *,
    sources: tuple[str, ...] = (),
) -> T:
    """``compute()``, kept on disk under the program's content and ``what``/``params``.

    ``game``: any value the result depends on (a program, a table game's rules), digested
    canonically; ``sources``: the files of the modules, besides the analysis', whose code
    decides the result (a change of them is a miss).
    """
    folder = cache_dir()
    if folder is None:
        return compute()
    digest = key(what, game, params, sources)[:40]
    path = folder / f"{what}-{getattr(game, 'id', 'game')}-{digest}.pickle"
    try:
        with path.open("rb") as fh:
            got: T = pickle.load(fh)
        return got
    except FileNotFoundError:
        pass
    except Exception:
        pass
    value = compute()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".pickle")
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        pass  # a read-only or full disk: the value is still right
    return value


__all__ = ["FORMAT", "cache_dir", "cached", "key"]
