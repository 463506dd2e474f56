"""Drills: rehearse a procedure on the simulated floor and be scored by the regulations.

A drill is data (``viz/drills/<id>.toml``, listed in ``viz/drills/README.md``): the scenario
and settings that make the situation arise, the record that starts the attempt, the steps the
operator performs (each one operator command: ``assign_job``, ``note``, ``open_door``,
``close_door``, or a department's: ``pay_cheque``, ``check_id``, ``admit_entrant``,
``refuse_entrant``, ``fill_table``, ``sign_table_card``, ``evaluate_case``,
``report_suspicion``), the records the world must write before the attempt ends, each with the
clause of the regulations it carries out, and a time limit.

:func:`start_attempt` builds the world (its ledger in the attempt's folder), runs it fast
until the situation arises, then hands it to the viewer, paced. Every step the operator takes
(a key ``1``..``9`` or a click on the step) goes into the inbox as a command and is in the
ledger. ``F`` finishes: the run is closed and :func:`score` reads the attempt back **from its
ledger**: steps missed, steps out of order (against the order listed, and a step done before
an outcome its ``after`` names, e.g. a slip signed before the payout it records), commands
the floor refused, outcomes missing, the compliance engine's findings during the attempt
(control id and title from the catalog), and the time taken.

Only the trainee's acts are scored: their own commands, and the drilled subject in the
drilled episode (from the trigger until the same situation arises on that subject again). The
subject is what the trigger record's field ``[trigger] subject`` names: by default its
machine; a table, a cage window's cashier, a person at the door, a patron reported. A
department's command takes its arguments from the trigger record's fields of the same names,
the step's ``args`` and ``staff`` (someone of a role on duty). A finding counts if its
evidence holds one of the trainee's commands, or it names the drilled subject and its
evidence lies in the episode; every other finding
during the attempt (another machine's jackpot, a later episode) is listed in the score's
``shown`` ("shown, not scored"), never deducted. A trigger may require a patron playing at
its machine (``patron_playing``), read from the sessions in the records. The score and the
ledger are saved; the viewer shows a summary screen.
"""

from __future__ import annotations

import dataclasses
import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pygame

from twin import api
from twin.casino import Casino
from twin.commands import Command, Note, commands, parse_command
from twin.drivers import StepDriver
from twin.errors import InputError
from twin.ledger import Ledger, read_rows
from twin.records import BOUNDARY_SECONDS
from twin.slots.actions import CloseDoor, OpenDoor
from twin.staff.actions import AssignJob
from viz import palette as P
from viz.model import FloorModel
from viz.sources import LiveSource

if TYPE_CHECKING:
    from viz.app import Viewer

DRILLS = Path(__file__).with_name("drills")
REPO_SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
#: the operator commands a step may be: the slot floor's and the staff's, and the departments'
#: operator hooks (the cage, the door, the pit, the AML desk; each off unless a scenario's
#: ``operator`` setting makes the act wait for the operator)
ACTIONS = (
    "assign_job", "note", "open_door", "close_door",
    "pay_cheque",
    "check_id", "admit_entrant", "refuse_entrant",
    "fill_table", "sign_table_card",
    "evaluate_case", "report_suspicion",
)  # fmt: skip
#: points lost per mistake (the score starts at 100 and stops at 0)
PENALTY = {"missed": 25, "order": 10, "refused": 5, "outcome": 20, "finding": 25, "late": 10}


@dataclass(frozen=True, slots=True)
class Step:
    id: str
    text: str
    command: str
    clause: str
    job: str = ""  # assign_job: the kind of job (default: the trigger's)
    door: str = "slot"
    after: tuple[str, ...] = ()  # outcome ids whose records must be in the ledger first
    #: a department's command: arguments given as they are (``args``), and arguments that
    #: name a person, filled with someone of that role on duty (``staff``: argument -> role);
    #: the rest are the trigger record's fields of the same names
    args: Mapping[str, Any] = field(default_factory=dict)
    staff: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Outcome:
    kind: str
    text: str
    clause: str
    match: Mapping[str, Any] = field(default_factory=dict)
    id: str = ""  # what a step's ``after`` names (default: the kind)


