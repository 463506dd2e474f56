"""The slot floor's scenario sections: ``[floor]`` (banks, progressives, policy), ``[faults]``,
``[[removals]]``, ``[[promotions]]``, ``[[hardware]]`` and ``[[sas]]``.

Validated with the same one-line, key-path errors as every scenario section
(``twin.scenario.translate_validation_error``).
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, Protocol, runtime_checkable

from pydantic import (
    BeforeValidator,
    Field,
    model_validator,
)

from twin.dists import expect, invalid
from twin.patrons.section import PatronsConfig
from twin.scenario import (
    HHMM,
    Ident,
    Inject,
    NonEmptyStr,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    _check_unique,
    _Model,
    _one_of,
    _Plain,
    _resolve_game,
)
from twin.staff.section import ROLES_NEEDED, StaffConfig


class Progressive(_Model):
    """A linked progressive jackpot (``[[floor.progressives]]``)."""

    id: Ident
    reset_cents: PositiveInt
    increment_bp: Annotated[int, expect("an integer from 1 to 10000", lambda v: 1 <= v <= 10000)]


#: the most machines one bank may hold: more than any casino floor (the largest have a few
#: thousand machines in all); a larger count is a typo or a unit slip, refused at once
MAX_BANK_MACHINES = 20_000


class Bank(_Model):
    """A bank of identical machines (``[[floor.banks]]``)."""

    id: Ident
    zone: Ident
    count: Annotated[
        int,
        expect(
            f"an integer from 1 to {MAX_BANK_MACHINES:,} (machines in one bank)",
            lambda v: 1 <= v <= MAX_BANK_MACHINES,
        ),
    ]
    game: Annotated[Path, BeforeValidator(_resolve_game)]
    #: other approved pay tables the operator may install on this bank instead of ``game``
    #: (issue 12): of ``game`` and these, each machine runs the one with the lowest designed
    #: return that still meets the ruleset's ``min_rtp`` (the most hold the rules allow), or
    #: the highest return when none meets it. Empty: the bank runs ``game``.
    pay_tables: tuple[Annotated[Path, BeforeValidator(_resolve_game)], ...] = Field(
        default=(), strict=False
    )
    denomination_cents: PositiveInt
    max_bet_units: PositiveInt
    hopper_capacity_coins: PositiveInt
    hopper_standard_fill_coins: PositiveInt
    hopper_initial_coins: NonNegativeInt
    hopper_pay_limit_credits: PositiveInt
    jackpot_limit_cents: PositiveInt
    coin_acceptor: bool = True
    bill_acceptor: bool = True
    bill_denominations_cents: tuple[PositiveInt, ...] = Field(default=(), strict=False)
    # how many digits the machine's meters have: a fact of the hardware (SAS meters hold at
    # most 18), not a rule; the regulation's minimum (min_meter_digits) is the ruleset's, and a
    # machine with fewer digits is a finding of 4(a)/4(c), not an input error
    meter_digits: Annotated[
        int, expect("an integer from 1 to 18 (a SAS meter's width)", lambda v: 1 <= v <= 18)
    ] = 8
    progressive: Ident | None = None
    manufacturer: NonEmptyStr = "Acme Gaming Ltd"
    model: NonEmptyStr = "AX-100"
    manufactured: date = date(2025, 1, 1)
    promotional: bool = False  # an approved promotional/tournament machine (Sched. 1 item 15)
    asset_prefix: Ident = "AN"  # each machine's asset number is <asset_prefix>-<machine id>

    @model_validator(mode="before")
    @classmethod
    def _default_initial(cls, data: Any) -> Any:
        if (
            isinstance(data, dict)
            and "hopper_initial_coins" not in data
            and "hopper_standard_fill_coins" in data
        ):
            return {**data, "hopper_initial_coins": data["hopper_standard_fill_coins"]}
        return data

    @model_validator(mode="after")
    def _check(self) -> Bank:
        cap = self.hopper_capacity_coins
        if self.hopper_standard_fill_coins > cap:
            raise invalid(
                f"at most hopper_capacity_coins ({cap})",
                key="hopper_standard_fill_coins",
                found=self.hopper_standard_fill_coins,
            )
        if self.hopper_initial_coins > cap:
            raise invalid(
                f"at most hopper_capacity_coins ({cap})",
                key="hopper_initial_coins",
                found=self.hopper_initial_coins,
            )
        for i, bill in enumerate(self.bill_denominations_cents):
            if bill % self.denomination_cents:
                raise invalid(
                    f"a multiple of denomination_cents ({self.denomination_cents})",
                    key=f"bill_denominations_cents[{i}]",
                    found=bill,
                )
        if self.bill_acceptor and not self.bill_denominations_cents:
            raise invalid(
                "a non-empty array when bill_acceptor = true",
                key="bill_denominations_cents",
                found=[],
            )
        return self

    def machine_ids(self) -> list[str]:
        """``["A-001", "A-002", ...]``: the bank id, a dash, the 1-based number (3 digits)."""
        return [f"{self.id}-{n:03d}" for n in range(1, self.count + 1)]


class FloorPolicy(_Model):
    """``[floor.policy]``: the slot floor's own procedures (issue 34). Every key defaults to
    what the ruleset says (None); the controls read only the ruleset and the records, so a
    procedure looser than the law is a legal scenario whose breaches the controls find, and a
    stricter one is clean and shows its cost (longer hand-pay waits, less hold)."""

    #: a hand pay of more than this amount is witnessed by an attendant and two Board
    #: inspectors together, in cents of the regulation's currency like the ruleset's
    #: ``hand_pay_second_inspector_above_cents`` (Lm for Malta, converted exactly to the
    #: floor's cents at the ruleset's exchange rate); 0: never a second inspector; None: the
    #: ruleset's
    hand_pay_second_inspector_above_cents: NonNegativeInt | None = None
    #: how often, in hours, the Board inspectors on duty challenge every machine for its
    #: program signature (0: only at installation, conversion, return and closing); None: the
    #: ruleset's ``program_verification_hours``
    program_verification_hours: NonNegativeFloat | None = None
    #: the least designed return of the pay table the operator installs on a bank with
    #: ``pay_tables`` (it installs the leanest meeting it, or the richest when none does);
    #: None: the ruleset's ``min_rtp``
    min_rtp: Annotated[float, expect("a number in [0, 1]", lambda v: 0 <= v <= 1)] | None = None


class FloorConfig(_Model):
    """The ``[floor]`` table. ``drop_collection``: the local time ("HH:MM") of the daily drop,
    when a drop team empties every machine's drop bucket and bill stacker (none if absent);
    ``policy``: the floor's own procedures (:class:`FloorPolicy`, default the ruleset's)."""

    department: ClassVar[str] = "slots"

    coin_pay_seconds: PositiveFloat = 0.125
    banks: Annotated[
        tuple[Bank, ...], expect("at least one [[floor.banks]] table", lambda v: len(v) > 0)
    ] = Field(strict=False)
    progressives: tuple[Progressive, ...] = Field(default=(), strict=False)
    drop_collection: HHMM | None = None
    policy: FloorPolicy = Field(default_factory=FloorPolicy)

    @model_validator(mode="after")
    def _check(self) -> FloorConfig:
        _check_unique([b.id for b in self.banks], "banks", "id", "bank id")
        _check_unique([p.id for p in self.progressives], "progressives", "id", "progressive id")
        known = [p.id for p in self.progressives]
        for i, bank in enumerate(self.banks):
            if bank.progressive is not None and bank.progressive not in known:
                raise invalid(
                    _one_of(known, "a progressive id from [[floor.progressives]]"),
                    key=f"banks[{i}].progressive",
                    found=bank.progressive,
                )
        return self


class Removal(_Model):
    """A machine taken out of operation (``[[removals]]``, First Schedule item 20(c)): at
    ``at_hours`` (once its patron has left) it is emptied, read, recorded and disconnected;
    at ``return_hours`` it is placed back. ``sold``: it leaves the licensee's ownership and
    does not come back."""

    machine: Ident
    at_hours: NonNegativeFloat
    reason: NonEmptyStr = "repair"
    return_hours: PositiveFloat | None = None
    sold: bool = False


class Promotion(_Model):
    """A promotion (``[[promotions]]``) on the promotional machines of bank ``bank``: while a
    patron plays one, it awards ``award_cents`` at random moments, ``mean_hours`` apart on
    average, paid by an attendant and confirmed by a Board inspector (Sched. 1 item 16)."""

    id: Ident
    bank: Ident
    type: NonEmptyStr  # the type of promotion: "double jackpots", "four-of-a-kind bonus"...
    award: NonEmptyStr  # a description of the award
    award_cents: PositiveInt
    mean_hours: PositiveFloat


# -- hardware-backed machines (issue 8) ---------------------------------------------------------

SMIB_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"
_SMIB_ID = re.compile(SMIB_ID_PATTERN)
SmibId = Annotated[
    str, expect(f"a SMIB id matching {SMIB_ID_PATTERN}", lambda v: bool(_SMIB_ID.match(v)))
]


class HardwareBinding(_Model):
    """``[[hardware]]``: machine ``machine`` of the floor is the real (or emulated) machine
    behind SMIB ``smib`` (its MQTT user); ``mode`` "mirror" (real people play it; its data
    feeds every control) or "drive" (simulated patrons play it through bench commands)."""

    machine: Ident
    smib: SmibId
    mode: Literal["mirror", "drive"] = "mirror"
    #: the serial number the Board registered for the machine behind it (a bench's own
    #: machine); default: the one the floor gives the machine
    serial: NonEmptyStr | None = None


class SasFaults(_Model):
    """``[sas.faults]``: what goes wrong on purpose on a ``[[sas]]`` line, on the machine's side
    (times in simulated seconds from the start of the run; 0 disables)."""

    #: the program image the machine on the line really runs (hex), instead of the approved
    #: one: its ROM signature then differs from the register's (a tampered program)
    tampered_program: (
        Annotated[
            str,
            expect(
                "a program image in hex (an even number of hex digits)",
                lambda v: (
                    len(v) >= 2
                    and len(v) % 2 == 0
                    and all(c in "0123456789abcdefABCDEF" for c in v)
                ),
            ),
        ]
        | None
    ) = None
    #: line noise: the probability that a byte on the line (either way) arrives damaged
    noise: Annotated[float, Field(ge=0.0, le=0.5)] = 0.0
    #: a slow machine: every reply leaves this late (the SAS deadline is 20 ms)
    reply_delay_ms: Annotated[int, Field(ge=0, le=1000)] = 0
    #: a silent machine: no reply to anything from ``silent_at_s`` for ``silent_for_s``
    silent_at_s: NonNegativeFloat = 0.0
    silent_for_s: NonNegativeFloat = 0.0
    #: a burst of ``storm`` general tilts (0x20) raised at ``storm_at_s`` (more than the
    #: exception queue holds overflows it)
    storm_at_s: NonNegativeFloat = 0.0
    storm: NonNegativeInt = 0
    #: the reference SMIB is killed at ``smib_restart_at_s`` and started again
    #: ``smib_down_s`` later (a SMIB restart mid-game)
    smib_restart_at_s: NonNegativeFloat = 0.0
    smib_down_s: NonNegativeFloat = 2.0


class SasBinding(_Model):
    """``[[sas]]``: simulated machine ``machine`` answers SAS as a gaming machine on a serial
    line (``port``: a device such as ``/dev/ttyUSB0``, or ``"pty"`` for a new pseudo-terminal
    pair) at ``address``; the SMIB on the other end reports it over MQTT as ``smib``. With
    ``smib_kind = "reference"`` the twin starts its reference SMIB (``twin smib bridge``) on
    the line; with ``"external"`` a SMIB of your own is wired to ``port``. The twin checks
    the loop end to end: every exception the machine raised reached the host once, within
    ``max_delay_s``, and the host's meters were the machine's."""

    machine: Ident
    smib: SmibId
    port: NonEmptyStr = "pty"
    address: Annotated[int, Field(ge=1, le=127)] = 1
    smib_kind: Literal["reference", "external"] = "reference"
    #: the reference SMIB's end of the cable when ``port`` is a device (two serial adapters
    #: wired null-modem); a "pty" has its two ends already
    smib_port: NonEmptyStr | None = None
    max_delay_s: PositiveFloat = 5.0
    faults: SasFaults = SasFaults()


class FaultsConfig(_Model):
    """Mean time between faults per machine in hours (0 disables); door checks per day."""

    department: ClassVar[str] = "slots"

    tilt_mtbf_hours: NonNegativeFloat = 400.0
    coin_in_jam_mtbf_hours: NonNegativeFloat = 900.0
    bill_jam_mtbf_hours: NonNegativeFloat = 700.0
    hopper_jam_mtbf_hours: NonNegativeFloat = 1200.0
    reverse_coin_mtbf_hours: NonNegativeFloat = 2000.0
    ram_error_mtbf_hours: NonNegativeFloat = 0.0
    power_loss_mtbf_hours: NonNegativeFloat = 5000.0
    door_checks_per_day: NonNegativeFloat = 0.3


@runtime_checkable
class SlotScenario(Protocol):
    """What the slot floor reads of the whole scenario (the assembly's composed model)."""

    @property
    def floor(self) -> FloorConfig: ...
    @property
    def faults(self) -> FaultsConfig: ...
    @property
    def promotions(self) -> tuple[Promotion, ...]: ...
    @property
    def removals(self) -> tuple[Removal, ...]: ...
    @property
    def hardware(self) -> tuple[HardwareBinding, ...]: ...
    @property
    def sas(self) -> tuple[SasBinding, ...]: ...
    @property
    def inject(self) -> tuple[Inject, ...]: ...
    @property
    def duration_seconds(self) -> float: ...
    @property
    def staff(self) -> StaffConfig: ...
    @property
    def patrons(self) -> PatronsConfig: ...


def machine_ids(floor: FloorConfig) -> list[str]:
    """Every machine id, bank by bank in file order."""
    return [mid for bank in floor.banks for mid in bank.machine_ids()]


def zones(floor: FloorConfig) -> list[str]:
    """The floor's zones in order of first appearance among the banks."""
    return list(dict.fromkeys(b.zone for b in floor.banks))


def check(sc: SlotScenario) -> None:
    """What the slot floor's sections ask of each other, of the injections, the staff and
    the patrons: every machine they name is on the floor, promotions run on promotional
    banks, removals and bindings are consistent, every role the machines need has someone
    on some shift, and every zone a segment plays in is on the floor (``invalid`` with the
    key path of the first problem)."""
    ids = set(machine_ids(sc.floor))
    for i, inj in enumerate(sc.inject):
        if inj.machine is not None and inj.machine not in ids:
            raise invalid(
                f"the id of a machine on the floor (e.g. {sorted(ids)[0] if ids else 'A-001'})",
                key=f"inject[{i}].machine",
                found=inj.machine,
            )
    promotional = {b.id for b in sc.floor.banks if b.promotional}
    for i, promo in enumerate(sc.promotions):
        if promo.bank not in promotional:
            raise invalid(
                f"the id of a bank with promotional = true ({', '.join(sorted(promotional))})"
                if promotional else "the id of a bank with promotional = true (none is)",
                key=f"promotions[{i}].bank",
                found=promo.bank,
            )  # fmt: skip
    end = sc.duration_seconds
    for i, rem in enumerate(sc.removals):
        if rem.machine not in ids:
            raise invalid(
                "the id of a machine on the floor", key=f"removals[{i}].machine",
                found=rem.machine,
            )  # fmt: skip
        bound = {h.machine for h in sc.hardware} | {b.machine for b in sc.sas}
        if rem.machine in bound:
            raise invalid(
                "a machine not bound to a SMIB (a hardware-bound one is taken out on the "
                "bench; a machine on a SAS line stays on it)",
                key=f"removals[{i}].machine", found=rem.machine,
            )  # fmt: skip
        if rem.sold and rem.return_hours is not None:
            raise invalid(
                "no return_hours for a machine sold (it leaves the licensee's ownership)",
                key=f"removals[{i}].return_hours", found=rem.return_hours,
            )  # fmt: skip
        if rem.return_hours is not None and rem.return_hours <= rem.at_hours:
            raise invalid(
                f"a time after at_hours ({rem.at_hours:g})",
                key=f"removals[{i}].return_hours", found=rem.return_hours,
            )  # fmt: skip
        for hours, key in ((rem.at_hours, "at_hours"), (rem.return_hours, "return_hours")):
            if hours is not None and hours * 3600.0 >= end:
                raise invalid(
                    f"a time before the run ends (under {end / 3600.0:g} h)",
                    key=f"removals[{i}].{key}", found=hours,
                )  # fmt: skip
    _check_hardware(sc.hardware, ids)
    _check_sas(sc.sas, sc.hardware, ids)

    if ids:
        for role, jobs in ROLES_NEEDED.items():
            if sc.staff.head_count(role) == 0:
                crews = {r.id: sc.staff.head_count(r.id) for r in sc.staff.roles}
                raise invalid(
                    f"a role {role!r} with a head count > 0 in some shift's crew "
                    f"({jobs} on the floor's {len(ids)} machines need one)",
                    key="staff.shifts",
                    found=_Plain(
                        "crews over all shifts: "
                        + ", ".join(f"{k} = {v}" for k, v in crews.items())
                    ),
                )
    known = zones(sc.floor)
    for i, seg in enumerate(sc.patrons.segments):
        for j, zone in enumerate(seg.zones):
            if zone not in known:
                raise invalid(
                    _one_of(known, "a zone of a floor bank"),
                    key=f"patrons.segments[{i}].zones[{j}]",
                    found=zone,
                )


def _check_hardware(hardware: tuple[HardwareBinding, ...], ids: set[str]) -> None:
    """Each ``[[hardware]]`` names a machine of the floor, once, and a SMIB, once."""
    machines: set[str] = set()
    smibs: set[str] = set()
    for i, hw in enumerate(hardware):
        if hw.machine not in ids:
            raise invalid(
                f"the id of a machine on the floor (e.g. {sorted(ids)[0] if ids else 'A-001'})",
                key=f"hardware[{i}].machine",
                found=hw.machine,
            )
        if hw.machine in machines:
            raise invalid("a machine bound to one SMIB only", key=f"hardware[{i}].machine",
                          found=hw.machine)  # fmt: skip
        if hw.smib in smibs:
            raise invalid("a SMIB bound to one machine only", key=f"hardware[{i}].smib",
                          found=hw.smib)  # fmt: skip
        machines.add(hw.machine)
        smibs.add(hw.smib)


def _check_sas(
    sas: tuple[SasBinding, ...], hardware: tuple[HardwareBinding, ...], ids: set[str]
) -> None:
    """Each ``[[sas]]`` names a simulated machine of the floor (not a ``[[hardware]]`` one),
    once, a SMIB no other binding names, and a port of its own."""
    taken = {h.machine for h in hardware}
    smibs = {h.smib for h in hardware}
    ports: set[str] = set()
    for i, b in enumerate(sas):
        if b.machine not in ids:
            raise invalid(
                f"the id of a machine on the floor (e.g. {sorted(ids)[0] if ids else 'A-001'})",
                key=f"sas[{i}].machine", found=b.machine,
            )  # fmt: skip
        if b.machine in taken:
            raise invalid(
                "a simulated machine bound once (not in [[hardware]], not in another [[sas]])",
                key=f"sas[{i}].machine", found=b.machine,
            )  # fmt: skip
        if b.smib in smibs:
            raise invalid("a SMIB bound to one machine only", key=f"sas[{i}].smib",
                          found=b.smib)  # fmt: skip
        if b.port != "pty" and b.port in ports:
            raise invalid("a serial port of its own (one machine per line)",
                          key=f"sas[{i}].port", found=b.port)  # fmt: skip
        if b.smib_kind == "reference" and b.port != "pty" and b.smib_port is None:
            raise invalid(
                "the reference SMIB's end of the cable (smib_port) with a serial device",
                key=f"sas[{i}].smib_port", found="nothing",
            )  # fmt: skip
        if b.smib_kind == "external" and b.port == "pty":
            raise invalid(
                'a serial device for an external SMIB (a "pty" is only for the reference one)',
                key=f"sas[{i}].port", found=b.port,
            )  # fmt: skip
        taken.add(b.machine)
        smibs.add(b.smib)
        ports.add(b.port)
