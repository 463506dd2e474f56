"""The records of employees under licence (Malta regs 8-19): the licences on file, the
applications and what they contain, the Board's requests, decisions and notices, the licences
issued, renewed, varied, suspended and ceased, the changes of particulars, temporary work in
another grade, and the cases opened on a ground for cancellation or suspension.

Dates a regulation counts in calendar units (``issued``, ``valid_from``) are local dates of
the run's clock (ISO); instants are simulation seconds (``t`` of the record, ``due_t``).

Entities by role: ``member`` (a staff id), ``application`` (``LA-0001``), ``licence``
(``EL-0001``), ``case`` (``LC-0001``), ``request`` (``BR-0001``), ``change`` (``PC-0001``).
"""

from __future__ import annotations

from twin.records import Record, record

# -- licences and employment -------------------------------------------------------------------


@record("licensing_on_file")
class LicensingOnFile(Record):
    """At t = 0: the casino the licences name (14(2)(b)), the documents the Board's form asks
    for (9(2)(c)), and the grade ladders of the functions (17(1)): ``roles[i]`` is on ladder
    ``ladders[i]`` at grade ``grades[i]``."""

    casino: str
    form_documents: tuple[str, ...]
    roles: tuple[str, ...]
    ladders: tuple[str, ...]
    grades: tuple[int, ...]


@record("employee_licence_on_file", roles=("member", "licence"))
class LicenceOnFile(Record):
    """At t = 0: ``member`` holds ``licence`` (``licence_kind`` "full" or "provisional"), issued on
    ``issued`` and in force from ``valid_from`` (a renewal runs from the day the licence it
    renews expired), for ``functions`` in ``casino`` with ``conditions``."""

    member: str
    licence: str
    licence_kind: str
    functions: tuple[str, ...]
    casino: str
    conditions: tuple[str, ...]
    issued: str
    valid_from: str
    renewal: bool


@record("employee_licence_issued", roles=("member", "licence", "application"))
class LicenceIssued(Record):
    """The Secretary issues ``licence`` to ``member`` on ``application`` (14(1), 15(1)):
    what it sets out (14(2)): ``functions``, ``casino``, ``conditions``; ``licence_kind`` "full" or
    "provisional"; in force from ``valid_from``."""

    member: str
    licence: str
    application: str
    licence_kind: str
    functions: tuple[str, ...]
    casino: str
    conditions: tuple[str, ...]
    issued: str
    valid_from: str
    renewal: bool


@record("employee_licence_ceased", roles=("member", "licence"))
class LicenceCeased(Record):
    """``licence`` ceases to have effect (15(2), 16(1)): ``reason`` one of "expired",
    "full_issued", "surrendered", "employment_ended", "death", "cancelled"."""

    member: str
    licence: str
    licence_kind: str
    reason: str


@record("employment_started", roles=("member",))
class EmploymentStarted(Record):
    """``member`` starts employment with the licensee, in ``role``, on ``shift``."""

    member: str
    role: str
    shift: str


@record("employment_ended", roles=("member",))
class EmploymentEnded(Record):
    """``member``'s employment ends (``reason``: resignation, dismissal, surrender, death)."""

    member: str
    reason: str


# -- applications and the Board's decisions -------------------------------------------------------


@record("licence_application_lodged", roles=("member", "application"))
class ApplicationLodged(Record):
    """The licensee applies for ``member``'s licence (9(1)), a renewal (16(1)(c)) or a
    variation of functions (17(1)): ``purpose`` "new", "renewal" or "variation". What the
    application holds (9(2)): the ``functions`` to be performed, where it was lodged
    (``lodged_with``), the ``documents`` with it, who signed it (``signed_by``); the
    applicant's particulars for reg 10 (``age``, ``convictions``, ``fit``) and whether a
    provisional licence is asked for (15(1)). ``employment_start_t``: when the employment
    starts (-1: already employed)."""

    member: str
    application: str
    purpose: str
    functions: tuple[str, ...]
    casino: str
    lodged_with: str
    documents: tuple[str, ...]
    signed_by: tuple[str, ...]
    age: int
    convictions: tuple[str, ...]
    fit: bool
    provisional: bool
    employment_start_t: float


@record("board_info_requested", roles=("member", "request", "application"))
class InfoRequested(Record):
    """The Board's notice in writing (12): the licensee is to provide ``particular`` about
    ``member``'s application (or licence) by ``due_t``."""

    member: str
    request: str
    application: str
    particular: str
    due_t: float


@record("board_info_supplied", roles=("member", "request"))
class InfoSupplied(Record):
    """The licensee provides what the Board's notice ``request`` asked for."""

    member: str
    request: str
    particular: str


@record("licence_application_decided", roles=("member", "application"))
class ApplicationDecided(Record):
    """The Board decides ``application`` (13(1)): ``outcome`` "approved", "approved_varied"
    (with the written ``consents`` of the licensee and the employee) or "refused";
    ``functions`` approved, ``conditions`` (13(2)), ``eligible`` whether the licensee
    established the applicant's eligibility (reg 10, waiver ``waived``) and the ``reasons``
    of a refusal. ``provisional``: the decision on a request for a provisional licence
    (15(1))."""

    member: str
    application: str
    outcome: str
    functions: tuple[str, ...]
    consents: tuple[str, ...]
    conditions: tuple[str, ...]
    eligible: bool
    waived: bool
    reasons: tuple[str, ...]
    provisional: bool


