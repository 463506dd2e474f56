"""Machine identity, registration, limits, certificate and display controls.

Malta reg 28(3)(a)-(f), reg 29 and First Schedule item 1(d); the promotional machines and
the machine's records (items 15, 16 and 20(a)-(c)) are in ``checks.machine_records``.
"""

from __future__ import annotations

from fractions import Fraction

from twin.compliance.checks.common import ReadingDiffersFromInstall
from twin.compliance.params import MAX_PRIZE, MAX_STAKE, PRIZE_CAP_INCLUDES_PROGRESSIVE
from twin.compliance.registry import Checker, Kind, control
from twin.machines.events import (
    GamesPlayed,
    MachineInstalled,
    MachineLocked,
    MetersRead,
    ProgressiveHit,
)
from twin.machines.verification import ProgramConverted
from twin.records import Record

T = "tests/test_controls.py::test_injected_violation_is_found"
C = T + "["  # one case of T
TC = "tests/test_controls.py::"
P = "tests/test_controls_programs.py::"


@control(
    "MT98.R28.3a",
    kind=Kind.RUNTIME,
    title="Only authorised and registered machines operate",
    reads=("machine_installed",),
    observes=("machine_installed",),  # each machine installed is one observation
    test=T,
    checks={
        "the machine's registration is in the Board's register": C + "R28.3a]",
        "the program installed is the one its registration authorises": P
        + "test_a_machine_installed_with_another_program_than_registered_is_found",
    },
    unchecked=(
        "authorisation as an act separate from registration: the twin's register is both",
        (
            "a machine that no longer runs the program its registration authorises (a program "
            "swap without an approved conversion) is reg 30(2)'s, MT98.R30.2: treated as not "
            "registered, it is found there"
        ),
    ),
)
class RegisteredMachinesOnly(Checker):
    """The machine installed is in the Board's register, with the program its registration
    authorises. A machine that later runs another program no longer corresponds to its
    registered specifications: reg 30(2), ``checks.register``."""

    def on_record(self, rec: Record) -> None:
        assert isinstance(rec, MachineInstalled)
        self._installed(rec)

    def _installed(self, rec: MachineInstalled) -> None:
        registered = self.ctx.facts.register.get(rec.registration)
        if registered is None:
            self.report(
                (rec.machine,),
                f"machine {rec.machine} is on the floor but registration "
                f"{rec.registration or '(none)'} is not in the Board's register",
                (rec.seq,),
            )
        elif registered != rec.game_signature:
            self.report_once(
                rec.machine,
                (rec.machine,),
                f"machine {rec.machine} is installed with program {rec.game_signature[:12]} "
                f"({rec.game_id}); registration {rec.registration} authorises "
                f"{registered[:12]}",
                (rec.seq,),
            )


@control(
    "MT98.R28.3b",
    kind=Kind.PERIODIC,
    title="Board registration number displayed on the machine",
    reads=("machine_installed", "meters_read"),
    test=T,
    checks={
        "the machine shows a registration number": C + "R28.3b]",
        "the number shown stays the one the Board allocated": P
        + "test_a_registration_number_that_changes_is_no_longer_the_one_allocated",
    },
    unchecked=("'affixed in a visible place': the twin has no machine geometry",),
)
class RegistrationDisplayed(ReadingDiffersFromInstall):
    """The number the Board allocated is shown at installation and stays shown."""

    consequence = "instead of the registration number the Board allocated"

    def difference(self, inst: MachineInstalled, rec: MetersRead) -> str | None:
        if rec.registration == inst.registration or not inst.registration.strip():
            return None
        return f"shows registration {rec.registration or '(none)'}"

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, MetersRead):
            super().on_record(rec)
            return
        assert isinstance(rec, MachineInstalled)
        if not rec.registration.strip():
            self.report(
                (rec.machine,),
                f"machine {rec.machine} shows no registration number",
                (rec.seq,),
            )


