import sys

from twin import signals

signals.install()  # before the rest of the CLI is imported: a Ctrl-C at start-up is one line


def _stopped(stop: signals.Interrupted) -> None:
    """A signal outside the CLI's own handling (while it was imported): one line."""
    signals.quiet()
    print(f"twin: interrupted ({stop.name})", file=sys.stderr)
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
