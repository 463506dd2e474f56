"""Promotional machines and the machine's records: the approval of promotional and
tournament machines and their payouts documented, the hold worksheet, removals, returns,
renumbering and the asset number.

Malta First Schedule items 15, 16 and 20(a)-(c); the machine's identity and registration
(reg 28(3), 29, item 1(d)) are in ``checks.identity``.
"""

from __future__ import annotations

from dataclasses import replace

from twin.compliance.checks.common import ReadingDiffersFromInstall
from twin.compliance.checks.programs import _ApprovedProgram
from twin.compliance.params import PROMOTIONAL_PAYOUT_RECORD_MAX_HOURS
from twin.compliance.registry import Checker, Kind, control
from twin.machines.events import (
    GamesPlayed,
    MachineInstalled,
    MachineReachable,
    MachineRemoved,
    MachineReturned,
    MachineUnreachable,
    MetersRead,
)
from twin.machines.verification import ProgramConverted, ProgramVerified
from twin.records import Record
from twin.slots.records import PromotionalPayout, PromotionAwarded

T = "tests/test_controls.py::test_injected_violation_is_found"
C = T + "["  # one case of T
P = "tests/test_controls_programs.py::"


@control(
    "MT98.S1.15",
    kind=Kind.RUNTIME,
    title="Promotional and tournament machines: approval; never pay less than the wager",
    reads=(
        "machine_installed",
        "meters_read",
        "program_converted",
        "program_verified",
        "games_played",
    ),
    test=T,
    checks={
        "a promotional machine's program, installed or reported, never pays less than the wager": C
        + "S1.15]",
        "no game played on a promotional machine paid less than the wager": C + "S1.15]",
        (
            "the program a signature challenge shows a promotional machine running, whatever "
            "it reports"
        ): P + "test_a_promotional_machine_secretly_running_a_losing_program_is_found",
    },
    unchecked=(
        "the Board's approval of the machine: the bank's promotional flag is that approval",
        "items (i) and (iii)-(vii) are permissions ('may'): nothing to check",
    ),
)
class PromotionalNeverLoses(_ApprovedProgram):
    """A promotional machine's program (installed, reported, converted to, or shown running
    by a signature challenge) must never pay less than the wager, and no game may have."""

    def _check_program(self, m: str, signature: str, rec: Record) -> None:
        game = self.ctx.facts.programs.get(signature)
        if game is None:
            return
        cheapest = min((o.pay for o in game.outcomes), default=0) if game.kind == "table" else 0
        if cheapest < game.cost:
            self.report_once(
                m,
                (m,),
                f"promotional machine {m} runs {game.id}, which can pay less than the wager",
                (rec.seq,),
            )

    def on_record(self, rec: Record) -> None:
        self.follow(rec)
        m = rec.entity("machine")
        inst = self.ctx.installed.get(m)
        if inst is None or not inst.promotional:
            return
        if isinstance(rec, MachineInstalled):
            self._check_program(m, rec.game_signature, rec)
        elif isinstance(rec, MetersRead):
            self._check_program(m, rec.program_signature, rec)
        elif isinstance(rec, ProgramConverted):
            self._check_program(m, rec.to_signature, rec)
        elif isinstance(rec, ProgramVerified):
            running = self.running(rec)
            if running is not None:
                self._check_program(m, running, rec)
        elif isinstance(rec, GamesPlayed) and rec.games_won < rec.games:
            self.report_once(
                m,
                rec.entities,
                f"promotional machine {m} paid less than the wager in "
                f"{rec.games - rec.games_won} of {rec.games} games",
                (rec.seq,),
            )


