"""Each bot's rating over a pool's games as one inline SVG chart, written in Python.

One line per bot for TrueSkill's μ, over a band for μ ± σ, against the pool's
games in the order they were rated. A rating holds from one of the bot's games
to its next, so lines and bands are drawn as steps. Every name is escaped.

The tournament report draws it into its page (`arena.report`), and the web front
into a pool's leaderboard page, from the points `GetRatingHistory` answers. The
module needs nothing but the standard library, and draws with SVG attributes
only (no style attribute, no script), so that a page under a strict
Content-Security-Policy shows it as it is.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A bot's TrueSkill rating after the pool's `game`-th rated game (0: before any)."""

    game: int
    mu: float
    sigma: float


@dataclass(frozen=True, slots=True)
class BotHistory:
    """One bot's rating over a pool's games, starting from the pool's initial rating."""

    bot: str
    points: tuple[RatingPoint, ...]


PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#8c6d31",
           "#666666")
"""Line colours, one per bot in leaderboard order (Okabe–Ito, told apart in colour
blindness; bots past the eighth reuse them, dashed)."""

WIDTH, HEIGHT = 760, 320
LEFT, RIGHT, TOP, BOTTOM = 52, 150, 14, 40


STYLE = """\
.chart { width: 100%; max-width: 860px; height: auto; }
.chart .grid { stroke: var(--line); }
.chart .tick { fill: var(--muted); font-size: 11px; }
.chart .axis { fill: var(--muted); font-size: 12px; }
.chart .legend { fill: var(--ink); font-size: 12px; }
.chart .muted { fill: var(--muted); }
.chart .band { fill-opacity: 0.13; stroke: none; }
.chart .mu { fill: none; stroke-width: 2; }
"""
"""The chart's style sheet (its colours come from the page's `--ink`, `--muted` and
`--line`): the report inlines it, the web front serves it as `/chart.css`."""


def colour(index: int) -> str:
    """The colour of the `index`-th bot's line."""
    return PALETTE[index % len(PALETTE)]


def rating_chart(histories: Sequence[BotHistory], games: int | None = None,
                 over: str = "the tournament") -> str:
    """The chart as an `<svg>` element; a short note when no game was rated.

    The x axis runs to the pool's `games` (by default the last game any of
    `histories` played), so that bots drawn from a larger pool keep their lines to
    its end; `over` says what the chart spans, for its accessible name."""
    last = max((point.game for h in histories for point in h.points), default=0)
    games = max(last, games or 0)
    if last == 0:
        return '<p class="note">No rated game yet: no rating to draw.</p>'
    low = min(p.mu - p.sigma for h in histories for p in h.points)
    high = max(p.mu + p.sigma for h in histories for p in h.points)
    ticks = nice_ticks(low, high)
    scale = _Scale(games, ticks[0], ticks[-1])
    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
             f'aria-label="rating of each bot over {escape(over)}">']
    parts += _axes(scale, ticks, games)
    for index, history in enumerate(histories):
        parts += _series(scale, history, index)
    parts += _legend(histories)
    parts.append("</svg>")
    return "\n".join(parts)


class _Scale:
    def __init__(self, games: int, low: float, high: float) -> None:
        self.games, self.low, self.high = games, low, high

    def x(self, game: float) -> float:
        return LEFT + (WIDTH - LEFT - RIGHT) * game / self.games

    def y(self, value: float) -> float:
        return TOP + (HEIGHT - TOP - BOTTOM) * (self.high - value) / (self.high - self.low)


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round values from at most `low` to at least `high`, about `count` steps apart."""
    if high <= low:
        low, high = low - 1, high + 1
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.floor(low / step) * step
    last = math.ceil(high / step) * step
    return [first + i * step for i in range(round((last - first) / step) + 1)]


def _axes(scale: _Scale, ticks: Sequence[float], games: int) -> list[str]:
    parts = []
    for tick in ticks:
        y = scale.y(tick)
        parts.append(f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" '
                     f'y2="{y:.1f}"/>')
        parts.append(f'<text class="tick" x="{LEFT - 6}" y="{y + 4:.1f}" '
                     f'text-anchor="end">{tick:g}</text>')
    for game in _game_ticks(games):
        x = scale.x(game)
        parts.append(f'<text class="tick" x="{x:.1f}" y="{HEIGHT - BOTTOM + 16}" '
                     f'text-anchor="middle">{game}</text>')
    parts.append(f'<text class="axis" x="{(LEFT + WIDTH - RIGHT) / 2:.0f}" y="{HEIGHT - 6}" '
                 'text-anchor="middle">games rated so far</text>')
    parts.append(f'<text class="axis" x="14" y="{(TOP + HEIGHT - BOTTOM) / 2:.0f}" '
                 f'text-anchor="middle" transform="rotate(-90 14 '
                 f'{(TOP + HEIGHT - BOTTOM) / 2:.0f})">TrueSkill μ (band: μ ± σ)</text>')
    return parts


def _game_ticks(games: int) -> list[int]:
    step = max(1, math.ceil(nice_ticks(0, games)[1]))
    return list(range(0, games + 1, step))


def _steps(history: BotHistory, level: Callable[[RatingPoint], float],
           games: int) -> list[tuple[int, float]]:
    """(game, level) corners of a step line that holds each rating until the bot's next
    game, and the last one to the end of the chart."""
    points = history.points
    corners: list[tuple[int, float]] = []
    for point, following in zip(points, [*points[1:], None], strict=True):
        corners.append((point.game, level(point)))
        corners.append((games if following is None else following.game, level(point)))
    return corners


def _series(scale: _Scale, history: BotHistory, index: int) -> list[str]:
    games = scale.games
    line = _steps(history, lambda p: p.mu, games)
    band = (_steps(history, lambda p: p.mu + p.sigma, games)
            + list(reversed(_steps(history, lambda p: p.mu - p.sigma, games))))
    dash = ' stroke-dasharray="6 3"' if index >= len(PALETTE) else ""
    last = history.points[-1]
    name = escape(history.bot)
    return [
        f'<g class="series" data-bot="{name}">',
        f'<polygon class="band" fill="{colour(index)}" points="{_coordinates(scale, band)}"/>',
        f'<polyline class="mu" stroke="{colour(index)}"{dash} '
        f'points="{_coordinates(scale, line)}"/>',
        f'<circle cx="{scale.x(last.game):.1f}" cy="{scale.y(last.mu):.1f}" r="3" '
        f'fill="{colour(index)}"><title>{name}: μ {last.mu:.2f}, σ {last.sigma:.2f} after '
        f'{len(history.points) - 1} games</title></circle>',
        "</g>",
    ]


def _coordinates(scale: _Scale, corners: Sequence[tuple[int, float]]) -> str:
    return " ".join(f"{scale.x(game):.1f},{scale.y(value):.1f}" for game, value in corners)


def _legend(histories: Sequence[BotHistory]) -> list[str]:
    parts = []
    x = WIDTH - RIGHT + 14
    for index, history in enumerate(histories):
        y = TOP + 12 + 20 * index
        last = history.points[-1]
        parts.append(f'<rect x="{x}" y="{y - 9}" width="14" height="10" rx="2" '
                     f'fill="{colour(index)}"/>')
        # Room for about 18 characters of 12px text: the name's first 12, then μ.
        shown = history.bot if len(history.bot) <= 12 else history.bot[:11] + "…"
        parts.append(f'<text class="legend" x="{x + 20}" y="{y}"><title>{escape(history.bot)}'
                     f'</title>{escape(shown)} <tspan class="muted">{last.mu:.1f}</tspan></text>')
    return parts
