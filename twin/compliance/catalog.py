"""The control catalog, the project's status for each control, and the coverage report.

``twin/data/controls.toml`` is a byte-for-byte copy of the shared regulatory catalog (149
``[[control]]`` entries and the ``[[out_of_scope]]`` clauses judged not simulatable).
``twin/data/control_status.toml`` says what the project does with every control it does not
implement now: ``[[out_of_scope]]`` (with a reason) or ``[[planned]]`` (with the issue that
will add it). What is implemented it does not say: the registry (``@control`` on each checker,
with the parts of the clause it tests) is the one list of implemented controls.

``coverage(registry())`` joins the three: a control is *implemented* when a checker
registers it, else *out of scope* or *not yet* from the status file. Each catalogued control
is exactly one of these: an id in none of them, an id registered and also in the status file,
or a registered id the catalog does not know is an error, so coverage cannot silently drop.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

from twin.compliance.registry import ControlSpec, Kind

CATALOG_FILE = "controls.toml"
STATUS_FILE = "control_status.toml"

Status = Literal["implemented", "out of scope", "not yet"]
STATUSES: tuple[Status, ...] = ("implemented", "out of scope", "not yet")


@dataclass(frozen=True, slots=True)
class CatalogControl:
    """One ``[[control]]`` of the catalog."""

    id: str
    title: str
    check: Kind
    parameters: Mapping[str, Any]
    source: str
    summary: str


@dataclass(frozen=True, slots=True)
class OutOfScopeClause:
    """One ``[[out_of_scope]]`` clause of the catalog (not a control)."""

    id: str
    title: str
    source: str
    reason: str


@dataclass(frozen=True, slots=True)
class Catalog:
    controls: dict[str, CatalogControl]
    out_of_scope: dict[str, OutOfScopeClause]


@dataclass(frozen=True, slots=True)
class Planned:
    id: str
    issue: str
    note: str


@dataclass(frozen=True, slots=True)
class ControlStatusFile:
    """``control_status.toml``: what is not implemented, and why (out of scope, or planned)."""

    out_of_scope: dict[str, str]  # id -> reason
    planned: dict[str, Planned]


@dataclass(frozen=True, slots=True)
class ControlStatus:
    """One row of the coverage report."""

    id: str
    title: str
    status: Status
    kind: Kind
    params: tuple[str, ...]  # ruleset parameters the checker uses (implemented only)
    test: str | None  # the pytest node id that proves it (implemented only)
    reason: str | None  # why out of scope, or which issue will add it
    extent: str = ""  # implemented only: "full" (every part checked) or "partial"
    checks: tuple[tuple[str, str], ...] = ()  # part of the clause -> the test proving it
    unchecked: tuple[str, ...] = ()  # parts of the clause not checked, and why


def _read_data(name: str) -> dict[str, Any]:
    text = resources.files("twin").joinpath("data", name).read_text(encoding="utf-8")
    return tomllib.loads(text)


def _str(entry: Mapping[str, Any], key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value:
        raise ValueError(f"{where}: '{key}' must be a non-empty string")
    return value


def load_catalog() -> Catalog:
    """The catalog shipped with the package (``twin/data/controls.toml``)."""
    data = _read_data(CATALOG_FILE)
    controls: dict[str, CatalogControl] = {}
    for entry in data.get("control", []):
        where = f"{CATALOG_FILE} [[control]] {entry.get('id', '?')}"
        cid = _str(entry, "id", where)
        if cid in controls:
            raise ValueError(f"{CATALOG_FILE}: control {cid} is listed twice")
        check = _str(entry, "check", where)
        try:
            kind = Kind(check)
        except ValueError:
            raise ValueError(f"{where}: unknown check kind {check!r}") from None
        params = entry.get("parameters", {})
        if not isinstance(params, dict):
            raise ValueError(f"{where}: 'parameters' must be a table")
        controls[cid] = CatalogControl(
            id=cid,
            title=_str(entry, "title", where),
            check=kind,
            parameters=dict(params),
            source=_str(entry, "source", where),
            summary=_str(entry, "summary", where),
        )
    out: dict[str, OutOfScopeClause] = {}
    for entry in data.get("out_of_scope", []):
        where = f"{CATALOG_FILE} [[out_of_scope]] {entry.get('id', '?')}"
        oid = _str(entry, "id", where)
        if oid in out or oid in controls:
            raise ValueError(f"{CATALOG_FILE}: {oid} is listed twice")
        out[oid] = OutOfScopeClause(
            id=oid,
            title=_str(entry, "title", where),
            source=_str(entry, "source", where),
            reason=_str(entry, "reason", where),
        )
    return Catalog(controls=controls, out_of_scope=out)


#: The tables a status file may have. Implemented controls are not among them: the registry
#: lists those (a second list would be a second copy of the same fact).
STATUS_TABLES = frozenset({"out_of_scope", "planned"})


def load_status() -> ControlStatusFile:
    """The project's status file (``twin/data/control_status.toml``)."""
    return parse_status(_read_data(STATUS_FILE))


