"""The ruleset parameters the cage works to, each declared once (issue 26)."""

from __future__ import annotations

from twin.rules import Rule

WRITEOFF_CYCLE = Rule[int](
    "writeoff_cycle_months", "months", "how often unclaimed money becomes gaming profit"
)
CHEQUE_RECORD_RETENTION = Rule[int](
    "cheque_record_retention_years", "years", "how long payment records are kept"
)
ACCOUNTS_RETENTION = Rule[int](
    "accounts_retention_years", "years", "how long the accounts of gaming operations are kept"
)
INTERNAL_AUDIT_RETENTION = Rule[int](
    "internal_audit_retention_years", "years", "how long internal audit reports are kept"
)

#: the parameters the cage works to (the assembly hands their values over)
RULES = (WRITEOFF_CYCLE, CHEQUE_RECORD_RETENTION, ACCOUNTS_RETENTION, INTERNAL_AUDIT_RETENTION)
