"""The registry of departments, and the whole scenario they compose (issue 26).

Each field of :class:`Scenario` below is a department's section; a section's model names its
department (``department`` on the model class), so this field list *is* the registry: adding a
department is one line here, its package (``twin/<name>/``: section, model, records,
injections, a :class:`twin.department.Plan` in its ``__init__``) and its checker module.
The order of the fields is the casino's opening order; :func:`plans` puts each department
after what it declares it needs or uses (:func:`twin.department.ordered`), and the scenario's
validation refuses, before t = 0, a section whose department needs one that is absent.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any, get_args

from pydantic import Field

from twin.aml.section import AmlConfig
from twin.cage.section import CageConfig
from twin.department import Plan, ordered
from twin.dists import invalid
from twin.door.section import EntranceConfig
from twin.junkets.section import JunketsConfig
from twin.licensing.section import LicensingConfig
from twin.lifecycle.section import LifecycleConfig
from twin.patrons.section import PatronsConfig
from twin.pit.section import TablesConfig
from twin.premium.section import PremiumConfig
from twin.scenario import (
    Inject,
    ScenarioBase,
    _Plain,
    load_scenario_as,
    parse_scenario_as,
)
from twin.slots.section import (
    Bank,
    FaultsConfig,
    FloorConfig,
    HardwareBinding,
    Progressive,
    Promotion,
    Removal,
    SasBinding,
)
from twin.staff.section import StaffConfig
from twin.surveillance.section import SurveillanceConfig


class Scenario(ScenarioBase):
    """A whole scenario file: the kernel's part and one section per department (the
    registry). Attribute paths mirror TOML key paths."""

    floor: FloorConfig
    patrons: PatronsConfig
    staff: StaffConfig
    faults: FaultsConfig = FaultsConfig()
    inject: tuple[Inject, ...] = Field(default=(), strict=False)
    promotions: tuple[Promotion, ...] = Field(default=(), strict=False)
    removals: tuple[Removal, ...] = Field(default=(), strict=False)
    hardware: tuple[HardwareBinding, ...] = Field(default=(), strict=False)  # issue 8
    sas: tuple[SasBinding, ...] = Field(default=(), strict=False)  # issue 30
    # -- the rest of the casino (issues 10, 11): each section optional --
    entrance: EntranceConfig | None = None
    tables: TablesConfig | None = None
    cage: CageConfig | None = None
    junkets: JunketsConfig | None = None
    premium: PremiumConfig | None = None
    aml: AmlConfig | None = None
    lifecycle: LifecycleConfig | None = None  # issue 27
    licensing: LicensingConfig | None = None  # issue 28
    surveillance: SurveillanceConfig | None = None  # issue 28

    def check_sections(self) -> None:
        """Each department's checks of what its sections ask of the others, in registry
        order; then, for each department the scenario asks for, the departments it needs."""
        registry = plans(type(self))
        by_name = {p.name: p for p in registry}
        for plan in registry:
            if plan.check is not None:
                plan.check(self)
        for plan in registry:
            if not plan.present(self):
                continue
            for need in plan.needs:
                other = by_name[need]
                if not other.present(self):
                    raise invalid(
                        f"a [{other.sections[0]}] section beside [{plan.sections[0]}] "
                        f"({plan.needs_why})",
                        key=plan.sections[0],
                        found=_Plain(f"no [{other.sections[0]}]"),
                    )

    # -- the slot floor's banks -----------------------------------------------------------------

    def zones(self) -> list[str]:
        """The floor's zones in order of first appearance among the banks."""
        return list(dict.fromkeys(b.zone for b in self.floor.banks))

    def all_machine_ids(self) -> list[str]:
        """Every machine id, bank by bank in file order."""
        return [mid for bank in self.floor.banks for mid in bank.machine_ids()]

    @property
    def machine_count(self) -> int:
        return sum(b.count for b in self.floor.banks)

    def bank(self, bank_id: str) -> Bank:
        """The bank with id ``bank_id`` (KeyError if none)."""
        for b in self.floor.banks:
            if b.id == bank_id:
                return b
        raise KeyError(bank_id)

    def progressive(self, progressive_id: str) -> Progressive:
        """The progressive with id ``progressive_id`` (KeyError if none)."""
        for p in self.floor.progressives:
            if p.id == progressive_id:
                return p
        raise KeyError(progressive_id)


def _section_models(scenario: type[ScenarioBase]) -> Iterable[type[Any]]:
    """The section model of each field of ``scenario`` that belongs to a department."""
    for info in scenario.model_fields.values():
        tp = info.annotation
        for candidate in (tp, *get_args(tp)):
            if isinstance(candidate, type) and hasattr(candidate, "department"):
                yield candidate


@cache
def plans(scenario: type[ScenarioBase] = Scenario) -> tuple[Plan, ...]:
    """Every department's plan, in the order it is built (what it needs and uses first).

    A section's department is the package its model is defined in (``twin.door`` for
    ``twin.door.section.EntranceConfig``), whose ``PLAN`` names it; ``scenario``: the
    composed scenario (a subclass of :class:`Scenario` adds a department from outside twin,
    as the tests' coat check does)."""
    found: dict[str, Plan] = {}
    for model in _section_models(scenario):
        name = model.department
        if name not in found:
            package = model.__module__.rpartition(".")[0]
            plan = getattr(importlib.import_module(package), "PLAN", None)
            if not isinstance(plan, Plan) or plan.name != name:
                raise TypeError(
                    f"{package}: a PLAN = Plan({name!r}, ...) for section {model.__name__}"
                )
            found[name] = plan
    return tuple(ordered(found.values()))


@cache
def opening_order(scenario: type[ScenarioBase] = Scenario) -> tuple[str, ...]:
    """The departments' names in the registry's order (the order they start in)."""
    names: list[str] = []
    for model in _section_models(scenario):
        if model.department not in names:
            names.append(model.department)
    return tuple(names)


def load_scenario(path: str | Path, overrides: Iterable[tuple[str, Any]] = ()) -> Scenario:
    """Read, parse and validate a scenario file; any problem raises one ``InputError``.

    Game paths are resolved relative to the scenario file's directory. ``overrides`` are
    ``(key path, value)`` pairs (``twin.overrides``) set before validation; an invalid value
    is reported against the override that set it.
    """
    return load_scenario_as(Scenario, path, overrides)


def parse_scenario(
    data: Mapping[str, Any], *, source: str | Path = "<scenario>", base_dir: Path | None = None
) -> Scenario:
    """Validate already-parsed TOML data (game paths relative to ``base_dir``, default cwd)."""
    return parse_scenario_as(Scenario, data, source=source, base_dir=base_dir)


__all__ = ["Scenario", "load_scenario", "opening_order", "parse_scenario", "plans"]
