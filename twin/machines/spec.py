"""What is fixed about a slot machine on the floor, and the crew and faults around it."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, Protocol

import numpy as np
import simpy

from twin.jobs import Service
from twin.machines.identity import ManufacturerCertificate
from twin.machines.par import Game
from twin.machines.sas import ExceptionCode

Proc = Generator[simpy.events.Event, Any, Any]
EngineKind = Literal["batched", "per_spin"]


class Sampler(Protocol):
    def sample(self, rng: np.random.Generator) -> float: ...


@dataclass(frozen=True, slots=True)
class MachineSpec:
    """Everything fixed about one machine on the floor."""

    id: str
    bank: str
    zone: str
    game: Game
    denomination_cents: int
    max_bet_units: int
    hopper_capacity: int
    hopper_standard_fill: int
    hopper_initial: int
    hopper_pay_limit_credits: int
    jackpot_limit_cents: int
    coin_acceptor: bool = True
    bill_acceptor: bool = True
    bill_denominations_cents: tuple[int, ...] = ()
    meter_digits: int = 8
    progressive: str | None = None
    registration: str = ""
    serial: str = ""
    coin_pay_seconds: float = 0.125
    manufacturer: str = ""
    model: str = ""
    manufactured: str = ""
    certificate: ManufacturerCertificate | None = None
    paytable_displayed: bool = True
    promotional: bool = False
    asset_number: str = ""  # the licensee's asset number (First Schedule item 20(c))

    @property
    def certified_min_payout_bp(self) -> int:
        """The certificate's minimum payout in basis points (0 without a certificate)."""
        if self.certificate is None:
            return 0
        return round(float(self.certificate.minimum_payout_percent) * 100)

    @property
    def lock_credits(self) -> int:
        """The smallest win in credits that locks the machine for a hand pay."""
        return -(-self.jackpot_limit_cents // self.denomination_cents)


@dataclass(frozen=True, slots=True)
class Timing:
    """Service times in minutes, drawn from each machine's own service stream."""

    walk: Sampler
    hand_pay: Sampler
    hopper_fill: Sampler
    repair: Sampler


@dataclass
class Crew:
    """Who staffs the machine's jobs (a ``Service``) and how long the work takes.

    ``second_inspector_above_cents``: a hand pay of more than this (exact, in the floor's
    cents) needs two Board inspectors (a proposal's rule; None: one, as today)."""

    service: Service
    timing: Timing
    second_inspector_above_cents: Fraction | None = None


@dataclass(frozen=True, slots=True)
class Disruption:
    """A kind of fault or routine event, at a mean interval per machine (0 = never)."""

    name: str
    code: ExceptionCode
    mtbf_hours: float
