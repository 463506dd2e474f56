"""``twin controls`` and ``twin scenarios``: what the package catalogues and ships."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from twin.errors import InputError


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the coverage as JSON.")
@click.option(
    "--parts", is_flag=True, help="Under each implemented control, the parts checked and not."
)
@click.option(
    "--run",
    "run_dir",
    type=click.Path(path_type=Path),
    help="A run's folder (or its summary.json): each control's verdict in that run "
    "(breached, checked with N observations, not exercised and what it needed, not "
    "applicable, not implemented).",
)
def controls(as_json: bool, parts: bool, run_dir: Path | None) -> None:
    """Every catalogued control: implemented (in full or in part), out of scope (why), or not
    yet; with --run, what one run says of each."""
    from twin.compliance.catalog import controls_json, coverage, render_controls_text
    from twin.compliance.registry import registry
    from twin.hardware.findings import CATALOG as HARDWARE  # no MQTT: only what they say

    if run_dir is not None:
        _run_verdicts(run_dir, as_json)
        return
    rows = coverage(registry())
    if as_json:
        doc = controls_json(rows)
        doc["hardware"] = [
            {"id": h.id, "severity": h.severity, "title": h.title, "test": h.test} for h in HARDWARE
        ]
        doc["behaviour"] = behaviour_params()
        click.echo(json.dumps(doc, indent=2))
    else:
        *table, totals = render_controls_text(rows, parts=parts).rstrip("\n").split("\n")
        click.echo("\n".join(table).rstrip("\n"))
        click.echo("\nFindings of the hardware link (SMIBs; not controls of a regulation):")
        width = max(len(h.id) for h in HARDWARE)
        for h in HARDWARE:
            click.echo(f"  {h.id:<{width}}  {h.severity:<7}  {h.title}")
        click.echo(
            "\nRuleset parameters that change behaviour (the operation, not only the verdict;"
            " a rule-change study of any other parameter changes findings only):"
        )
        for b in behaviour_params():
            click.echo(f"  {b['ruleset']}  {b['param']} = {b['value']}  ({b['cite']})")
            click.echo(f"      {b['behaviour']}")
        click.echo(f"\n{totals}")  # last, so `twin controls | tail -1` is the totals


def _run_verdicts(run_dir: Path, as_json: bool) -> None:
    """``twin controls --run``: the verdicts a run's summary.json holds, one line each."""
    from twin.compliance.catalog import load_catalog
    from twin.compliance.verdicts import STATUS_WORDS, VERDICTS, totals_line

    path = run_dir / "summary.json" if run_dir.is_dir() else run_dir
    if not path.is_file():
        found = "no such folder" if not run_dir.exists() else "no summary.json in it"
        raise InputError(str(run_dir), "--run", "a run's folder or its summary.json", found)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        c = doc["compliance"]
        verdicts: dict[str, dict[str, Any]] = c["verdicts"] if c else {}
    except (json.JSONDecodeError, KeyError, TypeError, UnicodeDecodeError):
        raise InputError(str(path), "compliance.verdicts", "a run summary with verdicts "
                         "(written by this version of twin run)", "none") from None  # fmt: skip
    if not verdicts:
        raise InputError(str(path), "compliance", "a run with compliance on", "compliance off")
    if as_json:
        click.echo(json.dumps({"ruleset": c["ruleset"], "verdict_counts": c["verdict_counts"],
                               "verdicts": verdicts}, indent=2))  # fmt: skip
        return
    titles = {k: v.title for k, v in load_catalog().controls.items()}
    width = max(len(k) for k in verdicts)
    for status in VERDICTS:
        rows = [(k, v) for k, v in verdicts.items() if v["status"] == status]
        if not rows:
            continue
        click.echo(f"{STATUS_WORDS[status]} ({len(rows)}):")
        for k, v in rows:
            detail = {
                "breached": f"{v['findings']} finding(s), {v['observations']:,} observation(s)",
                "checked": f"{v['observations']:,} observation(s)",
            }.get(status, v["why"])
            click.echo(f"  {k:<{width}}  {titles.get(k, '')}: {detail}")
    click.echo(
        f"{doc.get('scenario', '?')} (seed {doc.get('seed', '?')}, ruleset {c['ruleset']}): "
        f"{c['controls_catalogued']} catalogued controls: {totals_line(c['verdict_counts'])}"
    )


def behaviour_params() -> list[dict[str, Any]]:
    """Every ruleset parameter the simulated operation reads (issue 12), by ruleset."""
    from twin.compliance.ruleset import RULESETS, load_ruleset

    out: list[dict[str, Any]] = []
    for name in RULESETS:
        rs = load_ruleset(name)
        for key, p in rs.params.items():
            if p.behaviour:
                out.append(
                    {"ruleset": name, "param": key, "value": p.value, "cite": p.cite,
                     "controls": list(p.controls), "behaviour": p.behaviour}
                )  # fmt: skip
    return out


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
def scenarios(as_json: bool) -> None:
    """The scenarios, PAR sheets and table games shipped inside the package: each runs by its
    name from any folder (twin run singapore, twin par video-5reel, twin table
    punto-banco-8deck)."""
    import tomllib

    from twin import api

    doc: dict[str, list[dict[str, str]]] = {}
    for kind, title in (("", "scenarios"), ("games", "games"), ("tables", "tables")):
        rows = []
        for name, path in api.shipped(kind).items():
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            about = data.get("scenario", data.get("game", data.get("meta", {})))
            text = str(about.get("description") or about.get("name") or "")
            rows.append({"name": name, "description": text, "path": str(path)})
        doc[title] = rows
    if as_json:
        click.echo(json.dumps(doc, indent=2))
        return
    for title, rows in doc.items():
        click.echo(f"{title}:")
        width = max((len(r["name"]) for r in rows), default=0)
        for r in rows:
            click.echo(f"  {r['name']:<{width}}  {r['description']}".rstrip())
