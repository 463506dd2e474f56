"""Rulesets: the packaged files hold every number of the control catalog, cite their clauses,
and overrides and broken files fail with one precise InputError."""

from __future__ import annotations

import pickle
import tomllib
from fractions import Fraction
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from twin.compliance.ruleset import (
    RULESETS,
    Jurisdiction,
    Param,
    Ruleset,
    load_ruleset,
    load_ruleset_file,
)
from twin.errors import InputError

CATALOG = Path(__file__).resolve().parents[2] / "shared" / "regulations" / "controls.toml"
PREFIX = {"MT98": "malta-1998", "SG10": "singapore-2010"}

# Catalog parameter names that the rulesets spell differently, by (control, catalog name).
# A name used by several controls with different values (retention_years, term_years...) or
# too vague outside its control (deadline_days...) gets a specific key.
RENAMED: dict[tuple[str, str], str] = {
    ("MT98.R15.2", "max_validity_months"): "provisional_licence_months",
    ("MT98.R16.1", "term_years"): "employee_licence_term_years",
    ("MT98.R16.1", "renewal_term_years"): "employee_licence_renewal_years",
    ("MT98.R17.1.p1", "max_months"): "lower_grade_max_months",
    ("MT98.R17.1.p1", "window_months"): "lower_grade_window_months",
    ("MT98.R18.3", "min_response_days"): "show_cause_min_days",
    ("MT98.R25.2", "notice_days"): "junket_leader_notice_days",
    ("MT98.R25.4", "max_representatives"): "junket_max_representatives",
    ("MT98.R25.5", "term_years"): "junket_licence_term_years",
    ("MT98.R25.5", "renewal_term_years"): "junket_licence_renewal_years",
    ("MT98.R25.6", "notice_hours"): "junket_notice_hours",
    ("MT98.R25.7", "notice_hours"): "junket_notice_hours",
    ("MT98.R27", "retention_days"): "recording_retention_days",
    ("MT98.R37.3", "retention_years"): "cheque_record_retention_years",
    ("MT98.R42", "deadline_days"): "financial_statements_deadline_days",
    ("MT98.R43.1", "retention_years"): "accounts_retention_years",
    ("MT98.R43.3", "retention_years"): "internal_audit_retention_years",
    ("MT98.R47", "retention_years"): "id_record_retention_years",
    ("MT98.S1.1b", "confidence"): "randomness_confidence",
    # Amounts: the catalog gives whole Lm / S$; the rulesets hold integer cents (x 100).
    ("MT98.R25.8", "single_person_min_lm"): "junket_single_min_deposit_cents",
    ("MT98.R25.8", "group_member_min_lm"): "junket_member_min_deposit_cents",
    ("MT98.R46.1", "threshold_lm"): "aml_id_threshold_cents",
    ("MT98.R46.2", "threshold_lm"): "aml_id_threshold_cents",
    ("MT98.R46.3", "threshold_lm"): "aml_id_threshold_cents",
    ("MT98.R46.4", "threshold_lm"): "aml_id_threshold_cents",
    ("SG10.R2B", "min_balance_sgd"): "min_balance_cents",
    ("SG10.R3", "min_balance_sgd"): "min_balance_cents",
    ("SG10.R4.2", "min_balance_sgd"): "min_balance_cents",
    ("SG10.R4.3", "min_balance_sgd"): "min_balance_cents",
    ("SG10.R4.4", "min_balance_sgd"): "min_balance_cents",
}

# Deliberate deviations: catalog values not stored as such, each with its reason.
# The euro figures are not in the regulation; they are derived from the Lm amount and the
# fixed 2008 conversion rate (ruleset key lm_per_eur), so an override of the Lm amount
# cannot leave a stale euro copy behind. The test checks the derivation instead.
DERIVED_EUR: dict[tuple[str, str], str] = {
    ("MT98.R25.8", "single_person_min_eur_approx"): "junket_single_min_deposit_cents",
    ("MT98.R25.8", "group_member_min_eur_approx"): "junket_member_min_deposit_cents",
    ("MT98.R46.1", "threshold_eur_approx"): "aml_id_threshold_cents",
    ("MT98.R46.2", "threshold_eur_approx"): "aml_id_threshold_cents",
}