@control(
    "MT98.R28.3c",
    kind=Kind.PERIODIC,
    title="Unique serial number permanently marked",
    reads=("machine_installed", "meters_read"),
    test=T,
    checks={
        "every machine carries a serial number": C + "R28.3c]",
        "no two machines carry the same serial": P
        + "test_two_machines_with_the_same_serial_are_found",
        "the serial never changes (permanently stamped or engraved)": C + "R28.3c.permanent]",
    },
    unchecked=("'stamped or engraved in a visible place': the twin has no machine geometry",),
)
class UniqueSerial(ReadingDiffersFromInstall):
    """Every machine carries a serial no other machine carries, and it never changes
    (permanently stamped or engraved)."""

    consequence = "although a serial number is permanently stamped or engraved"

    def setup(self) -> None:
        self.seen: dict[str, MachineInstalled] = {}

    def difference(self, inst: MachineInstalled, rec: MetersRead) -> str | None:
        if rec.serial == inst.serial or not inst.serial.strip():
            return None
        return f"now carries serial {rec.serial or '(none)'} (installed as {inst.serial})"

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, MetersRead):
            super().on_record(rec)
            return
        assert isinstance(rec, MachineInstalled)
        m = rec.machine
        if not rec.serial.strip():
            self.report((m,), f"machine {m} carries no serial number", (rec.seq,))
            return
        other = self.seen.get(rec.serial)
        if other is not None:
            self.report(
                (m, other.machine),
                f"machines {other.machine} and {m} carry the same serial {rec.serial}",
                (other.seq, rec.seq),
            )
        self.seen[rec.serial] = rec


@control(
    "MT98.R28.3d",
    kind=Kind.RUNTIME,
    title="Per-game maximum stake within the prescribed limit",
    reads=("machine_installed", "program_converted", "games_played"),
    params=(MAX_STAKE.key,),
    test=T,
    checks={
        (
            "the configured maximum stake (maximum bet x credits a unit x denomination), before "
            "any play"
        ): P + "test_the_configured_maximum_stake_is_checked_before_any_play",
        "every stake the machine took": C + "R28.3d]",
        "the configured maximum stake of the program a conversion puts in": P
        + "test_a_conversion_to_a_dearer_program_is_checked_against_the_maximum_stake",
    },
    unchecked=(
        (
            "several stakes on one game 'in the aggregate' (side bets): the twin's games have one "
            "stake"
        ),
    ),
)
class MaximumStake(Checker):
    """The stake the machine is configured to take at its maximum bet, and every stake it
    took, against the licence's maximum stake for one game (stated in Lm, compared exactly
    with the floor's euro cents: ``CheckContext.money``)."""

    def _limit_text(self) -> str:
        return self.ctx.ruleset.money_text(MAX_STAKE.key)

    def on_record(self, rec: Record) -> None:
        limit = self.ctx.rule_money(MAX_STAKE)  # the licence's Lm, in the floor's cents
        if isinstance(rec, MachineInstalled | ProgramConverted):
            inst = self.ctx.installed.get(rec.machine)
            sig = rec.to_signature if isinstance(rec, ProgramConverted) else rec.game_signature
            game = self.ctx.facts.programs.get(sig)
            if game is None or inst is None:
                return
            top = inst.max_bet_units * game.cost * inst.denomination_cents
            if top > limit:
                self.report_once(
                    rec.machine,
                    (rec.machine,),
                    f"machine {rec.machine} is configured for stakes of up to {top} cents a "
                    f"game, above the maximum stake of {self._limit_text()}",
                    (rec.seq,),
                )
            return
        assert isinstance(rec, GamesPlayed)
        m = rec.machine
        if rec.games == 0:
            return
        stake = rec.wagered // rec.games * self.ctx.denomination(m)
        if stake > limit:
            self.report_once(
                m,
                rec.entities,
                f"machine {m} took stakes of {stake} cents a game, above the maximum stake of "
                f"{self._limit_text()}",
                (rec.seq,),
            )


