"""``rhineland report``: one self-contained HTML page about a game.

``rhineland report FILE -o game.html [--trust-routes] [--no-best]`` replays the export
(finished or not) and writes the report of :mod:`rhineland.report`: scores, the final
position, a slider through the map after each operating round, share-price and
net-worth charts per round, every run against the best routes (``--no-best`` leaves
the comparison out), and the timeline of phases, trains, rusting, formations, closures
and bankruptcies.  Exit status as for ``replay``.
"""

from __future__ import annotations

from pathlib import Path

import click

from rhineland.cli.errors import fail, fail_illegal, fail_input
from rhineland.errors import ExportError, GameError
from rhineland.io.export import load_export


@click.command("report", short_help="Write a game report as one HTML file.")
@click.argument("export_file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("-o", "--output", "output", required=True, help="Output file (.html).")
@click.option("--trust-routes", "trust", is_flag=True,
              help="Replay as 18xx.games does (runs taken at their recorded revenue).")
@click.option("--no-best", "no_best", is_flag=True,
              help="Leave out the comparison of every run with the best routes.")
def report_cmd(export_file: str, output: str, trust: bool, no_best: bool) -> None:
    """Write the report of EXPORT_FILE (- for standard input) to OUT.html."""
    try:
        export = load_export(export_file)
    except ExportError as exc:
        fail_input(exc, False)
    try:
        from rhineland.report import build_report

        text = build_report(export, trust_routes=trust, best=not no_best)
    except ImportError:
        fail("bad_argument", "the report needs plotly: pip install 'rhineland[report]'",
             rule="argument.output")
    except GameError as exc:
        action_id = getattr(exc, "action_id", None)
        fail_illegal(action_id, str(exc), exc.rule, False)
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as exc:
        fail("bad_argument", f"--output: cannot write {output!r}: {exc.strerror or exc}",
             rule="argument.output")
