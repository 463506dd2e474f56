"""The run API: one call runs a scenario and returns a typed result.

``twin.api.run(scenario, seed=..., overrides=..., sinks=..., driver=...)`` is what the CLI,
the benchmarks and the experiments call. Everything is validated before t = 0 (scenario,
overrides, games, injections, and the output folder) and before anything is written. With
``out``, the ledger, findings and summary are written through :class:`twin.outputs.RunFolder`
(a complete folder or one that says it is incomplete, never a mixed one). Everything a run
needs pickles, so runs can go to worker processes.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from twin.casino import Casino
from twin.commands import CommandAccepted, CommandRejected, parse_command
from twin.compliance.verdicts import totals
from twin.departments import Scenario, load_scenario
from twin.drivers import Driver, PacedDriver
from twin.errors import InputError
from twin.injections import InjectionLog
from twin.ledger import HashChain, Ledger
from twin.metrics import Kpis, MachineSummary, Metrics
from twin.outputs import LEDGER, RunFolder
from twin.overrides import parse_assignment
from twin.patrons.census import PopulationSummary
from twin.records import Record, Sink
from twin.scenario import with_settings
from twin.signals import Interrupted, deferred
from twin.sinkproc import SinkProcess

Overrides = Mapping[str, Any] | Iterable[str | tuple[str, Any]]


@dataclass(frozen=True, slots=True)
class ComplianceSummary:
    ruleset: str
    overridden: Mapping[str, Any]
    controls_checked: int
    #: the ruleset's controls in the catalog, and how many of them a checker implements
    controls_catalogued: int
    controls_implemented: int
    findings: int
    warnings: int
    by_control: Mapping[str, int]
    wall_seconds: float
    share_of_run: float | None
    #: how many of the regulation's catalogued controls have each verdict (the five add up
    #: to ``controls_catalogued``), and each control's verdict (twin.compliance.verdicts)
    verdict_counts: Mapping[str, int] = field(default_factory=dict)
    verdicts: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RunResult:
    """Everything a reader of a run needs first; amounts in integer cents."""

    scenario: str
    seed: int
    ruleset: str
    currency: str
    start: str
    end: str
    sim_seconds: float
    records: int
    ledger_sha256: str | None
    wall_seconds: float
    kpis: Kpis
    compliance: ComplianceSummary | None
    machines: Mapping[str, MachineSummary]
    population: PopulationSummary | None = None
    findings: tuple[Mapping[str, Any], ...] = ()
    out: str | None = None
    #: every injection command and what became of it (``applied``, ``rejected``, or ``never
    #: took effect`` with the reason), in the order they came in
    injections: tuple[Mapping[str, Any], ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """The JSON document written as ``summary.json``."""
        kpis = self.kpis.to_dict()
        doc: dict[str, Any] = {
            "scenario": self.scenario,
            "seed": self.seed,
            "ruleset": self.ruleset,
            "currency": self.currency,
            "start": self.start,
            "end": self.end,
            "sim_seconds": self.sim_seconds,
            "records": self.records,
            "ledger_sha256": self.ledger_sha256,
            "wall_seconds": round(self.wall_seconds, 3),
            "kpis": kpis,
            "population": None if self.population is None else asdict(self.population),
            "compliance": None,
            "injections": [dict(i) for i in self.injections],
            "machines": {
                mid: {
                    "game": m.game,
                    "denomination_cents": m.denomination_cents,
                    "meters": dict(m.meters),
                    "hopper_level": m.hopper_level,
                    "downtime_seconds": round(m.downtime_seconds, 3),
                }
                for mid, m in self.machines.items()
            },
        }
        if self.compliance is not None:
            c = self.compliance
            doc["compliance"] = {
                "ruleset": c.ruleset,
                "overridden": dict(c.overridden),
                "controls_checked": c.controls_checked,
                "controls_catalogued": c.controls_catalogued,
                "controls_implemented": c.controls_implemented,
                "findings": c.findings,
                "warnings": c.warnings,
                "by_control": dict(c.by_control),
                "verdict_counts": dict(c.verdict_counts),
                "verdicts": {k: dict(v) for k, v in c.verdicts.items()},
                "wall_seconds": round(c.wall_seconds, 3),
                "share_of_run": c.share_of_run,
            }
        if self.out is not None:
            doc["out"] = self.out
        return doc


def default_scenario() -> Path:
    """The default scenario: ``scenarios/default.toml`` here, else the packaged one."""
    local = Path.cwd() / "scenarios" / "default.toml"
    if local.is_file():
        return local
    packaged = Path(str(resources.files("twin") / "data" / "scenarios" / "default.toml"))
    if packaged.is_file():
        return packaged
    repo = Path(__file__).resolve().parent.parent / "scenarios" / "default.toml"
    if repo.is_file():
        return repo
    raise InputError("scenarios/default.toml", "", "the default scenario file", "no such file")


def shipped_dir(kind: str = "") -> Path:
    """The folder of the files shipped inside the package: scenarios (``kind`` ""), PAR
    sheets ("games") or table games ("tables")."""
    base = Path(str(resources.files("twin") / "data" / "scenarios"))
    return base / kind if kind else base


def shipped(kind: str = "") -> dict[str, Path]:
    """The shipped files of ``kind`` by name (``default``, ``tiny``... ``video-5reel``...)."""
    folder = shipped_dir(kind)
    return {p.stem: p for p in sorted(folder.glob("*.toml"))} if folder.is_dir() else {}


def resolve(arg: str | Path, kind: str = "") -> Path:
    """A file the user named: a path to it, or the name of a shipped one (``twin run
    singapore``, ``twin par video-5reel``), from any folder after any install. A path that
    exists wins; a bare name that is no file but a shipped name is the shipped file; anything
    else is returned as given (the loader then names it as not found)."""
    path = Path(arg)
    if path.exists():
        return path
    text = str(arg)
    name = text.removesuffix(".toml")
    if "/" not in text and "\\" not in text:
        names = shipped(kind)
        got = names.get(name)
        if got is not None:
            return got
        if names and not text.endswith(".toml"):  # a bare word: a name mistyped
            what = {"": "scenario", "games": "PAR sheet", "tables": "table game"}[kind]
            raise InputError(text, "", f"a {what} file or the name of a shipped one ("
                             + ", ".join(names) + ")", "neither")  # fmt: skip
    return path


def settings(overrides: Overrides) -> list[tuple[str, Any]]:
    """Overrides as ``(path, value)`` pairs: a mapping, pairs, or ``"KEY=VALUE"`` strings."""
    if isinstance(overrides, Mapping):
        return list(overrides.items())
    out: list[tuple[str, Any]] = []
    for item in overrides:
        out.append(parse_assignment(item) if isinstance(item, str) else item)
    return out


def prepare(
    scenario: Scenario | str | Path | None = None,
    *,
    seed: int | None = None,
    hours: float | None = None,
    overrides: Overrides = (),
) -> Scenario:
    """The validated scenario a run would use (overrides, seed and duration applied)."""
    pairs = settings(overrides)
    if seed is not None:
        pairs.append(("scenario.seed", seed))
    if hours is not None:
        pairs.append(("scenario.duration_hours", float(hours)))
    if isinstance(scenario, Scenario):
        return with_settings(scenario, pairs)
    path = default_scenario() if scenario is None else resolve(scenario)
    return load_scenario(path, pairs)


#: The record bus's batches in a run with hardware (paced by the wall clock): its findings are
#: numbered within about two simulated seconds of being found (issue 31).
HARDWARE_BOUNDARY_SECONDS = 1.0


def run(
    scenario: Scenario | str | Path | None = None,
    *,
    seed: int | None = None,
    hours: float | None = None,
    overrides: Overrides = (),
    sinks: Sequence[Sink] = (),
    driver: Driver | None = None,
    engine: Literal["batched", "per_spin"] = "batched",
    compliance: bool = True,
    out: str | Path | None = None,
    replace: bool = False,
    chain: bool = True,
    replay: Iterable[Record] | None = None,
    hardware: str | None = None,
    hardware_ca: str | None = None,
    on_hardware_lines: Callable[[list[str]], None] | None = None,
    hardware_resume: str | Path | None = None,
    sink_process: bool = False,
    on_committed: Callable[[Path], None] | None = None,
) -> RunResult:
    """Run a scenario to its end and return the typed result.

    ``out``: write ``ledger.sqlite``, ``findings.json`` and ``summary.json`` there (an
    existing ledger is replaced only with ``replace``). Without ``out``, ``chain`` computes
    the ledger head in memory (the same head the ledger would have). ``replay``: the records
    of an earlier run of the same scenario and seed, whose commands are applied again at the
    times they were applied then (``replay_commands``). ``hardware``: the broker URL
    (``mqtt://[user:password@]host:port``) of the SMIBs the scenario's ``[[hardware]]``
    binds; the run is then paced against the wall clock (``on_hardware_lines`` receives each
    SMIB's status line every second). ``hardware_resume``: the folder (or ledger) of an
    earlier run of the twin with the same SMIBs; the link asks each for what came after the
    last event that run applied or declared lost (docs/smib-protocol.md, twin restart).
    ``sink_process``: the compliance checks and the ledger run in a second process, so the
    run uses two cores (issue 31; the same records and ledger head); not with ``hardware``
    (forking a process whose link threads run is unsafe). ``on_committed``: called with the
    finished folder as it is put in place (signals deferred: a stop after the run finds it
    told; the CLI's "interrupted after the run was complete").
    """
    sc = prepare(scenario, seed=seed, hours=hours, overrides=overrides)
    resume = _resume_points(hardware, hardware_resume)  # before `out` may be replaced
    # the output folder is checked before the casino is built (issue 33: `--out ..` used to
    # fail only after the whole run)
    folder = RunFolder(Path(out), replace=replace) if out is not None else None
    metrics = Metrics()
    injections = InjectionLog()
    if sink_process and hardware is not None:
        raise ValueError("a sink process forks the run: not with the hardware link's threads")
    casino = Casino(
        sc, sinks=[metrics, injections, *sinks], engine=engine, compliance=compliance,
        attach_checks=not sink_process,
    )  # fmt: skip
    session = _connect_hardware(casino, hardware, hardware_ca, on_hardware_lines, resume)
    if session is not None:  # a live link: the checks' findings within seconds, not minutes
        casino.bus.cut_every(HARDWARE_BOUNDARY_SECONDS)
    if session is not None and driver is None:
        driver = PacedDriver(1.0)
    try:
        return _run(
            casino, sc, metrics, injections, driver, folder, chain, replay, sink_process,
            on_committed,
        )  # fmt: skip
    finally:
        if session is not None:
            session.stop()


def _run(
    casino: Casino,
    sc: Scenario,
    metrics: Metrics,
    injections: InjectionLog,
    driver: Driver | None,
    folder: RunFolder | None,
    chain: bool,
    replay: Iterable[Record] | None,
    sink_process: bool = False,
    on_committed: Callable[[Path], None] | None = None,
) -> RunResult:
    ledger: Ledger | None = None
    hasher: HashChain | None = None
    far: SinkProcess | None = None
    done = False  # the finished run is in place
    ending = False  # the model ran to its end; its files are being written
    try:
        if sink_process:  # the checks and the ledger in a second process (issue 31)
            with deferred():  # a side folder always has its marker and its ledger
                path = folder.open() / LEDGER if folder is not None else None
                far = SinkProcess.attached(casino, ledger=path, meta=ledger_meta(sc), chain=chain)
        elif folder is not None:
            with deferred():  # a side folder always has its marker and its ledger
                work = folder.open()
                ledger = Ledger(work / LEDGER, meta=ledger_meta(sc))
            casino.attach(ledger)
        elif chain:
            hasher = HashChain()
            casino.attach(hasher)
        if replay is not None:
            replay_commands(casino, replay)
        outcome = casino.run(driver=driver)
        ending = True
        if far is not None:
            head = far.flush()
        else:
            head = ledger.head if ledger is not None else (hasher.head if hasher else None)
        result = _result(casino, metrics, outcome.records, head, outcome.sim_seconds)
        result = dataclasses.replace(result, injections=injections.report())
        if folder is None:
            if far is not None:
                far.close()
            return result
        result = _with_out(result, str(folder.out))
        if ledger is not None:
            ledger.flush()
        work = folder.work
        (work / "findings.json").write_text(json.dumps(list(result.findings), indent=2) + "\n")
        (work / "summary.json").write_text(json.dumps(result.summary(), indent=2) + "\n")
        with deferred():  # the ledger is closed only as the folder is put in place
            if far is not None:
                far.close()
            if ledger is not None:
                ledger.close()
            folder.commit()
            done = True
            if on_committed is not None:  # with the commit: no signal comes between them
                on_committed(folder.out)
        return result
    except BaseException as exc:
        stop = exc if isinstance(exc, Interrupted) else None
        if folder is not None and stop is not None:
            stop.out, stop.complete = (folder.out, True) if done else (folder.work, False)
        if far is not None and not done:
            with deferred(raise_pending=False):  # keep what was committed, not closed
                far.abort()
        if folder is not None and (ledger is not None or far is not None) and not done:
            with deferred(raise_pending=False):  # already stopping: the cleanup runs whole
                if ledger is not None:
                    ledger.__exit__(type(exc), exc, None)  # keep what was committed, not closed
                what = stop.describe() if stop is not None else type(exc).__name__
                now = casino.env.now
                when = f"at simulation time {now:.3f} s ({casino.world.clock.iso(now)})"
                if ending:
                    when = f"while writing the run's files, after its end {when}"
                folder.interrupted(f"{what} {when}")
        raise


# -- hardware (issue 8) -----------------------------------------------------------------------


def _connect_hardware(
    casino: Casino,
    url: str | None,
    ca: str | None,
    on_lines: Callable[[list[str]], None] | None,
    resume: dict[str, tuple[int, int]] | None = None,
) -> Any:
    """The running link of a scenario with ``[[hardware]]`` (None without); InputError when
    the scenario and ``url`` do not go together, ConnectionError when the broker is away."""
    source = str(casino.scenario.source_path or "<scenario>")
    if casino.hardware is None:
        if url is not None:
            raise InputError(
                source, "hardware", "[[hardware]] or [[sas]] bindings for --hardware", "none"
            )
        return None
    if url is None:
        raise InputError(
            source, "hardware", "--hardware mqtt://host:port for its SMIBs",
            f"{len(casino.hardware.smibs)} machine(s) bound to SMIBs and no broker",
        )  # fmt: skip
    from twin.hardware.sas.station import check
    from twin.hardware.session import connect  # paho only for a run with hardware

    check(casino.hardware.sas, source)  # issue 30: what the SAS lines need, before t = 0
    try:
        return connect(
            casino.hardware, casino.inbox, url, ca=ca, on_lines=on_lines, resume=resume,
            source=source,
        )  # fmt: skip
    except ValueError as exc:
        raise InputError("--hardware", "", "mqtt://[user:password@]host[:port]", url) from exc


def _resume_points(url: str | None, path: str | Path | None) -> dict[str, tuple[int, int]] | None:
    """Where each SMIB's events resume, read from an earlier run (issue 29)."""
    if path is None:
        return None
    if url is None:
        raise InputError("--resume", "", "--hardware with it (a run of SMIBs)", str(path))
    from twin.hardware.session import resume_from

    return resume_from(path)


# -- end hardware ------------------------------------------------------------------------------


def replay_commands(casino: Casino, records: Iterable[Record]) -> int:
    """Schedule the commands a run's records say came in (except the scenario's own
    injections, which the casino schedules itself), each at the time and in the order it was
    applied, so the run is reproduced. Returns how many were scheduled."""
    casino.start()
    n = 0
    for rec in records:
        if not isinstance(rec, CommandAccepted | CommandRejected) or rec.source == "scenario":
            continue
        cmd = parse_command(rec.command, json.loads(rec.args))
        if rec.t >= casino.end:  # came in as the run ended: delivered by finish()
            casino.inbox.put(cmd, source=rec.source)
        else:
            casino.inbox.schedule(rec.t, cmd, source=rec.source)
        n += 1
    return n


def ledger_meta(sc: Scenario) -> dict[str, str]:
    clock = sc.clock()
    return {
        "scenario": sc.scenario.name,
        "seed": str(sc.seed),
        "scenario_sha256": sc.source_sha256 or "",
        "start": clock.iso(0.0),
        "timezone": sc.timezone,
    }


def _by_control(casino: Casino, checked: dict[str, int], found: list[str]) -> dict[str, int]:
    """Findings per control: every checked control of the catalogue (zero included), then
    the hardware findings a run with ``[[hardware]]`` checks (``HW.*``, zero included), then
    any other control a finding names, so that the counts add up to the findings."""
    got = Counter(found)
    out = dict(checked)
    if casino.hardware is not None:  # issue 8
        out.update({c: got[c] for c in casino.hardware.finding_controls() if c not in out})
    out.update({c: n for c, n in got.items() if c not in out})
    return out


def _with_out(r: RunResult, out: str) -> RunResult:
    return dataclasses.replace(r, out=out)


def _result(
    casino: Casino, metrics: Metrics, records: int, head: str | None, sim_seconds: float
) -> RunResult:
    sc = casino.scenario
    clock = casino.world.clock
    compliance: ComplianceSummary | None = None
    findings: tuple[Mapping[str, Any], ...] = ()
    eng = casino.compliance
    if eng is not None:
        checked = eng.counts()
        counts = _by_control(casino, checked, [f.control for f in eng.findings])
        catalogued, implemented = eng.coverage()
        verdicts = eng.verdicts()
        tally = totals(verdicts)
        compliance = ComplianceSummary(
            ruleset=casino.ruleset.name,
            overridden={k: casino.ruleset.get(k) for k in sorted(casino.ruleset.overridden)},
            # a control with no observation was not checked, whatever it is (issue 25)
            controls_checked=tally["breached"] + tally["checked"],
            controls_catalogued=catalogued,
            controls_implemented=implemented,
            findings=len(eng.findings),
            warnings=sum(1 for f in eng.findings if f.severity == "warning"),
            by_control=counts,
            wall_seconds=eng.wall_seconds,
            share_of_run=round(eng.wall_seconds / casino.wall_seconds, 4)
            if casino.wall_seconds
            else None,
            verdict_counts={str(k): n for k, n in tally.items()},
            verdicts={v.control: v.to_dict() for v in verdicts},
        )
        findings = tuple(eng.findings_json())
    return RunResult(
        scenario=sc.scenario.name,
        seed=sc.seed,
        ruleset=sc.ruleset.name,
        currency=casino.ruleset.jurisdiction.floor_currency,
        start=clock.iso(0.0),
        end=clock.iso(sim_seconds),
        sim_seconds=sim_seconds,
        records=records,
        ledger_sha256=head,
        wall_seconds=casino.wall_seconds,
        kpis=metrics.kpis(sim_seconds),
        compliance=compliance,
        machines=metrics.machines(sim_seconds),
        population=metrics.population(casino.population.size),
        findings=findings,
    )


__all__ = [
    "ComplianceSummary",
    "RunResult",
    "default_scenario",
    "ledger_meta",
    "prepare",
    "replay_commands",
    "run",
    "settings",
]
