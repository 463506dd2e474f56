"""Forms of deposit (reg 2A) and residencies, with who may use which and how to say them."""

from __future__ import annotations

from typing import Literal

__all__ = [
    "ALLOWED_FORMS",
    "CHEQUE_KINDS",
    "CREDIT_FORMS",
    "FORMS",
    "NON_CREDIT_FORMS",
    "RESIDENCIES",
    "ChequeKind",
    "Form",
    "Residency",
    "form_allowed",
    "form_words",
    "residency_words",
]

Residency = Literal["foreigner", "citizen", "pr"]
RESIDENCIES: tuple[Residency, ...] = ("foreigner", "citizen", "pr")

Form = Literal[
    "cash",
    "cashiers_order",
    "bank_draft",
    "eft",
    "chips",
    "travellers_cheque",
    "casino_cheque",
    "personal_cheque",
    "credit_operator",
    "credit_ima",
]
FORMS: tuple[Form, ...] = (
    "cash",
    "cashiers_order",
    "bank_draft",
    "eft",
    "chips",
    "travellers_cheque",
    "casino_cheque",
    "personal_cheque",
    "credit_operator",
    "credit_ima",
)
#: credit granted by the operator (s.108(7)(a)) or by a licensed international market agent
#: (s.108(7A)): reg 2A(1)(e) and 2A(2), for patrons who are neither citizens nor PRs only
CREDIT_FORMS: frozenset[str] = frozenset({"credit_operator", "credit_ima"})
#: reg 2A(1)(a)-(d): open to every patron (and the only forms of a 4(3) new deposit)
NON_CREDIT_FORMS: frozenset[str] = frozenset(FORMS) - CREDIT_FORMS
#: the forms reg 2A allows, by residency
ALLOWED_FORMS: dict[str, frozenset[str]] = {
    "foreigner": frozenset(FORMS),
    "citizen": NON_CREDIT_FORMS,
    "pr": NON_CREDIT_FORMS,
}

#: cheques handed over and tracked by ``ref`` until cleared or dishonoured
ChequeKind = Literal["personal_cheque", "casino_cheque", "travellers_cheque"]
CHEQUE_KINDS: tuple[ChequeKind, ...] = ("personal_cheque", "casino_cheque", "travellers_cheque")

_FORM_WORDS = {
    "cash": "in cash",
    "cashiers_order": "by cashier's order",
    "bank_draft": "by bank draft",
    "eft": "by electronic funds transfer",
    "chips": "in chips",
    "travellers_cheque": "in traveller's cheques",
    "casino_cheque": "by casino cheque",
    "personal_cheque": "by personal cheque",
    "credit_operator": "on credit granted by the casino operator",
    "credit_ima": "on credit granted by an international market agent",
}
_RESIDENCY_WORDS = {
    "foreigner": "neither a citizen nor a permanent resident",
    "citizen": "a citizen of Singapore",
    "pr": "a permanent resident of Singapore",
}


def form_allowed(form: str, residency: str) -> bool:
    """Whether reg 2A lets a patron of this residency make a deposit in this form."""
    return form in ALLOWED_FORMS[residency]


def form_words(form: str) -> str:
    """``cash`` -> "in cash", for reasons written in plain words."""
    return _FORM_WORDS[form]


def residency_words(residency: str) -> str:
    """``pr`` -> "a permanent resident of Singapore"."""
    return _RESIDENCY_WORDS[residency]
