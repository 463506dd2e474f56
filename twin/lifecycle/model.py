"""Machines through their whole life (the ``lifecycle`` department, issue 27).

The Board keeps its register of authorised machines (reg 31(2)) and its certificate (reg
33), decides what the licensee furnishes and asks (specifications, alterations, disposals,
written approvals) after ``board_decision_hours``, and notifies refusals and deletions (reg
34). The licensee works to its internal controls manual (item 18): it files the
specifications of every machine kept at the licence's grant or renewal (30(1)(a)), keeps its
reserve machines locked in the store (31(1)), and carries out the works of
``[[lifecycle.works]]``: acquisitions, moves, replacements from reserve, conversions,
repairs, copies of programme media, disposals, the repair of faults found, suspensions
ordered by the Board, and the requests of players, the Secretary and inspectors. EPROMs
(item 19) are program signatures on media with seals: masters verified on receipt and kept
under dual control, copies sealed into machines.

Injections (``twin.lifecycle.injections``) arm a deviation by name (:meth:`Lifecycle.arm`);
the workflow it spoils takes it (:meth:`Lifecycle.take`) once, when it comes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import simpy

from twin.department import Rules, Site
from twin.injections import InjectionIdle
from twin.jobs import MACHINE_WORK, JobSpec
from twin.lifecycle.board import Board, Entry
from twin.lifecycle.eproms import REPAIR_SHOP, EpromControl
from twin.lifecycle.params import (
    BOARD_DECISION_HOURS,
    CONVERSION_LODGE_DAYS,
    FAULT_REPAIR_MAX_DAYS,
    MANUAL_SUBMIT_DAYS,
    REPLACEMENT_NEEDS_APPROVAL,
    RESERVE_MAX_FRACTION,
    SEAL_CHECK_DAYS,
)
from twin.lifecycle.records import (
    ApprovalRequested,
    ApprovalRestored,
    ApprovalSuspended,
    CasinoLicenceEvent,
    CertificateProduced,
    CertificateRequested,
    ConversionLodged,
    ConversionRecorded,
    DisposalNotified,
    LicenseeNotified,
    MachineAcquired,
    MachineDisposed,
    MachineFaultCleared,
    MachineFaultFound,
    MachineMoved,
    MachineRepaired,
    MachineReplaced,
    MachineStored,
    MaintenanceLicence,
    ManualFiled,
    ManualRequested,
    ManualSubmitted,
    ProcedureFollowed,
    RepairLogged,
    RepairLogInspected,
    SpecsFurnished,
    StoreAudited,
    WorkDone,
)
from twin.lifecycle.section import APPROVED_WORKS, LifecycleConfig, Work
from twin.machines.machine import SlotMachine
from twin.records import Record
from twin.slots import Slots
from twin.staff import Dispatcher, display_name
from twin.workdays import WORKDAY_COUNTRY, deadline, next_office_time
from twin.world import quantize

#: someone the Board never licensed (an outside contractor, a repair shop): injections only
CONTRACTOR = "CONTRACTOR"
MOVE_MINUTES = 20.0
#: the outcome of a work on a machine that is no longer on the floor (taken out, disposed of)
NOT_ON_FLOOR = "the machine is not on the floor"


class Lifecycle(EpromControl):
    """The lifecycle department (``name`` "lifecycle"); its EPROM control is
    :class:`twin.lifecycle.eproms.EpromControl`'s."""

    name = "lifecycle"

    def __init__(
        self, site: Site, config: LifecycleConfig, slots: Slots, staff: Dispatcher
    ) -> None:
        self.world = site.world
        self.env = site.world.env
        self.config = config
        self.slots = slots
        self.staff = staff
        rules: Rules = site.rules
        self.country = WORKDAY_COUNTRY.of(rules)
        self.reserve_share = RESERVE_MAX_FRACTION.of(rules)
        self.replacement_needs_approval = REPLACEMENT_NEEDS_APPROVAL.of(rules)
        self.lodge_days = CONVERSION_LODGE_DAYS.of(rules)
        self.seal_check_days = SEAL_CHECK_DAYS.of(rules)
        self.fault_max_days = FAULT_REPAIR_MAX_DAYS.of(rules)
        self.manual_days = MANUAL_SUBMIT_DAYS.of(rules)
        licensed = config.licensed_machines or len(slots.machines)
        self.board = Board(self.world, licensed, BOARD_DECISION_HOURS.of(rules) * 3600.0)
        # machines off the floor: the reserve store, and those acquired later (by id)
        self.store: dict[str, SlotMachine] = {}
        self.kept: dict[str, SlotMachine] = {}
        for batch in config.reserve:
            for mid in batch.machine_ids():
                self.kept[mid] = self.store[mid] = slots.make_machine(batch.bank, mid)
        for w in config.works:
            if w.kind == "conversion" and w.game is not None:
                slots.approve_program(w.game)
        self.store_locked = config.store.locked
        self._init_eproms()
        self.repair_log: list[int] = []
        self._pending = 0  # amendments the certificate is with the Board for
        self._granted: dict[str, str] = {}  # work -> the approval given before the run
        self.armed: dict[str, str] = {}  # deviation -> its target ("" the first to come)
        self.downtime: dict[str, float] = {}  # work -> machine downtime (s)

    # -- records and people -----------------------------------------------------------------

    def emit(self, cls: type[Record], **fields: Any) -> None:
        self.world.bus.emit(cls, **fields)

    def _date(self) -> str:
        return self.world.clock.at(self.env.now).date().isoformat()

    def _licensed_technicians(self) -> list[str]:
        return sorted(m for m, mem in self.staff.members.items() if mem.role == "technician")

    def _on_duty(self, role: str) -> str:
        people = self.staff.on_duty(role)
        return people[0] if people else ""

    def _machine(self, mid: str) -> SlotMachine | None:
        return self.slots.by_id.get(mid) or self.kept.get(mid)

    def _manual(self, procedure: str, machine: str, work: str) -> None:
        manual = self.config.manual
        self.emit(
            ProcedureFollowed, procedure=procedure, machine=machine, work=work,
            in_manual=procedure in manual.topics, approved=procedure in manual.approved,
        )  # fmt: skip

    def _specs(self, m: SlotMachine, reason: str, place: str, *, produced: bool) -> None:
        s = m.spec
        in_writing = not (reason == "alteration" and self.take("alteration_oral", m.id))
        self.emit(
            SpecsFurnished, machine=m.id, reason=reason, registration=s.registration,
            serial=s.serial, game_signature=m.game.signature,
            denomination_cents=s.denomination_cents, max_bet_units=s.max_bet_units,
            place=place, in_writing=in_writing, certificate_produced=produced,
        )  # fmt: skip

    def _enter(self, m: SlotMachine, place: str) -> None:
        """The Board enters ``m`` in its register (its registration authorises its program)."""
        self.board.register[m.id] = Entry(m.id, place, m.game.signature)
        self.slots.facts.register[m.spec.registration] = m.game.signature

    def _produce_certificate(self, demanded: bool = False) -> None:
        """The certificate goes to the Board with a filing or a notice (reg 35(1)), or when
        the Secretary requires it after a deletion (``demanded``, 35(2)); it stays there until
        every amendment pending is made."""
        self._pending += 1
        if not self.board.with_board:
            self.board.with_board = True
            self.emit(CertificateProduced, version=self.board.version, returned=False,
                      demanded=demanded)  # fmt: skip

    def _certificate_back(self) -> None:
        self._pending = max(0, self._pending - 1)
        self.board.issue_certificate()
        if self.board.with_board and self._pending == 0:
            self.board.with_board = False
            self.emit(CertificateProduced, version=self.board.version, returned=True,
                      demanded=False)  # fmt: skip

    # -- the day -------------------------------------------------------------------------------

    def start(self) -> None:
        """t = 0: the licence event, the maintenance licences, the manual, the EPROMs and
        the specifications filed; then the daily store audit, seal checks and the works."""
        board = self.board
        cfg = self.config
        self.emit(CasinoLicenceEvent, event=cfg.licence, licensed_machines=board.licensed,
                  board_licence_no=cfg.board_licence_no)  # fmt: skip
        for n, tech in enumerate(self._licensed_technicians(), start=1):
            self.emit(MaintenanceLicence, member=tech, licence_no=f"ML-{n:04d}",
                      manufacturer=False)  # fmt: skip
        self.emit(ManualFiled, version=1, topics=cfg.manual.topics, approved=cfg.manual.approved)
        programs = {m.game.signature: m.game for m in (*self.slots.machines, *self.kept.values())}
        for w in cfg.works:
            if w.kind == "conversion" and w.game is not None:
                game = self.slots.approve_program(w.game)
                programs[game.signature] = game
        for sig in sorted(programs):
            self._receive_master(programs[sig])
        floor = list(self.slots.machines)
        for m in floor:
            self._seal(m, m.game.signature, tech="", at_start=True)
        for m in self.store.values():
            self._seal(m, m.game.signature, tech="", at_start=True)
        # reg 30(1)(a): every machine kept for use, on the floor and in reserve
        over_licence = self.take("board_registers_beyond_licence")
        for m in floor:  # a floor machine is left out only when named
            if self.armed.get("specs_left_out") == m.id and self.take("specs_left_out", m.id):
                self.slots.facts.register.pop(m.spec.registration, None)
                continue
            self._specs(m, cfg.licence, "floor", produced=False)
            self._enter(m, "floor")
            board.decided("registration", "registered", m.id, requested_t=0.0)
        for mid, m in self.store.items():
            self.emit(MachineStored, machine=mid, store=cfg.store.id, locked=self.store_locked,
                      in_gaming_area=cfg.store.in_gaming_area,
                      reserve=len(self.store))  # fmt: skip
            if self.take("specs_left_out", mid):
                continue
            self._specs(m, cfg.licence, "reserve", produced=False)
            place = "floor" if over_licence else "reserve"
            over_licence = False
            self._enter(m, place)
            board.decided("registration", "registered", mid, requested_t=0.0)
        board.issue_certificate()
        for w in cfg.works:
            if w.approval == "granted" and self._needs_approval(w):
                ref = self._granted[w.id or ""] = self.board.approval_ref()
                self.board.decided(self._matter(w), "approved", w.machine or "", work=w.id or "",
                                   approval=ref, requested_t=0.0,
                                   reason="approved before the run")  # fmt: skip
        self.env.process(self.audit_store_daily())
        if self.seal_check_days > 0:
            self.env.process(self.check_seals())
        for w in cfg.works:
            self.env.process(self.run_work(w))

    def finish(self) -> None:
        """An armed deviation whose workflow never came says so."""
        for deviation, target in sorted(self.armed.items()):
            self.emit(InjectionIdle, machine=target, injection=f"lifecycle_{deviation}",
                      reason=f"armed, but no {deviation.replace('_', ' ')} came before the "
                      "run ended")  # fmt: skip

    # -- the store (reg 31(1), first proviso) ---------------------------------------------------

    def audit_store_daily(self) -> simpy.events.ProcessGenerator:
        env = self.env
        clock = self.world.clock
        while True:
            yield env.timeout(clock.next_local(env.now, clock.gaming_day_start) - env.now)
            if self.take("store_unlocked"):
                self.store_locked = False
            on_floor = sum(1 for m in self.slots.machines if m.present)
            self.emit(StoreAudited, store=self.config.store.id, machines=tuple(sorted(self.store)),
                      locked=self.store_locked, in_gaming_area=self.config.store.in_gaming_area,
                      licensed_machines=self.board.licensed,
                      floor_machines=on_floor)  # fmt: skip
            self.store_locked = self.config.store.locked

    # -- works ----------------------------------------------------------------------------------

    def _needs_approval(self, w: Work) -> bool:
        if w.kind == "replacement":
            return self.replacement_needs_approval
        if w.kind == "repair":
            return w.outcome_affecting
        return w.kind in APPROVED_WORKS

    @staticmethod
    def _matter(w: Work) -> str:
        return w.kind

    def _approval(self, w: Work) -> simpy.events.Event | str:
        """The written approval ``w`` works under (its reference), asked for now and given
        after the Board's decision time; "" when the work goes ahead without one."""
        wid = w.id or ""
        if not self._needs_approval(w):
            return ""
        skip = {
            "conversion": "conversion_unapproved",
            "move": "move_unapproved",
            "replacement": "replacement_unapproved",
            "repair": "repair_unauthorised",
        }[w.kind]
        if w.approval == "none" or self.take(skip, w.machine or "", wid):
            return ""
        if w.approval == "granted":
            return "granted"
        self.emit(ApprovalRequested, machine=w.machine or "", work=wid, matter=self._matter(w))
        return self._decide_later(w)

    def _decide_later(self, w: Work) -> simpy.events.Event:
        done = self.env.event()
        requested = self.env.now

        def decide() -> simpy.events.ProcessGenerator:
            yield self.env.timeout(self.board.decision_s)
            ref = self.board.approval_ref()
            self.board.decided(self._matter(w), "approved", w.machine or "", work=w.id or "",
                               approval=ref, requested_t=requested)  # fmt: skip
            done.succeed(ref)

        self.env.process(decide())
        return done

    def run_work(self, w: Work) -> simpy.events.ProcessGenerator:
        env = self.env
        yield env.timeout(quantize(w.at_hours * 3600.0))
        requested = env.now
        broken = self._out_of_order(w)
        got = self._approval(w)
        approval = ""
        if isinstance(got, simpy.events.Event):
            approval = yield got
        elif got == "granted":
            approval = self._granted_ref(w)
        approved_t = env.now
        do: Callable[[Work, str], simpy.events.ProcessGenerator] = getattr(self, f"_do_{w.kind}")
        outcome = yield from do(w, approval)
        if broken is not None:  # down from the request, not from the work
            self.downtime[w.id or ""] = env.now - requested
            if broken.withdrawn == "out of order":
                broken.place_back()
        self.emit(WorkDone, machine=w.machine or "", work=w.id or "", work_kind=w.kind,
                  outcome=outcome or "done", requested_t=requested, approved_t=approved_t,
                  downtime_s=self.downtime.get(w.id or "", 0.0))  # fmt: skip

    def _granted_ref(self, w: Work) -> str:
        return self._granted.get(w.id or "", "")

    def _out_of_order(self, w: Work) -> SlotMachine | None:
        """A replacement replaces, and an outcome-affecting repair mends, a machine out of
        order: it is out of play from the request (its patron finishes) until the work is
        done, the Board's decision time included."""
        broken = w.kind == "replacement" or (w.kind == "repair" and w.outcome_affecting)
        m = self.slots.by_id.get(w.machine or "") if broken else None
        if m is None or not m.present or m.withdrawn is not None:
            return None
        m.withdrawn = "out of order"
        return m

    def _on_floor(self, w: Work) -> SlotMachine | None:
        """The floor machine ``w`` works on, if it stands on the floor now."""
        m = self.slots.by_id.get(w.machine or "")
        return m if m is not None and m.present else None

    def _out_of_play(self, m: SlotMachine) -> simpy.events.ProcessGenerator:
        """Until ``m``'s patron has left it and nothing is under way (then it is withdrawn)."""
        m.withdrawn = m.withdrawn or "works"
        while m.patron is not None or m.down:
            yield self.env.timeout(60.0)

    # each _do_<kind> returns the work's outcome ("done" or why it was given up)

    def _do_conversion(self, w: Work, approval: str) -> simpy.events.ProcessGenerator:
        m = self.slots.by_id.get(w.machine or "")
        assert w.game is not None
        if m is None or not m.present:
            return "the machine is not on the floor"
        game = self.slots.approve_program(w.game)
        wid = w.id or ""
        self._manual("conversions", m.id, wid)
        copy = yield from self.take_master(game.signature, f"conversion of {m.id}", wid, "")
        unlicensed = self.take("conversion_by_unlicensed", m.id, wid)
        start = self.env.now
        converted: dict[str, str] = {}

        def done(tech: str, before: str) -> None:
            converted.update(tech=tech, before=before)
            self._seal(m, game.signature, tech, eprom=copy)

        yield from self.slots.convert(m, game, approval, CONTRACTOR if unlicensed else None, done)
        self.downtime[wid] = self.env.now - start
        tech = converted["tech"]
        incomplete = self.take("conversion_unrecorded", m.id, wid)
        self.emit(ConversionRecorded, machine=m.id, work=wid,
                  from_signature=converted["before"], to_signature=game.signature,
                  technician="" if incomplete else tech, date="" if incomplete else self._date(),
                  approval=approval)  # fmt: skip
        converted_t = self.env.now
        # 30(1)(c): the altered specifications, in writing, the certificate with them (35(1))
        self._produce_certificate()
        self._specs(m, "alteration", "floor", produced=True)
        self.env.process(self._lodge(m.id, wid, converted_t))
        self.env.process(self._board_amends(m, game.signature))
        return "done"

    def _lodge(self, machine: str, work: str, converted_t: float) -> simpy.events.ProcessGenerator:
        """Item 11(c): a copy of the conversion record to the Secretary at once (at the
        office's next opening); injected: a month later, in the quarterly pack."""
        clock = self.world.clock
        when = clock.seconds(next_office_time(clock.at(self.env.now), self.country))
        if self.take("conversion_lodged_late", machine, work):
            when = self.env.now + 30 * 86400.0
        yield self.env.timeout(max(0.0, when - self.env.now))
        self.emit(ConversionLodged, machine=machine, work=work, converted_t=converted_t)

    def _board_amends(self, m: SlotMachine, sig: str) -> simpy.events.ProcessGenerator:
        requested = self.env.now
        yield self.env.timeout(self.board.decision_s)
        entry = self.board.register.get(m.id)
        if entry is not None:
            entry.signature = sig
        self.board.decided("amendment", "amended", m.id, requested_t=requested)
        self._certificate_back()

    def _do_repair(self, w: Work, approval: str) -> simpy.events.ProcessGenerator:
        m = self._on_floor(w)
        if m is None:
            return NOT_ON_FLOOR
        wid = w.id or ""
        self._manual("repairs", m.id, wid)
        yield from self._out_of_play(m)
        start = self.env.now
        unlicensed = self.take("maintenance_by_unlicensed", m.id, wid)
        tech = yield from m.service(MACHINE_WORK, by=CONTRACTOR if unlicensed else "")
        self.emit(MachineRepaired, machine=m.id, work=wid, part=w.part or "",
                  outcome_affecting=w.outcome_affecting, technician=tech,
                  approval=approval)  # fmt: skip
        if w.outcome_affecting:
            self._seal(m, m.game.signature, tech)  # the seal broken for the work, renewed
            if not self.take("repair_unlogged", m.id, wid):
                rec_seq = self.world.bus.count
                self.emit(RepairLogged, machine=m.id, work=wid, part=w.part or "",
                          technician_name=tech if tech == CONTRACTOR else display_name(tech),
                          date=self._date())  # fmt: skip
                self.repair_log.append(rec_seq)
        if m.withdrawn == "works":
            m.place_back()
        self.downtime[wid] = self.env.now - start
        return "done"

    def _do_fault(self, w: Work, approval: str) -> simpy.events.ProcessGenerator:
        m = self._on_floor(w)
        if m is None:
            return NOT_ON_FLOOR
        found_t = self.env.now
        self.emit(MachineFaultFound, machine=m.id, fault=w.fault or "",
                  member=self._on_duty("technician"))  # fmt: skip
        if self.take("fault_left_open", m.id, w.id or ""):
            return "left open"
        tech = yield from m.service(MACHINE_WORK)
        self.emit(MachineFaultCleared, machine=m.id, fault=w.fault or "",
                  technician=tech, found_t=found_t)  # fmt: skip
        return "done"

    def _do_move(self, w: Work, approval: str) -> simpy.events.ProcessGenerator:
        m = self._on_floor(w)
        if m is None:
            return NOT_ON_FLOOR
        wid = w.id or ""
        self._manual("machine_moves", m.id, wid)
        yield from self._out_of_play(m)
        start = self.env.now
        job = self.staff.request(JobSpec(MACHINE_WORK, m.id, ("technician",)))
        got: dict[str, str] = yield job.assigned
        yield self.env.timeout(quantize(MOVE_MINUTES * 60.0))
        before = m.spec.zone
        self.slots.relocate(m, w.zone or before)
        self.emit(MachineMoved, machine=m.id, work=wid, from_zone=before, to_zone=m.spec.zone,
                  approval=approval, technician=got["technician"])  # fmt: skip
        self.staff.complete(job)
        if m.withdrawn == "works":
            m.place_back()
        self.downtime[wid] = self.env.now - start
        return "done"

    def _do_replacement(self, w: Work, approval: str) -> simpy.events.ProcessGenerator:
        out = self.slots.by_id.get(w.machine or "")
        incoming = self.store.get(w.reserve or "")
        if out is None or not out.present or incoming is None:
            return "the machine or the reserve machine is not where the work needs it"
        wid = w.id or ""
        self._manual("machine_removal", out.id, wid)
        start = self.env.now
        zone = out.spec.zone
        self.slots.take_out(out, "replacement", returning=True)
        while out.present:
            yield self.env.timeout(60.0)
        self.slots.send_away(out)
        del self.store[incoming.id]
        self.slots.bring_in(incoming, zone)
        self.store[out.id] = out
        self.kept[out.id] = out
        on_floor = sum(1 for m in self.slots.machines if m.present)
        self.emit(MachineReplaced, machine=incoming.id, replaced=out.id, work=wid,
                  source="reserve", approval=approval, floor_machines=on_floor,
                  licensed_machines=self.board.licensed)  # fmt: skip
        self.emit(MachineStored, machine=out.id, store=self.config.store.id,
                  locked=self.store_locked, in_gaming_area=self.config.store.in_gaming_area,
                  reserve=len(self.store))  # fmt: skip
        self.downtime[wid] = self.env.now - start
        # 30(1)(b): the replacement's specifications, the certificate produced (35(1))
        self._produce_certificate()
        self._specs(incoming, "replacement", "floor", produced=True)
        self.env.process(self._board_swaps(incoming.id, out.id, wid))
        return "done"

    def _board_swaps(self, incoming: str, out: str, wid: str) -> simpy.events.ProcessGenerator:
        """The Board amends the register after a replacement: ``incoming`` on the floor,
        ``out`` in reserve."""
        requested = self.env.now
        yield self.env.timeout(self.board.decision_s)
        for mid, place in ((incoming, "floor"), (out, "reserve")):
            entry = self.board.register.get(mid)
            if entry is not None:
                entry.place = place
        self.board.decided("amendment", "amended", incoming, work=wid, requested_t=requested)
        self._certificate_back()

    def _do_acquisition(self, w: Work, approval: str) -> simpy.events.ProcessGenerator:
        mid = w.machine or ""
        m = self.slots.make_machine(w.bank or "", mid)
        wid = w.id or ""
        self.kept[mid] = self.store[mid] = m
        self.emit(MachineAcquired, machine=mid, bank=w.bank or "", serial=m.spec.serial,
                  game_signature=m.game.signature, place="reserve")  # fmt: skip
        self.emit(MachineStored, machine=mid, store=self.config.store.id,
                  locked=self.store_locked, in_gaming_area=self.config.store.in_gaming_area,
                  reserve=len(self.store))  # fmt: skip
        self._seal(m, m.game.signature, "")
        if self.take("acquisition_unfiled", mid, wid):
            return "specifications never furnished"
        self._produce_certificate()
        self._specs(m, "acquisition", "reserve", produced=True)
        self.env.process(self._board_registers(m, wid))
        return "done"
        yield  # a generator

    def _board_registers(self, m: SlotMachine, wid: str) -> simpy.events.ProcessGenerator:
        """The Board registers an acquired machine (reg 31(1)) or refuses it (reg 34)."""
        mid = m.id
        requested = self.env.now
        yield self.env.timeout(self.board.decision_s)
        board = self.board
        cap = math.floor(self.reserve_share * board.licensed)
        refuse = self.take("board_refusal_unnotified", mid, wid)
        if refuse or board.count("reserve") + 1 > cap:
            reason = (
                "the specifications furnished are incomplete"
                if refuse
                else f"the reserve would exceed {self.reserve_share:.0%} of the licensed number"
            )
            board.decided("registration", "refused", mid, work=wid, requested_t=requested,
                          reason=reason)  # fmt: skip
            decided_t = self.env.now
            if not refuse:
                self.emit(LicenseeNotified, machine=mid, decision="refused", in_writing=True,
                          decided_t=decided_t)  # fmt: skip
            self._certificate_back()
            return
        place = "floor" if self.take("board_registers_beyond_licence", mid, wid) else "reserve"
        self._enter(m, place)
        board.decided("registration", "registered", mid, work=wid, requested_t=requested)
        self._certificate_back()

    def _do_disposal(self, w: Work, approval: str) -> simpy.events.ProcessGenerator:
        mid = w.machine or ""
        wid = w.id or ""
        m = self._machine(mid)
        if m is None:
            return "no such machine"
        on_floor = mid in self.slots.by_id and m.present
        if on_floor:
            self._manual("machine_removal", mid, wid)
            self.slots.take_out(m, "disposal", returning=False)
            while m.present:
                yield self.env.timeout(60.0)
            self.slots.send_away(m)
        self.store.pop(mid, None)
        self.emit(MachineDisposed, machine=mid, work=wid, method=w.method)
        if self.take("disposal_unnotified", mid, wid):
            return "disposal never notified"
        self._produce_certificate()
        self.emit(DisposalNotified, machine=mid, method=w.method, in_writing=True,
                  certificate_produced=True)  # fmt: skip
        self.env.process(self._board_deletes(m, w.method, wid))
        return "done"

    def _board_deletes(
        self, m: SlotMachine, method: str, wid: str
    ) -> simpy.events.ProcessGenerator:
        """The Board deletes a machine notified as disposed of (reg 32(1)(a))."""
        mid = m.id
        requested = self.env.now
        yield self.env.timeout(self.board.decision_s)
        if self.take("board_register_stale", mid, wid):
            self.board.with_board = False
            self.emit(CertificateProduced, version=self.board.version, returned=True,
                      demanded=False)  # fmt: skip
            return
        self.board.register.pop(mid, None)
        self.slots.facts.register.pop(m.spec.registration, None)
        self.board.decided("deletion", "deleted", mid, work=wid, requested_t=requested,
                           reason=f"{method}: reg 32(1)(a)")  # fmt: skip
        self._certificate_back()

    def _do_media_copy(self, w: Work, approval: str) -> simpy.events.ProcessGenerator:
        m = self._machine(w.machine or "")
        if m is None:
            return "no such machine"
        wid = w.id or ""
        self._manual("eprom_copy_seal", m.id, wid)
        yield from self.take_master(m.game.signature, "a spare copy", wid,
                                    copy_by="MFR" if w.by == "manufacturer" else "")  # fmt: skip
        return "done"

    def _do_suspension(self, w: Work, approval: str) -> simpy.events.ProcessGenerator:
        m = self._on_floor(w)
        if m is None:
            return NOT_ON_FLOOR
        self.board.decided("suspension", "suspended", m.id, work=w.id or "",
                           requested_t=self.env.now, reason=w.reason or "")  # fmt: skip
        self.emit(ApprovalSuspended, machine=m.id, reason=w.reason or "")
        suspended = self.env.now
        if self.take("suspension_ignored", m.id, w.id or ""):
            return "ignored"
        self._manual("machine_removal", m.id, w.id or "")
        self.slots.take_out(m, "suspended", returning=True)
        if w.restore_hours is None:  # never restored: the Board deletes it (reg 32(1)(b))
            self.env.process(self._board_deletes_suspended(m, w.id or "", w.reason or ""))
            return "done"
        yield self.env.timeout(quantize(w.restore_hours * 3600.0))
        self.emit(ApprovalRestored, machine=m.id)
        while m.present:
            yield self.env.timeout(60.0)
        self.slots.put_back(m.id)
        self.downtime[w.id or ""] = self.env.now - suspended  # out of play, suspended
        return "done"

    def _board_deletes_suspended(
        self, m: SlotMachine, wid: str, reason: str
    ) -> simpy.events.ProcessGenerator:
        """A machine suspended and never restored no longer complies: after its decision time
        the Board deletes it from the register (reg 32(1)(b)), the Secretary notifies the
        licensee in writing at once (reg 34) and, the certificate not being with the Board,
        requires it to be produced for amendment (reg 35(2))."""
        suspended = self.env.now
        yield self.env.timeout(self.board.decision_s)
        self.board.register.pop(m.id, None)
        self.slots.facts.register.pop(m.spec.registration, None)
        self.board.decided("deletion", "deleted", m.id, work=wid, requested_t=suspended,
                           reason=f"32(1)(b): {reason}")  # fmt: skip
        self.emit(LicenseeNotified, machine=m.id, decision="deleted", in_writing=True,
                  decided_t=self.env.now)  # fmt: skip
        if self.board.with_board or self.take("certificate_not_demanded", m.id, wid):
            return  # with the Board already: amended with the pending filings
        self._produce_certificate(demanded=True)
        self._certificate_back()

    def _do_certificate_request(self, w: Work, approval: str) -> simpy.events.ProcessGenerator:
        playing = sorted(m.patron for m in self.slots.machines if m.patron)
        patron = playing[0] if playing else "PLAYER"
        board = self.board.with_board
        refused = not board and self.take("certificate_refused")
        self.emit(CertificateRequested, patron=patron, shown=not board and not refused,
                  version=self.board.version, with_board=board,
                  reason="with the Board for amendment (reg 35)" if board
                  else "at head office" if refused else "")  # fmt: skip
        return "done"
        yield  # a generator

    def _do_manual_request(self, w: Work, approval: str) -> simpy.events.ProcessGenerator:
        clock = self.world.clock
        due = clock.seconds(deadline(clock.at(self.env.now), self.manual_days, self.country))
        self.emit(ManualRequested, by="SECRETARY", due_t=due)
        requested = self.env.now
        if self.take("manual_not_submitted"):
            return "never submitted"
        when = clock.seconds(next_office_time(clock.at(self.env.now + 3600.0), self.country))
        yield self.env.timeout(max(0.0, when - self.env.now))
        self.emit(ManualSubmitted, version=1, topics=self.config.manual.topics,
                  requested_t=requested)  # fmt: skip
        return "done"

    def _do_repair_log_request(self, w: Work, approval: str) -> simpy.events.ProcessGenerator:
        self.emit(RepairLogInspected, inspector=self._on_duty("inspector"), shown=True,
                  entries=len(self.repair_log))  # fmt: skip
        return "done"
        yield  # a generator


__all__ = ["CONTRACTOR", "REPAIR_SHOP", "Lifecycle"]
