"""The `arena` command line: a thin click layer over the engine, server and tournaments."""

from __future__ import annotations

import os
import sys

import click

from arena import render
from arena.engine import Game, RuleSet
from arena.players import greedy_player, random_player


def use_color(stream: object = None) -> bool:
    """Colour only on a terminal, and never under NO_COLOR."""
    if "NO_COLOR" in os.environ:
        return False
    target = stream if stream is not None else sys.stdout
    isatty = getattr(target, "isatty", None)
    return bool(isatty and isatty())


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="arena")
def main() -> None:
    """arena: UNO bots in any language, battling over gRPC.

    \b
    Example:
      arena demo
    """


@main.command()
@click.option("--seed", type=int, default=7, show_default=True, help="Seed of the game.")
@click.option("--players", type=click.IntRange(2, 10), default=4, show_default=True)
def demo(seed: int, players: int) -> None:
    """Play one game to 500 between in-process players, printed hand by hand.

    \b
    Example:
      arena demo --seed 3 --players 3
    """
    color = use_color()
    names = ["greedy" if seat % 2 == 0 else "random" for seat in range(players)]
    names = [f"{name}-{seat}" for seat, name in enumerate(names)]
    deciders = [greedy_player if seat % 2 == 0 else random_player(seed + seat)
                for seat in range(players)]
    game = Game.new(RuleSet(), players, seed)
    for event in game.events:
        _echo_event(event, names, color)
    while game.outcome is None:
        seat = game.decider
        assert seat is not None
        action = deciders[seat](game.view(seat), game.legal_actions())
        for event in game.apply(action):
            _echo_event(event, names, color)


def _echo_event(event: object, names: list[str], color: bool) -> None:
    from arena.engine import events as ev

    if isinstance(event, ev.Event) and event.audience is None:
        line = render.describe(event, names, color)
        if line is not None:
            click.echo(line)
