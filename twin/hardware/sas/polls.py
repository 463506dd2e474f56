"""SAS 6.02 poll framing and code tables: poll lengths, priority exceptions, denominations.

Nothing here does I/O. The long poll lengths are those the gaming machine needs to find the
end of a poll on the line (``SasGamingMachine.poll_length``); a command not listed is framed
as a type R poll (address and command, 2 bytes) and the line resynchronises on the next byte
that carries the wakeup bit.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

#: The bit a general poll sets on the address byte (``0x80 | address``); on a reply, a NACK.
GENERAL_POLL_BIT = 0x80

#: Type R long polls: address and command, no CRC (SAS 6.02 section 2.2.2.1).
TYPE_R: frozenset[int] = frozenset(
    {0x0F, *range(0x10, 0x21), 0x2A, 0x2B, 0x2C, *range(0x31, 0x4B), 0x4F}
    | {0x51, 0x54, 0x55, 0x56, 0x57, 0x70, 0x7E, 0x84, 0x85, 0x87, 0x8E, 0x8F, 0x90}
    | {0xB1, 0xB2, 0xB3}
)

#: Fixed-length type S, M and G long polls: total length, CRC included.
FIXED_LENGTHS: dict[int, int] = {
    0x01: 4,  # shutdown (lock out play)
    0x02: 4,  # startup (enable play)
    0x03: 4,  # sound off
    0x04: 4,  # sound on
    0x05: 4,  # reel spin / game play sounds disabled
    0x06: 4,  # enable bill acceptor
    0x07: 4,  # disable bill acceptor
    0x08: 9,  # configure bill denominations: 4 binary + 1 action flag
    0x09: 7,  # enable/disable game N: 2 BCD game + 1 flag
    0x0A: 4,  # enter maintenance mode
    0x0B: 4,  # exit maintenance mode
    0x0E: 5,  # enable/disable real time event reporting: 1 flag
    0x21: 6,  # ROM signature verification: 2 binary seed
    0x2D: 6,  # total hand paid cancelled credits for game N: 2 BCD game
    0x2E: 6,  # delay game: 2 binary
    0x4C: 10,  # set secure enhanced validation ID: 3 + 3
    0x4D: 5,  # send enhanced validation information: 1 function code
    0x50: 5,  # send validation meters: 1 type
    0x52: 6,  # send game N meters: 2 BCD game
    0x53: 6,  # send game N configuration: 2 BCD game
    0x58: 13,  # receive validation number: 1 + 8
    0x74: 8,  # AFT game lock and status request: 1 + 1 + 2
    0x7F: 11,  # receive date and time (type G): 4 BCD date + 3 BCD time
    0x80: 10,  # single level progressive broadcast (type G): 1 + 1 + 5
    0x83: 6,  # send cumulative progressive wins: 2 BCD game
    0x8A: 9,  # initiate a legacy bonus pay: 4 BCD + 1
    0x94: 4,  # remote handpay reset
    0x9A: 6,  # send legacy bonus meters: 2 BCD game
    0xA0: 6,  # send enabled features: 2 BCD game
    0xA4: 6,  # send cash out limit: 2 BCD game
    0xA8: 5,  # enable jackpot handpay reset method: 1
    0xAA: 5,  # enable/disable game auto rebet: 1
    0xB5: 6,  # send extended game N information: 2 BCD game
}

#: Long polls whose third byte is a length: total = 3 + length + 2 (CRC).
VARIABLE: frozenset[int] = frozenset(
    {0x2F, 0x6E, 0x6F, 0x72, 0x73, 0x75, 0x76, 0x7B, 0x7C, 0x7D, 0x86, 0xAF, 0xB0}
)


def long_poll_length(head: bytes) -> int | None:
    """The total length of the long poll starting with ``head`` (None: need more bytes)."""
    if len(head) < 2:
        return None
    command = head[1]
    if command in VARIABLE:
        return None if len(head) < 3 else 3 + head[2] + 2
    return FIXED_LENGTHS.get(command, 2)


#: Exceptions SAS 6.02 Appendix A marks priority (P) or queue-or-priority (Q/P, taken here as
#: priority): sent before any queued exception and never lost to a queue overflow.
PRIORITY_EXCEPTIONS: frozenset[int] = frozenset(
    {0x3D, 0x3E, 0x3F, 0x51, 0x52, 0x55, 0x56, 0x57, 0x67, 0x68, 0x69, 0x6A, 0x6B, 0x6C}
    | {0x6D, 0x6F, 0x70, 0x8F}
)

BUFFER_OVERFLOW = 0x70
NO_ACTIVITY = 0x00

#: The FIFO capacity: SAS 6.02 section 2.2.1 asks for at least 20 elements.
QUEUE_CAPACITY = 20


@dataclass(frozen=True, slots=True)
class Pending:
    """The exception a general poll would send now: ``serial`` 0 for a priority one."""

    code: int
    serial: int


class ExceptionQueue:
    """The gaming machine's exceptions: a FIFO of ``capacity`` plus the priority exceptions.

    A priority exception waits at most once (raising it again while it waits does nothing)
    and is sent before any queued one, in the order raised. When the FIFO is full, its oldest
    exception is lost and 0x70 (buffer overflow) is raised as a priority exception. Nothing
    leaves until the host acknowledges it (:meth:`remove`).
    """

    def __init__(self, capacity: int = QUEUE_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError(f"exception queue capacity must be at least 1, got {capacity}")
        self.capacity = capacity
        self._fifo: deque[Pending] = deque()
        self._priority: list[int] = []
        self._serial = 0
        self.lost = 0  # queued exceptions lost to overflow, ever
        #: called with each queued exception an overflow pushes out (before 0x70 is raised)
        self.on_overflow: Callable[[Pending], None] | None = None

    def raise_(self, code: int) -> Pending | None:
        """Queue ``code``; what a general poll will send for it (None: a priority exception
        already waiting, which this one joins)."""
        if not 0x01 <= code <= 0xFF:
            raise ValueError(f"SAS exception code must be 0x01..0xFF, got {code}")
        if code in PRIORITY_EXCEPTIONS:
            if code in self._priority:
                return None
            self._priority.append(code)
            return Pending(code, 0)
        if len(self._fifo) >= self.capacity:
            lost = self._fifo.popleft()
            self.lost += 1
            if self.on_overflow is not None:
                self.on_overflow(lost)
            self.raise_(BUFFER_OVERFLOW)
        self._serial += 1
        pending = Pending(code, self._serial)
        self._fifo.append(pending)
        return pending

    def peek(self) -> Pending | None:
        if self._priority:
            return Pending(self._priority[0], 0)
        return self._fifo[0] if self._fifo else None

    def remove(self, sent: Pending) -> None:
        """The host acknowledged ``sent``: it leaves (unless an overflow already took it)."""
        if sent.serial == 0:
            if sent.code in self._priority:
                self._priority.remove(sent.code)
            return
        for item in self._fifo:
            if item.serial == sent.serial:
                self._fifo.remove(item)
                return

    def waiting(self) -> list[int]:
        """The codes in the order general polls would send them."""
        return [*self._priority, *(p.code for p in self._fifo)]


#: SAS denomination codes (Table C-4, binary) by the denomination in cents.
DENOMINATION_CODES: dict[int, int] = {
    1: 0x01,
    5: 0x02,
    10: 0x03,
    25: 0x04,
    50: 0x05,
    100: 0x06,
    500: 0x07,
    1000: 0x08,
    2000: 0x09,
    10000: 0x0A,
    20: 0x0B,
    200: 0x0C,
    250: 0x0D,
    2500: 0x0E,
    5000: 0x0F,
    20000: 0x10,
    25000: 0x11,
    50000: 0x12,
    100000: 0x13,
    200000: 0x14,
    250000: 0x15,
    500000: 0x16,
    2: 0x17,
    3: 0x18,
    15: 0x19,
    40: 0x1A,
}

#: SAS bill denomination codes (Table C-6, sent as 1 BCD byte) by face value in units.
BILL_DENOMINATION_CODES: dict[int, int] = {
    1: 0,
    2: 1,
    5: 2,
    10: 3,
    20: 4,
    25: 5,
    50: 6,
    100: 7,
    200: 8,
    250: 9,
    500: 10,
    1000: 11,
    2000: 12,
    2500: 13,
    5000: 14,
    10000: 15,
    20000: 16,
    25000: 17,
    50000: 18,
    100000: 19,
}

#: The bill accepted exception by face value in units (0x4F: any other bill).
BILL_ACCEPTED_EXCEPTIONS: dict[int, int] = {
    1: 0x47,
    5: 0x48,
    10: 0x49,
    20: 0x4A,
    50: 0x4B,
    100: 0x4C,
    2: 0x4D,
    500: 0x4E,
    200: 0x50,
}
BILL_ACCEPTED_OTHER = 0x4F

__all__ = [
    "BILL_ACCEPTED_EXCEPTIONS",
    "BILL_ACCEPTED_OTHER",
    "BILL_DENOMINATION_CODES",
    "BUFFER_OVERFLOW",
    "DENOMINATION_CODES",
    "FIXED_LENGTHS",
    "GENERAL_POLL_BIT",
    "NO_ACTIVITY",
    "PRIORITY_EXCEPTIONS",
    "QUEUE_CAPACITY",
    "TYPE_R",
    "VARIABLE",
    "ExceptionQueue",
    "Pending",
    "long_poll_length",
]
