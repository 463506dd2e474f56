"""Programs, returns and progressive links.

Malta First Schedule items 1(a) (minimum return), 2 (progressive links), 3 (payback changes
only by a hardware or software change). Items 1(c) and 1(e) are in ``checks.outcomes``.
"""

from __future__ import annotations

from fractions import Fraction

from twin.compliance.registry import Checker, Kind, control
from twin.machines.events import (
    GamesPlayed,
    MachineInstalled,
    MetersRead,
    ProgressiveHit,
)
from twin.machines.verification import ProgramConverted, ProgramVerified, rom_signature
from twin.records import Record

T = "tests/test_controls.py::test_injected_violation_is_found"
C = T + "["  # one case of T
TC = "tests/test_controls.py::"
P = "tests/test_controls_programs.py::"


class _ApprovedProgram(Checker):
    """Follows the program each machine is approved to run: the Board's register at
    installation, then each approved conversion (a recorded software change)."""

    def setup(self) -> None:
        self.approved: dict[str, str] = {}

    def follow(self, rec: Record) -> None:
        if isinstance(rec, MachineInstalled):
            sig = self.ctx.facts.register.get(rec.registration, rec.game_signature)
            self.approved[rec.machine] = sig
        elif isinstance(rec, ProgramConverted) and rec.to_signature in self.ctx.facts.worksheets:
            self.approved[rec.machine] = rec.to_signature

    def running(self, rec: ProgramVerified) -> str | None:
        """The signature of the program the machine's answer shows it runs (None if the
        answer fits no program the Board holds)."""
        approved = self.approved.get(rec.machine)
        if approved is not None and rom_signature(rec.seed, approved) == rec.response:
            return approved
        for sig in self.ctx.facts.programs:
            if rom_signature(rec.seed, sig) == rec.response:
                return sig
        return None


@control(
    "MT98.S1.1a",
    kind=Kind.STATISTICAL,
    title="Minimum theoretical payout of 85%",
    reads=("machine_installed", "program_converted", "program_verified"),
    params=("min_rtp",),
    test=T,
    checks={
        (
            "the designed (PAR) return of the program installed, with its link's increment, is at "
            "least min_rtp"
        ): TC + "test_min_rtp_override_flags_exactly_the_games_below_it",
        "a program at or above the minimum is not found": TC
        + "test_default_min_rtp_flags_only_the_low_return_game",
        (
            "the program a machine actually runs (shown by a signature challenge), whatever it "
            "reports"
        ): P + "test_tampered_low_return_program_raises_3a_and_1a_from_the_verification",
        "the program an approved conversion puts in": P
        + "test_an_approved_conversion_to_a_low_return_program_raises_1a_only",
    },
    unchecked=(
        "games of skill (the greatest return over continuous play): the twin has no skill games",
        (
            "a program whose image the Board does not hold cannot be analysed: 3(a) and 20(a) find"
            " that machine, 1(a) cannot"
        ),
        (
            "a program changed between two verifications runs unseen until the next one "
            "(program_verification_hours)"
        ),
    ),
)
class MinimumReturn(_ApprovedProgram):
    """The exact designed return of the program each machine actually runs, from its PAR sheet.

    What a machine runs is what its installation and approved conversions put in, as long
    as its signature challenges (``program_verified``) answer for that program; an answer
    for another program means that program runs, and its return is checked. A linked
    machine's return includes the link's increment (item 2(a): the progression "raises the
    basic theoretical percentage").
    """

    def setup(self) -> None:
        super().setup()
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
        self.follow(rec)
        if isinstance(rec, MachineInstalled):
            self._check(rec.machine, self.approved[rec.machine], rec)
        elif isinstance(rec, ProgramConverted):
            self._check(rec.machine, rec.to_signature, rec)
        elif isinstance(rec, ProgramVerified) and rec.machine in self.ctx.installed:
            running = self.running(rec)
            if running is not None:
                self._check(rec.machine, running, rec)


