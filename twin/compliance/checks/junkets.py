"""Junkets (Malta reg 25): who may come, the leader's licence and its term, the notices, the
minimum deposits and the dedicated junket chips.

Periods are calendar arithmetic (``dateutil.relativedelta``): the 14 days of 25(2) on
calendar dates, the 48 hours of 25(6) and 25(7) on the UTC instants (real hours, across a
change of summer time), the 5-year terms of 25(5) on calendar dates.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from dateutil.relativedelta import relativedelta

from twin.compliance.params import JUNKET_LICENCE_RENEWAL, JUNKET_LICENCE_TERM, LM_PER_EUR
from twin.compliance.registry import Checker, Kind, control
from twin.junkets.params import (
    HOME_COUNTRY,
    LEADER_NOTICE_DAYS,
    MAX_REPRESENTATIVES,
    MEMBER_MIN_DEPOSIT,
    NOTICE_HOURS,
    SINGLE_MIN_DEPOSIT,
)
from twin.junkets.records import (
    JunketArrived,
    JunketChipsIssued,
    JunketDeparted,
    JunketDepositLodged,
    JunketDispensation,
    JunketLeaderApplied,
    JunketLeaderLicensed,
    JunketLicenceRenewed,
    JunketMemberArrived,
    JunketNotified,
    JunketRepresentativeRegistered,
    JunketServicesEnded,
    JunketServicesStarted,
    JunketTablePlayed,
    JunketTokensBought,
)
from twin.records import Record

T = "tests/test_junkets.py::"
INJ = T + "test_injected_violation_is_found"


# -- the periods, on calendar dates -----------------------------------------------------------


def application_deadline(services_start: date, days: int) -> date:
    """The last day the leader's particulars may reach the Board (reg 25(2))."""
    return services_start - relativedelta(days=days)


def notice_deadline(arrival: datetime, hours: int) -> datetime:
    """The last instant a junket's notice may be sent (reg 25(6), (7)): ``hours`` real hours
    before the arrival (on the UTC time line, so a change of summer time counts)."""
    return arrival.astimezone(UTC) - relativedelta(hours=hours)


def licence_in_force(
    issued: date,
    renewals: Sequence[date],
    term_years: int,
    renewal_years: int,
    services_end: date | None,
    day: date,
) -> bool:
    """Whether a junket leader's licence has effect on ``day`` (reg 25(5)).

    The licence runs ``term_years`` from the day of issue (the anniversary is its first day
    without effect); a renewal made while it is in force adds ``renewal_years`` to its end,
    one made after it lapsed runs from the renewal. It ends sooner when the leader's
    services end (no effect from ``services_end`` on).
    """
    if services_end is not None and day >= services_end:
        return False
    spans = [(issued, issued + relativedelta(years=term_years))]
    for r in sorted(renewals):
        start, end = spans[-1]
        if r <= end:
            spans[-1] = (start, end + relativedelta(years=renewal_years))
        else:
            spans.append((r, r + relativedelta(years=renewal_years)))
    return any(a <= day < b for a, b in spans)


def _date(text: str) -> date:
    return date.fromisoformat(text)


# -- 25(1) ------------------------------------------------------------------------------------


@control(
    "MT98.R25.1",
    kind=Kind.RUNTIME,
    title="Junket participants must be non-residents",
    reads=("junket_member_arrived",),
    params=(HOME_COUNTRY.key,),
    test=INJ + "[R25.1]",
    checks={
        "every person on a junket is resident outside Malta": INJ + "[R25.1]",
        "... and domiciled outside Malta": T + "test_domicile_in_malta_is_a_finding",
    },
    unchecked=(
        "whether the licensee may enter into a service agreement at all (it may; nothing to check)",
    ),
)
class NonResidents(Checker):
    def on_record(self, rec: Record) -> None:
        assert isinstance(rec, JunketMemberArrived)
        home = str(self.ctx.rule(HOME_COUNTRY))
        where = [
            w for w, c in (("domiciled", rec.domicile), ("resident", rec.residence)) if c == home
        ]
        if where:
            self.report(
                (rec.member, rec.junket),
                f"junket member {rec.member} of {rec.junket} is {' and '.join(where)} in {home}: "
                "junket members must be domiciled and resident outside Malta",
                (rec.seq,),
            )


