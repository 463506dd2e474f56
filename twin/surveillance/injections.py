"""Injected violations of reg 27 (the recordings of the camera and audio system), each
producing exactly its finding.

Every kind arms one deviation of :class:`twin.surveillance.model.Surveillance` before the
floor opens; the retention pass or the request it spoils takes it when it comes (with
``target``: the one of that camera or request). A kind whose moment never comes says so at
the end (``injection_idle``). Every kind needs a ``[surveillance]`` section (checked before
t = 0, with its target).
"""

from __future__ import annotations

from twin.department import Site
from twin.errors import InputError
from twin.injections import deviations
from twin.surveillance.model import Surveillance

#: deviation -> what it does (the injection kind is ``surveillance_<deviation>``)
DEVIATIONS: dict[str, str] = {
    "recycled_early": "the third daily retention pass (day 3) recycles the oldest routine "
    "recording of a camera (target, default the first) before its seven days (reg 27)",
    "evidence_recycled": "the next retention pass recycles a recording held as evidence "
    "(target: its camera, default any) while its case is open (reg 27, proviso)",
    "request_refused": "a request for a recording inside its period (target: the request or "
    "its camera, default the first) is refused as recycled although it is kept (reg 27)",
}
KINDS = deviations("surveillance", DEVIATIONS, Surveillance)


def validate(site: Site) -> None:
    """Every surveillance ``[[inject]]`` needs a ``[surveillance]`` section; a target names
    one of its cameras or requests (one precise error)."""
    surveillance = site.find(Surveillance)
    for i, inj in enumerate(site.scenario.inject):
        if inj.kind not in KINDS:
            continue
        if surveillance is None:
            raise InputError(site.source, f"inject[{i}].kind",
                             f"a [surveillance] section for {inj.kind}", inj.kind)  # fmt: skip
        if inj.target is None:
            continue
        known = set(surveillance.cameras) | {r.id or "" for r in surveillance.config.requests}
        if inj.target not in known:
            raise InputError(site.source, f"inject[{i}].target",
                             "a camera or a request of [surveillance]", inj.target)  # fmt: skip
