"""Injected violations of the cage, the books and the unclaimed-money register (issue 10).

Each arms a misconduct on the scenario's cage (a ``[cage]`` section is needed; without one
the injection does nothing) at ``at_hours``; it takes effect at the cage's next matching
activity. ``amount`` where a kind says so (0 means the default it names).
"""

from __future__ import annotations

from twin.cage.model import Cage
from twin.department import Venue
from twin.injections import InjectViolation, injection


def _arm(kind: str, doc: str, attr: str, default: int | None = None) -> None:
    """``attr`` of the cage's armed misconduct: True, or ``amount`` (``default`` if 0)."""

    def apply(venue: Venue, inj: InjectViolation) -> None:
        cage = venue.find(Cage)
        if cage is None:
            return
        value: object = True
        if default is not None:
            value = inj.amount if inj.amount > 0 else default
        setattr(cage.armed, attr, value)

    injection(kind, doc, needs=())(apply)


_arm("unclaimed_pocketed", "the next unclaimed item found is kept, not handed to staff",
     "pocket_next_item")  # fmt: skip
_arm("writeoff_skipped", "the next month-end write-off of the unclaimed register is not made",
     "skip_next_writeoff")  # fmt: skip
_arm("cheque_particulars_missing", "the next gaming cheque is recorded with no account number",
     "missing_particulars")  # fmt: skip
_arm("dishonour_unregistered", "the next cheque refused by its bank is not entered in the "
     "register of dishonoured cheques", "unregistered_dishonour")  # fmt: skip
_arm("banking_evidence_misdated", "the next batch's endorsed document carries a date `amount` "
     "days (0 means 1) after the banking date recorded", "misdated_evidence_days", 1)  # fmt: skip
_arm("unauthorised_payout", "the next payment out of the cage has no authoriser",
     "unauthorised_payout")  # fmt: skip
_arm("late_statements", "the next audited statements are lodged `amount` days (0 means 30) "
     "later than planned", "late_statements_days", 30)  # fmt: skip
_arm("cage_shortage", "`amount` cents (0 means 10,000) go missing from the cage's drawer, "
     "unexplained at the next reconciliation", "shortage_cents", 10_000)  # fmt: skip
_arm("drop_count_skim", "the count team takes `amount` cents (0 means 100) from the next "
     "container counted", "drop_skim_cents", 100)  # fmt: skip


def _destroy(kind: str, category: str, what: str) -> None:
    def apply(venue: Venue, inj: InjectViolation) -> None:
        if (_cage := venue.find(Cage)) is not None:
            _cage.destroy_early(category)

    injection(kind, f"the newest {what} in the archive is destroyed now, within its period",
              needs=())(apply)  # fmt: skip


_destroy("destroy_payment_records", "payment_records", "volume of cheque and card records")
_destroy("destroy_accounts", "accounts", "volume of accounts")
_destroy("destroy_audit_report", "internal_audit", "internal audit report")
