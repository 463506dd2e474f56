"""What the floor and patrons may use of a machine: the ``Machine`` protocol.

The floor and patrons depend on this, not on ``SlotMachine``: a hardware-backed machine, an
emulated SMIB or a test double that has these members can stand on the floor. Read-only
properties here are satisfied by plain attributes (``SlotMachine.id``, ``MachineSpec.zone``).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, Protocol

import simpy


class MachineFacts(Protocol):
    """The fixed facts of a machine that a patron or the floor looks at (its spec)."""

    @property
    def zone(self) -> str: ...

    @property
    def denomination_cents(self) -> int: ...

    @property
    def coin_acceptor(self) -> bool: ...

    @property
    def bill_acceptor(self) -> bool: ...

    @property
    def bill_denominations_cents(self) -> tuple[int, ...]: ...


class CreditMeter(Protocol):
    """The machine's credit meter, as a patron reads it."""

    @property
    def credits(self) -> int: ...


class Machine(Protocol):
    """A machine on the floor, as the floor and its patrons use it."""

    #: The patron seated at it (``None`` when free); the floor sets it.
    patron: str | None

    @property
    def id(self) -> str: ...

    @property
    def spec(self) -> MachineFacts: ...

    @property
    def accounts(self) -> CreditMeter: ...

    @property
    def available(self) -> bool:
        """Working (not down for a fault, a door, a hand pay...)."""
        ...

    def insert_coins(self, patron: str, coins: int) -> None: ...

    def insert_bill(self, patron: str, cents: int) -> None: ...

    def play_session(
        self,
        patron: str,
        *,
        bet_units: int,
        pace: float,
        until: float,
        floor_credits: int,
        goal_credits: int,
    ) -> Generator[simpy.events.Event, Any, int]:
        """Play until ``until`` or a stop, then cash out; returns the credits paid out."""
        ...


__all__ = ["CreditMeter", "Machine", "MachineFacts"]
