"""``twin compare``, ``twin aml`` and ``twin sweep``: studies over many seeded runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from twin.cli.options import run_length, study_options
from twin.errors import InputError


@click.command()
@click.argument("scenario", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--baseline",
    metavar="RULESET_OR_FILE",
    help="Today's rules: a ruleset name or a proposal file (default: the scenario's ruleset).",
)
@click.option(
    "--proposed",
    metavar="RULESET_OR_FILE",
    required=True,
    help="The rules proposed: a ruleset name or a proposal file (see scenarios/proposals/).",
)
@click.option(
    "--replications",
    type=click.IntRange(min=2),
    default=10,
    show_default=True,
    help="Most replications per arm (fewer when the focus KPIs are precise enough).",
)
@click.option(
    "--min-replications",
    type=click.IntRange(min=2),
    help="Fewest replications before the study may stop early (default 5, or --replications "
    "when fewer).",
)
@click.option(
    "--focus",
    "focus_kpis",
    multiple=True,
    metavar="KPI",
    help="Stop early when this KPI's difference is precise enough, see --precision "
    "(repeatable; default: the proposal's [proposal.focus]).",
)
@click.option(
    "--precision",
    type=click.FloatRange(min=0, max=1, min_open=True),
    help="The focus KPIs are precise enough when their interval's half-width is at most this "
    "share of their difference (of 1 % of their level for a difference under 1 % of it; "
    "default: the proposal's, else 0.10).",
)
@run_length
@study_options(
    "paired intervals",
    "Worker processes of a local Dask cluster (default: one per core; 0: in this process).",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="A Dask scheduler to run on instead of a local cluster, e.g. tcp://10.0.0.5:8786.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Report folder (default: out/compare-<scenario>-<proposed>): compare.json, report.html.",
)
@click.option(
    "--independent",
    is_flag=True,
    help="Run the proposed arm on other seeds (no common random numbers), to measure what "
    "the pairing gains.",
)
@click.option(
    "--operators",
    type=click.Choice(["adapt", "keep"]),
    default="adapt",
    show_default=True,
    help="Under the proposal the operators adapt their procedures to the new law (the cost "
    "of the rule), or keep today's (the compliance gap on the day the rule changes: which "
    "controls find what).",
)
@click.option("--force", is_flag=True, help="Replace a study already in --out.")
@click.option("--json", "as_json", is_flag=True, help="Print compare.json to stdout.")
def compare(
    scenario: Path | None,
    baseline: str | None,
    proposed: str,
    replications: int,
    min_replications: int | None,
    focus_kpis: tuple[str, ...],
    precision: float | None,
    seed: int | None,
    hours: float | None,
    days: float | None,
    confidence: float,
    workers: int | None,
    scheduler: str | None,
    out_dir: Path | None,
    independent: bool,
    operators: str,
    force: bool,
    as_json: bool,
) -> None:
    """Run SCENARIO under two rulesets with common random numbers and compare them.

    Replication i of both arms shares every random stream (seed root + i), so each KPI's
    and each control's difference comes with a paired confidence interval. Replications run
    on Dask (a local cluster, or --scheduler); a failed one is retried once, then reported.
    Exit 0, 1 when a replication failed twice, 2 on invalid input.
    """
    from twin import api
    from twin.experiments.arms import Focus, check_on, kept_policies, load_arm
    from twin.experiments.compare import Plan
    from twin.experiments.compare import compare as run_study
    from twin.experiments.report import render_html, render_text, to_json
    from twin.outputs import RunFolder

    if hours is not None and days is not None:
        raise InputError("command line", "--hours/--days", "at most one of them", "both")
    if workers is not None and scheduler is not None:
        raise InputError("command line", "--workers/--scheduler", "at most one of them", "both")
    if min_replications is None:
        min_replications = min(5, replications)
    elif min_replications > replications:
        raise InputError("command line", "--min-replications",
                         f"at most --replications ({replications})", min_replications)  # fmt: skip
    path = (api.resolve(scenario) if scenario is not None else api.default_scenario()).resolve()
    if not path.is_file():
        raise InputError(path, "", "a scenario file", "no such file")
    sc = api.prepare(path)
    arm_b = load_arm(baseline if baseline is not None else sc.ruleset.name, "baseline")
    arm_p = load_arm(proposed, "proposed")
    span = days * 24.0 if days is not None else hours
    for arm in (arm_b, arm_p):  # both arms valid on this floor before anything runs
        check_on(path, arm, span)
    focus = arm_p.focus or arm_b.focus
    if focus_kpis:
        focus = Focus(tuple(focus_kpis), focus.relative_precision if focus else 0.10)
    if focus is not None and precision is not None:
        focus = Focus(focus.kpis, precision)
    if focus is not None:
        from twin.experiments.replication import KPIS, is_kpi

        for k in focus.kpis:
            if not is_kpi(k):
                where = "--focus" if focus_kpis else f"{arm_p.source}: proposal.focus.kpis"
                raise InputError(where, "", "a KPI (" + ", ".join(KPIS)
                                 + ", findings.<control id>, or <department>.<key> of a "
                                 "department's KPIs)", k)  # fmt: skip
    label = Path(arm_p.source).stem if arm_p.source != arm_p.ruleset else arm_p.ruleset
    out = out_dir or Path("out") / f"compare-{sc.scenario.name}-{label}"
    folder = RunFolder(out, replace=force, guard="compare.json")
    plan = Plan(
        scenario=str(path),
        baseline=arm_b,
        proposed=arm_p,
        replications=replications,
        root_seed=seed if seed is not None else sc.seed,
        hours=span,
        min_replications=min_replications,
        confidence=confidence,
        focus=focus,
        independent=independent,
        operators=operators,
        kept=tuple(kept_policies(path, arm_b, span)) if operators == "keep" else (),
    )

    from twin.compliance.ruleset import load_ruleset

    cur = load_ruleset(sc.ruleset.name, sc.ruleset.overrides, source=str(path)).jurisdiction
    cur_code = cur.floor_currency

    def show(ev: dict[str, Any]) -> None:
        what = f"failed: {ev['failed']}" if "failed" in ev else f"{ev['wall_seconds']:.1f} s"
        line = (f"twin: {ev['arm']} replication {ev['index']} (seed {ev['seed']}) {what}; "
                f"{ev['pairs_done']} of at most {ev['of']} pairs")  # fmt: skip
        so = ev.get("so_far")
        if so is not None:  # the focus KPI so far, in its words and unit
            from twin.experiments.words import label, with_unit

            k = so["kpi"]
            line += (f"; {label(k).noun} {with_unit(k, so['difference'], cur_code, signed=True)} ± "
                     f"{with_unit(k, so['half_width'], cur_code)} (n={so['n']})")  # fmt: skip
        click.echo(line, err=True)

    work = folder.open()
    try:
        result = run_study(plan, workers=workers, scheduler=scheduler, progress=show)
        doc = to_json(result)
        (work / "compare.json").write_text(json.dumps(doc, indent=2) + "\n")
        (work / "report.html").write_text(render_html(result), encoding="utf-8")
    except BaseException as exc:
        folder.interrupted(f"{type(exc).__name__}: {exc}")
        raise
    folder.commit()
    if as_json:
        click.echo(json.dumps(doc, indent=2))
    else:
        click.echo(render_text(result), nl=False)
        click.echo(f"twin: wrote {out}/compare.json and {out}/report.html", err=True)
    if result.failures:
        sys.exit(1)


@click.command()
@click.argument("scenario", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--proposed",
    metavar="RULESET_OR_FILE",
    multiple=True,
    help="Rules proposed, to run beside today's: a ruleset name or a proposal file (see "
    "scenarios/proposals/aml-gaming-day.toml); repeatable.",
)
@click.option(
    "--replications",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Seeds per arm (root seed, root + 1, ...).",
)
@run_length
@study_options("exact intervals", "Worker processes (default: one per core; 0: in this process).")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Report folder (default: out/aml-<scenario>[-<proposed>]): aml.json, aml.md.",
)
@click.option("--force", is_flag=True, help="Replace a study already in --out.")
@click.option("--json", "as_json", is_flag=True, help="Print aml.json to stdout.")
def aml(
    scenario: Path | None,
    proposed: tuple[str, ...],
    replications: int,
    seed: int | None,
    hours: float | None,
    days: float | None,
    confidence: float,
    workers: int | None,
    out_dir: Path | None,
    force: bool,
    as_json: bool,
) -> None:
    """Measure which money-laundering strategies the rules catch (Malta regs 45-51).

    Runs SCENARIO (default scenarios/aml.toml) on --replications seeds, under today's rules
    and, with --proposed (repeatable), under each proposal too (the same seeds). For each laundering
    strategy of the scenario's [[aml.launderers]]: the share of launderers reported to the
    police, with its exact interval, and the median hours from the first act to that report;
    and the share of honest patrons reported (false reports). Exit 2 on invalid input.
    """
    from twin import api
    from twin.experiments.aml_study import detection_study, render_text
    from twin.experiments.arms import check_on, load_arm
    from twin.outputs import RunFolder

    if hours is not None and days is not None:
        raise InputError("command line", "--hours/--days", "at most one of them", "both")
    default = Path(__file__).resolve().parents[1] / "data" / "scenarios" / "aml.toml"
    path = (scenario if scenario is not None else default).resolve()
    if not path.is_file():
        raise InputError(path, "", "a scenario file", "no such file")
    sc = api.prepare(path)
    if sc.aml is None or not sc.aml.launderers:
        raise InputError(path, "aml.launderers", "an [aml] section with launderers",
                         "none")  # fmt: skip
    arms = [load_arm(sc.ruleset.name, "today")]
    for n, spec in enumerate(proposed, start=1):
        arms.append(load_arm(spec, "proposed" if len(proposed) == 1 else f"proposed {n}"))
    span = days * 24.0 if days is not None else hours
    for arm in arms:  # every arm valid on this floor before anything runs
        check_on(path, arm, span)
    label = "".join("-" + Path(a.source).stem for a in arms[1:])
    out = out_dir or Path("out") / f"aml-{sc.scenario.name}{label}"
    folder = RunFolder(out, replace=force, guard="aml.json")
    work = folder.open()
    try:
        study = detection_study(
            path, arms, replications=replications,
            seed=seed if seed is not None else sc.seed, hours=span, confidence=confidence,
            workers=workers, progress=lambda line: click.echo(f"twin: {line}", err=True),
        )  # fmt: skip
        doc = study.to_json()
        text = render_text(study)
        (work / "aml.json").write_text(json.dumps(doc, indent=2) + "\n")
        (work / "aml.md").write_text(text, encoding="utf-8")
    except BaseException as exc:
        folder.interrupted(f"{type(exc).__name__}: {exc}")
        raise
    folder.commit()
    if as_json:
        click.echo(json.dumps(doc, indent=2))
    else:
        click.echo(text, nl=False)
        click.echo(f"twin: wrote {out}/aml.json and {out}/aml.md", err=True)


@click.command()
@click.argument("scenario", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--grid",
    "grid_file",
    required=True,
    metavar="FILE",
    help="The grid: [sweep] title, ruleset, and [sweep.grid] key = [values] (every combination).",
)
@click.option(
    "--kpi",
    "kpis",
    multiple=True,
    metavar="KPI",
    help="A KPI to tabulate (repeatable; default theo_win_cents, theo_hold_percent, findings).",
)
@click.option(
    "--replications",
    type=click.IntRange(min=2),
    default=5,
    show_default=True,
    help="Seeds per grid point (root seed, root + 1, ...), the same at every point.",
)
@run_length
@click.option(
    "--confidence",
    type=click.FloatRange(min=0.5, max=1, max_open=True),
    default=0.95,
    show_default=True,
    help="Confidence of each mean's interval and each paired difference's.",
)
@click.option("--workers", type=click.IntRange(min=0), help="Local Dask worker processes.")
@click.option("--scheduler", metavar="ADDRESS", help="A Dask scheduler instead.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Report folder (default out/sweep-<scenario>-<grid>): sweep.json, report.html.",
)
@click.option("--force", is_flag=True, help="Replace a sweep already in --out.")
@click.option("--json", "as_json", is_flag=True, help="Print sweep.json to stdout.")
def sweep(
    scenario: Path | None,
    grid_file: str,
    kpis: tuple[str, ...],
    replications: int,
    seed: int | None,
    hours: float | None,
    days: float | None,
    confidence: float,
    workers: int | None,
    scheduler: str | None,
    out_dir: Path | None,
    force: bool,
    as_json: bool,
) -> None:
    """Run SCENARIO at every point of a grid of ruleset values (common random numbers).

    Each point reports every KPI's mean with its interval and its paired difference from
    the first point. Exit 0, 1 when a replication failed twice, 2 on invalid input.
    """
    from twin import api
    from twin.experiments.arms import check_on
    from twin.experiments.replication import KPIS, Observation, Task, is_kpi
    from twin.experiments.sweep import load_grid, render_html, render_text, to_json
    from twin.experiments.sweep import sweep as run_sweep
    from twin.outputs import RunFolder

    if hours is not None and days is not None:
        raise InputError("command line", "--hours/--days", "at most one of them", "both")
    if workers is not None and scheduler is not None:
        raise InputError("command line", "--workers/--scheduler", "at most one of them", "both")
    for k in kpis:
        if not is_kpi(k):
            raise InputError("--kpi", "", "a KPI (" + ", ".join(KPIS)
                             + ", findings.<control id>, or <department>.<key> of a "
                             "department's KPIs)", k)  # fmt: skip
    shown = kpis or ("theo_win_cents", "theo_hold_percent", "findings")
    path = (api.resolve(scenario) if scenario is not None else api.default_scenario()).resolve()
    if not path.is_file():
        raise InputError(path, "", "a scenario file", "no such file")
    sc = api.prepare(path)
    grid = load_grid(grid_file)
    span = days * 24.0 if days is not None else hours
    for arm in grid.points:
        check_on(path, arm, span)
    out = out_dir or Path("out") / f"sweep-{sc.scenario.name}-{Path(grid_file).stem}"
    folder = RunFolder(out, replace=force, guard="sweep.json")
    total = len(grid.points) * replications

    def show(task: Task, got: Observation | Any, done: int) -> None:
        what = (
            f"{got.wall_seconds:.1f} s" if isinstance(got, Observation) else f"failed: {got.error}"
        )
        click.echo(f"twin: [{task.arm}] replication {task.index} (seed {task.seed}) {what}; "
                   f"{done} of {total}", err=True)  # fmt: skip

    work = folder.open()
    try:
        result = run_sweep(str(path), grid, replications=replications,
                           root_seed=seed if seed is not None else sc.seed, hours=span,
                           confidence=confidence, workers=workers, scheduler=scheduler,
                           progress=show)  # fmt: skip
        doc = to_json(result)
        (work / "sweep.json").write_text(json.dumps(doc, indent=2) + "\n")
        (work / "report.html").write_text(render_html(result, shown), encoding="utf-8")
    except BaseException as exc:
        folder.interrupted(f"{type(exc).__name__}: {exc}")
        raise
    folder.commit()
    if as_json:
        click.echo(json.dumps(doc, indent=2))
    else:
        click.echo(render_text(result, shown), nl=False)
        click.echo(f"twin: wrote {out}/sweep.json and {out}/report.html", err=True)
    if result.failures:
        sys.exit(1)
