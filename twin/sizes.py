"""What a run will need, estimated before t = 0, and whether this machine has it (issue 33).

A scenario can ask for more than a machine holds: a billion machines (`--set
'floor.banks[0].count=1000000000'`), or a million days whose ledger would fill the disk. The
run estimates its memory and its ledger's size from the scenario alone, before anything is
built or written, and refuses one that cannot fit with one line (``twin run
--ignore-size-estimate`` runs it anyway). The figures are measured on this project's floors
(a default day: 600 machines, about 79,000 records, a 26.6 MB ledger, 260 MB peak memory);
they are estimates, meant to catch what is out by orders of magnitude, not to budget.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from twin.departments import Scenario
from twin.errors import InputError

#: the process before any machine (Python, numpy, SimPy, the kernel), bytes
BASE_BYTES = 130 * 2**20
#: memory per machine on the floor, and per member of the population, bytes
MACHINE_BYTES = 64 * 2**10
MEMBER_BYTES = 1 * 2**10
#: records per machine per simulated day (a default day: 78,818 records for 600 machines)
RECORDS_PER_MACHINE_DAY = 131
#: ledger bytes per record (a default day: 26.6 MB for 78,818 records)
LEDGER_BYTES_PER_RECORD = 340
#: the share of physical memory a run may plan to take
MEMORY_SHARE = 0.8
#: a ledger below this size is never refused on the estimate (a full disk or an unwritable
#: folder is then the folder check's or the ledger's own error, named as such)
SMALL_LEDGER_BYTES = 64 * 2**20


@dataclass(frozen=True, slots=True)
class Estimate:
    machines: int
    members: int
    days: float
    memory_bytes: int
    ledger_bytes: int


def estimate(sc: Scenario) -> Estimate:
    """The memory and ledger a run of ``sc`` needs, from its size and length alone."""
    machines = sum(b.count for b in sc.floor.banks)
    members = sc.patrons.members
    days = sc.duration_seconds / 86_400.0
    memory = BASE_BYTES + machines * MACHINE_BYTES + members * MEMBER_BYTES
    ledger = int(machines * RECORDS_PER_MACHINE_DAY * days * LEDGER_BYTES_PER_RECORD)
    return Estimate(machines, members, days, memory, ledger)


def physical_memory() -> int | None:
    """This machine's physical memory in bytes (None where the system does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


def _gb(n: float) -> str:
    return f"{n / 2**30:,.1f} GB" if n >= 2**30 else f"{n / 2**20:,.0f} MB"


def check_fits(sc: Scenario, out: Path | None, source: str) -> Estimate:
    """Refuse (``InputError``) a run whose estimate exceeds the machine's memory or the free
    space where its ledger goes; the estimate otherwise."""
    est = estimate(sc)
    ram = physical_memory()
    flag = "(twin run --ignore-size-estimate runs it anyway)"
    if ram is not None and est.memory_bytes > MEMORY_SHARE * ram:
        raise InputError(
            source, "floor",
            f"a run this machine's memory holds ({_gb(MEMORY_SHARE * ram)} of {_gb(ram)}) "
            + flag,
            f"{est.machines:,} machines and {est.members:,} members, about "
            f"{_gb(est.memory_bytes)}",
        )  # fmt: skip
    if out is not None and est.ledger_bytes > SMALL_LEDGER_BYTES:
        where = out.resolve()
        while not where.exists() and where != where.parent:
            where = where.parent
        free = shutil.disk_usage(where).free
        if est.ledger_bytes > free:
            raise InputError(
                source, "scenario.duration_hours",
                f"a ledger the free space at {where} holds ({_gb(free)}) " + flag,
                f"{est.days:,.1f} days of {est.machines:,} machines, a ledger of about "
                f"{_gb(est.ledger_bytes)}",
            )  # fmt: skip
    return est


__all__ = ["Estimate", "check_fits", "estimate", "physical_memory"]
