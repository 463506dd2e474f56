"""EPROM control (First Schedule item 19) as the lifecycle department works it: masters
received, verified against the manufacturer's specification sheet and the Board licence
number, registered; taken from the secure area under dual control, copied (by the licensee or
a licensed manufacturer) and put back; copies sealed into machines; seals checked every
``eprom_seal_check_days``. A mixin of :class:`twin.lifecycle.model.Lifecycle`."""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import simpy

from twin.injections import Deviations
from twin.jobs import EPROM_CUSTODY, SEAL_CHECK, JobSpec
from twin.lifecycle.records import (
    EpromCopied,
    EpromReceived,
    EpromRegistered,
    EpromSealed,
    EpromVaultAccess,
    EpromVerified,
    SealChecked,
)
from twin.machines.facts import analysis_of
from twin.world import quantize

if TYPE_CHECKING:
    from twin.lifecycle.section import LifecycleConfig
    from twin.machines.machine import SlotMachine
    from twin.records import Record
    from twin.slots import Slots
    from twin.staff import Dispatcher

#: an independent repair shop, whom nobody licensed (injections only)
REPAIR_SHOP = "REPAIR-SHOP"
CUSTODY_MINUTES = 10.0
SEAL_CHECK_MINUTES = 2.0


class EpromControl(Deviations):
    """The master EPROMs, their register and vault, the copies sealed into machines."""

    if TYPE_CHECKING:
        env: simpy.Environment
        staff: Dispatcher
        slots: Slots
        config: LifecycleConfig
        seal_check_days: int

        def emit(self, cls: type[Record], **fields: Any) -> None: ...
        def _licensed_technicians(self) -> list[str]: ...

    def _init_eproms(self) -> None:
        self.seals: dict[str, str] = {}  # machine -> the seal on its EPROM
        self.masters: dict[str, str] = {}  # program signature -> master EPROM id
        self._copies = 0
        self._seal_no = 0

    def _receive_master(self, game: Any) -> None:
        sig = game.signature
        eprom = f"M-{sig[:8]}"
        self.masters[sig] = eprom
        rtp = analysis_of(game).rtp
        par_bp = math.floor(rtp * 10_000)
        lic = self.config.board_licence_no
        self.emit(EpromReceived, eprom=eprom, programme_no=sig, par_bp=par_bp, paytable=game.id,
                  manufacturer="Acme Gaming Ltd", board_licence_no=lic)  # fmt: skip
        if not self.take("eprom_unverified", eprom, game.id):
            self.emit(EpromVerified, eprom=eprom, member=self._licensed_technicians()[0]
                      if self._licensed_technicians() else "", programme_no_ok=True,
                      par_ok=True, paytable_ok=True, licence_no_ok=True)  # fmt: skip
        self.emit(EpromRegistered, eprom=eprom, board_licence_no=lic,
                  manufacturer="Acme Gaming Ltd")  # fmt: skip

    def _seal(
        self, m: SlotMachine, sig: str, tech: str, *, at_start: bool = False, eprom: str = ""
    ) -> None:
        """``eprom`` (a copy of the master of ``sig``; default the master's copy the machine
        came with) sealed into ``m`` by ``tech`` (item 19(d))."""
        self._seal_no += 1
        seal = f"S-{self._seal_no:05d}"
        procedure = at_start or not self.take("seal_off_procedure", m.id)
        self.seals[m.id] = seal if procedure else ""
        self.emit(EpromSealed, machine=m.id, eprom=eprom or self.masters.get(sig, ""),
                  seal=seal if procedure else "", technician=tech,
                  promotional=m.spec.promotional, procedure=procedure)  # fmt: skip

    def take_master(
        self, sig: str, reason: str, work: str, copy_by: str | None
    ) -> Generator[simpy.events.Event, Any, str]:
        """A master EPROM out of the secure area under dual control, copied (by the licensee
        or a licensed manufacturer, to the manual's procedure), and back; returns the copy's
        id ("" when none was made)."""
        copy = ""
        eprom = self.masters[sig]
        single = self.take("eprom_single_custody", eprom, work)
        roles = ("technician",) if single else ("technician", "attendant")
        job = self.staff.request(JobSpec(EPROM_CUSTODY, "vault", roles))
        got: dict[str, str] = yield job.assigned
        custodians = tuple(got[r] for r in roles)
        unsigned = self.take("eprom_removal_unrecorded", eprom, work)
        self.emit(EpromVaultAccess, eprom=eprom, custodians=custodians, action="out",
                  reason="" if unsigned else reason,
                  signatures=() if unsigned else custodians)  # fmt: skip
        yield self.env.timeout(quantize(CUSTODY_MINUTES * 60.0))
        if copy_by is not None:
            self._copies += 1
            copy = f"{eprom}-C{self._copies:03d}"
            outsider = self.take("media_copied_by_outsider", work)
            member = REPAIR_SHOP if outsider else (copy_by or custodians[0])
            by = "other" if outsider else ("manufacturer" if copy_by == "MFR" else "licensee")
            self.emit(EpromCopied, eprom=eprom, copy=copy, member=member, work=work, by=by,
                      procedure=True)  # fmt: skip
        self.emit(EpromVaultAccess, eprom=eprom, custodians=custodians, action="in",
                  reason=reason, signatures=custodians)  # fmt: skip
        self.staff.complete(job)
        return copy

    def check_seals(self) -> simpy.events.ProcessGenerator:
        """Every ``eprom_seal_check_days`` a technician and an inspector check every
        machine's seal against the register (item 19)."""
        env = self.env
        every = self.seal_check_days * 86400.0
        while True:
            yield env.timeout(every)
            job = self.staff.request(JobSpec(SEAL_CHECK, "floor", ("technician", "inspector")))
            got: dict[str, str] = yield job.assigned
            for m in list(self.slots.machines):
                if not m.present:
                    continue
                yield env.timeout(quantize(SEAL_CHECK_MINUTES * 60.0))
                seal = self.seals.get(m.id, "")
                self.emit(SealChecked, machine=m.id, seal=seal, intact=bool(seal),
                          technician=got["technician"],
                          inspector=got["inspector"])  # fmt: skip
            self.staff.complete(job)


__all__ = ["CUSTODY_MINUTES", "REPAIR_SHOP", "SEAL_CHECK_MINUTES", "EpromControl"]