@control(
    "MT98.R28.3e",
    kind=Kind.RUNTIME,
    title="Per-game prize within the prescribed limit",
    reads=("machine_installed", "games_played", "progressive_hit", "machine_locked"),
    params=(MAX_PRIZE.key, PRIZE_CAP_INCLUDES_PROGRESSIVE.key),
    test=T,
    checks={
        "the largest prize of one game at the maximum bet, features included": P
        + "test_a_prize_won_in_the_feature_counts_toward_the_maximum_prize",
        "a link's prize, at its reset and as it grows": P
        + "test_a_link_whose_prize_grows_past_the_maximum_is_found_when_it_does",
        (
            "progressive prizes are exempt when the licence says so "
            "(prize_cap_includes_progressive)"
        ): P + "test_a_growing_link_is_not_capped_when_the_licence_exempts_progressives",
        "every prize that locked a machine": C + "R28.3e]",
    },
    unchecked=(
        (
            "the feature maximum is the PAR bound exceeded with probability below 1e-6 per game "
            "(retriggers make the true maximum unbounded)"
        ),
        (
            "a base win paid with a progressive hit is added to the link's prize only when the hit"
            " locks the machine"
        ),
    ),
)
class MaximumPrize(Checker):
    """Every prize one game can win against the licence's maximum prize.

    At installation: the program's largest win at the maximum bet, features included (the
    PAR analysis's ``max_win``: the base maximum plus the largest free-spin win over the
    feature length exceeded with probability below 1e-6), plus, on a link, the link's
    approved reset. While the floor runs: each link's prize as it grows (rebuilt from the
    bets and the approved increment, as an approved controller does), and every prize that
    locked a machine.
    """

    def setup(self) -> None:
        self.accrued: dict[str, int] = {}  # link -> 1/10,000 cents above its reset

    def _limit_text(self) -> str:
        return self.ctx.ruleset.money_text(MAX_PRIZE.key)

    def _progressive_counts(self) -> bool:
        return bool(self.ctx.rule(PRIZE_CAP_INCLUDES_PROGRESSIVE))

    def on_record(self, rec: Record) -> None:
        limit = self.ctx.rule_money(MAX_PRIZE)  # the licence's Lm, in the floor's cents
        if isinstance(rec, MachineInstalled):
            a = self.ctx.facts.analysis(rec.game_signature)
            if a is None:
                return
            top = a.max_win * rec.max_bet_units * rec.denomination_cents
            link = self.ctx.facts.approved_links.get(rec.progressive)
            what = "features included"
            if link is not None and self._progressive_counts():
                top += link[0]
                what += f", with the link's {link[0]}-cent reset"
            if top > limit:
                self.report(
                    (rec.machine,),
                    f"machine {rec.machine} ({rec.game_id}) can pay {top} cents on one game "
                    f"at its maximum bet ({what}), above the maximum prize of {self._limit_text()}",
                    (rec.seq,),
                )
        elif isinstance(rec, GamesPlayed) and self._progressive_counts():
            inst = self.ctx.installed.get(rec.machine)
            link = self.ctx.facts.approved_links.get(inst.progressive) if inst else None
            if inst is None or link is None:
                return
            accrued = self.accrued.get(inst.progressive, 0)
            accrued += rec.wagered * inst.denomination_cents * link[1]
            self.accrued[inst.progressive] = accrued
            prize = link[0] + accrued // 10_000
            if prize > limit:
                self.report_once(
                    inst.progressive,
                    (rec.machine,),
                    f"link {inst.progressive}'s prize has grown to {prize} cents, above the "
                    f"maximum prize of {self._limit_text()}",
                    (rec.seq,),
                )
        elif isinstance(rec, ProgressiveHit):
            self.accrued[rec.link] = 0  # the link starts again from its reset
            self._reported.discard(rec.link)
        elif (
            isinstance(rec, MachineLocked)
            and rec.prize_cents > limit
            and (rec.reason != "progressive" or self._progressive_counts())
        ):
            self.report(
                rec.entities,
                f"machine {rec.machine} awarded a prize of {rec.prize_cents} cents, above "
                f"the maximum prize of {self._limit_text()}",
                (rec.seq,),
            )


