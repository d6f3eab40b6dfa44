"""Hex geometry for drawing: hex centres, corners, edge midpoints and where a tile's
revenue nodes and track sit, for both layouts.

Coordinates follow :mod:`rhineland.board.hexgrid` (doubled: ``x`` = column number - 1,
``y`` = row letter index).  Pointy hexes (18Rhl) have edge ``e`` facing
``120 + 60e`` degrees (screen angles, y down: edge 0 down-left, 4 right); flat hexes
(1893) ``90 + 60e`` (edge 0 down).  Positions inside a hex are in units of the hex
radius ``R`` (centre to corner) relative to the centre; :class:`Layout` scales them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rhineland.board.tiles import Node, Path, Tile

SQRT3 = math.sqrt(3.0)
APOTHEM = SQRT3 / 2
"""Centre to edge midpoint, in hex radii."""

Point = tuple[float, float]


def edge_angle(layout: str, edge: float) -> float:
    """Screen angle in radians of the direction from a hex's centre to edge ``edge``
    (fractional edges such as ``3.5`` lie between two edges, at a corner)."""
    base = 120.0 if layout == "pointy" else 90.0
    return math.radians(base + 60.0 * edge)


def polar(angle: float, dist: float) -> Point:
    """The point ``dist`` hex radii from the centre in direction ``angle`` (radians)."""
    return (dist * math.cos(angle), dist * math.sin(angle))


def edge_point(layout: str, edge: float, dist: float = APOTHEM) -> Point:
    """The midpoint of edge ``edge`` (or a point ``dist`` radii towards it)."""
    return polar(edge_angle(layout, edge), dist)


def corner_point(layout: str, edge: float) -> Point:
    """The corner between edge ``edge - 1`` and edge ``edge`` (radius 1)."""
    return polar(edge_angle(layout, edge - 0.5), 1.0)


def corners(layout: str) -> list[Point]:
    """The six corners of a hex of radius 1, in edge order."""
    return [corner_point(layout, e) for e in range(6)]


@dataclass(frozen=True)
class Layout:
    """Where hexes sit on the page: hex radius ``r`` px, offsets ``ox``, ``oy`` px."""

    layout: str
    r: float
    ox: float
    oy: float

    def centre(self, x: int, y: int) -> Point:
        """Page position of the centre of the hex at doubled coordinates ``(x, y)``."""
        if self.layout == "pointy":
            return (self.ox + x * self.r * APOTHEM, self.oy + y * self.r * 1.5)
        return (self.ox + x * self.r * 1.5, self.oy + y * self.r * APOTHEM)

    def at(self, centre: Point, local: Point) -> Point:
        """Page position of ``local`` (hex radii from the centre) in the hex at ``centre``."""
        return (centre[0] + local[0] * self.r, centre[1] + local[1] * self.r)


def _bezier(p0: Point, p1: Point, p2: Point, p3: Point, t: float) -> Point:
    u = 1 - t
    a, b, c, d = u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t
    return (a * p0[0] + b * p1[0] + c * p2[0] + d * p3[0],
            a * p0[1] + b * p1[1] + c * p2[1] + d * p3[1])


CURVE_PULL = 0.55
"""How far the control points of an edge-to-edge curve lie towards the centre: a
straight for opposite edges, a gentle curve for edges two apart, a sharp one for
neighbouring edges."""


def edge_curve(layout: str, a: int, b: int) -> tuple[Point, Point, Point, Point]:
    """The cubic Bezier (four points) of track from edge ``a`` to edge ``b``."""
    pa, pb = edge_point(layout, a), edge_point(layout, b)
    ca = (pa[0] * (1 - CURVE_PULL), pa[1] * (1 - CURVE_PULL))
    cb = (pb[0] * (1 - CURVE_PULL), pb[1] * (1 - CURVE_PULL))
    return (pa, ca, cb, pb)


def node_edges(tile: Tile, rotation: int) -> dict[int, list[int]]:
    """Node part -> the (rotated) edges its paths reach directly."""
    out: dict[int, list[int]] = {n.part: [] for n in tile.nodes}
    for p in tile.rotated_paths(rotation):
        ends = (p.a, p.b)
        for this, other in (ends, ends[::-1]):
            if isinstance(this, str) and isinstance(other, int):
                out.setdefault(int(this[1:]), []).append(other)
    return out


_POSITIONS: dict[tuple[int, int, str], tuple[Tile, dict[int, Point]]] = {}


def node_positions(layout: str, tile: Tile, rotation: int) -> dict[int, Point]:
    """Node part -> position in the hex (radii from the centre) of ``tile`` at ``rotation``
    (cached per tile object, rotation and layout; callers must not change the result).
    See :func:`_node_positions`."""
    key = (id(tile), rotation, layout)
    got = _POSITIONS.get(key)
    if got is None or got[0] is not tile:
        got = (tile, _node_positions(layout, tile, rotation))
        _POSITIONS[key] = got
    return got[1]


def _node_positions(layout: str, tile: Tile, rotation: int) -> dict[int, Point]:
    """Node part -> position in the hex (radii from the centre) of ``tile`` at ``rotation``.

    A node's ``loc`` (an edge, between edges such as ``"3.5"``, or ``"center"``) places
    it; a tile's only node sits in the centre; otherwise a node reached from one edge
    sits halfway towards it, from two edges on the middle of the curve joining them,
    and nodes without track are spread across the hex.
    """
    visible = [n for n in tile.nodes if not n.hidden]
    edges = node_edges(tile, rotation)
    out: dict[int, Point] = {}
    loose: list[Node] = []
    for n in tile.nodes:
        if n.loc is not None:
            out[n.part] = (0.0, 0.0) if n.loc == "center" else \
                edge_point(layout, float(n.loc) + rotation, 0.55 if len(visible) > 2 else 0.5)
            continue
        if len(visible) <= 1 or n.kind == "offboard":
            out[n.part] = (0.0, 0.0)
            continue
        es = sorted(set(edges.get(n.part, [])))
        if len(es) == 1:
            out[n.part] = edge_point(layout, es[0], 0.55 if len(visible) > 2 else 0.45)
        elif len(es) == 2:
            out[n.part] = _bezier(*edge_curve(layout, es[0], es[1]), 0.5)
        elif es:
            vx = sum(edge_point(layout, e)[0] for e in es) / len(es)
            vy = sum(edge_point(layout, e)[1] for e in es) / len(es)
            out[n.part] = (vx * 0.6, vy * 0.6)
        else:
            loose.append(n)
    for i, n in enumerate(loose):
        out[n.part] = ((i - (len(loose) - 1) / 2) * 0.55, 0.0)
    return out


def path_d(layout: str, path: Path, nodes: dict[int, Point], lay: Layout, c: Point) -> str:
    """The SVG path data of one (rotated) track path of a tile on the hex centred at ``c``."""
    from rhineland.render.svg import num

    def page(p: Point) -> str:
        x, y = lay.at(c, p)
        return f"{num(x)} {num(y)}"

    a, b = path.a, path.b
    if isinstance(a, int) and isinstance(b, int):
        p0, p1, p2, p3 = edge_curve(layout, a, b)
        return f"M {page(p0)} C {page(p1)} {page(p2)} {page(p3)}"
    if isinstance(a, str) and isinstance(b, int):
        a, b = b, a
    if isinstance(a, int) and isinstance(b, str):
        pa = edge_point(layout, a)
        pn = nodes.get(int(b[1:]), (0.0, 0.0))
        ctrl = (pa[0] * (1 - CURVE_PULL), pa[1] * (1 - CURVE_PULL))
        return f"M {page(pa)} Q {page(ctrl)} {page(pn)}"
    assert isinstance(a, str) and isinstance(b, str)
    pa = nodes.get(int(a[1:]), (0.0, 0.0))
    pb = nodes.get(int(b[1:]), (0.0, 0.0))
    return f"M {page(pa)} L {page(pb)}"