@control(
    "MT98.S1.3a",
    kind=Kind.RUNTIME,
    title="Payback changes only by a hardware or software change",
    reads=("machine_installed", "program_converted", "program_verified", "meters_read"),
    test=T,
    checks={
        (
            "a machine running another program than approved (signature challenge), with no "
            "recorded change"
        ): P + "test_tampered_low_return_program_raises_3a_and_1a_from_the_verification",
        "a machine reporting another program than approved, with no recorded change": P
        + "test_the_same_program_swap_without_a_conversion_record_raises_3a",
        "an approved conversion (a recorded software change) is no finding": P
        + "test_an_approved_conversion_raises_neither_3a_nor_1a",
        "found at the first verification after the change": P
        + "test_tampering_is_found_at_the_first_verification_after_it",
    },
    unchecked=(
        (
            "whether the payback is capable of being changed without a hardware or software change"
            " is a design property; the twin observes only its effect, a program other than the "
            "approved one"
        ),
        (
            "a tampered machine that keeps the approved image and answers challenges from it "
            "cannot be told apart (the limit of ROM-signature verification)"
        ),
    ),
)
class PaybackChangedOnlyByConversion(_ApprovedProgram):
    """A machine must run the program it was installed with or approved-converted to.

    Its signature challenges show what it really runs, whatever it reports; a meter reading
    that reports another program shows it too. Either, with no recorded conversion, means the
    payback changed without a hardware or software change the Board knows of.
    """

    def on_record(self, rec: Record) -> None:
        self.follow(rec)
        m = rec.entity("machine")
        approved = self.approved.get(m)
        if approved is None:
            return
        if isinstance(rec, ProgramVerified):
            if rom_signature(rec.seed, approved) == rec.response:
                return
            running = self.running(rec)
            what = (
                f"program {running[:12]}"
                if running is not None
                else "a program the Board does not hold"
            )
            self.report_once(
                m,
                (m,),
                f"machine {m}'s signature challenge shows it runs {what}, not its approved "
                f"program {approved[:12]}, without a recorded hardware or software change",
                (rec.seq,),
            )
        elif isinstance(rec, MetersRead) and rec.program_signature != approved:
            self.report_once(
                m,
                (m,),
                f"machine {m} reports program {rec.program_signature[:12]}, not its approved "
                f"program {approved[:12]}, without a recorded hardware or software change",
                (rec.seq,),
            )


class _LinkApproved(Checker):
    def on_record(self, rec: Record) -> None:
        assert isinstance(rec, MachineInstalled)
        link = rec.progressive
        if link:
            self.observed()  # a machine on a link: the clause's subject
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
    observes=(),
    needs="a machine on a progressive link",
    test=T,
    checks={
        "every linked machine's link is approved by the Board": C + "S1.2a]",
    },
    unchecked=(
        "that the progression corresponds to the increment percentage is MT98.S1.2a.inc",
        "when the approval was given: approvals are facts of the floor, fixed before it opens",
    ),
)
class LinkedProgressivesApproved(_LinkApproved):
    pass


@control(
    "MT98.S1.3b",
    kind=Kind.GOVERNANCE,
    title="Bonus and progressive schemes need prior Board approval",
    reads=("machine_installed",),
    observes=(),
    needs="a machine on a progressive link",
    test=T,
    checks={
        "a progressive scheme (link) on a machine has the Board's prior approval": C + "S1.2a]",
    },
    unchecked=(
        (
            "attendant-paid bonus schemes: the scenario accepts promotions only on approved "
            "promotional banks, so an unapproved one is refused as input and never observed"
        ),
        "a change in the rate of progression without approval: MT98.S1.2a.inc",
    ),
)
class ProgressiveSchemesApproved(_LinkApproved):
    pass


@control(
    "MT98.S1.2a.inc",
    kind=Kind.RUNTIME,
    title="Progressive meter grows by the approved increment",
    reads=("games_played", "progressive_hit"),
    test=T,
    checks={
        (
            "each hit pays the approved reset plus the approved increment of every bet since the "
            "last hit"
        ): C + "S1.2a.inc]",
    },
    unchecked=(
        (
            "the progressive meter between hits: the twin records no progressive meter readings, "
            "so a wrong increment shows at the next hit"
        ),
    ),
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
    checks={
        "the link resets to its approved amount after a hit": C + "S1.2b]",
    },
    unchecked=(
        (
            "a change of the increment percentage without approval is found by MT98.S1.2a.inc, not"
            " here"
        ),
        (
            "wider winning options without approval: a pay-table change shows as a program change "
            "(MT98.S1.3a)"
        ),
    ),
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
