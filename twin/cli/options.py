"""Options several commands share: the run length, a study's confidence and workers, a SAS
address, a broker's certificate authority and a SMIB's password."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


class _FinitePositive(click.FloatRange):
    """A number above 0 that is finite (``--days nan`` used to reach the scenario as a
    ``--set`` the user never typed)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        got = super().convert(value, param, ctx)
        if not math.isfinite(got):
            self.fail(f"expected a finite number above 0, found {value!r}", param, ctx)
        return got


_POSITIVE = _FinitePositive(min=0, min_open=True)


def run_length(f: F) -> F:
    """``--seed``, ``--hours`` and ``--days``: the options of every command that runs."""
    for opt in (
        click.option("--days", type=_POSITIVE, help="Simulated days."),
        click.option("--hours", type=_POSITIVE, help="Simulated hours."),
        click.option(
            "--seed", type=click.IntRange(min=0), help="Root seed (default: the scenario's)."
        ),
    ):
        f = opt(f)
    return f


def study_options(what: str, workers: str) -> Callable[[F], F]:
    """``--confidence`` (of ``what``) and ``--workers`` (``workers``): every study's."""

    def wrap(f: F) -> F:
        f = click.option("--workers", type=click.IntRange(min=0), help=workers)(f)
        return click.option(
            "--confidence", type=click.FloatRange(min=0.5, max=1, max_open=True), default=0.95,
            show_default=True, help=f"Confidence of the {what}.",
        )(f)  # fmt: skip

    return wrap


def sas_address(f: F) -> F:
    """``--address``: a machine's SAS address (``twin sas serve``, ``twin smib bridge``)."""
    return click.option(
        "--address",
        type=click.IntRange(1, 127),
        default=1,
        show_default=True,
        help="The machine's SAS address.",
    )(f)


def broker_ca(f: F) -> F:
    """``--ca``: the certificate of a TLS broker's authority (the SMIB commands)."""
    return click.option(
        "--ca",
        type=click.Path(exists=True, dir_okay=False),
        help="With mqtts://: the certificate of the authority that signed the broker's.",
    )(f)


def smib_password(f: F) -> F:
    """``--password``: a SMIB's MQTT password (``TWIN_SMIB_PASSWORD``; ``{id}`` in it is
    replaced by the SMIB's id)."""
    return click.option(
        "--password",
        envvar="TWIN_SMIB_PASSWORD",
        default="",
        show_envvar=True,
        help="MQTT password; '{id}' in it is replaced by each SMIB's id.",
    )(f)
