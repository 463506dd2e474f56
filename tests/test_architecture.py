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


def _python_ok(code: str) -> None:
    """Run ``code`` in a fresh interpreter from the repository; it must succeed."""
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr


def test_the_scan_sees_the_package() -> None:
    mods = _modules()
    assert TWIN / "casino.py" in mods
    assert TWIN / "machines" / "engine" / "batched.py" in mods
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
    _python_ok(code)


# -- the layout table of architecture.md ----------------------------------------------------

#: Kernel modules of ``twin/``: clock, drivers, inbox, streams, records, sinks, ledger, the
#: scenario's kernel part, commands and injections, the department protocol, and their
#: helpers. They import only the standard library, the libraries below and each other.
KERNEL = {
    "twin",
    "twin.clock",
    "twin.commands",
    "twin.department",
    "twin.dists",
    "twin.drivers",
    "twin.errors",
    "twin.inbox",
    "twin.injections",
    "twin.jobs",
    "twin.ledger",
    "twin.memo",
    "twin.monitor",
    "twin.outputs",
    "twin.overrides",
    "twin.records",
    "twin.rules",
    "twin.scenario",
    "twin.signals",
    "twin.speedups",  # the optional compiled kernels (issue 31): Cython only in its build step
    "twin.streams",
    "twin.workdays",
    "twin.world",
}
#: The assembly: the registry of departments, the casino, the run API, the CLI and what reads
#: a whole run. Anything in twin.
ASSEMBLY = {
    "twin.__main__",
    "twin.api",
    "twin.casino",
    "twin.cli",
    "twin.departments",
    # a procedure bench builds a casino around one SMIB (issue 8): assembly, not the link
    "twin.hardware.procedures",
    "twin.kinds",
    "twin.ledger_export",
    "twin.ledger_retention",
    "twin.metrics",
    "twin.sinkproc",  # the checks and the ledger of a run in a second process (issue 31)
    "twin.sizes",
    "twin.state",
    "twin.summary",
}
#: Packages of the assembly: every module in them is assembly (the CLI, one module per
#: command group, issue 26).
ASSEMBLY_PACKAGES = {"twin.cli"}
CORE_LIBS = {
    "simpy", "numpy", "pydantic", "pydantic_core", "dateutil", "tzdata", "scipy", "holidays"
}  # fmt: skip
#: The domain libraries: what a slot machine is and does, and the deposit-account ledger.
LIBRARIES = {"twin.machines", "twin.tables", "twin.accounts"}


def _departments() -> dict[str, set[str]]:
    """Each department (``twin.<name>``) and the departments it declares it needs or uses."""
    from twin.departments import plans

    return {f"twin.{p.name}": {f"twin.{o}" for o in (*p.needs, *p.uses)} for p in plans()}