@dataclass(frozen=True, slots=True)
class DrillSpec:
    id: str
    title: str
    procedure: str
    summary: str
    path: Path
    scenario: Path
    seed: int | None
    hours: float
    settings: tuple[str, ...]
    speed: float
    time_limit_s: float
    trigger_kind: str
    trigger_match: Mapping[str, Any]
    machine: str
    steps: tuple[Step, ...]
    outcomes: tuple[Outcome, ...]
    #: the trigger only counts on a machine a patron is playing at (a session started, the
    #: patron not gone) when its record is written
    trigger_patron_playing: bool = False
    #: the drilled subject: the trigger record's field that names it ("machine", "table",
    #: "cashier" (a cage window), "person", "patron"...); outcomes and findings count when
    #: they are about it
    subject: str = "machine"


def _need(
    doc: Mapping[str, Any], key: str, kind: type | tuple[type, ...], path: Path, where: str
) -> Any:
    value = doc.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        name = kind.__name__ if isinstance(kind, type) else "number"
        raise InputError(path, f"{where}{key}", f"a {name}", repr(value))
    return value


def load_drill(path: Path) -> DrillSpec:
    """Read and check one drill file (one clear error naming the key when it is wrong)."""
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(path, "", "a readable drill file", exc.strerror or str(exc)) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(path, "", "valid TOML", str(exc)) from None
    d = doc.get("drill")
    if not isinstance(d, dict):
        raise InputError(path, "drill", "a [drill] table", repr(d))
    scenario = str(_need(d, "scenario", str, path, "drill."))
    sc_path = (path.parent / scenario) if "/" in scenario else REPO_SCENARIOS / f"{scenario}.toml"
    trig = doc.get("trigger", {})
    if not isinstance(trig, dict):
        raise InputError(path, "trigger", "a [trigger] table", repr(trig))
    playing = trig.get("patron_playing", False)
    if not isinstance(playing, bool):
        raise InputError(path, "trigger.patron_playing", "true or false", repr(playing))
    subject = trig.get("subject", "machine")
    if not isinstance(subject, str) or not subject.isidentifier():
        raise InputError(
            path, "trigger.subject", "the name of the trigger record's field", repr(subject)
        )
    outcomes: list[Outcome] = []
    for i, o in enumerate(doc.get("outcome", [])):
        where = f"outcome[{i}]."
        kind = _need(o, "kind", str, path, where)
        oid = str(o.get("id", kind))
        if any(x.id == oid for x in outcomes):
            raise InputError(path, f"{where}id", "an id no other outcome has", oid)
        outcomes.append(
            Outcome(
                kind=kind,
                text=_need(o, "text", str, path, where),
                clause=_need(o, "clause", str, path, where),
                match=dict(o.get("match", {})),
                id=oid,
            )
        )
    steps: list[Step] = []
    for i, s in enumerate(doc.get("step", [])):
        where = f"step[{i}]."
        command = _need(s, "command", str, path, where)
        if command not in ACTIONS:
            raise InputError(path, f"{where}command", f"one of {', '.join(ACTIONS)}", command)
        after = s.get("after", [])
        known = [o.id for o in outcomes]
        if not isinstance(after, list) or any(a not in known for a in after):
            raise InputError(
                path, f"{where}after", f"a list of outcome ids ({', '.join(known)})", repr(after)
            )
        args, staff = s.get("args", {}), s.get("staff", {})
        if not isinstance(args, dict):
            raise InputError(path, f"{where}args", "a table of the command's arguments", repr(args))
        if not isinstance(staff, dict) or not all(isinstance(r, str) for r in staff.values()):
            raise InputError(path, f"{where}staff", "a table of argument = role", repr(staff))
        if command not in _SLOT_ACTIONS:
            _check_arguments(path, where, command, args, staff, str(trig.get("kind", "start")))
        steps.append(
            Step(
                id=_need(s, "id", str, path, where),
                text=_need(s, "text", str, path, where),
                command=command,
                clause=_need(s, "clause", str, path, where),
                job=str(s.get("job", "")),
                door=str(s.get("door", "slot")),
                after=tuple(after),
                args=dict(args),
                staff=dict(staff),
            )
        )
    if not 1 <= len(steps) <= 9:
        raise InputError(path, "step", "1 to 9 [[step]] tables (keys 1 to 9)", str(len(steps)))
    seed = d.get("seed")
    return DrillSpec(
        id=_need(d, "id", str, path, "drill."),
        title=_need(d, "title", str, path, "drill."),
        procedure=_need(d, "procedure", str, path, "drill."),
        summary=str(d.get("summary", "")),
        path=path,
        scenario=sc_path,
        seed=int(seed) if seed is not None else None,
        hours=float(d.get("hours", 12.0)),
        settings=tuple(str(s) for s in d.get("set", [])),
        speed=float(d.get("speed", 10.0)),
        time_limit_s=60.0 * float(_need(d, "time_limit_minutes", (int, float), path, "drill.")),
        trigger_kind=str(trig.get("kind", "start")),
        trigger_match=dict(trig.get("match", {})),
        machine=str(trig.get("machine", "")),
        steps=tuple(steps),
        outcomes=tuple(outcomes),
        trigger_patron_playing=playing,
        subject=subject,
    )