# -- 25(2)-(3) --------------------------------------------------------------------------------


@control(
    "MT98.R25.2",
    kind=Kind.GOVERNANCE,
    title="Junket leader licence sought 14 days before services start",
    reads=("junket_leader_applied", "junket_services_started"),
    params=(LEADER_NOTICE_DAYS.key,),
    test=INJ + "[R25.2]",
    checks={
        "the application and particulars reach the Board at least junket_leader_notice_days "
        "calendar days before services start": INJ + "[R25.2]",
        "the 14 days on calendar dates (the 14th day before is in time, the 13th late)": T
        + "test_fourteen_days_on_the_calendar",
        "an application before any services start": T + "test_services_without_application",
        "(a)/(b) name, (registered) address, identification (registration) number; (c) a copy "
        "of the service agreement; (d) the proposed start date": T
        + "test_leader_particulars_are_checked",
    },
    unchecked=(
        "(e) 'any other information as may be required by the Board': what the Board asks "
        "is not in the text",
        "(2)-(3) the form approved by the Board and the documents it specifies: the form's "
        "contents are the Board's, not the text's",
    ),
)
class LeaderApplication(Checker):
    def setup(self) -> None:
        self.applied: dict[str, JunketLeaderApplied] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, JunketLeaderApplied):
            self.applied[rec.leader] = rec
            missing = [
                what
                for what, ok in (
                    ("name", rec.name.strip()),
                    ("address", rec.address.strip()),
                    ("identification or registration number", rec.id_number.strip()),
                    ("copy of the service agreement", rec.agreement_supplied),
                    ("proposed start date", rec.proposed_start),
                )
                if not ok
            ]
            if missing:
                self.report(
                    (rec.leader,),
                    f"the application for junket leader {rec.leader}'s licence lacks: "
                    + ", ".join(missing),
                    (rec.seq,),
                )
        elif isinstance(rec, JunketServicesStarted):
            app = self.applied.get(rec.leader)
            if app is None:
                self.report(
                    (rec.leader,),
                    f"junket leader {rec.leader} started services on {rec.started} with no "
                    "licence application to the Board",
                    (rec.seq,),
                )
                return
            days = int(self.ctx.rule(LEADER_NOTICE_DAYS))
            due = application_deadline(_date(rec.started), days)
            if _date(app.applied) > due:
                self.report(
                    (rec.leader,),
                    f"junket leader {rec.leader}'s particulars reached the Board on "
                    f"{app.applied}, less than {days} days before services started on "
                    f"{rec.started} (due by {due.isoformat()})",
                    (app.seq, rec.seq),
                )


# -- 25(4) ------------------------------------------------------------------------------------


@control(
    "MT98.R25.4",
    kind=Kind.RUNTIME,
    title="Junket leader licensing rules; at most two representatives",
    reads=("junket_representative_registered",),
    params=(MAX_REPRESENTATIVES.key,),
    test=INJ + "[R25.4]",
    checks={
        "a junket leader has at most junket_max_representatives representatives": INJ + "[R25.4]",
    },
    unchecked=(
        "regs 10-15 and 18 applying 'as far as practicable' to a junket leader's licence: "
        "the employee-licence procedures (applications, fees, badges, cancellation) are the "
        "Board's workflows, not modelled for junket leaders",
        "a corporate leader's representatives being liable severally and in solidum: a "
        "legal consequence, nothing happens on the floor to check",
    ),
)
class Representatives(Checker):
    def setup(self) -> None:
        self.reps: dict[str, list[JunketRepresentativeRegistered]] = defaultdict(list)

    def on_record(self, rec: Record) -> None:
        assert isinstance(rec, JunketRepresentativeRegistered)
        reps = self.reps[rec.leader]
        reps.append(rec)
        most = int(self.ctx.rule(MAX_REPRESENTATIVES))
        if len(reps) > most:
            self.report_once(
                rec.leader,
                (rec.leader, rec.representative),
                f"junket leader {rec.leader} has {len(reps)} representatives; at most {most} "
                "may represent a junket leader in Malta",
                tuple(r.seq for r in reps),
            )


