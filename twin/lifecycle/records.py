"""The records of machines through their whole life (Malta regs 30-35 and First Schedule
items 9, 11-14, 17-19): what the licensee furnishes and notifies, what the Board decides and
keeps (its register and its certificate), the works done on machines (acquisitions, moves,
replacements, conversions, repairs, media copies, suspensions, disposals), the EPROMs and
their register, and the internal controls manual.

Entities by role: ``machine`` (a machine id: a floor machine ``A-001`` or a reserve machine
``A-R01``), ``member`` / ``technician`` / ``custodians`` (staff ids, or ``CONTRACTOR`` for a
person the Board never licensed), ``patron``, ``eprom`` (an EPROM id), ``work`` (a work's id,
``W03``) and ``approval`` (the Board's written approval, ``BA-0003``).
"""

from __future__ import annotations

from twin.records import Record, record

# -- the licence, the manual, the maintenance licences -------------------------------------------


@record("casino_licence_event")
class CasinoLicenceEvent(Record):
    """The casino licence is granted or renewed (``event``); the licence sets the number of
    authorised machines (``licensed_machines``) and the Board's licence number the EPROMs
    carry (``board_licence_no``)."""

    event: str  # "grant" or "renewal"
    licensed_machines: int
    board_licence_no: str


@record("maintenance_licence", roles=("member",))
class MaintenanceLicence(Record):
    """The Board licenses ``member`` to perform maintenance on authorised machines (items
    11(a), 14(a)); ``manufacturer``: a licensed manufacturer's engineer."""

    member: str
    licence_no: str
    manufacturer: bool


@record("icpm_filed")
class ManualFiled(Record):
    """The internal controls procedures manual in force (item 18): the topics it covers and
    the procedures the Board approved (items 9(c), 19(b), 19(d), 19(e))."""

    version: int
    topics: tuple[str, ...]
    approved: tuple[str, ...]


@record("icpm_requested")
class ManualRequested(Record):
    """The Secretary of the Board asks for the manual (item 18)."""

    by: str
    due_t: float


@record("icpm_submitted")
class ManualSubmitted(Record):
    """The licensee submits the manual to the Secretary (item 18)."""

    version: int
    topics: tuple[str, ...]
    requested_t: float


@record("procedure_followed", roles=("machine", "work"))
class ProcedureFollowed(Record):
    """A workflow was carried out under the manual's procedure ``procedure`` (``in_manual``:
    whether the manual has it; ``approved``: whether the Board approved it)."""

    procedure: str
    machine: str
    work: str
    in_manual: bool
    approved: bool


# -- specifications, notices and the Board's register -------------------------------------------


@record("specs_furnished", roles=("machine",))
class SpecsFurnished(Record):
    """The licensee furnishes the Board with a machine's specifications (reg 30(1)(a), (b)) or
    notifies altered ones (30(1)(c): ``reason`` "alteration", ``in_writing``).

    ``reason``: "grant", "renewal", "acquisition", "replacement" or "alteration"; the filed
    particulars (``registration``, ``serial``, ``game_signature``, ``denomination_cents``,
    ``max_bet_units``); ``place``: "floor" or "reserve"; ``certificate_produced``: whether
    the registration certificate was produced with it for amendment (reg 35(1))."""

    machine: str
    reason: str
    registration: str
    serial: str
    game_signature: str
    denomination_cents: int
    max_bet_units: int
    place: str
    in_writing: bool
    certificate_produced: bool


@record("disposal_notified", roles=("machine",))
class DisposalNotified(Record):
    """The licensee notifies the Board of a machine's destruction or disposal (30(1)(d))."""

    machine: str
    method: str
    in_writing: bool
    certificate_produced: bool


@record("board_decided", roles=("machine", "work", "approval"))
class BoardDecided(Record):
    """A decision of the Board.

    ``matter``: "registration", "amendment", "deletion" (the register, regs 31, 32),
    "conversion", "replacement", "move", "repair", "removal_procedure" (written approvals,
    items 11(a), 13, 14(c), reg 31(1)) or "suspension" (item 17); ``decision``:
    "registered", "refused", "amended", "deleted", "approved", "suspended";
    ``requested_t``: when the licensee's request or notice reached it; ``in_writing``;
    ``registered``: machines on the register (floor) after it; ``reserve``: reserve machines
    on it; ``reason`` in words."""

    matter: str
    decision: str
    machine: str
    work: str
    approval: str
    requested_t: float
    in_writing: bool
    registered: int
    reserve: int
    reason: str


