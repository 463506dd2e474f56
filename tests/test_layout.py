"""No module of ``twin/`` is longer than :data:`LIMIT` lines without a stated reason (issue 26).

A module above the limit is listed in :data:`LONG_MODULES` with the reason it stays long; a
listed module that is no longer long must leave the list, so the list cannot go stale.
"""

from __future__ import annotations

from pathlib import Path

from conftest import REPO

TWIN = REPO / "twin"
LIMIT = 800
#: module (relative to the repository, with /) -> why it is longer than LIMIT lines
LONG_MODULES: dict[str, str] = {}


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def _long_modules() -> dict[str, int]:
    return {
        p.relative_to(REPO).as_posix(): n
        for p in sorted(TWIN.rglob("*.py"))
        if (n := _lines(p)) > LIMIT
    }


def test_no_module_is_long_without_a_stated_reason() -> None:
    unexplained = {m: n for m, n in _long_modules().items() if m not in LONG_MODULES}
    assert unexplained == {}, (
        f"modules above {LIMIT} lines: split them, or list them in LONG_MODULES with the "
        f"reason they stay long: {unexplained}"
    )


def test_the_list_names_only_modules_that_are_long() -> None:
    """A module that was split or shortened leaves LONG_MODULES (so the list cannot go
    stale)."""
    stale = {
        m: _lines(REPO / m) if (REPO / m).is_file() else "no such file"
        for m in LONG_MODULES
        if not (REPO / m).is_file() or _lines(REPO / m) <= LIMIT
    }
    assert stale == {}, f"in LONG_MODULES but not above {LIMIT} lines: {stale}"


def test_every_reason_is_stated() -> None:
    assert all(reason.strip() for reason in LONG_MODULES.values())


def test_the_scan_sees_nested_packages() -> None:
    modules = {p.relative_to(REPO).as_posix() for p in TWIN.rglob("*.py")}
    assert {"twin/casino.py", "twin/cli/__init__.py", "twin/machines/engine/batched.py"} <= modules
