"""The map of a position as SVG: every hex drawn from the title data and the board.

Nothing here knows a particular hex: the tile on each hex (preprinted or laid, with
its rotation), the map's borders, partitions, stubs, terrain, labels, icons and
location names, the tokens on the board, the reservations of the preprinted tiles,
the title's extra hex icons (18Rhl's variable coal mine and steelworks) and the
current phase decide what is drawn.

Layers, bottom to top: each hex's body (tile, track, terrain, labels, icons, borders;
:mod:`rhineland.render.decor`), the location names, then the cities, towns and revenue
circles (:mod:`rhineland.render.stops`).  Elements carry ``class`` and ``data-*``
attributes so a drawing can be checked: ``<g class="hex" data-hex="F9"
data-tile="X921-0" data-laid="1">``, tokens ``class="token" data-company="ADR"
data-hex="F9"``, reservations ``class="reservation"``, cities ``class="city"`` and towns
``class="town"`` with their node ``data-node="F9-1"`` (``"<hex>-<part>"``, a route's stop).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rhineland.board.board import PlacedTile
from rhineland.board.hexgrid import hex_id
from rhineland.board.mapspec import HexSpec
from rhineland.render import svg
from rhineland.render.decor import borders, labels, location_label, terrain
from rhineland.render.geometry import (
    Layout,
    corner_point,
    corners,
    edge_point,
    node_positions,
    path_d,
)
from rhineland.render.stops import city, reservations, revenues
from rhineland.render.style import (
    RIVER,
    TILE_FILL,
    TRACK,
    TRACK_EDGE,
)

if TYPE_CHECKING:
    from rhineland.engine.game import Game

MARGIN = 22.0
"""Room around the hexes for the coordinates, px."""


@dataclass(frozen=True)
class MapDrawing:
    """A drawn map: SVG ``body`` (a ``<g>``), its ``width`` and ``height`` in px, and the
    :class:`Layout` that placed the hexes (for overlays such as routes)."""

    body: str
    width: float
    height: float
    layout: Layout
    ox: float = 0.0
    oy: float = 0.0


def map_layout(game: Game, r: float, ox: float = 0.0,
               oy: float = 0.0) -> tuple[Layout, float, float]:
    """The :class:`Layout` of ``game``'s map with hex radius ``r`` px whose top-left
    corner (coordinates margin included) is at ``(ox, oy)``; with the width and height."""
    spec = game.board.spec
    probe = Layout(spec.layout, r, 0.0, 0.0)
    pts = [probe.centre(h.x, h.y) for h in spec.hexes.values()]
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    minx, maxx, miny, maxy = min(xs) - r, max(xs) + r, min(ys) - r, max(ys) + r
    lay = Layout(spec.layout, r, ox + MARGIN - minx, oy + MARGIN - miny)
    return lay, maxx - minx + 2 * MARGIN, maxy - miny + 2 * MARGIN


def draw_map(game: Game, r: float = 40.0, ox: float = 0.0, oy: float = 0.0) -> MapDrawing:
    """Draw ``game``'s map at hex radius ``r`` px with its top-left corner at ``(ox, oy)``."""
    lay, width, height = map_layout(game, r, ox, oy)
    spec = game.board.spec
    color = game.phase.tiles[-1]
    extra = game.title.route_context_extra(game, None).get("hex_icons", {})
    blockers = {p.sym for p in game.privates.values() if not p.closed}
    package = type(game.title).package
    parts = [_coordinates(game, lay, width, height, ox, oy)]
    tops = []
    for h in spec.hexes.values():
        placed = game.board.tiles[h.id]
        body, top = _hex(game, h, placed, lay, color, extra.get(h.id, ()), blockers, package)
        parts.append(body)
        tops.append(top)
    names = [location_label(game.board.tiles[h.id], h, lay) for h in spec.hexes.values()]
    # names above every hex (a long name may reach into the next one), cities and
    # revenue circles above the names
    parts.append(svg.group(names, class_="names"))
    parts.append(svg.group(tops, class_="stops"))
    return MapDrawing(svg.group(parts, class_="map"), width, height, lay, ox, oy)