# Switches and the twin's readings that the engine depends on, with their defaults.
SWITCHES = {
    "malta-1998": {
        "prize_cap_includes_progressive": True,
        "lower_grade_months_cumulative": True,
        "lower_grade_window_rolling": True,
        "aml_session_is_gaming_day": False,
        "aml_aggregate_in_out_separately": True,
        "aml_chips_from_net_winnings": True,
        "aml_escalation_together": False,
        "replacement_needs_prior_approval": True,
    },
    "singapore-2010": {
        "sg_4_2_literal": True,
        "sg_reg3_requires_new_account": True,
        "reg4_3_new_deposit_must_meet_minimum": True,
    },
}


def _catalog() -> dict[str, Any]:
    with CATALOG.open("rb") as f:
        return tomllib.load(f)


def _catalog_parameters() -> list[tuple[str, str, Any]]:
    return [
        (c["id"], name, value)
        for c in _catalog()["control"]
        for name, value in c.get("parameters", {}).items()
    ]


# --- the packaged rulesets -----------------------------------------------------------------


@pytest.mark.parametrize("name", RULESETS)
def test_packaged_ruleset_loads(name: str) -> None:
    rs = load_ruleset(name)
    assert isinstance(rs, Ruleset)
    assert rs.name == name
    assert rs.title and rs.currency in ("MTL", "SGD")
    assert rs.params
    assert rs.overridden == frozenset()
    for key, p in rs.params.items():
        assert isinstance(p, Param)
        assert p.key == key
        assert rs.get(key) == p.value


@pytest.mark.parametrize("name", RULESETS)
def test_every_param_cites_and_documents(name: str) -> None:
    rs = load_ruleset(name)
    prefix = "MT98." if name == "malta-1998" else "SG10."
    for key, p in rs.params.items():
        assert p.cite.strip(), key
        assert rs.cite(key) == p.cite
        assert p.doc.strip(), key
        assert all(c.startswith(prefix) for c in p.controls), (key, p.controls)
        if p.type == "bool":
            assert p.reading, f"{key}: a switch is a reading and must say so"


def test_catalog_controls_named_by_params_exist() -> None:
    ids = {c["id"] for c in _catalog()["control"]}
    for name in RULESETS:
        for key, p in load_ruleset(name).params.items():
            unknown = set(p.controls) - ids
            assert not unknown, f"{name}.{key} names controls not in the catalog: {unknown}"


@pytest.mark.parametrize(("control", "pname", "value"), _catalog_parameters())
def test_catalog_parameter_is_in_its_ruleset(control: str, pname: str, value: Any) -> None:
    rs = load_ruleset(PREFIX[control.split(".")[0]])
    if (control, pname) in DERIVED_EUR:
        key = DERIVED_EUR[(control, pname)]
        assert control in rs.params[key].controls
        lm = rs.get(key) / 100
        assert round(lm / rs.get("lm_per_eur"), 2) == pytest.approx(value, abs=0.011)
        return
    key = RENAMED.get((control, pname), pname)
    assert key in rs.params, f"{control} {pname} -> {key} missing from {rs.name}"
    param = rs.params[key]
    assert control in param.controls, f"{key} does not list {control}"
    expected = value * 100 if pname.endswith(("_lm", "_sgd")) else value
    assert param.value == expected
    assert type(param.value) is type(expected), (key, param.value, expected)
    if param.type == "money":
        assert pname.endswith(("_lm", "_sgd"))


def test_mapping_tables_only_name_catalog_parameters() -> None:
    known = {(c, n) for c, n, _ in _catalog_parameters()}
    assert set(RENAMED) <= known
    assert set(DERIVED_EUR) <= known


