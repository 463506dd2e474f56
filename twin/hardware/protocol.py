"""Topics and payloads of the SMIB link (``docs/smib-protocol.md``), validated by JSON Schema.

Every payload has a draft 2020-12 schema in ``schemas/<name>.json``; :func:`validate` checks
a decoded payload against one and returns the first error as one line (or None).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

ROOT = "csn/v1"
SCHEMAS = Path(__file__).with_name("schemas")
#: The up-topics a SMIB writes (the last topic level), each with its schema.
UP = ("status", "birth", "evt", "meters", "cmdres")
#: Down commands a SMIB answers.
COMMANDS = ("rebirth", "replay_events", "read_meters", "ping", "enable", "disable")
#: Bench commands: a test bench acts on the machine itself (drive mode, procedure suites).
BENCH_COMMANDS = (
    "credit_in",
    "play",
    "cash_out",
    "open_door",
    "close_door",
    "power_loss",
    "fill_hopper",
)
#: Commands that move money: after a disconnect they are interrogated (sent again with the
#: same ``cmd_id``, which a SMIB answers ``duplicate`` with the first result if it executed
#: it), never sent under a new id.
MONEY_COMMANDS = frozenset({"credit_in", "play", "cash_out", "fill_hopper"})
VERSION = 1


def up_topic(smib: str, leaf: str) -> str:
    return f"{ROOT}/smib/{smib}/up/{leaf}"


def down_topic(smib: str) -> str:
    return f"{ROOT}/smib/{smib}/down/cmd"


def twin_status_topic(twin: str) -> str:
    return f"{ROOT}/twin/{twin}/status"


#: The twin subscribes to every SMIB's up-messages with this filter.
UP_FILTER = f"{ROOT}/smib/+/up/#"


@dataclass(frozen=True, slots=True)
class UpTopic:
    smib: str
    leaf: str


def parse_up_topic(topic: str) -> UpTopic | None:
    """``csn/v1/smib/{smib}/up/{leaf}`` split, or None when the topic is not one of those."""
    parts = topic.split("/")
    if len(parts) != 6 or parts[:3] != ["csn", "v1", "smib"] or parts[4] != "up":
        return None
    if parts[5] not in UP or not parts[3]:
        return None
    return UpTopic(parts[3], parts[5])


@cache
def validator(name: str) -> Draft202012Validator:
    """The validator of schema ``name`` (checked against the metaschema once)."""
    schema = json.loads((SCHEMAS / f"{name}.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def validate(name: str, payload: Any) -> str | None:
    """Why ``payload`` fails schema ``name`` (one line naming the key), or None when valid."""
    err = next(iter(validator(name).iter_errors(payload)), None)
    if err is None:
        return None
    where = "/".join(str(p) for p in err.absolute_path) or "(payload)"
    message = err.message if len(err.message) <= 160 else err.message[:157] + "..."
    return f"{name} schema: {where}: {message}"


def encode(payload: dict[str, Any]) -> bytes:
    """The wire form of a payload: compact JSON, UTF-8."""
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()


__all__ = [
    "BENCH_COMMANDS",
    "COMMANDS",
    "MONEY_COMMANDS",
    "ROOT",
    "UP",
    "UP_FILTER",
    "VERSION",
    "UpTopic",
    "down_topic",
    "encode",
    "parse_up_topic",
    "twin_status_topic",
    "up_topic",
    "validate",
    "validator",
]