# -- 25(5) ------------------------------------------------------------------------------------


@dataclass
class _Licence:
    seq: int
    number: str
    issued: date
    services_end: date | None
    renewals: list[date] = field(default_factory=list)
    evidence: list[int] = field(default_factory=list)


@control(
    "MT98.R25.5",
    kind=Kind.RUNTIME,
    title="Junket leader licence term",
    reads=(
        "junket_leader_licensed",
        "junket_licence_renewed",
        "junket_services_ended",
        "junket_arrived",
    ),
    params=(JUNKET_LICENCE_TERM.key, JUNKET_LICENCE_RENEWAL.key),
    test=INJ + "[R25.5]",
    checks={
        "no junket under a leader whose services ended (the licence ends with them)": INJ
        + "[R25.5]",
        "the licence ceases junket_licence_term_years after issue (calendar years; the "
        "anniversary is the first day without effect)": T + "test_licence_term_on_the_calendar",
        "a renewal adds junket_licence_renewal_years": T + "test_licence_term_on_the_calendar",
        "no junket under a leader with no licence issued yet": T
        + "test_junket_before_the_licence_is_issued",
    },
    unchecked=(
        "cancellation or suspension by the Board: the twin's Board never cancels a junket "
        "leader's licence",
    ),
)
class LicenceTerm(Checker):
    def setup(self) -> None:
        self.licences: dict[str, _Licence] = {}
        self.ended: dict[str, tuple[date, int]] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, JunketLeaderLicensed):
            end = _date(rec.services_end) if rec.services_end else None
            self.licences[rec.leader] = _Licence(
                rec.seq, rec.licence_number, _date(rec.issued), end, evidence=[rec.seq]
            )
        elif isinstance(rec, JunketLicenceRenewed):
            lic = self.licences.get(rec.leader)
            if lic is not None:
                lic.renewals.append(_date(rec.renewed))
                lic.evidence.append(rec.seq)
        elif isinstance(rec, JunketServicesEnded):
            self.ended[rec.leader] = (_date(rec.ended), rec.seq)
        elif isinstance(rec, JunketArrived) and rec.leader:
            self._arrival(rec)

    def _arrival(self, rec: JunketArrived) -> None:
        leader = rec.leader
        day = self.ctx.clock.at(rec.t).date()
        lic = self.licences.get(leader)
        if lic is None:
            self.report(
                (rec.junket, leader),
                f"junket {rec.junket} arrived on {day} under leader {leader}, who holds no "
                "junket leader licence",
                (rec.seq,),
            )
            return
        evidence = [*lic.evidence, rec.seq]
        ends = [d for d in (lic.services_end,) if d is not None]
        if leader in self.ended:
            ends.append(self.ended[leader][0])
            evidence.append(self.ended[leader][1])
        services_end = min(ends) if ends else None
        in_force = licence_in_force(
            lic.issued,
            lic.renewals,
            int(self.ctx.rule(JUNKET_LICENCE_TERM)),
            int(self.ctx.rule(JUNKET_LICENCE_RENEWAL)),
            services_end,
            day,
        )
        if not in_force:
            if day < lic.issued:
                why = f"issued only on {lic.issued}"
            elif services_end is not None and day >= services_end:
                why = f"ended with the leader's services on {services_end}"
            else:
                why = f"issued on {lic.issued}, expired"
            self.report(
                (rec.junket, leader),
                f"junket {rec.junket} arrived on {day} under leader {leader}'s licence "
                f"{lic.number}, which had no effect: {why}",
                tuple(evidence),
            )


# -- 25(6), 25(7) -----------------------------------------------------------------------------