@record("licensee_notified", roles=("machine",))
class LicenseeNotified(Record):
    """The Secretary notifies the licensee of a refusal or a deletion (reg 34)."""

    machine: str
    decision: str
    in_writing: bool
    decided_t: float


@record("certificate_issued")
class CertificateIssued(Record):
    """The Board's certificate listing the registered machines (reg 33), issued or amended
    (``version``); ``machines`` as it lists them."""

    version: int
    machines: tuple[str, ...]


@record("certificate_produced")
class CertificateProduced(Record):
    """The licensee produces the certificate to the Board (reg 35): it is with the Board
    until it is returned (``returned``: False when produced, True when back)."""

    version: int
    returned: bool
    demanded: bool  # reg 35(2): the Secretary required it after a deletion


@record("certificate_requested", roles=("patron",))
class CertificateRequested(Record):
    """A player asks to see the certificate (reg 33): ``shown`` or not, and why."""

    patron: str
    shown: bool
    version: int
    with_board: bool
    reason: str


# -- the machines' places ------------------------------------------------------------------------


@record("machine_acquired", roles=("machine",))
class MachineAcquired(Record):
    """A machine comes into the licensee's keeping (bought, delivered): ``place`` "floor" or
    "reserve"."""

    machine: str
    bank: str
    serial: str
    game_signature: str
    place: str


@record("machine_stored", roles=("machine",))
class MachineStored(Record):
    """A machine is kept in the store of reserve machines (reg 31(1), first proviso): the
    store's ``locked`` and ``in_gaming_area`` flags, and the reserve count after it."""

    machine: str
    store: str
    locked: bool
    in_gaming_area: bool
    reserve: int


@record("store_audited")
class StoreAudited(Record):
    """The daily audit of the reserve store (reg 31(1), first proviso): the reserve machines
    in it, whether it was locked and outside the gaming area, the licensed number."""

    store: str
    machines: tuple[str, ...]
    locked: bool
    in_gaming_area: bool
    licensed_machines: int
    floor_machines: int


@record("machine_moved", roles=("machine", "work", "approval", "technician"))
class MachineMoved(Record):
    """A machine is moved from its location (item 13) under the Board's written approval
    (``approval``, "" without)."""

    machine: str
    work: str
    from_zone: str
    to_zone: str
    approval: str
    technician: str


@record("machine_replaced", roles=("machine", "work", "approval"))
class MachineReplaced(Record):
    """A machine (``replaced``) is replaced on the floor by ``machine`` (reg 31(1) second
    proviso, item 13): ``source`` "reserve" or "in_use" (its place before), the Board's prior
    written approval (``approval``, "" without) and the floor's count after it."""

    machine: str
    replaced: str
    work: str
    source: str
    approval: str
    floor_machines: int
    licensed_machines: int


@record("machine_disposed", roles=("machine", "work"))
class MachineDisposed(Record):
    """A machine leaves the licensee's keeping: ``method`` "sold" or "destroyed"."""

    machine: str
    work: str
    method: str


# -- works ---------------------------------------------------------------------------------------


@record("approval_requested", roles=("machine", "work"))
class ApprovalRequested(Record):
    """The licensee asks the Board for its written approval of a work (``matter``)."""

    machine: str
    work: str
    matter: str


@record("conversion_recorded", roles=("machine", "work", "technician"))
class ConversionRecorded(Record):
    """The conversion record the licensed technician keeps (item 11(b)): the machine, the
    programs from and to, the technician, the date and the Board's approval."""

    machine: str
    work: str
    from_signature: str
    to_signature: str
    technician: str
    date: str
    approval: str


@record("conversion_lodged", roles=("machine", "work"))
class ConversionLodged(Record):
    """A copy of the conversion record is lodged with the Secretary (item 11(c))."""

    machine: str
    work: str
    converted_t: float


@record("machine_repaired", roles=("machine", "work", "technician", "approval"))
class MachineRepaired(Record):
    """Maintenance on a machine (item 14): ``part`` replaced or repaired, whether it may
    affect the game outcome, who did it and the Board's authorisation (``approval``)."""

    machine: str
    work: str
    part: str
    outcome_affecting: bool
    technician: str
    approval: str


@record("repair_logged", roles=("machine", "work"))
class RepairLogged(Record):
    """An entry of the written list of outcome-affecting repairs (item 14(d))."""

    machine: str
    work: str
    part: str
    technician_name: str
    date: str


