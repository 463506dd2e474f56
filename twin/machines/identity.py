"""Machine identity for the Board's registry: registration, serial, certificate, signature."""

from __future__ import annotations

from dataclasses import dataclass, fields
from fractions import Fraction

from twin.machines.analysis import Analysis


@dataclass(frozen=True, slots=True)
class ManufacturerCertificate:
    """The particulars of a manufacturer's certificate, Malta reg 28(4)(i)-(vii)."""

    manufacturer: str  # (i)
    brand: str  # (ii)
    serial: str  # (iii)
    model: str  # (iv)
    manufactured: str  # (v) ISO date
    minimum_payout_percent: str  # (vi) exact, as a decimal string
    payout_calculation: str  # (vi) the manner in which it is calculated
    game_type: str  # (vii) a full description: type, theme, progressive increment,
    game_theme: str  #       program serial, maximum bet and highest jackpot
    progressive_increment_bp: int | None
    program_serial: str
    max_bet_credits: int
    highest_jackpot_credits: int

    def particulars(self) -> tuple[tuple[str, str], ...]:
        """(name, value) of every particular, as text ("" where it is not given)."""
        return tuple(
            (f.name, "" if getattr(self, f.name) is None else str(getattr(self, f.name)))
            for f in fields(self)
        )


def certificate(
    *,
    manufacturer: str,
    model: str,
    serial: str,
    manufactured: str,
    analysis: Analysis,
    game_name: str,
    max_bet_units: int,
    cost: int,
    increment_bp: int | None,
) -> ManufacturerCertificate:
    """The certificate of a machine running the analysed program at the given settings."""
    floor = Fraction(int(analysis.rtp * 10_000), 100)
    return ManufacturerCertificate(
        manufacturer=manufacturer,
        brand=manufacturer.split()[0] if manufacturer else "",
        serial=serial,
        model=model,
        manufactured=manufactured,
        minimum_payout_percent=f"{float(floor):.2f}",
        payout_calculation=(
            "exact expected return of one game over the full cycle of "
            f"{analysis.cycle:,} weighted stop combinations (line, scatter and feature pays)"
        ),
        game_type=analysis.kind,
        game_theme=game_name,
        progressive_increment_bp=increment_bp,
        program_serial=analysis.signature,
        max_bet_credits=max_bet_units * cost,
        highest_jackpot_credits=analysis.max_win * max_bet_units,
    )