@control(
    "MT98.S1.16",
    kind=Kind.RECORD,
    title="Promotional payout documentation",
    reads=("promotion_awarded", "promotional_payout"),
    params=(PROMOTIONAL_PAYOUT_RECORD_MAX_HOURS.key,),
    test=T,
    checks={
        "every promotional award is documented within promotional_payout_record_max_hours": P
        + "test_an_unrecorded_promotional_payout_is_found_when_its_documentation_is_overdue",
        "a Board inspector confirmed the payout is due": P
        + "test_an_unconfirmed_promotional_payout_is_found",
        "a cash-out is no promotional payout": P
        + "test_leaving_a_promotional_machine_without_a_cash_out_record_is_not_item_16",
    },
    unchecked=(
        (
            "particulars (i)-(iv) present and the documented amount equal to the award: checked, "
            "but the twin always documents them, so no test makes them fail"
        ),
        (
            "'not reflected in the machine pay table': the twin's promotions pay outside the "
            "machine by construction"
        ),
    ),
)
class PromotionalPayoutsDocumented(Checker):
    """Every promotional award is documented, in time, with item 16's particulars and the
    confirmation of a Board inspector that it is due."""

    def setup(self) -> None:
        self.open: dict[tuple[str, float], PromotionAwarded] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, PromotionAwarded):
            key = (rec.machine, rec.t)
            self.open[key] = rec
            hours = float(self.ctx.rule(PROMOTIONAL_PAYOUT_RECORD_MAX_HOURS))
            self.ctx.after(hours * 3600.0, lambda: self._overdue(key, hours))
            return
        assert isinstance(rec, PromotionalPayout)
        m = rec.machine
        award = self.open.pop((m, rec.awarded_t), None)
        inst = self.ctx.installed.get(m)
        lacking = [
            name
            for name, ok in (
                ("machine number", bool(m)),
                ("denomination", inst is None or rec.denomination_cents == inst.denomination_cents),
                ("description of award", bool(rec.award.strip())),
                ("type of promotion", bool(rec.promotion.strip())),
            )
            if not ok
        ]
        if lacking:
            self.report(
                rec.entities,
                f"promotional payout at machine {m} is documented without: " + ", ".join(lacking),
                (rec.seq,),
            )
        if not self.ctx.is_inspector(rec.inspector):
            self.report(
                rec.entities,
                f"promotional payout of {rec.amount_cents} cents at machine {m} was not "
                "confirmed by a Board inspector as due",
                (rec.seq,) if award is None else (award.seq, rec.seq),
            )
        elif award is not None and award.amount_cents != rec.amount_cents:
            self.report(
                rec.entities,
                f"promotional payout at machine {m} is documented as {rec.amount_cents} cents; "
                f"the promotion awarded {award.amount_cents}",
                (award.seq, rec.seq),
            )

    def _overdue(self, key: tuple[str, float], hours: float) -> None:
        award = self.open.pop(key, None)
        if award is not None:
            self.report(
                award.entities,
                f"promotional award of {award.amount_cents} cents at machine {award.machine} "
                f"({award.promotion}) has no payout documentation after {hours:g} hours",
                (award.seq,),
            )


@control(
    "MT98.S1.20a",
    kind=Kind.RECORD,
    title="Current theoretical hold worksheet for every machine",
    reads=("machine_installed", "meters_read", "program_converted", "program_verified"),
    test=T,
    checks={
        "the program installed or reported has a worksheet": C + "S1.1a]",
        "the program a signature challenge shows running has a worksheet": C + "S1.1b.i]",
    },
    unchecked=(
        (
            "'accurate and current': the worksheet is the PAR sheet the program is analysed from, "
            "so it cannot be inaccurate in the twin"
        ),
        "machines in inventory: the twin has none",
    ),
)
class HoldWorksheet(_ApprovedProgram):
    """The program a machine is installed with, reports, is converted to, or is shown by a
    signature challenge to run must have a theoretical hold worksheet on file."""

    def on_record(self, rec: Record) -> None:
        self.follow(rec)
        m = rec.entity("machine")
        sig: str | None = None
        if isinstance(rec, MachineInstalled):
            sig = rec.game_signature
        elif isinstance(rec, MetersRead):
            sig = rec.program_signature
        elif isinstance(rec, ProgramConverted):
            sig = rec.to_signature
        elif isinstance(rec, ProgramVerified) and m in self.approved:
            sig = self.running(rec) or ""
        if sig is None or sig in self.ctx.facts.worksheets:
            return
        what = f"program {sig[:12]}" if sig else "a program the Board does not hold"
        self.report_once(
            (m, sig),
            (m,),
            f"machine {m} runs {what}, which has no theoretical hold worksheet",
            (rec.seq,),
        )


