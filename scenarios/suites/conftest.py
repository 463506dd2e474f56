"""The procedure-suite plugin: ``pytest scenarios/suites/ [--hardware URL --smib ID ...]``.

Each procedure (``test_*.py`` here) runs once per SMIB of the bench, on a
:class:`twin.hardware.procedures.ProcedureBench`: the bench scenario (``bench.toml``, one
machine bound to the SMIB) as a casino connected to the broker, driven by bench commands.
Each test's result names the controls it exercised and their findings as JUnit properties
(``--junitxml``): ``controls`` (space-separated ids) and ``findings`` (JSON); a breach fails
the test, a warning does not.

* ``--hardware mqtt://[user:password@]host:port`` and ``--smib ID`` (repeatable): the
  connected bench (the twin's user and password may instead be in ``TWIN_MQTT_USER`` and
  ``TWIN_MQTT_PASSWORD``); ``--serial ID=SERIAL``: the serial registered for the machine
  behind a SMIB (else HW.identity reports the board's own).
* without ``--hardware``: a real Mosquitto on a free port and one emulated SMIB per
  ``--smib`` (default S-001, S-002, S-003) are started for the session;
  ``--misbehave ID=SWITCHES`` makes one misbehave (``twin smib emulate --misbehave``
  switches, e.g. ``S-003=skew=1``).
* ``--sas-port PORT``: the bench's machine on a SAS line (issue 30): it stays simulated and
  answers SAS on ``PORT`` as a gaming machine, and the SMIB at the other end reports it over
  MQTT; each bench command makes the simulated machine act, and the procedure waits until
  the SMIB has reported it (every exception, the meters). ``PORT`` is ``pty`` (a pseudo-
  terminal pair, with the twin's reference SMIB, ``twin smib bridge``, started on it: its
  MQTT password is ``TWIN_SMIB_PASSWORD``, '{id}' replaced by the SMIB id) or a serial
  device with a SMIB of your own wired to it (then ``--hardware URL`` is required). ``--smib
  ID`` names the SMIB (default SAS-001). With ``pty`` and no ``--hardware``, a Mosquitto is
  started for the session (no emulators) and the reference SMIB uses its passwords.
  ``--serial`` and ``--misbehave`` are not for a SAS line (the simulated machine reports its
  own serial; no emulator runs).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from twin.hardware.procedures import ProcedureBench, ProcedureResult

HERE = Path(__file__).resolve().parent
DEFAULT_SMIBS = ("S-001", "S-002", "S-003")
DEFAULT_SAS_SMIBS = ("SAS-001",)


def pytest_addoption(parser: pytest.Parser) -> None:
    g = parser.getgroup("twin-bench", "procedure suites against SMIBs (casino-twin)")
    g.addoption("--hardware", metavar="URL", help="broker of the connected bench")
    g.addoption("--smib", action="append", default=[], metavar="ID", help="SMIB under test")
    g.addoption("--serial", action="append", default=[], metavar="ID=SERIAL",
                help="registered serial of the machine behind SMIB ID")  # fmt: skip
    g.addoption("--misbehave", action="append", default=[], metavar="ID=SWITCHES",
                help="without --hardware: switches of emulated SMIB ID")  # fmt: skip
    g.addoption("--sas-port", metavar="PORT",
                help="the bench machine on a SAS line: 'pty' or a serial device")  # fmt: skip
    g.addoption("--bench-scenario", default=str(HERE / "bench.toml"), metavar="FILE")


def pytest_configure(config: pytest.Config) -> None:
    """Options that do not go together are a usage error before anything runs."""
    port: str | None = config.getoption("--sas-port", None)
    if port is None:
        return
    if not port:
        raise pytest.UsageError("--sas-port: expected 'pty' or a serial device, found ''")
    if port != "pty" and not config.getoption("--hardware"):
        raise pytest.UsageError(
            f"--sas-port: a serial device ({port!r}) has a SMIB of your own on it: expected "
            "--hardware URL (the broker it reports to) too, found none (or use --sas-port pty)"
        )
    from twin.hardware.sas.station import PASSWORD_ENV

    if port == "pty" and config.getoption("--hardware") and not os.environ.get(PASSWORD_ENV):
        raise pytest.UsageError(
            f"--sas-port: the reference SMIB on a pty logs in to the --hardware broker with "
            f"{PASSWORD_ENV} ('{{id}}': its id): expected it set, found none"
        )
    for option in ("--serial", "--misbehave"):
        if config.getoption(option):
            raise pytest.UsageError(
                f"{option}: expected no {option} with --sas-port (the machine on a SAS line is "
                f"simulated), found {' '.join(config.getoption(option))}"
            )


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """One process, whatever ``-n auto`` the project's pytest options ask (``-n`` runs the
    tests on every core): the procedures drive one bench, and two at once on the same SMIB
    would see each other's credits and meters."""
    return 0


