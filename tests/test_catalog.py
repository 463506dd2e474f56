"""The control catalog, the status file and the registry agree, so coverage cannot drop.

(a) the packaged catalog has the shared catalog's ids, titles and check kinds;
(b) every catalogued control is exactly one of implemented (a registered checker), out of
    scope (with a reason) or planned (with an issue): the status file lists only what is not
    implemented, and the registry is the one list of what is (dropping a checker means moving
    its id to planned or out of scope);
(c) the registry registers only catalogued ids, finds every checker module by itself, and
    coverage refuses an id with two statuses or none;
(d) each registered control's kind, test and ruleset parameters are real;
(e) the coverage report has one row per catalogued control.

(b), (c), (d) and the real-registry part of (e) need ``twin.compliance.checks``.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO

from twin.compliance.catalog import (
    Catalog,
    ControlStatus,
    ControlStatusFile,
    Planned,
    controls_json,
    coverage,
    load_catalog,
    load_status,
    parse_status,
    render_controls_text,
)
from twin.compliance.registry import Checker, ControlSpec, Kind, registry

SHARED_CATALOG = Path(__file__).resolve().parents[2] / "shared" / "regulations" / "controls.toml"
TOTAL = 149
ISSUES = {
    "operations",
    "junkets and premium-player deposit accounts",
    "governance workflows",
}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="module")
def status() -> ControlStatusFile:
    return load_status()


def _fake_registry(catalog: Catalog, ids: list[str] | tuple[str, ...]) -> dict[str, ControlSpec]:
    """Specs for ``ids`` as if checkers registered them (for the report tests)."""
    return {
        cid: ControlSpec(
            cid, catalog.controls[cid].check, catalog.controls[cid].title, (), (), "t", Checker
        )
        for cid in ids
    }


# --- (a) the packaged catalog is the shared one ------------------------------------------


def test_packaged_catalog_matches_the_shared_catalog(catalog: Catalog) -> None:
    assert SHARED_CATALOG.is_file(), f"the shared catalog is missing: {SHARED_CATALOG}"
    shared = tomllib.loads(SHARED_CATALOG.read_text(encoding="utf-8"))
    theirs = {c["id"]: (c["title"], c["check"]) for c in shared["control"]}
    ours = {cid: (c.title, c.check.value) for cid, c in catalog.controls.items()}
    assert sorted(ours) == sorted(theirs)
    assert ours == theirs
    assert len(ours) == TOTAL
    assert sorted(catalog.out_of_scope) == sorted(o["id"] for o in shared["out_of_scope"])


def test_catalog_entries_are_complete(catalog: Catalog) -> None:
    assert len(catalog.controls) == TOTAL
    assert not set(catalog.controls) & set(catalog.out_of_scope)
    for c in catalog.controls.values():
        assert c.title and c.source and c.summary
        assert isinstance(c.check, Kind)
    assert all(o.reason for o in catalog.out_of_scope.values())


# --- (b) every control has a status --------------------------------------------------------


def _not_in_status(catalog: Catalog, status: ControlStatusFile) -> list[str]:
    """The catalog ids the status file leaves to the registry, in catalog order."""
    listed = set(status.out_of_scope) | set(status.planned)
    return [cid for cid in catalog.controls if cid not in listed]


def test_every_control_is_implemented_out_of_scope_or_planned(
    catalog: Catalog, status: ControlStatusFile
) -> None:
    implemented = set(registry())
    out = set(status.out_of_scope)
    planned = set(status.planned)
    assert implemented <= set(catalog.controls), implemented - set(catalog.controls)
    assert planned <= set(catalog.controls), planned - set(catalog.controls)
    known = set(catalog.controls) | set(catalog.out_of_scope)
    assert out <= known, out - known
    assert not out & planned, out & planned
    assert not implemented & (out | planned), implemented & (out | planned)
    unaccounted = set(catalog.controls) - implemented - out - planned
    assert not unaccounted, f"controls with no status: {sorted(unaccounted)}"


def test_status_reasons_and_issues(catalog: Catalog, status: ControlStatusFile) -> None:
    for oid, reason in status.out_of_scope.items():
        assert reason.strip(), f"{oid} is out of scope without a reason"
    for p in status.planned.values():
        assert p.issue in ISSUES, f"{p.id}: unknown issue {p.issue!r}"
    # the catalog's own not-simulatable clauses stay listed as such
    missing = set(catalog.out_of_scope) - set(status.out_of_scope)
    assert not missing, f"catalog [[out_of_scope]] not in the status file: {sorted(missing)}"


def test_the_status_file_does_not_list_implemented_controls() -> None:
    # one list of implemented controls, the registry: a second ([implemented_now], or any
    # other table) is refused, not silently ignored
    with pytest.raises(ValueError, match=r"implemented_now"):
        parse_status({"implemented_now": {"ids": ["MT98.R20.1"]}})
    assert "implemented_now" not in (REPO / "twin" / "data" / "control_status.toml").read_text(
        encoding="utf-8"
    )
    empty = parse_status({})
    assert (empty.out_of_scope, empty.planned) == ({}, {})


# --- (c) the registry, and coverage's refusals ---------------------------------------------


def test_registry_registers_exactly_what_the_status_file_leaves(
    catalog: Catalog, status: ControlStatusFile
) -> None:
    ids = set(registry())
    left = set(_not_in_status(catalog, status))
    assert not ids - set(catalog.controls), (
        f"not in the catalog: {sorted(ids - set(catalog.controls))}"
    )
    assert not left - ids, f"neither registered nor in the status file: {sorted(left - ids)}"
    assert not ids - left, f"registered but still out of scope or planned: {sorted(ids - left)}"


def test_no_registered_control_is_in_the_status_file(status: ControlStatusFile) -> None:
    ids = set(registry())
    stale = ids & (set(status.out_of_scope) | set(status.planned))
    assert not stale, f"registered but still out of scope or planned: {sorted(stale)}"


def test_every_checker_module_is_found() -> None:
    # adding a checker module touches nothing else: the package finds it, in sorted order
    import sys

    import twin.compliance.checks as checks

    on_disk = sorted(
        p.stem for p in (REPO / "twin" / "compliance" / "checks").glob("*.py") if p.stem[0] != "_"
    )
    assert list(checks.MODULES) == on_disk
    assert all(f"twin.compliance.checks.{m}" in sys.modules for m in on_disk)
    # every checker class registered comes from a module of the package
    assert {s.checker.__module__.rsplit(".", 1)[-1] for s in registry().values()} <= set(on_disk)


def test_coverage_rejects_a_planned_entry_for_an_implemented_control(
    status: ControlStatusFile,
) -> None:
    cid = sorted(registry())[0]
    fake = ControlStatusFile(
        out_of_scope=status.out_of_scope,
        planned={**status.planned, cid: Planned(cid, "operations", "")},
    )
    with pytest.raises(ValueError, match=re.escape(cid) + r" \(registered, and planned"):
        coverage(registry(), status=fake)


def test_coverage_rejects_an_out_of_scope_entry_for_an_implemented_control(
    status: ControlStatusFile,
) -> None:
    cid = sorted(registry())[-1]
    fake = ControlStatusFile(
        out_of_scope={**status.out_of_scope, cid: "not simulatable"}, planned=status.planned
    )
    with pytest.raises(ValueError, match=re.escape(cid) + r" \(registered, and out of scope"):
        coverage(registry(), status=fake)


# --- (d) each registered control is real ---------------------------------------------------


def _test_exists(node: str) -> str | None:
    """None if the pytest node id ``tests/x.py::[Class::]name[params]`` exists, else why not."""
    path, sep, rest = node.partition("::")
    if not sep or not rest:
        return f"{node!r} is not a 'file::function' node id"
    file = REPO / path
    if not file.is_file() or file.suffix != ".py":
        return f"{path} is not a test file"
    text = file.read_text(encoding="utf-8")
    *classes, name = rest.split("::")
    name = name.split("[", 1)[0]
    for cls in classes:
        if not re.search(rf"^class {re.escape(cls)}\b", text, re.MULTILINE):
            return f"{path} has no class {cls}"
    if not re.search(rf"^\s*(async\s+)?def {re.escape(name)}\(", text, re.MULTILINE):
        return f"{path} has no function {name}"
    return None


def _has_param(ruleset: Any, key: str) -> bool:
    if hasattr(type(ruleset), "__contains__"):
        return key in ruleset
    try:
        ruleset.get(key)
    except (KeyError, LookupError):
        return False
    return True


def test_registered_specs_match_the_catalog_tests_and_ruleset(catalog: Catalog) -> None:
    from twin.compliance.engine import RULESET_OF
    from twin.compliance.ruleset import load_ruleset

    problems: list[str] = []
    for cid, spec in sorted(registry().items()):
        ruleset = load_ruleset(RULESET_OF[cid.split(".")[0]])
        if spec.id != cid:
            problems.append(f"{cid}: spec id is {spec.id}")
        ctl = catalog.controls.get(cid)
        if ctl is None:
            problems.append(f"{cid}: not in the catalog")
            continue
        if spec.kind != ctl.check:
            problems.append(f"{cid}: kind {spec.kind.value}, catalog says {ctl.check.value}")
        why = _test_exists(spec.test)
        if why:
            problems.append(f"{cid}: test {spec.test}: {why}")
        for part, test in spec.checks:
            why = _test_exists(test)
            if why:
                problems.append(f"{cid}: part {part!r}: test {test}: {why}")
        problems.extend(
            f"{cid}: ruleset {ruleset.name} has no parameter {p!r}"
            for p in spec.params
            if not _has_param(ruleset, p)
        )
    assert not problems, "\n".join(problems)


def test_node_id_parsing() -> None:
    assert _test_exists("tests/test_catalog.py::test_node_id_parsing") is None
    assert _test_exists("tests/test_catalog.py::test_node_id_parsing[x-1]") is None
    assert _test_exists("tests/test_catalog.py::no_such_function") is not None
    assert _test_exists("tests/no_such_file.py::test_x") is not None
    assert _test_exists("tests/test_catalog.py") is not None


# --- (e) the coverage report -------------------------------------------------------------


def _check_report(rows: list[ControlStatus], implemented: int) -> None:
    assert len(rows) == TOTAL
    assert len({r.id for r in rows}) == TOTAL
    text = render_controls_text(rows)
    body = text.splitlines()
    assert len(body) == 1 + TOTAL + 1  # header, rows, totals
    for r in rows:
        assert any(line.startswith(r.id + " ") and r.title in line for line in body)
    out = sum(r.status == "out of scope" for r in rows)
    not_yet = TOTAL - implemented - out
    full = sum(r.status == "implemented" and r.extent == "full" for r in rows)
    assert body[-1] == (
        f"{implemented} implemented ({full} in full, {implemented - full} in part), "
        f"{out} out of scope, {not_yet} not yet (of {TOTAL})"
    )
    data = controls_json(rows)
    assert data["total"] == TOTAL
    assert (data["implemented"], data["out_of_scope"], data["not_yet"]) == (
        implemented,
        out,
        not_yet,
    )
    assert len(data["controls"]) == TOTAL
    base = {"id", "title", "status", "kind", "params", "test", "reason"}
    for c in data["controls"]:  # an implemented control also says which parts it checks
        extra = {"extent", "checks", "unchecked"} if c["status"] == "implemented" else set()
        assert set(c) == base | extra, c["id"]


def test_report_with_the_promised_controls(catalog: Catalog, status: ControlStatusFile) -> None:
    promised = _not_in_status(catalog, status)
    rows = coverage(_fake_registry(catalog, promised))
    _check_report(rows, len(promised))
    by_id = {r.id: r for r in rows}
    for cid in promised:
        assert by_id[cid].status == "implemented" and by_id[cid].test == "t"
    for cid, p in status.planned.items():
        assert by_id[cid].status == "not yet"
        assert by_id[cid].reason and p.issue in by_id[cid].reason


def test_report_with_the_registry(catalog: Catalog, status: ControlStatusFile) -> None:
    rows = coverage(registry())
    _check_report(rows, sum(r.status == "implemented" for r in rows))
    assert {r.id for r in rows if r.status == "implemented"} == set(registry())
    assert sum(r.status == "implemented" for r in rows) == len(_not_in_status(catalog, status))


def test_coverage_names_a_control_with_no_status(
    catalog: Catalog, status: ControlStatusFile
) -> None:
    ids = list(registry())
    dropped = sorted(ids)[0]
    fake = _fake_registry(catalog, [i for i in ids if i != dropped])
    with pytest.raises(ValueError, match=re.escape(dropped)):
        coverage(fake)
    coverage(_fake_registry(catalog, ids))  # and without the drop, no error


def test_coverage_rejects_an_uncatalogued_control(
    catalog: Catalog, status: ControlStatusFile
) -> None:
    fake = _fake_registry(catalog, list(registry()))
    coverage(fake)  # as registered, no error
    fake["XX.R1"] = ControlSpec("XX.R1", Kind.RUNTIME, "bogus", (), (), "t", Checker)
    with pytest.raises(ValueError, match=r"XX\.R1"):
        coverage(fake)


def test_parts_are_listed_under_each_implemented_control() -> None:
    from twin.compliance.catalog import coverage

    rows = coverage(registry())
    text = render_controls_text(rows, parts=True).splitlines()
    for r in rows:
        if r.status != "implemented":
            continue
        at = next(i for i, line in enumerate(text) if line.startswith(r.id + " "))
        assert f"implemented ({r.extent})" in text[at]
        below = text[at + 1 : at + 1 + len(r.checks) + len(r.unchecked)]
        assert below == [f"    checks: {p}  [{t}]" for p, t in r.checks] + [
            f"    not checked: {u}" for u in r.unchecked
        ]
        assert r.extent == ("full" if r.checks and not r.unchecked else "partial")
    data = controls_json(rows)
    for c in data["controls"]:
        assert ("extent" in c) == (c["status"] == "implemented")
