"""What the command line prints: tables, JSON and CSV, colour, and progress bars."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

import click
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from arena.cli.inputs import (
    FORMATS,
)
from arena.v1 import admin_pb2


def use_color(stream: object = None) -> bool:
    """Colour only on a terminal, and never under NO_COLOR."""
    if "NO_COLOR" in os.environ:
        return False
    target = stream if stream is not None else sys.stdout
    isatty = getattr(target, "isatty", None)
    return bool(isatty and isatty())


def output_format(function: Callable[..., Any]) -> Callable[..., Any]:
    """The `--format table|json|csv` option of every listing."""
    return click.option("--format", "fmt", type=click.Choice(FORMATS), default="table",
                        show_default=True, help="Output format.")(function)


def emit(rows: Sequence[dict[str, Any]], fmt: str, empty: str = "nothing to show",
         columns: Sequence[str] = (), floatfmt: str = ".2f") -> None:
    """Print rows as a table (numbers in `floatfmt`), JSON or CSV; CSV without rows is the
    `columns` header alone.

    JSON keeps numbers as numbers and lists as lists, with a number that is not
    one (NaN) as null; CSV writes a list as its items separated by spaces and
    null as an empty cell.
    """
    if fmt == "json":
        click.echo(json.dumps([{k: _json_value(v) for k, v in row.items()} for row in rows],
                              indent=2, allow_nan=False))
    elif fmt == "csv":
        buffer = io.StringIO()
        fieldnames = list(dict.fromkeys(k for row in rows for k in row)) or list(columns)
        if fieldnames:
            writer = csv.DictWriter(buffer, fieldnames=fieldnames, lineterminator="\n")
            writer.writeheader()
            writer.writerows({k: _csv_value(v) for k, v in row.items()} for row in rows)
        click.echo(buffer.getvalue(), nl=False)
    elif rows:
        from tabulate import tabulate

        click.echo(tabulate(rows, headers="keys", floatfmt=floatfmt))
    else:
        click.echo(empty)


ToGo = Callable[[int], Awaitable["int | None"]]
"""Asked now and then during a sequential run, with the games done so far: how many more
games the run needs at the current effect (None: no estimate yet)."""

OUTLOOK_EVERY = 10.0
"""Seconds between two estimates of a run that plays until separated."""


async def follow_progress(updates: Any, label: str,
                          on_first: Callable[[admin_pb2.RunProgress], None] | None = None,
                          *, sequential: bool = False, to_go: ToGo | None = None,
                          limit: int | None = None, resume: str | None = None
                          ) -> admin_pb2.RunProgress:
    """Show a progress bar (games done of total, rate, time left) over a progress stream;
    `on_first` is called with the first update (the run has begun).

    A `sequential` run (SPRT, until separated) appends games as it plays: its bar says
    how many more games it expects at the current effect, with the time they take (from
    the SPRT's log-likelihood ratio, or from `to_go`), and its total stays above the
    games done until the run ends, so that the bar never reads full while it grows.
    `limit` is the most games the run may reach (--max-games): the bar's total stays
    within it, and an estimate past it says so. A run whose server went away before it
    could say so (the connection dropped while the run was under way) ends in a
    `click.ClickException` naming the games done and `resume`, the command that goes on."""
    last = admin_pb2.RunProgress()
    rate = _Rate(limit)
    bar: Any = None
    first = True
    estimating = None
    if to_go is not None:
        import asyncio  # not at import: `arena --help` loads no event loop

        estimating = asyncio.ensure_future(_estimate(to_go, rate))
    try:
        async for update in _until_server_gone(updates, rate, resume):
            if first and on_first is not None:
                on_first(update)
            first = False
            if update.notice:
                say_beside_bar(bar, update.notice)
                continue
            last = update
            rate.seen = update
            rate.done = update.done
            if update.HasField("sprt"):
                rate.to_go = sprt_games_to_go(update.sprt)
            if bar is None and update.total:
                rate.begin(update.done)
                rate.eta = not sequential
                bar = click.progressbar(length=update.total, label=label, show_eta=False,
                                        show_pos=True, file=sys.stderr, item_show_func=rate.text)
                bar.__enter__()
            if bar is not None:
                length = max(update.total, bar.length if sequential else 0)
                if sequential and update.status in ("", "running"):
                    length = max(length, update.done + max(rate.to_go or 0, 1))
                    if limit:
                        length = max(min(length, limit), update.total, update.done + 1)
                bar.length = length
                bar.update(update.done - bar.pos)
    finally:
        if estimating is not None:
            estimating.cancel()
        if bar is not None:
            if sequential and (last.conclusion or last.status == "finished"):
                bar.length = max(bar.pos, 1)  # decided: the games played were all it took
                bar.render_progress()
            bar.__exit__(None, None, None)
    return last


def say_beside_bar(bar: Any, line: str) -> None:
    """Print `line` on stderr on a line of its own, outside the progress `bar` (a
    `click.progressbar`, or None before it is drawn), which is drawn again below it."""
    drawn = bar is not None and getattr(bar, "_is_atty", False) and not bar.hidden
    if not drawn:
        click.echo(line, err=True)
        return
    click.echo(f"\r\x1b[K{line}", err=True)
    bar._last_line = None  # click draws only a line that changed: draw it again
    bar.render_progress()


async def _until_server_gone(updates: Any, rate: _Rate, resume: str | None
                             ) -> AsyncIterator[admin_pb2.RunProgress]:
    """`updates`, until a dropped connection ends a run that was under way: then what
    a server that stops says of it (`the server stopped: ...`)."""
    import grpc

    try:
        async for update in updates:
            yield update
    except grpc.aio.AioRpcError as exc:
        seen = rate.seen
        if exc.code() is not grpc.StatusCode.UNAVAILABLE or resume is None or not seen.total:
            raise
        raise click.ClickException(f"the server stopped: {seen.done} of {seen.total} games "
                                   f"done; {resume}") from None


async def _estimate(to_go: ToGo, rate: _Rate) -> None:
    """Ask `to_go` every `OUTLOOK_EVERY` seconds; a failed estimate is no estimate."""
    import asyncio

    while True:
        await asyncio.sleep(OUTLOOK_EVERY)
        try:
            rate.to_go = await to_go(rate.done)
        except Exception:  # an estimate is a courtesy: the run goes on without one
            rate.to_go = None


def sprt_games_to_go(state: admin_pb2.SprtState) -> int | None:
    """The games a sequential test still needs if its log-likelihood ratio keeps the
    slope it has had (its drift per deal block, the current effect), to the bound it
    heads for; None before two blocks, or with no drift."""
    if state.decision not in ("", "continue"):
        return 0
    if state.blocks < 2 or state.llr == 0:
        return None
    drift = state.llr / state.blocks
    bound = state.upper if drift > 0 else state.lower
    blocks_left = max(0.0, (bound - state.llr) / drift)
    games_per_block = state.games / state.blocks if state.games else 1.0
    return math.ceil(blocks_left * games_per_block)


def separation_games_to_go(separations: Iterable[admin_pb2.Separation],
                           games: int) -> int | None:
    """The games a run until separated still needs, from the leaderboard after `games`
    games: an interval narrows as one over the square root of the games, so a pair
    whose difference d has a half-width h is separated after about (h/d)² times the
    games so far. The pair that needs most decides; None when a pair shows no
    difference at all (no estimate), 0 when every pair is separated."""
    needed = 0.0
    for pair in separations:
        if pair.separated:
            continue
        difference = abs(pair.difference)
        if difference < 1e-9 or games <= 0:
            return None
        half_width = (pair.ci_high - pair.ci_low) / 2
        needed = max(needed, games * ((half_width / difference) ** 2 - 1))
    return math.ceil(needed)


def duration_text(seconds: float) -> str:
    """A rough duration: "40 s", "12 min", "3.5 h", "2.1 days"."""
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


class _Rate:
    """Games per second since a progress bar appeared, and what a sequential run still
    needs."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = limit
        self.started = time.monotonic()
        self.first_done = 0
        self.done = 0
        self.seen = admin_pb2.RunProgress()
        self.to_go: int | None = None
        self.eta = False
        """Whether the text ends with the time left to the run's total."""

    def begin(self, done: int) -> None:
        """Start counting now, at `done` games (a resumed run's games before this run are
        not this run's: its rate and time left count only the games it plays)."""
        self.started = time.monotonic()
        self.first_done = self.done = done

    @property
    def per_second(self) -> float:
        """Games per second this run."""
        played = max(self.done - self.first_done, 0)
        return played / max(time.monotonic() - self.started, 1e-9)

    def time_left(self) -> float | None:
        """Seconds to the run's total at this run's rate (None before its first game)."""
        rate = self.per_second
        if rate <= 0 or self.done <= self.first_done:
            return None
        return max(self.seen.total - self.done, 0) / rate

    def text(self, _: object) -> str:
        """What follows the bar: the rate, the time left or what a sequential run needs."""
        rate = f"{self.per_second:.1f} games/s"
        left = self.time_left() if self.eta else None
        if left is not None and self.done < self.seen.total:
            rate = f"{rate}, ~{duration_text(left)} left"
        if self.seen.HasField("sprt"):
            test = self.seen.sprt
            rate = f"{rate}  LLR {test.llr:+.2f} [{test.lower:.2f}, {test.upper:.2f}]"
        elif self.seen.unseparated:
            rate = f"{rate}  {len(self.seen.unseparated)} pair(s) not yet separated"
        if self.to_go:
            eta = (f" (~{duration_text(self.to_go / self.per_second)})"
                   if self.per_second > 0 else "")
            rate = f"{rate}  ≈{self.to_go:,} games to go at the current effect{eta}"
            if self.limit and self.done + self.to_go > self.limit:
                rate = f"{rate}, past --max-games {self.limit:,}"
        return rate


RANKING_COLUMNS = ("place", "bot", "score", "CI", "Elo", "μ", "σ", "games", "wins",
                   "win rate", "avg points")
TOURNAMENT_COLUMNS = ("name", "format", "status", "bots", "done", "games", "created")


def ranking_rows(rows: Iterable[admin_pb2.RankingRow]) -> list[dict[str, Any]]:
    """Leaderboard rows as the CLI's table shows them; when a bot's seats ended by its
    own fault (timeouts, crashes, illegal actions, ...), a `faults` column counts them."""
    rows = list(rows)
    table = [{"place": r.place or str(r.rank), "bot": r.bot, "score": _number(r.score, 3),
              "CI": _interval(r.ci_low, r.ci_high), "Elo": _elo_text(r), "μ": round(r.mu, 2),
              "σ": round(r.sigma, 2), "games": r.games, "wins": r.wins,
              "win rate": round(r.win_rate, 3), "avg points": round(r.average_points, 1)}
             for r in rows]
    if any(faults_text(r.terminations) for r in rows):
        for line, r in zip(table, rows, strict=True):
            line["faults"] = faults_text(r.terminations) or "-"
    return table


FAULT_WORDS = (("timeouts", "timeout", "timeouts"), ("crashes", "crash", "crashes"),
               ("illegal", "illegal action", "illegal actions"),
               ("disconnects", "disconnect", "disconnects"),
               ("malformed", "malformed answer", "malformed answers"))
"""Each field of `BotTerminations`, with its words for one game and for several."""


def faults_text(counts: admin_pb2.BotTerminations) -> str:
    """A bot's faulty games in words ("2 crashes, 1 timeout"); empty when it had none."""
    parts = []
    for field, one, several in FAULT_WORDS:
        count = getattr(counts, field)
        if count:
            parts.append(f"{count} {one if count == 1 else several}")
    return ", ".join(parts)


def fault_counts(row: admin_pb2.RankingRow) -> dict[str, int | None]:
    """A leaderboard row's fault counts under machine keys; None where the pool does not
    count them (a pool that is not a tournament's own)."""
    counted = row.HasField("terminations")
    return {field: getattr(row.terminations, field) if counted else None
            for field, _, _ in FAULT_WORDS}


def ranking_records(response: admin_pb2.GetRankingsResponse) -> list[dict[str, Any]]:
    """Leaderboard rows with machine keys and plain numbers, for JSON and CSV: each with its
    interval's level and method, its Elo, and the test against the bot just below it
    (difference, interval at the corrected level, p-value, method; null for the last)."""
    below = {s.upper: s for s in response.separations}
    return [{"pool": response.pool.key, "place": r.place or str(r.rank), "place_low": r.rank,
             "place_high": r.place_high or r.rank, "tier": r.tier, "bot": r.bot,
             "score": _plain(r.score), "ci_low": _plain(r.ci_low), "ci_high": _plain(r.ci_high),
             "ci_level": response.confidence, "ci_method": response.interval_method or None,
             **_elo_record(r),
             "mu": r.mu, "sigma": r.sigma, "conservative": r.conservative, "games": r.games,
             "wins": r.wins, "shared_firsts": r.shared_firsts, "win_rate": r.win_rate,
             "average_points": r.average_points,
             **fault_counts(r), **_separation_record(below.get(r.bot))}
            for r in response.rows]


def _elo_record(row: admin_pb2.RankingRow) -> dict[str, float | None]:
    from arena.stats.elo import logistic_elo

    return {key: _finite(logistic_elo(value)) if not math.isnan(value) else None
            for key, value in (("elo", row.score), ("elo_low", row.ci_low),
                               ("elo_high", row.ci_high))}


def _elo_text(row: admin_pb2.RankingRow) -> str:
    elo = _elo_record(row)
    if elo["elo"] is None and math.isnan(row.score):
        return "–"

    def text(value: float | None, fallback: float) -> str:
        return f"{value:+.0f}" if value is not None else ("+inf" if fallback > 0.5 else "-inf")

    return (f"{text(elo['elo'], row.score)} [{text(elo['elo_low'], row.ci_low)}, "
            f"{text(elo['elo_high'], row.ci_high)}]")


def _separation_record(separation: admin_pb2.Separation | None) -> dict[str, Any]:
    if separation is None:
        return dict.fromkeys(SEPARATION_RECORD_KEYS)
    return {"below": separation.lower, "difference_below": separation.difference,
            "difference_low": separation.ci_low, "difference_high": separation.ci_high,
            "difference_level": separation.level or None, "p_value_below": separation.p_value,
            "separated_from_below": separation.separated,
            "separation_method": separation.method or None}


SEPARATION_RECORD_KEYS = ("below", "difference_below", "difference_low", "difference_high",
                          "difference_level", "p_value_below", "separated_from_below",
                          "separation_method")


def pool_heading(pool: admin_pb2.PoolInfo) -> str:
    """The line above a pool's table: what it holds, how many games, its key."""
    games = f"{pool.games} game" + ("" if pool.games == 1 else "s")
    return f"{pool.description}: {games} (pool {pool.key})"


def interval_note(response: admin_pb2.GetRankingsResponse) -> str:
    """The line that says what a board's intervals are: level and method."""
    method = response.interval_method or "block-clustered Student-t"
    return (f"CI: {_level(response.confidence)} interval of the score ({method}); Elo: "
            "the logistic Elo of the score and of its interval")


def separation_notes(response: admin_pb2.GetRankingsResponse) -> list[str]:
    """A line for each adjacent pair the games do not separate, naming the level of the
    interval shown (corrected for the number of pairs) and how it is made."""
    pairs = len(response.separations)
    notes = []
    for s in response.separations:
        if s.separated:
            continue
        level = s.level or response.confidence
        correction = (f"{_level(level)} interval, Bonferroni over {pairs} adjacent pairs for "
                      f"{_level(response.confidence)} in all" if pairs > 1 else
                      f"{_level(level)} interval")
        notes.append(f"{s.upper} and {s.lower} share a place: their scores differ by "
                     f"{s.difference:+.3f} {_interval(s.ci_low, s.ci_high, signed=True)} "
                     f"({correction}; p = {s.p_value:.3g}), not separated")
    return notes


def _level(level: float) -> str:
    """A confidence level as a percentage, with a decimal when it has one (98.3%)."""
    text = f"{100 * level:.1f}".rstrip("0").rstrip(".")
    return f"{text}%"


def emit_rankings(responses: Sequence[admin_pb2.GetRankingsResponse], fmt: str,
                  prizes: Mapping[str, Sequence[str]] | None = None) -> None:
    """Print leaderboards: a table per pool with its heading and notes, or one JSON/CSV
    listing of every pool's rows. With `prizes` (pool key → its bots in the tie-break
    rule's order) each row also shows its prize rank, marked as a rule."""
    if fmt != "table":
        records = [row for r in responses for row in ranking_records(r)]
        if prizes is not None:
            from arena.stats.tiebreak import TIEBREAK_RULE

            for row in records:
                order = list(prizes.get(row["pool"], ()))
                row["prize_rank"] = order.index(row["bot"]) + 1 if row["bot"] in order else None
                row["tiebreak_rule"] = TIEBREAK_RULE
        emit(records, fmt, "no rated games yet",
             (*RANKING_RECORD_KEYS, "prize_rank", "tiebreak_rule") if prizes is not None
             else RANKING_RECORD_KEYS)
        return
    if not any(r.rows for r in responses):
        click.echo("no rated games yet")
        return
    from tabulate import tabulate

    for index, response in enumerate(r for r in responses if r.rows):
        if index:
            click.echo()
        click.echo(pool_heading(response.pool))
        rows = ranking_rows(response.rows)
        order = list((prizes or {}).get(response.pool.key, ()))
        if prizes is not None:
            rows = [{"prize": order.index(r.bot) + 1 if r.bot in order else "-", **row}
                    for r, row in zip(response.rows, rows, strict=True)]
        click.echo(tabulate(rows, headers="keys", floatfmt=".2f", disable_numparse=True))
        click.echo(interval_note(response))
        for note in separation_notes(response):
            click.echo(note)
        if prizes is not None:
            from arena.stats.tiebreak import TIEBREAK_RULE

            click.echo(f"prize: {TIEBREAK_RULE}")


RANKING_RECORD_KEYS = ("pool", "place", "place_low", "place_high", "tier", "bot", "score",
                       "ci_low", "ci_high", "ci_level", "ci_method", "elo", "elo_low",
                       "elo_high", "mu", "sigma", "conservative", "games", "wins",
                       "shared_firsts", "win_rate", "average_points", "timeouts", "crashes",
                       "illegal", "disconnects", "malformed", *SEPARATION_RECORD_KEYS)


_WIDE_INTEGERS = frozenset({FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT64,
                            FieldDescriptor.TYPE_SINT64, FieldDescriptor.TYPE_FIXED64,
                            FieldDescriptor.TYPE_SFIXED64})


def plain_dict(message: Message) -> dict[str, Any]:
    """A message as a JSON object with every field written out and its 64-bit integers
    as numbers (protobuf's JSON writes them as strings)."""
    from arena import wire

    return _numbers_back(message.DESCRIPTOR, wire.message_to_dict(message, with_defaults=True))


def _numbers_back(descriptor: Any, data: dict[str, Any]) -> dict[str, Any]:
    for field in descriptor.fields:
        if field.name not in data:
            continue
        value = data[field.name]
        repeated = field.is_repeated
        if field.message_type is not None:
            items = value if repeated else [value]
            for item in items:
                _numbers_back(field.message_type, item)
        elif field.type in _WIDE_INTEGERS:
            data[field.name] = [int(v) for v in value] if repeated else int(value)
    return data


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list | tuple):
        return [_json_value(item) for item in value]
    return value