def _pairs(values: list[str], option: str) -> dict[str, str]:
    out = {}
    for v in values:
        key, sep, value = v.partition("=")
        if not sep or not key:
            raise pytest.UsageError(f"{option}: expected ID=VALUE, found {v!r}")
        out[key] = value
    return out


def _smibs(config: pytest.Config) -> list[str]:
    given: list[str] = config.getoption("--smib")
    if config.getoption("--hardware") and not given:
        raise pytest.UsageError("--hardware: expected at least one --smib ID, found none")
    if given:
        return given
    return list(DEFAULT_SAS_SMIBS if config.getoption("--sas-port") else DEFAULT_SMIBS)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "smib" in metafunc.fixturenames:
        metafunc.parametrize("smib", _smibs(metafunc.config), scope="session")


@pytest.fixture(scope="session")
def bench_url(pytestconfig: pytest.Config) -> Iterator[str]:
    """The broker: the connected bench's, or a Mosquitto with emulated SMIBs of our own."""
    url: str | None = pytestconfig.getoption("--hardware")
    if url:
        yield url
        return
    from twin.hardware.emulator import Misbehaviour, SmibEmulator
    from twin.hardware.link import Broker
    from twin.hardware.mosquitto import TWIN_PASSWORD, TWIN_USER, Mosquitto, smib_password
    from twin.machines.par import load_game

    smibs = _smibs(pytestconfig)
    if pytestconfig.getoption("--sas-port"):
        yield from _own_broker(smibs)
        return
    switches = _pairs(pytestconfig.getoption("--misbehave"), "--misbehave")
    scenario = Path(pytestconfig.getoption("--bench-scenario"))
    with tempfile.TemporaryDirectory(prefix="twin-bench-") as folder:
        broker = Mosquitto(Path(folder), tuple(smibs))
        broker.start()
        emulators = []
        try:
            for i, smib in enumerate(smibs):
                serial, game = _registered(scenario, smib)
                emu = SmibEmulator(
                    smib,
                    Broker(broker.host, broker.port),
                    smib_password(smib),
                    load_game(game),
                    serial=serial,
                    seed=i + 1,
                    misbehave=Misbehaviour.parse(switches.get(smib, "")),
                )
                emulators.append(emu)
                emu.start()
            yield f"mqtt://{TWIN_USER}:{TWIN_PASSWORD}@{broker.host}:{broker.port}"
        finally:
            for emu in emulators:
                emu.stop()
            broker.kill()


def _own_broker(smibs: list[str]) -> Iterator[str]:
    """A Mosquitto for SMIBs on SAS lines (no emulators): the reference SMIBs the twin starts
    log in with its passwords."""
    from twin.hardware.mosquitto import TWIN_PASSWORD, TWIN_USER, Mosquitto, smib_password
    from twin.hardware.sas.station import PASSWORD_ENV

    with (
        tempfile.TemporaryDirectory(prefix="twin-bench-") as folder,
        pytest.MonkeyPatch.context() as mp,
    ):
        broker = Mosquitto(Path(folder), tuple(smibs))
        broker.start()
        mp.setenv(PASSWORD_ENV, smib_password("{id}"))
        try:
            yield f"mqtt://{TWIN_USER}:{TWIN_PASSWORD}@{broker.host}:{broker.port}"
        finally:
            broker.kill()


def _registered(scenario: Path, smib: str) -> tuple[str, Path]:
    """The serial and game of the bench machine (what an emulated board reports)."""
    from twin.casino import Casino
    from twin.departments import load_scenario

    casino = Casino(load_scenario(scenario, [("hardware[0].smib", smib)]), compliance=False)
    assert casino.hardware is not None
    (m,) = casino.hardware.machines.values()
    return m.spec.serial, Path(m.spec.game.path)


@pytest.fixture
def bench(smib: str, bench_url: str, pytestconfig: pytest.Config) -> Iterator[ProcedureBench]:
    """The bench scenario connected to SMIB ``smib``, its machine online."""
    serials = _pairs(pytestconfig.getoption("--serial"), "--serial")
    b = ProcedureBench(Path(pytestconfig.getoption("--bench-scenario")), bench_url, smib,
                       serial=serials.get(smib),
                       sas_port=pytestconfig.getoption("--sas-port"))  # fmt: skip
    b.start()
    try:
        yield b
    finally:
        b.session.stop()


@pytest.fixture
def report(request: pytest.FixtureRequest) -> Callable[[ProcedureResult], None]:
    """Record what a procedure exercised and found; fail it on a breach.

    The properties go on the test's ``user_properties`` (what ``record_property`` does,
    without its warning under pytest's default ``xunit2`` family): ``--junitxml`` writes
    them as ``<properties>`` of the ``<testcase>``."""
    props = request.node.user_properties

    def done(result: ProcedureResult) -> None:
        props.append(("controls", " ".join(result.controls)))
        props.append(("findings", json.dumps(list(result.findings), sort_keys=True)))
        assert result.controls, "the procedure exercised no control"
        assert not result.breaches, "; ".join(
            f"{f['control']}: {f['message']}" for f in result.breaches
        )

    return done
