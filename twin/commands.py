"""Commands: typed input that enters the world through the inbox while it runs.

A command is a frozen dataclass registered under a name. The world checks it against its
current state (:meth:`Command.check` returns a reason to refuse, or None) and then applies it;
either way a record says what came in, from which source, when, and, if refused, why. The
world never raises on bad external input: :func:`parse_command` turns a name and a mapping
of arguments (an MQTT payload, a viewer action) into a command or a :class:`CommandError`
with one precise reason.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, dataclass_transform

from pydantic import ConfigDict, TypeAdapter, ValidationError

from twin.records import Record, record

if TYPE_CHECKING:
    from twin.department import Venue

C = TypeVar("C", bound="Command")

_COMMANDS: dict[str, type[Command]] = {}
_STRICT = ConfigDict(extra="forbid")
_ADAPTERS: dict[str, TypeAdapter[Any]] = {}


class CommandError(ValueError):
    """A command that cannot be parsed or applied; the message is the reason."""


class Command:
    """Base of every command (subclasses are frozen dataclasses made by ``@command``)."""

    name: ClassVar[str] = "command"

    def check(self, venue: Venue) -> str | None:
        """Why the world refuses this command now, or None to accept it."""
        return None

    def apply(self, venue: Venue) -> None:
        raise NotImplementedError

    def args(self) -> dict[str, Any]:
        """The arguments as JSON-ready values."""
        return {
            f.name: _jsonable(getattr(self, f.name))
            for f in dataclasses.fields(self)  # type: ignore[arg-type]
        }

    def args_json(self) -> str:
        return json.dumps(self.args(), sort_keys=True, separators=(",", ":"))


@dataclass_transform(frozen_default=True)
def command(name: str) -> Callable[[type[C]], type[C]]:
    """Class decorator: a frozen dataclass command registered under ``name``."""

    def wrap(cls: type[C]) -> type[C]:
        if name in _COMMANDS:
            raise ValueError(f"command {name!r} is registered twice")
        cls.name = name
        cls.__pydantic_config__ = _STRICT  # type: ignore[attr-defined]
        made = dataclass(frozen=True, slots=True)(cls)
        _COMMANDS[name] = made
        return made

    return wrap


def commands() -> dict[str, type[Command]]:
    """Every registered command by name."""
    return dict(_COMMANDS)


def parse_command(name: str, args: Mapping[str, Any]) -> Command:
    """A command from its name and arguments, validated; :class:`CommandError` if invalid."""
    cls = _COMMANDS.get(name)
    if cls is None:
        raise CommandError(f"unknown command {name!r} (known: {', '.join(sorted(_COMMANDS))})")
    adapter = _ADAPTERS.get(name)
    if adapter is None:
        adapter = _ADAPTERS[name] = TypeAdapter(cls)
    try:
        made: Command = adapter.validate_python(dict(args))
        return made
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        raise CommandError(f"{name}: {where}: {err['msg']} (found {err.get('input')!r})") from None


def _jsonable(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


@command("note")
class Note(Command):
    """A line an operator writes into the ledger (a drill's narration, a shift log entry)."""

    text: str

    def check(self, venue: Venue) -> str | None:
        return None if self.text.strip() else "an empty note"

    def apply(self, venue: Venue) -> None:
        pass


# --- records ---------------------------------------------------------------------------------


@record("command_accepted", roles=("source",))
class CommandAccepted(Record):
    """A command from outside the model, applied at ``t``."""

    source: str
    number: int  # the command's place among its source's commands (1, 2, ...)
    command: str
    args: str  # the command's arguments, canonical JSON


@record("command_rejected", roles=("source",))
class CommandRejected(Record):
    """A command from outside the model that was refused, and why."""

    source: str
    number: int
    command: str
    args: str
    reason: str


__all__ = [
    "Command",
    "CommandAccepted",
    "CommandError",
    "CommandRejected",
    "Note",
    "command",
    "commands",
    "parse_command",
]
