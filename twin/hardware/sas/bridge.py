"""The reference SMIB: one SAS gaming machine behind the MQTT contract (``twin smib bridge``).

:class:`SasBridge` is the executable reference of ``docs/smib-protocol.md`` ("The reference
SMIB") for a real machine: it polls one SAS gaming machine (address 1..127) on a serial port
or a pseudo-terminal (:class:`~twin.hardware.sas.host.SasHost`) and speaks the contract with
the MQTT side every SMIB of the twin shares (:class:`~twin.hardware.board.SmibBoard`).

* **Start**: long polls 54 (SAS version, serial), 1F (paytable, denomination) and 6F (the
  meter width: ``digits`` = 2 x the BCD bytes of a meter) give the identity; a stable read of
  every meter; if the cumulative meters moved while the bridge was down (compared with the
  state file's), one catch-up event (0x7F or 0xE2) so that the host's deltas stay whole.
* **Birth** (each one): long poll 21 with a fresh seed (``os.urandom``, or ``rom_seed``);
  the machine answers, or ACKs and answers on the next general poll (SAS 6.02);
  ``identity.program`` is :func:`rom_program` of the seed and the signature.
* **Loop** (a thread): a general poll every ``interval``. An exception gets its follow-up
  (48: the bill; 1B: the hand pay), then a stable read, then one event with its code, its
  ``data`` and the meters' increments since the last read as ``deltas``, saved before the
  next general poll. No activity: every ``meter_interval`` a stable read; cumulative meters
  that moved make a 0x7F ``game_ended`` (games played moved) or 0xE2 ``meters_changed``.
  ``silence_limit`` silences in a row: 0xE0 ``sas_link_lost``; the next answer: 0xE1
  ``sas_link_restored``.
* **Commands**: ``enable``/``disable`` are long polls 02/01 (ACK: ``completed``, else
  ``failed``); ``read_meters`` reads (an event first if the meters moved: the snapshot is
  the sum of the deltas) then sends ``meters``; ``rebirth``, ``ping``, ``replay_events`` as
  every board; bench commands are ``rejected`` (a real machine is played by a player).

A stable read reads every meter (long poll 6F, at most 12 meters a poll), then again until two
complete reads in a row agree (at most ``stable_attempts`` more reads: the machine may move
between two polls; after that the last complete read stands). The implied ACK of SAS: an
exception leaves the machine's queue when it gets a *different* poll (the follow-up or the
read); the same general poll again would be a NACK and bring the same exception back.

One reentrant lock (the board's) covers the SAS host and the memory, so the SAS loop and the
MQTT thread (commands, births) never poll at the same time.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from twin.hardware.board import Identity, Memory, SmibBoard
from twin.hardware.client import Broker
from twin.hardware.misbehaviour import Misbehaviour
from twin.hardware.netloop import NetLoop
from twin.hardware.protocol import NOT_CUMULATIVE
from twin.hardware.sas.bcd import BcdError, from_bcd
from twin.hardware.sas.host import SasHost
from twin.hardware.sas.polls import (
    BILL_ACCEPTED_EXCEPTIONS,
    BILL_ACCEPTED_OTHER,
    BILL_DENOMINATION_CODES,
    DENOMINATION_CODES,
    GENERAL_POLL_BIT,
    NO_ACTIVITY,
)
from twin.hardware.sas.rom import PREFIX as ROM_PREFIX
from twin.hardware.sas.rom import parse_rom_program as parse_rom_program  # re-exported
from twin.hardware.sas.rom import rom_program
from twin.machines.sas import BILL_METER_CODES, ExceptionCode, MeterCode

log = logging.getLogger("twin.hardware.sas.bridge")

#: Codes of the events the bridge makes itself (not SAS exceptions of the machine).
GAME_ENDED = 0x7F  # a stretch of games: cumulative meters moved, games played among them
LINK_LOST = 0xE0  # twin-defined: ``silence_limit`` general polls in a row got no answer
LINK_RESTORED = 0xE1  # twin-defined: the first answer after a lost link
METERS_CHANGED = 0xE2  # twin-defined: cumulative meters moved, no game and no exception
QUEUE_OVERFLOW = 0x70
HANDPAY_PENDING = int(ExceptionCode.HANDPAY_PENDING)
#: long poll 1B's level of a hand pay of cancelled credits (SAS 6.02 Table 7.9b)
LEVEL_CANCELLED_CREDITS = 0x80

BILL_CODES = frozenset({*BILL_ACCEPTED_EXCEPTIONS.values(), BILL_ACCEPTED_OTHER})
#: event names of the codes that are no ``ExceptionCode``
NAMES = {
    GAME_ENDED: "game_ended",
    LINK_LOST: "sas_link_lost",
    LINK_RESTORED: "sas_link_restored",
    METERS_CHANGED: "meters_changed",
    QUEUE_OVERFLOW: "exception_queue_overflow",
    **dict.fromkeys(BILL_CODES, "bill_accepted"),
}

#: The meters read with long poll 6F (SAS code -> name, as the emulator names them): the
#: machine's 16 meters and its bill meters (a bill meter the machine has no value for is left
#: out).
METERS: dict[int, str] = {int(code): code.name.lower() for code in MeterCode} | {
    code: f"bills_{units * 100}" for units, code in sorted(BILL_METER_CODES.items())
}
MAX_6F_METERS = 12
DENOM_CENTS = {code: cents for cents, code in DENOMINATION_CODES.items()}
BILL_UNITS = {code: units for units, code in BILL_DENOMINATION_CODES.items()}
BILL_EXCEPTION_UNITS = {code: units for units, code in BILL_ACCEPTED_EXCEPTIONS.items()}


@dataclass(frozen=True)
class BridgeFaults:
    """A buggy SMIB, for tests. ``forget_codes``: exceptions read over SAS (and so taken off
    the machine's queue) and never reported (their meter increments go with the next event);
    ``misread``: added to those meters in every ``meters`` message (not in births or
    deltas: the host finds it by reconciliation)."""

    forget_codes: frozenset[int] = frozenset()
    misread: dict[str, int] = field(default_factory=dict)


class SasBridge(SmibBoard):
    """A SMIB for the SAS machine at ``address`` on ``port`` (module docstring)."""

    def __init__(
        self,
        smib: str,
        broker: Broker,
        password: str,
        port: str | int,
        *,
        address: int = 1,
        memory: Memory | None = None,
        interval: float = 0.04,
        meter_interval: float = 0.25,
        silence_limit: int = 10,
        reply_timeout: float = 0.1,
        stable_attempts: int = 6,
        rom_seed: int | None = None,
        faults: BridgeFaults | None = None,
        misbehave: Misbehaviour | None = None,
        keep_events: int = 10_000,
        keepalive: int = 2,
    ) -> None:
        if not 1 <= address <= 127:
            raise ValueError(f"SAS address must be 1..127, got {address}")
        if rom_seed is not None and not 0 <= rom_seed <= 0xFFFF:
            raise ValueError(f"rom_seed must be 0..65535, got {rom_seed}")
        super().__init__(
            smib, broker, password, memory=memory, keep_events=keep_events,
            misbehave=misbehave, keepalive=keepalive,
        )  # fmt: skip
        self.address = address
        self.port = port
        self.interval = interval
        self.meter_interval = meter_interval
        self.silence_limit = silence_limit
        self.stable_attempts = stable_attempts
        self.rom_seed = rom_seed
        self.faults = faults if faults is not None else BridgeFaults()
        self.identity = Identity(f"SN-{smib}", "unread", 1, "?")  # read over SAS at start
        self.digits = 8
        self.sas_version = ""
        self.events = 0  # events made in this run
        self.forgotten = 0  # exceptions read and not reported (``faults.forget_codes``)
        self.host = SasHost(port, timeout=reply_timeout)
        self._codes = list(METERS)
        self._silent = 0
        self._link_lost = False
        self._last_read = 0.0
        self._unsent: list[dict[str, Any]] = []  # made before the first birth: sent after it
        self._deferred: list[int] = []  # exceptions a general poll gave in place of the ROM
        self._dirty = False  # the last poll got no good reply: flush before the next
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.born = threading.Event()  # set once a birth (with its ROM check) has been sent

    # -- life --------------------------------------------------------------------------------

    def start(self, net: NetLoop | None = None) -> None:
        """Read the machine's identity and meters (ConnectionError: it does not answer),
        make the catch-up event if its meters moved while the bridge was down, connect. The
        SAS loop starts with the first birth."""
        with self._lock:
            # exceptions read before a restart and never made into events: made first
            self._deferred = list(self.memory.pending)
            self._read_identity()
            after = self._stable()
            if after is None:
                raise ConnectionError(f"SAS address {self.address}: no meters on {self.port}")
            before = self.memory.machine
            if self._deferred:
                pass  # the exception read before the restart takes the increments
            elif before and self._moved(before, after):
                self._unsent.append(self._make(self._movement_code(before, after), after, False))
            else:
                self.memory.machine = after
                self.memory.save()
            self._last_read = time.monotonic()
        super().start(net)

    def stop(self) -> None:
        self._halt()
        super().stop()
        self.host.close()

    def die(self) -> None:
        self._halt()
        super().die()
        self.host.close()

    def _halt(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def stats(self) -> dict[str, int]:
        """The line's counts (polls, silences, bad CRC) and the events made in this run."""
        h = self.host
        return {
            "polls": h.polls,
            "silences": h.silences,
            "bad_crc": h.bad_crc,
            "events": self.events,
            "forgotten": self.forgotten,
        }

    # -- the board's hooks ---------------------------------------------------------------------

    def _meter_values(self) -> dict[str, int]:
        """The meters as of the last event (the last read that made one, or the first)."""
        return dict(self.memory.machine)

    def _snapshot_values(self) -> dict[str, int]:
        out = self._meter_values()
        for name, extra in self.faults.misread.items():
            out[name] = out.get(name, 0) + extra
        return out

    def _set_play(self, enabled: bool) -> str | None:
        command = 0x02 if enabled else 0x01  # startup / shutdown
        with self._lock:
            self._settle()
            reply = self.host.long_poll(self.address, command, crc=True, expect=1)
            self._dirty = reply is None
        if reply == bytes([self.address]):
            return None
        if reply is None:
            return f"no answer from the machine to SAS long poll {command:02X}"
        if reply == bytes([self.address | GENERAL_POLL_BIT]):
            return f"the machine refused SAS long poll {command:02X} (NACK)"
        return f"unexpected reply to SAS long poll {command:02X}: {reply.hex()}"

    def birth(self, cmd_id: str | None = None) -> None:
        """Check the ROM signature with a new seed, then the birth; then the events made
        before it (the catch-up) and, the first time, the SAS loop."""
        with self._lock:
            self._verify_rom()
            super().birth(cmd_id)
            unsent, self._unsent = self._unsent, []
            for evt in unsent:
                self._publish("evt", dict(evt))
            if self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(
                    target=self._run, name=f"sas-bridge-{self.smib}", daemon=True
                )
                self._thread.start()
        self.born.set()

    def _cmd_read_meters(self, cmd_id: str, args: dict[str, int]) -> None:
        with self._lock:
            self._sync()
            self.send_meters(cmd_id)
            self._result(cmd_id, "completed")

    # -- identity ------------------------------------------------------------------------------

    def _long(
        self, command: int, data: bytes = b"", *, expect: int | None = None, tries: int = 1
    ) -> bytes | None:
        """The machine's reply to long poll ``command`` (CRC checked, address and command
        echoed), or None. ``expect``: the reply's length when known (the read ends with its
        last byte, not after an inter-byte gap of silence)."""
        for _ in range(tries):
            self._settle()
            reply = self.host.long_poll(self.address, command, data, expect=expect)
            if reply is not None and len(reply) > 2 and reply[:2] == bytes([self.address, command]):
                return reply
            self._dirty = True
        return None

    def _general_poll(self) -> int | None:
        self._settle()
        code = self.host.general_poll(self.address)
        self._dirty = code is None
        return code

    def _pend(self, code: int) -> None:
        """An exception read: kept in the state file before any other poll acknowledges it,
        so that a SMIB that dies before its event is made makes it when it comes back."""
        self.memory.pending.append(code)
        self.memory.save()

    def _settle(self) -> None:
        """After a poll without a good reply, a late reply may still come: it is dropped
        (the line quiet for ``reply_timeout``) so that it is not read as the next one's."""
        if self._dirty:
            self.host.flush(self.host.timeout)
            self._dirty = False

    def _read_identity(self) -> None:
        where = f"SAS address {self.address} on {self.port}"
        r54 = self._long(0x54, tries=3)
        r1f = self._long(0x1F, expect=24, tries=3)
        r6f = self._long(0x6F, bytes([4, 0, 0, 0, 0]), tries=3)  # game 0, meter 0000
        if r54 is None or r1f is None or r6f is None:
            raise ConnectionError(f"{where}: no answer to long polls 54, 1F and 6F")
        text = r54[3 : 3 + r54[2]].decode("ascii", "replace")
        self.sas_version, serial = text[:3], text[3:]
        if r1f[7] not in DENOM_CENTS:
            raise ConnectionError(f"{where}: unknown SAS denomination code {r1f[7]:#04x}")
        paytable = r1f[12:18].decode("ascii", "replace").strip()
        width = r6f[7]  # reply: address, 6F, length, game (2), code (2), width, value
        if not 2 <= width <= 9:
            raise ConnectionError(f"{where}: meter width {width} bytes (expected 2..9)")
        self.digits = 2 * width
        self.identity = Identity(
            serial or f"SN-{self.smib}", "unread", DENOM_CENTS[r1f[7]], paytable or "?"
        )

    def _verify_rom(self) -> None:
        """Long poll 21 with a new seed; the signature in its reply, or (the machine ACKs)
        in the reply to the next general poll, which a different poll then acknowledges."""
        seed = (
            self.rom_seed if self.rom_seed is not None else int.from_bytes(os.urandom(2), "little")
        )
        a = self.address
        self._settle()
        reply = self.host.long_poll(a, 0x21, seed.to_bytes(2, "little"), expect=6)
        self._dirty = reply is None
        signature: int | None = None
        if reply is not None and len(reply) == 6 and reply[:2] == bytes([a, 0x21]):
            signature = int.from_bytes(reply[2:4], "little")
        elif reply == bytes([a]):  # ACK: the signature comes on a general poll (SAS 6.02)
            for _ in range(3):
                self._settle()
                got = self.host.send(bytes([GENERAL_POLL_BIT | a]), expect=6)
                self._dirty = got is None
                if got is not None and len(got) == 6 and got[:2] == bytes([a, 0x21]):
                    if self.host.crc16(got[:4]) == int.from_bytes(got[4:], "little"):
                        signature = int.from_bytes(got[2:4], "little")
                    break
                if got is not None and len(got) == 1 and got[0] != NO_ACTIVITY:
                    self._pend(got[0])
                    self._deferred.append(got[0])  # an exception first: handled by the loop
                    break
            self._long(0x1A, expect=8)  # a different poll: that reply's implied ACK
        if signature is None:
            log.warning("SMIB %s: no ROM signature from the machine", self.smib)
            program = f"{ROM_PREFIX}:{seed:04x}:none"
        else:
            program = rom_program(seed, signature)
        self.identity = replace(self.identity, program=program)

    # -- meters --------------------------------------------------------------------------------

    def _read_meters(self) -> dict[str, int] | None:
        """Every meter once (long polls 6F), or None when a poll got no good reply."""
        out: dict[str, int] = {}
        for i in range(0, len(self._codes), MAX_6F_METERS):
            chunk = self._codes[i : i + MAX_6F_METERS]
            body = bytes(2) + b"".join(code.to_bytes(2, "little") for code in chunk)
            expect = 3 + 2 + len(chunk) * (3 + self.digits // 2) + 2  # every meter has a value
            reply = self._long(0x6F, bytes([len(body)]) + body, expect=expect)
            if reply is None or len(reply) != 3 + reply[2] + 2:
                return None
            at, end = 5, 3 + reply[2]  # after address, 6F, length and the game number
            while at + 3 <= end:
                code, size = int.from_bytes(reply[at : at + 2], "little"), reply[at + 2]
                if size and code in METERS:
                    value = _bcd(reply[at + 3 : at + 3 + size])
                    if value is None:
                        return None
                    out[METERS[code]] = value
                at += 3 + size
        return out

    def _stable(self) -> dict[str, int] | None:
        """Reads until two complete reads in a row agree (see the module docstring)."""
        last = self._read_meters()
        for _ in range(self.stable_attempts):
            again = self._read_meters()
            if again is not None and again == last:
                return again
            last = again if again is not None else last
        return last

    def _deltas(self, before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
        """Increments from ``before`` to ``after``: a cumulative meter's modulo its rollover,
        a non-cumulative one's only when it rose (as the emulator's)."""
        roll = 10**self.digits
        out: dict[str, int] = {}
        for name, value in after.items():
            was = before.get(name, 0)
            d = value - was if name in NOT_CUMULATIVE else (value - was) % roll
            if d > 0:
                out[name] = d
        return out

    def _moved(self, before: dict[str, int], after: dict[str, int]) -> bool:
        return any(n not in NOT_CUMULATIVE for n in self._deltas(before, after))

    def _movement_code(self, before: dict[str, int], after: dict[str, int]) -> int:
        return GAME_ENDED if "games_played" in self._deltas(before, after) else METERS_CHANGED

    # -- events --------------------------------------------------------------------------------

    def _make(
        self,
        code: int,
        after: dict[str, int] | None,
        send: bool = True,
        data: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The event of ``code`` with the increments from the memory's meters to ``after``
        (None: no read, no increments), which the memory then keeps."""
        before = self.memory.machine
        deltas = {} if after is None else self._deltas(before, after)
        data = dict(data or {})
        if code == GAME_ENDED:
            data.update(
                games=deltas.get("games_played", 0),
                wagered=deltas.get("total_coin_in", 0),
                won=deltas.get("total_coin_out", 0),
                games_won=deltas.get("games_won", 0),
            )
            if after is not None and "current_credits" in after:
                data["credits"] = after["current_credits"]
        name = NAMES.get(code) or _exception_name(code)
        self.events += 1
        kept = dict(before if after is None else after)
        return self._emit(code, name, deltas, data, kept, send=send)

    def _sync(self) -> None:
        """A stable read; when cumulative meters moved, the exception the machine raised
        meanwhile (it takes the increments), else an event 0x7F or 0xE2."""
        after = self._stable()
        self._last_read = time.monotonic()
        before = self.memory.machine
        if after is None or not self._moved(before, after):
            return
        code = self._general_poll()
        if code is not None and code != NO_ACTIVITY:
            self._exception(code)
        else:
            self._make(self._movement_code(before, after), after)

    def _exception(self, code: int, *, pended: bool = False) -> None:
        """Follow-ups of exception ``code``, a stable read, one event (unless forgotten).
        The exception is kept in the state file first (unless it already is: ``pended``)."""
        if not pended:
            self._pend(code)
        data: dict[str, Any] = {}
        if code in BILL_CODES:
            r = self._long(0x48, expect=10)  # last bill: country, denomination, count of it
            bill = _bcd(r[3:4]) if r is not None and len(r) == 10 else None
            # the code names the bill's value (0x4F: another value, which 48 gives): 48 says
            # only the last bill, which is a later one when two were stacked between polls
            units = BILL_EXCEPTION_UNITS.get(code, BILL_UNITS.get(bill or -1))
            if units is not None:
                cents = units * 100
                data = {"cents": cents, "credits": cents // self.identity.denom_cents}
        elif code == HANDPAY_PENDING:
            r = self._long(0x1B, expect=24)  # group, level, amount (5 BCD), partial, reset id
            if r is not None and len(r) == 24:
                data = {
                    "credits": _bcd(r[4:9]) or 0,
                    "level": r[3],
                    "cancelled": r[3] == LEVEL_CANCELLED_CREDITS,
                }
        after = self._stable()  # a different poll: the exception's implied ACK
        self._last_read = time.monotonic()
        if code in self.memory.pending:  # saved with its event (or now, when forgotten)
            self.memory.pending.remove(code)
        if code in self.faults.forget_codes:
            self.memory.save()
            self.forgotten += 1
            return
        self._make(code, after, data=data)

    # -- the SAS loop --------------------------------------------------------------------------

    def _run(self) -> None:
        busy = False
        while not self._stop.wait(0 if busy else self.interval):
            busy = False
            try:
                with self._lock:
                    if self._stop.is_set() or self.dead:
                        return
                    busy = self._cycle()
            except Exception:  # the loop outlives a bug in one cycle (it is logged)
                log.exception("SMIB %s: SAS cycle failed", self.smib)

    def _cycle(self) -> bool:
        """One general poll and what its answer asks for; True when it was an exception (the
        next general poll goes at once: the machine's queue is drained as fast as it can)."""
        while self._deferred:
            self._exception(self._deferred.pop(0), pended=True)
        code = self._general_poll()
        if code is None:
            self._silent += 1
            if self._silent == self.silence_limit and not self._link_lost:
                self._link_lost = True
                self._make(LINK_LOST, None, data={"silent_polls": self._silent})
            return False
        silent, self._silent = self._silent, 0
        if self._link_lost:
            self._link_lost = False
            self._make(LINK_RESTORED, None, data={"silent_polls": silent})
        if silent:
            # the answer may be a late one to an earlier poll: dropped with what follows it;
            # an exception comes again on the next general poll (the same poll: implied NACK)
            self._dirty = True
            return False
        if code != NO_ACTIVITY:
            self._exception(code)
            return True
        if time.monotonic() - self._last_read >= self.meter_interval:
            self._sync()
        return False


def _exception_name(code: int) -> str:
    try:
        return ExceptionCode(code).name.lower()
    except ValueError:
        return f"exception_{code:02x}"


def _bcd(data: bytes) -> int | None:
    """The value of packed BCD bytes; None when they are not BCD (a garbled reply)."""
    try:
        return from_bcd(data)
    except BcdError:
        return None


def load_memory(path: Path | None) -> Memory:
    """The bridge's state file (created at the first event), or a memory kept in RAM only."""
    return Memory.load(path) if path is not None else Memory()


__all__ = [
    "GAME_ENDED",
    "LINK_LOST",
    "LINK_RESTORED",
    "METERS",
    "METERS_CHANGED",
    "BridgeFaults",
    "SasBridge",
    "load_memory",
    "parse_rom_program",
    "rom_program",
]
