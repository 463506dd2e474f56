"""Departments: the parts a casino is assembled from (issues 10 and 26).

A department is a package (``twin/door``, ``twin/pit``, ``twin/cage``...) that owns its
scenario section (``section.py``), its processes (``model.py``), its record kinds
(``records.py``), its injections (``injections.py``) and its KPIs, and declares itself with a
:class:`Plan` in its ``__init__``. The assembly (``twin.departments``) finds the plans through
the sections of the composed scenario, orders them by what each needs, checks before t = 0
that a scenario asking for a department also has the departments it needs, and builds each
from a :class:`Site`: the world, the ruleset, the scenario and what was built before it, found
by type. A built department is started as the floor opens and finished once at the end of the
run (before the compliance engine's end-of-run checks). Departments emit records on the
world's bus; they reach each other only through what a plan declares it needs, never through
another department's internals.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pydantic import BaseModel

from twin.rules import RuleSource

if TYPE_CHECKING:
    import simpy

    from twin.records import Record
    from twin.scenario import ScenarioBase
    from twin.world import World

T = TypeVar("T")
C = TypeVar("C", bound=BaseModel)


class Department(Protocol):
    """One part of the casino with processes of its own."""

    name: str

    def start(self) -> None:
        """Start the department's processes (called as the floor opens, at t = 0)."""
        ...

    def finish(self) -> None:
        """The end of the run: closing counts, month-end and year-end tasks due by now."""
        ...


#: What a department reads of the ruleset, through its declared parameters (``twin.rules``).
Rules = RuleSource


class Venue(Protocol):
    """What an injection or a command from outside may reach of a running casino: its world,
    its end, and its departments and services by type (``twin.casino.Casino``)."""

    @property
    def env(self) -> simpy.Environment: ...

    @property
    def world(self) -> World: ...

    @property
    def end(self) -> float: ...

    def find(self, kind: type[T]) -> T | None:
        """The department or service of type ``kind`` (None when the casino has none)."""
        ...

    def need(self, kind: type[T]) -> T:
        """The department or service of type ``kind``, which every casino has (the slot
        floor, the staff): a miss is a wiring bug (LookupError)."""
        ...


@dataclass
class Site:
    """What a department is built from: the world, the ruleset, the scenario (its own
    section and the others', by type), the scenario's name for error messages, and the
    services and departments built before it (by type)."""

    world: World
    rules: Rules
    scenario: ScenarioBase
    source: str
    _found: list[object] = field(default_factory=list)

    def section(self, model: type[C]) -> C | None:
        """The scenario's section of type ``model`` (None when absent)."""
        return self.scenario.section(model)

    def provide(self, thing: object) -> None:
        """Make ``thing`` (a service or a built department) findable by its type."""
        self._found.append(thing)

    def find(self, kind: type[T]) -> T | None:
        """What was provided of type ``kind`` (the first), or None."""
        for thing in self._found:
            if isinstance(thing, kind):
                return thing
        return None

    def need(self, kind: type[T]) -> T:
        """What was provided of type ``kind``; a department that declared what it needs
        always finds it (the assembly built it first), so a miss is a wiring bug."""
        thing = self.find(kind)
        if thing is None:
            raise LookupError(f"nothing of type {kind.__name__} was built before it is needed")
        return thing


Build = Callable[[Site], Iterable[Department]]


class KpiSection(Protocol):
    """A department's KPIs, built from records alone (``twin.metrics.Metrics`` holds one of
    each department that declares them, present in the run or not)."""

    name: str
    #: the record classes it reads
    reads: tuple[type[Record], ...]

    def accept(self, rec: Record) -> None: ...

    def report(self, end: float) -> dict[str, Any]:
        """Its figures at ``end`` (JSON-ready: ints, floats, strings, lists, dicts)."""
        ...


@dataclass(frozen=True)
class Plan:
    """A department's declaration.

    ``name``: the department's name (the viewer registers its view layer by it);
    ``sections``: the scenario keys it owns (present when any is, or ``always``);
    ``needs``: departments that must be present beside it, with why (``needs_why``, one
    sentence for the error a scenario without them gets); ``uses``: departments it works with
    when present. Both are built before it. ``build`` returns the department's parts (none,
    one or more) from a :class:`Site`, and may ``provide`` services to the departments built
    after it.
    """

    name: str
    sections: tuple[str, ...]
    build: Build
    needs: tuple[str, ...] = ()
    needs_why: str = ""
    uses: tuple[str, ...] = ()
    always: bool = False
    #: what its sections ask of the whole scenario, checked as it is validated (raises
    #: ``twin.dists.invalid`` with the key path); given the assembly's composed scenario
    check: Callable[[Any], None] | None = None
    #: the targets of its injection kinds, checked once every department is built (raises
    #: ``InputError``); run whether the department is present or not, so that an injection
    #: of a department the scenario lacks is refused by name
    check_injections: Callable[[Site], None] | None = None
    #: a fresh section of its KPIs (None: it reports none of its own)
    kpis: Callable[[], KpiSection] | None = None

    def present(self, scenario: ScenarioBase) -> bool:
        """Whether ``scenario`` asks for this department."""
        return self.always or any(getattr(scenario, s, None) is not None for s in self.sections)


def ordered(plans: Iterable[Plan]) -> list[Plan]:
    """``plans`` in an order where each comes after what it needs and uses (stable: the
    given order wherever the declarations allow it). A declaration naming no known
    department, or a circle of needs, is a programming error."""
    todo = list(plans)
    names = {p.name for p in todo}
    for p in todo:
        for other in (*p.needs, *p.uses):
            if other not in names:
                raise ValueError(f"department {p.name!r} declares {other!r}: no such department")
    done: list[Plan] = []
    placed: set[str] = set()
    while todo:
        for p in todo:
            if all(o in placed for o in (*p.needs, *p.uses)):
                done.append(p)
                placed.add(p.name)
                todo.remove(p)
                break
        else:
            raise ValueError("departments need each other in a circle: "
                             + ", ".join(p.name for p in todo))  # fmt: skip
    return done


__all__ = ["Build", "Department", "KpiSection", "Plan", "Rules", "Site", "Venue", "ordered"]
