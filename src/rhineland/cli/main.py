"""The ``rhineland`` command line: replay exports, (later) routes, play, simulate.

Every error the engine raises on purpose is printed as one line (``error: ...``)
with exit status 1 (illegal action) or 2 (unreadable input); never a traceback.
"""

from __future__ import annotations

import sys

import click
import orjson

from rhineland.cli.routes import replay_best_routes, routes_cmd
from rhineland.errors import ExportError, GameError
from rhineland.io.export import ReplayError, load_export, replay_iter
from rhineland.io.state_view import game_state
from rhineland.io.summary import ReplaySummary


@click.group()
@click.version_option(package_name="rhineland")
def cli() -> None:
    """rhineland: 18Rhl and 1893: Cologne, played, replayed and analysed."""


@cli.command("replay")
@click.argument("export_file", type=click.Path(dir_okay=False))
@click.option("--until", "until", type=int, default=None,
              help="Stop after the action with this id.")
@click.option("--json", "as_json", is_flag=True, help="Print the state reached as JSON.")
@click.option("--best-routes", "best", is_flag=True,
              help="Compare every run with the best routes (cli/routes.py).")
def replay_cmd(export_file: str, until: int | None, as_json: bool, best: bool) -> None:
    """Replay an 18xx.games EXPORT_FILE with every rule checked; print a summary."""
    try:
        export = load_export(export_file)
    except ExportError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    if best:
        sys.exit(replay_best_routes(export, until, as_json))
    game = None
    last_id = None
    summary = ReplaySummary()
    label = ""
    try:
        for _, action, g in replay_iter(export, until=until):
            game = g
            last_id = action.id
            if action.type not in ("message", "undo", "redo"):
                summary.record(g, action, label or g.round.label)
            label = g.round.label
    except ReplayError as exc:
        click.echo(f"error: illegal action {exc.action_id}: {exc.reason}", err=True)
        sys.exit(1)
    except GameError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    if game is None:
        from rhineland.io.export import new_game

        game = new_game(export)
    state = game_state(game)
    players = [
        {"id": p.id, "name": p.name, "cash": p.cash, "value": game.player_value(p)}
        for p in game.players
    ]
    if as_json:
        corps = [
            {"sym": sym, **view} for sym, view in state["corporations"].items()
        ]
        out = {
            "title": export.title,
            "finished": game.finished,
            "game_end_reason": game.state.game_end_reason,
            "last_action_id": last_id,
            "players": players,
            "corporations": corps,
        }
        click.echo(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode())
        return
    n_done = sum(1 for a in export.actions if until is None or (a.id or 0) <= until)
    click.echo(f"{export.title}: {n_done} actions replayed (last id {last_id})")
    for line in summary.text_lines():
        click.echo(f"  {line}")
    end = f", finished ({game.state.game_end_reason})" if game.finished else ""
    click.echo(f"state: {state.get('round', {}).get('label', 'end')}, phase {state['phase']}, "
               f"bank {state['bank']}M{end}")
    click.echo("scores:" if game.finished else "values:")
    for p in sorted(game.players, key=lambda x: -game.player_value(x)):
        click.echo(f"  {p.name:<20} cash {p.cash:>6}M  value {game.player_value(p):>6}M")


cli.add_command(routes_cmd)


def main() -> None:
    cli()


if __name__ == "__main__":
    main()
