"""The ruleset parameters employees' licences are run to, each declared once (issue 28): the
operation obeys them (a provisional licence lapses after its months, a full one after its
years unless renewed, changes reported within the days, cover kept within the provisos, the
show-cause period given in full) and the controls read the same ones."""

from __future__ import annotations

from twin.rules import Rule

#: reg 10(b): the youngest a licensed employee may be
MIN_AGE = Rule[int]("min_age_years", "years", "the youngest age of a licensed employee")
#: reg 11: the latest a change in an application's particulars reaches the Board
NOTIFY_WITHIN_DAYS = Rule[int](
    "notify_within_days", "days", "the days to notify a change to a licence application"
)
#: reg 15(2)(d)
PROVISIONAL_LICENCE = Rule[int](
    "provisional_licence_months", "months", "the term of a provisional employee's licence"
)
#: reg 16(1)(c)
EMPLOYEE_LICENCE_TERM = Rule[int](
    "employee_licence_term_years", "years", "the term of an employee's licence"
)
EMPLOYEE_LICENCE_RENEWAL = Rule[int](
    "employee_licence_renewal_years", "years", "the length of an employee licence's renewal"
)
#: reg 17(1), first proviso
LOWER_GRADE_MAX = Rule[int]("lower_grade_max_months", "months", "the longest work in a lower grade")
LOWER_GRADE_WINDOW = Rule[int](
    "lower_grade_window_months", "months", "the window lower-grade work is counted over"
)
LOWER_GRADE_CUMULATIVE = Rule[bool](
    "lower_grade_months_cumulative", "bool", "whether lower-grade months add up"
)
LOWER_GRADE_ROLLING = Rule[bool](
    "lower_grade_window_rolling", "bool", "whether the lower-grade window rolls"
)
#: reg 17(1), second proviso
MAX_GRADES_ABOVE = Rule[int](
    "max_grades_above", "integer", "the most grades above the licensed one an employee may act"
)
MAX_DAYS_PER_CALENDAR_MONTH = Rule[int](
    "max_days_per_calendar_month", "days", "the most days a month acting a grade higher"
)
#: reg 18(3)
SHOW_CAUSE_MIN_DAYS = Rule[int](
    "show_cause_min_days", "days", "the shortest time given to show cause"
)
#: reg 18(2): "immediately" as working days (0: the working day the licensee learns of it)
GROUND_REPORT_DAYS = Rule[int](
    "ground_report_business_days", "days",
    "working days to report a ground for cancelling an employee's licence", default=0,
)  # fmt: skip
#: regs 13(5), 14(3): "within a reasonable time" for the Secretary's written notices
REASONABLE_NOTICE_DAYS = Rule[int](
    "licence_notice_business_days", "days",
    "working days for the Board's written notice of a refusal or a change of conditions",
    default=10,
)  # fmt: skip

__all__ = [
    "EMPLOYEE_LICENCE_RENEWAL",
    "EMPLOYEE_LICENCE_TERM",
    "GROUND_REPORT_DAYS",
    "LOWER_GRADE_CUMULATIVE",
    "LOWER_GRADE_MAX",
    "LOWER_GRADE_ROLLING",
    "LOWER_GRADE_WINDOW",
    "MAX_DAYS_PER_CALENDAR_MONTH",
    "MAX_GRADES_ABOVE",
    "MIN_AGE",
    "NOTIFY_WITHIN_DAYS",
    "PROVISIONAL_LICENCE",
    "REASONABLE_NOTICE_DAYS",
    "SHOW_CAUSE_MIN_DAYS",
]