#: the slot floor's and the staff's commands, built by the drill itself (the rest are the
#: departments', built from the trigger record's fields and the step's ``args`` and ``staff``)
_SLOT_ACTIONS = ("assign_job", "note", "open_door", "close_door")


def _check_arguments(
    path: Path, where: str, command: str, args: Mapping[str, Any], staff: Mapping[str, str],
    trigger_kind: str,
) -> None:  # fmt: skip
    """A department's step names only its command's arguments, and every argument comes from
    the trigger record (a field of the same name), ``args`` or ``staff``."""
    from twin.kinds import ALL

    params = [f.name for f in dataclasses.fields(commands()[command])]  # type: ignore[arg-type]
    given = [*args, *staff]
    unknown = [a for a in given if a not in params]
    if unknown:
        raise InputError(
            path, f"{where}args", f"arguments of {command} ({', '.join(params)})", unknown[0]
        )
    record = ALL.get(trigger_kind)
    fields = {f.name for f in dataclasses.fields(record)} if record is not None else set()
    missing = [p for p in params if p not in given and p not in fields]
    if missing:
        raise InputError(
            path,
            f"{where}args",
            f"a value for {command}'s {missing[0]} (the trigger record {trigger_kind} has no "
            "such field)",
            "none",
        )


def all_drills() -> list[DrillSpec]:
    return [load_drill(p) for p in sorted(DRILLS.glob("*.toml"))]


def find_drill(name: str) -> DrillSpec:
    """A drill by its id (``hopper-fill``) or the path of its file."""
    path = Path(name)
    if path.suffix == ".toml" and path.is_file():
        return load_drill(path)
    candidate = DRILLS / f"{name}.toml"
    if candidate.is_file():
        return load_drill(candidate)
    known = ", ".join(p.stem for p in sorted(DRILLS.glob("*.toml")))
    raise InputError("command line", "--drill", f"a drill ({known}) or a drill file", name)


# -- an attempt ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Mistake:
    what: str  # missed, order, refused, outcome, finding, late
    text: str
    clause: str
    title: str = ""


@dataclass(frozen=True, slots=True)
class Score:
    drill: str
    passed: bool
    points: int
    steps_done: tuple[str, ...]
    mistakes: tuple[Mistake, ...]
    started_t: float
    time_taken_s: float
    time_limit_s: float
    ledger: str
    #: the floor's findings during the attempt about anything but the drilled subject (another
    #: machine, a later episode): shown, not scored
    shown: tuple[Mistake, ...] = ()
    #: of ``time_taken_s``, the time a step waited for the floor (an outcome it must follow):
    #: not the trainee's, so not counted against the limit
    waited_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        doc = asdict(self)
        doc["mistakes"] = [asdict(m) for m in self.mistakes]
        doc["shown"] = [asdict(m) for m in self.shown]
        return doc

    def summary_text(self) -> str:
        verdict = "PASSED" if self.passed else "FAILED"
        lines = [
            f"drill {self.drill}: {verdict}, {self.points}/100, "
            f"{(self.time_taken_s - self.waited_s) / 60:.1f} of "
            f"{self.time_limit_s / 60:.0f} minutes"
            + (
                f" (and {self.waited_s / 60:.1f} waiting for the floor)"
                if self.waited_s > 0
                else ""
            )
        ]
        lines += [f"  {m.what}: {m.text} [{m.clause}]" for m in self.mistakes]
        lines += [f"  shown, not scored: {m.text} [{m.clause}]" for m in self.shown]
        lines.append(f"  ledger: {self.ledger}")
        return "\n".join(lines)


