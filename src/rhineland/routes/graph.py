"""The compact track graph that routes run on: revenue nodes and the segments between them.

Model
-----
A *revenue node* is a city, town or offboard on the tile currently on a hex,
named like the exports do: ``"<hex>-<part>"``.  A *segment* is one stretch of
track from a node to another node that passes no third node: the first path
leaves node ``a`` (towards an edge of its hex, or straight to another node of
the same hex, e.g. 18Rhl's narrow-gauge Trajekt or a city-town link), any
number of edge-to-edge paths follow through other hexes, and the last path
ends at node ``b``.  Exactly this is what an export's ``connections`` chain
names (the hexes walked, in order), so a route is a sequence of segments.

Every segment is stored once per direction (``a -> b`` and ``b -> a``), keyed
by its hex sequence, so an export chain resolves by one dictionary lookup.

*Track units* make the no-reuse rule a set intersection: every path a segment
uses occupies one unit per hex edge it touches (``(hex, edge)``; two paths
meeting at one edge of a hex share that unit, as in the 18xx rule that a route
may not reuse any track, not even a junction edge) and one unit per
node-to-node path.  Units are small ints.

The graph depends on the tiles only (not on tokens), so it is cached on the
board object, checked against :attr:`Board.version` and rebuilt only when a
tile changed (a token move bumps the version but keeps the graph); what depends on
the entity (blocked cities, token cities) is computed per call by
:mod:`rhineland.routes.engine`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace

from rhineland.board.board import Board, PlacedTile
from rhineland.board.mapspec import MapSpec
from rhineland.board.tiles import Node, Tile

_UNITS_PER_HEX = 32  # 6 edge units + up to 26 node-to-node paths per hex


@dataclass(frozen=True, slots=True)
class RevenueNode:
    """A revenue node on the current board.

    ``id`` indexes :attr:`TrackGraph.nodes`; ``name`` is ``"<hex>-<part>"``;
    ``city_index`` the index among the tile's cities (token key on the board),
    ``None`` for towns and offboards; ``terminal`` is true for offboards and for
    nodes reached by a terminal path: such a node may only start or end a route.
    ``tile_color`` is the colour of the tile it sits on.
    """

    id: int
    hex: str
    part: int
    node: Node
    city_index: int | None
    terminal: bool
    tile_color: str
    name: str

    @property
    def kind(self) -> str:
        """``"city"``, ``"town"`` or ``"offboard"``."""
        return self.node.kind


@dataclass(frozen=True, slots=True)
class Segment:
    """Track from node ``a`` to node ``b`` without passing another node.

    ``hexes`` lists the hexes walked from ``a`` to ``b`` (the export chain);
    ``steps`` the ``(hex, path index)`` of every path used, in walk order (path
    index into the tile's rotated paths); ``edges`` the ``(hex, edge)`` sides
    the walk uses, per hex; ``units`` the track units occupied (see the module
    docstring); ``gauges`` the set of track gauges used (``"broad"``,
    ``"narrow"``).
    """

    a: int
    b: int
    hexes: tuple[str, ...]
    steps: tuple[tuple[str, int], ...]
    edges: tuple[tuple[str, int], ...]
    units: frozenset[int]
    gauges: frozenset[str]

    def reversed(self) -> Segment:
        """The same track walked from ``b`` to ``a``."""
        return Segment(
            self.b,
            self.a,
            self.hexes[::-1],
            self.steps[::-1],
            self.edges[::-1],
            self.units,
            self.gauges,
        )


@dataclass
class TrackGraph:
    """All revenue nodes of a board and all segments between them.

    ``nodes[i]`` is the node with id ``i``; ``by_name`` maps ``"<hex>-<part>"``
    to the node; ``out[i]`` lists the segments leaving node ``i``;
    ``by_hexes`` maps a hex sequence (an export chain) to the segments walking
    exactly those hexes.  Built by :func:`track_graph`.
    """

    version: int
    tiles: dict[str, PlacedTile] = field(default_factory=dict)
    nodes: list[RevenueNode] = field(default_factory=list)
    by_name: dict[str, RevenueNode] = field(default_factory=dict)
    by_hex: dict[str, list[RevenueNode]] = field(default_factory=dict)
    out: list[list[Segment]] = field(default_factory=list)
    by_hexes: dict[tuple[str, ...], list[Segment]] = field(default_factory=dict)


def unit_hexes(board: Board, units: Iterable[int]) -> list[str]:
    """The hexes of some track units, sorted (for error messages)."""
    names = list(board.spec.hexes)
    return sorted({names[u // _UNITS_PER_HEX] for u in units})


def track_graph(board: Board) -> TrackGraph:
    """The track graph of ``board``'s current tiles, cached on the board by version.

    The cache lives in ``board.route_cache`` and is replaced as soon as
    ``board.version`` differs from the cached graph's.  Pure function of the
    tiles; raises nothing for a well-formed board.
    """
    cached = board.route_cache
    if isinstance(cached, TrackGraph):
        if cached.version == board.version:
            return cached
        # a token move bumps the version too: reuse the graph while no tile changed
        placed = board.tiles
        if all(placed[h] is t for h, t in cached.tiles.items()):
            # never mutate a cached graph: clones of the board may share it
            graph = replace(cached, version=board.version)
            board.route_cache = graph
            return graph
    graph = _build(board)
    board.route_cache = graph
    return graph


@dataclass(frozen=True, slots=True)
class _TileTrack:
    """A tile's rotated track as lookup tables (built once per tile and rotation).

    ``ends[i]``: the two endpoints of path ``i`` (edge int or node part as
    ``-1 - part``); ``edges[i]``: its edges; ``at_edge``/``at_node``: path
    indices touching an edge / a node part; ``terminal``/``gauge`` per path.
    """

    ends: tuple[tuple[int, int], ...]
    edges: tuple[tuple[int, ...], ...]
    at_edge: dict[int, tuple[int, ...]]
    at_node: dict[int, tuple[int, ...]]
    terminal: tuple[bool, ...]
    gauge: tuple[str, ...]


_TRACK_CACHE: dict[tuple[int, int], tuple[Tile, _TileTrack]] = {}


def _tile_track(tile: Tile, rotation: int) -> _TileTrack:
    key = (id(tile), rotation)
    hit = _TRACK_CACHE.get(key)
    if hit is not None and hit[0] is tile:
        return hit[1]
    ps = tile.rotated_paths(rotation)

    def code(end: int | str) -> int:
        return end if isinstance(end, int) else -1 - int(end[1:])

    at_edge: dict[int, list[int]] = {}
    at_node: dict[int, list[int]] = {}
    for i, p in enumerate(ps):
        for e in p.edges():
            at_edge.setdefault(e, []).append(i)
        for n in p.nodes():
            at_node.setdefault(n, []).append(i)
    track = _TileTrack(
        ends=tuple((code(p.a), code(p.b)) for p in ps),
        edges=tuple(p.edges() for p in ps),
        at_edge={e: tuple(v) for e, v in at_edge.items()},
        at_node={n: tuple(v) for n, v in at_node.items()},
        terminal=tuple(bool(p.terminal) for p in ps),
        gauge=tuple(p.gauge for p in ps),
    )
    _TRACK_CACHE[key] = (tile, track)  # the tile is kept alive, so its id stays unique
    return track


_CROSSINGS: dict[int, tuple[MapSpec, dict[str, dict[int, str]], dict[str, int]]] = {}


def _crossings(spec: MapSpec) -> tuple[dict[str, dict[int, str]], dict[str, int]]:
    """hex -> {edge: neighbour} for sides track may cross, and hex -> index (per map)."""
    hit = _CROSSINGS.get(id(spec))
    if hit is not None and hit[0] is spec:
        return hit[1], hit[2]
    cross = {
        h: {e: n for e, n in hs.neighbors.items() if not spec.crossing_blocked(h, e)}
        for h, hs in spec.hexes.items()
    }
    index = {h: i for i, h in enumerate(spec.hexes)}
    _CROSSINGS[id(spec)] = (spec, cross, index)
    return cross, index


def _build(board: Board) -> TrackGraph:
    cross, hex_index = _crossings(board.spec)
    graph = TrackGraph(version=board.version, tiles=dict(board.tiles))
    track: dict[str, _TileTrack] = {}
    for h, placed in board.tiles.items():
        if placed.tile.paths:
            track[h] = _tile_track(placed.tile, placed.rotation)

    node_ids: dict[tuple[str, int], int] = {}
    for h, placed in board.tiles.items():
        tile = placed.tile
        if not tile.nodes:
            continue
        tt = track.get(h)
        cities = [n.part for n in tile.nodes if n.is_city]
        for tn in tile.nodes:
            touching = tt.at_node.get(tn.part, ()) if tt else ()
            if not touching and tn.hidden:
                continue
            terminal = tn.is_offboard or any(tt.terminal[i] for i in touching if tt)
            rn = RevenueNode(
                id=len(graph.nodes),
                hex=h,
                part=tn.part,
                node=tn,
                city_index=cities.index(tn.part) if tn.is_city else None,
                terminal=terminal,
                tile_color=tile.color,
                name=f"{h}-{tn.part}",
            )
            node_ids[(h, tn.part)] = rn.id
            graph.nodes.append(rn)
            graph.by_name[rn.name] = rn
            graph.by_hex.setdefault(h, []).append(rn)
    graph.out = [[] for _ in graph.nodes]

    hexes: list[str] = []
    steps: list[tuple[str, int]] = []
    edges: list[tuple[str, int]] = []
    units: set[int] = set()
    gauges: list[str] = []

    def walk(start: int, h: str, path_i: int, came_from: int) -> Iterator[Segment]:
        """Follow path ``path_i`` of hex ``h`` entered at end ``came_from``; yield segments."""
        tt = track[h]
        a, b = tt.ends[path_i]
        other = b if a == came_from else a
        base = hex_index[h] * _UNITS_PER_HEX
        added: list[int] = []
        path_edges = tt.edges[path_i]
        if path_edges:
            for e in path_edges:
                if base + e not in units:
                    units.add(base + e)
                    added.append(base + e)
        else:
            units.add(base + 6 + path_i)
            added.append(base + 6 + path_i)
        steps.append((h, path_i))
        gauges.append(tt.gauge[path_i])
        try:
            if other < 0:  # reached a node
                end = node_ids.get((h, -1 - other))
                if end is not None and end != start:
                    yield Segment(
                        start,
                        end,
                        tuple(hexes),
                        tuple(steps),
                        tuple(edges),
                        frozenset(units),
                        frozenset(gauges),
                    )
                return
            nh = cross[h].get(other)
            if nh is None or nh not in track:
                return
            ne = (other + 3) % 6
            if hex_index[nh] * _UNITS_PER_HEX + ne in units:
                return
            edges.append((h, other))
            edges.append((nh, ne))
            hexes.append(nh)
            for nxt in track[nh].at_edge.get(ne, ()):
                if (nh, nxt) not in steps:
                    yield from walk(start, nh, nxt, ne)
            hexes.pop()
            edges.pop()
            edges.pop()
        finally:
            steps.pop()
            gauges.pop()
            for u in added:
                units.discard(u)

    for rn in graph.nodes:
        tt = track.get(rn.hex)
        if tt is None:
            continue
        for path_i in tt.at_node.get(rn.part, ()):
            hexes[:] = [rn.hex]
            for seg in walk(rn.id, rn.hex, path_i, -1 - rn.part):
                graph.out[rn.id].append(seg)
                graph.by_hexes.setdefault(seg.hexes, []).append(seg)
    return graph
