"""Topics and payloads of the SMIB link (``docs/smib-protocol.md``), validated by JSON Schema.

Every payload has a draft 2020-12 schema in ``schemas/<name>.json``; :func:`validate` checks
a decoded payload against one and returns the first error as one line (or None).

The schemas are the single source of truth, read once. A message is first checked by code
that ``fastjsonschema`` generates from its schema (~20x faster than walking it with
``jsonschema``); only a message that check refuses is walked by ``jsonschema``'s
``Draft202012Validator``, the reference, which then says precisely what is wrong (key path,
what was expected, what was found) -- or, where the two readings differ, has the last word:
``fastjsonschema`` reads a pattern's ``$`` as the end of the string where Python's ``re``
(and so ``jsonschema``) also lets it match before a final newline. A schema that uses a
keyword outside :data:`FAST_KEYWORDS` is checked by ``jsonschema`` alone, so that the fast
check can never accept what the reference refuses.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import fastjsonschema
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
#: The most bytes a payload may have on each up-topic; a larger one is refused (reason
#: ``too_large``) before it is parsed. Brokers should refuse larger packets themselves
#: (Mosquitto: ``max_packet_size``), docs/smib-protocol.md#size-limits.
MAX_BYTES = {"status": 512, "birth": 16_384, "evt": 8_192, "meters": 16_384, "cmdres": 16_384}
#: The fields of an event that are its content (the rest, ``v smib bd seq ts replay``, say
#: how and when it travelled): :func:`event_digest` covers these, with ``name`` "" and
#: ``data`` {} when absent.
EVENT_CONTENT = ("eid", "code", "name", "epoch", "deltas", "data")


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


#: The keywords whose meaning ``fastjsonschema`` (draft 2019-09 code generator) and draft
#: 2020-12 share, as the schemas use them; annotations are ignored by both.
FAST_KEYWORDS = frozenset(
    {
        # applicators and assertions
        "type", "const", "enum", "required", "properties", "additionalProperties",
        "propertyNames", "minProperties", "maxProperties", "pattern", "minLength",
        "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
        # identifiers and annotations
        "$schema", "$id", "$comment", "title", "description", "examples",
    }
)  # fmt: skip


@cache
def schema(name: str) -> dict[str, Any]:
    """Schema ``name`` as read from ``schemas/<name>.json`` (checked against the metaschema)."""
    doc: dict[str, Any] = json.loads((SCHEMAS / f"{name}.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(doc)
    return doc


@cache
def validator(name: str) -> Draft202012Validator:
    """The reference validator of schema ``name`` (``jsonschema``)."""
    return Draft202012Validator(schema(name))


def _keywords(node: Any) -> set[str]:
    """Every keyword a schema uses (the property names under ``properties`` are not)."""
    out: set[str] = set()
    if isinstance(node, list):
        for item in node:
            out |= _keywords(item)
    elif isinstance(node, dict):
        for key, value in node.items():
            out.add(key)
            if key == "properties":
                for sub in value.values():
                    out |= _keywords(sub)
            elif key not in ("const", "enum", "required", "examples"):  # those hold values
                out |= _keywords(value)
    return out


@cache
def fast_check(name: str) -> Callable[[Any], Any] | None:
    """Code generated by ``fastjsonschema`` from schema ``name``; it raises
    ``fastjsonschema.JsonSchemaException`` on a payload it refuses. None when the schema uses
    a keyword outside :data:`FAST_KEYWORDS` (then only the reference checks it)."""
    doc = schema(name)
    if not _keywords(doc) <= FAST_KEYWORDS:
        return None
    check: Callable[[Any], Any] = fastjsonschema.compile(doc, use_default=False)
    return check


def validate(name: str, payload: Any) -> str | None:
    """Why ``payload`` fails schema ``name`` (one line naming the key), or None when valid."""
    check = fast_check(name)
    if check is not None:
        try:
            check(payload)
            return None
        except fastjsonschema.JsonSchemaException:
            pass  # refused: the reference says why (or, rarely, accepts it)
    err = next(iter(validator(name).iter_errors(payload)), None)
    if err is None:
        return None
    where = "/".join(str(p) for p in err.absolute_path) or "(payload)"
    message = err.message if len(err.message) <= 160 else err.message[:157] + "..."
    return f"{name} schema: {where}: {message}"


#: ``json.dumps(..., separators=(",", ":"), sort_keys=True)`` without building an encoder for
#: every call
_ENCODE = json.JSONEncoder(separators=(",", ":"), sort_keys=True).encode


def encode(payload: dict[str, Any]) -> bytes:
    """The wire form of a payload: compact JSON, UTF-8."""
    return _ENCODE(payload).encode()


def event_digest(doc: Mapping[str, Any]) -> str:
    """The digest of an event's content: the first 16 hex digits of the SHA-256 of the
    compact, key-sorted JSON of its :data:`EVENT_CONTENT` fields (``name`` "" and ``data`` {}
    when absent). A replay, a duplicate and the original have the same digest; another event
    under the same ``eid`` has another."""
    content = {
        "eid": doc["eid"],
        "code": doc["code"],
        "name": doc.get("name", ""),
        "epoch": doc["epoch"],
        "deltas": doc["deltas"],
        "data": doc.get("data", {}),
    }
    return hashlib.sha256(_ENCODE(content).encode()).hexdigest()[:16]


#: Meters that are not cumulative (they go down): left out of reconciliation and of the SAS
#: loop's comparisons.
NOT_CUMULATIVE = frozenset(
    {"current_credits", "games_since_power_reset", "games_since_door_closed"}
)


__all__ = [
    "BENCH_COMMANDS",
    "COMMANDS",
    "EVENT_CONTENT",
    "MAX_BYTES",
    "MONEY_COMMANDS",
    "NOT_CUMULATIVE",
    "ROOT",
    "UP",
    "UP_FILTER",
    "VERSION",
    "UpTopic",
    "down_topic",
    "encode",
    "event_digest",
    "fast_check",
    "parse_up_topic",
    "schema",
    "twin_status_topic",
    "up_topic",
    "validate",
    "validator",
]
