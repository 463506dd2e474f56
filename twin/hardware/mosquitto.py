"""A real Mosquitto on this machine, for tests and for procedure suites without hardware.

Each :class:`Broker` gets a free port on 127.0.0.1, its own configuration, password file
(hashed by ``mosquitto_passwd``) and ACL file in a temporary folder: one user per SMIB that
writes only its own ``up/#`` and reads only its own ``down/#``, and the twin's user that reads
every ``up`` and writes every ``down``. It can be stopped gracefully (SIGTERM) or killed
(SIGKILL), restarted on the same port, paused (SIGSTOP: a hung broker) and resumed.
Mosquitto runs as root here, so the configuration says ``user root``.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
MOSQUITTO_PASSWD = shutil.which("mosquitto_passwd") or "mosquitto_passwd"
TWIN_USER = "twin"
TWIN_PASSWORD = "twin-secret"


def smib_password(smib: str) -> str:
    return f"pw-{smib}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_until(what: str, ok: object, timeout: float = 20.0, step: float = 0.02) -> None:
    """Poll ``ok()`` until it is true; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        if ok():  # type: ignore[operator]
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(step)


class Mosquitto:
    """One Mosquitto process with its own files; see the module docstring."""

    def __init__(self, folder: Path, smibs: tuple[str, ...], *, tls: bool = False) -> None:
        self.folder = folder
        self.port = free_port()
        self.host = "127.0.0.1"
        self.smibs = smibs
        #: with ``tls``: a second listener on ``tls_port`` with a certificate signed by a
        #: throwaway CA (``ca``), and a second CA (``other_ca``) that signed nothing
        self.tls_port = free_port() if tls else None
        self.ca = folder / "ca.crt"
        self.other_ca = folder / "other-ca.crt"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = folder / "mosquitto.log"
        self.conf = folder / "mosquitto.conf"
        self._write_files()

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    def _write_files(self) -> None:
        passwd = self.folder / "passwd"
        users = [(TWIN_USER, TWIN_PASSWORD)] + [(s, smib_password(s)) for s in self.smibs]
        passwd.write_text("".join(f"{u}:{p}\n" for u, p in users))
        subprocess.run([MOSQUITTO_PASSWD, "-U", str(passwd)], check=True, capture_output=True)
        acl = self.folder / "acl"
        acl.write_text(
            f"user {TWIN_USER}\n"
            "topic read csn/v1/smib/+/up/#\n"
            "topic write csn/v1/smib/+/down/#\n"
            "topic readwrite csn/v1/twin/#\n"
            "\n"
            "pattern write csn/v1/smib/%u/up/#\n"
            "pattern read csn/v1/smib/%u/down/#\n"
        )
        self.conf.write_text(
            f"listener {self.port} {self.host}\n"
            "allow_anonymous false\n"
            f"password_file {passwd}\n"
            f"acl_file {acl}\n"
            "user root\n"
            "persistence false\n"
            f"log_dest file {self.log}\n"
            "log_type error\nlog_type warning\nlog_type notice\nlog_type information\n"
            "max_queued_messages 10000\n"
        )
        if self.tls_port is not None:
            self._make_certificates()
            with self.conf.open("a") as f:
                f.write(
                    f"listener {self.tls_port} {self.host}\n"
                    f"cafile {self.ca}\n"
                    f"certfile {self.folder / 'server.crt'}\n"
                    f"keyfile {self.folder / 'server.key'}\n"
                    "require_certificate false\n"
                )

    def _make_certificates(self) -> None:
        """A throwaway CA, a server certificate for 127.0.0.1 signed by it, and another CA."""
        d = self.folder
        ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

        def openssl(*args: str) -> None:
            subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=d)

        for name in ("ca", "other-ca"):
            openssl("req", "-x509", *ec, "-keyout", f"{name}.key", "-out", f"{name}.crt",
                    "-days", "2", "-subj", f"/CN=test {name}")  # fmt: skip
        openssl("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
        (d / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
        openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                "-CAcreateserial", "-out", "server.crt", "-days", "2",
                "-extfile", "san.ext")  # fmt: skip

    # -- process control ---------------------------------------------------------------------

    def start(self) -> None:
        assert self.proc is None or self.proc.poll() is not None, "already running"
        self.proc = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        wait_until(f"mosquitto on port {self.port}", self._accepts)

    def _accepts(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            err = self.proc.stderr.read().decode() if self.proc.stderr else ""
            raise AssertionError(f"mosquitto exited with {self.proc.returncode}: {err}")
        try:
            with socket.create_connection((self.host, self.port), timeout=0.5):
                return True
        except OSError:
            return False

    def stop(self) -> None:
        """Graceful stop (SIGTERM): clients see the connection close."""
        self._end(signal.SIGTERM)

    def kill(self) -> None:
        """kill -9: no goodbye to anyone."""
        self._end(signal.SIGKILL)

    def _end(self, sig: signal.Signals) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.resume()
        self.proc.send_signal(sig)
        self.proc.wait(timeout=20)
        if self.proc.stderr is not None:
            self.proc.stderr.close()

    def restart(self, *, kill: bool = False) -> None:
        (self.kill if kill else self.stop)()
        self.start()

    def pause(self) -> None:
        """SIGSTOP: the broker hangs with every connection open."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGSTOP)

    def resume(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


__all__ = [
    "MOSQUITTO",
    "TWIN_PASSWORD",
    "TWIN_USER",
    "Mosquitto",
    "free_port",
    "smib_password",
    "wait_until",
]
