"""Typed, frozen records: the single source of truth of what happened.

Every record carries a sequence number (its place in the run) and the simulation time. The
entities involved are ordinary fields named by their **role** (``machine``, ``patron``,
``attendant``, ``inspector``, ``link``...): ``@record(kind, roles=(...))`` declares which
fields are entity references (``Record.role_fields``). A role field holds one id (``""``
when nobody had the role) or a tuple of ids; ``rec.entities`` flattens them in role order
for generic readers.

Record classes register themselves under a ``kind`` name so the ledger can store and restore
them; ``twin.kinds`` imports every module that defines one (one place, so a ledger can be
read back on its own). Field values are flat: ints (money is always integer cents or
credits), floats (times), strings, bools and tuples of those.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar, dataclass_transform

R = TypeVar("R", bound="Record")

_KINDS: dict[str, type[Record]] = {}
_TRUTH: set[str] = set()  # kinds of the twin's ground truth (never read by a checker)


@dataclass(frozen=True, slots=True, kw_only=True)
class Record:
    """Base of every record."""

    kind: ClassVar[str] = "record"
    role_fields: ClassVar[tuple[str, ...]] = ()
    seq: int
    t: float

    @property
    def entities(self) -> tuple[str, ...]:
        """Every entity id named by a role field, in role order (empty roles left out)."""
        out: list[str] = []
        for role in self.role_fields:
            value = getattr(self, role)
            if isinstance(value, tuple):
                out.extend(v for v in value if v)
            elif value:
                out.append(value)
        return tuple(out)

    def entity(self, role: str) -> str:
        """The id holding ``role`` (``""`` if the record has no such role or nobody held it)."""
        value = getattr(self, role, "") if role in self.role_fields else ""
        return value if isinstance(value, str) else ""

    def role_map(self) -> dict[str, str | tuple[str, ...]]:
        """``{role: id or ids}`` for the roles that name someone."""
        return {r: v for r in self.role_fields if (v := getattr(self, r))}

    def payload(self) -> dict[str, Any]:
        """Field values (without seq/t) in declaration order, role fields included."""
        return {name: getattr(self, name) for name in _payload_fields(type(self))}

    def to_json(self) -> str:
        """Canonical JSON of the whole record: the bytes the ledger hashes.

        Exactly ``json.dumps({"kind": ..., "seq": ..., "t": ..., <payload fields>},
        separators=(",", ":"), ensure_ascii=False)``, built by a per-class function from the
        constant key text and each value's JSON (:func:`_json_value`).
        """
        encode = _TO_JSON.get(type(self))
        if encode is None:
            encode = _compile_to_json(type(self))
        return encode(self)


_FIELDS_CACHE: dict[type[Record], tuple[str, ...]] = {}
_TO_JSON: dict[type[Record], Callable[[Record], str]] = {}
_encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
_encode_str: Callable[[str], str] = json.encoder.encode_basestring
# the C encoder that JSONEncoder.encode builds on every call, built once (the same text: the
# same separators, string encoder and NaN handling; no circular check, records are flat)
_c_make_encoder = getattr(json.encoder, "c_make_encoder", None)
_c_encode = (
    None
    if _c_make_encoder is None
    else _c_make_encoder(None, _encoder.default, _encode_str, None, ":", ",", False, False, True)
)


def _encode(v: Any) -> str:
    """``json.dumps(v)`` with the canonical options."""
    if _c_encode is None:  # pragma: no cover - CPython has the C encoder
        return _encoder.encode(v)
    return "".join(_c_encode(v, 0))


_NOT_FINITE = frozenset({"nan", "inf", "-inf"})


def _compile_to_json(cls: type[Record]) -> Callable[[Record], str]:
    """``cls``'s to_json: one join of the constant key text and the values' JSON (cached)."""
    # every field in declaration order (the base's first): the order of the canonical doc
    fields = dataclasses.fields(cls)
    names = tuple(f.name for f in fields)
    consts = [f'{{"kind":{_encode_str(cls.kind)}']
    consts += [f",{_encode_str(n)}:" for n in names]
    consts.append("}")
    items = ["_c[0]"]
    types = {f.name: f.type if isinstance(f.type, str) else f.type.__name__ for f in fields}
    for i, name in enumerate(names, 1):  # names are identifiers: dataclass field names
        # the declared type's test first; ints, strings, finite floats and bools inline,
        # everything else through _json_value
        tests = {
            "int": "_i(x) if x.__class__ is int",
            "str": "_s(x) if x.__class__ is str",
            "float": "_f(x) if x.__class__ is float and x - x == 0.0",
            "bool": "('true' if x else 'false') if x.__class__ is bool",
        }
        kind = types[name]
        order = [kind] if kind in tests else []
        order += [k for k in ("int", "str", "float") if k != kind]
        value = f"({tests[order[0]]} else ".replace("x.__class__", f"(x := r.{name}).__class__", 1)
        value += "".join(f"{tests[k]} else " for k in order[1:])
        items += [f"_c[{i}]", f"{value}_v(x))"]
    items.append(f"_c[{len(names) + 1}]")
    src = f"def to_json(r):\n    return ''.join(({', '.join(items)}))\n"
    scope: dict[str, Any] = {
        "_c": tuple(consts),
        "_v": _json_value,
        "_i": int.__repr__,
        "_s": _encode_str,
        "_f": float.__repr__,
    }
    exec(src, scope)
    fn: Callable[[Record], str] = scope["to_json"]
    _TO_JSON[cls] = fn
    return fn


def _json_value(v: Any) -> str:
    """``json.dumps(v)`` with the canonical options (tuples as lists)."""
    t = type(v)
    if t is str:
        return _encode_str(v)
    if t is int:
        return int.__repr__(v)
    if t is float:
        r = float.__repr__(v)
        return r if r not in _NOT_FINITE else _encode(v)
    if t is tuple:
        if all(type(x) is str for x in v):
            return "[" + ",".join([_encode_str(x) for x in v]) + "]"
        if all(type(x) is int for x in v):  # meter deltas, evidence seqs (bools are not int)
            return "[" + ",".join(map(int.__repr__, v)) + "]"
    return _encode(v)


def _payload_fields(cls: type[Record]) -> tuple[str, ...]:
    names = _FIELDS_CACHE.get(cls)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls) if f.name not in ("seq", "t"))
        _FIELDS_CACHE[cls] = names
    return names


@dataclass_transform(frozen_default=True, kw_only_default=True)
def record(
    kind: str, *, roles: tuple[str, ...] = (), truth: bool = False
) -> Callable[[type[R]], type[R]]:
    """Class decorator: make a frozen, slotted record dataclass registered under ``kind``.

    ``roles`` names the fields that refer to entities (each a ``str`` id, ``""`` for none,
    or a tuple of ids). ``truth`` marks a record of the twin's ground truth, which neither
    the casino nor the Board could see (who a launderer is, a person's true age or identity,
    a device surveillance missed): the KPIs that measure detection read it, a compliance
    checker never does (:func:`truth_kinds`; the control registry refuses it).
    """

    def wrap(cls: type[R]) -> type[R]:
        if kind in _KINDS:
            raise ValueError(f"record kind {kind!r} is registered twice")
        reserved = sorted({"kind", "role_fields"} & set(inspect.get_annotations(cls)))
        if reserved:
            raise TypeError(f"record {kind!r}: {reserved} are the record's own, not fields")
        cls.kind = kind
        cls.role_fields = roles
        made = dataclass(frozen=True, slots=True, kw_only=True)(cls)
        names = {f.name for f in dataclasses.fields(made)}
        missing = [r for r in roles if r not in names]
        if missing:
            raise TypeError(f"record {kind!r}: roles {missing} are not fields")
        _KINDS[kind] = made
        if truth:
            _TRUTH.add(kind)
        return made

    return wrap


def truth_kinds() -> frozenset[str]:
    """The record kinds of the twin's ground truth (registered with ``truth=True``)."""
    return frozenset(_TRUTH)