def _csv_value(value: Any) -> Any:
    value = _json_value(value)
    if isinstance(value, list):
        return " ".join(str(item) for item in value)
    return "" if value is None else value


def _plain(value: float) -> float | None:
    return None if math.isnan(value) else value


def _number(value: float, digits: int) -> str:
    return "–" if math.isnan(value) else f"{value:.{digits}f}"


def _interval(low: float, high: float, signed: bool = False) -> str:
    if math.isnan(low) or math.isnan(high):
        return "–"
    sign = "+" if signed else ""
    return f"[{low:{sign}.3f}, {high:{sign}.3f}]"


def tournament_row(t: admin_pb2.TournamentInfo) -> dict[str, Any]:
    """A tournament as a table shows it."""
    return {"name": t.name, "format": t.format, "status": t.status, "bots": len(t.bots),
            "done": t.games_done, "games": t.games_total, "created": t.created_at}


def tournament_record(t: admin_pb2.TournamentInfo) -> dict[str, Any]:
    """A tournament under machine keys, for JSON and CSV."""
    return {"name": t.name, "format": t.format, "status": t.status, "bots": list(t.bots),
            "games_done": t.games_done, "games_total": t.games_total,
            "created_at": t.created_at, "run_by": t.run_by or None}


TOURNAMENT_RECORD_KEYS = ("name", "format", "status", "bots", "games_done", "games_total",
                          "created_at", "run_by")


