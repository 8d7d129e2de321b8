"""`arena login|whoami|logout`, `arena author …` and `arena audit`: the people of a
hosted competition, their tokens and what they did."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from arena.cli.app import main
from arena.cli.context import Context, pass_context
from arena.cli.output import emit, output_format
from arena.v1 import admin_pb2

if TYPE_CHECKING:
    from arena.cli.session import Session

_ROLES = click.Choice(["author", "viewer"])


def _quota_options(function: Any) -> Any:
    """The per-author quota options of `author add` and `author set`."""
    options = [
        click.option("--submissions-per-hour", type=click.IntRange(1), default=None,
                     help="Submissions an hour [default: 10]."),
        click.option("--submissions-per-day", type=click.IntRange(1), default=None,
                     help="Submissions a day [default: 50]."),
        click.option("--active-versions", type=click.IntRange(1), default=None,
                     help="Versions not retired (nor failed) at once [default: 5]."),
        click.option("--upload-mib", type=click.IntRange(1, 4096), default=None,
                     help="The largest archive, in MiB [default: 16; the server's own "
                          "limit still applies]."),
        click.option("--build-seconds", type=click.IntRange(1, 86_400), default=None,
                     help="The longest a build may take [default: 300; the server's own "
                          "limit still applies]."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def _quota(submissions_per_hour: int | None, submissions_per_day: int | None,
           active_versions: int | None, upload_mib: int | None,
           build_seconds: int | None) -> admin_pb2.QuotaInfo:
    return admin_pb2.QuotaInfo(
        submissions_per_hour=submissions_per_hour or 0,
        submissions_per_day=submissions_per_day or 0, active_versions=active_versions or 0,
        upload_bytes=(upload_mib or 0) * 1024 * 1024, build_seconds=build_seconds or 0)


def quota_text(quota: admin_pb2.QuotaInfo) -> str:
    """An author's quota in one line."""
    return (f"{quota.submissions_per_hour}/h, {quota.submissions_per_day}/day, "
            f"{quota.active_versions} active, {quota.upload_bytes / 2**20:.0f} MiB, "
            f"build {quota.build_seconds} s")


def _author_row(author: admin_pb2.AuthorInfo) -> dict[str, Any]:
    return {"name": author.name, "role": author.role, "may_run": author.may_run,
            "quota": quota_text(author.quota), "bots": " ".join(author.bots) or "-",
            "created": author.created_at}


def _show_token(what: str, response: admin_pb2.AuthorTokenResponse) -> None:
    click.echo(f"{what} {response.author.role} {response.author.name}", err=True)
    click.echo(f"token (shown once, keep it; `arena login --server ADDR` stores it): "
               f"{response.token}", err=True)
    click.echo(response.token)


# ------------------------------------------------------------------ signing in

def _remote(context: Context, server: str | None, token: str | None) -> Context:
    """`context` aimed at `server` with `token`, each when given."""
    address = server or context.server
    if not address:
        raise click.UsageError("name the server: --server HOST:PORT")
    return Context(address, context.db, token or context.token)


@main.command()
@click.option("--server", "server", metavar="HOST:PORT", default=None,
              help="The server to sign in to (or arena's own --server).")
@click.option("--token", "token", default=None, metavar="TOKEN",
              help="The token the organizer gave you (asked for when not given).")
@pass_context
def login(context: Context, server: str | None, token: str | None) -> None:
    """Check a token with a server and keep it for later commands to that server.

    The token is kept in an owner-only file under your config folder
    ($XDG_CONFIG_HOME/arena/credentials.json, or ~/.config/arena/...),
    one per server; `arena --server ADDR ...` then sends it.

    \b
    Example:
      arena login --server arena.example.org:50051
    """
    from arena.cli.credentials import store_token

    target = _remote(context, server, token)
    if not target.token:
        target.token = click.prompt("token", hide_input=True).strip()

    async def body(session: Session) -> admin_pb2.WhoAmIResponse:
        return await session.admin.WhoAmI(admin_pb2.WhoAmIRequest())

    me = target.run(body, read_only=True)
    assert target.server is not None and target.token is not None
    try:
        path = store_token(target.server, target.token, me.name, me.role)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"signed in to {target.server} as {me.role} {me.name} (token kept in {path})")


