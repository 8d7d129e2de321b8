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
    from arena.submissions.build import describe_builds

    for line in [*describe(status()), *describe_builds()]:
        click.echo(line)