def scheduled_row(t: admin_pb2.ScheduledTournamentInfo) -> dict[str, Any]:
    """A tournament on the timetable as a table shows it (times in local time)."""
    from arena.tournament.timetable import local_text, period_text

    upcoming = datetime.fromisoformat(t.next_start) if t.next_start else None
    next_start = "-" if upcoming is None else local_text(
        upcoming, seconds=bool(upcoming.second or upcoming.microsecond))
    return {"name": t.name, "format": t.format, "next start": next_start,
            "every": period_text(t.every_seconds or None),
            "bots": "latest versions" if t.latest_entrants else " ".join(t.bots),
            "share": f"{t.share:.0%}", "editions": t.editions,
            "last edition": t.last_edition or "-"}


def scheduled_record(t: admin_pb2.ScheduledTournamentInfo) -> dict[str, Any]:
    """A tournament on the timetable under machine keys, for JSON and CSV: the keys of a
    tournament's (its games none), then when and how often it starts."""
    return {"name": t.name, "format": t.format,
            "status": "scheduled" if t.next_start else "ended",
            "bots": None if t.latest_entrants else list(t.bots), "games_done": None,
            "games_total": None, "created_at": t.created_at, "run_by": None,
            "next_start": t.next_start or None, "every_seconds": t.every_seconds or None,
            "share": t.share, "editions": t.editions, "last_edition": t.last_edition or None,
            "next_edition": t.next_edition or None}


