"""What a run says of each control of its regulation: one verdict each, never an over-claim.

Every catalogued control of the run's regulation gets exactly one of five verdicts:

* ``breached``: it has findings (citing the records that prove them);
* ``checked``: it observed its clause ``observations`` times and found nothing;
* ``not exercised``: it is implemented and applies, but what it needed never happened
  (``why`` says what), so a clean run says nothing about it;
* ``not applicable``: the ruleset makes the clause inapplicable (``why`` says why);
* ``not implemented``: no checker proves it (``why``: out of scope, or the issue planned).

The five add up to the regulation's controls in the catalogue. A control may never be
``checked`` with zero observations. ``summary.json``, the summary lines, ``twin controls
--run`` and the HTML reports all use these words (``STATUS_WORDS``) and these counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

VerdictStatus = Literal["breached", "checked", "not_exercised", "not_applicable", "not_implemented"]
VERDICTS: tuple[VerdictStatus, ...] = (
    "breached",
    "checked",
    "not_exercised",
    "not_applicable",
    "not_implemented",
)
#: how each verdict reads in text (summary lines, ``twin controls --run``, reports)
STATUS_WORDS: Mapping[VerdictStatus, str] = {
    "breached": "breached",
    "checked": "checked, clean",
    "not_exercised": "not exercised",
    "not_applicable": "not applicable",
    "not_implemented": "not implemented",
}


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one run says of one control."""

    control: str
    status: VerdictStatus
    findings: int = 0
    observations: int = 0
    why: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "findings": self.findings,
            "observations": self.observations,
            "why": self.why,
        }


def verdict(
    control: str, *, findings: int, observations: int, not_applicable: str | None, needed: str
) -> Verdict:
    """The verdict of an implemented control from what its checker saw."""
    if findings:
        return Verdict(control, "breached", findings, observations)
    if not_applicable is not None:
        return Verdict(control, "not_applicable", 0, observations, not_applicable)
    if observations > 0:
        return Verdict(control, "checked", 0, observations)
    return Verdict(control, "not_exercised", 0, 0, f"needed {needed}; none occurred")


def totals(verdicts: Iterable[Verdict]) -> dict[VerdictStatus, int]:
    """How many controls have each verdict (every verdict listed, zero included)."""
    out: dict[VerdictStatus, int] = dict.fromkeys(VERDICTS, 0)
    for v in verdicts:
        out[v.status] += 1
    return out


def totals_line(counts: Mapping[str, int]) -> str:
    """``3 breached, 60 checked clean, 22 not exercised, 0 not applicable, 50 not
    implemented`` for the verdict counts of a summary."""
    words = {"checked": "checked clean"}
    return ", ".join(f"{counts.get(s, 0)} {words.get(s, STATUS_WORDS[s])}" for s in VERDICTS)


__all__ = [
    "STATUS_WORDS",
    "VERDICTS",
    "Verdict",
    "VerdictStatus",
    "totals",
    "totals_line",
    "verdict",
]
