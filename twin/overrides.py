"""Overrides: change any scenario key by its path before validation (``--set KEY=VALUE``).

A path names tables with dots and array entries with ``[i]``: ``staff.shifts[0].end``,
``ruleset.overrides.max_prize_cents``, ``floor.banks[2].count``. A value is read as TOML
(``4``, ``2.5``, ``true``, ``"06:00"``, ``[1, 2]``, ``{ dist = "fixed", value = 3 }``); a
bare word that is not TOML is taken as a string. The changed document is then validated
exactly like a file, and a problem in an overridden key names the override.
"""

from __future__ import annotations

import copy
import re
import tomllib
from collections.abc import Iterable, Mapping
from typing import Any

from twin.errors import InputError

SOURCE = "command line"
_PART = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*)((?:\[\d+\])*)")


def parse_assignment(text: str) -> tuple[str, Any]:
    """``"a.b[0].c=4"`` -> ``("a.b[0].c", 4)``; InputError if it is not KEY=VALUE."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise InputError(SOURCE, "--set", "KEY=VALUE (e.g. staff.shifts[0].end=06:00)", text)
    split_path(key)
    return key, parse_value(raw.strip())


def parse_value(raw: str) -> Any:
    """A TOML value, or the text itself when it is not one."""
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw


def split_path(path: str) -> list[str | int]:
    """``"a.b[0].c"`` -> ``["a", "b", 0, "c"]``; InputError naming the path if malformed."""
    parts: list[str | int] = []
    for chunk in path.split("."):
        m = _PART.fullmatch(chunk)
        if m is None:
            raise InputError(
                SOURCE, f"--set {path}", "a key path such as staff.shifts[0].end", chunk or path
            )
        parts.append(m.group(1))
        parts.extend(int(i) for i in re.findall(r"\[(\d+)\]", m.group(2)))
    return parts


def apply(data: Mapping[str, Any], overrides: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """A deep copy of ``data`` with every ``(path, value)`` set; InputError for a path that
    cannot exist (an index past the end of an array, a key inside a value)."""
    doc: dict[str, Any] = copy.deepcopy(dict(data))
    for path, value in overrides:
        parts = split_path(path)
        node: Any = doc
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            here = _render(parts[:i]) or "the scenario"
            if isinstance(part, int):
                if not isinstance(node, list):
                    raise InputError(
                        SOURCE, f"--set {path}", f"{here} to be an array", type(node).__name__
                    )
                if part >= len(node):
                    raise InputError(
                        SOURCE,
                        f"--set {path}",
                        f"an index below {len(node)} ({here} has {len(node)} entries)",
                        part,
                    )
            elif not isinstance(node, dict):
                raise InputError(
                    SOURCE, f"--set {path}", f"{here} to be a table", type(node).__name__
                )
            if last:
                node[part] = value
            elif isinstance(part, int):
                node = node[part]
            else:
                node = node.setdefault(part, {})
    return doc


def exists(data: Mapping[str, Any], path: str) -> bool:
    """Whether ``path`` names a key (or an array entry) that ``data`` already has."""
    node: Any = data
    for part in split_path(path):
        if isinstance(part, int):
            if not isinstance(node, list) or part >= len(node):
                return False
        elif not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def _render(parts: list[str | int]) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else p)
    return out


__all__ = ["SOURCE", "apply", "exists", "parse_assignment", "parse_value", "split_path"]
