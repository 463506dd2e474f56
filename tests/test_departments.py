"""The registry of departments (issue 26): built in the order their declarations imply, each
refused by name when its needs are missing, and open to a new department from outside twin
(the coat check in ``tests/coatroom``: its own package, and one line, its section's field)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import REPO, SCENARIOS

from twin.department import Plan, ordered
from twin.departments import opening_order, plans
from twin.errors import InputError


def _nothing(site: object) -> tuple[()]:
    return ()


def test_each_department_is_built_after_what_it_needs_and_uses() -> None:
    order = [p.name for p in plans()]
    assert order == ["staff", "slots", "patrons", "door", "cage", "junkets", "pit", "premium",
                     "aml", "lifecycle", "licensing", "surveillance"]  # fmt: skip
    for i, p in enumerate(plans()):
        assert set(p.needs) | set(p.uses) <= set(order[:i]), p.name


def test_departments_start_in_the_registry_order() -> None:
    assert opening_order() == (
        "slots", "patrons", "staff", "door", "pit", "cage", "junkets", "premium", "aml",
        "lifecycle", "licensing", "surveillance",
    )  # fmt: skip


def test_ordered_keeps_the_given_order_where_it_can() -> None:
    a, b, c = (Plan(n, (n,), _nothing) for n in "abc")
    after_c = Plan("a", ("a",), _nothing, uses=("c",))
    assert [p.name for p in ordered([a, b, c])] == ["a", "b", "c"]
    assert [p.name for p in ordered([after_c, b, c])] == ["b", "c", "a"]


def test_ordered_refuses_an_unknown_department_and_a_circle() -> None:
    with pytest.raises(ValueError, match="department 'a' declares 'z': no such department"):
        ordered([Plan("a", ("a",), _nothing, needs=("z",))])
    with pytest.raises(ValueError, match="in a circle: a, b"):
        ordered([Plan("a", ("a",), _nothing, needs=("b",)), Plan("b", ("b",), _nothing,
                                                                  uses=("a",))])  # fmt: skip


def test_a_department_whose_needs_are_absent_is_refused_before_t0(tmp_path: Path) -> None:
    """The AML desk needs the door and the cage: a scenario with [aml] and no [cage] fails
    with one line naming the section, what it needs and why."""
    from twin.departments import load_scenario

    text = (SCENARIOS / "aml.toml").read_text(encoding="utf-8")
    start = text.index("\n[cage]")
    end = text.index("\n[", start + 1)
    while text[end + 1 :].startswith("[cage"):  # its sub-tables go with it
        end = text.index("\n[", end + 1)
    path = tmp_path / "no-cage.toml"
    path.write_text(text[:start] + text[end:], encoding="utf-8")
    (tmp_path / "games").symlink_to(SCENARIOS / "games")
    (tmp_path / "tables").symlink_to(SCENARIOS / "tables")
    with pytest.raises(InputError) as err:
        load_scenario(path)
    assert err.value.key == "aml"
    assert err.value.expected == (
        "a [cage] section beside [aml] (sessions begin at the door, reg 45; chips are bought "
        "and cashed at the cage)"
    )


COAT_CHECK = """
    import json, sys
    from coatroom.section import CoatCheckConfig
    from coatroom.model import CoatKpis
    from twin.casino import Casino
    from twin.departments import Scenario, opening_order, plans
    from twin.records import Record
    from twin.scenario import load_scenario_as

    class WithCoats(Scenario):
        coat_check: CoatCheckConfig | None = None   # the one line

    class Sink:
        def __init__(self): self.records = []
        def accept(self, rec: Record) -> None: self.records.append(rec)
        def close(self) -> None: pass

    sc = load_scenario_as(WithCoats, sys.argv[1])
    sink, kpis = Sink(), CoatKpis()
    casino = Casino(sc, sinks=[sink])
    casino.attach(kpis)
    casino.run()
    kinds = [r.kind for r in sink.records if r.kind.startswith("coat")]
    cmds = [(r.kind, r.command) for r in sink.records if r.kind.startswith("command")]
    print(json.dumps({
        "plans": [p.name for p in plans(WithCoats)],
        "opening": list(opening_order(WithCoats)),
        "started": [d.name for d in casino.departments],
        "kinds": kinds, "commands": cmds, "kpis": kpis.report(casino.end),
        "times": [r.t for r in sink.records if r.kind == "coat_lost"],
    }))
"""


def test_a_new_department_is_its_package_and_one_line(tmp_path: Path) -> None:
    """The coat check (tests/coatroom) joins the tiny casino: built after the staff it uses,
    started in the registry's order, its records in the run, its injection applied and its
    KPIs counted; twin itself is not touched."""
    text = (SCENARIOS / "tiny.toml").read_text(encoding="utf-8")
    text += (
        '\n[coat_check]\nevery_minutes = 30.0\n\n[[inject]]\nkind = "coat_lost"\nat_hours = 1.0\n'
    )
    path = tmp_path / "coats.toml"
    path.write_text(text, encoding="utf-8")
    (tmp_path / "games").symlink_to(SCENARIOS / "games")
    env = {"PYTHONPATH": f"{REPO / 'tests'}:{REPO}", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(COAT_CHECK), str(path)],
        capture_output=True, text=True, cwd=REPO, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    import json

    got = json.loads(proc.stdout)
    assert got["plans"] == ["staff", "slots", "patrons", "door", "cage", "junkets", "pit",
                            "premium", "aml", "lifecycle", "licensing", "surveillance",
                            "coat_check"]  # fmt: skip
    assert got["opening"][-1] == "coat_check"
    assert got["started"] == ["notice", "coat_check"]  # the notice board: no [tables]
    # a coat every 30 minutes of the 2-hour run (at 0:30, 1:00, 1:30; 2:00 is the end), the
    # one taken in after the injection at 1:00 is lost (the 1:30 coat)
    assert got["kinds"] == ["coat_checked", "coat_checked", "coat_checked", "coat_lost"]
    assert got["commands"] == [["command_accepted", "inject"]]
    assert got["times"] == [5400.0]
    assert got["kpis"] == {"coats": 3, "fees_cents": 600, "lost": 1}