def test_engine_machine_parameters() -> None:
    rs = load_ruleset("malta-1998")
    assert rs.get("min_rtp") == 0.85
    assert rs.get("randomness_confidence") == 0.95
    assert rs.get("min_meter_digits") == 6
    assert rs.params["min_meter_digits"].controls == ("MT98.S1.4a", "MT98.S1.4c")
    assert rs.get("max_stake_cents") == 500
    assert rs.get("max_prize_cents") == 500_000
    assert rs.get("hold_variance_confidence") == 0.999
    assert rs.get("randomness_min_games") == 2000
    assert rs.get("randomness_fdr") == 0.005
    for key in (
        "max_stake_cents",
        "max_prize_cents",
        "hold_variance_confidence",
        "randomness_min_games",
        "randomness_fdr",
        "tilt_repair_max_hours",
    ):
        assert rs.params[key].reading, key
    for key in ("min_rtp", "randomness_confidence", "min_meter_digits"):
        assert not rs.params[key].reading, key
    assert rs.params["max_stake_cents"].type == "money"
    assert "licence" in rs.params["max_stake_cents"].doc


@pytest.mark.parametrize("name", RULESETS)
def test_switches_and_defaults(name: str) -> None:
    rs = load_ruleset(name)
    for key, default in SWITCHES[name].items():
        assert rs.params[key].type == "bool"
        assert rs.get(key) is default
        assert "Default" in rs.params[key].doc
    bools = {k for k, p in rs.params.items() if p.type == "bool"}
    assert bools == set(SWITCHES[name])


def test_get_unknown_key_names_key_and_ruleset() -> None:
    rs = load_ruleset("singapore-2010")
    with pytest.raises(KeyError, match=r"'min_rtp'.*'singapore-2010'"):
        rs.get("min_rtp")
    with pytest.raises(KeyError, match="min_rtp"):
        rs.cite("min_rtp")


def test_ruleset_pickles() -> None:
    rs = load_ruleset("malta-1998", {"min_rtp": 0.9})
    back = pickle.loads(pickle.dumps(rs))
    assert back.to_dict() == rs.to_dict()
    assert back.overridden == {"min_rtp"}
    assert back.params["min_rtp"] == rs.params["min_rtp"]


def test_ruleset_is_read_only() -> None:
    rs = load_ruleset("malta-1998")
    with pytest.raises(TypeError):
        rs.params["min_rtp"] = rs.params["min_rtp"]  # type: ignore[index]
    with pytest.raises(AttributeError):
        rs.name = "other"


# --- overrides -----------------------------------------------------------------------------


def test_override_applies_and_is_reported() -> None:
    rs = load_ruleset("malta-1998", {"min_rtp": 0.90, "aml_session_is_gaming_day": True})
    assert rs.get("min_rtp") == 0.90
    assert rs.get("aml_session_is_gaming_day") is True
    assert rs.overridden == frozenset({"min_rtp", "aml_session_is_gaming_day"})
    assert rs.default("min_rtp") == 0.85
    assert rs.cite("min_rtp") == "First Schedule, item (1)(a)"
    summary = rs.to_dict()
    assert summary["name"] == "malta-1998"
    assert summary["params"]["min_rtp"] == 0.90
    assert summary["overridden"]["min_rtp"]["default"] == 0.85
    assert summary["overridden"]["min_rtp"]["value"] == 0.90
    # the packaged ruleset itself is untouched
    assert load_ruleset("malta-1998").get("min_rtp") == 0.85
    assert load_ruleset("malta-1998").overridden == frozenset()


def test_override_int_accepted_for_fraction_and_stored_as_float() -> None:
    rs = load_ruleset("malta-1998", {"min_rtp": 1})
    assert rs.get("min_rtp") == 1.0
    assert isinstance(rs.get("min_rtp"), float)


