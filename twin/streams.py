"""Random streams: one root seed, an independent numpy stream per (entity, purpose).

Each stream is a PCG64 generator seeded by a ``SeedSequence`` whose spawn key is derived
from a stable hash of the entity id and purpose, so adding an entity never shifts the draws
of another (common random numbers across scenarios and rule changes).

Streams created very often and used briefly (a patron's visit) come from :meth:`Streams.keyed`
instead: PCG64 seeded straight from a 256-bit BLAKE2b hash of (root seed, entity, purpose), its
state and increment taken from the digest. It is as independent per (entity, purpose) as the
``SeedSequence`` streams (a different hash, a different state and a different PCG stream
increment) and about ten times cheaper to create, but it is a different sequence from
``stream``/``fresh`` of the same names.
"""

from __future__ import annotations

import hashlib
import struct
import sys
from collections.abc import Callable
from typing import Any, cast

import numpy as np
import numpy.typing as npt
from numpy.random.bit_generator import ISeedSequence

from twin import speedups


def _digest(entity: str, purpose: str) -> bytes:
    return hashlib.blake2b(f"{entity}\x1f{purpose}".encode(), digest_size=16).digest()


def _key(entity: str, purpose: str) -> tuple[int, ...]:
    """The spawn key: the digest's four little-endian 32-bit words."""
    return struct.unpack("<4I", _digest(entity, purpose))


# numpy's SeedSequence (after M. E. O'Neill's seed_seq_fe): its hash and mix constants
_M32 = 0xFFFFFFFF
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715


def _words32(n: int) -> list[int]:
    """``n`` as SeedSequence reads an int: 32-bit words, least significant first (0: [0])."""
    out = [n & _M32]
    n >>= 32
    while n:
        out.append(n & _M32)
        n >>= 32
    return out


class _SpawnMixer:
    """The PCG64 seed words of ``SeedSequence(entropy=root, spawn_key=k)`` for a four-word
    key ``k``, computed without building the sequence (about half the cost).

    SeedSequence hashes its entropy words (the root's words padded with zeros to the pool
    size of 4, then the key's words) into a pool of four 32-bit words, each hash with the
    next of a fixed sequence of multipliers, and PCG64 asks the pool for 4 64-bit words.
    Everything up to the key's words depends only on the root, so it is done once here;
    per key, 16 hashes and mixes and the 8 output words are left (``seed_bytes``). A test
    holds the result equal to numpy's for many keys and roots (zero words included)."""

    __slots__ = ("seed_bytes",)

    def __init__(self, root: int) -> None:
        hc = _INIT_A

        def hashmix(value: int) -> int:
            nonlocal hc
            value ^= hc
            hc = (hc * _MULT_A) & _M32
            value = (value * hc) & _M32
            return value ^ (value >> 16)

        run = _words32(root)
        run += [0] * (4 - len(run))
        pool = [hashmix(w) for w in run[:4]]
        for src in range(4):
            for dst in range(4):
                if src != dst:
                    pool[dst] = _mix(pool[dst], hashmix(pool[src]))
        for w in run[4:]:
            for dst in range(4):
                pool[dst] = _mix(pool[dst], hashmix(w))
        # what is left per key, written out with this root's pool and constants inlined
        # (a third faster than a loop over them): the key's 4 words each hashed into every
        # pool word, then generate_state(4, uint64), 8 words cycling over the pool
        lines = ["def seed_bytes(key):", "    w0, w1, w2, w3 = key"]
        lines += [f"    p{d} = {pool[d]}" for d in range(4)]
        for j in range(4):
            for d in range(4):
                xor = hc
                hc = (hc * _MULT_A) & _M32
                lines += [
                    f"    v = ((w{j} ^ {xor}) * {hc}) & {_M32}",
                    f"    r = ({_MIX_L} * p{d} - {_MIX_R} * (v ^ (v >> 16))) & {_M32}",
                    f"    p{d} = r ^ (r >> 16)",
                ]
        hb = _INIT_B
        for i in range(8):
            xor = hb
            hb = (hb * _MULT_B) & _M32
            lines.append(f"    o{i} = ((p{i % 4} ^ {xor}) * {hb}) & {_M32}")
        words = ", ".join(f"o{i} ^ (o{i} >> 16)" for i in range(8))
        lines.append(f"    return pack({words})")
        scope: dict[str, Any] = {"pack": _PACK8}
        exec("\n".join(lines), scope)
        #: ``seed_bytes(key)``: the 32 bytes of ``generate_state(4, uint64)``
        #: (little-endian) for a spawn key of exactly four 32-bit words
        self.seed_bytes: Callable[[tuple[int, ...]], bytes] = scope["seed_bytes"]


