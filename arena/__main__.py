"""The `arena` command (also `python -m arena`)."""

from __future__ import annotations

import os


def main() -> None:
    """Run the CLI with gRPC's own logging off: every failure is reported in the CLI's words.

    `GRPC_VERBOSITY` set by the user (e.g. `debug`) is left as it is.
    """
    os.environ.setdefault("GRPC_VERBOSITY", "NONE")
    from arena.cli import main as cli

    cli()


if __name__ == "__main__":
    main()