def _notice_gaps(rec: JunketNotified) -> list[str]:
    """The particulars of reg 25(6) a notice leaves out."""
    gaps: list[str] = []
    if rec.organiser == "leader":
        if not rec.leader:
            gaps.append("(i) the junket leader")
        if not rec.licence_number:
            gaps.append("(i) the leader's licence number")
        for r in rec.representatives:
            if any(not p.strip() for p in [*r.split("|"), "", ""][:3]):
                gaps.append("(ii) a representative's name, address or identification number")
                break
        if not rec.agreement_attached:
            gaps.append("a copy of the agreement with the junket leader")
    n = len(rec.members)
    if not n:
        gaps.append("(iii) the persons participating")
    for what, values in (
        ("name", rec.member_names),
        ("place of residence", rec.member_residences),
        ("identification number", rec.member_id_numbers),
    ):
        missing = [m for m, v in zip(rec.members, values, strict=False) if not v.strip()]
        missing += list(rec.members[len(values) :])
        if missing:
            gaps.append(f"(iii) the {what} of {', '.join(missing)}")
    if not rec.arrival or rec.stay_hours <= 0:
        gaps.append("(iv) the date of arrival and the duration of the visit")
    if not rec.registration:
        gaps.append("(v) the casino's registration number of the junket")
    return gaps


@control(
    "MT98.R25.6",
    kind=Kind.RUNTIME,
    title="48-hour advance notice of each junket",
    reads=(
        "junket_notified",
        "junket_dispensation",
        "junket_arrived",
        "junket_member_arrived",
        "junket_table_played",
    ),
    params=(NOTICE_HOURS.key,),
    test=INJ + "[R25.6]",
    checks={
        "the notice is sent at least junket_notice_hours before the junket arrives": INJ
        + "[R25.6]",
        "48 real hours across a change of summer time": T + "test_forty_eight_hours_across_dst",
        "(i)-(v) every particular: leader and licence number, representatives, each "
        "member's name, residence and identification number, arrival and stay, "
        "registration number": INJ + "[R25.6.particular]",
        "every member who arrives is on the notice": T + "test_member_not_on_the_notice",
        "a copy of the agreement with the junket leader accompanies it": T
        + "test_leader_junket_without_agreement",
        "with the Board's dispensation, the particulars precede junket gaming": T
        + "test_dispensation_needs_notice_before_gaming",
    },
    unchecked=(
        "whether the licensee's reason for a dispensation is 'justifiable': the Board's "
        "judgement; the twin records the dispensation it gave",
    ),
)
class JunketNotice(Checker):
    def setup(self) -> None:
        self.notices: dict[str, JunketNotified] = {}
        self.dispensed: dict[str, int] = {}
        self.gaming_checked: set[str] = set()

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, JunketNotified):
            self.notices[rec.junket] = rec
            gaps = _notice_gaps(rec)
            if gaps:
                self.report(
                    (rec.junket,),
                    f"the notice of junket {rec.junket} leaves out " + "; ".join(gaps),
                    (rec.seq,),
                )
        elif isinstance(rec, JunketDispensation):
            self.dispensed[rec.junket] = rec.seq
        elif isinstance(rec, JunketArrived):
            if rec.junket in self.dispensed:
                return  # due before gaming: checked at the first session
            hours = int(self.ctx.rule(NOTICE_HOURS))
            arrival = self.ctx.clock.at(rec.t)
            due = notice_deadline(arrival, hours)
            notice = self.notices.get(rec.junket)
            if notice is None:
                self.report(
                    (rec.junket,),
                    f"junket {rec.junket} arrived at {arrival.isoformat()} with no notice "
                    "to the Board",
                    (rec.seq,),
                )
            elif datetime.fromisoformat(notice.sent) > due:
                self.report(
                    (rec.junket,),
                    f"junket {rec.junket} was notified at {notice.sent}, less than {hours} "
                    f"hours before it arrived at {arrival.isoformat()}",
                    (notice.seq, rec.seq),
                )
        elif isinstance(rec, JunketMemberArrived):
            notice = self.notices.get(rec.junket)
            if notice is not None and rec.member not in notice.members:
                self.report(
                    (rec.junket, rec.member),
                    f"junket member {rec.member} arrived with {rec.junket} but is not on its "
                    "notice to the Board",
                    (notice.seq, rec.seq),
                )
        elif isinstance(rec, JunketTablePlayed):
            j = rec.junket
            if j in self.dispensed and j not in self.gaming_checked:
                self.gaming_checked.add(j)
                notice = self.notices.get(j)
                began = self.ctx.clock.at(rec.started)
                if notice is None or datetime.fromisoformat(notice.sent) > began:
                    self.report(
                        (j,),
                        f"junket {j}'s gaming began at {began.isoformat()} before its "
                        "particulars were notified (the Board dispensed only with the "
                        "48 hours)",
                        tuple(s for s in (self.dispensed[j], rec.seq) if s is not None),
                    )


