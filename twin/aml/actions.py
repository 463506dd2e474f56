"""The Reporting Officer's operator actions: evaluate an internal report, report a suspicion
to the police and the Board (a drill's hook).

With ``[aml] operator = ["evaluation"]`` each internal report to the Reporting Officer
(``internal_report``) waits for the operator: :class:`EvaluateCase` records the Officer's
decision with its reasons (reg 50(2)(b), weighing every report on the patron so far), and
:class:`ReportSuspicion` sends the report of reg 51 on a case found suspicious to a Police
Officer of a given rank (49(1)) or to the Board's Money Laundering Liaison Officer (50(2)(c)).
A report to an officer below the ruleset's rank, or an evaluation without reasons, is made as
ordered and found by the controls; a command the desk cannot carry out is refused with its
reason.
"""

from __future__ import annotations

from twin.aml.model import AmlDesk
from twin.commands import Command, command
from twin.department import Venue


def _desk(venue: Venue) -> AmlDesk | None:
    desk = venue.find(AmlDesk)
    return desk if desk is not None and desk.officer else None


@command("evaluate_case")
class EvaluateCase(Command):
    """The Reporting Officer's ``decision`` ("suspicious", "no_suspicion") on the internal
    report ``case``, with its ``reasons``."""

    case: str
    decision: str
    reasons: str

    def check(self, venue: Venue) -> str | None:
        desk = _desk(venue)
        if desk is None:
            return "this casino has no Reporting Officer ([aml])"
        return desk.evaluation_refusal(self.case, self.decision)

    def apply(self, venue: Venue) -> None:
        venue.need(AmlDesk).operator_evaluates(self.case, self.decision, self.reasons)


@command("report_suspicion")
class ReportSuspicion(Command):
    """Report the suspicion of ``case`` to ``recipient`` ("police", "board_mllo"); ``rank``
    is the police officer's (e.g. "Inspector"; "" for the Board)."""

    case: str
    recipient: str
    rank: str

    def check(self, venue: Venue) -> str | None:
        desk = _desk(venue)
        if desk is None:
            return "this casino has no Reporting Officer ([aml])"
        return desk.report_refusal(self.case, self.recipient)

    def apply(self, venue: Venue) -> None:
        venue.need(AmlDesk).operator_reports(self.case, self.recipient, self.rank)


__all__ = ["EvaluateCase", "ReportSuspicion"]
