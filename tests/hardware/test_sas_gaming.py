"""The twin's machine as a SAS gaming machine: exact reply bytes for every implemented poll."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from twin.hardware.sas import Handpay, SasGamingMachine
from twin.hardware.sas.crc import with_crc
from twin.machines.accounting import SlotAccounts
from twin.machines.sas import MeterCode

PROGRAM = "ab" * 32  # the twin stands for a program image by its SHA-256 (hex)
DOCS = Path(__file__).resolve().parents[2] / "docs" / "sas.md"


def played() -> SlotAccounts:
    """The scenario of docs/sas.md: 1-cent machine, 200 coins, a 20.00 bill, 50 games
    (120 credits wagered, 80 won, 20 games won), 30 credits paid from the hopper."""
    a = SlotAccounts(
        denomination_cents=1,
        hopper_capacity=1000,
        hopper_level=500,
        bill_denominations_cents=(500, 1000, 2000, 5000),
    )
    a.insert_coins(200)
    a.insert_bill(2000)
    a.record_play(games=50, wagered=120, won=80, games_won=20)
    a.pay_from_hopper(30)
    return a


def machine(accounts: SlotAccounts | None = None, **kw: object) -> SasGamingMachine:
    args: dict[str, object] = {
        "address": 1,
        "serial": "MT-000123",
        "game_id": "AT",
        "paytable_id": "P96A",
        "program": PROGRAM,
        "base_percent": "9650",
        "max_bet": 5,
    }
    args.update(kw)
    return SasGamingMachine(accounts or played(), **args)  # type: ignore[arg-type]


def ask(m: SasGamingMachine, poll: str) -> str | None:
    reply = m.answer(bytes.fromhex(poll))
    return None if reply is None else reply.hex()


def crc(hexstr: str) -> str:
    return with_crc(bytes.fromhex(hexstr)).hex()


# -- type R meter polls ---------------------------------------------------------------------
METER_POLLS = [
    ("0110", "011000000030e881"),  # total cancelled credits 30
    ("0111", "011100000120f583"),  # coin in 120
    ("0112", "011200000080eb22"),  # coin out 80
    ("0113", "011300002000948e"),  # drop 2000 (the bill)
    ("0114", "0114000000007b9d"),  # jackpot 0
    ("0115", "011500000050bac4"),  # games played 50
    ("0116", "011600000020f1aa"),  # games won 20
    ("0117", "01170000003034b1"),  # games lost 30
    ("0119", "011900000120000000800000200000000000000000500492"),
    ("011a", "011a00002130abf7"),  # credits 200 + 2000 - 120 + 80 - 30
    ("011c", "011c0000012000000080000020000000000000000050000000200000000000000000cdf3"),
    ("011e", "011e000000000000000000000000000000010000000000000000dffd"),  # one $20 bill
    ("012a", "012a00000200a21b"),  # true coin in: 200 coins
    ("012b", "012b00000030d512"),  # true coin out: 30 coins
    ("0118", "0118005000502d3b"),  # games since power up 50, since door closure 50
    ("0120", "012000000020b845"),  # value of bills: 20 units
    ("0151", "0151000084c5"),  # no multi-game extensions: 0 games
]


@pytest.mark.parametrize(("poll", "reply"), METER_POLLS)
def test_meter_polls_answer_exact_bytes(poll: str, reply: str) -> None:
    assert ask(machine(), poll) == reply


def test_meters_roll_over_at_the_field_width() -> None:
    a = SlotAccounts(denomination_cents=1, hopper_capacity=10, hopper_level=0, meter_digits=10)
    a.tamper_meter(MeterCode.TOTAL_COIN_IN, 12_345_678_901)
    m = machine(a)
    assert ask(m, "0111") == crc("0111" + "45678901")  # 4 BCD bytes: 8 digits
    # 6F reports the machine's own width: 10 digits, 5 bytes.
    assert ask(m, crc("016f04000000" + "00")) == crc("016f0a" + "0000" + "000005" + "2345678901")


def test_gaming_machine_information_1f() -> None:
    reply = ask(machine(), "011f")
    assert reply == "011f4154303030010500000050393641202039363530e55d"
    assert reply is not None and len(bytes.fromhex(reply)) == 24
    body = bytes.fromhex(reply)[2:-2]
    assert body[0:2] == b"AT" and body[2:5] == b"000"  # game id, additional id
    assert body[5:8] == bytes([0x01, 5, 0])  # 1 cent, max bet 5, progressive group 0
    assert body[8:10] == b"\x00\x00" and body[10:16] == b"P96A  " and body[16:20] == b"9650"


def test_sas_version_and_serial_54() -> None:
    assert ask(machine(), "0154") == "01540c3630324d542d3030303132339512"
    assert ask(machine(serial=""), "0154") == crc("015403" + b"602".hex())


def test_last_accepted_bill_48() -> None:
    m = machine()
    assert ask(m, "0148") == "01480000000000005598"  # no bill seen yet: zeros
    m.bill_accepted(2000)
    assert ask(m, "81") == "4a"  # $20.00 bill accepted
    assert ask(m, "0148") == "0148000400000001cca4"  # country 00, $20 (code 04), 1 bill
    m.bill_accepted(1000)
    assert ask(m, "0148") == crc("0148" + "00" + "03" + "00000000")  # no 10.00 on the meters


def test_bill_exceptions_by_value() -> None:
    m = machine()
    for cents in (100, 500, 10000, 20000, 2500):
        m.bill_accepted(cents)
    assert m.exceptions.waiting() == [0x47, 0x48, 0x4C, 0x50, 0x4F]
    with pytest.raises(ValueError, match="whole number of units"):
        m.bill_accepted(250)


# -- selected and extended meters -----------------------------------------------------------
def test_selected_meters_2f_leaves_out_what_the_twin_has_not() -> None:
    # coin in (00), current credits (0C), $20 bills (44) and 7F, a meter the twin has not.
    poll = crc("012f06" + "0000" + "000c447f")
    assert poll == "012f060000000c447fa71d"
    assert ask(machine(), poll) == "012f11000000000001200c000021304400000001bb0b"


def test_extended_meters_6f_and_af() -> None:
    poll = crc("016f0a" + "0000" + "0000" + "0c00" + "4400" + "7f00")
    reply = "016f1a0000000004000001200c000400002130440004000000017f000079c0"
    assert ask(machine(), poll) == reply  # 7F: size 0, no value
    assert ask(machine(), crc("01af04" + "0000" + "0000")) == "01af090000000004000001204cb9"


@pytest.mark.parametrize(
    "body",
    [
        "012f02" + "0000",  # no meter asked
        "012f0d" + "0000" + "00" * 11,  # 11 meters: more than 10
        "012f03" + "00a0" + "00",  # game number not BCD
        "016f05" + "0000" + "000000",  # odd meter code bytes
        "016f1c" + "0000" + "0000" * 13,  # 13 meters: more than 12
    ],
)
def test_malformed_meter_requests_are_nacked(body: str) -> None:
    assert ask(machine(), crc(body)) == "81"


def test_game_n_other_than_zero_is_ignored() -> None:
    assert ask(machine(), crc("012f03" + "0001" + "00")) is None


# -- ROM signature --------------------------------------------------------------------------
def test_rom_signature_is_acked_then_answered_on_the_general_poll() -> None:
    m = machine()
    m.raise_exception(0x11)
    assert ask(m, "012100005c45") == "01"  # seed 0000: ACK
    assert ask(m, "81") == "0121c34b4959"  # signature 0x4BC3, before the queued 0x11
    assert ask(m, "81") == "0121c34b4959"  # repeated: implied NACK, sent again
    assert ask(m, "80") is None  # global poll: implied ACK
    assert ask(m, "81") == "11"
    assert ask(m, "012134120da7") == "01"  # seed 0x1234
    assert ask(m, "81") == "012156fd11ee"
    assert m.rom_signature(0x1234) == 0xFD56


def test_rom_signature_direct_reply_option() -> None:
    m = machine(rom_signature_on_general_poll=False)
    assert ask(m, "012100005c45") == "0121c34b4959"


def test_tampered_program_answers_another_signature() -> None:
    honest, tampered = machine(), machine(program="ab" * 31 + "ac")
    for seed in ("0000", "3412", "ffff"):
        poll = crc("0121" + seed)
        assert ask(honest, poll) == ask(tampered, poll) == "01"
        assert ask(honest, "81") != ask(tampered, "81")
    assert tampered.rom_signature(0) == 0x3F7C
    tampered.program = bytes.fromhex(PROGRAM)  # the approved program back
    assert tampered.rom_signature(0) == honest.rom_signature(0) == 0x4BC3


def test_bad_program_is_an_error() -> None:
    with pytest.raises(ValueError, match="hex signature"):
        machine(program="not hex")


# -- enable and disable ---------------------------------------------------------------------
def test_shutdown_startup_and_bill_acceptor() -> None:
    m = machine()
    assert ask(m, "01015108") == "01" and not m.play_enabled and not m.can_play
    assert ask(m, "0102ca3a") == "01" and m.play_enabled and m.can_play
    assert ask(m, "0107676d") == "01" and not m.bill_acceptor_enabled
    assert ask(m, "0106ee7c") == "01" and m.bill_acceptor_enabled


# -- hand pay -------------------------------------------------------------------------------
def test_handpay_information_and_remote_reset() -> None:
    a = played()
    m = machine(a)
    assert ask(m, "011b") == "011b00000000000000000000000000000000000000006b2d"
    assert ask(m, "019475cb") == "019402f307"  # not in a hand pay
    m.handpay_pending(5000)
    assert not m.can_play
    assert ask(m, "81") == "51"
    assert ask(m, "011b") == "011b004000000050000000000000000000000000000008ec"
    assert a.reading(MeterCode.TOTAL_JACKPOT) == 0  # nothing paid yet
    assert ask(m, "019475cb") == "019400e124"  # reset
    assert ask(m, "019475cb") == "019400e124"  # repeated: the same answer, no second reset
    assert a.reading(MeterCode.TOTAL_JACKPOT) == 5000
    assert ask(m, "81") == "52" and m.handpay is None and m.can_play
    assert a.invariant_violations() == []


def test_attendant_reset_of_cancelled_credits() -> None:
    a = played()
    seen: list[Handpay] = []
    m = machine(a, on_handpay_reset=seen.append)
    hp = m.handpay_pending(1000, cancelled_credits=True)
    assert ask(m, "011b") == crc("011b0080" + "0000001000" + "0000" + "00" + "00" * 10)
    with pytest.raises(ValueError, match="already locked"):
        m.handpay_pending(1)
    assert m.handpay_reset() == hp and seen == [hp]
    assert a.credits == 1130 and a.invariant_violations() == []
    assert m.exceptions.waiting() == [0x51, 0x52]
    with pytest.raises(ValueError, match="not in a hand pay"):
        m.handpay_reset()


def test_handpay_fields_out_of_range_are_errors() -> None:
    m = machine()
    with pytest.raises(ValueError, match=re.escape("partial_pay must be 0..9999")):
        m.handpay_pending(10, partial_pay=10_000)
    with pytest.raises(ValueError, match=re.escape("progressive_group must be 0..255")):
        m.handpay_pending(10, progressive_group=256)
    with pytest.raises(ValueError, match="a hand pay must be positive"):
        m.handpay_pending(0)
    assert not m.in_handpay
    hp = m.handpay_pending(10, progressive_group=2, level=1, partial_pay=3)
    assert ask(m, "011b") == crc("011b0201" + "0000000010" + "0003" + "00" + "00" * 10)
    assert hp.level == 1


def test_remote_reset_refused_when_not_allowed() -> None:
    m = machine(allow_remote_handpay_reset=False)
    m.handpay_pending(10)
    assert ask(m, "019475cb") == crc("019401") and m.in_handpay


# -- general poll, exception queue, implied ACK ---------------------------------------------
def test_general_poll_sends_no_activity_then_exceptions_in_order() -> None:
    m = machine()
    assert ask(m, "81") == "00"
    for code in (0x11, 0x12, 0x51):
        m.raise_exception(code)
    got = []
    for _ in range(4):
        got.append(ask(m, "81"))
        assert ask(m, "80") is None  # the host's implied ACK
    assert got == ["51", "11", "12", "00"]
    assert m.slot_door_opened_count == 1


def test_exception_leaves_only_on_implied_ack() -> None:
    m = machine()
    m.raise_exception(0x11)
    m.raise_exception(0x12)
    assert ask(m, "81") == "11"
    assert ask(m, "81") == "11"  # same poll again: implied NACK, resent
    assert ask(m, "82") is None  # a poll to another machine: implied ACK
    assert ask(m, "81") == "12"
    assert ask(m, "011a") == "011a00002130abf7"  # a long poll: implied ACK
    assert ask(m, "81") == "00"


def test_queue_overflow_reports_0x70_first() -> None:
    m = machine()
    for i in range(21):
        m.raise_exception(0x20 if i == 0 else 0x11)
    got = []
    for _ in range(22):
        got.append(ask(m, "81"))
        ask(m, "80")
    assert got == ["70", *["11"] * 20, "00"]  # 0x20, the oldest, was lost
    assert m.exceptions.lost == 1


def test_queue_capacity_is_configurable() -> None:
    m = machine(queue_capacity=2)
    for code in (0x11, 0x12, 0x13):
        m.raise_exception(code)
    assert m.exceptions.waiting() == [0x70, 0x12, 0x13]


# -- what a real machine gives to bad polls -------------------------------------------------
@pytest.mark.parametrize(
    "poll",
    [
        "01015109",  # shutdown with a bad CRC
        "02015108",  # another machine's shutdown
        "0201",  # too short for it
        "0210",  # another machine's meter poll
        "82",  # another machine's general poll
        "80",  # the global poll
        "01ee",  # a long poll SAS does not define
        crc("0103"),  # sound off: defined, not implemented
        crc("000101"),  # a global broadcast
        "011a00",  # a type R poll with a stray byte
        "8100",  # a general poll with a stray byte
        "",
    ],
)
def test_bad_misaddressed_and_unknown_polls_get_silence(poll: str) -> None:
    m = machine()
    assert ask(m, poll) is None
    assert m.play_enabled and m.internal_errors == 0


def test_poll_length() -> None:
    m = machine()
    assert m.poll_length(b"") is None
    assert m.poll_length(b"\x81") == 1
    assert m.poll_length(b"\x80") == 1
    assert m.poll_length(b"\x05") is None
    assert m.poll_length(b"\x05\x1a") == 2  # another machine's: still framed
    assert m.poll_length(b"\x01\x94") == 4
    assert m.poll_length(b"\x01\x6f\x06") == 11


@settings(max_examples=400, deadline=None)
@given(st.lists(st.binary(min_size=0, max_size=40), max_size=20))
def test_answer_never_raises(polls: list[bytes]) -> None:
    m = machine()
    m.raise_exception(0x11)
    for poll in polls:
        head = bytes([1]) + poll if poll[:1] == b"\x00" else poll
        for p in (poll, head, with_crc(head) if head else head):
            reply = m.answer(p)
            assert reply is None or isinstance(reply, bytes)
            length = m.poll_length(p)
            assert length is None or length >= 1
    assert m.internal_errors == 0


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=0xFF), st.binary(max_size=30))
def test_every_command_with_a_good_crc_never_raises(command: int, data: bytes) -> None:
    m = machine()
    m.handpay_pending(7)
    head = bytes([1, command]) + data
    for poll in (head, with_crc(head), with_crc(bytes([1, command, len(data)]) + data)):
        m.answer(poll)
    assert m.internal_errors == 0


def test_constructor_errors_name_the_field() -> None:
    with pytest.raises(ValueError, match=re.escape("address must be 1..127, got 0")):
        machine(address=0)
    with pytest.raises(ValueError, match=re.escape("game_id must be 2..2")):
        machine(game_id="ATX")
    with pytest.raises(ValueError, match="base_percent must be 4 digits"):
        machine(base_percent="96.5")
    with pytest.raises(ValueError, match="no SAS denomination code for 7 cents"):
        machine(SlotAccounts(denomination_cents=7, hopper_capacity=1, hopper_level=0))
    assert machine(denomination_code=0x06).denomination_code == 0x06


# -- the recorded exchanges of docs/sas.md --------------------------------------------------
def test_docs_exchanges_replay_byte_for_byte() -> None:
    """Every ``>`` poll / ``<`` reply of docs/sas.md, replayed in order on the docs' scenario;
    ``!`` lines are what the twin does in between."""
    m = machine()
    lines = re.findall(r"^([><!]) ?(.*)$", DOCS.read_text(), flags=re.M)
    assert len(lines) > 40
    reply: str | None = None
    for kind, text in lines:
        text = text.split("#")[0].strip()
        if kind == "!":
            name, *args = text.split()
            getattr(m, name)(*(int(x, 0) for x in args))
        elif kind == ">":
            reply = ask(m, text.replace(" ", ""))
        else:
            expected = None if text == "(silence)" else text.replace(" ", "")
            assert reply == expected, f"docs/sas.md: {text}"


# -- the twin's side ------------------------------------------------------------------------
def test_power_reset_and_slot_door_counts_feed_1c() -> None:
    m = machine()
    for code in (0x17, 0x11, 0x12, 0x17):
        m.raise_exception(code)
    reply = ask(m, "011c")
    assert reply is not None
    assert reply[4 + 6 * 8 : 4 + 8 * 8] == "00000001" + "00000002"  # door opened, power reset


class _Broken(SlotAccounts):
    def reading(self, code: MeterCode) -> int:
        raise RuntimeError("a bug while reading a meter")


def test_a_bug_while_answering_is_counted_and_answered_with_silence() -> None:
    a = _Broken(denomination_cents=1, hopper_capacity=1, hopper_level=0)
    m = machine(a)
    assert ask(m, "0111") is None and m.internal_errors == 1
    assert ask(m, "81") == "00"  # the machine goes on


def test_for_game_uses_the_game_signature_as_program() -> None:
    class G:
        id = "book-of-ra"
        signature = PROGRAM

    m = SasGamingMachine.for_game(played(), G(), address=3, serial="S-1")
    assert m.paytable_id == "book-o" and m.game_id == "TW" and m.address == 3
    assert m.rom_signature(0) == machine().rom_signature(0) == 0x4BC3


def test_on_activity_reports_bills() -> None:
    m = machine()
    m.on_activity("game_ended", {"games": 3})
    m.on_activity("bill_accepted", {"cents": 5000, "credits": 5000})
    assert m.exceptions.waiting() == [0x4B] and m.last_bill_cents == 5000


def test_a_shared_lock_holds_polls_while_the_accounts_change() -> None:
    lock = threading.RLock()
    m = machine(lock=lock)
    replies: list[str | None] = []
    with lock:
        t = threading.Thread(target=lambda: replies.append(ask(m, "0111")))
        t.start()
        t.join(0.2)
        assert t.is_alive() and replies == []  # waiting for the lock
        m.accounts.record_play(games=1, wagered=10, won=0, games_won=0)
    t.join(5)
    assert replies == [crc("0111" + "00000130")]