def run_faults_warning(last: admin_pb2.RunProgress) -> str | None:
    """The line that ends a run whose games had bots fail (timeouts, crashes, illegal
    actions, ...), naming each and where to look; None for a run without any."""
    failed = [f"{t.bot} ({faults_text(t)})" for t in last.terminations if faults_text(t)]
    if not failed:
        return None
    return (f"warning: bots failed in this run's games: {'; '.join(failed)}; "
            f"`arena games --tournament {last.tournament}` shows which games, "
            "the bots' logs why")


SPRT_STOP_BIAS = (
    "the SPRT chose when this match stopped, so the board's scores and their fixed-sample "
    "intervals are biased by the stop (a run that happened to go well stops sooner); the "
    "SPRT's sequential interval above holds at any stop.")
"""Said under the board of a match the SPRT stopped."""


def estimate_text(estimate: admin_pb2.Estimate, digits: int = 3, signed: bool = False) -> str:
    """A point estimate with its interval, level and method: "0.538 [0.511, 0.565] (95%,
    method)"; an infinite end (Elo of a perfect score) as ±inf."""
    sign = "+" if signed else ""

    def number(value: float) -> str:
        if math.isinf(value):
            return "+inf" if value > 0 else "-inf"
        return "–" if math.isnan(value) else f"{value:{sign}.{digits}f}"

    return (f"{number(estimate.value)} [{number(estimate.low)}, {number(estimate.high)}] "
            f"({estimate.level:.0%}, {estimate.method})")