def parse_status(data: Mapping[str, Any]) -> ControlStatusFile:
    """A status file's tables (parsed TOML): ``[[out_of_scope]]`` and ``[[planned]]`` only."""
    extra = sorted(set(data) - STATUS_TABLES)
    if extra:
        raise ValueError(
            f"{STATUS_FILE}: unknown table(s) {', '.join(extra)}; it lists only what is not "
            "implemented ([[out_of_scope]], [[planned]]); the registry lists what is"
        )
    out: dict[str, str] = {}
    for entry in data.get("out_of_scope", []):
        where = f"{STATUS_FILE} [[out_of_scope]] {entry.get('id', '?')}"
        oid = _str(entry, "id", where)
        if oid in out:
            raise ValueError(f"{STATUS_FILE}: {oid} is out of scope twice")
        out[oid] = _str(entry, "reason", where)
    planned: dict[str, Planned] = {}
    for entry in data.get("planned", []):
        where = f"{STATUS_FILE} [[planned]] {entry.get('id', '?')}"
        pid = _str(entry, "id", where)
        if pid in planned or pid in out:
            raise ValueError(f"{STATUS_FILE}: {pid} is listed twice")
        note = entry.get("note", "")
        if not isinstance(note, str):
            raise ValueError(f"{where}: 'note' must be a string")
        planned[pid] = Planned(id=pid, issue=_str(entry, "issue", where), note=note)
    return ControlStatusFile(out_of_scope=out, planned=planned)


def coverage(
    registry: Mapping[str, ControlSpec],
    *,
    catalog: Catalog | None = None,
    status: ControlStatusFile | None = None,
) -> list[ControlStatus]:
    """One row per catalog control, in catalog order.

    Raises ``ValueError`` naming the id when a registered control is not in the catalog, when
    a registered control is also planned or out of scope in the status file, or when a
    catalog control is neither registered nor in the status file.
    """
    cat = load_catalog() if catalog is None else catalog
    st = load_status() if status is None else status
    unknown = sorted(set(registry) - set(cat.controls))
    if unknown:
        raise ValueError(f"registered controls not in the catalog: {', '.join(unknown)}")
    twice = [
        f"{cid} (registered, and {where} in {STATUS_FILE})"
        for where, ids in (("out of scope", st.out_of_scope), ("planned", st.planned))
        for cid in sorted(set(registry) & set(ids))
    ]
    if twice:
        raise ValueError(f"controls with two statuses: {'; '.join(twice)}")
    rows: list[ControlStatus] = []
    missing: list[str] = []
    for cid, ctl in cat.controls.items():
        spec = registry.get(cid)
        if spec is not None:
            rows.append(
                ControlStatus(
                    cid,
                    ctl.title,
                    "implemented",
                    spec.kind,
                    spec.params,
                    spec.test,
                    None,
                    spec.extent,
                    spec.checks,
                    spec.unchecked,
                )
            )
        elif cid in st.out_of_scope:
            reason = st.out_of_scope[cid]
            rows.append(ControlStatus(cid, ctl.title, "out of scope", ctl.check, (), None, reason))
        elif cid in st.planned:
            p = st.planned[cid]
            reason = f"planned: {p.issue}" + (f" ({p.note})" if p.note else "")
            rows.append(ControlStatus(cid, ctl.title, "not yet", ctl.check, (), None, reason))
        else:
            missing.append(cid)
    if missing:
        raise ValueError(
            f"controls neither registered by a checker nor in {STATUS_FILE}: {', '.join(missing)}"
        )
    return rows


def _totals(rows: list[ControlStatus]) -> dict[Status, int]:
    return {s: sum(1 for r in rows if r.status == s) for s in STATUSES}


def _status_cell(r: ControlStatus) -> str:
    return f"{r.status} ({r.extent})" if r.status == "implemented" else r.status


def render_controls_text(rows: list[ControlStatus], *, parts: bool = False) -> str:
    """A readable table (id, status, kind, title) and a totals line.

    An implemented control reads ``implemented (full)`` when its checker tests every part of
    its clause and ``implemented (partial)`` otherwise; with ``parts`` each implemented row is
    followed by the parts checked (with the test that proves each) and the parts not checked.
    """
    header = ("id", "status", "kind", "title")
    table = [header, *((r.id, _status_cell(r), r.kind.value, r.title) for r in rows)]
    widths = [max(len(line[i]) for line in table) for i in range(3)]
    lines: list[str] = []
    for i, line in enumerate(table):
        cells = "  ".join(cell.ljust(w) for cell, w in zip(line[:3], widths, strict=True))
        lines.append(cells + "  " + line[3])
        r = rows[i - 1] if i else None
        if parts and r is not None and r.status == "implemented":
            lines.extend(f"    checks: {text}  [{test}]" for text, test in r.checks)
            lines.extend(f"    not checked: {text}" for text in r.unchecked)
    t = _totals(rows)
    full = sum(1 for r in rows if r.status == "implemented" and r.extent == "full")
    lines.append(
        f"{t['implemented']} implemented ({full} in full, {t['implemented'] - full} in part), "
        f"{t['out of scope']} out of scope, {t['not yet']} not yet (of {len(rows)})"
    )
    return "\n".join(lines) + "\n"


def controls_json(rows: list[ControlStatus]) -> dict[str, Any]:
    """The coverage report as JSON-ready data."""
    t = _totals(rows)
    return {
        "total": len(rows),
        "implemented": t["implemented"],
        "implemented_in_full": sum(
            1 for r in rows if r.status == "implemented" and r.extent == "full"
        ),
        "out_of_scope": t["out of scope"],
        "not_yet": t["not yet"],
        "controls": [
            {
                "id": r.id,
                "title": r.title,
                "status": r.status,
                "kind": r.kind.value,
                "params": list(r.params),
                "test": r.test,
                "reason": r.reason,
            }
            | (
                {
                    "extent": r.extent,
                    "checks": [{"part": text, "test": test} for text, test in r.checks],
                    "unchecked": list(r.unchecked),
                }
                if r.status == "implemented"
                else {}
            )
            for r in rows
        ],
    }
