"""Random streams: one root seed, an independent numpy stream per (entity, purpose).

Each stream is a PCG64 generator seeded by a ``SeedSequence`` whose spawn key is derived
from a stable hash of the entity id and purpose, so adding an entity never shifts the draws
of another (common random numbers across scenarios and rule changes).
"""

from __future__ import annotations

import hashlib

import numpy as np


def _key(entity: str, purpose: str) -> tuple[int, ...]:
    digest = hashlib.blake2b(f"{entity}\x1f{purpose}".encode(), digest_size=16).digest()
    return tuple(int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4))


class Streams:
    """Factory of independent, reproducible random generators."""

    def __init__(self, root_seed: int) -> None:
        if root_seed < 0:
            raise ValueError("root seed must be a non-negative integer")
        self.root_seed = root_seed
        self._cache: dict[tuple[str, str], np.random.Generator] = {}

    def seed_sequence(self, entity: str, purpose: str) -> np.random.SeedSequence:
        return np.random.SeedSequence(entropy=self.root_seed, spawn_key=_key(entity, purpose))

    def stream(self, entity: str, purpose: str) -> np.random.Generator:
        """The generator for (entity, purpose); the same object on every call."""
        k = (entity, purpose)
        gen = self._cache.get(k)
        if gen is None:
            gen = np.random.Generator(np.random.PCG64(self.seed_sequence(entity, purpose)))
            self._cache[k] = gen
        return gen

    def fresh(self, entity: str, purpose: str) -> np.random.Generator:
        """A new generator at the start of (entity, purpose), independent of the cached one."""
        return np.random.Generator(np.random.PCG64(self.seed_sequence(entity, purpose)))
