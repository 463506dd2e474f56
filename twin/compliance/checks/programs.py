"""Programs, returns and progressive links.

Malta First Schedule items 1(a) (minimum return), 2 (progressive links), 3 (payback changes
only by a hardware or software change: a statistical test of the approved program's payback
over the wager and the time of play, with item 1(e)'s over the hold). Items 1(c) and 1(e)
are in ``checks.outcomes``; a program swapped without an approved conversion is found under
reg 30(2) (``checks.register``), 20(a) and 1(a).
"""

from __future__ import annotations

from fractions import Fraction

from twin.compliance import stats
from twin.compliance.checks.outcomes import (
    CHANGE_PERMUTATIONS,
    EXCEED,
    MIN_STRETCHES,
    StretchLog,
    adaptation_verdict,
    payback_change_test,
)
from twin.compliance.params import PAYBACK_CHANGE_FDR, PAYTABLE_ADAPTATION_FDR
from twin.compliance.registry import Checker, Kind, control
from twin.machines.events import (
    GamesPlayed,
    MachineInstalled,
    MachineLocked,
    MetersRead,
    ProgressiveHit,
)
from twin.machines.verification import ProgramConverted, ProgramVerified, rom_signature
from twin.records import Record
from twin.slots.params import MIN_RTP

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

    def other_program(self, rec: Record) -> tuple[str | None, str] | None:
        """When ``rec`` (a signature challenge or a meter reading) shows its machine runs
        another program than the one it is approved to run: that program's signature (None
        when the answer fits no program the Board holds) and what showed it ("signature
        challenge" or "meter reading"); None when it shows the approved one, or nothing."""
        if not isinstance(rec, ProgramVerified | MetersRead):
            return None
        approved = self.approved.get(rec.machine)
        if approved is None:
            return None
        if isinstance(rec, MetersRead):
            if rec.program_signature == approved:
                return None
            return rec.program_signature, "meter reading"
        if rom_signature(rec.seed, approved) == rec.response:
            return None
        return self.running(rec), "signature challenge"


