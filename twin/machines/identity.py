"""Machine identity for the Board's registry: registration, serial, certificate, signature."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date


@dataclass(frozen=True, slots=True)
class ManufacturerCertificate:
    """The particulars of a manufacturer's certificate, Malta reg 28(4)(i)-(vii)."""

    manufacturer: str  # (i)
    brand: str  # (ii)
    serial: str  # (iii)
    model: str  # (iv)
    manufactured: date  # (v)
    minimum_payout_percent: str  # (vi) exact, as a decimal string
    payout_calculation: str  # (vi) the manner in which it is calculated
    game_type: str  # (vii) full description ...
    game_theme: str
    progressive_increment_bp: int | None
    program_serial: str  # the program signature
    max_bet_credits: int
    highest_jackpot_credits: int


@dataclass(frozen=True, slots=True)
class MachineIdentity:
    registration: str  # Board registration number
    serial: str
    certificate: ManufacturerCertificate
    program_signature: str  # sha256 of the PAR sheet the machine runs