def sprt_lines(test: admin_pb2.SprtState) -> list[str]:
    """What an SPRT says about its bot, line by line: score, Elo, normalized Elo."""
    lines = [f"{test.bot or 'the first bot'}: score per deal "
             f"{estimate_text(test.score)}",
             f"Elo {estimate_text(test.elo, 1, signed=True)}"]
    if test.HasField("normalized_elo"):
        lines.append(f"normalized Elo {estimate_text(test.normalized_elo, 1, signed=True)}")
    return lines


def estimate_record(estimate: admin_pb2.Estimate) -> dict[str, Any]:
    """An estimate under machine keys; an infinite or undefined number as null."""
    return {"value": _finite(estimate.value), "low": _finite(estimate.low),
            "high": _finite(estimate.high), "level": estimate.level, "method": estimate.method}


def sprt_record(test: admin_pb2.SprtState) -> dict[str, Any]:
    """An SPRT's state under machine keys, with its LLR after every deal block."""
    return {"bot": test.bot, "model": test.model, "h0": test.h0, "h1": test.h1,
            "decision": test.decision, "llr": test.llr, "lower_bound": test.lower,
            "upper_bound": test.upper, "blocks": test.blocks, "games": test.games,
            "llr_history": list(test.llr_history), "score": estimate_record(test.score),
            "elo": estimate_record(test.elo),
            "normalized_elo": estimate_record(test.normalized_elo)
            if test.HasField("normalized_elo") else None,
            "stopped_early": test.stopped_early,
            "note": SPRT_STOP_BIAS if test.stopped_early else None}


def match_record(last: admin_pb2.RunProgress,
                 standings: Sequence[admin_pb2.GetRankingsResponse]) -> dict[str, Any]:
    """A match's result as JSON: its tournament, the SPRT (if it ran one) and the rankings."""
    return {"tournament": last.tournament, "conclusion": last.conclusion or None,
            "sprt": sprt_record(last.sprt) if last.HasField("sprt") else None,
            "rankings": [{k: _json_value(v) for k, v in row.items()}
                         for response in standings for row in ranking_records(response)]}


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None
