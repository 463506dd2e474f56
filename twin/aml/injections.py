"""Injected violations of the anti-money-laundering function (Malta regs 45-51), each
producing exactly its control's finding.

Each arms a misconduct on the scenario's AML desk (an ``[aml]`` section is needed; without
one the injection does nothing) at ``at_hours``; it takes effect at the desk's next
matching activity. ``unidentified_entry`` arms the door (``[entrance]``, which ``[aml]``
needs). Two are static (before opening): ``untrained_employee`` and ``ro_not_notified``.
"""

from __future__ import annotations

from twin.aml.model import AmlDesk
from twin.department import Venue
from twin.door import Door
from twin.injections import InjectViolation, injection


def _arm(kind: str, doc: str, attr: str, *, static: bool = False) -> None:
    """Set ``attr`` of the desk's armed misconduct to True."""

    def apply(venue: Venue, inj: InjectViolation) -> None:
        if (desk := venue.find(AmlDesk)) is not None:
            setattr(desk.armed, attr, True)

    injection(kind, doc, needs=(), static=static)(apply)


def _skip_id(kind: str, doc: str, reason: str) -> None:
    """The next identification of ``reason`` is not made."""

    def apply(venue: Venue, inj: InjectViolation) -> None:
        if (_amldesk := venue.find(AmlDesk)) is not None:
            _amldesk.armed.skip_id.add(reason)

    injection(kind, doc, needs=())(apply)


@injection(
    "unidentified_entry",
    "the door lets the next visitor it would admit into the gaming area with no id check "
    "(MT98.R45)",
    needs=(),
)
def _unidentified_entry(venue: Venue, inj: InjectViolation) -> None:
    if (_door := venue.find(Door)) is not None:
        _door.unidentified_next = True


_skip_id(
    "unidentified_buy_in",
    "the next buy-in that needs identification is not identified "
    "(MT98.R46.1 for one above the threshold, MT98.R46.4 for one in aggregate)",
    "buy_in",
)
_skip_id(
    "unidentified_cash_out",
    "the next cash-out that needs identification is not "
    "identified (MT98.R46.2 for one above the threshold, MT98.R46.4 for one in "
    "aggregate)",
    "cash_out",
)
_skip_id(
    "aggregate_not_identified",
    "the next buy-in that needs an aggregate identification "
    "(its window's total past the threshold) is not identified (MT98.R46.4)",
    "aggregate_buy_in",
)
_arm(
    "cash_out_not_cross_referenced",
    "the next identified cash-out is not cross-referenced to the buy-ins of its chips (MT98.R46.3)",
    "skip_cross_reference",
)
_arm(
    "suspicion_not_identified",
    "the particulars of the patron of the next internal report are not recorded (MT98.R46.5)",
    "skip_suspicion_id",
)
_arm(
    "identification_particulars_missing",
    "the next identification record has no address (MT98.R47)",
    "blank_address",
)
_arm(
    "red_flag_unreported",
    "the employee who observes the next red flag does not report it (MT98.R49.2)",
    "unreported_flag",
)
_arm(
    "report_not_evaluated",
    "the next internal report is never evaluated by the Reporting Officer (MT98.R50.2a)",
    "unevaluated_report",
)
_arm(
    "board_not_told",
    "the next suspicion the Reporting Officer finds is reported to the "
    "police but not to the Board's Money Laundering Liaison Officer (MT98.R50.2c)",
    "board_not_told",
)
_arm(
    "report_without_reasons", "the next suspicion report gives no reasons (MT98.R51)", "no_reasons"
)
_arm(
    "untrained_employee",
    "the first employee of the licensee to come on shift has had no AML training (MT98.R48)",
    "untrained_next",
    static=True,
)
_arm(
    "ro_not_notified",
    "the Reporting Officer's appointment is not notified to the "
    "Commissioner of Police (MT98.R50.1)",
    "not_notified_police",
    static=True,
)


@injection(
    "police_report_late",
    "the next suspicion the Reporting Officer finds reaches the police and the Board "
    "`amount` hours (0 means 48) later than it would (MT98.R49.1)",
    needs=(),
)
def _police_report_late(venue: Venue, inj: InjectViolation) -> None:
    if (_amldesk := venue.find(AmlDesk)) is not None:
        _amldesk.armed.late_report_hours = inj.amount if inj.amount > 0 else 48


@injection(
    "destroy_identification_records",
    "the newest volume of identification records in the archive is destroyed now, within its "
    "five years (MT98.R47)",
    needs=(),
)
def _destroy_identification_records(venue: Venue, inj: InjectViolation) -> None:
    if (_amldesk := venue.find(AmlDesk)) is not None:
        _amldesk.destroy_early()


KINDS = (
    "unidentified_entry",
    "unidentified_buy_in",
    "unidentified_cash_out",
    "aggregate_not_identified",
    "cash_out_not_cross_referenced",
    "suspicion_not_identified",
    "identification_particulars_missing",
    "destroy_identification_records",
    "untrained_employee",
    "red_flag_unreported",
    "report_not_evaluated",
    "police_report_late",
    "board_not_told",
    "ro_not_notified",
    "report_without_reasons",
)

__all__ = ["KINDS"]