@control(
    "MT98.S1.20b",
    kind=Kind.PERIODIC,
    title="Theoretical hold in reports within manufacturer standards",
    reads=("machine_installed",),
    observes=("machine_installed",),  # each machine installed is one observation
    test=T,
    checks={
        "the theoretical return is not below the manufacturer's certified minimum": C + "S1.20b]",
    },
    unchecked=(
        (
            "reporting a discrepancy to the manufacturer, resolving it and lodging the "
            "documentation: no such workflow"
        ),
    ),
)
class HoldWithinManufacturerStandard(Checker):
    def on_record(self, rec: Record) -> None:
        assert isinstance(rec, MachineInstalled)
        a = self.ctx.facts.analysis(rec.game_signature)
        if a is None:
            return
        rtp_bp = a.rtp * 10_000
        if rtp_bp < rec.certified_min_payout_bp:
            self.report(
                (rec.machine,),
                f"machine {rec.machine}'s theoretical return {float(a.rtp):.4%} is below the "
                f"manufacturer's certified minimum {rec.certified_min_payout_bp / 100:.2f}%",
                (rec.seq,),
            )


class _Renumbered(ReadingDiffersFromInstall):
    """A reading whose machine numbers or designations (registration, serial, asset number)
    differ from those the machine was installed with; the model records no renumbering, so
    any difference is an unrecorded one."""

    def difference(self, inst: MachineInstalled, rec: MetersRead) -> str | None:
        now = (rec.registration, rec.serial, rec.asset_number)
        then = (inst.registration, inst.serial, inst.asset_number)
        if now == then:
            return None
        return (
            "now reports registration / serial / asset number "
            + " / ".join(v or "(none)" for v in now)
            + " (installed as "
            + " / ".join(v or "(none)" for v in then)
            + ")"
        )


R = "tests/test_controls_removal.py::"


@control(
    "MT98.S1.20c",
    kind=Kind.RECORD,
    title="Record removals, returns and renumbering",
    reads=(
        "meters_read",
        "machine_removed",
        "machine_returned",
        "machine_unreachable",
        "machine_reachable",
    ),
    test=T,
    checks={
        "an unrecorded change of registration number": C + "S1.20c]",
        "an unrecorded change of serial number": C + "R28.3c.permanent]",
        "an unrecorded change of asset number": C + "S1.20c.asset]",
        "a machine taken out of operation with no record of the date it was removed (the "
        "floor system lost it and no removal was recorded), reported when it is back or at "
        "the end of the run": R + "test_a_machine_taken_away_unrecorded_is_found",
        "each removal and return recorded with its date (the calendar date of the event), "
        "and a return only of a machine the licensee kept": R
        + "test_a_return_with_a_wrong_date_or_no_removal_on_record_is_found",
        "numbers changed on record when a machine is placed back are the ones its readings "
        "must then show": R
        + "test_a_machine_back_with_a_new_asset_number_is_found_even_when_recorded",
    },
    unchecked=(
        (
            "a renumbering recorded other than on a return (the twin has no separate "
            "renumbering workflow): a change of numbers while in operation is an unrecorded one"
        ),
        (
            "machines in inventory (never installed): the twin has no inventory; a machine "
            "exists from its installation"
        ),
    ),
)
class RenumberingRecorded(_Renumbered):
    """Readings report the numbers on record: those of the installation, or the ones a
    return recorded (whether a new asset number may be recorded is 20c.asset's business)."""

    consequence = "with no record of the change in machine numbers and designations"

    def difference(self, inst: MachineInstalled, rec: MetersRead) -> str | None:
        registration, asset = self.recorded.get(rec.machine, (inst.registration, inst.asset_number))
        return super().difference(replace(inst, registration=registration, asset_number=asset), rec)

    def setup(self) -> None:
        # numbers changed on record (a return with new ones): (registration, asset number)
        self.recorded: dict[str, tuple[str, str]] = {}
        self.removed: dict[str, MachineRemoved] = {}  # recorded removals not yet returned
        # machine -> (seq, t) of losing it with no removal on record
        self.gone: dict[str, tuple[int, float]] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, MetersRead):
            super().on_record(rec)
        elif isinstance(rec, MachineRemoved):
            self.removed[rec.machine] = rec
            self.dated(rec, "removal")
        elif isinstance(rec, MachineReturned):
            before = self.removed.pop(rec.machine, None)
            self.recorded[rec.machine] = (rec.registration, rec.asset_number)
            self.dated(rec, "return")
            if before is None or not before.returning:
                why = "no removal of it" if before is None else "it left the licensee's ownership"
                self.report(
                    (rec.machine,),
                    f"machine {rec.machine} was recorded as placed back into operation, but "
                    f"{why} is on record",
                    (rec.seq,) if before is None else (before.seq, rec.seq),
                )
        elif isinstance(rec, MachineUnreachable):
            if rec.machine not in self.removed:
                self.gone[rec.machine] = (rec.seq, rec.t)
        elif isinstance(rec, MachineReachable):
            lost = self.gone.pop(rec.machine, None)
            if lost is not None:
                self.unrecorded(rec.machine, lost, (rec.seq, rec.t))

    def dated(self, rec: MachineRemoved | MachineReturned, what: str) -> None:
        """The record's date must be the calendar date on which the event happened."""
        day = self.ctx.clock.at(rec.t).date().isoformat()
        if rec.date != day:
            self.report(
                (rec.machine,),
                f"the {what} of machine {rec.machine} on {day} is recorded with the date "
                f"{rec.date or '(none)'}",
                (rec.seq,),
            )

    def unrecorded(self, m: str, lost: tuple[int, float], back: tuple[int, float] | None) -> None:
        since = self.ctx.clock.iso(lost[1])
        until = "the end of the run" if back is None else self.ctx.clock.iso(back[1])
        self.report(
            (m,),
            f"machine {m} was out of operation from {since} until {until} with no record of "
            "the date it was removed (nor of its return)",
            (lost[0],) if back is None else (lost[0], back[0]),
        )

    def finish(self) -> None:
        for m, lost in sorted(self.gone.items()):
            self.unrecorded(m, lost, None)


