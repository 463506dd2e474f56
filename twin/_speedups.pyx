# cython: language_level=3, boundscheck=False, wraparound=False
"""Compiled kernels of the twin (issue 31): optional, built by ``python -m twin.speedups build``.

Each kernel here has a pure-Python twin that stays the reference: ``twin.speedups`` loads this
module only when it is built from this very source, and a test holds every kernel equal to its
reference and the ledger heads equal with and without it.

``SpawnMixer``: the PCG64 seed words of ``SeedSequence(entropy=root, spawn_key=key)`` for a
four-word key, as :class:`twin.streams._SpawnMixer` computes them in Python (numpy's
SeedSequence after M. E. O'Neill's seed_seq_fe: 32-bit hashes and mixes).

``SlotKernel``: a slot game's base or free-game kernel (``twin.machines.engine.batched``'s
``_Kernel`` and ``_Classes``, from the same tables) that plays, settles and tallies a chunk of
base games one game at a time, returning to Python at a stop or a feature trigger, and
evaluates and tallies blocks of free games; ``BatchedEngine`` uses it when it is built.
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


# ---------------------------------------------------------------------------------------------
# SlotKernel: the base games of a stretch, one game at a time in C (batched.py's numpy path
# is the reference)
# ---------------------------------------------------------------------------------------------

from libc.stdint cimport int32_t, int64_t, uint64_t

import numpy as np

# the stretch's state, an int64 array shared with batched.py (the same numbers there)
cdef enum:
    S_AFTER = 0  # the balance less the threshold (a game is played while 0 <= it < span)
    S_SPAN = 1  # the goal less the threshold
    S_WAGER = 2
    S_BET = 3
    S_LOCK = 4  # a win at or above it locks the machine
    S_WON = 5  # credits won onto the meter
    S_GAMES_WON = 6
    S_CREDITS = 7  # credits of the games played (locking wins included): the tally's
    S_FIRST_WON = 8
    S_LAST_WON = 9
    S_WIN = 10  # the game stopped at: its win in credits (base only at a feature)
    S_SPINS = 11  # the game stopped at: its free spins
    S_PROG = 12  # the game stopped at: a progressive hit
    S_AT = 13  # the game stopped at (or n: the chunk was played out)
    S_SIZE = 14

cdef enum:
    MAX_COLUMNS = 512  # the most columns of a game's code (lines and extras) the kernel takes

cdef enum:
    CHUNK = 0  # every game of the chunk played
    OUT = 1  # before game S_AT, the balance left [threshold, goal): not played
    LOCKED = 2  # game S_AT played and locked the machine (its wager taken)
    FEATURE = 3  # game S_AT evaluated and tallied, not settled: it triggered a feature

STATE_SIZE = S_SIZE
STATE_FIELDS = ("after", "span", "wager", "bet", "lock", "won", "games_won", "credits",
                "first_won", "last_won", "win", "spins", "prog", "at")
STATUS = {"chunk": CHUNK, "out": OUT, "locked": LOCKED, "feature": FEATURE}


def _i32(a):
    """``a`` as int32 (codes: indices into a pay table, which never nears 2**31 entries)."""
    a = np.asarray(a).reshape(-1)
    if a.size and (a.min() < -2**31 or a.max() >= 2**31):
        raise ValueError("codes beyond int32")
    return np.ascontiguousarray(a, dtype=np.int32).copy()


def _i64(a):
    return np.ascontiguousarray(np.asarray(a).reshape(-1), dtype=np.int64).copy()


cdef class SlotKernel:
    """``twin.machines.engine.batched._Kernel`` in C, built from its tables by ``batched.py``.

    ``play`` (base games): the kernel fused with the settling and tallying of
    ``BatchedEngine.play``: it plays the games of a chunk one at a time from game ``at`` and
    returns at the first stop or feature trigger (see the S_* and status numbers above).
    ``evaluate`` (free games): a block of games' wins, spins, stops and classes, as
    ``_Kernel.evaluate`` and ``_Classes.upto`` give them; ``tally`` adds rows of these.
    """

    # the tables (kept here) and raw pointers into them (for the loops)
    cdef object keep
    cdef const int64_t* flat  # stop per floor(u * total) + offset
    cdef const int64_t* offsets
    cdef const double* totals
    cdef const int64_t* tally_offsets  # where a draw's stop counts start in the tally
    cdef const int32_t* tab  # the blocks' tables, end to end (rows of ncols)
    cdef const int64_t* bstart  # a block's first row in tab
    cdef const int64_t* bfirst  # a block's first reel in breels
    cdef const int64_t* breels
    cdef const int64_t* bradix
    cdef const int64_t* pay
    cdef const unsigned char* prog
    cdef const int64_t* classes  # the line pay classes (sorted)
    cdef Py_ssize_t draws, nblocks, ncols, lines, nclasses, ncls
    cdef Py_ssize_t scatter_col, trigger_col
    cdef int64_t scatter_add, trigger_at, awarded, mult
    cdef bint table, has_prog

    def __init__(self, flat, offsets, totals, tally_offsets, blocks, pay, prog, classes,
                 int lines, scatter, spins, int trigger, int mult, bint table):
        tables, starts, firsts, reels, radix = [], [], [], [], []
        at = 0
        ncols = 1
        for group, rad, table_ in blocks:
            ncols = table_.shape[1]
            starts.append(at)
            firsts.append(len(reels))
            reels.extend(group)
            radix.extend(rad)
            tables.append(table_.reshape(-1))
            at += table_.shape[0]
        firsts.append(len(reels))
        keep = {
            "flat": _i64(flat), "offsets": _i64(offsets),
            "totals": np.ascontiguousarray(totals, dtype=np.float64).copy(),
            "tally_offsets": _i64(tally_offsets),
            "tab": _i32(np.concatenate(tables) if tables else [0]),
            "bstart": _i64(starts + [at]), "bfirst": _i64(firsts),
            "breels": _i64(reels + [0]), "bradix": _i64(radix + [0]),
            "pay": _i64(pay),
            "prog": (np.zeros(1, np.uint8) if prog is None
                     else np.ascontiguousarray(prog, dtype=np.uint8).copy()),
            "classes": _i64(list(classes) + [0]),
        }
        self.keep = keep
        self.flat = _ptr(keep["flat"])
        self.offsets = _ptr(keep["offsets"])
        cdef const double[::1] totals_ = keep["totals"]
        self.totals = &totals_[0]
        self.tally_offsets = _ptr(keep["tally_offsets"])
        cdef const int32_t[::1] tab_ = keep["tab"]
        self.tab = &tab_[0]
        self.bstart = _ptr(keep["bstart"])
        self.bfirst = _ptr(keep["bfirst"])
        self.breels = _ptr(keep["breels"])
        self.bradix = _ptr(keep["bradix"])
        self.pay = _ptr(keep["pay"])
        cdef const unsigned char[::1] prog_ = keep["prog"]
        self.prog = &prog_[0]
        self.classes = _ptr(keep["classes"])
        self.draws = len(offsets)
        self.nblocks = len(starts)
        self.ncols = ncols
        self.lines = lines
        self.nclasses = len(classes)
        self.table = table
        self.has_prog = prog is not None
        self.mult = mult
        self.scatter_col, self.scatter_add = (-1, 0) if scatter is None else scatter
        self.trigger_col = trigger
        self.trigger_at, self.awarded = (0, 0) if spins is None else spins
        self.ncls = 0 if table else (1 if scatter is None else 2)
        if ncols > MAX_COLUMNS:
            raise ValueError(f"more than {MAX_COLUMNS} columns of code")

    @property
    def classes_per_game(self):
        """The combination classes of a game: 1 or 2 (0 for a table game)."""
        return self.ncls

    cdef inline Py_ssize_t _class_of(self, int64_t pay) noexcept nogil:
        # searchsorted(classes, pay, "left")
        cdef Py_ssize_t lo = 0, hi = self.nclasses, mid
        while lo < hi:
            mid = (lo + hi) >> 1
            if self.classes[mid] < pay:
                lo = mid + 1
            else:
                hi = mid
        return lo

    cdef int64_t _game(self, const double* g, int64_t* stops, int64_t* cls, int64_t* spins,
                       bint* prog) noexcept nogil:
        """One game of uniforms ``g``: its win units (returned), stops, classes, free spins
        and progressive hit."""
        cdef Py_ssize_t d, b, c, k, row
        cdef Py_ssize_t ncols = self.ncols, lines = self.lines, nblocks = self.nblocks
        cdef int64_t units = 0, best, v
        cdef int32_t code[MAX_COLUMNS]  # locals: the compiler keeps them apart from self
        cdef int64_t paid[MAX_COLUMNS]
        cdef const int32_t* tab = self.tab
        cdef const int32_t* trow
        cdef const int64_t* pay = self.pay
        cdef const int64_t* bfirst = self.bfirst
        cdef const int64_t* breels = self.breels
        cdef const int64_t* bradix = self.bradix
        cdef const int64_t* flat = self.flat
        cdef const int64_t* offsets = self.offsets
        cdef const double* totals = self.totals
        cdef const unsigned char* progs = self.prog
        cdef bint hit = False
        for d in range(self.draws):
            stops[d] = flat[<int64_t>(g[d] * totals[d]) + offsets[d]]
        spins[0] = 0
        if self.table:
            prog[0] = self.has_prog and progs[stops[0]] != 0
            return pay[stops[0]] * self.mult
        for b in range(nblocks):
            row = self.bstart[b]
            for k in range(bfirst[b], bfirst[b + 1]):
                row += stops[breels[k]] * bradix[k]
            trow = &tab[row * ncols]
            if b == 0:
                for c in range(ncols):
                    code[c] = trow[c]
            else:
                for c in range(ncols):
                    code[c] += trow[c]
        for c in range(ncols):
            v = pay[code[c]]
            paid[c] = v
            units += v
        if self.has_prog:
            for c in range(ncols):
                if progs[code[c]] != 0:
                    hit = True
        prog[0] = hit
        if self.trigger_col >= 0 and code[self.trigger_col] >= self.trigger_at:
            spins[0] = self.awarded
        units *= self.mult
        # the combination classes: the best line's pay class (a game that won nothing: 0),
        # then the scatter count's
        if lines == 1:
            cls[0] = self._class_of(paid[0])
        elif units != 0:
            best = paid[0]
            for c in range(1, lines):
                if paid[c] > best:
                    best = paid[c]
            cls[0] = self._class_of(best)
        else:
            cls[0] = 0
        if self.scatter_col >= 0:
            cls[1] = code[self.scatter_col] + self.scatter_add
        return units

    def play(self, const double[::1] u, Py_ssize_t at, Py_ssize_t n, int64_t[::1] st,
             int64_t[::1] counts, int64_t[::1] class_counts, int64_t[::1] transitions,
             bint settle):
        """Play games ``at`` to ``n`` of the chunk ``u`` (``n`` games of ``draws`` uniforms),
        settling game ``at`` first with ``st[S_WIN]`` and ``st[S_PROG]`` if ``settle`` (a
        game whose feature was played); the status, and ``st`` updated."""
        cdef Py_ssize_t i = at, d, c
        cdef Py_ssize_t r = self.draws, ncls = self.ncls
        cdef int64_t after = st[S_AFTER], won_meter = st[S_WON], games_won = st[S_GAMES_WON]
        cdef int64_t credits = st[S_CREDITS], first = st[S_FIRST_WON], last = st[S_LAST_WON]
        cdef uint64_t span = <uint64_t>st[S_SPAN]
        cdef int64_t wager = st[S_WAGER], bet = st[S_BET], lock = st[S_LOCK]
        cdef int64_t win = st[S_WIN], spins = 0
        cdef bint prog = st[S_PROG] != 0, won
        cdef int status = CHUNK
        cdef int64_t stops[64]
        cdef int64_t cls[2]
        cdef int64_t* cnt = &counts[0]
        cdef int64_t* ccnt = &class_counts[0] if class_counts.shape[0] else NULL
        if r > 64:
            raise ValueError("a game of more than 64 draws")
        if u.shape[0] < n * r:
            raise ValueError("fewer uniforms than games")
        with nogil:
            while True:
                if settle:
                    settle = False
                else:
                    if i >= n:
                        break
                    if <uint64_t>after >= span:
                        status = OUT
                        break
                    win = self._game(&u[i * r], stops, cls, &spins, &prog) * bet
                    for d in range(r):
                        cnt[self.tally_offsets[d] + stops[d]] += 1
                    for c in range(ncls):
                        ccnt[cls[c]] += 1
                    if spins:
                        status = FEATURE
                        break
                # settle game i
                won = win > 0 or prog
                games_won += won
                credits += win
                if last >= 0:
                    transitions[2 * last + won] += 1
                if first < 0:
                    first = won
                last = won
                if prog or win >= lock:
                    after -= wager
                    status = LOCKED
                    break
                after += win - wager
                won_meter += win
                i += 1
        st[S_AFTER] = after
        st[S_WON] = won_meter
        st[S_GAMES_WON] = games_won
        st[S_CREDITS] = credits
        st[S_FIRST_WON] = first
        st[S_LAST_WON] = last
        st[S_WIN] = win
        st[S_SPINS] = spins
        st[S_PROG] = prog
        st[S_AT] = i
        return status

    def evaluate(self, const double[::1] u, Py_ssize_t n):
        """``(win units, free spins)`` as lists, and the stops ``(n, draws)`` and classes
        ``(n, 1 or 2)`` (None for a table game) of the ``n`` games ``u``."""
        cdef Py_ssize_t i, r = self.draws, ncls = self.ncls
        stops_ = np.empty((n, r), np.int64)
        classes_ = np.empty((n, max(ncls, 1)), np.int64)
        units_ = np.empty(n, np.int64)
        spins_ = np.empty(n, np.int64)
        cdef int64_t[:, ::1] stops = stops_
        cdef int64_t[:, ::1] classes = classes_
        cdef int64_t[::1] units = units_
        cdef int64_t[::1] spins = spins_
        cdef bint prog
        if u.shape[0] < n * r:
            raise ValueError("fewer uniforms than games")
        if n:
            with nogil:
                for i in range(n):
                    units[i] = self._game(&u[i * r], &stops[i, 0], &classes[i, 0], &spins[i],
                                          &prog)
        return units_.tolist(), spins_.tolist(), stops_, (classes_ if ncls else None)

    def tally(self, const int64_t[:, ::1] stops, classes, int64_t[::1] counts,
              int64_t[::1] class_counts):
        """Add the stops ``(n, draws)`` of games (and their classes, unless None) to the
        counts (a tally's, laid out as ``tally_offsets`` says)."""
        cdef Py_ssize_t i, d, c, r = self.draws
        cdef const int64_t[:, :] cls
        if stops.shape[1] != r:
            raise ValueError("stops of another game")
        for i in range(stops.shape[0]):
            for d in range(r):
                counts[self.tally_offsets[d] + stops[i, d]] += 1
        if classes is not None:
            cls = classes
            for i in range(cls.shape[0]):
                for c in range(cls.shape[1]):
                    class_counts[cls[i, c]] += 1


cdef const int64_t* _ptr(object a):
    cdef const int64_t[::1] view = a
    return &view[0]
