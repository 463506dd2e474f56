"""``python -m viz ...``: ``twin viz ...`` without the entry point (same errors, same codes)."""

from __future__ import annotations

import sys

from twin.cli import cli, main
from viz.cli import viz

if __name__ == "__main__":
    cli.add_command(viz)
    main(["viz", *sys.argv[1:]])