@main.command()
@click.option("--server", "server", metavar="HOST:PORT", default=None,
              help="The server to sign out of (or arena's own --server).")
@pass_context
def logout(context: Context, server: str | None) -> None:
    """Forget the token kept for a server.

    \b
    Example:
      arena logout --server arena.example.org:50051
    """
    from arena.cli.credentials import forget_token

    target = _remote(context, server, None)
    assert target.server is not None
    try:
        had = forget_token(target.server)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"signed out of {target.server}" if had
               else f"no token was kept for {target.server}")


@main.command()
@output_format
@pass_context
def whoami(context: Context, fmt: str) -> None:
    """Who the server takes you for, and what you may do.

    \b
    Example:
      arena --server arena.example.org:50051 whoami
    """
    async def body(session: Session) -> admin_pb2.WhoAmIResponse:
        return await session.admin.WhoAmI(admin_pb2.WhoAmIRequest())

    me = context.run(body, read_only=True)
    row: dict[str, Any] = {"role": me.role, "name": me.name, "may_run": me.may_run}
    if me.role == "author":
        row["quota"] = quota_text(me.quota)
        row["bots"] = " ".join(me.bots) or "-"
    emit([row], fmt)


# -------------------------------------------------------------------- authors

@main.group()
def author() -> None:
    """The organizer's: let authors (who enter bots) and viewers in.

    Each gets a token of their own, shown once; an author submits and
    follows only their own bots, within a quota. With an invite code,
    people register themselves.

    \b
    Example:
      arena --server HOST:PORT author add alice
      arena --server HOST:PORT author add bob --submissions-per-day 20 --may-run
      arena --server HOST:PORT author invite --cap 200
      arena author register --server HOST:PORT --invite CODE carol
    """


@author.command("add")
@click.argument("name")
@click.option("--role", type=_ROLES, default="author", show_default=True)
@click.option("--may-run", is_flag=True,
              help="Let them create and run tournaments, matches and ladders.")
@_quota_options
@pass_context
def author_add(context: Context, /, name: str, role: str, may_run: bool,
               **quota: int | None) -> None:
    """Add an author (or a viewer) and print their token (shown only this once).

    \b
    Example:
      arena --server HOST:PORT author add alice
      arena --server HOST:PORT author add judge --role viewer
      arena --server HOST:PORT author add bob --submissions-per-day 20 --may-run
    """
    request = admin_pb2.AddAuthorRequest(name=name, role=role, may_run=may_run,
                                         quota=_quota(**quota))

    async def body(session: Session) -> admin_pb2.AuthorTokenResponse:
        return await session.admin.AddAuthor(request)

    _show_token("added", context.run(body))


@author.command("list")
@output_format
@pass_context
def author_list(context: Context, fmt: str) -> None:
    """List the authors and viewers, with their bots, and the invites.

    \b
    Example:
      arena --server HOST:PORT author list --format json
    """
    async def body(session: Session) -> admin_pb2.ListAuthorsResponse:
        return await session.admin.ListAuthors(admin_pb2.ListAuthorsRequest())

    response = context.run(body, read_only=True)
    emit([_author_row(a) for a in response.authors], fmt, empty="no authors yet",
         columns=["name", "role", "may_run", "quota", "bots", "created"])
    if fmt == "table" and response.invites:
        click.echo("")
        emit([{"invite": i + 1, "role": invite.role, "used": f"{invite.used}/{invite.cap}",
               "created": invite.created_at} for i, invite in enumerate(response.invites)],
             fmt)


@author.command("remove")
@click.argument("name")
@pass_context
def author_remove(context: Context, name: str) -> None:
    """Remove an author: their token stops working and their bots retire (their games
    and ratings stay).

    \b
    Example:
      arena --server HOST:PORT author remove alice
    """
    async def body(session: Session) -> admin_pb2.RemoveAuthorResponse:
        return await session.admin.RemoveAuthor(admin_pb2.RemoveAuthorRequest(name=name))

    response = context.run(body)
    retired = ", ".join(response.retired_bots) or "none"
    click.echo(f"removed {response.author.role} {response.author.name}; bots retired: {retired}")


