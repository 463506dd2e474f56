"""Layering: the simulation core never depends on the viewer or on hardware libraries.

Only ``twin/hardware/`` may talk to MQTT (paho) or draw (pygame); nothing in ``twin`` imports
the ``viz`` package. Checked statically (every import statement, and ``import_module`` /
``__import__`` calls with a literal name) and dynamically (importing the casino pulls in
none of them).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

TWIN = REPO / "twin"
HARDWARE = TWIN / "hardware"
FORBIDDEN = ("viz", "pygame", "paho")


def _modules() -> list[Path]:
    return sorted(p for p in TWIN.rglob("*.py") if HARDWARE not in p.parents)


def imported_names(path: Path, root: Path = REPO) -> list[tuple[int, str]]:
    """Absolute module names imported by the file at ``path`` (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = list(path.relative_to(root).with_suffix("").parts[:-1])
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                name = ".".join([*base, *([node.module] if node.module else [])])
                out.append((node.lineno, name))
                if not node.module:
                    out.extend((node.lineno, f"{name}.{a.name}") for a in node.names)
            else:
                assert node.module is not None
                out.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            fname = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            arg = node.args[0]
            if fname in ("import_module", "__import__") and isinstance(arg, ast.Constant):
                out.append((node.lineno, str(arg.value)))
    return out


def _forbidden(name: str) -> bool:
    parts = name.split(".")
    if parts[0] in FORBIDDEN:
        return True
    # twin.viz would be the in-package spelling of the same mistake
    return len(parts) > 1 and parts[0] == "twin" and parts[1] == "viz"


def test_the_scan_sees_the_package() -> None:
    mods = _modules()
    assert TWIN / "casino.py" in mods
    assert TWIN / "machines" / "engine.py" in mods
    names = {n for p in mods for _, n in imported_names(p)}
    assert {"simpy", "numpy", "twin.machines.engine", "twin.world"} <= names


def test_imported_names_resolves_every_form(tmp_path: Path) -> None:
    pkg = tmp_path / "twin" / "sub"
    pkg.mkdir(parents=True)
    src = pkg / "mod.py"
    src.write_text(
        "import pygame.display\n"
        "from paho.mqtt import client\n"
        "from ..viz import view\n"
        "from . import sibling\n"
        "import importlib\n"
        "importlib.import_module('viz.app')\n"
        "__import__('paho')\n"
    )
    found = {name: line for line, name in imported_names(src, root=tmp_path)}
    assert found == {
        "pygame.display": 1,
        "paho.mqtt": 2,
        "twin.viz": 3,
        "twin.sub": 4,
        "twin.sub.sibling": 4,
        "importlib": 5,
        "viz.app": 6,
        "paho": 7,
    }
    assert {n for n in found if _forbidden(n)} == {
        "pygame.display",
        "paho.mqtt",
        "twin.viz",
        "viz.app",
        "paho",
    }


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(TWIN)))
def test_no_module_outside_hardware_imports_viz_pygame_or_paho(path: Path) -> None:
    bad = [f"line {line}: {name}" for line, name in imported_names(path) if _forbidden(name)]
    assert bad == [], f"{path.relative_to(REPO)} imports {bad}"


def test_importing_the_casino_loads_none_of_them() -> None:
    code = (
        "import twin.casino, sys; "
        "assert not any(m.startswith(('pygame','paho','viz')) for m in sys.modules), "
        "sorted(m for m in sys.modules if m.startswith(('pygame','paho','viz')))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