def is_truth(kind: str) -> bool:
    """Whether records of ``kind`` carry the twin's ground truth."""
    return kind in _TRUTH


def kinds() -> dict[str, type[Record]]:
    """All registered record kinds."""
    return dict(_KINDS)


def from_json(text: str) -> Record:
    """Rebuild a record from its canonical JSON."""
    doc = json.loads(text)
    cls = _KINDS[doc.pop("kind")]
    for name, value in doc.items():
        if isinstance(value, list):
            doc[name] = _tuplify(value)
    return cls(**doc)


def _tuplify(value: list[Any]) -> tuple[Any, ...]:
    return tuple(_tuplify(v) if isinstance(v, list) else v for v in value)


class Sink(Protocol):
    """Anything that consumes records: ledger, compliance, metrics, viewer, hardware link."""

    def accept(self, rec: Record) -> None: ...

    def close(self) -> None: ...


class MemorySink:
    """Keeps every record in memory (for tests and small runs)."""

    def __init__(self) -> None:
        self.records: list[Record] = []

    def accept(self, rec: Record) -> None:
        self.records.append(rec)

    def close(self) -> None:
        pass

    def of(self, cls: type[R]) -> list[R]:
        return [r for r in self.records if isinstance(r, cls)]


#: A record not yet numbered: its class and its fields, ``t`` included (when it was made); the
#: bus gives it the time of the place it numbers it at, so that no record goes back in time
#: (a finding keeps when it was found in its ``at``).
Draft = tuple[type[Record], dict[str, Any]]

#: Simulated seconds between two batch boundaries of the record stream (see RecordBus).
BOUNDARY_SECONDS = 60.0
#: How many boundaries later a producer's records are numbered (see RecordBus): an hour of
#: batches, so that a sink process checking a slow stretch (the first batch of installs, a busy
#: evening) is seldom waited for; findings keep when they were found (``found_t``, ``at``).
LAG = 60
#: ... in a run that shows its findings as they come (a viewer, a drill, hardware): the next
#: boundary's.
LIVE_LAG = 1


