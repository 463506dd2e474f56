"""SAS CRC-16: the CRC-16/KERMIT algorithm (SAS 6.02 section 5).

Polynomial x^16 + x^12 + x^5 + 1 (0x1021) processed least significant bit first (reflected:
0x8408), initial value 0 (or a seed: the ROM signature of long poll 0x21), no final XOR. The
two CRC bytes follow the message low byte first. Check value: ``crc16(b"123456789") == 0x2189``.
"""

from __future__ import annotations


def _table() -> tuple[int, ...]:
    out = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
        out.append(crc)
    return tuple(out)


_TABLE = _table()


def crc16(data: bytes, seed: int = 0) -> int:
    """The CRC of ``data`` starting from ``seed`` (0 for messages; the host's seed for 0x21)."""
    if not 0 <= seed <= 0xFFFF:
        raise ValueError(f"CRC seed must be 0..0xFFFF, got {seed}")
    crc = seed
    for byte in data:
        crc = (crc >> 8) ^ _TABLE[(crc ^ byte) & 0xFF]
    return crc


def crc_bytes(data: bytes) -> bytes:
    """The two CRC bytes of ``data`` as sent on the line: low byte first."""
    return crc16(data).to_bytes(2, "little")


def with_crc(data: bytes) -> bytes:
    """``data`` followed by its CRC (low byte first)."""
    return data + crc_bytes(data)


def crc_ok(message: bytes) -> bool:
    """Whether ``message`` ends with the correct CRC of the bytes before it."""
    return len(message) >= 3 and crc_bytes(message[:-2]) == message[-2:]


__all__ = ["crc16", "crc_bytes", "crc_ok", "with_crc"]
