"""The ROM signature a SAS SMIB reports in place of a program signature (issue 30).

A SMIB cannot read a machine's program image; it can ask the machine for the image's CRC-16
seeded with a number of its choosing (long poll 21, ``docs/sas.md``). The reference SMIB puts
that challenge and its answer in its birth's ``identity.program`` as
``sas-rom-crc16:SSSS:CCCC`` (seed, signature; 4 hex digits each), and the twin's host checks
it against the program the Board's register approves: the CRC-16 of that image seeded the
same way. A tampered program answers another signature (except for one seed in 65,536 on
average, which is why the seed changes at every birth).
"""

from __future__ import annotations

import re

from twin.hardware.sas.crc import crc16

PREFIX = "sas-rom-crc16"
_FORM = re.compile(rf"^{PREFIX}:([0-9a-f]{{4}}):([0-9a-f]{{4}})$")


def rom_program(seed: int, signature: int) -> str:
    """``identity.program`` for a ROM signature ``signature`` answered to ``seed``."""
    if not (0 <= seed <= 0xFFFF and 0 <= signature <= 0xFFFF):
        raise ValueError(f"seed and signature are 16-bit values, got {seed} and {signature}")
    return f"{PREFIX}:{seed:04x}:{signature:04x}"


def parse_rom_program(text: str) -> tuple[int, int] | None:
    """(seed, signature) of a ``sas-rom-crc16:SSSS:CCCC`` program, None for anything else."""
    m = _FORM.match(text)
    return (int(m.group(1), 16), int(m.group(2), 16)) if m else None


def expected_signature(approved: str, seed: int) -> int:
    """The ROM signature of the approved program (its hex image) for ``seed``."""
    return crc16(bytes.fromhex(approved), seed)


__all__ = ["PREFIX", "expected_signature", "parse_rom_program", "rom_program"]
