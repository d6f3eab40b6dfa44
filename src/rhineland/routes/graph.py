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

from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from rhineland.board.board import Board, PlacedTile
from rhineland.board.hexgrid import opposite
from rhineland.board.tiles import Node, Path

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

    @property
    def segment_count(self) -> int:
        """Number of directed segments."""
        return sum(len(s) for s in self.out)


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


def _build(board: Board) -> TrackGraph:
    spec = board.spec
    hex_index = {h: i for i, h in enumerate(spec.hexes)}
    graph = TrackGraph(version=board.version, tiles=dict(board.tiles))

    # rotated paths per hex, and which paths touch each edge / node
    paths: dict[str, tuple[Path, ...]] = {}
    at_edge: dict[str, dict[int, list[int]]] = {}
    at_node: dict[str, dict[int, list[int]]] = {}
    for h, placed in board.tiles.items():
        ps = placed.tile.rotated_paths(placed.rotation) if placed.tile.paths else ()
        paths[h] = ps
        edge_map: dict[int, list[int]] = {}
        node_map: dict[int, list[int]] = {}
        for i, p in enumerate(ps):
            for e in p.edges():
                edge_map.setdefault(e, []).append(i)
            for n in p.nodes():
                node_map.setdefault(n, []).append(i)
        at_edge[h] = edge_map
        at_node[h] = node_map

    for h, placed in board.tiles.items():
        tile = placed.tile
        if not tile.nodes:
            continue
        cities = [n.part for n in tile.nodes if n.is_city]
        for tn in tile.nodes:
            touching = at_node[h].get(tn.part, [])
            if not touching and tn.hidden:
                continue
            terminal = tn.is_offboard or any(paths[h][i].terminal for i in touching)
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
            graph.nodes.append(rn)
            graph.by_name[rn.name] = rn
            graph.by_hex.setdefault(h, []).append(rn)
    graph.out = [[] for _ in graph.nodes]

    def node_id(h: str, part: int) -> int | None:
        rn = graph.by_name.get(f"{h}-{part}")
        return None if rn is None else rn.id

    def unit_edge(h: str, e: int) -> int:
        return hex_index[h] * _UNITS_PER_HEX + e

    def unit_path(h: str, i: int) -> int:
        return hex_index[h] * _UNITS_PER_HEX + 6 + i

    neighbors = {h: hs.neighbors for h, hs in spec.hexes.items()}

    def walk(
        start: int,
        h: str,
        path_i: int,
        from_end: int | str,
        hexes: list[str],
        steps: list[tuple[str, int]],
        edges: list[tuple[str, int]],
        units: set[int],
        gauges: set[str],
    ) -> Iterator[Segment]:
        """Follow path ``path_i`` of hex ``h`` entered at ``from_end``; yield segments."""
        p = paths[h][path_i]
        other = p.b if p.a == from_end else p.a
        steps.append((h, path_i))
        gauges_added = p.gauge not in gauges
        gauges.add(p.gauge)
        added: list[int] = []
        for e in p.edges():
            u = unit_edge(h, e)
            if u not in units:
                units.add(u)
                added.append(u)
        if not p.edges():
            u = unit_path(h, path_i)
            units.add(u)
            added.append(u)
        try:
            if isinstance(other, str):  # reached a node
                b = node_id(h, int(other[1:]))
                if b is not None and b != start:
                    yield Segment(
                        start,
                        b,
                        tuple(hexes),
                        tuple(steps),
                        tuple(edges),
                        frozenset(units),
                        frozenset(gauges),
                    )
                return
            edges.append((h, other))
            nh = neighbors[h].get(other)
            if nh is None or spec.crossing_blocked(h, other):
                edges.pop()
                return
            ne = opposite(other)
            u = unit_edge(nh, ne)
            if u in units:
                edges.pop()
                return
            edges.append((nh, ne))
            hexes.append(nh)
            for nxt in at_edge[nh].get(ne, ()):
                if (nh, nxt) in steps:
                    continue
                yield from walk(start, nh, nxt, ne, hexes, steps, edges, units, gauges)
            hexes.pop()
            edges.pop()
            edges.pop()
        finally:
            steps.pop()
            for u in added:
                units.discard(u)
            if gauges_added:
                gauges.discard(p.gauge)

    for rn in graph.nodes:
        ref = f"p{rn.part}"
        for path_i in at_node[rn.hex].get(rn.part, ()):
            for seg in walk(rn.id, rn.hex, path_i, ref, [rn.hex], [], [], set(), set()):
                graph.out[rn.id].append(seg)
                graph.by_hexes.setdefault(seg.hexes, []).append(seg)
    return graph