class Producer(Protocol):
    """A sink that makes records of its own from the stream (the compliance engine's findings),
    in the simulation's process or in a sink process (:mod:`twin.sinkproc`).

    ``boundary(t, lag)``: the records before the one about to be emitted at ``t`` are a batch;
    the producer has checked them and fires what was due before ``t``; it returns the drafts it
    made for the batch that ended ``lag`` boundaries before (none for the first ``lag``
    batches). ``lag`` is the bus's, the same at every boundary of a run.
    ``finish(end)``: every record was emitted; it fires what was due before ``end``, ends its
    checks, and returns every draft not yet returned, in order.
    """

    def boundary(self, t: float, lag: int) -> list[Draft]: ...

    def finish(self, end: float) -> list[Draft]: ...


class RecordBus:
    """Numbers records in the order they happen and hands each to every sink.

    **Where the records of producers (findings) are numbered** (issue 31): the stream is cut
    into batches at the first record of each simulated minute (``BOUNDARY_SECONDS``) that has
    any record; at each cut, each producer returns the drafts it made ``lag`` batches before
    (``LAG``; ``LIVE_LAG`` in a run that shows its findings as they come, :meth:`cut_every`),
    and they are numbered there, before the record that opened the new batch, with its time;
    what is left is numbered when the run finishes (:meth:`finish_producers`), at the end.
    Where a finding lands therefore depends on the records alone, so a producer in a sink
    process (which checks a batch while the simulation makes the next) gives the very ledger
    the same producer gives in process.
    """

    def __init__(self, now: Callable[[], float], sinks: Iterable[Sink] = ()) -> None:
        self._now = now
        self._sinks: list[Sink] = list(sinks)
        self._accepts: tuple[Callable[[Record], None], ...] = tuple(s.accept for s in self._sinks)
        self._producers: list[Producer] = []
        self._next_cut = float("inf")  # the first boundary's time, once there is a producer
        self._every = BOUNDARY_SECONDS
        self._lag = LAG
        self.count = 0
        self._dispatching = False
        self._pending: deque[Record] = deque()

    def attach(self, sink: Sink) -> None:
        self._sinks.append(sink)
        self._accepts = tuple(s.accept for s in self._sinks)

    def attach_producer(self, producer: Producer) -> None:
        """Number ``producer``'s records at the boundaries (attach it as a sink too)."""
        if self.count:
            raise RuntimeError("a producer is attached before the first record")
        self._producers.append(producer)
        self._next_cut = 0.0

    def cut_every(self, seconds: float, lag: int = LIVE_LAG) -> None:
        """Cut the batches every ``seconds`` and number the findings ``lag`` batches late
        instead (before the first record): a run that shows its findings as they come (a viewer
        or a drill: ``BOUNDARY_SECONDS``; paced by the wall clock with hardware: a second) has
        each within a batch or two of being found. The ledger depends on both, so every other
        run keeps ``BOUNDARY_SECONDS`` and ``LAG``."""
        if self.count:
            raise RuntimeError("the batches are cut the same way from the first record on")
        if not seconds > 0:
            raise ValueError(f"batches of {seconds} s")
        if lag < 1:
            raise ValueError(f"findings {lag} batches late")
        self._every = seconds
        self._lag = lag

    @property
    def lag(self) -> int:
        """How many batch boundaries late the producers' records are numbered."""
        return self._lag

    def emit(self, cls: type[R], **fields: Any) -> R:
        """Number a new record of ``cls`` (now, next seq) and hand it to every sink."""
        t = float(self._now())
        if t >= self._next_cut:
            self._cut(t)
        rec = cls(seq=self.count, t=t, **fields)
        self.count += 1
        self._deliver(rec)
        return rec

    def _cut(self, t: float) -> None:
        """A batch boundary before the record about to be emitted at ``t``."""
        every = self._every
        self._next_cut = (t // every + 1.0) * every
        if self.count:
            for producer in self._producers:
                self._number(producer.boundary(t, self._lag), t)

    def finish_producers(self, end: float) -> None:
        """The run ended at ``end``: number every producer's remaining records (once)."""
        producers, self._producers = self._producers, []
        self._next_cut = float("inf")
        for producer in producers:
            self._number(producer.finish(end), end)

    def _number(self, drafts: list[Draft], t: float) -> None:
        for cls, fields in drafts:
            rec = cls(seq=self.count, **(fields | {"t": t}))
            self.count += 1
            self._deliver(rec)

    def _deliver(self, rec: Record) -> None:
        if self._dispatching:  # emitted by a sink: deliver after the current one
            self._pending.append(rec)
            return
        self._dispatching = True
        try:
            for accept in self._accepts:
                accept(rec)
            pending = self._pending
            while pending:
                later = pending.popleft()
                for accept in self._accepts:
                    accept(later)
        finally:
            self._dispatching = False

    def close(self) -> None:
        for sink in self._sinks:
            sink.close()
