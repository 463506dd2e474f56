"""User-facing input errors: one precise line, exit code 2, no traceback."""

from __future__ import annotations

from pathlib import Path


class InputError(Exception):
    """A user's mistake in an input (scenario, PAR sheet, ruleset, CLI argument, payload).

    The message names the source (file or topic), the key path, what was expected and
    what was found, so that one line is enough to fix it.
    """

    exit_code = 2

    def __init__(
        self,
        source: str | Path,
        key: str,
        expected: str,
        found: object,
    ) -> None:
        self.source = str(source)
        self.key = key
        self.expected = expected
        self.found = found
        super().__init__(self.render())

    def render(self) -> str:
        where = f"{self.source}: {self.key}" if self.key else self.source
        return f"{where}: expected {self.expected}, found {_show(self.found)}"


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
