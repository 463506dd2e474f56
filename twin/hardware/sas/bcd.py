"""Packed BCD of fixed byte widths, as SAS sends meters (most significant byte first).

A 4-byte field holds 8 decimal digits, a 5-byte field 10. A value that does not fit, or a
byte that is not two decimal digits, is an error (:class:`BcdError`), never a silent wrap.
"""

from __future__ import annotations


class BcdError(ValueError):
    """A value does not fit its BCD field, or bytes are not valid packed BCD."""


def to_bcd(value: int, width: int) -> bytes:
    """``value`` as ``width`` bytes of packed BCD (2 digits a byte, most significant first)."""
    if width < 1:
        raise BcdError(f"BCD width must be at least 1 byte, got {width}")
    if value < 0:
        raise BcdError(f"BCD value must be non-negative, got {value}")
    if value >= 10 ** (2 * width):
        raise BcdError(f"{value} does not fit {width} BCD bytes ({2 * width} digits)")
    digits = str(value).rjust(2 * width, "0")
    return bytes(int(digits[i]) << 4 | int(digits[i + 1]) for i in range(0, 2 * width, 2))


def from_bcd(data: bytes) -> int:
    """The value of packed BCD bytes (most significant first)."""
    value = 0
    for byte in data:
        high, low = byte >> 4, byte & 0x0F
        if high > 9 or low > 9:
            raise BcdError(f"byte 0x{byte:02X} is not packed BCD")
        value = value * 100 + high * 10 + low
    return value


def is_bcd(data: bytes) -> bool:
    """Whether every byte of ``data`` is two decimal digits."""
    return all(b >> 4 <= 9 and b & 0x0F <= 9 for b in data)


__all__ = ["BcdError", "from_bcd", "is_bcd", "to_bcd"]
