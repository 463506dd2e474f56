import sys

from twin import signals

signals.install()  # before the rest of the CLI is imported: a Ctrl-C at start-up is one line


def _stopped(stop: signals.Interrupted) -> None:
    """A signal outside the CLI's own handling (while it was imported, or as the command
    returned): one line, saying what the command left when it had finished a run."""
    signals.quiet()
    cli = sys.modules.get("twin.cli")
    line = cli.stop_line(stop) if cli is not None else f"interrupted ({stop.name})"
    print(f"twin: {line}", file=sys.stderr)
    sys.exit(stop.exit_code)


try:
    from twin.cli import main
except signals.Interrupted as stop:
    _stopped(stop)

if __name__ == "__main__":
    try:
        main()
    except signals.Interrupted as stop:
        _stopped(stop)
