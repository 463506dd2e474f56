"""The switches of a misbehaving SMIB emulator (``twin smib emulate --misbehave``).

Per-message probabilities (drop, duplicate, reorder, delay), one-shot orders for tests
(``*_next``), and the failures of issue 29 a SMIB link must survive without losing an event
silently: a board that holds few events (``keep``), events whose first sending is lost
(``drop_eids``), a slow board (``cmd_delay``), a board restored from a backup of its state
(``regress_at``/``regress_to``) and a forged event (``phantom_at``/``phantom_bytes``).
"""

from __future__ import annotations

import functools
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from twin.hardware.netloop import NetLoop

#: keys whose value is a whole number >= 1
_WHOLE = (
    "reset_at",
    "die_at",
    "skew",
    "short_credit",
    "keep",
    "regress_at",
    "regress_to",
    "phantom_at",
    "phantom_bytes",
)
#: keys whose value is a probability (0..1), or (delay) a number of seconds >= 0
_NUMBERS = ("drop", "duplicate", "reorder", "delay")
#: every key, as the help and the errors list them
KEYS = (
    "drop, duplicate, reorder, delay, reset_at, die_at, skew, short_credit, keep, drop_eids, "
    "cmd_delay, regress_at, regress_to, phantom_at or phantom_bytes"
)


@dataclass
class Misbehaviour:
    """Switches for a misbehaving SMIB: probabilities per message, and one-shot orders.

    ``drop``/``duplicate``/``reorder`` are per-message probabilities (a reordered message is
    held back and sent after the next one); ``delay`` is the most seconds a message may wait.
    The ``*_next`` counters act on the next messages of a topic leaf ("evt", "meters", ...).
    ``keep=N`` holds only the last N events for replay; ``drop_eids`` = (A, B) loses the first
    sending of events A..B (a replay of them is sent); ``cmd_delay=S`` handles every command
    S seconds after it arrived (in order; one that expired meanwhile is answered
    ``expired``). In a bench (:func:`twin.hardware.bench.run_bench`), ``reset_at=N`` clears
    the meters after the N-th activity, ``die_at=N`` cuts the power after it (no clean
    disconnect: the will fires), ``regress_at=N`` cuts the power at the N-th activity and
    brings the board back from a backup of its state taken after activity ``regress_to``
    (default N // 2), and ``phantom_at=N`` sends a forged event of ``phantom_bytes`` bytes
    after activity N under the next eid (which the next real event then reuses).
    """

    drop: float = 0.0
    duplicate: float = 0.0
    reorder: float = 0.0
    delay: float = 0.0
    reset_at: int = 0
    die_at: int = 0
    skew: int = 0  # a miscounting machine: each stretch of games adds this to coin-in, unsaid
    short_credit: int = 0  # a bill acceptor that credits this many credits less per bill
    keep: int = 0  # 0: the emulator's own keep_events
    drop_eids: tuple[int, int] | None = None
    cmd_delay: float = 0.0
    regress_at: int = 0
    regress_to: int = 0  # 0: regress_at // 2
    phantom_at: int = 0
    phantom_bytes: int = 2_000_000
    drop_next: Counter[str] = field(default_factory=Counter)
    duplicate_next: Counter[str] = field(default_factory=Counter)
    hold_next: Counter[str] = field(default_factory=Counter)

    @property
    def backup_at(self) -> int:
        """The activity after which a regressing board's backup is taken (0: none)."""
        if not self.regress_at:
            return 0
        return self.regress_to or self.regress_at // 2

    def drops_eid(self, eid: int) -> bool:
        """Whether the first sending of event ``eid`` is lost."""
        return self.drop_eids is not None and self.drop_eids[0] <= eid <= self.drop_eids[1]

    def fate(self, leaf: str, rng: np.random.Generator) -> tuple[int, bool]:
        """How many copies of the next message on ``leaf`` go out (0: it is lost), and
        whether they are held back (sent after the next message that is not)."""
        if self.drop_next[leaf] > 0 or (self.drop and rng.random() < self.drop):
            self.drop_next[leaf] = max(0, self.drop_next[leaf] - 1)
            return 0, False
        copies = 1
        if self.duplicate_next[leaf] > 0 or (self.duplicate and rng.random() < self.duplicate):
            self.duplicate_next[leaf] = max(0, self.duplicate_next[leaf] - 1)
            copies = 2
        if self.hold_next[leaf] > 0 or (self.reorder and rng.random() < self.reorder):
            self.hold_next[leaf] = max(0, self.hold_next[leaf] - 1)
            return copies, True
        return copies, False

    @classmethod
    def parse(cls, text: str) -> Misbehaviour:
        """``drop=0.05,duplicate=0.02,reorder=0.02,delay=0.2,reset_at=50,die_at=80,skew=1``,
        ``keep=3,drop_eids=60-61,cmd_delay=2.5,regress_at=40,regress_to=10,phantom_at=5``;
        ValueError naming the key, what was expected and what was found."""
        out = cls()
        seen: set[str] = set()
        for item in filter(None, (t.strip() for t in text.split(","))):
            key, _, value = item.partition("=")
            seen.add(key)
            if key in _WHOLE:
                if not value.isdigit() or int(value) < 1:
                    raise ValueError(f"{key}: expected a whole number >= 1, found {value!r}")
                setattr(out, key, int(value))
            elif key == "drop_eids":
                out.drop_eids = _eid_range(value)
            elif key == "cmd_delay":
                out.cmd_delay = _seconds(key, value)
            elif key in _NUMBERS:
                try:
                    number = float(value)
                except ValueError:
                    raise ValueError(f"{key}: expected a number, found {value!r}") from None
                if number < 0 or (key != "delay" and number > 1):
                    raise ValueError(f"{key}: expected 0..1, found {value}")
                setattr(out, key, number)
            else:
                raise ValueError(f"{item!r}: expected {KEYS}=<value>")
        if "regress_to" in seen and not out.regress_at:
            raise ValueError("regress_to: expected with regress_at=N, found no regress_at")
        if out.regress_at and out.regress_at < 2:
            raise ValueError(f"regress_at: expected a whole number >= 2, found '{out.regress_at}'")
        if out.regress_to and out.regress_to >= out.regress_at:
            raise ValueError(
                f"regress_to: expected 1 <= M < regress_at ({out.regress_at}), "
                f"found '{out.regress_to}'"
            )
        if "phantom_bytes" in seen and not out.phantom_at:
            raise ValueError("phantom_bytes: expected with phantom_at=N, found no phantom_at")
        return out