class Attempt:
    """One attempt at a drill: the world, its ledger, and the operator's steps."""

    def __init__(self, spec: DrillSpec, casino: Casino, source: LiveSource, folder: Path):
        self.spec = spec
        self.casino = casino
        self.source = source
        self.folder = folder
        self.started_t = 0.0
        self.machine = spec.machine  # the drilled subject (a machine, or the trigger's subject)
        self.trigger_doc: dict[str, Any] = {}  # the trigger record, as written
        self.trigger_job = ""
        self.patron = ""  # the patron playing at the machine when the trigger came (if any)
        self.score: Score | None = None
        self.done: list[str] = []  # step ids sent, in order

    @property
    def model(self) -> FloorModel:
        return self.source.model

    @property
    def subject(self) -> str:
        """The drilled subject: the machine, table, cashier, person... the attempt is about."""
        return self.machine

    def wait_for_trigger(self) -> None:
        """Run the world fast until the drill's situation arises."""
        spec = self.spec
        if spec.trigger_kind == "start":
            self.started_t = self.source.t
            return
        seen: list[Mapping[str, Any]] = []
        playing: dict[str, str] = {}  # machine -> the patron whose session is in progress
        casino = self.casino

        class Watch:
            def accept(self, rec: Any) -> None:
                if rec.kind == "session_started":
                    playing[rec.machine] = rec.patron
                elif rec.kind == "patron_left" and playing.get(rec.machine) == rec.patron:
                    del playing[rec.machine]
                if rec.kind == spec.trigger_kind and not seen:
                    doc = rec.payload()
                    matches = all(doc.get(k) == v for k, v in spec.trigger_match.items())
                    where = str(doc.get(spec.subject, ""))
                    patron = playing.get(where, "")
                    if (
                        matches
                        and (not spec.machine or where == spec.machine)
                        and (patron or not spec.trigger_patron_playing)
                    ):
                        seen.append({**doc, "t": rec.t, "playing": patron})

            def close(self) -> None:
                pass

        casino.attach(Watch())
        while not seen and self.source.t < casino.end:
            StepDriver.to(casino, min(casino.end, self.source.t + 60.0))
        if not seen:
            raise InputError(
                spec.path,
                "trigger",
                f"a {spec.trigger_kind} record within the drill's {spec.hours:g} hours",
                "none happened",
            )
        trig = seen[0]
        self.trigger_doc = dict(trig)
        self.started_t = float(trig["t"])
        self.machine = str(trig.get(spec.subject, "")) or self.machine
        self.trigger_job = str(trig.get("job_id", ""))
        self.patron = str(trig.get("playing", ""))

    # -- the operator's steps (keyboard/mouse -> inbox) ----------------------------------------
    def command_for(self, step: Step) -> Command | None:
        m = self.machine
        if step.command not in ("note", "open_door", "close_door", "assign_job"):
            return self._department_command(step)
        if step.command == "note":
            return Note(f"drill {self.spec.id}: {step.id}: {step.text}")
        if step.command == "open_door":
            return OpenDoor(m, step.door, "operator")
        if step.command == "close_door":
            return CloseDoor(m, step.door, "operator")
        jobs = [
            j
            for j in self.model.jobs.values()
            if j.machine == m and j.mode == "operator" and (not step.job or j.kind == step.job)
        ]
        job = min(jobs, key=lambda j: (j.t, j.id)) if jobs else None
        if job is None:
            # nothing waits: send what was asked anyway, the floor refuses it (and says why)
            return AssignJob(self.trigger_job or "JOB-none", {})
        members: dict[str, str] = {}
        for role in job.roles:
            idle = self.model.idle_staff(role)
            members[role] = idle[0] if idle else ""
        return AssignJob(job.id, members)

    def _department_command(self, step: Step) -> Command:
        """A department's command: its arguments from the trigger record's fields of the same
        names, the step's ``args``, and someone on duty of each ``staff`` role."""
        cls = commands()[step.command]
        names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
        args = {n: self.trigger_doc[n] for n in names if n in self.trigger_doc}
        args.update(step.args)
        for name, role in step.staff.items():
            on = sorted(m for m, r in self.model.on_duty.items() if r == role)
            args[name] = on[0] if on else ""
        return parse_command(step.command, args)

    def perform(self, index: int) -> None:
        """The operator performs step ``index`` (0-based): its command goes into the inbox."""
        if self.score is not None or not 0 <= index < len(self.spec.steps):
            return
        step = self.spec.steps[index]
        cmd = self.command_for(step)
        if cmd is not None:
            self.source.put(cmd)
            self.done.append(step.id)

    def wait(self, seconds: float) -> None:
        """Let ``seconds`` of simulated time pass (a scripted attempt; the viewer paces)."""
        StepDriver.to(self.casino, min(self.casino.end, self.source.t + seconds))

    def finish(self) -> Score:
        """Close the run and score the attempt from its ledger; save the score."""
        if self.score is not None:
            return self.score
        self.source.close()
        self.score = score(self.spec, self.folder / "ledger.sqlite", self.started_t, self.subject)
        (self.folder / "score.json").write_text(json.dumps(self.score.to_json(), indent=2) + "\n")
        return self.score


