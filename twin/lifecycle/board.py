"""The Gaming Board as the lifecycle meets it (regs 31-35): its register of authorised
machines (kept by the Secretary), the certificate listing them, its decisions and its written
approvals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from twin.lifecycle.records import BoardDecided, CertificateIssued


@dataclass
class Entry:
    """A machine on the Board's register: where it is kept and the program filed for it."""

    machine: str
    place: str  # "floor" or "reserve"
    signature: str


class Board:
    """The Gaming Board and its Secretary: the register, the certificate, decisions."""

    def __init__(self, world: Any, licensed: int, decision_s: float) -> None:
        self.world = world
        self.licensed = licensed
        self.decision_s = decision_s
        self.register: dict[str, Entry] = {}
        self.version = 0
        self.with_board = False  # the certificate was produced to the Board (reg 35)
        self._approvals = 0

    def count(self, place: str) -> int:
        return sum(1 for e in self.register.values() if e.place == place)

    def issue_certificate(self) -> None:
        """A new (or amended) certificate listing the registered machines (regs 33, 35)."""
        self.version += 1
        self.world.bus.emit(
            CertificateIssued, version=self.version, machines=tuple(sorted(self.register))
        )

    def approval_ref(self) -> str:
        self._approvals += 1
        return f"BA-{self._approvals:04d}"

    def decided(
        self,
        matter: str,
        decision: str,
        machine: str,
        *,
        work: str = "",
        approval: str = "",
        requested_t: float,
        reason: str = "",
        in_writing: bool = True,
    ) -> None:
        self.world.bus.emit(
            BoardDecided, matter=matter, decision=decision, machine=machine, work=work,
            approval=approval, requested_t=requested_t, in_writing=in_writing,
            registered=self.count("floor"), reserve=self.count("reserve"), reason=reason,
        )  # fmt: skip


__all__ = ["Board", "Entry"]
