"""Prevention of money laundering, regs 48-51 of the Malta regulations: employees trained,
suspicions reported to the Reporting Officer, evaluated and escalated to the police and
the Board, the Reporting Officer appointed and notified, and the report's contents.

The money trail and what the AML checkers share are in ``checks.aml``.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from functools import partial

from dateutil.relativedelta import relativedelta

from twin.aml.params import POLICE_MIN_RANK, TRAINING_INTERVAL
from twin.aml.records import (
    AmlTrainingCompleted,
    IdentificationRecorded,
    InternalReport,
    RedFlagObserved,
    ReportingOfficerAppointed,
    ReportingOfficerNotified,
    RoEvaluation,
    SuspicionReported,
)
from twin.compliance.checks.aml import ANONYMOUS, INJ, TRAIL, TRAIL_PARAMS, MoneyTrail, T, V
from twin.compliance.params import (
    AML_ESCALATION_TOGETHER,
    AML_EVALUATION_HOURS,
    AML_INTERNAL_REPORT_HOURS,
    AML_POLICE_REPORT_HOURS,
)
from twin.compliance.registry import Checker, Kind, control
from twin.patrons.records import PatronArrived
from twin.records import Record
from twin.staff.records import ShiftStarted

#: the ranks of the Malta Police Force, lowest first (reg 49(1): "not below the rank of")
RANKS = (
    "Constable",
    "Sergeant",
    "Inspector",
    "Superintendent",
    "Assistant Commissioner",
    "Deputy Commissioner",
    "Commissioner",
)


# --- reg 48: training ----------------------------------------------------------------------


@control(
    "MT98.R48",
    kind=Kind.PERIODIC,
    title="AML training for casino employees",
    reads=(
        "shift_started",
        "aml_training_completed",
        "reporting_officer_appointed",
        "patron_arrived",
    ),
    params=(TRAINING_INTERVAL.key,),
    test=INJ + "[R48]",
    checks={
        "every employee of the licensee who comes on shift completed the AML course within "
        "the ruleset's calendar months before that day (once per employee)": INJ + "[R48]",
        "the months by the calendar; a course recorded in the same instant as the shift counts": T
        + "test_training_interval_by_the_calendar",
        "a casino with no AML training at all (no course on record, no Reporting Officer) "
        "when it opens to the public: one finding naming the employees on shift, which stands "
        "for every later one (each counted as an observation)": V
        + "test_no_aml_function_is_one_finding_per_clause",
    },
    unchecked=(
        "'adequately trained' has no frequency in the text: aml_training_interval_months is "
        "the twin's reading (on hire, then yearly)",
        "what the course teaches (the Act of 1994, recognising laundering) is its name "
        "only: the content is not modelled",
    ),
    observes=(),
    needs="an employee of the licensee coming on shift",
)
class EmployeesTrained(Checker):
    def setup(self) -> None:
        self.active = False  # a course on record, or a Reporting Officer to organise them
        self.trained: dict[str, AmlTrainingCompleted] = {}
        self.waiting: list[ShiftStarted] = []  # shifts judged before any training function
        self.absent = False  # the finding of a casino with no training at all is made

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, ReportingOfficerAppointed):
            self._activate()
        elif isinstance(rec, AmlTrainingCompleted):
            self._activate()
            last = self.trained.get(rec.employee)
            if last is None or rec.date >= last.date:
                self.trained[rec.employee] = rec
        elif isinstance(rec, ShiftStarted) and rec.employer != "board":
            # the course may be recorded in the same instant: judged at its end
            self.ctx.after(0.0, partial(self._due, rec))
        elif isinstance(rec, PatronArrived) and not self.active:
            self._no_training()  # open to the public, and no one is trained

    def _activate(self) -> None:
        if not self.active:
            self.active = True
            waiting, self.waiting = self.waiting, []
            for rec in waiting:  # judged at the end of this instant (its courses recorded)
                self.ctx.after(0.0, partial(self._due, rec))

    def _no_training(self) -> None:
        if self.absent or not self.waiting:
            return
        self.absent = True
        self.observed(len(self.waiting))
        names = sorted({r.member for r in self.waiting})
        shown = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
        self.report(
            tuple(names),
            f"no such function in this casino: no AML training (no course on record, no "
            f"Reporting Officer to organise one); the {len(names)} employees of the licensee "
            f"on shift ({shown}) are not trained, nor is any who comes on shift later (this "
            "finding stands for them all)",
            tuple(r.seq for r in self.waiting),
        )

    def _due(self, rec: ShiftStarted) -> None:
        if not self.active:
            if not self.absent:
                self.waiting.append(rec)
            else:
                self.observed()  # one more of the untrained employees of the finding
            return
        self.observed()
        day = self.ctx.clock.at(rec.t).date()
        months = int(self.ctx.rule(TRAINING_INTERVAL))
        last = self.trained.get(rec.member)
        if (
            last is not None
            and day - relativedelta(months=months) <= date.fromisoformat(last.date) <= day
        ):
            return
        since = "never trained" if last is None else f"last trained {last.date}"
        ev = (rec.seq,) if last is None else (last.seq, rec.seq)
        self.report_once(
            rec.member,
            (rec.member,),
            f"{rec.member} ({rec.role}) came on shift on {day.isoformat()} with no "
            f"AML course in the {months} months before ({since})",
            ev,
        )

    def finish(self) -> None:
        if not self.active:
            self._no_training()


# --- reg 49: reports -----------------------------------------------------------------------


@control(
    "MT98.R49.2",
    kind=Kind.RUNTIME,
    title="Employees must report suspicious matters",
    reads=("red_flag_observed", "internal_report"),
    params=(AML_INTERNAL_REPORT_HOURS.key,),
    test=INJ + "[R49.2]",
    checks={
        "every red flag an employee observes is reported to the Reporting Officer by that "
        "employee, citing it, within the ruleset's hours (open at the run's end: only when "
        "overdue)": INJ + "[R49.2]",
    },
    unchecked=(
        "'any information or other matter' is the red flags the twin's employees observe; "
        "what an employee failed to notice is not observable (notice_trained is behaviour)",
        "reg 49(2) sets no time: aml_internal_report_hours is the twin's reading",
    ),
)
class RedFlagsReported(Checker):
    def setup(self) -> None:
        self.open: dict[int, RedFlagObserved] = {}

    def limit(self) -> float:
        return float(self.ctx.rule(AML_INTERNAL_REPORT_HOURS)) * 3600.0

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, RedFlagObserved):
            self.open[rec.seq] = rec
            self.ctx.after(self.limit(), partial(self._due, rec.seq))
        elif isinstance(rec, InternalReport):
            seen = self.open.get(rec.observed)
            if (
                seen is not None
                and (rec.employee, rec.patron) == (seen.employee, seen.patron)
                and rec.t - seen.t <= self.limit()
            ):
                del self.open[rec.observed]

    def _due(self, seq: int) -> None:
        seen = self.open.pop(seq, None)
        if seen is not None:
            hours = self.ctx.rule(AML_INTERNAL_REPORT_HOURS)
            self.report(
                (seen.employee, seen.patron),
                f"{seen.employee} observed a red flag ({seen.flag}) about "
                f"{seen.patron} and did not report it within {hours} h",
                (seq,),
            )

    def finish(self) -> None:
        for seq, seen in sorted(self.open.items()):
            if seen.t + self.limit() < self.ctx.now:
                self._due(seq)


def _rank_ok(rank: str, least: str) -> bool:
    return rank in RANKS and least in RANKS and RANKS.index(rank) >= RANKS.index(least)


@control(
    "MT98.R49.1",
    kind=Kind.RUNTIME,
    title="Internal reporting routes suspicions to the police immediately",
    reads=("internal_report", "ro_evaluation", "suspicion_reported"),
    params=(AML_POLICE_REPORT_HOURS.key, POLICE_MIN_RANK.key),
    test=INJ + "[R49.1]",
    checks={
        "every suspicion the Reporting Officer confirms is with a Police Officer of at least "
        "the ruleset's rank within the ruleset's hours of the internal report that raised "
        "it (the evaluation's time included)": INJ + "[R49.1]",
        "the police ranks, lowest first: Constable, Sergeant, Inspector, Superintendent, "
        "Assistant Commissioner, Deputy Commissioner, Commissioner": T + "test_police_ranks",
    },
    unchecked=(
        "'immediately' has no number in the text: aml_police_report_hours is the twin's reading",
        "a suspicion the Reporting Officer dismisses is not reported (the judgment itself is "
        "not checked)",
    ),
    observes=("ro_evaluation", "suspicion_reported"),
)
class SuspicionsToPolice(Checker):
    def setup(self) -> None:
        self.reports: dict[str, InternalReport] = {}
        self.police: dict[str, SuspicionReported] = {}  # case -> first report in rank

    def on_record(self, rec: Record) -> None:
        ctx = self.ctx
        if isinstance(rec, InternalReport):
            self.reports[rec.case] = rec
        elif isinstance(rec, RoEvaluation):
            rep = self.reports.get(rec.case)
            if rec.decision == "suspicious" and rep is not None:
                hours = float(ctx.rule(AML_POLICE_REPORT_HOURS))
                due = rep.t + hours * 3600.0
                ctx.after(max(0.0, due - ctx.now), partial(self._due, rep, rec, due))
        elif isinstance(rec, SuspicionReported) and rec.recipient == "police":
            least = str(ctx.rule(POLICE_MIN_RANK))
            if _rank_ok(rec.rank, least):
                self.police.setdefault(rec.case, rec)
            else:
                self.report_once(
                    (rec.case, "rank"),
                    (rec.patron, rec.officer),
                    f"case {rec.case} reported to a police officer of rank "
                    f"{rec.rank!r}, below {least}",
                    (rec.seq,),
                )

    def _due(self, rep: InternalReport, ev: RoEvaluation, due: float) -> None:
        got = self.police.get(rep.case)
        if got is not None and got.t <= due:
            return
        hours = self.ctx.rule(AML_POLICE_REPORT_HOURS)
        self.report_once(
            rep.case,
            (rep.patron, ev.officer),
            f"the suspicion of case {rep.case} about {rep.patron} was not "
            f"reported to the police within {hours} h of the internal report",
            (rep.seq, ev.seq),
        )


# --- reg 50: the Reporting Officer ---------------------------------------------------------


@control(
    "MT98.R50.1",
    kind=Kind.GOVERNANCE,
    title="Appoint and notify a Reporting Officer",
    reads=(
        "reporting_officer_appointed",
        "reporting_officer_notified",
        "ro_evaluation",
        "suspicion_reported",
        "patron_arrived",
    ),
    test=INJ + "[R50.1]",
    checks={
        "a Reporting Officer is appointed, and his name, grade and designation are notified "
        "to the Secretary of the Board and to the Commissioner of Police (the same "
        "particulars, on or after the appointment)": INJ + "[R50.1]",
        "the Reporting Officer who evaluates and reports is the one appointed": T
        + "test_officer_parts",
        "a casino with no Reporting Officer appointed when it opens to the public (its first "
        "entrant; the run's end if no one came) is one finding there": V
        + "test_no_aml_function_is_one_finding_per_clause",
    },
    unchecked=(
        "the text sets no time for the notice: a notice missing at the run's end is the finding",
        "a vacancy (the officer leaving, a successor) is not modelled: one officer serves "
        "the whole run",
    ),
    observes=(
        "reporting_officer_appointed",
        "reporting_officer_notified",
        "ro_evaluation",
        "suspicion_reported",
    ),
    needs="the casino's opening (its first entrant) or its Reporting Officer's records",
)
class ReportingOfficerNamed(Checker):
    def setup(self) -> None:
        self.opened = False
        self.appointed: ReportingOfficerAppointed | None = None
        self.notices: list[ReportingOfficerNotified] = []

    def _none(self, evidence: tuple[int, ...], when: str) -> None:
        self.report_once(
            "no officer",
            (),
            f"no such function in this casino: no Reporting Officer appointed {when}",
            evidence,
        )

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, PatronArrived):
            if not self.opened:  # the casino is open to the public: is an officer appointed?
                self.opened = True
                self.observed()
                if self.appointed is None:
                    self._none((rec.seq,), f"when the casino opened ({rec.patron} came in)")
        elif isinstance(rec, ReportingOfficerAppointed):
            self.appointed = rec
        elif isinstance(rec, ReportingOfficerNotified):
            self.notices.append(rec)
        elif isinstance(rec, RoEvaluation | SuspicionReported):
            a = self.appointed
            if a is not None and rec.officer != a.officer:
                what = "evaluated" if isinstance(rec, RoEvaluation) else "reported"
                self.report(
                    (rec.officer, rec.patron),
                    f"case {rec.case} was {what} by {rec.officer}, not the appointed "
                    f"Reporting Officer {a.officer}",
                    (a.seq, rec.seq),
                )

    def finish(self) -> None:
        a = self.appointed
        if a is None:
            if not self.opened:
                self.observed()  # the run's end: the clause is checked once
            self._none(tuple(n.seq for n in self.notices), "in the run")
            return
        who = (a.officer, a.name, a.grade, a.designation)
        missing = [
            r
            for r in ("board_secretary", "commissioner_of_police")
            if not any(
                n.recipient == r
                and (n.officer, n.name, n.grade, n.designation) == who
                and n.date >= a.date
                and all(who)
                for n in self.notices
            )
        ]
        if missing:
            self.report(
                (a.officer,),
                f"the Reporting Officer {a.officer} ({a.name}, {a.grade}, "
                f"{a.designation}) was not notified to {' and '.join(missing)}",
                (a.seq, *(n.seq for n in self.notices)),
            )


@control(
    "MT98.R50.2a",
    kind=Kind.RUNTIME,
    title="Reporting Officer receives, evaluates and oversees",
    reads=("reporting_officer_appointed", "internal_report", "ro_evaluation"),
    params=(AML_EVALUATION_HOURS.key,),
    test=INJ + "[R50.2a]",
    checks={
        "(a) every internal report is addressed to the appointed Reporting Officer": T
        + "test_officer_parts",
        "(b) he evaluates each, within the ruleset's hours, with a decision and its reasons": INJ
        + "[R50.2a]",
        "a report still within the hours at the run's end is not overdue": T
        + "test_evaluation_deadline_at_the_run_end",
        "(b) 'in the light of all other relevant information': the evaluation weighs every "
        "internal report on the patron made before it": T + "test_officer_parts",
    },
    unchecked=(
        "(e) that regs 45-49 are fully complied with is the sum of their own checks "
        "(MT98.R45 to MT98.R49.2)",
        "no time in the text: aml_evaluation_hours is the twin's reading",
        "whether the judgment is right is not checked; only that it is made and reasoned",
    ),
    observes=("internal_report", "ro_evaluation"),
)
class ReportsEvaluated(Checker):
    def setup(self) -> None:
        self.officer = ""
        self.reports: dict[str, InternalReport] = {}
        self.open: dict[str, InternalReport] = {}
        self.on_patron: dict[str, list[int]] = defaultdict(list)

    def limit(self) -> float:
        return float(self.ctx.rule(AML_EVALUATION_HOURS)) * 3600.0

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, ReportingOfficerAppointed):
            self.officer = rec.officer
        elif isinstance(rec, InternalReport):
            self.reports[rec.case] = self.open[rec.case] = rec
            self.on_patron[rec.patron].append(rec.seq)
            if self.officer and rec.officer != self.officer:
                self.report(
                    (rec.employee, rec.patron),
                    f"{rec.employee}'s report {rec.case} went to {rec.officer}, not "
                    f"the Reporting Officer {self.officer}",
                    (rec.seq,),
                )
            self.ctx.after(self.limit(), partial(self._due, rec.case))
        elif isinstance(rec, RoEvaluation):
            self._evaluated(rec)

    def _evaluated(self, ev: RoEvaluation) -> None:
        rep = self.reports.get(ev.case)
        if rep is None:
            return
        self.open.pop(ev.case, None)
        wrong = []
        if ev.officer != rep.officer:
            wrong.append(f"by {ev.officer}, the report went to {rep.officer}")
        if ev.decision not in ("suspicious", "no_suspicion") or not ev.reasons.strip():
            wrong.append("no decision with its reasons")
        unseen = sorted(
            set(s for s in self.on_patron[ev.patron] if s < ev.seq) - set(ev.considered)
        )
        if unseen:
            wrong.append(f"earlier reports on the patron not considered: {unseen}")
        if wrong:
            self.report(
                (ev.officer, ev.patron),
                f"evaluation of {ev.case}: " + "; ".join(wrong),
                (rep.seq, ev.seq),
            )

    def _due(self, case: str) -> None:
        rep = self.open.pop(case, None)
        if rep is not None:
            hours = self.ctx.rule(AML_EVALUATION_HOURS)
            self.report(
                (rep.officer, rep.patron),
                f"report {case} on {rep.patron} was not evaluated by the Reporting "
                f"Officer within {hours} h",
                (rep.seq,),
            )

    def finish(self) -> None:
        for case, rep in sorted(self.open.items()):
            if rep.t + self.limit() < self.ctx.now:
                self._due(case)


@control(
    "MT98.R50.2c",
    kind=Kind.RUNTIME,
    title="Reporting Officer escalates findings to the police and the Board",
    reads=("internal_report", "ro_evaluation", "suspicion_reported"),
    params=(POLICE_MIN_RANK.key, AML_ESCALATION_TOGETHER.key, AML_POLICE_REPORT_HOURS.key),
    test=INJ + "[R50.2c]",
    checks={
        "every suspicion the Reporting Officer finds is reported by him to a Police Officer "
        "of at least the ruleset's rank and to the Board's Money Laundering Liaison "
        "Officer": INJ + "[R50.2c]",
        "the police officer's rank": T + "test_police_ranks",
        "by the literal reading (aml_escalation_together false, the default) both reports "
        "are made, at any instants, by the run's end; the other reading wants both in the "
        "instant of the first": V + "test_escalation_together_reading",
        "a suspicion the Board (or the police) never hears of is found at the run's end, once "
        "aml_police_report_hours from its internal report have passed": V
        + "test_escalation_literal_reading_finds_a_report_never_made",
    },
    unchecked=(
        "50(2)(c) sets no time: how soon the police hear is reg 49(1)'s ('immediately', "
        "MT98.R49.1); a suspicion whose aml_police_report_hours have not run out at the run's "
        "end is not judged (its reports may still be on their way)",
    ),
    observes=("ro_evaluation", "suspicion_reported"),
)
class SuspicionsEscalated(Checker):
    def setup(self) -> None:
        self.reports: dict[str, InternalReport] = {}
        self.evaluations: dict[str, RoEvaluation] = {}
        self.sent: dict[str, list[SuspicionReported]] = defaultdict(list)
        self.together = bool(self.ctx.rule(AML_ESCALATION_TOGETHER))

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, InternalReport):
            self.reports[rec.case] = rec
        elif isinstance(rec, RoEvaluation):
            self.evaluations[rec.case] = rec
        elif isinstance(rec, SuspicionReported):
            first = rec.case not in self.sent
            self.sent[rec.case].append(rec)
            if first and self.together:
                self.ctx.after(0.0, partial(self._due, rec.case))

    def _due(self, case: str) -> None:
        ev = self.evaluations.get(case)
        if ev is None or ev.decision != "suspicious":
            return
        sent = self.sent[case]
        least = str(self.ctx.rule(POLICE_MIN_RANK))
        wrong = []
        to = {r.recipient for r in sent if r.officer == ev.officer}
        for recipient, name in (("police", "the police"), ("board_mllo", "the Board's MLLO")):
            if recipient not in to:
                wrong.append(f"not reported to {name}")
        if any(r.recipient == "police" and not _rank_ok(r.rank, least) for r in sent):
            wrong.append(f"the police officer is below {least}")
        if wrong:
            when = "in the instant of the first report" if self.together else "by the run's end"
            self.report(
                (ev.officer, ev.patron),
                f"the suspicion of case {case} ({when}): " + "; ".join(wrong),
                (ev.seq, *(r.seq for r in sent)),
            )

    def finish(self) -> None:
        if self.together:
            return
        hours = float(self.ctx.rule(AML_POLICE_REPORT_HOURS))
        for case, ev in sorted(self.evaluations.items()):
            rep = self.reports.get(case)
            since = ev.t if rep is None else rep.t
            if since + hours * 3600.0 <= self.ctx.now:  # its reports had their time
                self._due(case)


# --- reg 51: the report's contents ---------------------------------------------------------


@control(
    "MT98.R51",
    kind=Kind.RECORD,
    title="Contents of a suspicious transaction report",
    reads=(*TRAIL, "internal_report", "identification_recorded", "suspicion_reported"),
    params=TRAIL_PARAMS,
    test=INJ + "[R51]",
    checks={
        "(a) the suspicious transactions (earlier transactions of the floor, those of the "
        "case's report among them) and their detail; (b) the person, with the particulars "
        "of the patron's identification record; (c) the reasons; (d) other matters that may "
        "help the investigation: every report to the police and the Board has them all": T
        + "test_report_contents",
        "a report with no reasons is found on the floor": INJ + "[R51]",
    },
    unchecked=(
        "whether the contents are enough for an investigation is not judged: each part must "
        "be there and name what the records show",
        ANONYMOUS,
    ),
    observes=("suspicion_reported",),
)
class ReportContents(Checker):
    def setup(self) -> None:
        self.trail = MoneyTrail.of(self.ctx)
        self.cases: dict[str, InternalReport] = {}
        self.ids: dict[str, IdentificationRecorded] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, InternalReport):
            self.cases[rec.case] = rec
        elif isinstance(rec, IdentificationRecorded):
            self.ids[rec.patron] = rec
        elif isinstance(rec, SuspicionReported):
            self._contents(rec)
        else:
            self.trail.accept(rec)  # the transactions a report may name

    def _contents(self, rec: SuspicionReported) -> None:
        wrong = []
        amounts = self.trail.amounts
        case = self.cases.get(rec.case)
        odd = [s for s in rec.transactions if s >= rec.seq or s not in amounts]
        if not rec.transactions or odd:
            wrong.append("(a) the transactions" + (f" (not transactions: {odd})" if odd else ""))
        elif case is not None and not set(case.transactions) <= set(rec.transactions):
            wrong.append("(a) the transactions of the internal report")
        if not rec.transaction_detail.strip():
            wrong.append("(a) the transactions' detail")
        ident = self.ids.get(rec.patron)
        if not rec.person.strip():
            wrong.append("(b) the person")
        elif ident is not None and ident.document_number not in rec.person:
            wrong.append("(b) the person's particulars as identified")
        parts = (("(c) the reasons", rec.reasons), ("(d) other matters", rec.other))
        wrong += [name for name, got in parts if not got.strip()]
        if wrong:
            self.report(
                (rec.patron, rec.officer),
                f"report of case {rec.case} to {rec.recipient} without " + ", ".join(wrong),
                (rec.seq,),
            )