def start_attempt(spec: DrillSpec, *, out: Path | None = None) -> Attempt:
    """The drill's world, run until its situation arises, ready for the operator."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
    folder = out if out is not None else Path("out") / "drills" / f"{spec.id}-{stamp}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "ledger.sqlite"
    if path.exists():
        path.unlink()
    sc = api.prepare(spec.scenario, seed=spec.seed, hours=spec.hours, overrides=spec.settings)
    casino = Casino(sc)
    casino.bus.cut_every(BOUNDARY_SECONDS)  # live: each finding a batch after it is found
    ledger = Ledger(path, meta={**api.ledger_meta(sc), "drill": spec.id})
    casino.attach(ledger)
    layout = [(m.id, m.spec.bank, m.spec.zone) for m in casino.machines]
    model = FloorModel(casino.world.clock, layout)
    source = LiveSource(casino, model, factor=spec.speed, ledger=ledger)
    attempt = Attempt(spec, casino, source, folder)
    attempt.wait_for_trigger()
    if not attempt.machine:
        what = "the machine" if spec.subject == "machine" else f"the {spec.subject}"
        raise InputError(spec.path, f"trigger.{spec.subject}", f"{what} the drill is about", "none")
    return attempt


# -- scoring, from the attempt's ledger ----------------------------------------------------------

_NOTE = re.compile(r"^drill (?P<drill>[^:]+): (?P<step>[^:]+):")


def _titles() -> dict[str, str]:
    from twin.compliance.catalog import load_catalog

    return {cid: c.title for cid, c in load_catalog().controls.items()}


def score(spec: DrillSpec, ledger: Path, started_t: float, machine: str) -> Score:
    """Score an attempt from its ledger alone (see the module docstring).

    Only the trainee's acts count: their own commands, and what happened to the drilled
    subject (``machine``: the machine, or whatever the trigger record's field
    ``spec.subject`` names: a table, a cage window's cashier, a person...) in the drilled
    episode, from the trigger to the next time the same situation arises on that subject
    (the end of the ledger if it does not). Findings about anything else (another machine's
    jackpot, a later episode) are listed in ``shown``, never deducted.
    """
    about = spec.subject
    titles = _titles()
    wanted = {"command_accepted", "command_rejected", "finding", *(o.kind for o in spec.outcomes)}
    if spec.trigger_kind != "start":
        wanted.add(spec.trigger_kind)
    first_seq: int | None = None
    docs: list[tuple[int, dict[str, Any]]] = []
    for seq, t, kind, body in read_rows(ledger):
        if t < started_t:
            continue
        doc = json.loads(body) if kind in wanted else None
        if doc is not None and kind == "finding" and doc.get("found_t", t) < started_t:
            continue  # found before the drill began (numbered after: issue 31)
        if first_seq is None:
            first_seq = seq
        if doc is not None:
            docs.append((seq, doc))
    end_seq = _episode_end(spec, docs, machine)
    episode = range(first_seq if first_seq is not None else 0, end_seq)
    mistakes: list[Mistake] = []
    shown: list[Mistake] = []
    steps = list(spec.steps)
    performed: list[tuple[int, float, int]] = []  # step index, t, seq of its command
    taken: set[int] = set()
    mine: set[int] = set()  # seqs of the trainee's commands
    for seq, d in docs:
        if d["kind"] not in ("command_accepted", "command_rejected") or d["source"] != "operator":
            continue
        mine.add(seq)
        args = json.loads(d["args"])
        if d["kind"] == "command_rejected":
            mistakes.append(
                Mistake("refused", f"{d['command']} refused by the floor: {d['reason']}", "-")
            )
            continue
        index = _match_step(steps, taken, d["command"], args, spec.id)
        if index is not None:
            taken.add(index)
            performed.append((index, float(d["t"]), seq))
    # the records each outcome asks for, on the drilled machine, in the drilled episode
    done_at: dict[str, int] = {}
    done_t: dict[str, float] = {}
    for o in spec.outcomes:
        hits = [
            (seq, float(d["t"]))
            for seq, d in docs
            if seq in episode
            and d["kind"] == o.kind
            and d.get(about) == machine
            and all(d.get(k) == v for k, v in o.match.items())
        ]
        if hits:
            done_at[o.id], done_t[o.id] = hits[0]
    highest = -1
    for index, _t, seq in performed:
        s = steps[index]
        if index < highest:
            mistakes.append(
                Mistake(
                    "order",
                    f"'{s.text}' was done after '{steps[highest].text}'",
                    s.clause,
                    titles.get(s.clause, ""),
                )
            )
        highest = max(highest, index)
        for oid in s.after:
            if done_at.get(oid, end_seq) > seq:
                o = next(o for o in spec.outcomes if o.id == oid)
                mistakes.append(
                    Mistake(
                        "order",
                        f"'{s.text}' was done before '{o.text}'",
                        s.clause,
                        titles.get(s.clause, ""),
                    )
                )
    for i, s in enumerate(steps):
        if i not in taken:
            mistakes.append(
                Mistake("missed", f"'{s.text}' was not done", s.clause, titles.get(s.clause, ""))
            )
    for o in spec.outcomes:
        if o.id not in done_at:
            mistakes.append(
                Mistake("outcome", f"{o.text}: not done", o.clause, titles.get(o.clause, ""))
            )
    for _seq, d in docs:
        if d["kind"] == "finding":
            control = str(d["control"])
            found = Mistake("finding", str(d["message"]), control, titles.get(control, ""))
            evidence = [int(e) for e in d.get("evidence", ())]
            ours = any(e in mine for e in evidence) or (
                machine in d.get("subjects", ())
                and (not evidence or any(e in episode for e in evidence))
            )
            (mistakes if ours else shown).append(found)
    last = max((t for _i, t, _s in performed), default=started_t)
    taken_s = last - started_t
    waited_s = _waited_for_the_floor(spec, performed, done_at, done_t, started_t)
    own_s = taken_s - waited_s
    if own_s > spec.time_limit_s:
        waiting = f" ({waited_s / 60:.1f} more waiting for the floor)" if waited_s > 0 else ""
        mistakes.append(
            Mistake(
                "late",
                f"took {own_s / 60:.1f} minutes{waiting}, the limit is "
                f"{spec.time_limit_s / 60:.0f}",
                "-",
            )
        )
    points = max(0, 100 - sum(PENALTY[m.what] for m in mistakes))
    failing = {"missed", "order", "outcome", "finding", "late"}
    return Score(
        drill=spec.id,
        passed=not any(m.what in failing for m in mistakes),
        points=points,
        steps_done=tuple(steps[i].id for i, _t, _s in performed),
        mistakes=tuple(mistakes),
        started_t=started_t,
        time_taken_s=taken_s,
        time_limit_s=spec.time_limit_s,
        ledger=str(ledger),
        shown=tuple(shown),
        waited_s=waited_s,
    )


def _waited_for_the_floor(
    spec: DrillSpec,
    performed: Sequence[tuple[int, float, int]],
    done_at: Mapping[str, int],
    done_t: Mapping[str, float],
    started_t: float,
) -> float:
    """The time the trainee could not act because a step waits for the floor: a step that
    must come after an outcome (``after``, e.g. the slip after the payout) could not be done
    before that outcome's record, so the time from the trainee's previous act (or the start)
    to that record is the floor's (the attendant walking, the machine paying), not theirs."""
    waited = 0.0
    previous = started_t
    for index, t, seq in sorted(performed, key=lambda p: p[2]):
        ready = [
            done_t[oid] for oid in spec.steps[index].after if oid in done_at and done_at[oid] < seq
        ]
        if ready:
            waited += max(0.0, min(max(ready), t) - previous)
        previous = t
    return waited


def _episode_end(
    spec: DrillSpec, docs: Sequence[tuple[int, Mapping[str, Any]]], machine: str
) -> int:
    """The seq at which the drilled situation arises again on ``machine`` (the drilled
    episode ends there; past the last seq if it never does, or the drill starts at once)."""
    if spec.trigger_kind == "start":
        return 1 << 62
    again = [
        seq
        for seq, d in docs
        if d["kind"] == spec.trigger_kind
        and d.get(spec.subject) == machine
        and all(d.get(k) == v for k, v in spec.trigger_match.items())
    ]
    return again[1] if len(again) > 1 else 1 << 62


def _match_step(
    steps: Sequence[Step], taken: set[int], command: str, args: Mapping[str, Any], drill: str
) -> int | None:
    if command == "note":
        m = _NOTE.match(str(args.get("text", "")))
        if m is None or m["drill"] != drill:
            return None
        return next((i for i, s in enumerate(steps) if s.id == m["step"] and i not in taken), None)
    free = [i for i, s in enumerate(steps) if s.command == command and i not in taken]
    # of the steps of this command, the first whose given arguments the command has (a report
    # to the police, another to the Board); else the first (a step done with other arguments)
    exact = [i for i in free if all(args.get(k) == v for k, v in steps[i].args.items())]
    return next(iter(exact or free), None)


# -- the drill's screens -----------------------------------------------------------------------

STEP_ROW = 26


class DrillScreen:
    """The drill's panel over the floor view: its steps (keys 1..9 or a click), the timer, and
    the score screen once finished (F)."""

    def __init__(self, attempt: Attempt) -> None:
        self.attempt = attempt
        self.viewer: Viewer | None = None
        self.rows: list[pygame.Rect] = []

    def attach(self, viewer: Viewer) -> None:
        self.viewer = viewer
        viewer.extra = self.draw
        on_floor = self.attempt.machine in viewer.plan.machines  # a machine drill
        if on_floor:
            viewer.selected = self.attempt.machine
        original = viewer.handle

        def handle(ev: pygame.event.Event) -> None:
            if not self.handle(ev):
                original(ev)

        viewer.handle = handle  # type: ignore[method-assign]
        if not on_floor:
            return
        rect = viewer.machine_screen_rect(self.attempt.machine)
        while rect.w < 24 and viewer.zoom < 12:
            viewer.zoom_at(1.25, rect.center)
            rect = viewer.machine_screen_rect(self.attempt.machine)

    def handle(self, ev: pygame.event.Event) -> bool:
        """Take the drill's input; False to let the floor view have it."""
        a = self.attempt
        if ev.type == pygame.KEYDOWN:
            if pygame.K_1 <= ev.key <= pygame.K_9:
                a.perform(ev.key - pygame.K_1)
                return True
            if ev.key == pygame.K_f:
                a.finish()
                return True
        if ev.type == pygame.MOUSEBUTTONDOWN and ev.button == 1:
            for i, row in enumerate(self.rows):
                if row.collidepoint(ev.pos):
                    a.perform(i)
                    return True
        return False

    def draw(self, viewer: Viewer) -> None:
        if self.attempt.score is not None:
            self.draw_score(viewer, self.attempt.score)
        else:
            self.draw_steps(viewer)

    def draw_steps(self, viewer: Viewer) -> None:
        a = self.attempt
        s = viewer.screen
        t = viewer.text
        r = viewer.floor_rect
        h = 96 + STEP_ROW * len(a.spec.steps)
        panel = pygame.Rect(r.x + 10, r.y + 10, 560, h)
        pygame.draw.rect(s, P.PANEL, panel)
        pygame.draw.rect(s, P.PANEL_EDGE, panel, 2)
        x, y = panel.x + 12, panel.y + 8
        y += t.draw(s, f"Drill: {a.spec.title} ({a.spec.procedure})", (x, y), 24, P.TEXT, True)
        elapsed = max(0.0, a.source.t - a.started_t)
        limit = a.spec.time_limit_s
        colour = P.FINDING if elapsed > limit else P.TEXT
        who = f", patron {a.patron}" if a.patron else ""
        y += t.draw(
            s,
            f"{a.spec.subject} {a.machine}{who}   time {elapsed / 60:4.1f} of {limit / 60:.0f} min",
            (x, y),
            20,
            colour,
        )
        y += 6
        self.rows = []
        done = set(a.done)
        for i, step in enumerate(a.spec.steps):
            row = pygame.Rect(x - 4, y, panel.w - 16, STEP_ROW - 2)
            self.rows.append(row)
            ticked = step.id in done
            pygame.draw.rect(s, (232, 244, 238) if ticked else (246, 246, 246), row)
            pygame.draw.rect(s, P.PANEL_EDGE, row, 1)
            mark = "[x]" if ticked else "[ ]"
            t.draw(
                s, f"{i + 1}  {mark}  {step.text}", (x + 2, y + 4), 19, P.TEXT, width=row.w - 120
            )
            t.draw(s, step.clause, (row.right - 112, y + 5), 17, P.MUTED)
            y += STEP_ROW
        t.draw(
            s, "keys 1-9 or click: perform a step    F: finish and score", (x, y + 6), 18, P.MUTED
        )

    def draw_score(self, viewer: Viewer, sc: Score) -> None:
        s = viewer.screen
        t = viewer.text
        w, h = viewer.size
        panel = pygame.Rect(60, 60, w - 120, h - 120)
        pygame.draw.rect(s, P.PANEL, panel)
        pygame.draw.rect(s, P.PANEL_EDGE, panel, 3)
        x, y = panel.x + 24, panel.y + 18
        y += t.draw(s, f"Drill: {self.attempt.spec.title}", (x, y), 34, P.TEXT, True) + 4
        y += t.draw(s, self.attempt.spec.procedure, (x, y), 22, P.MUTED) + 10
        verdict, colour = ("PASSED", P.GOOD) if sc.passed else ("FAILED", P.FINDING)
        t.draw(s, verdict, (x, y), 56, colour, True)
        t.draw(s, f"{sc.points} / 100", (x + 260, y + 6), 48, P.TEXT, True)
        y += 60
        y += (
            t.draw(
                s,
                f"time taken {(sc.time_taken_s - sc.waited_s) / 60:.1f} min "
                f"(limit {sc.time_limit_s / 60:.0f}; {sc.waited_s / 60:.1f} min more waiting "
                f"for the floor)   "
                f"steps done {len(sc.steps_done)} of {len(self.attempt.spec.steps)}",
                (x, y),
                22,
            )
            + 14
        )
        if not sc.mistakes:
            y += t.draw(
                s, "Every step, in order, in time; no finding against you.", (x, y), 24, P.GOOD
            )
        else:
            y += (
                t.draw(s, "What went wrong, and the clause it breaks", (x, y), 24, P.TEXT, True) + 6
            )
        for m in sc.mistakes:
            if y > panel.bottom - 60:
                break
            pygame.draw.rect(s, P.FINDING if m.what != "refused" else P.MUTED, (x, y + 4, 10, 10))
            y += t.draw(s, f"{m.what}: {m.text}", (x + 18, y), 21, P.TEXT, width=panel.w - 60)
            clause = m.clause if not m.title else f"{m.clause}  {m.title}"
            if m.clause == "-":
                clause = "the drill's own rule (no clause)"
            y += t.draw(s, clause, (x + 18, y), 19, P.MUTED, width=panel.w - 60) + 6
        if sc.shown and y <= panel.bottom - 90:
            y += 8
            head = f"Elsewhere on the floor meanwhile: shown, not scored ({len(sc.shown)})"
            y += t.draw(s, head, (x, y), 22, P.MUTED, True) + 4
        for m in sc.shown:
            if y > panel.bottom - 60:
                break
            pygame.draw.rect(s, P.MUTED, (x, y + 4, 10, 10), 1)
            y += t.draw(s, f"{m.text}  [{m.clause}]", (x + 18, y), 19, P.MUTED, width=panel.w - 60)
            y += 2
        t.draw(
            s,
            f"score and ledger saved in {Path(sc.ledger).parent}",
            (x, panel.bottom - 34),
            19,
            P.MUTED,
            width=panel.w - 40,
        )


_KEYS = {**{str(i): pygame.K_1 + i - 1 for i in range(1, 10)}, "f": pygame.K_f}


def play_script(
    attempt: Attempt, script: Sequence[tuple[str, Any]], screen: DrillScreen | None = None
) -> Score:
    """Play a scripted input sequence: ``("key", "1")`` presses a key (through the drill
    screen's input handling when given), ``("wait", seconds)`` lets simulated time pass,
    ``("finish", None)`` ends the attempt (also done at the end)."""
    for what, value in script:
        if what == "wait":
            attempt.wait(float(value))
        elif what == "key":
            key = _KEYS[str(value)]
            if screen is not None:
                screen.handle(pygame.event.Event(pygame.KEYDOWN, key=key, unicode=str(value)))
            else:
                attempt.perform(key - pygame.K_1)
        elif what == "finish":
            break
        else:
            raise ValueError(f"unknown script item {what!r}")
    return attempt.finish()


__all__ = [
    "Attempt",
    "DrillScreen",
    "DrillSpec",
    "Mistake",
    "Score",
    "all_drills",
    "find_drill",
    "load_drill",
    "play_script",
    "score",
    "start_attempt",
]
