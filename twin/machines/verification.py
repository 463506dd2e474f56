"""Program verification and approved conversions: what a machine really runs.

A machine's meter readings carry the program signature it *reports*, and a tampered machine
can report the approved one. The Board learns what a machine actually runs the way a SAS host
verifies a ROM signature (long poll 0x21): the verifier sends a random seed and the machine
computes a signature of the program it runs, salted with that seed
(:meth:`Challenged.answer_signature_challenge`). Without the approved program's image a
machine cannot answer with the value the approved program gives, and a fresh seed each time
means an old answer cannot be replayed. The Board, which holds the image of every program it
has seen (``FloorFacts.programs``), computes the expected answer itself; so can a checker.

``ProgramVerifier.verify_programs`` is the activity: every machine is verified at
installation, after a conversion, every ``program_verification_hours`` (ruleset) and at the
end of the run. ``ProgramConverted`` records an approved conversion (First Schedule item
3(a): "a hardware or software change in the machine"): a technician changes the program to
another program the Board approved, with an inspector present, and the Board's register
follows (``Slots.convert``: a conversion work of the lifecycle department, or the
``convert_program`` command in ``twin.slots.actions``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Generator, Iterable
from typing import TYPE_CHECKING, Any, Protocol

import simpy

from twin.records import Record, record
from twin.world import quantize

if TYPE_CHECKING:
    from twin.world import World


class Challenged(Protocol):
    """A machine as the Board's inspector sees it: present or not, and what its program
    answers to a signature challenge (``twin.machines.machine.Challenged`` is one)."""

    @property
    def id(self) -> str: ...

    @property
    def present(self) -> bool: ...

    def answer_signature_challenge(self, seed: int) -> str: ...


def rom_signature(seed: int, program_signature: str) -> str:
    """The answer to a signature challenge: a hash of the seed and the program's image.

    The program's image is stood for by its content hash (``Game.signature``, the SHA-256
    of its file), so the answer depends on every byte of the program that runs.
    """
    data = seed.to_bytes(8, "big") + bytes.fromhex(program_signature)
    return hashlib.sha256(data).hexdigest()


@record("program_verified", roles=("machine", "inspector"))
class ProgramVerified(Record):
    """A signature challenge and the machine's answer (``reason``: why it was made)."""

    machine: str
    inspector: str
    reason: str  # "install", "scheduled", "conversion", "return" or "closing"
    seed: int
    response: str


@record("program_converted", roles=("machine", "technician", "inspector"))
class ProgramConverted(Record):
    """A conversion: the machine's program changed by a recorded software change, under the
    Board's written approval ``approval`` ("" when there was none: item 11(a)'s breach)."""

    machine: str
    from_signature: str
    to_signature: str
    game_id: str
    technician: str
    inspector: str
    approval: str


class ProgramVerifier:
    """Challenges machines for the signature of the program they run, and records the answer."""

    def __init__(
        self,
        world: World,
        inspectors: Callable[[], list[str]],
        machines: Iterable[Challenged],
        hours: float,
    ) -> None:
        self.world = world
        self.inspectors = inspectors  # the Board inspectors on duty now
        self.machines = list(machines)
        self.hours = hours

    def verify(self, m: Challenged, reason: str) -> None:
        """Send a fresh random seed to ``m`` and record its answer."""
        rng = self.world.streams.stream(m.id, "verification")
        seed = int(rng.integers(0, 2**63))
        inspectors = self.inspectors()
        self.world.bus.emit(
            ProgramVerified,
            machine=m.id,
            inspector=inspectors[0] if inspectors else "",
            reason=reason,
            seed=seed,
            response=m.answer_signature_challenge(seed),
        )

    def verify_all(self, reason: str) -> None:
        """Challenge every machine on the floor (one taken away cannot answer)."""
        for m in self.machines:
            if m.present:
                self.verify(m, reason)

    def verify_programs(self) -> Generator[simpy.events.Event, Any, None]:
        """Every ``hours`` after opening, every machine is verified (0: never on a schedule)."""
        if self.hours <= 0:
            return
        env = self.world.env
        while True:
            yield env.timeout(quantize(self.hours * 3600.0))
            self.verify_all("scheduled")


__all__ = ["ProgramConverted", "ProgramVerified", "ProgramVerifier", "rom_signature"]