class LateQueue:
    """Payloads handled ``delay`` seconds after they came, in the order they came (a slow
    board's commands): in a bench's network loop, or in a thread of its own."""

    def __init__(self, name: str, handle: Callable[[bytes], None]) -> None:
        self._name = name
        self._handle = handle
        self._queue: deque[tuple[float, bytes]] = deque()
        self._ready = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False

    def put(self, payload: bytes, delay: float, net: NetLoop | None = None) -> None:
        due = time.monotonic() + delay
        if net is not None:  # the loop runs calls due at the same time in the order made
            net.call_at(due, functools.partial(self._handle, payload))
            return
        with self._ready:
            self._queue.append((due, payload))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._ready.notify()

    def _run(self) -> None:
        while True:
            with self._ready:
                if self._closed:
                    return
                if not self._queue:
                    self._ready.wait()
                    continue
                wait = self._queue[0][0] - time.monotonic()
                if wait > 0:
                    self._ready.wait(wait)
                    continue
                _, payload = self._queue.popleft()
            self._handle(payload)

    def close(self) -> None:
        """Forget what waits; the thread ends."""
        with self._ready:
            self._closed = True
            self._queue.clear()
            self._ready.notify()


def _eid_range(value: str) -> tuple[int, int]:
    """``A-B`` or ``A`` (event ids >= 1, A <= B)."""
    first, dash, last = value.partition("-")
    last = last if dash else first
    if not (first.isdigit() and last.isdigit()) or int(first) < 1 or int(last) < int(first):
        raise ValueError(f"drop_eids: expected A-B or A (event ids, 1 <= A <= B), found {value!r}")
    return int(first), int(last)


def _seconds(key: str, value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{key}: expected a number of seconds > 0, found {value!r}") from None
    if not number > 0 or number == float("inf"):
        raise ValueError(f"{key}: expected a number of seconds > 0, found {value!r}")
    return number


__all__ = ["KEYS", "LateQueue", "Misbehaviour"]
