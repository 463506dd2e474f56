"""Optional compiled kernels (issue 31): a few hot, self-contained functions in Cython.

The twin runs in pure Python on any machine; ``python -m twin.speedups build`` compiles
``twin/_speedups.pyx`` (Cython and a C compiler needed then, never to run) next to it, and from
then on the kernels replace their pure-Python twins, which stay the reference: a test holds
every kernel equal to its reference and a run's ledger head the same with and without them.

Which kernels a process uses (``TWIN_SPEEDUPS``):

* unset: the build beside the source, if there is one and it was built from this very source
  (its digest is kept beside it); otherwise pure Python (a stale build is never loaded);
* ``0``: pure Python;
* a directory: the build in that directory (``build --into DIR``), on the same condition.

``python -m twin.speedups`` (or ``status``) says which, and why.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

ENV = "TWIN_SPEEDUPS"
NAME = "_speedups"
SOURCE = Path(__file__).with_name(f"{NAME}.pyx")
STAMP = f"{NAME}.sha256"  # beside the build: the digest of the source it was built from

_loaded: tuple[ModuleType | None, str] | None = None


def source_digest() -> str:
    return hashlib.sha256(SOURCE.read_bytes()).hexdigest()


def _built(folder: Path) -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = folder / f"{NAME}{suffix}"
        if path.is_file():
            return path
    return None


def _find() -> tuple[Path | None, str]:
    """The build to load (or None) and a sentence saying why."""
    setting = os.environ.get(ENV, "")
    if setting == "0":
        return None, f"pure Python ({ENV}=0)"
    folder = Path(setting) if setting else SOURCE.parent
    path = _built(folder)
    if path is None:
        where = f"{ENV}={setting}: " if setting else ""
        return None, (
            f"pure Python ({where}no build in {folder}; `python -m twin.speedups build` makes one)"
        )
    stamp = folder / STAMP
    if not stamp.is_file() or stamp.read_text().strip() != source_digest():
        return None, (
            f"pure Python (the build {path} is not of this {SOURCE.name}: "
            "`python -m twin.speedups build` again)"
        )
    return path, f"compiled kernels: {path}"


def load() -> ModuleType | None:
    """The compiled kernels, or None for pure Python (once per process)."""
    global _loaded
    if _loaded is None:
        path, why = _find()
        module = None
        if path is not None:
            spec = importlib.util.spec_from_file_location(f"twin.{NAME}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        _loaded = (module, why)
    return _loaded[0]


def status() -> str:
    """What :func:`load` gives, in a sentence."""
    load()
    assert _loaded is not None
    return _loaded[1]


class BuildError(Exception):
    """The kernels could not be built (no Cython, no C compiler): the message says why."""


def build(into: Path | None = None) -> Path:
    """Compile the kernels into ``into`` (default: beside the source); the built file."""
    folder = (into if into is not None else SOURCE.parent).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    if importlib.util.find_spec("Cython") is None:  # the build's subprocess imports it
        raise BuildError("Cython is not installed: `python -m pip install cython` (only to build)")
    digest = source_digest()
    with tempfile.TemporaryDirectory(prefix="twin-speedups-") as tmp:
        work = Path(tmp)
        shutil.copy(SOURCE, work / SOURCE.name)
        script = (
            "from setuptools import Extension, setup\n"
            "from Cython.Build import cythonize\n"
            f"setup(name='twin-speedups', ext_modules=cythonize("
            f"[Extension('{NAME}', ['{SOURCE.name}'])], quiet=True),"
            " script_args=['build_ext', '--inplace', '-q'])\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", script], cwd=work, capture_output=True, text=True
        )
        made = _built(work)
        if done.returncode != 0 or made is None:
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
            raise BuildError(
                f"the C build of {SOURCE.name} failed (a C compiler is needed):\n{tail}"
            )
        for old in folder.glob(f"{NAME}.*.so"):
            old.unlink()
        target = folder / made.name
        shutil.copy(made, target)
    (folder / STAMP).write_text(digest + "\n")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m twin.speedups",
        description="Build or check the twin's optional compiled kernels.",
    )
    sub = parser.add_subparsers(dest="command")
    b = sub.add_parser("build", help="compile the kernels (Cython and a C compiler needed)")
    b.add_argument("--into", type=Path, help="folder to build into (default: beside the source)")
    sub.add_parser("status", help="which kernels this process uses, and why (the default)")
    args = parser.parse_args(argv)
    if args.command == "build":
        try:
            path = build(args.into)
        except (BuildError, OSError) as exc:
            print(f"twin.speedups: error: {exc}", file=sys.stderr)
            return 1
        print(f"twin.speedups: built {path}")
        return 0
    print(status())
    return 0


if __name__ == "__main__":  # pragma: no cover - python -m twin.speedups
    raise SystemExit(main())