def test_hours_may_be_fractional() -> None:
    rs = load_ruleset("malta-1998", {"tilt_repair_max_hours": 0.5, "junket_notice_hours": 36})
    assert rs.get("tilt_repair_max_hours") == 0.5
    assert rs.get("junket_notice_hours") == 36
    assert "tilt_repair_max_hours" in rs
    assert "no_such_key" not in rs


def test_override_money_and_switch() -> None:
    rs = load_ruleset(
        "singapore-2010",
        {"min_balance_cents": 5_000_000, "sg_4_2_literal": False},
    )
    assert rs.get("min_balance_cents") == 5_000_000
    assert rs.get("sg_4_2_literal") is False


@pytest.mark.parametrize(
    ("name", "overrides", "key", "expected", "found"),
    [
        (
            "malta-1998",
            {"min_rtpp": 0.9},
            "ruleset.overrides.min_rtpp",
            "a parameter of malta-1998 (did you mean min_rtp?)",
            "min_rtpp",
        ),
        (
            "malta-1998",
            {"zzz": 1},
            "ruleset.overrides.zzz",
            "a parameter of malta-1998 (e.g. min_rtp, ",
            "zzz",
        ),
        (
            "malta-1998",
            {"min_rtp": "0.9"},
            "ruleset.overrides.min_rtp",
            "a fraction from 0 to 1",
            "0.9",
        ),
        (
            "malta-1998",
            {"min_rtp": 1.2},
            "ruleset.overrides.min_rtp",
            "a fraction from 0 to 1",
            1.2,
        ),
        (
            "malta-1998",
            {"min_rtp": True},
            "ruleset.overrides.min_rtp",
            "a fraction from 0 to 1",
            True,
        ),
        (
            "malta-1998",
            {"lm_per_eur": False},
            "ruleset.overrides.lm_per_eur",
            "a number >= 0",
            False,
        ),
        (
            "malta-1998",
            {"max_stake_cents": 5.0},
            "ruleset.overrides.max_stake_cents",
            "a whole number of cents >= 1",
            5.0,
        ),
        (
            "malta-1998",
            {"notify_within_days": 30.5},
            "ruleset.overrides.notify_within_days",
            "a whole number of days >= 0",
            30.5,
        ),
        (
            "malta-1998",
            {"min_meter_digits": 0},
            "ruleset.overrides.min_meter_digits",
            "an integer from 1 to 18",
            0,
        ),
        (
            "malta-1998",
            {"min_meter_digits": True},
            "ruleset.overrides.min_meter_digits",
            "an integer from 1 to 18",
            True,
        ),
        (
            "malta-1998",
            {"tilt_repair_max_hours": -0.5},
            "ruleset.overrides.tilt_repair_max_hours",
            "a number of hours >= 0",
            -0.5,
        ),
        (
            "singapore-2010",
            {"sg_4_2_literal": 1},
            "ruleset.overrides.sg_4_2_literal",
            "a boolean (true or false)",
            1,
        ),
        (
            "singapore-2010",
            {"min_balance_cents": -1},
            "ruleset.overrides.min_balance_cents",
            "a whole number of cents >= 0",
            -1,
        ),
        (
            "singapore-2010",
            {"commencement_date": 2010},
            "ruleset.overrides.commencement_date",
            "a string",
            2010,
        ),
    ],
)
def test_bad_override(
    name: str, overrides: dict[str, object], key: str, expected: str, found: object
) -> None:
    with pytest.raises(InputError) as info:
        load_ruleset(name, overrides, source="scenario.toml")
    err = info.value
    assert err.source == "scenario.toml"
    assert err.key == key
    assert err.expected.startswith(expected)
    assert err.found == found
    assert type(err.found) is type(found)
    assert str(err).startswith(f"scenario.toml: {key}: expected ")


def test_nan_override_rejected() -> None:
    with pytest.raises(InputError) as info:
        load_ruleset("malta-1998", {"lm_per_eur": float("nan")})
    assert info.value.key == "ruleset.overrides.lm_per_eur"


