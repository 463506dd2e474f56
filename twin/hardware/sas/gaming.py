"""The twin's machine as a SAS 6.02 gaming machine: polls in, reply bytes out, no I/O.

:class:`SasGamingMachine` answers the polls a SAS host (a SMIB) sends to one address, from the
meters of a :class:`~twin.machines.accounting.SlotAccounts`. The line (``line.py``) frames the
bytes with :meth:`SasGamingMachine.poll_length` and sends back what
:meth:`SasGamingMachine.answer` returns; the twin calls the other methods when the machine does
something (an exception, a bill, a hand pay). The implemented polls, their byte layouts and the
choices made where SAS is silent are in ``docs/sas.md``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from twin.hardware.sas.bcd import from_bcd, is_bcd, to_bcd
from twin.hardware.sas.crc import crc16, crc_ok, with_crc
from twin.hardware.sas.polls import (
    BILL_ACCEPTED_EXCEPTIONS,
    BILL_ACCEPTED_OTHER,
    BILL_DENOMINATION_CODES,
    DENOMINATION_CODES,
    FIXED_LENGTHS,
    GENERAL_POLL_BIT,
    NO_ACTIVITY,
    QUEUE_CAPACITY,
    VARIABLE,
    ExceptionQueue,
    Pending,
    long_poll_length,
)
from twin.machines.accounting import SlotAccounts
from twin.machines.sas import BILL_METER_CODES, ExceptionCode, MeterCode

M = MeterCode

HANDPAY_PENDING = int(ExceptionCode.HANDPAY_PENDING)
HANDPAY_RESET = int(ExceptionCode.HANDPAY_RESET)
SLOT_DOOR_OPENED = int(ExceptionCode.SLOT_DOOR_OPENED)
AC_POWER_APPLIED = int(ExceptionCode.AC_POWER_APPLIED)

#: Handpay levels (long poll 1B): a win that is not progressive, and cancelled credits.
LEVEL_NON_PROGRESSIVE = 0x40
LEVEL_CANCELLED_CREDITS = 0x80

#: Long poll 94 reset codes.
RESET_DONE, RESET_UNABLE, RESET_NOT_IN_HANDPAY = 0x00, 0x01, 0x02

#: Single meter type R polls: command -> meter.
SINGLE_METERS: dict[int, MeterCode] = {
    0x10: M.TOTAL_CANCELLED_CREDITS,
    0x11: M.TOTAL_COIN_IN,
    0x12: M.TOTAL_COIN_OUT,
    0x13: M.TOTAL_DROP,
    0x14: M.TOTAL_JACKPOT,
    0x15: M.GAMES_PLAYED,
    0x16: M.GAMES_WON,
    0x17: M.GAMES_LOST,
    0x1A: M.CURRENT_CREDITS,
    0x2A: M.COIN_ACCEPTOR_CREDITS,  # true coin in: one coin is one credit in the twin
    0x2B: M.HOPPER_PAID_CREDITS,  # true coin out
}

#: Long poll 1E: the bill meters of $1, $5, $10, $20, $50 and $100 (face values in units).
BILL_METERS_1E = (1, 5, 10, 20, 50, 100)

#: Meter codes (2F, 6F) the twin has a value for, besides the bill meters 0x40..0x49.
SELECTABLE_METERS = frozenset(int(code) for code in MeterCode)
BILL_METERS_BY_CODE = {code: units for units, code in BILL_METER_CODES.items()}

MAX_2F_METERS = 10
MAX_6F_METERS = 12


class GameLike(Protocol):
    """What :meth:`SasGamingMachine.for_game` needs of a game (``twin.machines.par.Game``)."""

    @property
    def id(self) -> str: ...

    @property
    def signature(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Handpay:
    """A hand pay the machine is locked in (what long poll 1B reports)."""

    credits: int
    cancelled_credits: bool = False  # True: credits cancelled from the credit meter by hand
    progressive_group: int = 0
    level: int = LEVEL_NON_PROGRESSIVE
    partial_pay: int = 0
    reset_id: int = 0  # 0: only the attendant's key (or 94) resets it


@dataclass(frozen=True, slots=True)
class _Sent:
    """A reply kept until the host acknowledges it (SAS 6.02 section 3: implied ACK/NACK)."""

    poll: bytes
    reply: bytes
    exception: Pending | None = None
    rom_reply: bool = False


class SasGamingMachine:
    """One gaming machine on a SAS line, answering from ``accounts`` (see ``docs/sas.md``).

    Thread-safe: the line's thread calls :meth:`answer` while the twin calls the rest.
    """

    def __init__(
        self,
        accounts: SlotAccounts,
        *,
        address: int,
        serial: str,
        game_id: str,
        paytable_id: str,
        program: bytes | str,
        sas_version: str = "602",
        additional_id: str = "000",
        denomination_code: int | None = None,
        max_bet: int = 1,
        progressive_group: int = 0,
        game_options: int = 0,
        base_percent: str = "0000",
        bill_country_code: int = 0,
        queue_capacity: int = QUEUE_CAPACITY,
        rom_signature_on_general_poll: bool = True,
        allow_remote_handpay_reset: bool = True,
        on_handpay_reset: Callable[[Handpay], None] | None = None,
        lock: threading.RLock | None = None,
    ) -> None:
        _need(1 <= address <= 127, f"address must be 1..127, got {address}")
        self.address = address
        self.accounts = accounts
        self.serial = _ascii("serial", serial, 0, 40)
        self.sas_version = _ascii("sas_version", sas_version, 3, 3)
        self.game_id = _ascii("game_id", game_id, 2, 2)
        self.additional_id = _ascii("additional_id", additional_id, 3, 3)
        self.paytable_id = _ascii("paytable_id", paytable_id, 1, 6).ljust(6)
        _need(
            len(base_percent) == 4 and base_percent.isdigit(),
            f"base_percent must be 4 digits (9650 = 96.50%), got {base_percent!r}",
        )
        self.base_percent = base_percent
        if denomination_code is None:
            cents = accounts.denomination_cents
            _need(
                cents in DENOMINATION_CODES,
                f"no SAS denomination code for {cents} cents: pass denomination_code",
            )
            denomination_code = DENOMINATION_CODES[cents]
        for name, value, top in (
            ("denomination_code", denomination_code, 0xFF),
            ("max_bet", max_bet, 0xFF),
            ("progressive_group", progressive_group, 0xFF),
            ("game_options", game_options, 0xFFFF),
        ):
            _need(0 <= value <= top, f"{name} must be 0..{top}, got {value}")
        _need(
            0 <= bill_country_code <= 99,
            f"bill_country_code must be 0..99 (1 BCD byte), got {bill_country_code}",
        )
        self.denomination_code = denomination_code
        self.max_bet = max_bet
        self.progressive_group = progressive_group
        self.game_options = game_options
        self.bill_country_code = bill_country_code
        self.program = _program_bytes(program)
        self.rom_signature_on_general_poll = rom_signature_on_general_poll
        self.allow_remote_handpay_reset = allow_remote_handpay_reset
        self.on_handpay_reset = on_handpay_reset

        self.play_enabled = True  # long polls 01 (shutdown) / 02 (startup)
        self.bill_acceptor_enabled = True  # long polls 06 / 07
        self.slot_door_opened_count = 0  # counted from exceptions 0x11 raised here
        self.power_reset_count = 0  # counted from exceptions 0x17 raised here
        self.handpay: Handpay | None = None
        self.last_bill_cents: int | None = None
        self.internal_errors = 0  # replies dropped because answering raised (a bug)
        self.bad_crc_polls = 0  # type S/M polls addressed here whose CRC was wrong (ignored)
        #: called (under the lock) with each exception the host acknowledged (implied ACK)
        self.on_delivered: Callable[[Pending], None] | None = None
        self.exceptions = ExceptionQueue(queue_capacity)
        self._rom_reply: bytes | None = None
        self._sent: _Sent | None = None
        # Shared with whatever mutates ``accounts`` from another thread, a poll reads the
        # meters between two of its changes (a reentrant lock: callbacks may call back).
        self._lock = lock if lock is not None else threading.RLock()

    @classmethod
    def for_game(
        cls,
        accounts: SlotAccounts,
        game: GameLike,
        *,
        address: int,
        serial: str = "",
        game_id: str = "TW",
        program: bytes | str | None = None,
        **kwargs: Any,
    ) -> SasGamingMachine:
        """A machine running ``game``: its program image is the game's signature (the SHA-256
        the Board's register approves; ``program``: another image, a tampered machine) and
        its paytable ID the game's id (first 6 ASCII characters); ``game_id`` is SAS's
        2-letter manufacturer code ("TW": the twin)."""
        paytable = "".join(c for c in game.id if c.isascii() and c.isprintable())[:6] or "?"
        return cls(
            accounts,
            address=address,
            serial=serial,
            game_id=game_id,
            paytable_id=paytable,
            program=game.signature if program is None else program,
            **kwargs,
        )

    # -- the line's side -----------------------------------------------------------------
    def poll_length(self, head: bytes) -> int | None:
        """The total length of the poll starting with ``head`` (None: need more bytes).

        ``head[0]`` carried the wakeup bit: with bit 7 set it is a general poll (1 byte, for
        any address, 0x80 being the global one); otherwise an address, and the length comes
        from the command (``polls.FIXED_LENGTHS``, a length byte for ``polls.VARIABLE``,
        else 2 as a type R poll) whatever the address.
        """
        if not head:
            return None
        if head[0] & GENERAL_POLL_BIT:
            return 1
        return long_poll_length(head)

    def answer(self, poll: bytes) -> bytes | None:
        """The reply to one complete poll, or None for silence. Never raises."""
        with self._lock:
            try:
                return self._answer(bytes(poll))
            except Exception:  # the line must never see a crash
                self.internal_errors += 1
                return None

    # -- the twin's side -----------------------------------------------------------------
    def raise_exception(self, code: int) -> Pending | None:
        """The machine raises SAS exception ``code`` (priority or queued, see docs/sas.md);
        what a general poll will send for it (None: it joined the same priority exception,
        still waiting).

        0x11 (slot door opened) and 0x17 (AC power applied) also count the slot door opened
        and power reset meters of long poll 1C.
        """
        with self._lock:
            pending = self.exceptions.raise_(code)
            if code == SLOT_DOOR_OPENED:
                self.slot_door_opened_count += 1
            elif code == AC_POWER_APPLIED:
                self.power_reset_count += 1
            return pending

    def bill_accepted(self, cents: int) -> Pending | None:
        """A bill was stacked (after ``accounts.insert_bill``): long poll 48's last bill and
        its bill accepted exception (0x47..0x4E, 0x50, or 0x4F for another value)."""
        with self._lock:
            units, rest = divmod(cents, 100)
            _need(rest == 0 and units > 0, f"a bill is a whole number of units, got {cents}")
            self.last_bill_cents = cents
            return self.exceptions.raise_(BILL_ACCEPTED_EXCEPTIONS.get(units, BILL_ACCEPTED_OTHER))

    def on_activity(self, kind: str, data: Mapping[str, int]) -> None:
        """An activity of a player loop (``serve.Patron``'s ``on_event``): a bill accepted
        (``data["cents"]``) is reported as :meth:`bill_accepted`; other kinds raise nothing
        (game start and end are real time events, not implemented)."""
        if kind == "bill_accepted":
            self.bill_accepted(int(data["cents"]))

    def handpay_pending(
        self,
        credits: int,
        *,
        cancelled_credits: bool = False,
        progressive_group: int = 0,
        level: int | None = None,
        partial_pay: int = 0,
    ) -> Handpay:
        """The machine locks up in a hand pay of ``credits`` and raises exception 51.

        A jackpot (``cancelled_credits`` False) goes on the jackpot meter when it is reset;
        cancelled credits leave the credit meter then. The twin must not apply them itself.
        """
        with self._lock:
            _need(self.handpay is None, "the machine is already locked in a hand pay")
            _need(credits > 0, f"a hand pay must be positive, got {credits}")
            if cancelled_credits:
                _need(credits <= self.accounts.credits, "hand pay exceeds the credit meter")
            if level is None:
                level = LEVEL_CANCELLED_CREDITS if cancelled_credits else LEVEL_NON_PROGRESSIVE
            _need(
                0 <= progressive_group <= 0xFF,
                f"progressive_group must be 0..255, got {progressive_group}",
            )
            _need(0 <= level <= 0xFF, f"level must be 0..255, got {level}")
            _need(
                0 <= partial_pay <= 9999, f"partial_pay must be 0..9999 (2 BCD), got {partial_pay}"
            )
            hp = Handpay(credits, cancelled_credits, progressive_group, level, partial_pay)
            self.handpay = hp
            self.exceptions.raise_(HANDPAY_PENDING)
            return hp

    def handpay_reset(self) -> Handpay:
        """The attendant resets the hand pay (key off): the meters move, exception 52."""
        with self._lock:
            hp = self.handpay
            _need(hp is not None, "the machine is not in a hand pay")
            assert hp is not None
            self._reset_handpay(hp)
            return hp

    @property
    def in_handpay(self) -> bool:
        return self.handpay is not None

    @property
    def can_play(self) -> bool:
        """Play is possible: enabled by the host, doors closed, not locked in a hand pay."""
        return self.play_enabled and self.accounts.play_enabled and self.handpay is None

    def rom_signature(self, seed: int) -> int:
        """The ROM signature SAS defines: the CRC-16 of the program image seeded with ``seed``."""
        return crc16(self.program, seed)

    # -- polls ---------------------------------------------------------------------------
    def _answer(self, poll: bytes) -> bytes | None:
        if not poll:
            return None
        head = poll[0]
        if head & GENERAL_POLL_BIT:
            if len(poll) != 1:
                return None
            if head & 0x7F != self.address:  # another machine's, or the global 0x80
                self._implied_ack()
                return None
        elif head != self.address:  # another machine's long poll, or a global broadcast
            self._implied_ack()
            return None
        sent = self._sent
        if sent is not None and sent.poll == poll:  # the same poll again: implied NACK
            return sent.reply
        self._implied_ack()
        if head & GENERAL_POLL_BIT:
            return self._general_poll(poll)
        return self._long_poll(poll)

    def _implied_ack(self) -> None:
        sent, self._sent = self._sent, None
        if sent is None:
            return
        if sent.exception is not None:
            self.exceptions.remove(sent.exception)
            if self.on_delivered is not None:
                self.on_delivered(sent.exception)
        if sent.rom_reply:
            self._rom_reply = None

    def _general_poll(self, poll: bytes) -> bytes:
        if self._rom_reply is not None:
            self._sent = _Sent(poll, self._rom_reply, rom_reply=True)
            return self._rom_reply
        pending = self.exceptions.peek()
        if pending is None:
            return bytes([NO_ACTIVITY])
        reply = bytes([pending.code])
        self._sent = _Sent(poll, reply, exception=pending)
        return reply

    def _long_poll(self, poll: bytes) -> bytes | None:
        command = poll[1] if len(poll) > 1 else None
        if command is None or len(poll) != long_poll_length(poll):
            return None
        if command in SINGLE_METERS:
            return with_crc(poll[:2] + self._meter(SINGLE_METERS[command]))
        if command in self._type_r:
            return with_crc(poll[:2] + self._type_r[command]())
        if command in FIXED_LENGTHS or command in VARIABLE:
            handler = self._type_s.get(command)
            if handler is None:
                return None
            if not crc_ok(poll):
                self.bad_crc_polls += 1
                return None
            return handler(poll)
        return None  # unsupported: ignored, never NACKed (SAS 6.02 section 4.4)

    @property
    def _type_r(self) -> dict[int, Callable[[], bytes]]:
        return {
            0x18: self._lp18,
            0x19: self._lp19,
            0x1B: self._lp1b,
            0x1C: self._lp1c,
            0x1E: self._lp1e,
            0x1F: self._lp1f,
            0x20: self._lp20,
            0x48: self._lp48,
            0x51: self._lp51,
            0x54: self._lp54,
        }

    @property
    def _type_s(self) -> dict[int, Callable[[bytes], bytes | None]]:
        return {
            0x01: self._lp_enable_play(False),
            0x02: self._lp_enable_play(True),
            0x06: self._lp_bill_acceptor(True),
            0x07: self._lp_bill_acceptor(False),
            0x21: self._lp21,
            0x2F: self._lp2f,
            0x6F: self._lp6f,
            0xAF: self._lp6f,
            0x94: self._lp94,
        }

    def _meter(self, code: MeterCode, width: int = 4) -> bytes:
        return _bcd(self.accounts.reading(code), width)

    def _bills(self, units: int) -> int:
        return self.accounts.bills.get(units * 100, 0) % self.accounts.rollover

    def _lp18(self) -> bytes:
        return self._meter(M.GAMES_SINCE_POWER_RESET, 2) + self._meter(M.GAMES_SINCE_DOOR_CLOSED, 2)

    def _lp20(self) -> bytes:
        """The value of every bill accepted, in whole currency units."""
        cents = sum(c * (n % self.accounts.rollover) for c, n in self.accounts.bills.items())
        return _bcd(cents // 100, 4)

    def _lp51(self) -> bytes:
        return to_bcd(0, 2)  # no multi-game extensions: 0 games implemented (SAS 7.6.3)

    def _lp19(self) -> bytes:
        codes = (M.TOTAL_COIN_IN, M.TOTAL_COIN_OUT, M.TOTAL_DROP, M.TOTAL_JACKPOT, M.GAMES_PLAYED)
        return b"".join(self._meter(code) for code in codes)

    def _lp1c(self) -> bytes:
        codes = (M.TOTAL_COIN_IN, M.TOTAL_COIN_OUT, M.TOTAL_DROP, M.TOTAL_JACKPOT)
        return b"".join(
            [
                *(self._meter(code) for code in codes),
                self._meter(M.GAMES_PLAYED),
                self._meter(M.GAMES_WON),
                _bcd(self.slot_door_opened_count, 4),
                _bcd(self.power_reset_count, 4),
            ]
        )

    def _lp1e(self) -> bytes:
        return b"".join(_bcd(self._bills(units), 4) for units in BILL_METERS_1E)

    def _lp1b(self) -> bytes:
        hp = self.handpay
        if hp is None:
            return bytes(20)
        return (
            bytes([hp.progressive_group, hp.level])
            + _bcd(hp.credits, 5)
            + _bcd(hp.partial_pay, 2)
            + bytes([hp.reset_id])
            + bytes(10)
        )

    def _lp1f(self) -> bytes:
        return (
            (self.game_id + self.additional_id).encode("ascii")
            + bytes([self.denomination_code, self.max_bet, self.progressive_group])
            + self.game_options.to_bytes(2, "little")
            + (self.paytable_id + self.base_percent).encode("ascii")
        )

    def _lp48(self) -> bytes:
        cents = self.last_bill_cents
        units = (cents or 0) // 100
        if cents is None or units not in BILL_DENOMINATION_CODES:
            return bytes(6)
        return (
            to_bcd(self.bill_country_code, 1)
            + to_bcd(BILL_DENOMINATION_CODES[units], 1)
            + _bcd(self._bills(units), 4)
        )

    def _lp54(self) -> bytes:
        text = (self.sas_version + self.serial).encode("ascii")
        return bytes([len(text)]) + text

    def _ack(self) -> bytes:
        return bytes([self.address])

    def _nack(self) -> bytes:
        return bytes([self.address | GENERAL_POLL_BIT])

    def _lp_enable_play(self, enabled: bool) -> Callable[[bytes], bytes]:
        def handle(_: bytes) -> bytes:
            self.play_enabled = enabled
            return self._ack()

        return handle

    def _lp_bill_acceptor(self, enabled: bool) -> Callable[[bytes], bytes]:
        def handle(_: bytes) -> bytes:
            self.bill_acceptor_enabled = enabled
            return self._ack()

        return handle

    def _lp21(self, poll: bytes) -> bytes:
        seed = int.from_bytes(poll[2:4], "little")
        reply = with_crc(poll[:2] + self.rom_signature(seed).to_bytes(2, "little"))
        if not self.rom_signature_on_general_poll:
            return reply
        self._rom_reply = reply
        return self._ack()

    def _lp94(self, poll: bytes) -> bytes:
        hp = self.handpay
        if hp is None:
            code = RESET_NOT_IN_HANDPAY
        elif not self.allow_remote_handpay_reset:
            code = RESET_UNABLE
        else:
            self._reset_handpay(hp)
            code = RESET_DONE
        reply = with_crc(poll[:2] + bytes([code]))
        self._sent = _Sent(poll, reply)  # a repeated 94 gets the same answer, no second reset
        return reply

    def _reset_handpay(self, hp: Handpay) -> None:
        if hp.cancelled_credits:
            self.accounts.pay_by_hand(hp.credits)
        else:
            self.accounts.record_jackpot(hp.credits)
        self.handpay = None
        self.exceptions.raise_(HANDPAY_RESET)
        if self.on_handpay_reset is not None:
            self.on_handpay_reset(hp)

    def _selected(self, poll: bytes, code_width: int, most: int) -> tuple[list[int], bool]:
        """The meter codes a 2F/6F poll asks for, and whether it is well formed."""
        length = poll[2]
        body = poll[5 : 3 + length]
        count, rest = divmod(len(body), code_width)
        ok = rest == 0 and 1 <= count <= most and is_bcd(poll[3:5])
        steps = range(0, len(body), code_width)
        codes = [int.from_bytes(body[i : i + code_width], "little") for i in steps]
        return codes, ok

    def _meter_value(self, code: int) -> int | None:
        """The value of SAS meter ``code`` (None: the twin has none)."""
        if code in SELECTABLE_METERS:
            return self.accounts.reading(MeterCode(code))
        units = BILL_METERS_BY_CODE.get(code)
        return None if units is None else self._bills(units)

    def _lp2f(self, poll: bytes) -> bytes | None:
        codes, ok = self._selected(poll, 1, MAX_2F_METERS)
        if not ok:
            return self._nack()
        if from_bcd(poll[3:5]) != 0:
            return None  # not a multi-game machine: game N polls ignored (SAS 7.6.3)
        body = poll[3:5]
        for code in codes:
            value = self._meter_value(code)
            if value is not None:
                body += bytes([code]) + _bcd(value, 4)
        return with_crc(poll[:2] + bytes([len(body)]) + body)

    def _lp6f(self, poll: bytes) -> bytes | None:
        codes, ok = self._selected(poll, 2, MAX_6F_METERS)
        if not ok:
            return self._nack()
        if from_bcd(poll[3:5]) != 0:
            return None
        width = (self.accounts.meter_digits + 1) // 2
        body = poll[3:5]
        for code in codes:
            value = self._meter_value(code)
            body += code.to_bytes(2, "little")
            body += bytes([0]) if value is None else bytes([width]) + _bcd(value, width)
        return with_crc(poll[:2] + bytes([len(body)]) + body)


def _bcd(value: int, width: int) -> bytes:
    """A meter in ``width`` BCD bytes, rolled over at the field's width as SAS meters are."""
    return to_bcd(value % 10 ** (2 * width), width)


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise ValueError(what)


def _ascii(name: str, text: str, shortest: int, longest: int) -> str:
    ok = text.isascii() and text.isprintable() and shortest <= len(text) <= longest
    _need(ok, f"{name} must be {shortest}..{longest} printable ASCII characters, got {text!r}")
    return text


def _program_bytes(program: bytes | str) -> bytes:
    """The program image: bytes, or the hex content hash that stands for it in the twin."""
    if isinstance(program, bytes):
        data = program
    else:
        try:
            data = bytes.fromhex(program)
        except ValueError:
            raise ValueError(f"program must be bytes or a hex signature, got {program!r}") from None
    _need(len(data) > 0, "program image must not be empty")
    return data


__all__ = ["GameLike", "Handpay", "SasGamingMachine"]
