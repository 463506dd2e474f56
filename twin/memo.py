"""Values derived from an object, computed once per object (kept while the object lives).

Games, win laws and other frozen inputs are not hashable cheaply (numpy arrays inside), so
what is derived from them (kernels, layouts, split supports) is cached by the object's
identity. The cache holds the object itself beside the value, so its ``id`` cannot be
reused by another object while the entry exists; it is bounded and cleared when full.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class PerObject(Generic[K, V]):
    """``get(obj)``: ``derive(obj)``, computed on the first ask for that very object."""

    def __init__(self, derive: Callable[[K], V], *, size: int = 64) -> None:
        self._derive = derive
        self._size = size
        self._hits: dict[int, tuple[K, V]] = {}

    def get(self, obj: K) -> V:
        hit = self._hits.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        value = self._derive(obj)
        if len(self._hits) >= self._size:
            self._hits.clear()
        self._hits[id(obj)] = (obj, value)
        return value


__all__ = ["PerObject"]
