"""The floor view's layers, one per department, registered by the department's name (issue 26).

A department owns its view layer here, in ``viz/views/<name>.py``, so that the core (``twin``)
never imports the viewer: the module registers a :class:`View` factory under the department's
name with :func:`register`, and :func:`views_for` gives the layers of a run's departments, in
the order asked (the viewer asks in the registry's opening order,
:func:`twin.departments.opening_order`). The modules of this package are found by themselves
(:func:`load`): a new department's view is one new module.

A department the viewer does not draw yet is named in :data:`NOT_DRAWN`, with why; a test holds
every department to exactly one of the two.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol, TypeVar, runtime_checkable

import pygame

if TYPE_CHECKING:
    from viz.app import Viewer


@runtime_checkable
class View(Protocol):
    """A layer of the floor view: what one department draws on the floor.

    ``name``: the department's name (as its :class:`twin.department.Plan` has it).
    ``needs``: the attributes of the viewer's :class:`viz.model.FloorModel` it reads (a test
    holds it to the model's; empty when it reads none).
    ``draw``: draws the layer on ``surface`` (the viewer's screen) for ``viewer``'s model, zoom
    and pan, inside ``viewer.floor_rect``. A layer may keep what it drew between frames.
    """

    @property
    def name(self) -> str: ...

    @property
    def needs(self) -> tuple[str, ...]: ...

    def draw(self, viewer: Viewer, surface: pygame.Surface) -> None: ...


#: Makes a fresh layer (one per viewer: a layer may keep state between frames).
Factory = Callable[[], View]
F = TypeVar("F", bound=Factory)

#: The departments the viewer does not draw yet, and why. A department's view, once written,
#: moves it from here to a module of this package.
NOT_DRAWN: dict[str, str] = {
    "aml": "the AML desk has no place on the floor: its figures (internal reports open, "
    "evaluations, suspicion reports to the police and the Board) are in the sidebar",
    "surveillance": "the cameras watch every area and their recordings have no place on the "
    "floor: its figures (cameras, recordings kept and held, cases, requests) are in the sidebar",
}


class Registry:
    """Views by department name: each name once."""

    def __init__(self) -> None:
        self._factories: dict[str, Factory] = {}

    def register(self, name: str) -> Callable[[F], F]:
        """A decorator registering a view factory (usually its class) as ``name``'s view.

        Registering a name twice is an error, as is a factory whose ``name`` attribute, when
        it has one, is another department's."""

        def decorate(factory: F) -> F:
            own = getattr(factory, "name", name)
            if own != name:
                raise ValueError(f"a view named {own!r} registered as {name!r}")
            if name in self._factories:
                raise ValueError(
                    f"a view for {name!r} is already registered "
                    f"({_qualname(self._factories[name])}); not registering "
                    f"{_qualname(factory)}"
                )
            self._factories[name] = factory
            return factory

        return decorate

    def names(self) -> tuple[str, ...]:
        """The registered names, in the order they were registered."""
        return tuple(self._factories)

    def views_for(self, names: Iterable[str]) -> list[View]:
        """A fresh layer for each of ``names`` that has a view, in the order of ``names``
        (a name given twice gets one layer)."""
        out: list[View] = []
        seen: set[str] = set()
        for name in names:
            factory = self._factories.get(name)
            if factory is not None and name not in seen:
                seen.add(name)
                view = factory()
                assert view.name == name, (view.name, name)
                out.append(view)
        return out


def _qualname(factory: object) -> str:
    return f"{getattr(factory, '__module__', '?')}.{getattr(factory, '__qualname__', factory)}"


#: The viewer's registry.
REGISTRY = Registry()
_loaded = False


def fill(
    surface: pygame.Surface,
    colour: tuple[int, int, int],
    rect: pygame.Rect | tuple[int, int, int, int],
) -> None:
    """``surface.fill(colour, rect)`` with ``rect`` clipped to the surface first: pygame
    (2.6) fills a rectangle that starts left of the surface from its left edge with the whole
    width, so a zone or a room panned half off screen would spill over its neighbours."""
    part = pygame.Rect(rect).clip(surface.get_rect())
    if part.w > 0 and part.h > 0:
        surface.fill(colour, part)


def register(name: str) -> Callable[[F], F]:
    """Register a view factory in the viewer's registry (see :meth:`Registry.register`)."""
    return REGISTRY.register(name)


def load() -> None:
    """Import every module of this package once (each registers its department's view)."""
    global _loaded
    if _loaded:
        return
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
    _loaded = True


def registered() -> tuple[str, ...]:
    """The names of the departments the viewer draws."""
    load()
    return REGISTRY.names()


def in_opening_order(names: Iterable[str]) -> tuple[str, ...]:
    """``names`` in the registry's opening order (:func:`twin.departments.opening_order`);
    a name that is no department's is an error."""
    from twin.departments import opening_order

    wanted = set(names)
    order = opening_order()
    unknown = wanted - set(order)
    if unknown:
        raise ValueError(f"no department is named {', '.join(sorted(unknown))}")
    return tuple(name for name in order if name in wanted)


def views_for(names: Iterable[str]) -> list[View]:
    """Fresh layers of the registered views of ``names``, in the order of ``names``."""
    load()
    return REGISTRY.views_for(names)


__all__ = [
    "NOT_DRAWN",
    "REGISTRY",
    "Factory",
    "Registry",
    "View",
    "fill",
    "in_opening_order",
    "load",
    "register",
    "registered",
    "views_for",
]