@control(
    "MT98.S1.20c.asset",
    kind=Kind.RUNTIME,
    title="Asset number fixed for the whole period of ownership",
    reads=("meters_read", "machine_removed", "machine_returned"),
    test=T,
    checks={
        "the asset number never changes while the machine is on the floor": P
        + "test_a_retagged_asset_number_is_found_at_the_next_reading",
        "... nor while it is out of operation and kept by the licensee: it comes back with "
        "the asset number it left with, even when the new one is recorded": R
        + "test_a_machine_back_with_a_new_asset_number_is_found_even_when_recorded",
        "ownership ends when a machine leaves it (sold): no asset number is required of it "
        "after that": R + "test_a_machine_sold_is_no_longer_held_to_its_asset_number",
    },
    unchecked=(
        (
            "machines owned but never installed (inventory): the twin has no inventory, so "
            "ownership starts at installation"
        ),
    ),
)
class AssetNumberFixed(ReadingDiffersFromInstall):
    """The asset number a machine reports must stay the one it was installed with for as
    long as the licensee owns it: on the floor, out of operation and back; ownership ends
    with a removal that does not return (a sale)."""

    consequence = "although a machine keeps its asset number while the licensee owns it"

    def setup(self) -> None:
        self.sold: set[str] = set()

    def on_record(self, rec: Record) -> None:
        m = rec.entity("machine")
        if m in self.sold:
            return
        if isinstance(rec, MachineRemoved):
            if not rec.returning:
                self.sold.add(m)
        elif isinstance(rec, MachineReturned):
            inst = self.ctx.installed.get(m)
            if inst is not None and rec.asset_number != inst.asset_number:
                self.report_once(
                    m,
                    (m,),
                    f"machine {m} was placed back into operation as asset number "
                    f"{rec.asset_number or '(none)'} (it was {inst.asset_number}) "
                    f"{self.consequence}",
                    (inst.seq, rec.seq),
                )
        else:
            super().on_record(rec)

    def difference(self, inst: MachineInstalled, rec: MetersRead) -> str | None:
        if rec.asset_number == inst.asset_number:
            return None
        return f"now carries asset number {rec.asset_number or '(none)'} (was {inst.asset_number})"