@control(
    "MT98.R25.7",
    kind=Kind.RUNTIME,
    title="Licensee-organised junkets: notice and agreement 48 hours ahead",
    reads=("junket_notified", "junket_arrived"),
    params=(NOTICE_HOURS.key,),
    test=INJ + "[R25.7]",
    checks={
        "a junket the licensee organises itself comes with the junket agreement or schedule": INJ
        + "[R25.7]",
        "... furnished at least junket_notice_hours before arrival": T
        + "test_licensee_junket_late_schedule",
    },
    unchecked=(
        "its members being domiciled and resident abroad: checked for every junket by "
        "MT98.R25.1; the 25(6) notice it also owes: by MT98.R25.6",
    ),
)
class LicenseeJunket(Checker):
    def setup(self) -> None:
        self.notices: dict[str, JunketNotified] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, JunketNotified):
            if rec.organiser == "licensee":
                self.notices[rec.junket] = rec
        elif isinstance(rec, JunketArrived) and not rec.leader:
            hours = int(self.ctx.rule(NOTICE_HOURS))
            arrival = self.ctx.clock.at(rec.t)
            notice = self.notices.get(rec.junket)
            if notice is None or not notice.agreement_attached:
                self.report(
                    (rec.junket,),
                    f"the licensee's own junket {rec.junket} arrived at {arrival.isoformat()} "
                    "with no junket agreement or schedule furnished to the Board",
                    tuple(s for s in (notice.seq if notice else None, rec.seq) if s is not None),
                )
            elif datetime.fromisoformat(notice.sent) > notice_deadline(arrival, hours):
                self.report(
                    (rec.junket,),
                    f"the licensee's own junket {rec.junket}'s schedule was furnished at "
                    f"{notice.sent}, less than {hours} hours before it arrived at "
                    f"{arrival.isoformat()}",
                    (notice.seq, rec.seq),
                )


# -- 25(8) ------------------------------------------------------------------------------------


@control(
    "MT98.R25.8",
    kind=Kind.RUNTIME,
    title="Minimum junket deposits",
    reads=("junket_arrived", "junket_deposit_lodged", "junket_table_played", "junket_departed"),
    params=(SINGLE_MIN_DEPOSIT.key, MEMBER_MIN_DEPOSIT.key, LM_PER_EUR.key),
    test=INJ + "[R25.8]",
    checks={
        "each member of a junket of more than one lodges at least Lm 1,000 (converted "
        "exactly) before playing, or before leaving": INJ + "[R25.8]",
        "a junket of one person lodges at least Lm 2,000": T + "test_single_person_minimum",
        "exact comparison through the conversion (EUR 2,329.37 is short of Lm 1,000, "
        "EUR 2,329.38 is not)": T + "test_deposit_compared_exactly",
    },
    unchecked=(
        "the deposit 'made available for the purpose of gaming': the twin issues junket "
        "chips for the whole deposit at once; not checked separately",
    ),
)
class MinimumDeposit(Checker):
    def setup(self) -> None:
        self.size: dict[str, int] = {}
        self.junket_of: dict[str, str] = {}
        self.deposits: dict[str, int] = defaultdict(int)
        self.evidence: dict[str, list[int]] = defaultdict(list)

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, JunketArrived):
            self.size[rec.junket] = len(rec.members)
            for m in rec.members:
                self.junket_of[m] = rec.junket
        elif isinstance(rec, JunketDepositLodged):
            self.deposits[rec.member] += rec.amount_cents
            self.evidence[rec.member].append(rec.seq)
        elif isinstance(rec, JunketTablePlayed):
            if rec.player in self.junket_of:
                self._check(rec.player, rec.seq)
        elif isinstance(rec, JunketDeparted):
            for m in rec.members:
                self._check(m, rec.seq)

    def _check(self, member: str, seq: int) -> None:
        junket = self.junket_of[member]
        one = self.size.get(junket, 0) == 1
        rule = SINGLE_MIN_DEPOSIT if one else MEMBER_MIN_DEPOSIT
        least = self.ctx.rule_money(rule)
        got = self.deposits[member]
        if got < least:
            self.report_once(
                member,
                (member, junket),
                f"junket member {member} of {junket} lodged EUR {got / 100:,.2f}, short of "
                f"the minimum {self.ctx.ruleset.money_text(rule.key, least=True)} for "
                + ("a junket of one person" if one else "each person of a junket"),
                (*self.evidence[member], seq),
            )