@record("repair_log_inspected", roles=("inspector",))
class RepairLogInspected(Record):
    """A Board inspector asks for the list of repairs (item 14(d)): ``shown`` or not, and the
    entries it had."""

    inspector: str
    shown: bool
    entries: int


@record("machine_fault_found", roles=("machine", "member"))
class MachineFaultFound(Record):
    """A fault that does not stop play (a worn button, a dim lamp, a sticking comparator) is
    found on ``machine`` by ``member`` at an inspection (item 14(b))."""

    machine: str
    fault: str
    member: str


@record("machine_fault_cleared", roles=("machine", "technician"))
class MachineFaultCleared(Record):
    """The fault is repaired (item 14(b))."""

    machine: str
    fault: str
    technician: str
    found_t: float


@record("approval_suspended", roles=("machine",))
class ApprovalSuspended(Record):
    """The Board by notice suspends a machine's approval (item 17): it must be taken out of
    play; ``reason``: how it does not operate as certified or approved."""

    machine: str
    reason: str


@record("approval_restored", roles=("machine",))
class ApprovalRestored(Record):
    """The Board lifts a suspension (item 17)."""

    machine: str


# -- EPROMs (item 19) ----------------------------------------------------------------------------


@record("eprom_received", roles=("eprom",))
class EpromReceived(Record):
    """Master EPROMs arrive from the manufacturer (item 19(a)): the programme number (its
    signature), par percentage (basis points), pay table, manufacturer and the Board licence
    number on the spec sheet."""

    eprom: str
    programme_no: str
    par_bp: int
    paytable: str
    manufacturer: str
    board_licence_no: str


@record("eprom_verified", roles=("eprom", "member"))
class EpromVerified(Record):
    """The licensee verifies a master EPROM against the manufacturer's specification sheet and
    the Board licence number (item 19(a)): what was compared and whether it matched."""

    eprom: str
    member: str
    programme_no_ok: bool
    par_ok: bool
    paytable_ok: bool
    licence_no_ok: bool


@record("eprom_registered", roles=("eprom",))
class EpromRegistered(Record):
    """An entry of the master EPROM register (item 19(c) (i)-(iii))."""

    eprom: str
    board_licence_no: str
    manufacturer: str


@record("eprom_vault_access", roles=("eprom", "custodians"))
class EpromVaultAccess(Record):
    """An EPROM taken from (or put back in) the secure area (item 19(b), (c)(iv)): the
    custodians present, the reason, the signatures on the register."""

    eprom: str
    custodians: tuple[str, ...]
    action: str  # "out" or "in"
    reason: str
    signatures: tuple[str, ...]


@record("eprom_copied", roles=("eprom", "member", "work"))
class EpromCopied(Record):
    """Programme media duplicated (item 12, 19(d)): the copy ``copy`` of master ``eprom``, who
    made it (``member``) and as what (``by``: "manufacturer", "licensee" or "other"), and
    whether the manual's copying procedure was followed."""

    eprom: str
    copy: str
    member: str
    work: str
    by: str
    procedure: bool


@record("eprom_sealed", roles=("machine", "eprom", "technician"))
class EpromSealed(Record):
    """An EPROM sealed into a machine (item 19(d)): the seal number; ``promotional`` for a
    competition or promotional EPROM (item 19(e)); whether the sealing procedure was
    followed."""

    machine: str
    eprom: str
    seal: str
    technician: str
    promotional: bool
    procedure: bool


@record("seal_checked", roles=("machine", "technician", "inspector"))
class SealChecked(Record):
    """A machine's EPROM seal checked against the register (``eprom_seal_check_days``):
    ``seal`` as found ("" none), ``intact`` when it is the one registered."""

    machine: str
    seal: str
    intact: bool
    technician: str
    inspector: str


@record("eprom_destroyed", roles=("eprom",))
class EpromDestroyed(Record):
    """A master EPROM destroyed (item 19(c)(v)): the date, reasons and signatures."""

    eprom: str
    date: str
    reason: str
    signatures: tuple[str, ...]


@record("work_done", roles=("machine", "work"))
class WorkDone(Record):
    """A work of ``[[lifecycle.works]]`` is complete (or given up: ``outcome``), with the
    time it waited for the Board and the machine's downtime (KPIs)."""

    machine: str
    work: str
    work_kind: str
    outcome: str
    requested_t: float
    approved_t: float
    downtime_s: float