@control(
    "MT98.S1.1a",
    kind=Kind.STATISTICAL,
    title="Minimum theoretical payout of 85%",
    reads=("machine_installed", "program_converted", "program_verified"),
    params=(MIN_RTP.key,),
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
        ): P + "test_tampered_low_return_program_is_found_under_1a_and_r30_2_from_the_verification",
        "the program an approved conversion puts in": P
        + "test_an_approved_conversion_to_a_low_return_program_raises_1a_only",
    },
    unchecked=(
        "games of skill (the greatest return over continuous play): the twin has no skill games",
        (
            "a program whose image the Board does not hold cannot be analysed: reg 28(3)(a) and "
            "20(a) find that machine, 1(a) cannot"
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
        floor = Fraction(str(self.ctx.rule(MIN_RTP)))
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
    reads=(
        "machine_installed",
        "program_converted",
        "program_verified",
        "meters_read",
        "games_played",
        "machine_locked",
        "progressive_hit",
    ),
    observes=(),
    needs=f"a machine with at least {MIN_STRETCHES + 1} stretches of play on one program",
    params=(PAYBACK_CHANGE_FDR.key, PAYTABLE_ADAPTATION_FDR.key),
    test=T,
    checks={
        "a payback that depends on the wager, the approved program kept (wager_dependent)": C
        + "S1.3a]",
        "a payback that follows the machine's hold, the approved program kept "
        "(adaptive_paytable: item 1(e)'s test and verdict)": C + "S1.1e]",
        "a payback switched during play, the approved program kept (change point)": P
        + "test_a_payback_switched_during_play_is_a_change_point",
        "the change test holds its level (exact mean and variance, permutation test)": P
        + "test_the_payback_change_test_holds_its_level_on_fair_stretches",
        "no false alarm on the default floor (error rate measured)": (
            "tests/test_controls_slow.py::test_payback_change_false_alarms_on_the_default_floor"
        ),
        "an approved conversion (a recorded software change) starts a new series: no finding": P
        + "test_an_approved_conversion_raises_neither_3a_nor_1a",
        "a program swapped without a conversion is not a 3(a) finding (a software change)": P
        + "test_the_same_program_swap_without_a_conversion_record_is_found_under_r30_2",
    },
    unchecked=(
        (
            "program swaps without an approved conversion: found under 11(a), 14(a) and 30(2) "
            "(MT98.S1.11a, MT98.S1.14a, MT98.R30.2: a machine whose program is not the one its "
            "registration authorises counts as not registered), and under MT98.S1.20a (no "
            "worksheet for the program it runs), MT98.S1.1a (its return below the minimum) and "
            "the statistical controls of what it plays (MT98.S1.1b, MT98.S1.20f); a machine "
            "whose signature challenge or meter reading shows another program is left out of "
            "this test"
        ),
        (
            "whether the payback is capable of being changed without a hardware or software change"
            " is a design property; the twin observes only its effect, a payback that changes "
            "across the wager, the hold or the time of play while the approved program runs"
        ),
        (
            "a change too small or too short to stand out of a run's statistical noise (a "
            "machine's payback is noisy: fewer wins from 3 units, payback 69 % against 93 % "
            "over a day's 740 games, is not found; 1(b)(iii) finds its hit frequency), and a "
            "payback changed from installation on and kept (the level is items 1(a), 20(f))"
        ),
        (
            "changes along other segments (the patron, the time of day as such, the game's "
            "history other than its hold)"
        ),
    ),
)
class PaybackChangedOnlyByConversion(_ApprovedProgram):
    """A machine running its approved program (every signature challenge and meter reading
    shows it) must keep the approved payback: not one for each wager, not one that follows
    its hold, not one switched during play. Per machine and program (a conversion starts a
    new series), :func:`payback_change_test` tests the homogeneity of the payback over the
    bet levels and over a split of the time of play, Benjamini-Hochberg across machines at
    ``payback_change_fdr``; a pay table that follows the hold is item 1(e)'s test and verdict
    (``paytable_adaptation_fdr``), a payback changed without a software change too."""

    def setup(self) -> None:
        super().setup()
        self.log = StretchLog()
        self.results: list[tuple[str, stats.TestResult]] = []
        self.swapped: dict[str, int] = {}  # machine -> the record showing another program

    def on_record(self, rec: Record) -> None:
        self.follow(rec)
        if isinstance(rec, GamesPlayed | MachineLocked | ProgressiveHit | ProgramConverted):
            self.log.add(self.ctx, rec)
            return
        if self.other_program(rec) is not None:
            self.swapped.setdefault(rec.entity("machine"), rec.seq)

    def finish(self) -> None:
        series = [s for s in self.log.series(self.ctx) if s[0] not in self.swapped]
        self.observed(len(series))
        if not series:
            return
        q = float(self.ctx.rule(PAYBACK_CHANGE_FDR))
        # orderings enough for Benjamini-Hochberg to find one machine of them all (p <= q/N)
        cap = CHANGE_PERMUTATIONS if q <= 0 else int(min(CHANGE_PERMUTATIONS, len(series) / q))
        rows = []
        for m, _sig, a, stretches in series:
            res = payback_change_test(
                [(b, g, w) for b, g, w, _ in stretches],
                float(a.rtp),
                a.cost,
                float(a.variance),
                permutations=max(cap, 100 * EXCEED),
            )
            rows.append((m, res, tuple(s[3] for s in stretches[-20:])))
        self.results = [(m, res) for m, res, _ in rows]  # each series' test, for the record
        reject = stats.benjamini_hochberg([r[1].p_value for r in rows], q)
        for (m, res, evidence), bad in zip(rows, reject, strict=True):
            if bad:
                self.report_once(
                    m,
                    (m,),
                    f"machine {m} runs its approved program, but its payback changes: "
                    f"{res.detail} (p = {res.p_value:.2e}); a payback changed without a "
                    "hardware or software change",
                    evidence,
                    warning=True,
                )
        tested = {s[0] for s in series}
        for t in adaptation_verdict(self.ctx, self.log):
            if t.rejected and t.machine in tested:
                self.report_once(
                    t.machine,
                    (t.machine,),
                    f"machine {t.machine} runs its approved program, but its payback follows "
                    f"its hold: {t.result.detail} (p = {t.result.p_value:.2e}, item 1(e)); a "
                    "payback changed without a hardware or software change",
                    t.evidence,
                    warning=True,
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
            "(MT98.R30.2), or as a payback change while the approved program runs (MT98.S1.3a)"
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
