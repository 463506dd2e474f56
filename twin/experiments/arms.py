"""The arms of a rule-change study: a ruleset, or a proposal that changes some of its numbers.

An arm is given on the command line as a ruleset name (``malta-1998``) or as a proposal file::

    [proposal]
    title = "Raise the minimum return to 90 %"
    ruleset = "malta-1998"          # the ruleset it amends
    question = "How much hold does a casino give up, and which machines become illegal?"

    [proposal.overrides]            # the numbers it changes (validated like [ruleset] overrides)
    min_rtp = 0.90

    [proposal.focus]                # optional: when replications may stop early
    kpis = ["hold_percent", "findings.MT98.S1.1a"]
    relative_precision = 0.10

An arm's overrides are laid over the scenario's own ``[ruleset] overrides`` (the licence's
limits stay), so both arms of a study run the same floor under different rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from twin.aml.params import AGGREGATE_IN_OUT_SEPARATELY, ID_THRESHOLD, SESSION_IS_GAMING_DAY
from twin.compliance.ruleset import RULESETS, Scalar, load_ruleset
from twin.door.params import ADMISSION_MIN_AGE
from twin.errors import InputError
from twin.junkets.params import MAX_REPRESENTATIVES
from twin.premium.params import MIN_BALANCE
from twin.rules import declared
from twin.scenario import load_toml_model
from twin.slots.params import HAND_PAY_SECOND_INSPECTOR_ABOVE, MIN_RTP, PROGRAM_VERIFICATION_HOURS

_Text = Annotated[str, StringConstraints(min_length=1)]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)


class _Focus(_Model):
    kpis: tuple[_Text, ...] = Field(min_length=1, strict=False)
    relative_precision: Annotated[float, Field(gt=0.0, le=1.0)]


class _Proposal(_Model):
    title: _Text
    ruleset: _Text
    question: str = ""
    overrides: dict[str, bool | int | float | str] = Field(default_factory=dict, strict=False)
    focus: _Focus | None = None


class _ProposalFile(_Model):
    proposal: _Proposal


@dataclass(frozen=True, slots=True)
class Focus:
    """The KPIs a proposal is about, and how precisely their differences must be known."""

    kpis: tuple[str, ...]
    relative_precision: float


@dataclass(frozen=True, slots=True)
class Arm:
    """One arm of a study: a ruleset and the overrides laid over the scenario's."""

    label: str
    ruleset: str
    overrides: Mapping[str, Scalar] = field(default_factory=dict)
    title: str = ""
    question: str = ""
    source: str = ""
    focus: Focus | None = None

    def settings(self) -> list[tuple[str, Any]]:
        """The scenario overrides (path, value) that put a run under this arm."""
        out: list[tuple[str, Any]] = [("ruleset.name", self.ruleset)]
        out += [(f"ruleset.overrides.{k}", v) for k, v in sorted(self.overrides.items())]
        return out

    def describe(self) -> str:
        changes = ", ".join(f"{k} = {v}" for k, v in sorted(self.overrides.items()))
        return f"{self.ruleset}" + (f" with {changes}" if changes else "")


#: The operators' procedures that follow a rule unless the scenario pins them (issue 34):
#: ruleset parameter -> (the department's section, its policy key). With ``--operators keep``
#: the proposed arm's operators keep today's value: the law changes, the casino does not.
POLICY_OF_RULE: dict[str, tuple[str, str]] = {
    ID_THRESHOLD.key: ("aml", "id_threshold_cents"),
    SESSION_IS_GAMING_DAY.key: ("aml", "session_is_gaming_day"),
    AGGREGATE_IN_OUT_SEPARATELY.key: ("aml", "aggregate_in_out_separately"),
    ADMISSION_MIN_AGE.key: ("entrance", "admission_min_age_years"),
    MIN_BALANCE.key: ("premium", "min_balance_cents"),
    HAND_PAY_SECOND_INSPECTOR_ABOVE.key: ("floor", "hand_pay_second_inspector_above_cents"),
    PROGRAM_VERIFICATION_HOURS.key: ("floor", "program_verification_hours"),
    MIN_RTP.key: ("floor", "min_rtp"),
    MAX_REPRESENTATIVES.key: ("junkets", "max_representatives"),
}


def kept_policies(scenario: Path, baseline: Arm, hours: float | None) -> list[tuple[str, Any]]:
    """The settings that pin the scenario's operators to the baseline arm's law: each policy of
    :data:`POLICY_OF_RULE` whose department the scenario has and whose policy follows the
    law (not set in the scenario), set to the value the baseline's ruleset gives it."""
    from twin.api import prepare

    sc = prepare(scenario, hours=hours, overrides=baseline.settings())
    rs = load_ruleset(sc.ruleset.name, sc.ruleset.overrides, source=str(scenario))
    out: list[tuple[str, Any]] = []
    for name, (section, key) in POLICY_OF_RULE.items():
        rule = declared()[name]
        dept = getattr(sc, section, None)
        if dept is None or not rule.given(rs) or getattr(dept.policy, key) is not None:
            continue
        out.append((f"{section}.policy.{key}", rule.of(rs)))
    return out


def load_arm(spec: str | Path, label: str) -> Arm:
    """An arm from a ruleset name or a proposal file; a bad one is one ``InputError``."""
    text = str(spec)
    if text in RULESETS:
        return Arm(label=label, ruleset=text, title=text, source=text)
    path = Path(text)
    if not path.is_file():
        names = ", ".join(RULESETS)
        raise InputError(f"--{label}", "", f"a ruleset name ({names}) or a proposal file", text)
    p = load_toml_model(path, _ProposalFile).proposal
    if p.ruleset not in RULESETS:
        raise InputError(path, "proposal.ruleset", "one of " + ", ".join(RULESETS), p.ruleset)
    # every override checked against its parameter's type and bounds, naming this file
    rs = load_ruleset(p.ruleset, p.overrides, source=str(path), key_prefix="proposal.overrides")
    overrides = {k: rs.get(k) for k in p.overrides}
    focus = None
    if p.focus is not None:
        focus = Focus(tuple(p.focus.kpis), p.focus.relative_precision)
    return Arm(
        label=label,
        ruleset=p.ruleset,
        overrides=overrides,
        title=p.title,
        question=p.question,
        source=str(path),
        focus=focus,
    )


def check_on(scenario: Path, arm: Arm, hours: float | None) -> None:
    """Raise the ``InputError`` a run of ``arm`` on ``scenario`` would raise, before any run:
    the scenario with the arm's settings, and the ruleset with the scenario's overrides."""
    from twin.api import prepare

    sc = prepare(scenario, hours=hours, overrides=arm.settings())
    load_ruleset(sc.ruleset.name, sc.ruleset.overrides, source=str(scenario))


__all__ = ["Arm", "Focus", "check_on", "load_arm"]
