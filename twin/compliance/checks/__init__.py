"""Every implemented control's checker; importing this package registers them all.

The checker modules are found by walking the package, not listed here: a new checker module
is registered by being in ``twin/compliance/checks/``, and touches nothing else. They are
imported in sorted order, so the registry's order is the same on every machine (the engine
orders its checkers by control id in any case, so findings do not depend on it).
"""

from __future__ import annotations

import importlib
import pkgutil

#: The modules of this package, sorted (helpers that register nothing, such as ``common``
#: and ``book``, included: importing them is harmless).
MODULES: tuple[str, ...] = tuple(
    sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
)

for _name in MODULES:
    importlib.import_module(f"{__name__}.{_name}")
