"""Routes drawn over the map: each train's track in its own colour, with a legend
giving the train, its stops by name (``Köln (I10)``) and its revenue in M.

A :class:`DrawnRoute` holds the track a route walks as ``(hex, path index)`` steps
(the resolved route's segments, :class:`rhineland.routes.graph.Segment`), so the
drawing follows the very paths of the tiles the route uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rhineland.board.names import stops_text
from rhineland.render import svg
from rhineland.render.geometry import node_positions, path_d
from rhineland.render.style import ROUTE_COLORS
from rhineland.routes import RouteSpec, resolve, run_revenue, track_graph

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.render.hexmap import MapDrawing
    from rhineland.routes.search import RouteSet


@dataclass(frozen=True)
class DrawnRoute:
    """One train's route to draw: train id, revenue (M), the stops that pay
    (``"<hex>-<part>"``), the ``(hex, path index)`` steps walked, and a ``label``
    shown in the legend before the train (e.g. ``"best"``, ``"ran"``)."""

    train: str
    revenue: int
    stops: tuple[str, ...]
    steps: tuple[tuple[str, int], ...]
    label: str = ""


def routes_to_draw(game: Game, entity: str, routes: Sequence[RouteSpec | Mapping[str, Any]],
                   label: str = "") -> list[DrawnRoute]:
    """Resolve ``routes`` (export route dicts or :class:`RouteSpec`) of company
    ``entity`` on ``game``'s board and compute their revenue; raises ``GameError``
    for a route the rules reject (as :func:`rhineland.routes.run_revenue` does)."""
    ent = game.corporations.get(entity) or game.minors[entity]
    ctx = game.title.route_context(game, ent)
    graph = track_graph(game.board)
    results = run_revenue(ctx, list(routes))
    out = []
    for spec, res in zip(routes, results, strict=True):
        route = resolve(ctx, graph, RouteSpec.coerce(spec))
        steps = tuple(step for seg in route.segments for step in seg.steps)
        out.append(DrawnRoute(res.train, res.revenue, res.stops, steps, label))
    return out


def best_to_draw(game: Game, rs: RouteSet, label: str = "best") -> list[DrawnRoute]:
    """The routes of a best-route search result ``rs`` as :class:`DrawnRoute` records."""
    return routes_to_draw(game, rs.entity, [r.spec for r in rs.routes], label)


def draw_routes(game: Game, m: MapDrawing, routes: Sequence[DrawnRoute]) -> tuple[str, float]:
    """The routes over the map ``m`` and their legend below it; returns the SVG ``<g>``
    and the legend's height (px)."""
    lay = m.layout
    spec = game.board.spec
    out: list[str] = []
    width = lay.r * 0.16
    for i, route in enumerate(routes):
        color = ROUTE_COLORS[i % len(ROUTE_COLORS)]
        w = max(width * (1.0 - 0.18 * i), lay.r * 0.05)
        paths = []
        for hex_, index in route.steps:
            placed = game.board.tiles[hex_]
            h = spec.hexes[hex_]
            c = lay.centre(h.x, h.y)
            nodes = node_positions(lay.layout, placed.tile, placed.rotation)
            p = placed.tile.rotated_paths(placed.rotation)[index]
            paths.append(svg.element("path", d=path_d(lay.layout, p, nodes, lay, c), fill="none",
                                     stroke=color, stroke_width=w, stroke_linecap="round",
                                     stroke_opacity=0.85))
        out.append(svg.group(paths, class_="route", data_train=route.train,
                             data_revenue=route.revenue))
    y = m.oy + m.height + 4
    x0 = m.ox + 12
    total = sum(r.revenue for r in routes)
    legend = []
    for i, route in enumerate(routes):
        color = ROUTE_COLORS[i % len(ROUTE_COLORS)]
        legend.append(svg.element("rect", x=x0, y=y, width=22, height=8, fill=color))
        head = f"{route.label} " if route.label else ""
        legend.append(svg.text(x0 + 28, y + 8, f"{head}{route.train}: {route.revenue}M · "
                               f"{stops_text(spec, route.stops)}", font_size=12))
        y += 18
    legend.append(svg.text(x0, y + 10, f"total {total}M", font_size=12, font_weight="bold"))
    y += 18
    return svg.group([*out, svg.group(legend, class_="route-legend")], class_="routes"), \
        y - m.oy - m.height + 4
