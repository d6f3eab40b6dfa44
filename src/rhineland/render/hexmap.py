"""The map of a position as SVG: every hex drawn from the title data and the board.

Nothing here knows a particular hex: the tile on each hex (preprinted or laid, with
its rotation), the map's borders, partitions, stubs, terrain, labels, icons and
location names, the tokens on the board, the reservations of the preprinted tiles,
the title's extra hex icons (18Rhl's variable coal mine and steelworks) and the
current phase decide what is drawn.

Elements carry ``class`` and ``data-*`` attributes so a drawing can be checked:
``<g class="hex" data-hex="F9" data-tile="X921-0" data-laid="1">``, tokens
``class="token" data-company="ADR"``, reservations ``class="reservation"``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rhineland.board.board import PlacedTile
from rhineland.board.hexgrid import hex_id
from rhineland.board.mapspec import HexSpec
from rhineland.board.tiles import Node, Tile
from rhineland.render import svg
from rhineland.render.geometry import (
    Layout,
    Point,
    corner_point,
    corners,
    edge_point,
    node_positions,
    path_d,
)
from rhineland.render.style import (
    MOUNTAIN,
    PHASE_FILL,
    RIVER,
    TILE_FILL,
    TRACK,
    TRACK_EDGE,
    colors_of,
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
    names = [_name(game.board.tiles[h.id], h, lay) for h in spec.hexes.values()]
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
    out.extend(_terrain(tile, lay, c))
    reserved = _reservations(h, placed)
    top: list[str] = []
    for n in tile.nodes:
        if n.hidden:
            continue
        pos = lay.at(c, nodes.get(n.part, (0.0, 0.0)))
        if n.kind == "city":
            ci = tile.cities.index(n)
            tokens = game.board.tokens_in(h.id, ci)
            small = len(tile.cities) > 2
            top.append(_city(h.id, n, pos, r, tokens, reserved.get(ci, ()), package, small))
        elif n.kind == "town":
            top.append(svg.element("circle", cx=pos[0], cy=pos[1], r=r * 0.1, fill="#000",
                                   stroke="#fff", stroke_width=1.0, class_="town"))
    top.extend(_revenues(tile, rot, nodes, lay, c, phase_color, bool(h.location)))
    out.extend(_labels(tile, h, lay, c, extra_icons, open_privates if preprinted else set()))
    out.extend(_borders(h, lay, c))
    attrs = {"class": "hex", "data_hex": h.id, "data_tile": placed.tile_id,
             "data_laid": "1" if not preprinted else None,
             "data_rotation": rot if not preprinted else None}
    return svg.group(out, **attrs), svg.group(top, data_hex=h.id)


def _reservations(h: HexSpec, placed: PlacedTile) -> dict[int, tuple[str, ...]]:
    """City index -> the company symbols printed as reserved in it (the preprinted
    tile's home reservations, kept on the same city index after an upgrade)."""
    out: dict[int, tuple[str, ...]] = {}
    for ci, n in enumerate(h.tile.cities):
        if n.reserved:
            out[ci] = n.reserved
    if placed.tile is not h.tile:
        ncities = len(placed.tile.cities)
        out = {ci: v for ci, v in out.items() if ci < ncities}
    return out


def _slot_centres(pos: Point, n: int, rs: float) -> list[Point]:
    x, y = pos
    if n <= 1:
        return [pos]
    if n == 2:
        return [(x - rs, y), (x + rs, y)]
    if n == 3:
        return [(x - rs, y + rs * 0.6), (x + rs, y + rs * 0.6), (x, y - rs * 1.1)]
    return [(x - rs, y - rs), (x + rs, y - rs), (x - rs, y + rs), (x + rs, y + rs)][:n]


def _city(hex_id: str, n: Node, pos: Point, r: float, tokens: tuple[str, ...],
          reserved: tuple[str, ...], package: str, small: bool = False) -> str:
    """A city: its token slots, filled by tokens, printed markers or reservations
    (``small``: slots a little smaller, for tiles with three or more cities)."""
    slots = max(n.slots, 1, len(tokens))
    rs = r * (0.25 if slots == 1 and not small else 0.2)
    centres = _slot_centres(pos, slots, rs)
    out = []
    if slots > 1:
        xs = [p[0] for p in centres]
        ys = [p[1] for p in centres]
        out.append(svg.element("rect", x=min(xs) - rs, y=min(ys) - rs,
                               width=max(xs) - min(xs) + 2 * rs,
                               height=max(ys) - min(ys) + 2 * rs, rx=rs, fill="#fff",
                               stroke="#000", stroke_width=1.0))
    pending_res = [s for s in reserved if s not in tokens]
    markers = [m for m in n.markers if m not in tokens]
    for i, (x, y) in enumerate(centres):
        if i < len(tokens):
            sym = tokens[i]
            bg, fg = colors_of(package, sym)
            out.append(svg.group([
                svg.element("circle", cx=x, cy=y, r=rs * 0.92, fill=bg, stroke="#000",
                            stroke_width=1.0),
                svg.text(x, y + _font(sym, rs) * 0.36, sym, font_size=_font(sym, rs),
                         fill=fg, text_anchor="middle", font_weight="bold"),
            ], class_="token", data_company=sym, data_hex=hex_id))
            continue
        out.append(svg.element("circle", cx=x, cy=y, r=rs, fill="#fff", stroke="#000",
                               stroke_width=1.0))
        k = i - len(tokens)
        if k < len(markers):
            sym = markers[k]
            out.append(svg.group([
                svg.element("circle", cx=x, cy=y, r=rs * 0.85, fill="#d0d0d0", stroke="#444",
                            stroke_width=1.0),
                svg.text(x, y + _font(sym, rs) * 0.36, sym, font_size=_font(sym, rs),
                         fill="#000", text_anchor="middle"),
            ], class_="marker", data_marker=sym))
        elif k - len(markers) < len(pending_res):
            sym = pending_res[k - len(markers)]
            out.append(svg.text(x, y + _font(sym, rs) * 0.36, sym, font_size=_font(sym, rs),
                                fill="#666", text_anchor="middle", class_="reservation",
                                data_company=sym))
    return svg.group(out, class_="city", data_slots=n.slots)


def _font(sym: str, rs: float) -> float:
    return min(rs * 0.85, rs * 2.3 / max(len(sym), 1))


def _revenues(tile: Tile, rotation: int, nodes: Mapping[int, Point], lay: Layout, c: Point,
              phase_color: str, named: bool) -> list[str]:
    """Revenue circles of cities and towns; the value boxes of offboards (one per phase
    colour, the one in force now outlined)."""
    r = lay.r
    out: list[str] = []
    paying = [n for n in tile.nodes if n.kind != "offboard" and not n.hidden
              and isinstance(n.revenue, int) and n.revenue > 0]
    values = {n.revenue for n in paying}
    if len(values) == 1 and paying:
        spot = _free_spot(lay.layout, nodes, tile.exits(rotation), named,
                          bool(tile.terrain or tile.icons), bool(tile.labels))
        spots: list[tuple[Point, int]] = [(spot, int(paying[0].revenue))]  # type: ignore[arg-type]
    else:
        spots = []
        for n in paying:
            spots.append((_spot_beside(nodes, n.part), int(n.revenue)))  # type: ignore[arg-type]
    for local, value in spots:
        x, y = lay.at(c, local)
        out.append(svg.group([
            svg.element("circle", cx=x, cy=y, r=r * 0.17, fill="#fff", stroke="#000",
                        stroke_width=0.8),
            svg.text(x, y + r * 0.07, str(value), font_size=r * 0.2, text_anchor="middle"),
        ], class_="revenue"))
    for n in tile.nodes:  # offboards (hidden ones too) and cities valued by phase
        if n.kind == "offboard" or not isinstance(n.revenue, int):
            where = (0.0, 0.0) if n.hidden else nodes.get(n.part, (0.0, 0.0))
            out.append(_phase_values(n, lay, c, where, phase_color))
    return out


def _free_spot(layout: str, nodes: Mapping[int, Point], exits: frozenset[int] = frozenset(),
               named: bool = False, marked: bool = False, labelled: bool = False) -> Point:
    """A spot for one revenue circle: of the six points towards the corners, the one
    farthest from the nodes, preferring corners without track on their two edges, away
    from the location name (bottom, when ``named``), the label (upper left) and the
    terrain or icons (right, when ``marked``)."""
    best: Point = (0.0, -0.6)
    best_score = -9.0
    for k in range(6):
        p = corner_point(layout, k + 0.0)
        q = (p[0] * 0.62, p[1] * 0.62)
        d = min((math.hypot(q[0] - a, q[1] - b) for a, b in nodes.values()), default=1.0)
        score = min(d, 0.55) - 0.2 * len({(k - 1) % 6, k} & exits)
        if named and q[1] > 0.3:
            score -= 0.5
        if q[0] < -0.2 and q[1] < 0.1:
            score -= 0.45 if labelled else 0.15
        if marked and q[0] > 0.2:
            score -= 0.3
        if score > best_score + 1e-9:
            best, best_score = q, score
    return best


def _spot_beside(nodes: Mapping[int, Point], part: int) -> Point:
    """A spot for the revenue circle of node ``part``: beside it towards the hex's rim,
    on the side farther from the other nodes."""
    px, py = nodes.get(part, (0.0, 0.0))
    d = math.hypot(px, py)
    if d < 0.05:
        return _free_spot("pointy", {k: v for k, v in nodes.items()})
    a = math.atan2(py, px)
    others = [v for k, v in nodes.items() if k != part]
    best: Point = (px, py)
    best_d = -1.0
    for turn in (0.75, -0.75):
        q = (0.66 * math.cos(a + turn), 0.66 * math.sin(a + turn))
        dd = min(((q[0] - x) ** 2 + (q[1] - y) ** 2 for x, y in others), default=9.0)
        if dd > best_d:
            best, best_d = q, dd
    return best


def _phase_values(n: Node, lay: Layout, c: Point, local: Point, phase_color: str) -> str:
    """An offboard's (or a phase-valued city's) values per phase colour in a row."""
    r = lay.r
    rev = n.revenue if not isinstance(n.revenue, int) else {"yellow": n.revenue}
    items = list(rev.items())
    bw, bh = r * 0.42, r * 0.3
    x0 = c[0] + local[0] * r - bw * len(items) / 2
    y0 = c[1] + local[1] * r - r * 0.55
    now = n.revenue_in(phase_color)
    current = None
    for col, value in items:
        if value == now:
            current = col
    out = []
    for i, (col, value) in enumerate(items):
        x = x0 + i * bw
        out.append(svg.element("rect", x=x, y=y0, width=bw, height=bh,
                               fill=PHASE_FILL.get(col, "#fff"),
                               stroke="#000" if col == current else "#555",
                               stroke_width=2.2 if col == current else 0.6))
        out.append(svg.text(x + bw / 2, y0 + bh * 0.75, str(value), font_size=r * 0.21,
                            text_anchor="middle",
                            font_weight="bold" if col == current else None))
    return svg.group(out, class_="offboard-values", data_now=now)


def _terrain(tile: Tile, lay: Layout, c: Point) -> list[str]:
    r = lay.r
    out = []
    for i, t in enumerate(tile.terrain):
        x, y = c[0] + r * (0.42 + 0.0 * i), c[1] - r * (0.38 - 0.3 * i)
        if t.kind == "mountain":
            tri = [(x - r * 0.13, y + r * 0.08), (x + r * 0.13, y + r * 0.08), (x, y - r * 0.14)]
            out.append(svg.element("polygon", points=svg.points(tri), fill=MOUNTAIN,
                                   stroke="#000", stroke_width=0.5))
        else:
            d = (f"M {svg.num(x - r * 0.15)} {svg.num(y)} q {svg.num(r * 0.075)} "
                 f"{svg.num(-r * 0.08)} {svg.num(r * 0.15)} 0 t {svg.num(r * 0.15)} 0")
            out.append(svg.element("path", d=d, fill="none", stroke=RIVER,
                                   stroke_width=r * 0.05))
        if t.cost:
            out.append(svg.text(x, y + r * 0.3, f"{t.cost}", font_size=r * 0.18,
                                text_anchor="middle", class_="terrain-cost"))
    return [svg.group(out, class_="terrain")] if out else []


def _labels(tile: Tile, h: HexSpec, lay: Layout, c: Point,
            extra_icons: frozenset[str] | tuple[str, ...], open_privates: set[str]) -> list[str]:
    """Tile labels (upper left), icons and the hex's extra icons (lower right), the
    private companies blocking it, and the location name (bottom)."""
    r = lay.r
    out = []
    if tile.labels:
        x, y = c[0] - r * 0.55, c[1] - r * 0.32
        out.append(svg.text(x, y, " ".join(tile.labels), font_size=r * 0.24,
                            font_weight="bold", text_anchor="middle", class_="label"))
    icons = [i.rstrip("!") for i in tile.icons]
    icons += [f"{i}" for i in sorted(extra_icons) if i not in icons]
    icons += [p for p in h.blockers if p in open_privates]
    for k, name in enumerate(icons):
        x, y = c[0] + r * 0.5, c[1] + r * (0.22 + 0.0) - k * r * 0.3
        w = r * (0.16 + 0.12 * len(name))
        coal = name in ("K", "S")
        fill = "#222" if name == "K" else "#8aa0b4" if name == "S" else "#fff"
        out.append(svg.group([
            svg.element("rect", x=x - w / 2, y=y - r * 0.13, width=w, height=r * 0.26,
                        rx=r * 0.13 if coal else r * 0.04, fill=fill, stroke="#000",
                        stroke_width=0.7),
            svg.text(x, y + r * 0.08, name, font_size=r * 0.2, text_anchor="middle",
                     fill="#fff" if name == "K" else "#000"),
        ], class_="icon", data_icon=name))
    return out


def _name(placed: PlacedTile, h: HexSpec, lay: Layout) -> str:
    """The location name at the bottom of the hex (two lines when long), with a white
    halo; drawn above every hex so a long name is never covered by the next hex."""
    if not h.location:
        return ""
    r = lay.r
    c = lay.centre(h.x, h.y)
    tile = placed.tile
    words = h.location.split(" ")
    lines = [h.location] if len(h.location) <= 12 or len(words) == 1 else \
        [" ".join(words[: len(words) // 2]), " ".join(words[len(words) // 2:])]
    offboard = tile.color == "red"
    y0 = c[1] + r * (0.62 if len(lines) == 1 else 0.58)
    spots = list(_visible_positions(lay.layout, placed).values())
    if not offboard and any(y > 0.28 and abs(x) < 0.5 for x, y in spots):
        # a city sits where the name goes: one line along the hex's bottom rim
        lines, y0 = [h.location], c[1] + r * 0.86
    fit = 10 if offboard else 12 if y0 < c[1] + r * 0.8 else 15  # characters that fit
    size = r * 0.19 * min(1.0, fit / max(len(line) for line in lines))
    out = []
    for k, line in enumerate(lines):
        if not offboard:  # a white halo keeps the name legible over track and cities
            out.append(svg.text(c[0], y0 + k * r * 0.21, line, font_size=size,
                                text_anchor="middle", fill="#fff", stroke="#fff",
                                stroke_width=r * 0.07, stroke_linejoin="round",
                                stroke_opacity=0.85, class_="name-halo"))
        out.append(svg.text(c[0], y0 + k * r * 0.21, line, font_size=size,
                            text_anchor="middle", class_="name", data_hex=h.id,
                            fill="#fff" if offboard else "#000",
                            font_weight="bold" if offboard else None))
    return "".join(out)


def _visible_positions(layout: str, placed: PlacedTile) -> dict[int, Point]:
    """Positions of the tile's drawn nodes (hidden ones left out)."""
    pos = node_positions(layout, placed.tile, placed.rotation)
    return {n.part: pos[n.part] for n in placed.tile.nodes if not n.hidden and n.part in pos}


def _borders(h: HexSpec, lay: Layout, c: Point) -> list[str]:
    """Special hex sides: the Rhine (blue), impassable (thick dark), water costs."""
    out = []
    for b in h.borders:
        p = lay.at(c, corner_point(lay.layout, b.edge))
        q = lay.at(c, corner_point(lay.layout, b.edge + 1))
        stroke = "#d40000" if b.kind == "impassable" and b.color != "blue" else RIVER
        out.append(svg.element("line", x1=p[0], y1=p[1], x2=q[0], y2=q[1], stroke=stroke,
                               stroke_width=lay.r * 0.12, stroke_linecap="round",
                               stroke_dasharray="6 3" if b.kind == "water" else None,
                               class_="border"))
    return out

