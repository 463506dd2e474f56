# cython: language_level=3, boundscheck=False, wraparound=False
"""Compiled kernels of the twin (issue 31): optional, built by ``python -m twin.speedups build``.

Each kernel here has a pure-Python twin that stays the reference: ``twin.speedups`` loads this
module only when it is built from this very source, and a test holds every kernel equal to its
reference and the ledger heads equal with and without it.

``SpawnMixer``: the PCG64 seed words of ``SeedSequence(entropy=root, spawn_key=key)`` for a
four-word key, as :class:`twin.streams._SpawnMixer` computes them in Python (numpy's
SeedSequence after M. E. O'Neill's seed_seq_fe: 32-bit hashes and mixes).
"""

from libc.stdint cimport uint32_t

import struct

cdef uint32_t INIT_A = 0x43B0D7E5
cdef uint32_t MULT_A = 0x931E8875
cdef uint32_t INIT_B = 0x8B51F9DD
cdef uint32_t MULT_B = 0x58F38DED
cdef uint32_t MIX_L = 0xCA01F9DD
cdef uint32_t MIX_R = 0x4973F715

_PACK8 = struct.Struct("<8I").pack


cdef inline uint32_t _mix(uint32_t x, uint32_t y):
    cdef uint32_t r = MIX_L * x - MIX_R * y
    return r ^ (r >> 16)


cdef class SpawnMixer:
    """``seed_bytes(key)``: the 32 bytes of ``generate_state(4, uint64)`` (little-endian) of
    the seed sequence of ``root`` and a spawn key of exactly four 32-bit words."""

    cdef uint32_t pool[4]
    cdef uint32_t hc  # the hash constant after the root's words

    def __init__(self, root):
        if root < 0:
            raise ValueError("root seed must be a non-negative integer")
        words = [root & 0xFFFFFFFF]
        root >>= 32
        while root:
            words.append(root & 0xFFFFFFFF)
            root >>= 32
        words += [0] * (4 - len(words))
        cdef uint32_t hc = INIT_A
        cdef uint32_t v
        cdef int src, dst
        cdef uint32_t pool[4]
        for dst in range(4):
            v = <uint32_t>words[dst]
            v ^= hc
            hc = hc * MULT_A
            v = v * hc
            pool[dst] = v ^ (v >> 16)
        for src in range(4):
            for dst in range(4):
                if src != dst:
                    v = pool[src] ^ hc
                    hc = hc * MULT_A
                    v = v * hc
                    pool[dst] = _mix(pool[dst], v ^ (v >> 16))
        for w in words[4:]:
            for dst in range(4):
                v = <uint32_t>w ^ hc
                hc = hc * MULT_A
                v = v * hc
                pool[dst] = _mix(pool[dst], v ^ (v >> 16))
        for dst in range(4):
            self.pool[dst] = pool[dst]
        self.hc = hc

    def seed_bytes(self, key):
        cdef uint32_t w[4]
        cdef uint32_t p[4]
        cdef uint32_t o[8]
        cdef uint32_t hc = self.hc
        cdef uint32_t v
        cdef int j, d, i
        w[0], w[1], w[2], w[3] = key
        for d in range(4):
            p[d] = self.pool[d]
        for j in range(4):
            for d in range(4):
                v = w[j] ^ hc
                hc = hc * MULT_A
                v = v * hc
                p[d] = _mix(p[d], v ^ (v >> 16))
        cdef uint32_t hb = INIT_B
        for i in range(8):
            v = p[i % 4] ^ hb
            hb = hb * MULT_B
            v = v * hb
            o[i] = v ^ (v >> 16)
        return _PACK8(o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7])
