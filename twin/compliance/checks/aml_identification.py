"""Prevention of money laundering, regs 45, 46(5) and 47 of the Malta regulations: who came
in (every admission follows an id check), identification on suspicion, and the
identification records and their retention.

The money trail and what the AML checkers share are in ``checks.aml``.
"""

from __future__ import annotations

from datetime import date
from functools import partial

from twin.aml.params import ID_RECORD_RETENTION
from twin.aml.records import IdentificationRecorded, InternalReport
from twin.cage import retention_ends
from twin.cage.records import RecordDestroyed, RecordVolume
from twin.compliance.checks.aml import INJ, TRAIL, TRAIL_PARAMS, MoneyTrail, T, V
from twin.compliance.registry import Checker, Kind, control
from twin.door.records import CasinoLicensed, EntryAdmitted, EntryRefused, IdChecked
from twin.patrons.records import PatronArrived, SessionStarted
from twin.records import Record

#: what an identification record shows of the person (47(1))
PARTICULARS = (
    "document_type",
    "document_number",
    "name",
    "date_of_birth",
    "nationality",
    "address",
)
REASONS = frozenset({"buy_in", "cash_out", "aggregate_buy_in", "aggregate_cash_out", "suspicion"})


# --- reg 45 ----------------------------------------------------------------------------------


@control(
    "MT98.R45",
    kind=Kind.RUNTIME,
    title="Identify everyone entering the casino",
    reads=(
        "casino_licensed",
        "patron_arrived",
        "id_checked",
        "entry_admitted",
        "entry_refused",
        "session_started",
    ),
    test=INJ + "[R45]",
    checks={
        "every admission, at this casino's door and the peers' (any purpose, any area), "
        "follows an id check of that person at that door for that visit (each check lets "
        "one entry in)": INJ + "[R45]",
        "a visitor of this casino who arrived and started to play with no id check at its "
        "door entered unidentified": "tests/test_entrance.py::test_unidentified_entrant",
        "a casino with no door check at all (no licensed casino's door before the first "
        "arrival) lets its first entrant in unidentified: one finding there, which stands for "
        "every later entrant (each counted as an observation)": V + "test_no_door_check",
    },
    unchecked=(
        "section 25 of the Act (what identification it requires) is not in the seed text: "
        "an id check of the person's document at the door is read as identification",
    ),
    observes=("entry_admitted",),
    needs="a person admitted at a door, or one who came into a casino with no door check",
)
class EveryEntrantIdentified(Checker):
    def setup(self) -> None:
        self.home = ""
        self.checks: dict[tuple[str, str, int], IdChecked] = {}
        self.arrived: dict[str, int] = {}  # person -> arrival seq, until the door sees them
        self.undoored = 0  # entrants of a casino with no door check

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, CasinoLicensed):
            if rec.home:
                self.home = rec.casino
        elif isinstance(rec, IdChecked):
            self.checks[(rec.casino, rec.person, rec.visit)] = rec
            if rec.casino == self.home:
                self.arrived.pop(rec.person, None)
        elif isinstance(rec, EntryRefused):
            self.checks.pop((rec.casino, rec.person, rec.visit), None)
        elif isinstance(rec, EntryAdmitted):
            idc = self.checks.pop((rec.casino, rec.person, rec.visit), None)
            seq = self.arrived.pop(rec.person, None) if rec.casino == self.home else None
            if idc is None:
                area = "gaming area" if rec.area == "gaming" else rec.area
                self.report(
                    (rec.person, rec.casino),
                    f"{rec.person} was let into the {area} of {rec.casino} with no id check",
                    tuple(s for s in (seq, rec.seq) if s is not None),
                )
        elif isinstance(rec, PatronArrived):
            if self.home:
                self.arrived[rec.patron] = rec.seq
            else:
                self._no_door(rec)
        elif isinstance(rec, SessionStarted):
            seq = self.arrived.pop(rec.patron, None)
            if seq is not None:
                self.report(
                    (rec.patron, self.home),
                    f"{rec.patron} came into {self.home} and played machine "
                    f"{rec.machine} with no id check at the door",
                    (seq, rec.seq),
                )

    def _no_door(self, rec: PatronArrived) -> None:
        """An entrant of a casino with no door check: identified by no one. One finding, at
        the first; the later ones are observations of the same absence."""
        self.observed()
        self.undoored += 1
        self.report_once(
            "no door",
            (rec.patron,),
            f"no such function in this casino: no door check identifies entrants (no "
            f"licensed casino's door before the first arrival); {rec.patron} came in "
            f"unidentified (visit {rec.visit}), and so does every later entrant (this finding "
            "stands for them all; each is counted as an observation of reg 45)",
            (rec.seq,),
        )


# --- reg 46(5): identification on suspicion ---------------------------------------------------


