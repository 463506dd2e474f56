"""Injected violations of machines' lives (issue 27), each producing exactly its finding.

Every kind arms one deviation of :class:`twin.lifecycle.model.Lifecycle` before the floor
opens; the workflow it spoils takes it when it comes (the next acquisition, conversion,
repair...), or, with ``target``, the one of that machine, EPROM or work. A kind whose
workflow never comes says so at the end (``injection_idle``). Every kind needs a
``[lifecycle]`` section (checked before t = 0, with its target).
"""

from __future__ import annotations

from twin.department import Site
from twin.errors import InputError
from twin.injections import deviations
from twin.lifecycle.model import Lifecycle

#: deviation -> what it does (the injection kind is ``lifecycle_<deviation>``)
DEVIATIONS: dict[str, str] = {
    "specs_left_out": "a machine's specifications (target, default the first reserve machine) "
    "are left out of the pack filed at the licence's grant or renewal (reg 30(1)(a))",
    "acquisition_unfiled": "a machine acquired is never furnished to the Board (reg 30(1)(b))",
    "alteration_oral": "a conversion's altered specifications are notified by word of mouth, "
    "not in writing (reg 30(1)(c))",
    "disposal_unnotified": "a machine disposed of is never notified to the Board (30(1)(d))",
    "board_registers_beyond_licence": "the Board registers a reserve machine as a gaming-area "
    "machine although the register already holds the licensed number (reg 31(1))",
    "store_unlocked": "the reserve store is found unlocked at the next daily audit (reg 31(1), "
    "first proviso)",
    "replacement_unapproved": "a reserve machine replaces a floor machine with no prior written "
    "approval of the Board (reg 31(1), second proviso; item 13)",
    "board_register_stale": "the Board never deletes a machine notified as disposed of (reg 32)",
    "certificate_refused": "a player who asks to see the certificate is told it is at head "
    "office (reg 33)",
    "board_refusal_unnotified": "the Board refuses to register an acquired machine and the "
    "Secretary never notifies the licensee (reg 34)",
    "certificate_not_demanded": "after the Board deletes a machine it suspended, the Secretary "
    "never requires the certificate to be produced for amendment (reg 35(2))",
    "conversion_unapproved": "a conversion is made with no written approval of the Board "
    "(item 11(a))",
    "conversion_by_unlicensed": "a conversion is made by a contractor the Board never licensed "
    "(items 11(a), 14(a))",
    "conversion_unrecorded": "a conversion's record leaves out who made it and when (11(b))",
    "conversion_lodged_late": "a conversion's record is lodged with the Secretary a month later, "
    "in the quarterly pack (item 11(c))",
    "media_copied_by_outsider": "an independent repair shop copies a master EPROM (item 12)",
    "move_unapproved": "a machine is moved with no written approval of the Board (item 13)",
    "maintenance_by_unlicensed": "a repair is made by a contractor the Board never licensed "
    "(item 14(a))",
    "fault_left_open": "a fault found on a machine is never repaired (item 14(b))",
    "repair_unauthorised": "an outcome-affecting repair is made with no authorisation of the "
    "Board (item 14(c))",
    "repair_unlogged": "an outcome-affecting repair is left off the written list (item 14(d))",
    "suspension_ignored": "a machine whose approval the Board suspends stays in play (item 17)",
    "manual_not_submitted": "the manual is never submitted when the Secretary asks (item 18)",
    "eprom_unverified": "a master EPROM (target: its id or paytable, default the first) is "
    "registered without verification against the specification sheet (item 19(a))",
    "eprom_single_custody": "a master EPROM is taken from the secure area by one person alone "
    "(item 19(b))",
    "eprom_removal_unrecorded": "a master EPROM is taken from the secure area with no reason and "
    "no signatures in the register (item 19(c))",
    "seal_off_procedure": "an EPROM is sealed into a machine outside the manual's procedure, "
    "with no seal logged (item 19(d))",
}
KINDS = deviations("lifecycle", DEVIATIONS, Lifecycle)


def validate(site: Site) -> None:
    """Every lifecycle ``[[inject]]`` needs a ``[lifecycle]`` section; a target names one of
    its machines or works (one precise error)."""
    lifecycle = site.find(Lifecycle)
    for i, inj in enumerate(site.scenario.inject):
        if inj.kind not in KINDS:
            continue
        if lifecycle is None:
            raise InputError(site.source, f"inject[{i}].kind",
                             f"a [lifecycle] section for {inj.kind}", inj.kind)  # fmt: skip
        if inj.target is None:
            continue
        known = {*lifecycle.slots.machine_ids, *lifecycle.kept}
        known |= {w.id or "" for w in lifecycle.config.works}
        known |= {w.machine or "" for w in lifecycle.config.works}
        if inj.kind == "lifecycle_eprom_unverified":
            continue  # an EPROM id or a paytable: known only once the masters arrive
        if inj.target not in known:
            raise InputError(site.source, f"inject[{i}].target",
                             "a machine or a work of [lifecycle]", inj.target)  # fmt: skip
