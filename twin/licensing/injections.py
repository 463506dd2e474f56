"""Injected violations of employees' licences (issue 28), each producing exactly its finding.

Every kind arms one deviation of :class:`twin.licensing.model.Licensing` before the floor
opens; the workflow it spoils takes it when it comes (the next hire, cover, ground...), or,
with ``target``, the one of that member. Every kind needs a ``[licensing]`` section (checked
before t = 0, with its target).
"""

from __future__ import annotations

from twin.department import Site
from twin.errors import InputError
from twin.injections import deviations
from twin.licensing.model import Licensing

#: deviation -> what it does (the injection kind is ``licensing_<deviation>``)
DEVIATIONS: dict[str, str] = {
    "unlicensed_work": "a new employee is put to work the day employment starts, before any "
    "licence is issued (reg 8)",
    "application_late": "a new employee's licence application is lodged three days after the "
    "employment started (reg 9(1))",
    "application_unsigned": "a licence application is lodged without the employee's signature "
    "(reg 9(2)(d))",
    "ineligible_licensed": "the Board licenses an applicant whose particulars make them "
    "ineligible (under age, convicted without a waiver, not fit and proper) (reg 10)",
    "change_unreported": "a change in an application's particulars reaches the Board two weeks "
    "after the 30 days (reg 11)",
    "info_unanswered": "the Board's notice asking for information is never answered (reg 12)",
    "varied_without_consent": "the Board approves an application with varied functions "
    "without the employee's written consent (reg 13(1)(b))",
    "refusal_unexplained": "the Secretary notifies a refusal with no reasons (reg 13(5))",
    "unlicensed_function": "an employee due to cover another grade works instead in a function "
    "of another ladder, which the licence does not name (reg 14(2))",
    "licence_wrong_casino": "a licence issued names another casino (reg 14(2)(b))",
    "condition_unnotified": "the Board changes a licence condition with notice to the holder "
    "only, not the licensee (reg 14(3))",
    "provisional_overrun": "a provisional licence expires and the holder goes on working "
    "(reg 15(2)(d))",
    "full_overrun": "a full licence expires unrenewed and the holder goes on working "
    "(reg 16(1)(c))",
    "variation_unapproved": "an employee is moved to the functions applied for before the "
    "Board approves the variation (reg 17(1))",
    "cover_unnotified": "an employee covers another grade with no notice to a Board inspector "
    "(reg 17(1), provisos)",
    "cover_overrun": "an employee covers one grade higher for longer than the days allowed in "
    "a calendar month (reg 17(1), second proviso)",
    "ground_dispensed": "the Board dispenses with a ground it may not dispense with (reg 18(1))",
    "ground_reported_late": "the licensee reports a ground for cancellation three days after "
    "the working day it learned of it (reg 18(2))",
    "show_cause_short": "the Board acts on a ground after a show-cause period shorter than the "
    "ruleset's (reg 18(3))",
    "term_ignored": "an imposed term is not complied with and the Board neither suspends nor "
    "cancels the licence (reg 18(5))",
    "suspended_works": "the licensee lets an employee whose licence is suspended go on working "
    "(reg 19)",
}
KINDS = deviations("licensing", DEVIATIONS, Licensing)


def validate(site: Site) -> None:
    """Every licensing ``[[inject]]`` needs a ``[licensing]`` section; a target names one of
    its employees (one precise error)."""
    licensing = site.find(Licensing)
    for i, inj in enumerate(site.scenario.inject):
        if inj.kind not in KINDS:
            continue
        if licensing is None:
            raise InputError(site.source, f"inject[{i}].kind",
                             f"a [licensing] section for {inj.kind}", inj.kind)  # fmt: skip
        if inj.target is not None and inj.target not in licensing.holders:
            raise InputError(site.source, f"inject[{i}].target",
                             "a licensee's employee of [staff] or [licensing]",
                             inj.target)  # fmt: skip
