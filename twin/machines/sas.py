"""SAS vocabulary: meter codes and general exception codes (SAS 6.0x, Appendix A/C).

Simulated machines, emulated SMIBs and real SMIBs share these codes, so a record written by
any of them means the same thing.
"""

from __future__ import annotations

from enum import IntEnum


class MeterCode(IntEnum):
    """SAS meter codes of the meters a Malta authorised machine keeps."""

    TOTAL_COIN_IN = 0x00
    TOTAL_COIN_OUT = 0x01
    TOTAL_JACKPOT = 0x02
    HANDPAID_CANCELLED_CREDITS = 0x03
    TOTAL_CANCELLED_CREDITS = 0x04
    GAMES_PLAYED = 0x05
    GAMES_WON = 0x06
    GAMES_LOST = 0x07
    COIN_ACCEPTOR_CREDITS = 0x08
    HOPPER_PAID_CREDITS = 0x09
    COINS_TO_DROP_CREDITS = 0x0A
    BILL_CREDITS = 0x0B
    CURRENT_CREDITS = 0x0C
    TOTAL_DROP = 0x24
    GAMES_SINCE_POWER_RESET = 0x25
    GAMES_SINCE_DOOR_CLOSED = 0x26


#: SAS bill meters: number of bills accepted, by face value in whole currency units.
BILL_METER_CODES: dict[int, int] = {
    1: 0x40,
    2: 0x41,
    5: 0x42,
    10: 0x43,
    20: 0x44,
    50: 0x45,
    100: 0x46,
    500: 0x47,
    1000: 0x48,
    200: 0x49,
}


class ExceptionCode(IntEnum):
    """SAS general exception codes raised by the machine model."""

    SLOT_DOOR_OPENED = 0x11
    SLOT_DOOR_CLOSED = 0x12
    DROP_DOOR_OPENED = 0x13
    DROP_DOOR_CLOSED = 0x14
    CARD_CAGE_OPENED = 0x15  # logic door
    CARD_CAGE_CLOSED = 0x16
    AC_POWER_APPLIED = 0x17
    AC_POWER_LOST = 0x18
    CASHBOX_DOOR_OPENED = 0x19
    CASHBOX_DOOR_CLOSED = 0x1A
    GENERAL_TILT = 0x20
    COIN_IN_TILT = 0x21
    COIN_OUT_TILT = 0x22  # hopper jam
    HOPPER_EMPTY = 0x23
    BILL_JAM = 0x28
    REVERSE_COIN_IN = 0x2D
    CMOS_RAM_ERROR_NO_DATA = 0x32
    HANDPAY_PENDING = 0x51
    HANDPAY_RESET = 0x52


class Door(IntEnum):
    """Machine doors, valued by their SAS 'opened' code (closed = opened + 1)."""

    SLOT = ExceptionCode.SLOT_DOOR_OPENED
    DROP = ExceptionCode.DROP_DOOR_OPENED
    LOGIC = ExceptionCode.CARD_CAGE_OPENED
    CASHBOX = ExceptionCode.CASHBOX_DOOR_OPENED

    @property
    def opened_code(self) -> ExceptionCode:
        return ExceptionCode(int(self))

    @property
    def closed_code(self) -> ExceptionCode:
        return ExceptionCode(int(self) + 1)
