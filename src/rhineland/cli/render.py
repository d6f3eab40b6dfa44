"""``rhineland render``: draw a position of an export as SVG or PNG.

``rhineland render FILE [--at ACTION_ID] -o OUT.svg|OUT.png`` replays the export
(every rule checked; ``--trust-routes`` as for ``replay``) up to and including the
action with id ``ACTION_ID`` (default: every action) and writes the map with the
stock market, companies, players, bank, phase and depot beside it
(:func:`rhineland.render.render_svg`).  The output's suffix picks the format;
PNG needs cairosvg (the ``render`` extra).

Exit status as for ``replay``: 1 for an illegal action, 2 for unreadable input or a
bad argument (an action id the export does not have, an output suffix other than
``.svg``/``.png``, an output file that cannot be written).
"""

from __future__ import annotations

from pathlib import Path

import click

from rhineland.cli.errors import fail, fail_illegal, fail_input
from rhineland.engine.game import Game
from rhineland.errors import ExportError, GameError
from rhineland.io.export import ReplayError, game_from_export, load_export, replay_iter
from rhineland.render import render_svg, svg_to_png


def replay_to(export_file: str, at: int | None, trust: bool) -> Game:
    """The game of ``export_file`` after the action with id ``at`` (all when ``None``);
    exits with the documented status and one error line on failure."""
    try:
        export = load_export(export_file)
    except ExportError as exc:
        fail_input(exc, False)
    game: Game | None = None
    try:
        for _, _, g in replay_iter(export, until=at, trust_routes=trust, standing=True):
            game = g
    except ExportError as exc:
        fail_input(exc, False)
    except ReplayError as exc:
        fail_illegal(exc.action_id, exc.reason, exc.rule, False)
    except GameError as exc:
        fail("bad_input", str(exc), rule=exc.rule)
    return game if game is not None else game_from_export(export, trust_routes=trust)


def check_drawing_path(out: str, option: str = "--output", as_json: bool = False) -> None:
    """Exit with a bad argument (status 2) unless ``out`` ends in ``.svg`` or ``.png``;
    the message names the command-line ``option`` that gave it."""
    if Path(out).suffix.lower() not in (".svg", ".png"):
        fail("bad_argument", f"{option}: expected a file ending in .svg or .png, found {out!r}",
             as_json=as_json, rule="argument.output")


def write_drawing(text: str, out: str, option: str = "--output", as_json: bool = False) -> None:
    """Write the SVG document ``text`` to ``out`` (``.svg``) or rasterised (``.png``);
    a bad suffix or an unwritable file is a bad argument (exit status 2), its message
    naming the command-line ``option`` that gave ``out``."""
    check_drawing_path(out, option, as_json)
    suffix = Path(out).suffix.lower()
    try:
        if suffix == ".svg":
            Path(out).write_text(text, encoding="utf-8")
        else:
            try:
                svg_to_png(text, out)
            except ImportError:
                fail("bad_argument", "PNG output needs cairosvg: pip install 'rhineland[render]'",
                     as_json=as_json, rule="argument.output")
    except OSError as exc:
        fail("bad_argument", f"{option}: cannot write {out!r}: {exc.strerror or exc}",
             as_json=as_json, rule="argument.output")


@click.command("render", short_help="Draw a position as SVG or PNG.")
@click.argument("export_file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--at", "at", type=int, default=None,
              help="Draw the position after the action with this id (default: the last).")
@click.option("-o", "--output", "output", required=True,
              help="Output file: .svg or .png.")
@click.option("--trust-routes", "trust", is_flag=True,
              help="Replay as 18xx.games does (runs taken at their recorded revenue).")
def render_cmd(export_file: str, at: int | None, output: str, trust: bool) -> None:
    """Draw the map and the stock market, companies, players, bank, phase and depot of
    a position of EXPORT_FILE (- for standard input) into OUT.svg or OUT.png."""
    check_drawing_path(output)
    game = replay_to(export_file, at, trust)
    write_drawing(render_svg(game), output)