def _mix(x: int, y: int) -> int:
    r = (_MIX_L * x - _MIX_R * y) & _M32
    return r ^ (r >> 16)


_PACK8 = struct.Struct("<8I").pack
#: native words are little-endian: a digest's bytes are its words as they are
_LITTLE = sys.byteorder == "little"
_Generator = np.random.Generator
_PCG64 = np.random.PCG64


class _Digest(ISeedSequence):
    """A seed sequence whose state words are the bytes of a hash digest (no mixing needed)."""

    __slots__ = ("_bytes",)

    def __init__(self, digest: bytes) -> None:
        self._bytes = digest

    def generate_state(
        self, n_words: int, dtype: Any = np.uint32
    ) -> npt.NDArray[np.uint32 | np.uint64]:
        if dtype is np.uint64 and n_words * 8 == len(self._bytes) and _LITTLE:
            # what PCG64 asks (4 words of a 32-byte digest): the bytes as they are, read-only
            # (PCG64 only reads them), without the byte-order conversion and copy below
            whole: npt.NDArray[np.uint64] = np.frombuffer(self._bytes, dtype=np.uint64)
            return whole
        size = np.dtype(dtype).itemsize * n_words
        if size > len(self._bytes):
            raise ValueError(f"a digest of {len(self._bytes)} bytes cannot give {size} bytes")
        # little-endian words whatever the platform, so a seed gives the same draws everywhere
        little = np.frombuffer(self._bytes, dtype=np.dtype(dtype).newbyteorder("<"), count=n_words)
        words: npt.NDArray[np.uint32 | np.uint64] = little.astype(dtype)
        return words


class Streams:
    """Factory of independent, reproducible random generators."""

    def __init__(self, root_seed: int) -> None:
        if root_seed < 0:
            raise ValueError("root seed must be a non-negative integer")
        self.root_seed = root_seed
        self._cache: dict[tuple[str, str], np.random.Generator] = {}
        kernels = speedups.load()  # the compiled mixer where it is built (the same words)
        self._mixer = kernels.SpawnMixer(root_seed) if kernels else _SpawnMixer(root_seed)

    def seed_sequence(self, entity: str, purpose: str) -> np.random.SeedSequence:
        return np.random.SeedSequence(entropy=self.root_seed, spawn_key=_key(entity, purpose))

    def stream(self, entity: str, purpose: str) -> np.random.Generator:
        """The generator for (entity, purpose); the same object on every call."""
        k = (entity, purpose)
        gen = self._cache.get(k)
        if gen is None:
            gen = self.fresh(entity, purpose)
            self._cache[k] = gen
        return gen

    def fresh(self, entity: str, purpose: str) -> np.random.Generator:
        """A new generator at the start of (entity, purpose), independent of the cached one.

        The same generator as ``PCG64(seed_sequence(entity, purpose))``: its seed words are
        computed by :class:`_SpawnMixer`, or its compiled twin (:mod:`twin.speedups`; tests hold
        the three equal)."""
        seed = _Digest(self._mixer.seed_bytes(_key(entity, purpose)))
        return _Generator(_PCG64(cast(np.random.SeedSequence, seed)))

    def keyed(self, entity: str, purpose: str) -> np.random.Generator:
        """A new generator for (entity, purpose), seeded straight from a hash (cheap).

        PCG64 whose 128-bit state and 128-bit increment are the 32 bytes of
        ``blake2b(f"{root_seed}\\x1f{entity}\\x1f{purpose}", digest_size=32)``: one
        independent, reproducible stream per (seed, entity, purpose), not the same sequence
        as :meth:`stream`/:meth:`fresh` of those names.
        """
        text = f"{self.root_seed}\x1f{entity}\x1f{purpose}".encode()
        digest = hashlib.blake2b(text, digest_size=32).digest()
        # numpy: "BitGenerator implementations should treat any object that adheres to this
        # interface [ISeedSequence] as a seed sequence" (its stubs only name SeedSequence)
        seed = cast(np.random.SeedSequence, _Digest(digest))
        return np.random.Generator(np.random.PCG64(seed))