def test_bad_ruleset_name() -> None:
    with pytest.raises(InputError) as info:
        load_ruleset("malta-1999", source="scenario.toml")
    err = info.value
    assert (err.source, err.key, err.found) == ("scenario.toml", "ruleset.name", "malta-1999")
    assert err.expected == "one of 'malta-1998', 'singapore-2010'"


# --- ruleset files given by path -----------------------------------------------------------

GOOD = """\
[meta]
name = "malta-1998-proposal"
title = "Proposed change"
currency = "MTL"
registration_prefix = "MGB"
floor_currency = "EUR"
date_format = "%d/%m/%Y"
exchange_rate_param = "lm_per_eur"

[params.lm_per_eur]
value = 0.4293
type = "number"
min = 0.0
cite = "the 2008 euro conversion rate"
controls = []
doc = "Lm per euro."

[params.min_rtp]
value = 0.88
type = "fraction"
min = 0.0
max = 1.0
cite = "First Schedule, item (1)(a)"
controls = ["MT98.S1.1a"]
doc = "Proposed minimum payout."
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "proposal.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_ruleset_file_loads(tmp_path: Path) -> None:
    rs = load_ruleset_file(_write(tmp_path, GOOD))
    assert rs.name == "malta-1998-proposal"
    assert rs.get("min_rtp") == 0.88
    rs2 = load_ruleset_file(_write(tmp_path, GOOD), {"min_rtp": 0.9}, source="sc.toml")
    assert rs2.get("min_rtp") == 0.9
    assert rs2.overridden == {"min_rtp"}
    assert (
        rs.jurisdiction == rs2.jurisdiction == Jurisdiction("MGB", "EUR", "%d/%m/%Y", "lm_per_eur")
    )


@pytest.mark.parametrize("name", RULESETS)
def test_packaged_files_load_by_path(name: str) -> None:
    path = Path(__file__).resolve().parents[1] / "twin" / "data" / "rulesets" / f"{name}.toml"
    by_path = load_ruleset_file(path)
    assert by_path.to_dict() == load_ruleset(name).to_dict()


@pytest.mark.parametrize(
    ("text", "key", "expected"),
    [
        (GOOD + 'colour = "red"\n', "params.min_rtp.colour", "no such key (allowed: value, "),
        (
            GOOD.replace('cite = "First Schedule, item (1)(a)"\n', ""),
            "params.min_rtp.cite",
            "a value",
        ),
        (
            GOOD.replace('cite = "First Schedule, item (1)(a)"', 'cite = ""'),
            "params.min_rtp.cite",
            "a non-empty",
        ),
        (GOOD.replace('doc = "Proposed minimum payout."\n', ""), "params.min_rtp.doc", "a value"),
        (
            GOOD.replace("value = 0.88", "value = 1.5"),
            "params.min_rtp.value",
            "a fraction from 0 to 1",
        ),
        (GOOD.replace("value = 0.88", 'value = "0.88"'), "params.min_rtp.value", "a fraction"),
        (
            GOOD.replace("value = 0.88", "value = [0.88]"),
            "params.min_rtp.value",
            "a boolean, number",
        ),
        (
            GOOD.replace('type = "fraction"', 'type = "ratio"'),
            "params.min_rtp.type",
            "one of 'fraction'",
        ),
        (
            GOOD.replace("min = 0.0\nmax = 1.0", "min = 0.9\nmax = 1.0"),
            "params.min_rtp.value",
            "a fraction from 0.9 to 1",
        ),
        (GOOD.replace("max = 1.0", "max = -1.0"), "params.min_rtp.max", "a max from 0 to 1"),
        (
            GOOD.replace('"MT98.S1.1a"', '"first schedule"'),
            "params.min_rtp.controls[0]",
            "a control id",
        ),
        (GOOD.replace('currency = "MTL"\n', ""), "meta.currency", "a value"),
        (GOOD.replace('floor_currency = "EUR"\n', ""), "meta.floor_currency", "a value"),
        (GOOD.replace("[params.min_rtp]", "[params.MinRTP]"), "params.MinRTP", "a snake_case"),
        (GOOD + "[other]\nx = 1\n", "other", "no such key (allowed: meta, params)"),
    ],
)
def test_broken_ruleset_file(tmp_path: Path, text: str, key: str, expected: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(InputError) as info:
        load_ruleset_file(path)
    err = info.value
    assert err.source == str(path)
    assert err.key == key
    assert err.expected.startswith(expected), err.expected
    assert str(err).startswith(f"{path}: {key}: expected ")


def test_bool_with_bounds_rejected(tmp_path: Path) -> None:
    text = GOOD.replace("value = 0.88", "value = true").replace('"fraction"', '"bool"')
    with pytest.raises(InputError) as info:
        load_ruleset_file(_write(tmp_path, text))
    assert info.value.key == "params.min_rtp.min"


def test_unreadable_ruleset_files(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        load_ruleset_file(tmp_path / "missing.toml")
    assert info.value.expected == "an existing ruleset file"
    with pytest.raises(InputError) as info:
        load_ruleset_file(_write(tmp_path, "x = \n"))
    assert info.value.expected == "valid TOML"


# --- money: the regulation's currency against the floor's cents ----------------------------


def test_lm_amount_is_compared_exactly_with_euro_cents_at_the_threshold() -> None:
    """Lm 2,000 (reg 46) at Lm 0.4293 = EUR 1 is EUR 4,658.7468...: EUR 4,658.75 is "in excess
    of" it, EUR 4,658.74 is not, and neither is EUR 2,000 (the number without conversion)."""
    rs = load_ruleset("malta-1998")
    limit = rs.money("aml_id_threshold_cents")
    assert limit == Fraction(200_000 * 10_000, 4_293)
    assert limit < 465_875
    assert limit >= 465_874
    assert limit >= 200_000
    # (exact: EUR 4,658.75, the rounded cent, is above the threshold, issue 34)
    assert rs.money_text("aml_id_threshold_cents") == "MTL 2,000.00 (EUR 4,658.7468…)"
    assert rs.money_text("junket_member_min_deposit_cents", least=True) == (
        "MTL 1,000.00 (EUR 2,329.3734…: EUR 2,329.38 at least)"
    )
    # the maximum stake (reg 28(3)(d)) of Lm 5 is EUR 11.6468...: a EUR 11.64 stake is within it
    stake = rs.money("max_stake_cents")
    assert 1_164 <= stake < 1_165