@control(
    "MT98.R46.5",
    kind=Kind.RUNTIME,
    title="Record identity on suspicion of money laundering at any amount",
    reads=("internal_report", "identification_recorded"),
    test=INJ + "[R46.5]",
    checks={
        "every suspicion an employee reports to the Reporting Officer comes with a record "
        "of the patron's particulars (reason 'suspicion'), in the same instant, whatever "
        "the amounts": INJ + "[R46.5]",
    },
    unchecked=(
        "knowledge or suspicion that no one reported is not observable: a red flag that is "
        "observed but not reported is reg 49(2)'s finding (MT98.R49.2)",
    ),
    observes=("internal_report",),
)
class SuspectsIdentified(Checker):
    def setup(self) -> None:
        self.ids: set[tuple[str, float]] = set()

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, IdentificationRecorded):
            if rec.reason == "suspicion":
                self.ids.add((rec.patron, rec.t))
        elif isinstance(rec, InternalReport):
            self.ctx.after(0.0, partial(self._due, rec))

    def _due(self, rep: InternalReport) -> None:
        if (rep.patron, rep.t) not in self.ids:
            self.report(
                (rep.patron, rep.employee),
                f"{rep.employee} reported a suspicion about {rep.patron} (case "
                f"{rep.case}) and the patron's particulars were not recorded",
                (rep.seq,),
            )


# --- reg 47: the records and their retention ----------------------------------------------


@control(
    "MT98.R47",
    kind=Kind.RECORD,
    title="Identification records: investigation-grade, kept five years",
    reads=(*TRAIL, "identification_recorded", "record_volume", "record_destroyed"),
    params=(*TRAIL_PARAMS, ID_RECORD_RETENTION.key),
    test=INJ + "[R47]",
    checks={
        "47(1): every identification record shows the document (type, number) and the "
        "person (name, date of birth, nationality, address), its reason, and, unless made on "
        "suspicion alone, the window and the transactions it covers": INJ + "[R47]",
        "the transactions are earlier transactions of that patron whose amounts add up to "
        "the amount recorded": T + "test_identification_record_contents",
        "47(2): no volume of identification records is destroyed before five years from its "
        "last entry have expired (by the calendar)": INJ + "[R47.destroyed]",
    },
    unchecked=(
        "'such details as may be necessary to facilitate any investigation' is read as the "
        "particulars above; what an investigation needs beyond them is not judged",
        "the run's own records are not destroyed within a run (volumes are counted monthly, "
        "not filled from the records); the archive of earlier volumes carries 47(2)",
    ),
    observes=("identification_recorded", "record_destroyed"),
    needs="an identification record, or a volume of them destroyed",
)
class IdentificationRecordsKept(Checker):
    def setup(self) -> None:
        self.trail = MoneyTrail.of(self.ctx)
        self.volumes: dict[str, RecordVolume] = {}

    def on_record(self, rec: Record) -> None:
        if isinstance(rec, IdentificationRecorded):
            self._particulars(rec)
        elif isinstance(rec, RecordVolume):
            if rec.category == "identification":
                self.volumes[rec.volume] = rec
        elif isinstance(rec, RecordDestroyed):
            if rec.category == "identification":
                self._destroyed(rec)
        else:
            self.trail.accept(rec)  # the transactions an identification may name

    def _particulars(self, rec: IdentificationRecorded) -> None:
        wrong = [n for n in PARTICULARS if not getattr(rec, n).strip()]
        if rec.reason not in REASONS:
            wrong.append(f"a reason ({rec.reason!r})")
        if rec.reason != "suspicion":
            if not rec.window:
                wrong.append("the window")
            if not rec.transactions:
                wrong.append("the transactions")
            amounts = self.trail.amounts
            odd = [
                s
                for s in rec.transactions
                if s >= rec.seq or amounts.get(s, ("", 0))[0] != rec.patron
            ]
            if odd:
                wrong.append(f"transactions of the patron (not: {odd})")
            elif rec.amount_cents <= 0 or rec.amount_cents != sum(
                amounts[s][1] for s in rec.transactions
            ):
                wrong.append(f"the amount of its transactions ({rec.amount_cents} cents recorded)")
        if wrong:
            self.report(
                (rec.patron, rec.staff),
                f"identification of {rec.patron} ({rec.reason}) recorded without "
                + ", ".join(wrong),
                (rec.seq,),
            )

    def _destroyed(self, rec: RecordDestroyed) -> None:
        vol = self.volumes.get(rec.volume)
        last = rec.last_entry if vol is None else vol.last_entry
        years = int(self.ctx.rule(ID_RECORD_RETENTION))
        ends = retention_ends(date.fromisoformat(last), years)
        if date.fromisoformat(rec.date) < ends:
            ev = (rec.seq,) if vol is None else (vol.seq, rec.seq)
            self.report_once(
                rec.volume,
                (rec.volume,),
                f"identification records {rec.volume} destroyed on {rec.date}, "
                f"before {years} years from {last} ended ({ends.isoformat()})",
                ev,
            )
