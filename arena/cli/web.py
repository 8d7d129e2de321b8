"""`arena web`: the participants' web front, as its own process beside a running server."""

from __future__ import annotations

from pathlib import Path

import click

from arena.cli.app import main
from arena.cli.context import Context, pass_context


def _listen_address(text: str) -> tuple[str, int]:
    host, _, port = text.strip().rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise click.BadParameter(f"{text!r} is not HOST:PORT (such as 127.0.0.1:8080)",
                                 param_hint="--listen")
    return host, int(port)


@main.command()
@click.option("--listen", default="127.0.0.1:8080", show_default=True, metavar="HOST:PORT",
              help="Where the web front listens.")
@click.option("--certfile", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              default=None, help="Serve over https with this certificate (PEM); cookies are "
                                 "then marked Secure.")
@click.option("--keyfile", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              default=None, help="The certificate's private key (PEM).")
@pass_context
def web(context: Context, listen: str, certfile: Path | None, keyfile: Path | None) -> None:
    """Serve the web front of a running `arena serve`: leaderboards that follow the games
    live, crosstables, tournaments and the timetable, replays, the tables in play, and
    each author's own area (they sign in with their token).

    It reaches the server only through its admin calls: a visitor who is not signed in
    calls with the token given here (--token: a viewer's; none on a server started with
    --public), a signed-in author with their own. Needs the `web` extra
    (pip install 'arena[web]').

    \b
    Example:
      arena --server 127.0.0.1:50051 --token VIEWER_TOKEN web --listen 127.0.0.1:8080
    """
    if context.server is None:
        raise click.UsageError("arena web shows a running server: give --server HOST:PORT "
                               "(and --token with a viewer's token, unless it is --public)")
    if (certfile is None) != (keyfile is None):
        raise click.UsageError("--certfile and --keyfile go together")
    host, port = _listen_address(listen)
    try:
        import uvicorn

        from arena.web import WebSettings, create_app
    except ImportError as missing:
        raise click.ClickException(f"the web front needs the web extra ({missing.name} is "
                                   "missing): pip install 'arena[web]'") from None
    from arena.cli.session import tls_from_env
    from arena.server.auth import sendable_token

    token = sendable_token(context.token, "--token", "the token") if context.token else None
    try:
        tls = tls_from_env()
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    settings = WebSettings(context.server, token, tls)
    import asyncio  # not at import: `arena --help` loads no event loop

    role = asyncio.run(_role_of(settings))
    if role == "organizer":
        raise click.UsageError("--token is the organizer's: every visitor would see what "
                               "the organizer sees; give a viewer's token (arena author add "
                               "NAME --role viewer)")
    click.echo(f"arena web on http{'s' if certfile else ''}://{host}:{port}/ shows "
               f"{context.server} (visitors not signed in call as "
               f"{role or 'nobody'}); Ctrl-C stops", err=True)
    uvicorn.run(create_app(settings), host=host, port=port, log_level="warning",
                server_header=False, ssl_certfile=certfile, ssl_keyfile=keyfile)


async def _role_of(settings: object) -> str:
    """What the server takes the anonymous visitors' token for ("" for no token); a
    clean error when the server cannot be reached or refuses it."""
    from arena.v1 import admin_pb2
    from arena.web import WebSettings
    from arena.web.client import AdminClient, Answer

    assert isinstance(settings, WebSettings)
    if settings.anonymous_token is None:
        return ""
    client = AdminClient(settings.server, settings.tls, call_seconds=10)
    await client.open()
    try:
        who = await client.call("WhoAmI", admin_pb2.WhoAmIRequest(),
                                settings.anonymous_token)
    except Answer as refused:
        raise click.ClickException(f"{settings.server}: {refused.sentence}") from None
    finally:
        await client.close()
    return str(who.role)
