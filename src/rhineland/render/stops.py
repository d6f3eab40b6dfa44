"""Cities, towns and their values on a hex: token slots with tokens, printed markers
and home reservations, revenue circles, offboard values per phase."""

from __future__ import annotations

import math
from collections.abc import Mapping

from rhineland.board.board import PlacedTile
from rhineland.board.mapspec import HexSpec
from rhineland.board.tiles import Node, Tile
from rhineland.render import svg
from rhineland.render.geometry import (
    Layout,
    Point,
    corner_point,
)
from rhineland.render.style import (
    PHASE_FILL,
    colors_of,
)


def reservations(h: HexSpec, placed: PlacedTile) -> dict[int, tuple[str, ...]]:
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


def city(hex_id: str, n: Node, pos: Point, r: float, tokens: tuple[str, ...],
          reserved: tuple[str, ...], package: str, small: bool = False) -> str:
    """A city: its token slots, filled by tokens, printed markers or reservations
    (``small``: slots a little smaller, for tiles with three or more cities); the group
    carries the node's name ``data-node="<hex>-<part>"`` (a route's stop)."""
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
    return svg.group(out, class_="city", data_slots=n.slots, data_node=f"{hex_id}-{n.part}")


def _font(sym: str, rs: float) -> float:
    return min(rs * 0.85, rs * 2.3 / max(len(sym), 1))


def revenues(tile: Tile, rotation: int, nodes: Mapping[int, Point], lay: Layout, c: Point,
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
