"""`arena doctor`: what this machine gives managed bots, in plain words."""

from __future__ import annotations

import click

from arena.cli.app import (
    main,
)


@main.command()
def doctor() -> None:
    """Say which isolation managed bots get on this machine, and why.

    \b
    Example:
      arena doctor
    """
    from arena.sandbox import describe, status

    for line in describe(status()):
        click.echo(line)