# -- 25(9) ------------------------------------------------------------------------------------


class _Present(Checker):
    """Who is on a junket now (from arrival to departure), from the records."""

    def setup(self) -> None:
        self.present: dict[str, str] = {}  # member -> junket

    def track(self, rec: Record) -> bool:
        if isinstance(rec, JunketMemberArrived):
            self.present[rec.member] = rec.junket
            return True
        if isinstance(rec, JunketDeparted):
            for m in rec.members:
                self.present.pop(m, None)
            return True
        return False


@control(
    "MT98.R25.9a",
    kind=Kind.RUNTIME,
    title="Junket players use only dedicated junket chips",
    reads=("junket_member_arrived", "junket_departed", "junket_table_played",
           "junket_tokens_bought"),
    test=INJ + "[R25.9a]",
    checks={
        "a junket member plays a table game only with non-negotiable junket chips": INJ
        + "[R25.9a]",
        "a junket member pays for machine tokens at a cash desk only with junket chips": INJ
        + "[R25.9a.tokens]",
    },
    unchecked=(
        "a junket member at the pit's tables or on the slot floor: junket members play only "
        "in the junket room in the twin (the pit and the cage record no junket member)",
    ),
)  # fmt: skip
class OnlyJunketChips(_Present):
    def on_record(self, rec: Record) -> None:
        if self.track(rec):
            return
        if isinstance(rec, JunketTablePlayed):
            j = self.present.get(rec.player)
            if j is not None and rec.chips != "junket":
                self.report(
                    (rec.player, j, rec.table),
                    f"junket member {rec.player} of {j} played {rec.game} at {rec.table} with "
                    f"{rec.chips} chips, not the junket's non-negotiable chips",
                    (rec.seq,),
                )
        elif isinstance(rec, JunketTokensBought):
            j = self.present.get(rec.member)
            if j is not None and rec.paid_with != "junket":
                self.report(
                    (rec.member, j, rec.desk),
                    f"junket member {rec.member} of {j} bought machine tokens at {rec.desk} "
                    f"with {rec.paid_with}, not junket chips",
                    (rec.seq,),
                )


@control(
    "MT98.R25.9b",
    kind=Kind.RUNTIME,
    title="Junket chips used only by junket participants",
    reads=("junket_member_arrived", "junket_departed", "junket_table_played",
           "junket_chips_issued"),
    test=INJ + "[R25.9b]",
    checks={
        "junket chips are bet only by a person on a junket": INJ + "[R25.9b]",
        "junket chips are issued only to a person on a junket": T
        + "test_chips_issued_to_a_non_member",
    },
    unchecked=(
        "junket chips at the pit's tables: the pit records no junket chips (junket chips "
        "are played only in the junket room in the twin)",
    ),
)  # fmt: skip
class OnlyJunketPlayers(_Present):
    def on_record(self, rec: Record) -> None:
        if self.track(rec):
            return
        if isinstance(rec, JunketTablePlayed):
            if rec.chips == "junket" and rec.player not in self.present:
                self.report(
                    (rec.player, rec.junket, rec.table),
                    f"{rec.player}, not on any junket, bet {rec.junket}'s non-negotiable "
                    f"junket chips at {rec.table}",
                    (rec.seq,),
                )
        elif isinstance(rec, JunketChipsIssued) and rec.member not in self.present:
            self.report(
                (rec.member, rec.junket, rec.desk),
                f"junket chips of series {rec.series} were issued to {rec.member}, who is "
                "not on any junket",
                (rec.seq,),
            )


__all__ = ["application_deadline", "licence_in_force", "notice_deadline"]
