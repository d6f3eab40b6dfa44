"""The ``rhineland`` command line: ``replay`` an export, find the best ``routes``.

Every error the engine raises on purpose is printed as one line (``error: ...``, or
a JSON error object with ``--json``: :mod:`rhineland.cli.errors`) with exit status 1
(illegal action) or 2 (unreadable or invalid input, bad arguments); never a traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
import orjson

from rhineland.cli.errors import fail, fail_illegal, fail_input
from rhineland.cli.native import native_cmd
from rhineland.cli.play import play_cmd
from rhineland.cli.render import render_cmd
from rhineland.cli.report import report_cmd
from rhineland.cli.routes import replay_best_routes, routes_cmd
from rhineland.cli.serve import serve_cmd
from rhineland.cli.simulate import simulate_cmd, tournament_cmd
from rhineland.engine.actions import Action
from rhineland.engine.game import Game
from rhineland.engine.ruleset import REFERENCE
from rhineland.errors import ExportError, GameError
from rhineland.io.export import (
    ReplayError,
    game_from_export,
    load_export,
    replay_iter,
    standing_positions,
    trusted_runs,
)
from rhineland.io.state_view import game_state
from rhineland.io.summary import ReplaySummary

CONTEXT = {"help_option_names": ["-h", "--help"]}


class OneLineErrors(click.Group):
    """A click group whose usage errors (bad option value, unknown command, missing
    file argument) print as one ``error: ...`` line (a JSON error object when the
    command line asks for ``--json``) with exit status 2, like ours; with no
    arguments at all it prints its help (exit status 0)."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Run the group; in standalone mode a usage error or abort prints one
        ``error: ...`` line and exits with its status (2 for usage errors, 1 for an
        abort), otherwise with the command's status.  Never returns in standalone mode."""
        if not kwargs.get("standalone_mode", True):
            return super().main(*args, **kwargs)
        kwargs["standalone_mode"] = False
        argv = list(args[0] if args and args[0] is not None else
                    kwargs.get("args") or sys.argv[1:])
        as_json = "--json" in argv
        try:
            code = super().main(*args, **kwargs)
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help() if exc.ctx is not None else self.name)
            sys.exit(0)
        except click.exceptions.Abort:
            click.echo("error: aborted", err=True)
            sys.exit(1)
        except click.ClickException as exc:
            if isinstance(exc, click.UsageError):
                fail("bad_argument", exc.format_message(), as_json=as_json, rule="usage")
            fail("bad_argument", exc.format_message(), as_json=as_json)
        sys.exit(code if isinstance(code, int) else 0)


@click.group(cls=OneLineErrors, context_settings=CONTEXT)
@click.version_option(package_name="rhineland")
def cli() -> None:
    """rhineland: replay and analyse 18Rhl and 1893: Cologne games exported from 18xx.games.

    EXPORT_FILE may be - to read the export from standard input.  Exit status: 0 done,
    1 an illegal action (its id and the rule are printed), 2 an unreadable or invalid
    file or a bad argument.  Errors are one line, "error: ..." (with --json, a JSON
    object {"error": {"kind", "action_id", "rule", "message"}}), on standard error.
    """


@cli.command("replay", short_help="Replay an export with every rule checked.")
@click.argument("export_file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--until", "until", type=int, default=None,
              help="Stop after the action with this id.")
@click.option("--json", "as_json", is_flag=True, help="Print the state reached as JSON.")
@click.option("--best-routes", "best", is_flag=True,
              help="Compare every run with the provably best routes; with --json, "
              "print the runs as JSON.")
@click.option("--trust-routes", "trust", is_flag=True,
              help="Replay as 18xx.games does: a run whose routes the rules reject is "
              "applied with its recorded revenue; every such run is listed.")
@click.option("--svg", "svg_dir", default=None,
              type=click.Path(file_okay=False, writable=True),
              help="With --best-routes: draw each run below the best beside the best, "
              "one SVG per run, into this folder (created if needed).")