@author.command("rotate")
@click.argument("name")
@pass_context
def author_rotate(context: Context, name: str) -> None:
    """Give an author a new token (printed once); the old one stops working.

    \b
    Example:
      arena --server HOST:PORT author rotate alice
    """
    async def body(session: Session) -> admin_pb2.AuthorTokenResponse:
        return await session.admin.RotateAuthorToken(
            admin_pb2.RotateAuthorTokenRequest(name=name))

    _show_token("new token for", context.run(body))


@author.command("set")
@click.argument("name")
@click.option("--may-run/--may-not-run", "may_run", default=None,
              help="Whether they may create and run tournaments, matches and ladders.")
@_quota_options
@pass_context
def author_set(context: Context, /, name: str, may_run: bool | None,
               **quota: int | None) -> None:
    """Change an author's quota (the figures given) or what they may run.

    \b
    Example:
      arena --server HOST:PORT author set alice --active-versions 10 --may-run
    """
    request = admin_pb2.SetAuthorRequest(name=name, quota=_quota(**quota))
    if may_run is not None:
        request.may_run = may_run

    async def body(session: Session) -> admin_pb2.AuthorInfo:
        return await session.admin.SetAuthor(request)

    emit([_author_row(context.run(body))], "table")


@author.command("invite")
@click.option("--cap", type=click.IntRange(1, 100_000), default=1, show_default=True,
              help="How many people may register with the code.")
@click.option("--role", type=_ROLES, default="author", show_default=True)
@pass_context
def author_invite(context: Context, cap: int, role: str) -> None:
    """Print a new invite code (shown only this once) that lets up to --cap people
    register themselves (`arena author register`).

    \b
    Example:
      arena --server HOST:PORT author invite --cap 200
    """
    async def body(session: Session) -> admin_pb2.CreateInviteResponse:
        return await session.admin.CreateInvite(admin_pb2.CreateInviteRequest(cap=cap,
                                                                              role=role))

    response = context.run(body)
    click.echo(f"invite for up to {response.invite.cap} {response.invite.role}s (shown once):",
               err=True)
    click.echo(response.code)


@author.command("register")
@click.argument("name")
@click.option("--server", "server", metavar="HOST:PORT", default=None,
              help="The server to register with (or arena's own --server).")
@click.option("--invite", "invite", required=True, help="The invite code you were given.")
@pass_context
def author_register(context: Context, name: str, server: str | None, invite: str) -> None:
    """Register yourself as NAME with an invite code; your token is printed once and kept
    as by `arena login`.

    \b
    Example:
      arena author register --server arena.example.org:50051 --invite CODE carol
    """
    from arena.cli.credentials import store_token

    target = _remote(context, server, None)

    async def body(session: Session) -> admin_pb2.AuthorTokenResponse:
        return await session.admin.RegisterAuthor(
            admin_pb2.RegisterAuthorRequest(invite=invite, name=name))

    response = target.run(body)
    _show_token("registered", response)
    assert target.server is not None
    try:
        path = store_token(target.server, response.token, response.author.name,
                           response.author.role)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"signed in to {target.server} (token kept in {path})", err=True)


# ---------------------------------------------------------------------- audit

@main.command()
@click.option("--author", "author_name", default=None,
              help="Only this author's lines (an author sees only their own).")
@click.option("--limit", type=click.IntRange(1, 100_000), default=50, show_default=True)
@output_format
@pass_context
def audit(context: Context, author_name: str | None, limit: int, fmt: str) -> None:
    """What was done on the server, newest first: who, what, when, and how it ended.

    \b
    Example:
      arena --server HOST:PORT audit --author alice
    """
    async def body(session: Session) -> admin_pb2.ListAuditResponse:
        return await session.admin.ListAudit(admin_pb2.ListAuditRequest(
            author=author_name or "", limit=limit))

    response = context.run(body, read_only=True)
    emit([{"at": line.at, "who": line.actor, "role": line.role, "action": line.action,
           "target": line.target, "result": line.result, "detail": line.detail}
          for line in response.lines], fmt, empty="nothing recorded",
         columns=["at", "who", "role", "action", "target", "result", "detail"])