def _coordinates(game: Game, lay: Layout, width: float, height: float, ox: float,
                 oy: float) -> str:
    """Column numbers along the top and bottom, row letters down both sides."""
    spec = game.board.spec
    cols = sorted({h.x for h in spec.hexes.values()})
    rows = sorted({h.y for h in spec.hexes.values()})
    out = []
    style: dict[str, svg.Attr] = {"font_size": 11, "fill": "#555", "text_anchor": "middle",
                                  "class": "coord"}
    for x in cols:
        px = lay.centre(x, 0)[0]
        out.append(svg.text(px, oy + 14, str(x + 1), **style))
        out.append(svg.text(px, oy + height - 6, str(x + 1), **style))
    for y in rows:
        py = lay.centre(0, y)[1] + 4
        letter = hex_id(0, y)[0]
        out.append(svg.text(ox + 9, py, letter, **style))
        out.append(svg.text(ox + width - 9, py, letter, **style))
    return svg.group(out, class_="coordinates")


def _hex(game: Game, h: HexSpec, placed: PlacedTile, lay: Layout, phase_color: str,
         extra_icons: frozenset[str] | tuple[str, ...], open_privates: set[str],
         package: str) -> tuple[str, str]:
    """The hex's body (tile, terrain, track, labels, icons, borders) and what is drawn
    above the names (cities with their tokens, towns, revenue circles)."""
    tile, rot = placed.tile, placed.rotation
    layout = lay.layout
    c = lay.centre(h.x, h.y)
    r = lay.r
    preprinted = placed.tile_id == h.preprinted_id
    out: list[str] = [svg.element(
        "polygon", points=svg.points(lay.at(c, p) for p in corners(layout)),
        fill=TILE_FILL.get(tile.color, "#dddddd"), stroke="#777", stroke_width=1.0)]
    if preprinted:
        for a, b, _kind in h.partitions:
            p, q = lay.at(c, corner_point(layout, a)), lay.at(c, corner_point(layout, b))
            out.append(svg.element("line", x1=p[0], y1=p[1], x2=q[0], y2=q[1], stroke=RIVER,
                                   stroke_width=r * 0.08, stroke_dasharray="4 3"))
    nodes = node_positions(layout, tile, rot)
    paths = tile.rotated_paths(rot)
    track = []
    for path in paths:
        d = path_d(layout, path, nodes, lay, c)
        dash = "5 4" if path.gauge == "narrow" else None
        track.append(svg.element("path", d=d, fill="none", stroke=TRACK_EDGE,
                                 stroke_width=r * 0.2))
        track.append(svg.element("path", d=d, fill="none", stroke=TRACK, stroke_width=r * 0.12,
                                 stroke_dasharray=dash))
    if preprinted:
        for e in h.stubs:
            p0, p1 = lay.at(c, edge_point(layout, e)), lay.at(c, edge_point(layout, e, 0.45))
            track.append(svg.element("line", x1=p0[0], y1=p0[1], x2=p1[0], y2=p1[1],
                                     stroke=TRACK, stroke_width=r * 0.12))
    out.append(svg.group(track, class_="track"))
    out.extend(terrain(tile, lay, c))
    reserved = reservations(h, placed)
    top: list[str] = []
    for n in tile.nodes:
        if n.hidden:
            continue
        pos = lay.at(c, nodes.get(n.part, (0.0, 0.0)))
        if n.kind == "city":
            ci = tile.cities.index(n)
            tokens = game.board.tokens_in(h.id, ci)
            small = len(tile.cities) > 2
            top.append(city(h.id, n, pos, r, tokens, reserved.get(ci, ()), package, small))
        elif n.kind == "town":
            top.append(svg.element("circle", cx=pos[0], cy=pos[1], r=r * 0.1, fill="#000",
                                   stroke="#fff", stroke_width=1.0, class_="town",
                                   data_node=f"{h.id}-{n.part}"))
    top.extend(revenues(tile, rot, nodes, lay, c, phase_color, bool(h.location)))
    out.extend(labels(tile, h, lay, c, extra_icons, open_privates if preprinted else set()))
    out.extend(borders(h, lay, c))
    attrs = {"class": "hex", "data_hex": h.id, "data_tile": placed.tile_id,
             "data_laid": "1" if not preprinted else None,
             "data_rotation": rot if not preprinted else None}
    return svg.group(out, **attrs), svg.group(top, data_hex=h.id)
