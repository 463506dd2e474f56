"""SAS codec: CRC-16/KERMIT, packed BCD, poll framing and the exception queue."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twin.hardware.sas.bcd import BcdError, from_bcd, is_bcd, to_bcd
from twin.hardware.sas.crc import crc16, crc_bytes, crc_ok, with_crc
from twin.hardware.sas.polls import (
    PRIORITY_EXCEPTIONS,
    QUEUE_CAPACITY,
    ExceptionQueue,
    long_poll_length,
)


# -- CRC ------------------------------------------------------------------------------------
def test_crc_check_value_is_kermit() -> None:
    assert crc16(b"123456789") == 0x2189  # CRC-16/KERMIT check value
    assert crc16(b"") == 0


def test_crc_bytes_go_low_byte_first() -> None:
    assert crc_bytes(b"123456789") == b"\x89\x21"
    # A ROM signature poll with seed 0 (address 1): the CRC SAS hosts send.
    assert with_crc(bytes([0x01, 0x21, 0x00, 0x00])).hex() == "012100005c45"


def test_crc_seed_changes_the_result() -> None:
    assert crc16(b"program", 0x0000) != crc16(b"program", 0x1234)
    with pytest.raises(ValueError, match="seed"):
        crc16(b"x", 0x10000)


def test_crc_ok_detects_a_flipped_bit() -> None:
    msg = with_crc(b"\x01\x2f\x03\x00\x00\x0c")
    assert crc_ok(msg)
    assert not crc_ok(msg[:-1] + bytes([msg[-1] ^ 0x01]))
    assert not crc_ok(b"\x01\x02")


@given(st.binary(max_size=64))
def test_crc_of_message_and_crc_is_zero(data: bytes) -> None:
    # The residue of CRC-16/KERMIT over a message followed by its CRC (low byte first) is 0.
    assert crc16(with_crc(data)) == 0


# -- BCD ------------------------------------------------------------------------------------
def test_bcd_fixed_widths() -> None:
    assert to_bcd(12345678, 4) == bytes.fromhex("12345678")
    assert to_bcd(42, 4) == bytes.fromhex("00000042")
    assert to_bcd(9_999_999_999, 5) == bytes.fromhex("9999999999")
    assert from_bcd(bytes.fromhex("0000002130")) == 2130


def test_bcd_rejects_values_that_do_not_fit() -> None:
    with pytest.raises(BcdError, match="does not fit 4 BCD bytes"):
        to_bcd(100_000_000, 4)
    with pytest.raises(BcdError, match="non-negative"):
        to_bcd(-1, 4)
    with pytest.raises(BcdError, match="width"):
        to_bcd(1, 0)
    with pytest.raises(BcdError, match="0x1A is not packed BCD"):
        from_bcd(b"\x00\x1a")
    assert is_bcd(b"\x99\x00") and not is_bcd(b"\x0a")


@given(st.integers(min_value=1, max_value=9), st.data())
def test_bcd_round_trip(width: int, data: st.DataObject) -> None:
    value = data.draw(st.integers(min_value=0, max_value=10 ** (2 * width) - 1))
    assert from_bcd(to_bcd(value, width)) == value
    assert len(to_bcd(value, width)) == width


# -- framing --------------------------------------------------------------------------------
def test_long_poll_lengths() -> None:
    assert long_poll_length(b"\x01") is None  # the command is not known yet
    assert long_poll_length(b"\x01\x1a") == 2  # type R
    assert long_poll_length(b"\x01\x01") == 4  # type S, no data
    assert long_poll_length(b"\x01\x21") == 6  # seed
    assert long_poll_length(b"\x01\x2f") is None  # needs its length byte
    assert long_poll_length(b"\x01\x2f\x04") == 9
    assert long_poll_length(b"\x01\x6f\x06") == 11
    assert long_poll_length(b"\x00\x7f") == 11  # global date and time
    assert long_poll_length(b"\x01\xee") == 2  # unknown: framed as type R


# -- exception queue ------------------------------------------------------------------------
def test_queue_is_fifo_with_priority_first() -> None:
    q = ExceptionQueue()
    for code in (0x11, 0x12, 0x51, 0x19, 0x52):
        q.raise_(code)
    assert q.waiting() == [0x51, 0x52, 0x11, 0x12, 0x19]
    first = q.peek()
    assert first is not None and first.code == 0x51
    q.remove(first)
    assert q.waiting() == [0x52, 0x11, 0x12, 0x19]


def test_priority_exception_waits_once() -> None:
    q = ExceptionQueue()
    q.raise_(0x51)
    q.raise_(0x51)
    assert q.waiting() == [0x51]


def test_overflow_loses_the_oldest_and_raises_0x70() -> None:
    q = ExceptionQueue(capacity=3)
    for code in (0x11, 0x12, 0x13, 0x14, 0x15):
        q.raise_(code)
    assert q.waiting() == [0x70, 0x13, 0x14, 0x15]
    assert q.lost == 2
    assert QUEUE_CAPACITY == 20 and 0x70 in PRIORITY_EXCEPTIONS


def test_removing_an_exception_an_overflow_took_removes_nothing_else() -> None:
    q = ExceptionQueue(capacity=2)
    q.raise_(0x11)
    sent = q.peek()
    assert sent is not None
    q.raise_(0x12)
    q.raise_(0x13)  # 0x11 is lost
    q.remove(sent)
    assert q.waiting() == [0x70, 0x12, 0x13]


def test_bad_exception_codes_are_errors() -> None:
    with pytest.raises(ValueError, match=re.escape("0x01..0xFF")):
        ExceptionQueue().raise_(0)
    with pytest.raises(ValueError, match="capacity"):
        ExceptionQueue(0)
