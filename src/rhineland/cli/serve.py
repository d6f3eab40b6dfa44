"""``rhineland serve``: the web app (play in the browser) on an embedded SQLite file by
default, or on PostgreSQL.

    rhineland serve [--db URL] [--host H] [--port P] [--no-demo]

On first start (an empty database) a demo game is created: you (seat 1) against three
greedy bots in 18Rhl, its invite link listed in the lobby.  The address to open is
printed.  Needs the ``web`` extra (``pip install -e '.[web]'``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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
def serve_cmd(db: str, host: str, port: int, demo: bool) -> None:
    """Serve the web app: a lobby, games against people and bots, live updates."""
    try:
        import uvicorn

        from rhineland.web import create_app
        from rhineland.web.limits import server_config
    except ImportError as exc:
        fail("bad_argument", f"the web extra is not installed ({exc.name}): "
             "pip install -e '.[web]'")
    try:
        app = create_app(db)
    except Exception as exc:  # a bad URL, an unreachable database
        fail("bad_argument", f"--db {db}: {type(exc).__name__}: {str(exc).splitlines()[0]}")
    created = ensure_demo(app.state.store) if demo else None
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host
    base = f"http://{shown}:{port}"
    click.echo(f"rhineland: open {base}/  (games in {db})")
    if created is not None:
        click.echo(f"demo game against bots: {base}/g/{created.id}#{created.seats[0]['secret']}")
    click.echo("stop with Ctrl+C")
    # the server's limits (rhineland.web.limits.server_config): a request's head within
    # 10 s, idle connections closed after 5 s, heads of at most 16 KiB, 1000 connections;
    # open event streams never end on their own: they get 2 s on shutdown
    uvicorn.Server(server_config(app, host, port)).run()