@record("licence_refusal_notified", roles=("member", "application"))
class RefusalNotified(Record):
    """The Secretary notifies the licensee of a refusal in writing, with ``reasons`` (13(5))."""

    member: str
    application: str
    reasons: tuple[str, ...]
    in_writing: bool
    decided_t: float


# -- particulars, conditions, variations, grades -------------------------------------------------


@record("licence_particulars_changed", roles=("member", "change"))
class ParticularsChanged(Record):
    """A matter set out in ``member``'s application, or a document lodged with it, changes
    (11)."""

    member: str
    change: str
    particular: str


@record("licence_particulars_notified", roles=("member", "change"))
class ParticularsNotified(Record):
    """The licensee gives the Board written particulars of ``change`` (11)."""

    member: str
    change: str
    particular: str
    in_writing: bool
    changed_t: float


@record("licence_conditions_changed", roles=("member", "licence"))
class ConditionsChanged(Record):
    """The Board adds, varies or revokes (``action``) ``condition`` on ``member``'s licence
    (14(3)); it binds the holder once served."""

    member: str
    licence: str
    action: str
    condition: str
    conditions: tuple[str, ...]


@record("licence_notice_served", roles=("member", "licence"))
class NoticeServed(Record):
    """The Board's written notice of ``matter`` ("conditions", "variation", "suspension",
    "cancellation", "show_cause", "caution", "reinstatement") served on ``party``
    ("holder" or "licensee")."""

    member: str
    licence: str
    matter: str
    party: str
    ref: str


@record("licence_altered", roles=("member", "licence", "application"))
class LicenceAltered(Record):
    """The Secretary, having the licence forwarded, alters it to ``functions`` (17(2))."""

    member: str
    licence: str
    application: str
    functions: tuple[str, ...]


@record("inspector_notified_of_grade", roles=("member", "inspector"))
class GradeNotice(Record):
    """The licensee notifies a Board inspector that ``member`` will work in ``role`` (grade
    ``grade``; licensed in ``licensed_role``, grade ``licensed_grade``) for ``days`` days
    (17(1), provisos)."""

    member: str
    inspector: str
    role: str
    grade: int
    licensed_role: str
    licensed_grade: int
    days: int


@record("employee_role_assigned", roles=("member",))
class RoleAssigned(Record):
    """``member`` works as ``role`` from now (``reason``: "variation", "cover", "cover_end",
    "term")."""

    member: str
    role: str
    previous: str
    reason: str


# -- grounds, show cause, the Board's action, suspension ----------------------------------------


@record("licence_ground_arose", roles=("member", "case"))
class GroundArose(Record):
    """A ground of 18(1) arises for ``member``'s licence (``ground``)."""

    member: str
    case: str
    ground: str


@record("licence_ground_known", roles=("member", "case"))
class GroundKnown(Record):
    """The licensee becomes aware of the ground of ``case`` (18(2))."""

    member: str
    case: str
    ground: str


@record("licence_ground_reported", roles=("member", "case"))
class GroundReported(Record):
    """The licensee gives the Board notice in writing of the ground of ``case`` (18(2))."""

    member: str
    case: str
    ground: str
    in_writing: bool
    known_t: float


@record("licence_case_opened", roles=("member", "case"))
class CaseOpened(Record):
    """The Board considers the ground of ``case``: it acts on it, or (``dispensed``)
    dispenses with it (18(1), proviso)."""

    member: str
    case: str
    ground: str
    dispensed: bool


@record("show_cause_issued", roles=("member", "case"))
class ShowCauseIssued(Record):
    """The Board asks the holder to show cause by ``due_t`` (18(3)), ``period_days`` after
    the notice."""

    member: str
    case: str
    ground: str
    period_days: int
    due_t: float


@record("show_cause_answered", roles=("member", "case"))
class ShowCauseAnswered(Record):
    """The holder's response to the notice of ``case``."""

    member: str
    case: str


@record("licence_action", roles=("member", "case", "licence"))
class LicenceAction(Record):
    """The Board's action on ``case`` (18(4), 18(5)): ``outcome`` "none", "caution",
    "vary" (to ``role``), "condition" (``condition``), "suspend" (until ``until_t``) or
    "cancel"; an imposed term is due by ``term_due_t``. ``under`` "18(4)" or "18(5)" (a term
    not complied with)."""

    member: str
    case: str
    licence: str
    outcome: str
    role: str
    condition: str
    until_t: float
    term_due_t: float
    under: str


@record("licence_term_complied", roles=("member", "case"))
class TermComplied(Record):
    """The holder complies with the term imposed on ``case`` (18(5))."""

    member: str
    case: str


@record("employee_licence_suspended", roles=("member", "licence", "case"))
class LicenceSuspended(Record):
    """``licence`` is suspended until ``until_t`` (18(4)(c)(iii), 18(5)); not in force
    meanwhile (18(7))."""

    member: str
    licence: str
    case: str
    until_t: float


@record("employee_suspension_ended", roles=("member", "licence", "case"))
class SuspensionEnded(Record):
    """The suspension of ``licence`` ends (its period, or the Board's notice, 18(6))."""

    member: str
    licence: str
    case: str


@record("licence_notice_received", roles=("member", "licence", "case"))
class NoticeReceived(Record):
    """The licensee receives notice of the suspension or cancellation (``action``) of
    ``member``'s licence: from now it may not let them work (19)."""

    member: str
    licence: str
    case: str
    action: str