#: The departments (issue 26) and what each declares it needs or uses (its ``Plan``).
DEPARTMENTS = _departments()
#: What another department may import of a department: its package (what ``__init__``
#: exports), its records and its ruleset parameters' declarations; any department may read any
#: department's scenario section.
PUBLIC = ("", ".records", ".params")
#: Sub-package -> the twin packages it may import besides the kernel (and itself); the
#: departments' public parts are checked by :func:`_department_allowed`.
LAYERS: dict[str, set[str]] = {
    "twin.machines": set(),
    "twin.tables": {"twin.machines"},  # the exact laws share the machines' disk cache
    # premium-player deposit accounts (Singapore): a pure ledger and status replay; the CLI
    # hands it the ruleset's numbers, so it needs nothing of the compliance engine
    "twin.accounts": set(),
    **{d: set(LIBRARIES) for d in DEPARTMENTS},
    # the compliance engine observes records: of departments, their public parts only
    "twin.compliance": set(LIBRARIES),
    # the link writes findings (reconciliation, identity): it may use the Finding record
    "twin.hardware": {"twin.machines", "twin.compliance"},
    # rule-change studies run whole casinos through the run API (issue 12): they sit outside
    # the assembly like the CLI (only the CLI imports them) and may use the domain packages
    "twin.experiments": {"twin.machines", "twin.compliance"},
}
#: Who may read which departments' public parts: a department, those it declares; the
#: compliance engine and the studies, every one.
_READS_DEPARTMENTS: dict[str, set[str]] = {
    **DEPARTMENTS,
    "twin.compliance": set(DEPARTMENTS),
    "twin.experiments": set(DEPARTMENTS),
}
EXTRA_LIBS: dict[str, set[str]] = {
    # the link checks payloads with code fastjsonschema compiles from the same schemas
    "twin.hardware": {"paho", "jsonschema", "fastjsonschema", "serial"},
    "twin.experiments": {"distributed", "dask", "matplotlib"},
}
#: layers above the assembly: they may call the run API (and nothing imports them but it)
ABOVE_ASSEMBLY = {"twin.experiments"}
ASSEMBLY_LIBS = {"click", "tqdm"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _owner(module: str) -> str:
    """The layer a twin module belongs to: kernel, assembly or its sub-package."""
    if module in KERNEL:
        return "kernel"
    if module in ASSEMBLY or any(module.startswith(f"{p}.") for p in ASSEMBLY_PACKAGES):
        return "assembly"
    parts = module.split(".")
    return ".".join(parts[:2])


def _department_allowed(owner: str, name: str) -> bool:
    """A department's public part: its package or records, of one ``owner`` declares; its
    section, of any."""
    target = ".".join(name.split(".")[:2])
    rest = name[len(target) :]
    if rest == ".section" or rest.startswith(".section."):
        return True
    return target in _READS_DEPARTMENTS.get(owner, set()) and rest in PUBLIC


def _allowed(owner: str, name: str) -> bool:
    top = name.split(".")[0]
    if top in sys.stdlib_module_names or top == "__future__":
        return True
    if top != "twin":
        libs = CORE_LIBS | EXTRA_LIBS.get(owner, set())
        if owner == "assembly":
            libs |= ASSEMBLY_LIBS
        return top in libs
    if owner == "assembly":
        return True
    target = _owner(name)
    if target == "kernel":
        return True
    if target == "assembly":
        return owner in ABOVE_ASSEMBLY
    if target == owner or target in LAYERS.get(owner, set()):
        return True
    if target in DEPARTMENTS:
        return _department_allowed(owner, name)
    return False


def test_every_module_has_a_place_in_the_layout() -> None:
    for path in TWIN.rglob("*.py"):
        owner = _owner(_module_name(path))
        assert owner in {"kernel", "assembly"} | set(LAYERS), f"{path} has no layer"


@pytest.mark.parametrize("path", sorted(TWIN.rglob("*.py")), ids=lambda p: str(p.relative_to(TWIN)))
def test_imports_follow_the_layout_table(path: Path) -> None:
    """architecture.md: dependencies point inward (kernel <- domain <- assembly)."""
    owner = _owner(_module_name(path))
    bad = [
        f"line {line}: {name}" for line, name in imported_names(path) if not _allowed(owner, name)
    ]
    assert bad == [], f"{path.relative_to(REPO)} ({owner}) may not import {bad}"


def test_the_layout_check_catches_an_inward_violation() -> None:
    assert not _allowed("twin.machines", "twin.experiments.compare")
    assert not _allowed("twin.compliance", "twin.experiments.arms")
    assert _allowed("twin.experiments", "twin.api") and _allowed("assembly", "twin.experiments")
    assert not _allowed("twin.machines", "twin.staff.pool")
    assert not _allowed("twin.patrons", "twin.casino")
    assert not _allowed("kernel", "twin.machines.machine")
    assert not _allowed("twin.compliance", "twin.hardware.link")
    assert not _allowed("twin.machines", "pygame")
    assert _allowed("twin.hardware", "paho.mqtt.client")
    assert _allowed("twin.hardware", "jsonschema")
    assert not _allowed("twin.machines", "jsonschema")
    assert not _allowed("twin.compliance", "twin.hardware.book")
    assert not _allowed("twin.door", "paho.mqtt.client")
    assert _allowed("twin.pit", "twin.machines.machine")
    assert _allowed("assembly", "twin.compliance.engine")
    # departments (issue 26): only what they declare, and only its public parts
    assert _allowed("twin.aml", "twin.door") and _allowed("twin.aml", "twin.cage.records")
    assert not _allowed("twin.aml", "twin.cage.model")  # another's internals
    assert not _allowed("twin.door", "twin.aml")  # not declared
    assert _allowed("twin.door", "twin.aml.section")  # any section is scenario data
    assert not _allowed("twin.compliance", "twin.pit.pit")
    assert _allowed("twin.compliance", "twin.pit.records")


def test_every_record_kind_is_registered_in_twin_kinds() -> None:
    """twin.kinds is the one place that registers every record kind (a ledger reads back on
    its own): a fresh interpreter that imports it knows every kind any module defines."""
    code = (
        "import importlib, pkgutil, twin, twin.kinds as k\n"
        "known = set(k.ALL)\n"
        "for m in pkgutil.walk_packages(twin.__path__, 'twin.'):\n"
        "    if not m.name.startswith('twin.hardware'):\n"
        "        importlib.import_module(m.name)\n"
        "from twin.records import kinds\n"
        "missing = sorted(set(kinds()) - known)\n"
        "assert not missing, missing\n"
    )
    _python_ok(code)


def test_the_cli_and_the_record_kinds_load_no_paho() -> None:
    """``twin smib emulate`` imports twin.hardware lazily; the hardware records (registered in
    twin.kinds) import nothing of MQTT, so the CLI and a ledger reader never load paho."""
    code = (
        "import twin.cli, twin.kinds, sys; "
        "assert 'smib_event' in twin.kinds.ALL; "
        "bad = sorted(m for m in sys.modules if m.startswith(('paho', 'jsonschema'))); "
        "assert not bad, bad"
    )
    _python_ok(code)


# -- viz: the viewer sits outside twin and reaches it only through records and the inbox -----

VIZ = REPO / "viz"
#: What the viewer may import besides the standard library, twin and itself. Not simpy (it
#: moves the clock through twin's drivers and reads records), not twin.hardware, not paho.
VIZ_LIBS = {"pygame", "click", "numpy"}


def _viz_modules() -> list[Path]:
    return sorted(VIZ.rglob("*.py"))


def _viz_allowed(name: str) -> bool:
    top = name.split(".")[0]
    if top in sys.stdlib_module_names or top == "__future__":
        return True
    if top == "twin":
        return not name.startswith("twin.hardware")
    return top == "viz" or top in VIZ_LIBS


def test_the_viz_scan_sees_the_package() -> None:
    mods = _viz_modules()
    assert VIZ / "app.py" in mods
    assert VIZ / "model.py" in mods
    names = {n for p in mods for _, n in imported_names(p)}
    assert {"pygame", "twin.state", "viz.model"} <= names


@pytest.mark.parametrize("path", _viz_modules(), ids=lambda p: str(p.relative_to(VIZ)))
def test_viz_imports_only_twin_pygame_and_the_standard_library(path: Path) -> None:
    bad = [f"line {line}: {name}" for line, name in imported_names(path) if not _viz_allowed(name)]
    assert bad == [], f"{path.relative_to(REPO)} may not import {bad}"


def test_the_viz_check_catches_a_violation() -> None:
    assert not _viz_allowed("simpy")
    assert not _viz_allowed("paho.mqtt.client")
    assert not _viz_allowed("twin.hardware.link")
    assert _viz_allowed("twin.inbox")
    assert _viz_allowed("pygame.font")


def test_twin_viz_is_a_plugin_that_twin_never_names() -> None:
    """``twin viz`` comes from the ``twin.cli`` entry point that pyproject.toml declares;
    twin's source names neither the module nor the entry point's target."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["entry-points"]["twin.cli"] == {"viz": "viz.cli:viz"}
    for path in TWIN.rglob("*.py"):
        assert "viz.cli" not in path.read_text(encoding="utf-8"), path


def test_the_cli_loads_no_viewer_until_asked() -> None:
    code = (
        "import twin.cli, sys; "
        "twin.cli.cli.get_command(None, 'run'); "
        "bad = sorted(m for m in sys.modules if m.startswith(('pygame', 'viz'))); "
        "assert not bad, bad"
    )
    _python_ok(code)


# -- no import circle (issue 26) ------------------------------------------------------------


def _import_graph() -> dict[str, set[str]]:
    """Module -> the twin modules it imports (every import: module level, in functions and
    under TYPE_CHECKING), a package's import of its own parent package left out."""
    modules = {_module_name(p): p for p in TWIN.rglob("*.py")}

    def resolve(name: str) -> str | None:
        parts = name.split(".")
        while parts:
            candidate = ".".join(parts)
            if candidate in modules:
                return candidate
            parts.pop()
        return None

    graph: dict[str, set[str]] = {m: set() for m in modules}
    for m, path in modules.items():
        for _, name in imported_names(path):
            target = resolve(name) if name.startswith("twin") else None
            if target is not None and target != m and not m.startswith(f"{target}."):
                graph[m].add(target)
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_no_import_circle_among_the_modules_of_twin() -> None:
    assert _circles(_import_graph()) == []


def test_no_import_circle_among_the_packages_of_twin() -> None:
    """Package level: the departments, the libraries and the engine form no circle either.
    Reading another department's scenario section is reading data (the registry composes
    every section into one scenario), not depending on that department: those edges are left
    out (the junkets read [tables] for their room's stakes; the pit shows the junket room)."""
    packages: dict[str, set[str]] = {}
    for m, targets in _import_graph().items():
        a = ".".join(m.split(".")[:2])
        for t in targets:
            if t.endswith(".section"):
                continue
            b = ".".join(t.split(".")[:2])
            packages.setdefault(a, set())
            packages.setdefault(b, set())
            if a != b and a not in KERNEL | ASSEMBLY and b not in KERNEL | ASSEMBLY:
                packages[a].add(b)
    assert _circles(packages) == []


def test_the_circle_check_finds_a_circle() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []
