"""A tournament's report as one self-contained HTML page.

The page carries its style sheet, its script, its chart (inline SVG) and its
games (a JSON block) inside itself and refers to nothing outside: it can be
mailed, archived or opened from disk with no network. Every value from the data
is escaped where it enters HTML, and the JSON block cannot close its own
`<script>` element.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from arena import stats
from arena.chart import STYLE as CHART_STYLE
from arena.chart import colour, rating_chart
from arena.record import SeatTermination
from arena.report.assets import SCRIPT, STYLE
from arena.report.data import GameReplay, Report
from arena.report.replay import Frame


def render(report: Report) -> str:
    """The whole page."""
    name = escape(report.tournament.name)
    sections = [_leaderboard(report), _crosstable(report), _ratings(report), _seats(report),
                _endings(report), _games(report)]
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>arena report: {name}</title>",
        f"<style>{STYLE}{CHART_STYLE}</style></head><body>",
        _header(report),
        '<nav><a href="#leaderboard">Leaderboard</a><a href="#crosstable">Crosstable</a>'
        '<a href="#ratings">Ratings</a><a href="#seats">Seats</a>'
        '<a href="#terminations">Terminations</a><a href="#games">Games</a></nav>',
        "<main>", *sections, "</main>",
        f'<script type="application/json" id="games-data">{script_json(_games_json(report))}'
        "</script>",
        f"<script>{SCRIPT}</script>",
        "</body></html>",
    ])


def script_json(value: Any) -> str:
    """`value` as JSON that is safe inside a `<script>` element: no `<`, `>` or `&`,
    and no line separators, appear unescaped."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                         ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(raw, escaped)
    return text


def _header(report: Report) -> str:
    t = report.tournament
    rules = t.rules
    facts = [t.format.replace("_", " "), f"{len(report.bots)} bots",
             f"{report.games_done} of {report.games_total} games played", t.status.value,
             f"tables of {t.settings.get('table_size', '?')}",
             _game_length(rules),
             f"pool {report.pool_key}",
             f"made {report.made_at:%Y-%m-%d %H:%M} UTC"]
    return (f"<header><h1>Tournament {escape(t.name)}</h1>"
            f'<div class="facts">{escape(" · ".join(str(f) for f in facts))}</div></header>')


def _game_length(rules: dict[str, Any]) -> str:
    if rules.get("scoring") == "individual":
        return f"{rules.get('individual_hands', '?')} hands a game"
    target = rules.get("target_score")
    return "single hands" if target is None else f"games to {target} points"


def _section(anchor: str, title: str, *body: str) -> str:
    return f'<section id="{anchor}"><h2>{escape(title)}</h2>' + "\n".join(body) + "</section>"


def _table(headers: Sequence[str], rows: Iterable[str], cls: str = "", left: int = 1) -> str:
    """A table whose first `left` columns are text, aligned left, and the rest numbers."""
    head = "".join(f'<th class="name">{escape(h)}</th>' if i < left else f"<th>{escape(h)}</th>"
                   for i, h in enumerate(headers))
    return (f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>'
            + "".join(rows) + "</tbody></table>")


def _bot_cell(bot: str, index: int | None = None) -> str:
    swatch = "" if index is None else \
        f'<span class="swatch" style="background:{colour(index)}"></span>'
    return f'<td class="name bot">{swatch}{escape(bot)}</td>'


def _number(value: float, digits: int = 3) -> str:
    return "–" if math.isnan(value) else f"{value:.{digits}f}"


def _leaderboard(report: Report) -> str:
    if report.ranking is None:
        return _section("leaderboard", "Leaderboard", '<p class="note">No rated game yet.</p>')
    rows = []
    for index, line in enumerate(report.ranking.lines):
        rows.append(
            f'<tr class="standing" data-bot="{escape(line.bot)}">'
            f"<td class=\"name\">{escape(line.place)}</td>{_bot_cell(line.bot, index)}"
            f"<td>{_number(line.score)}</td>"
            f'<td class="muted">[{_number(line.ci_low)}, {_number(line.ci_high)}]</td>'
            f"<td>{line.mu:.2f}</td><td>{line.sigma:.2f}</td><td>{line.conservative:.2f}</td>"
            f"<td>{line.games}</td><td>{line.wins}</td><td>{line.win_rate:.1%}</td>"
            f"<td>{line.average_points:.1f}</td></tr>")
    headers = ["place", "bot", "score", "interval", "μ", "σ", "μ − 3σ", "games", "wins",
               "win rate", "avg points"]
    table = _table(headers, rows, "leaderboard", left=2)
    confidence = f"{report.ranking.confidence:.0%}"
    notes = [f'<p class="note">Score: the share of opponents a bot placed above (ties count '
             f"half; 0.5 is average), with its {confidence} interval. Bots the games cannot "
             f"separate at {confidence} share a place. μ and σ are TrueSkill's, in the "
             "tournament's own pool.</p>"]
    for pair in report.ranking.separations:
        if not pair.separated:
            notes.append(f'<p class="note">{escape(pair.upper)} and {escape(pair.lower)} '
                         f"share a place: their scores differ by {pair.difference:+.3f} "
                         f"[{pair.ci_low:+.3f}, {pair.ci_high:+.3f}].</p>")
    return _section("leaderboard", "Leaderboard", table, *notes)


def _crosstable(report: Report) -> str:
    if not report.crosstable:
        return _section("crosstable", "Crosstable", '<p class="note">No games yet.</p>')
    order = [line.bot for line in report.ranking.lines] if report.ranking else []
    order += sorted({row.bot for row in report.crosstable} - set(order))
    cells = {(row.bot, row.opponent): row for row in report.crosstable}
    rows = []
    for index, bot in enumerate(order):
        tds = [_bot_cell(bot, index)]
        for opponent in order:
            row = cells.get((bot, opponent))
            if bot == opponent:
                tds.append('<td class="cell self"></td>')
            elif row is None:
                tds.append('<td class="cell muted">–</td>')
            else:
                tds.append(_meeting(row))
        rows.append("<tr>" + "".join(tds) + "</tr>")
    headers = ["bot \u2193 against \u2192", *order]
    note = ('<p class="note">Each cell: the row bot\'s score against the column bot over the '
            "games both played (wins plus half the draws, per game), with wins–losses–draws. "
            "Hover a cell for its interval and the likelihood of superiority.</p>")
    return _section("crosstable", "Crosstable", _table(headers, rows, "cross"), note)


def _meeting(row: stats.HeadToHead) -> str:
    shade = max(-1.0, min(1.0, (row.score - 0.5) * 2))
    background = (f"rgba(0,158,115,{0.35 * shade:.2f})" if shade >= 0
                  else f"rgba(213,94,0,{-0.35 * shade:.2f})")
    title = (f"{row.bot} against {row.opponent}: score {row.score:.3f} "
             f"[{row.score_low:.3f}, {row.score_high:.3f}], LOS {row.los:.1%}, "
             f"{row.games} games")
    return (f'<td class="cell" style="background:{background}" title="{escape(title)}">'
            f"{row.score:.3f}<span class=\"wld\">{row.wins}–{row.losses}–{row.draws}</span></td>")


def _ratings(report: Report) -> str:
    note = ('<p class="note">The line is each bot\'s TrueSkill μ after each game of the '
            "tournament, the band μ ± σ: it narrows as the games tell more. A rating holds "
            "until the bot's next game. Every bot starts from the pool's initial rating.</p>")
    return _section("ratings", "Rating over time", rating_chart(report.histories), note)


def _seats(report: Report) -> str:
    statistics = report.statistics
    if statistics is None or not statistics.seat_tables:
        return _section("seats", "Per-seat results", '<p class="note">No games yet.</p>')
    parts = []
    for table in statistics.seat_tables:
        teams = f" in {len(table.teams)} teams" if table.teams else ""
        parts.append(f"<h3>{table.table_size} seats{teams}, {table.games} games</h3>")
        rows = [f"<tr><td class=\"name\">seat {s.seat}</td><td>{s.games}</td>"
                f"<td>{s.score:.3f}</td><td>{s.wins}</td><td>{s.win_rate:.1%}</td></tr>"
                for s in table.seats]
        parts.append(_table(["seat", "games", "score", "wins", "win rate"], rows))
        p_value = "–" if math.isnan(table.p_value) else f"{table.p_value:.3f}"
        parts.append(f'<p class="note">χ² = {_number(table.chi_square, 2)} on '
                     f"{table.degrees_of_freedom} df, p = {p_value} (no seat effect on "
                     "wins).</p>")
    duplicate = statistics.duplicate
    if duplicate is None:
        parts.append('<p class="note">No duplicate deals: every game has a deal of its own.</p>')
    else:
        parts.append(
            f'<p class="note">Duplicate deals: {duplicate.blocks} times a bot played one deal '
            f"in {duplicate.block_size} rotations; correlation between rotations "
            f"{duplicate.intraclass_correlation:+.3f}, design effect "
            f"{duplicate.design_effect:.3f}.</p>")
    return _section("seats", "Per-seat results", *parts)


def _endings(report: Report) -> str:
    if not report.seat_endings:
        return _section("terminations", "Terminations", '<p class="note">No games yet.</p>')
    kinds = [kind for kind in SeatTermination
             if kind is SeatTermination.NORMAL
             or any(kind in row.counts for row in report.seat_endings)]
    rows = []
    for row in report.seat_endings:
        cells = "".join(_ending_cell(kind, row.counts.get(kind, 0)) for kind in kinds)
        rows.append(f'<tr>{_bot_cell(row.bot)}{cells}</tr>')
    games = ", ".join(f"{escape(kind.replace('_', ' '))} {count}"
                      for kind, count in sorted(report.game_endings.items()))
    note = ('<p class="note">How each bot\'s part in its games ended: normal, or a forfeit '
            "(timeout, illegal, disconnect, crash, malformed), or aborted by the server. "
            f"Games ended by: {games}.</p>")
    return _section("terminations", "Terminations",
                    _table(["bot", *[kind.value for kind in kinds]], rows), note)


def _ending_cell(kind: SeatTermination, count: int) -> str:
    flagged = kind is not SeatTermination.NORMAL and count > 0
    return f'<td class="bad">{count}</td>' if flagged else f"<td>{count}</td>"


def _games(report: Report) -> str:
    if not report.games:
        return _section("games", "Games", '<p class="note">No games yet.</p>')
    options = "".join(f'<option value="{g.game_id}">game {escape(g.public_id)}: '
                      f'{escape(" · ".join(g.seats))}</option>' for g in report.games)
    viewer = (
        '<div class="viewer" id="viewer"><div class="controls">'
        f'<select aria-label="game">{options}</select>'
        '<button data-go="first" title="first event">first</button>'
        '<button data-go="prev" title="previous event (←)">◀ back</button>'
        '<button data-go="next" title="next event (→)">next ▶</button>'
        '<button data-go="last" title="last event">last</button>'
        '<input type="range" min="0" max="0" value="0" aria-label="event">'
        '<span class="step"></span></div>'
        '<div class="event"></div>'
        '<div class="board"><div class="seats"></div><div class="centre"></div></div></div>')
    rows = [_game_row(game) for game in report.games]
    note = ('<p class="note">The replay shows what every seat could see: the cards played, '
            "how many each hand held, and the hands laid open when a hand ended. The "
            "highlighted seat is the one whose decision was due after the event.</p>")
    table = _table(["game", "seats", "scores", "winner", "ended", "hands", ""], rows, "games",
                   left=2)
    return _section("games", "Games", viewer, note, table)


def _game_row(game: GameReplay) -> str:
    winners = [bot for bot, rank in zip(game.seats, game.ranks, strict=True) if rank == 0]
    endings = "".join(
        f' <span class="bad">{escape(bot)}: {escape(ending.value)}</span>'
        for bot, ending in zip(game.seats, game.seat_terminations, strict=True)
        if ending is not SeatTermination.NORMAL)
    if game.problem is not None:
        endings += f' <span class="bad" title="{escape(game.problem)}">no replay</span>'
    return (f'<tr><td class="name">{escape(game.public_id)}</td>'
            f'<td class="name">{escape(" · ".join(game.seats))}</td>'
            f'<td>{escape(" ".join(str(s) for s in game.scores))}</td>'
            f'<td class="name bot">{escape(", ".join(winners))}</td>'
            f'<td class="name">{escape(game.termination.replace("_", " "))}{endings}</td>'
            f"<td>{game.hands_played}</td>"
            f'<td><button data-game="{game.game_id}">replay</button></td></tr>')


def _games_json(report: Report) -> list[dict[str, Any]]:
    return [{"id": game.game_id, "seats": list(game.seats), "teams": _team_of_seat(game),
             "problem": game.problem, "frames": frame_changes(game.frames)}
            for game in report.games]


def _team_of_seat(game: GameReplay) -> list[int] | None:
    if game.teams is None:
        return None
    team_of = {seat: team for team, seats in enumerate(game.teams) for seat in seats}
    return [team_of[seat] for seat in range(len(game.seats))]


def frame_json(frame: Frame) -> dict[str, Any]:
    """One frame as the page's script reads it, under short keys."""
    data: dict[str, Any] = {
        "t": frame.text, "a": frame.actor, "n": frame.to_act, "p": frame.phase,
        "h": frame.hand_number, "c": list(frame.hand_counts), "top": frame.top,
        "col": frame.color, "d": frame.direction, "sc": list(frame.totals),
        "el": list(frame.eliminated)}
    if frame.revealed:
        data["rev"] = [list(cards) for cards in frame.revealed]
    return data


def frame_changes(frames: Sequence[Frame]) -> list[dict[str, Any]]:
    """Each frame as what changed since the frame before (the first in full); the
    script rebuilds frame i as frame i − 1 without "rev", updated with change i.
    Most of a board stays as it was from one event to the next, so this keeps a
    page with many long games a fraction of its size."""
    changes: list[dict[str, Any]] = []
    previous: dict[str, Any] = {}
    for frame in frames:
        data = frame_json(frame)
        changes.append({key: value for key, value in data.items()
                        if key == "rev" or key not in previous or previous[key] != value})
        previous = data
    return changes