@control(
    "MT98.R28.3f",
    kind=Kind.RECORD,
    title="Manufacturer's certificate available with required contents",
    reads=("machine_installed",),
    observes=("machine_installed",),  # each machine installed is one observation
    test=T,
    checks={
        "a manufacturer's certificate exists": C + "R28.3f]",
        "it carries every particular of reg 28(4)": P
        + "test_a_certificate_lacking_a_particular_is_found",
        (
            "its particulars are the machine's (manufacturer, model, serial, date, program, game "
            "type and theme, increment, maximum bet, top jackpot)"
        ): C + "R28.3f.match]",
        "its minimum payout is the installed program's": C + "S1.20b]",
    },
    unchecked=(
        "the Board's power to dispense with the certificate: the twin has no dispensation",
        (
            "'available for inspection' beyond existing, and the brand name beyond being present "
            "(nothing to compare it with)"
        ),
    ),
)
class ManufacturerCertificate(Checker):
    """The certificate must exist, carry every particular of reg 28(4)(i)-(vii), and its
    particulars must be those of the machine installed and the program it runs."""

    def on_record(self, rec: Record) -> None:
        assert isinstance(rec, MachineInstalled)
        m = rec.machine
        if not rec.certificate:
            self.report((m,), f"machine {m} has no manufacturer's certificate", (rec.seq,))
            return
        optional = {"progressive_increment_bp"}
        missing = [name for name, value in rec.certificate if not value and name not in optional]
        if missing:
            self.report(
                (m,),
                f"machine {m}'s manufacturer's certificate lacks: " + ", ".join(missing),
                (rec.seq,),
            )
        wrong = [
            f"{name} {got!r} (the machine: {want!r})" for name, got, want in self._mismatches(rec)
        ]
        if wrong:
            self.report(
                (m,),
                f"machine {m}'s manufacturer's certificate does not describe it: "
                + "; ".join(wrong),
                (rec.seq,),
            )

    def _mismatches(self, rec: MachineInstalled) -> list[tuple[str, str, str]]:
        cert = dict(rec.certificate)
        want = {
            "manufacturer": rec.manufacturer,
            "serial": rec.serial,
            "model": rec.model,
            "manufactured": rec.manufactured,
            "program_serial": rec.game_signature,
        }
        game = self.ctx.facts.programs.get(rec.game_signature)
        a = self.ctx.facts.analysis(rec.game_signature)
        if game is not None and a is not None:
            link = self.ctx.facts.approved_links.get(rec.progressive)
            floor = Fraction(int(a.rtp * 10_000), 100)
            want |= {
                "minimum_payout_percent": f"{float(floor):.2f}",
                "game_type": a.kind,
                "game_theme": game.name,
                "max_bet_credits": str(rec.max_bet_units * game.cost),
                "highest_jackpot_credits": str(a.max_win * rec.max_bet_units),
            }
            if link is not None or not rec.progressive:  # an unapproved link: items 2(a), 3(b)
                want["progressive_increment_bp"] = str(link[1]) if link else ""
        return [(k, cert.get(k, ""), v) for k, v in want.items() if cert.get(k, "") != v]


@control(
    "MT98.R29",
    kind=Kind.PERIODIC,
    title="Prize statements displayed on the machine",
    reads=("machine_installed",),
    observes=("machine_installed",),  # each machine installed is one observation
    test=T,
    checks={
        "the machine displays the value of its prizes": C + "R29]",
    },
    unchecked=(
        (
            "the statement's contents (each prize's value) and the circumstances in which a prize "
            "cannot be won: the twin's display is one flag"
        ),
        "the manner of display a licence or the Board may prescribe",
    ),
)
class PrizesDisplayed(Checker):
    def on_record(self, rec: Record) -> None:
        assert isinstance(rec, MachineInstalled)
        if not rec.paytable_displayed:
            self.report(
                (rec.machine,),
                f"machine {rec.machine} does not display the value of its prizes",
                (rec.seq,),
            )


@control(
    "MT98.S1.1d",
    kind=Kind.PERIODIC,
    title="Display rules of play and the pay table",
    reads=("machine_installed",),
    observes=("machine_installed",),  # each machine installed is one observation
    test=T,
    checks={
        "the machine displays its rules of play and payoff schedule": C + "R29]",
    },
    unchecked=("the content and accuracy of what is displayed: the twin's display is one flag",),
)
class RulesDisplayed(Checker):
    def on_record(self, rec: Record) -> None:
        assert isinstance(rec, MachineInstalled)
        if not rec.paytable_displayed:
            self.report(
                (rec.machine,),
                f"machine {rec.machine} does not display its rules of play and payoff schedule",
                (rec.seq,),
            )
