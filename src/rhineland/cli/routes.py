"""``rhineland routes``: the best routes at a position, and the best-routes replay report.

``rhineland routes FILE --before ACTION_ID [--entity SYM] [--json] [--svg OUT]``
replays the export up to (not including) the action with id ``ACTION_ID`` and prints
the best run of the company about to run (or ``SYM``): each train's route
(hexes walked, paying stops by name, ``Köln (I10)``), its revenue with every bonus
itemised, and the total, all in M (Mark).  ``--svg OUT`` also draws the map with
each train's route in its own colour (``.svg`` or ``.png``).  ``--json`` prints::

    {"entity": "ADR", "revenue": 370,
     "routes": [{"train": "5-0", "hexes": [...], "stops": [...], "stop_names": [...],
                 "revenue": 370,
                 "base": 330, "bonuses": [{"name": "montan", "amount": 40, "detail": "..."}]}],
     "proof": {"bound": 370, "root_bound": 370, "nodes": 1092, "candidates": 220,
               "evaluations": 1}}

:func:`replay_best_routes` backs ``rhineland replay FILE --best-routes``: at
every ``run_routes`` action it computes the optimum and reports the runs that
earned less ("OR 3.2 ADR ran 180M, best 220M"), then a total per company.

Exit status as for ``replay``: 1 for an illegal action, 2 for unreadable
input or a bad argument (an action id the export does not have, an ``--entity``
naming no company, a position where the company cannot run).  ``--entity`` takes
the symbol in any letter case.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import orjson

from rhineland.board.mapspec import MapSpec
from rhineland.board.names import location_name, stops_text
from rhineland.cli.errors import fail, fail_illegal, fail_input, report
from rhineland.engine.actions import RunRoutes
from rhineland.engine.game import Game
from rhineland.errors import ExportError, GameError
from rhineland.io.export import (
    Export,
    action_index,
    game_from_export,
    load_export,
    standing_positions,
    undo_targets,
)
from rhineland.routes import RouteResult
from rhineland.routes.compare import compare_run
from rhineland.routes.search import RouteSet, best_routes


def route_set_json(rs: RouteSet, spec: MapSpec | None = None) -> dict[str, Any]:
    """A :class:`RouteSet` as the ``--json`` object (see the module docstring); with the
    map ``spec`` each route also lists ``stop_names`` (``"Köln (I10)"``)."""
    out = {
        "entity": rs.entity,
        "revenue": rs.revenue,
        "routes": [
            {
                "train": r.train,
                "hexes": list(r.result.hexes),
                "stops": list(r.result.stops),
                **({"stop_names": [location_name(spec, s) for s in r.result.stops]}
                   if spec is not None else {}),
                "revenue": r.result.revenue,
                "base": r.result.base,
                "bonuses": [
                    {"name": b.name, "amount": b.amount, "detail": b.detail}
                    for b in r.result.bonuses
                ],
            }
            for r in rs.routes
        ],
        "proof": {
            "bound": rs.proof.bound,
            "root_bound": rs.proof.root_bound,
            "nodes": rs.proof.nodes,
            "candidates": rs.proof.candidates,
            "evaluations": rs.proof.evaluations,
        },
    }
    return out


def _route_line(res: RouteResult) -> str:
    parts = [f"{res.base}M"]
    for b in res.bonuses:
        sign = "+" if b.amount >= 0 else "-"
        detail = f" ({b.detail})" if b.detail else ""
        parts.append(f"{sign} {b.name} {abs(b.amount)}M{detail}")
    return " ".join(parts) + f" = {res.revenue}M"


def route_set_text(rs: RouteSet, where: str = "", spec: MapSpec | None = None) -> list[str]:
    """A :class:`RouteSet` as lines of text: one block per train, then the total; with
    the map ``spec`` the stops are named (``Köln (I10)``, :func:`location_name`)."""
    head = f"{where + ' ' if where else ''}{rs.entity}: best {rs.revenue}M"
    lines = [head]
    if not rs.routes:
        lines.append("  no train can run")
    for r in rs.routes:
        res = r.result
        stops = stops_text(spec, res.stops) if spec is not None else " ".join(res.stops)
        lines.append(f"  {r.train}: stops {stops}")
        lines.append(f"      hexes {' '.join(res.hexes)}")
        lines.append(f"      {_route_line(res)}")
    p = rs.proof
    lines.append(
        f"  total {rs.revenue}M (optimal: bound {p.bound}M; root bound {p.root_bound}M, "
        f"{p.nodes} nodes, {p.candidates} candidate routes, {p.evaluations} evaluations)"
    )
    return lines


def _load(export_file: str, as_json: bool) -> Export:
    try:
        return load_export(export_file)
    except ExportError as exc:
        fail_input(exc, as_json)


def _entity_symbol(game: Game, entity: str, as_json: bool) -> str:
    """The company symbol ``entity`` names, in any letter case; a bad argument if none."""
    known = [*game.corporations, *game.minors]
    for sym in known:
        if sym.casefold() == entity.casefold():
            return sym
    fail("bad_argument", f"--entity: no company {entity!r} in this {game.data.title} game "
         f"(companies: {', '.join(known)})", as_json=as_json, rule="argument.entity")


@click.command("routes")
@click.argument("export_file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--before", "before", type=int, required=True,
              help="Show the best routes at the state just before the action with this id.")
@click.option("--entity", "entity", default=None,
              help="Company symbol, any letter case (default: the company about to run).")
@click.option("--json", "as_json", is_flag=True, help="Print the routes as JSON.")
@click.option("--trust-routes", "trust", is_flag=True,
              help="Replay to the position as 18xx.games does: a run the route rules "
              "reject is applied with its recorded revenue.")
@click.option("--svg", "svg_out", default=None,
              help="Also draw the map with each train's route in its own colour and its "
              "revenue into this file (.svg or .png).")
def routes_cmd(export_file: str, before: int, entity: str | None, as_json: bool,
               trust: bool, svg_out: str | None) -> None:
    """Print the provably best routes at a position of an 18xx.games EXPORT_FILE
    (- for standard input)."""
    if svg_out is not None:
        from rhineland.cli.render import check_drawing_path

        check_drawing_path(svg_out, "--svg", as_json)
    export = _load(export_file, as_json)
    try:
        index = action_index(export, before)
    except ExportError as exc:
        fail_input(exc, as_json)
    game = game_from_export(export, trust_routes=trust)
    if entity is not None:
        entity = _entity_symbol(game, entity, as_json)
    targets = undo_targets(export.actions)
    for i in range(index):
        try:
            game.process(export.actions[i], atomic=False, history=i in targets)
        except GameError as exc:
            fail_illegal(export.actions[i].id, str(exc), exc.rule, as_json)
    try:
        rs = best_routes(game, entity)
    except GameError as exc:
        where = game.state.round.label if game.state.round is not None else "the end"
        fail("bad_argument", f"before action {before} ({where}): {exc}", as_json=as_json,
             rule=exc.rule)
    if svg_out is not None:
        from rhineland.cli.render import write_drawing
        from rhineland.render import render_svg
        from rhineland.render.routes import best_to_draw

        write_drawing(render_svg(game, routes=best_to_draw(game, rs)), svg_out, "--svg",
                      as_json)
    spec = game.board.spec
    if as_json:
        click.echo(orjson.dumps(route_set_json(rs, spec), option=orjson.OPT_INDENT_2).decode())
        return
    rnd = game.state.round
    for line in route_set_text(rs, rnd.label if rnd is not None else "", spec):
        click.echo(line)


def replay_best_routes(
    export: Export, until: int | None = None, as_json: bool = False,
    echo: Callable[[str], None] = click.echo, *, trust_routes: bool = False,
    svg_dir: Path | None = None,
) -> int:
    """Replay ``export`` and compare every ``run_routes`` with the optimum; return the exit code.

    Prints one line per run that earned less than the best ("OR 3.2 ADR ran
    180M, best 220M"), then per company the total run, the total best and
    the difference (M).  ``until``: stop after the action with that id.
    Runs that a later undo reverted are left out (their redo, if any, counts).
    With ``as_json`` prints ``{"runs": [{"action", "round", "entity", "ran",
    "best"}...], "totals": {sym: {"ran", "best"}}}`` (every run listed).
    Errors print ``error: ...`` (with ``as_json`` a JSON error object) on stderr and
    return 1 (an illegal action) or 2 (``until`` names no action of the export).
    With ``trust_routes`` a run the route rules reject is applied with its recorded
    revenue, which is what it "ran".  With ``svg_dir`` every run below the best is also
    drawn there, the run and the best side by side (``action-<id>-<company>.svg``).
    """
    try:
        stop = len(export.actions) if until is None else action_index(export, until) + 1
    except ExportError as exc:
        return report("bad_argument", str(exc), as_json=as_json, rule=exc.rule)
    game = game_from_export(export, trust_routes=trust_routes)
    targets = undo_targets(export.actions)
    standing = standing_positions(export.actions[:stop])
    runs: list[dict[str, Any]] = []
    for i, action in enumerate(export.actions[:stop]):
        try:
            if isinstance(action, RunRoutes) and i in standing:
                run = _compare_run(game, action, svg_dir)
                if run is not None:
                    runs.append(run)
            game.process(action, atomic=False, history=i in targets)
        except GameError as exc:
            reason = str(exc).removesuffix(f" [{exc.rule}]") if as_json and exc.rule else exc
            return report("illegal_action", f"illegal action {action.id}: {reason}",
                          as_json=as_json, action_id=action.id, rule=exc.rule)
    totals: dict[str, list[int]] = {}
    for run in runs:
        tot = totals.setdefault(run["entity"], [0, 0])
        tot[0] += run["ran"]
        tot[1] += run["best"]
    if as_json:
        out = {"runs": runs, "totals": {s: {"ran": r, "best": b} for s, (r, b) in totals.items()}}
        echo(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode())
        return 0
    for run in runs:
        if run["ran"] < run["best"]:
            echo(f"{run['round']} {run['entity']} ran {run['ran']}M, best {run['best']}M "
                 f"(action {run['action']}, -{run['best'] - run['ran']}M)")
    below = sum(1 for r in runs if r["ran"] < r["best"])
    echo(f"{len(runs)} runs, {below} below the best")
    for sym in sorted(totals, key=lambda s: -(totals[s][1] - totals[s][0])):
        ran, best = totals[sym]
        echo(f"  {sym:<6} ran {ran:>6}M  best {best:>6}M  missed {best - ran:>5}M")
    return 0


def _compare_run(game: Game, action: RunRoutes,
                 svg_dir: Path | None = None) -> dict[str, Any] | None:
    """The recorded run's revenue and the optimum, at the state just before ``action``
    (:func:`rhineland.routes.compare.compare_run`); with ``svg_dir`` a run below the
    best is drawn there beside the best."""
    cmp = compare_run(game, action)
    if cmp is None:
        return None
    if svg_dir is not None and cmp.ran < cmp.best.revenue:
        _draw_comparison(game, cmp.entity, action, cmp.best, cmp.round, cmp.ran, svg_dir)
    return {"action": action.id, "round": cmp.round, "entity": cmp.entity, "ran": cmp.ran,
            "best": cmp.best.revenue}


def _draw_comparison(game: Game, sym: str, action: RunRoutes, best: RouteSet, label: str,
                     ran: int, svg_dir: Path) -> None:
    """Write ``action-<id>-<sym>.svg``: the recorded run (left) and the best (right)."""
    from rhineland.render import render_side_by_side
    from rhineland.render.routes import best_to_draw, routes_to_draw

    try:
        left = routes_to_draw(game, sym, list(action.routes), "ran")
    except GameError:  # a run the rules reject (trusted at its recorded revenue)
        left = []
    heading = (f"{label} {sym} (action {action.id}): ran {ran}M, best {best.revenue}M "
               f"(-{best.revenue - ran}M)")
    text = render_side_by_side(game, left, best_to_draw(game, best), heading=heading)
    (svg_dir / f"action-{action.id}-{sym}.svg").write_text(text, encoding="utf-8")