def test_one_currency_needs_no_rate_and_an_override_of_the_rate_is_used() -> None:
    sg = load_ruleset("singapore-2010")
    assert sg.money("min_balance_cents") == 10_000_000
    assert sg.money_text("min_balance_cents") == "SGD 100,000.00"
    half = load_ruleset("malta-1998", {"lm_per_eur": 0.5})
    assert half.money("aml_id_threshold_cents") == 400_000
    with pytest.raises(TypeError, match="not money"):
        half.money("lm_per_eur")


def test_two_currencies_without_a_rate_is_an_input_error(tmp_path: Path) -> None:
    from twin.compliance.ruleset import load_ruleset_file

    src = (files("twin") / "data" / "rulesets" / "malta-1998.toml").read_text(encoding="utf-8")
    bad = tmp_path / "no-rate.toml"
    bad.write_text(src.replace('exchange_rate_param = "lm_per_eur"', ""), encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_ruleset_file(bad)
    assert info.value.key == "meta.exchange_rate_param"
    assert "converting MTL to EUR" in str(info.value)
    wrong = tmp_path / "wrong-rate.toml"
    wrong.write_text(
        src.replace('exchange_rate_param = "lm_per_eur"', 'exchange_rate_param = "min_rtp"'),
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="a positive number parameter, found min_rtp"):
        load_ruleset_file(wrong)
