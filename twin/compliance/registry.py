"""The control registry: one checker class per catalogued control id.

A checker declares the control it proves, its kind, the record kinds it reads, the ruleset
parameters it uses and the test that proves it. It observes records (``on_record``), may
set deadline timers, and reports at the end of a run (``finish``); it never changes the
world. Register with the ``@control`` decorator; importing ``twin.compliance.checks``
registers every implemented control.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from twin.records import Record

if TYPE_CHECKING:
    from twin.compliance.context import CheckContext


class Kind(StrEnum):
    RUNTIME = "runtime"  # on each record, with deadline timers
    PERIODIC = "periodic"  # audits at intervals (daily, month-end, year-end)
    STATISTICAL = "statistical"  # needs many outcomes
    RECORD = "record"  # completeness and retention of records
    GOVERNANCE = "governance"  # approval and notice workflows


@dataclass(frozen=True, slots=True)
class ControlSpec:
    id: str
    kind: Kind
    title: str
    reads: tuple[str, ...]  # record kinds the checker observes
    params: tuple[str, ...]  # ruleset parameters it uses
    test: str  # the test that proves it (pytest node id)
    checker: type[Checker]
    #: the parts of the clause the checker tests, each with the test that proves that part
    checks: tuple[tuple[str, str], ...] = ()
    #: the parts of the clause it does not test, each saying why (or where it will be)
    unchecked: tuple[str, ...] = ()
    #: the record kinds each of which is one observation of the clause (default: ``reads``
    #: less the kinds that only tell a checker who is who, :data:`CONTEXT_KINDS`)
    observes: tuple[str, ...] = ()
    #: what must happen for the control to be exercised, in words (default: one of the
    #: record kinds it observes)
    needs: str = ""

    @property
    def needed(self) -> str:
        """What the control needed to observe, for a verdict of "not exercised"."""
        if self.needs:
            return self.needs
        return "a record of " + (", ".join(self.observes) or "its own end-of-run audit")

    @property
    def extent(self) -> str:
        """``full`` when every part of the clause is checked, ``partial`` otherwise."""
        return "partial" if self.unchecked or not self.checks else "full"


#: Record kinds that tell a checker who is who or what stands where (the casino's licence,
#: the Board's lists, shifts, installed machines): context for a clause, never on their own an
#: observation of it. A checker whose clause is about them names them in ``observes``.
CONTEXT_KINDS = frozenset(
    {
        "casino_licensed",
        "gaming_area_declared",
        "person_listed",
        "staff_registered",
        "shift_started",
        "shift_ended",
        "machine_installed",
    }
)


class Checker:
    """Base of every checker. Subclasses override ``on_record`` and/or ``finish``.

    Each record of a kind in ``spec.observes`` counts as one observation of the clause (the
    engine counts them); a checker that tests something else (an end-of-run audit, a
    statistical test, a deadline) counts it with :meth:`observed`. A control with no
    observation was not exercised, whatever it found: it never reports "checked".
    """

    spec: ClassVar[ControlSpec]
    #: A pure computation of the end of the run whose value the checker reads from
    #: ``ctx.shared[key]`` in its :meth:`finish` (and which changes nothing else): a sink
    #: process may compute it in a second process meanwhile (:mod:`twin.compliance.apart`).
    finish_shared: ClassVar[tuple[str, Callable[[CheckContext], Any]] | None] = None

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self._reported: set[Hashable] = set()
        self.observations = 0  # observations counted by the checker itself
        self.setup()

    def observed(self, n: int = 1) -> None:
        """Count ``n`` observations of the clause that are not records of ``spec.observes``
        (an audit, a statistical test, a deadline that passed)."""
        self.observations += n

    def not_applicable(self) -> str | None:
        """Why the ruleset makes this clause inapplicable to the run (None: it applies)."""
        return None

    def setup(self) -> None:
        """Initialise the checker's own state (override instead of ``__init__``)."""

    def on_record(self, rec: Record) -> None:  # pragma: no cover - default
        """Observe one record of a kind listed in ``spec.reads``."""

    def finish(self) -> None:
        """End of the run: periodic, statistical and record checks report here."""

    def report(
        self,
        entities: tuple[str, ...],
        message: str,
        evidence: tuple[int, ...] = (),
        *,
        warning: bool = False,
    ) -> None:
        """Report a finding of this checker's control, now, citing ``evidence`` records."""
        self.ctx.report(self.spec.id, entities, message, evidence, warning=warning)

    def report_once(
        self,
        key: Hashable,
        entities: tuple[str, ...],
        message: str,
        evidence: tuple[int, ...] = (),
        *,
        warning: bool = False,
    ) -> None:
        """Report, unless this checker already reported for ``key`` (a machine, a link...):
        a lasting condition is one finding, not one per record that shows it again."""
        if key not in self._reported:
            self._reported.add(key)
            self.report(entities, message, evidence, warning=warning)


REGISTRY: dict[str, ControlSpec] = {}

C = TypeVar("C", bound=Checker)


def control(
    id: str,
    *,
    kind: Kind,
    title: str,
    reads: tuple[str, ...] = (),
    params: tuple[str, ...] = (),
    test: str,
    checks: Mapping[str, str] | None = None,
    unchecked: tuple[str, ...] = (),
    observes: tuple[str, ...] | None = None,
    needs: str = "",
) -> Callable[[type[C]], type[C]]:
    """Register the decorated checker class as the proof of catalogue control ``id``.

    ``checks`` maps each part of the clause the checker tests to the pytest node id of the
    test that proves that part; ``unchecked`` names the parts it does not test, and why.
    ``twin controls`` prints both, so "implemented" never claims more than is true.
    ``observes`` (default: ``reads`` less :data:`CONTEXT_KINDS`) are the record kinds each of
    which is one observation of the clause; ``needs`` says in words what must happen for the
    control to be exercised.
    """
    if len(set(reads)) != len(reads):  # a kind read twice would be dispatched twice
        raise ValueError(f"control {id}: reads a record kind twice: {sorted(reads)}")
    seen = tuple(k for k in reads if k not in CONTEXT_KINDS) if observes is None else observes
    if not set(seen) <= set(reads):
        raise ValueError(f"control {id}: observes {sorted(set(seen) - set(reads))}, not read")

    def wrap(cls: type[C]) -> type[C]:
        if id in REGISTRY:
            raise ValueError(f"control {id} is registered twice")
        parts = tuple((checks or {}).items())
        spec = ControlSpec(
            id, kind, title, reads, params, test, cls, parts, tuple(unchecked), seen, needs
        )
        cls.spec = spec
        REGISTRY[id] = spec
        return cls

    return wrap


def registry() -> dict[str, ControlSpec]:
    """Every implemented control, after importing all checker modules."""
    import twin.compliance.checks  # noqa: F401  (registers the checkers)

    return dict(REGISTRY)
