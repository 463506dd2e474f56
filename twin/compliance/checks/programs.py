"""Programs, returns and progressive links.

Malta First Schedule items 1(a) (minimum return), 2 (progressive links), 3 (payback changes
only by a hardware or software change). Items 1(c) and 1(e) are in ``checks.outcomes``.
"""

from __future__ import annotations

from fractions import Fraction

from twin.compliance.checks.common import ReadingDiffersFromInstall
from twin.compliance.registry import Checker, Kind, control
from twin.machines.events import (
    GamesPlayed,
    MachineInstalled,
    MetersRead,
    ProgressiveHit,
)
from twin.records import Record

T = "tests/test_controls.py::test_injected_violation_is_found"


@control(
    "MT98.S1.1a",
    kind=Kind.STATISTICAL,
    title="Minimum theoretical payout of 85%",
    reads=("machine_installed", "meters_read"),
    params=("min_rtp",),
    test=T,
)
class MinimumReturn(Checker):
    """The exact designed return of each machine configuration, from its PAR sheet.

    A linked machine's return includes the link's increment (item 2(a): the progression
    "raises the basic theoretical percentage"). Checked at installation and whenever a
    meter reading shows another program.
    """

    def setup(self) -> None:
        self.checked: set[tuple[str, str]] = set()

    def _check(self, m: str, signature: str, rec: Record) -> None:
        if (m, signature) in self.checked:
            return
        self.checked.add((m, signature))
        a = self.ctx.facts.analysis(signature)
        if a is None:
            return
        inst = self.ctx.installed[m]
        rtp = a.rtp
        if inst.progressive:
            approved = self.ctx.facts.approved_links.get(inst.progressive)
            if approved is not None:
                rtp += Fraction(approved[1], 10_000)
        floor = Fraction(str(self.ctx.param("min_rtp")))
        if rtp < floor:
            self.report(
                (m,),
                f"machine {m} runs {a.game_id} with a designed return of {float(rtp):.4%}, "
                f"below the minimum {float(floor):.2%}",
                (rec.seq,),
            )

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, MachineInstalled):
            self._check(rec.machine, rec.game_signature, rec)
        elif isinstance(rec, MetersRead):
            self._check(rec.machine, rec.program_signature, rec)


class _ProgramChange(ReadingDiffersFromInstall):
    """A reading showing a program other than the one installed, with no record of an
    approved conversion (the model has no conversion workflow yet: any change is one)."""

    def difference(self, inst: MachineInstalled, rec: MetersRead) -> str | None:
        if rec.program_signature == inst.game_signature:
            return None
        return (
            f"now runs program {rec.program_signature[:12]} instead of the installed "
            f"{inst.game_signature[:12]} ({inst.game_id})"
        )


@control(
    "MT98.S1.3a",
    kind=Kind.RUNTIME,
    title="Payback changes only by a hardware or software change",
    reads=("meters_read",),
    test=T,
)
class PaybackChangedOnlyByConversion(_ProgramChange):
    consequence = "without a recorded hardware or software change"


class _LinkApproved(Checker):
    def on_record(self, rec: Record) -> None:
        assert isinstance(rec, MachineInstalled)
        link = rec.progressive
        if link and link not in self.ctx.facts.approved_links:
            self.report(
                (rec.machine,),
                f"machine {rec.machine} is on progressive link {link}, which the Board "
                "has not approved",
                (rec.seq,),
            )


@control(
    "MT98.S1.2a",
    kind=Kind.GOVERNANCE,
    title="Linked progressives need Board approval",
    reads=("machine_installed",),
    test=T,
)
class LinkedProgressivesApproved(_LinkApproved):
    pass


@control(
    "MT98.S1.3b",
    kind=Kind.GOVERNANCE,
    title="Bonus and progressive schemes need prior Board approval",
    reads=("machine_installed",),
    test=T,
)
class ProgressiveSchemesApproved(_LinkApproved):
    pass


@control(
    "MT98.S1.2a.inc",
    kind=Kind.RUNTIME,
    title="Progressive meter grows by the approved increment",
    reads=("games_played", "progressive_hit"),
    test=T,
)
class ProgressiveIncrement(Checker):
    """Rebuilds each link's prize from the bets and the approved increment, exactly.

    Contributions accrue in 1/10,000 cent (cents × basis points); a hit pays whole credits
    of the winning machine and leaves the rest above the reset, as an approved controller
    does. A prize that differs from the rebuilt one means the increment was not applied.
    """

    def setup(self) -> None:
        self.accrued: dict[str, int] = {}
        self.since: dict[str, list[int]] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, GamesPlayed):
            m = rec.machine
            inst = self.ctx.installed.get(m)
            if inst is None or not inst.progressive:
                return
            approved = self.ctx.facts.approved_links.get(inst.progressive)
            if approved is None:
                return
            link = inst.progressive
            cents = rec.wagered * inst.denomination_cents
            self.accrued[link] = self.accrued.get(link, 0) + cents * approved[1]
            self.since.setdefault(link, []).append(rec.seq)
        elif isinstance(rec, ProgressiveHit):
            link = rec.link
            approved = self.ctx.facts.approved_links.get(link)
            if approved is None:
                return
            m = rec.machine
            denom = self.ctx.denomination(m)
            accrued = self.accrued.get(link, 0)
            prize = approved[0] + accrued // 10_000
            paid = prize // denom * denom
            self.accrued[link] = (prize - paid) * 10_000 + accrued % 10_000
            evidence = (*self.since.pop(link, [])[-20:], rec.seq)
            if rec.prize_cents != paid:
                self.report(
                    (m,),
                    f"link {link} paid {rec.prize_cents} cents; the approved reset and increment "
                    f"give {paid} cents",
                    evidence,
                )


@control(
    "MT98.S1.2b",
    kind=Kind.GOVERNANCE,
    title="Changes to progressive options, amounts or rates need approval",
    reads=("progressive_hit",),
    test=T,
)
class ProgressiveChangesApproved(Checker):
    def on_record(self, rec: Record) -> None:
        assert isinstance(rec, ProgressiveHit)
        approved = self.ctx.facts.approved_links.get(rec.link)
        if approved is not None and rec.reset_cents != approved[0]:
            self.report_once(
                rec.link,
                (rec.machine,),
                f"link {rec.link} resets to {rec.reset_cents} cents; the approved reset is "
                f"{approved[0]} cents",
                (rec.seq,),
            )