def replay_cmd(export_file: str, until: int | None, as_json: bool, best: bool,
               trust: bool, svg_dir: str | None) -> None:
    """Replay an 18xx.games EXPORT_FILE (- for standard input) with every rule checked;
    print a summary.  With --trust-routes a run the route rules reject is applied with
    the revenue it records (as 18xx.games replays it) and listed with the rule broken."""
    try:
        export = load_export(export_file)
    except ExportError as exc:
        fail_input(exc, as_json)
    if svg_dir is not None and not best:
        fail("bad_argument", "--svg needs --best-routes", as_json=as_json, rule="argument.svg")
    if best:
        folder = None
        if svg_dir is not None:
            folder = Path(svg_dir)
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                fail("bad_argument", f"--svg: cannot create {svg_dir!r}: {exc.strerror or exc}",
                     as_json=as_json, rule="argument.svg")
        sys.exit(replay_best_routes(export, until, as_json, trust_routes=trust,
                                    svg_dir=folder))
    game = None
    last_id = None
    done: list[tuple[int, Action, str]] = []  # (position, action, round label)
    label = ""
    try:
        for i, action, g in replay_iter(export, until=until, trust_routes=trust,
                                        standing=True):
            game = g
            last_id = action.id
            done.append((i, action, label or g.round.label))
            label = g.round.label
    except ExportError as exc:
        fail_input(exc, as_json)
    except ReplayError as exc:
        fail_illegal(exc.action_id, exc.reason, exc.rule, as_json)
    except GameError as exc:  # the game cannot be set up
        fail("bad_input", str(exc), as_json=as_json, rule=exc.rule)
    if game is None:
        game = game_from_export(export, trust_routes=trust)
    standing = standing_positions(export.actions[: len(done)])
    standing_ids = {export.actions[i].id for i in standing}
    lenient = [{**use.as_dict(), "standing": use.action_id in standing_ids}
               for use in game.leniencies_used]
    summary = ReplaySummary()
    for i, action, at in done:
        if i in standing:
            summary.record(action, at)
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
            "rules": game.title.rules,
            "finished": game.finished,
            "game_end_reason": game.state.game_end_reason,
            "last_action_id": last_id,
            "players": players,
            "corporations": corps,
            "leniencies": lenient,
        }
        click.echo(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode())
        return
    n_done = len(done)
    rules = "" if game.title.rules == REFERENCE else f", {game.title.rules} rules"
    click.echo(f"{export.title}{rules}: {n_done} action{'s' if n_done != 1 else ''} replayed "
               f"(last id {last_id})")
    for line in summary.text_lines():
        click.echo(f"  {line}")
    end = f", finished ({game.state.game_end_reason})" if game.finished else ""
    bank = state["bank"]
    bank_text = f"bank {bank}M" if bank >= 0 else f"bank broken ({bank}M)"
    click.echo(f"state: {state.get('round', {}).get('label', 'end')}, phase {state['phase']}, "
               f"{bank_text}{end}")
    for line in _leniency_lines(game, trust, standing_ids):
        click.echo(line)
    click.echo("scores:" if game.finished else "values:")
    for p in sorted(game.players, key=lambda x: -game.player_value(x)):
        click.echo(f"  {p.name:<20} cash {p.cash:>6}M  value {game.player_value(p):>6}M")


def _leniency_lines(game: Game, trust: bool, standing_ids: set[int | None]) -> list[str]:
    """What the replay accepted under a leniency: with ``trust`` the runs the route
    rules reject (``none`` when every run is legal), then any other leniency use."""
    runs = trusted_runs(game)
    others = [u for u in game.leniencies_used if u not in runs]
    lines: list[str] = []
    if trust:
        n = len(runs)
        lines.append(f"runs the route rules reject, applied with the recorded revenue "
                     f"(--trust-routes): {n or 'none'}")
        lines += [f"  {run}{'' if run.action_id in standing_ids else ' (undone later)'}"
                  for run in runs]
    if others:
        n = len(others)
        lines.append(f"accepted under a leniency (the reference engine's, not the rules): "
                     f"{n} action{'s' if n != 1 else ''}")
        lines += [f"  {use}" for use in others]
    return lines


cli.add_command(routes_cmd)
cli.add_command(render_cmd)
cli.add_command(report_cmd)
cli.add_command(simulate_cmd)
cli.add_command(play_cmd)
cli.add_command(tournament_cmd)
cli.add_command(serve_cmd)
cli.add_command(native_cmd)


def main() -> None:
    """Console entry point (``rhineland``)."""
    cli()


if __name__ == "__main__":
    main()
