"""``rhineland serve``: the web app (play in the browser) on an embedded SQLite file by
default, or on PostgreSQL.

    rhineland serve [--db URL] [--host H] [--port P] [--no-demo] [--public-url URL]
                    [--smtp-host H --smtp-from ADDR [--smtp-port P] [--smtp-tls T]
                     [--smtp-user U]] [--webhooks-to-private]

On first start (an empty database) a demo game is created: you (seat 1) against three
greedy bots in 18Rhl, its invite link listed in the lobby.  The address to open is
printed.  Needs the ``web`` extra (``pip install -e '.[web]'``).

The your-turn alerts (:mod:`rhineland.web.notify`): webhooks always (to global
addresses only unless ``--webhooks-to-private``), e-mail when ``--smtp-host`` and
``--smtp-from`` name an SMTP server and the sender (each option also read from its
``RHINELAND_*`` environment variable; the password from ``RHINELAND_SMTP_PASSWORD``
only, never a command line).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Literal

import click

from rhineland.cli.errors import fail

if TYPE_CHECKING:
    from rhineland.web.store import Created, GameStore

DEFAULT_DB = "sqlite:///rhineland.sqlite3"
"""The default database: an SQLite file in the current directory, created on first start."""


def ensure_demo(store: GameStore) -> Created | None:
    """Create the demo game (you against three greedy bots, 18Rhl, seed 1, seat 1 open in
    the lobby) when the database has no game yet; ``None`` when it has games."""
    if store.lobby(limit=1):
        return None
    return store.create("18Rhl", ["You", "Greedy 1", "Greedy 2", "Greedy 3"], seed=1,
                        bots={2: "greedy", 3: "greedy", 4: "greedy"}, open_seats=[1],
                        description="demo: you against three bots")


@click.command("serve", short_help="Play in the browser: the web app.")
@click.option("--db", "db", default=DEFAULT_DB, show_default=True,
              help="Database URL: sqlite:///FILE or postgresql://USER@HOST/DB.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=int, default=8000, show_default=True, help="Port to listen on.")
@click.option("--demo/--no-demo", default=True, show_default=True,
              help="Create a demo game against bots when the database is empty.")
@click.option("--public-url", default="", envvar="RHINELAND_PUBLIC_URL",
              help="The address players open (https://games.example.org): the links in "
                   "the alerts (default: paths only).")
@click.option("--smtp-host", default=None, envvar="RHINELAND_SMTP_HOST",
              help="SMTP server for the your-turn mail (default: no mail).")
@click.option("--smtp-port", type=int, default=25, show_default=True,
              envvar="RHINELAND_SMTP_PORT", help="Its port.")
@click.option("--smtp-from", "smtp_from", default=None, envvar="RHINELAND_SMTP_FROM",
              help="The mail's From address (needed with --smtp-host).")
@click.option("--smtp-tls", type=click.Choice(["none", "starttls", "ssl"]), default="none",
              show_default=True, envvar="RHINELAND_SMTP_TLS",
              help="STARTTLS after connecting, or TLS from the start (ssl).")
@click.option("--smtp-user", default=None, envvar="RHINELAND_SMTP_USER",
              help="Log in as this user (the password: RHINELAND_SMTP_PASSWORD).")
@click.option("--webhooks-to-private", is_flag=True, default=False,
              help="Let webhooks go to loopback and private addresses (the server's "
                   "own network).")
def serve_cmd(db: str, host: str, port: int, demo: bool, public_url: str,
              smtp_host: str | None, smtp_port: int, smtp_from: str | None,
              smtp_tls: Literal["none", "starttls", "ssl"], smtp_user: str | None,
              webhooks_to_private: bool) -> None:
    """Serve the web app: a lobby, games against people and bots, live updates."""
    try:
        import uvicorn

        from rhineland.web import create_app
        from rhineland.web.limits import server_config
        from rhineland.web.notify import Notifier, Smtp, email_address
    except ImportError as exc:
        fail("bad_argument", f"the web extra is not installed ({exc.name}): "
             "pip install -e '.[web]'")
    smtp = None
    if smtp_host:
        try:
            sender = email_address(smtp_from)
        except ValueError as exc:
            fail("bad_argument", f"--smtp-from: {exc}")
        if sender is None:
            fail("bad_argument", "--smtp-host needs --smtp-from (the mail's From address)")
        smtp = Smtp(smtp_host, sender, port=smtp_port, tls=smtp_tls, user=smtp_user,
                    password=os.environ.get("RHINELAND_SMTP_PASSWORD"))
    notifier = Notifier(smtp=smtp, public_url=public_url, private_ok=webhooks_to_private)
    try:
        app = create_app(db, notifier=notifier)
    except Exception as exc:  # a bad URL, an unreachable database
        fail("bad_argument", f"--db {db}: {type(exc).__name__}: {str(exc).splitlines()[0]}")
    created = ensure_demo(app.state.store) if demo else None
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host
    base = f"http://{shown}:{port}"
    click.echo(f"rhineland: open {base}/  (games in {db})")
    if created is not None:
        click.echo(f"demo game against bots: {base}/g/{created.id}#{created.seats[0]['secret']}")
    click.echo("your-turn alerts: webhooks; mail "
               + (f"via {smtp.host}:{smtp.port} from {smtp.sender}" if smtp else
                  "off (no --smtp-host)"))
    click.echo("stop with Ctrl+C")
    # the server's limits (rhineland.web.limits.server_config): a request's head within
    # 10 s, idle connections closed after 5 s, heads of at most 16 KiB, 1000 connections;
    # open event streams never end on their own: they get 2 s on shutdown
    uvicorn.Server(server_config(app, host, port)).run()
