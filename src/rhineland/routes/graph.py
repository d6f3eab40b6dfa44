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
board object and checked against :attr:`Board.version`; what depends on the
entity (blocked cities, token cities) is computed per call by
:mod:`rhineland.routes.engine`.

*Incremental update*: a tile lay changes the track on one hex, and only the
walks that entered that hex (or tried to: a walk ends at a hex without track)
can change.  Every node therefore keeps its *reach*, the hexes its walks
entered or tried to enter; when tiles changed, :func:`track_graph` walks again
only from the nodes on the changed hexes and the nodes whose reach holds one,
keeps every other node's segments (renumbered when the node ids moved), and
gives exactly the graph a build from scratch gives (node ids, segment order).
A token move bumps the version but changes no tile: the graph is kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from rhineland.board.board import Board, PlacedTile
from rhineland.board.mapspec import MapSpec
from rhineland.board.tiles import Node
from rhineland.board.upgrades import TileGeometry

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
    exactly those hexes; ``reach[i]`` the hexes node ``i``'s walks entered or
    tried to enter (what a tile change must touch to change ``out[i]``);
    ``node_ids`` the node id by ``(hex, part)``.
    ``tiles`` are the tiles the graph was built for.  Built by
    :func:`track_graph`; never mutated once built (board clones share it).
    """

    version: int
    tiles: dict[str, PlacedTile] = field(default_factory=dict)
    nodes: list[RevenueNode] = field(default_factory=list)
    by_name: dict[str, RevenueNode] = field(default_factory=dict)
    by_hex: dict[str, list[RevenueNode]] = field(default_factory=dict)
    out: list[list[Segment]] = field(default_factory=list)
    by_hexes: dict[tuple[str, ...], list[Segment]] = field(default_factory=dict)
    reach: list[frozenset[str]] = field(default_factory=list)
    node_ids: dict[tuple[str, int], int] = field(default_factory=dict)


def unit_hexes(board: Board, units: Iterable[int]) -> list[str]:
    """The hexes of some track units, sorted (for error messages)."""
    names = list(board.spec.hexes)
    return sorted({names[u // _UNITS_PER_HEX] for u in units})


def track_graph(board: Board) -> TrackGraph:
    """The track graph of ``board``'s current tiles, cached on the board by version.

    The cache lives in ``board.route_cache``.  When ``board.version`` moved on,
    the cached graph is kept if no tile changed, else updated from it (module
    docstring: only the walks a changed hex touches are walked again).  Pure
    function of the tiles; raises nothing for a well-formed board.
    """
    cached = board.route_cache
    if isinstance(cached, TrackGraph):
        if cached.version == board.version:
            return cached
        old_tiles = cached.tiles
        changed = {h for h, t in board.tiles.items() if old_tiles.get(h) is not t}
        # never mutate a cached graph: clones of the board may share it
        graph = (
            _derive(board, cached, changed) if changed else replace(cached, version=board.version)
        )
    else:
        graph = build_track_graph(board)
    board.route_cache = graph
    return graph


def build_track_graph(board: Board) -> TrackGraph:
    """The track graph of ``board``'s tiles built from scratch (no cache used or
    stored); :func:`track_graph` gives a graph equal to it."""
    return _derive(board, None, set(board.tiles))


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


def _hex_nodes(h: str, placed: PlacedTile, first_id: int) -> list[RevenueNode]:
    """The revenue nodes of the tile on ``h``, numbered from ``first_id``.

    A hidden node no track reaches is left out; a node is terminal when it is
    an offboard or a terminal path reaches it.
    """
    tile = placed.tile
    g = placed.geometry
    out: list[RevenueNode] = []
    for tn in tile.nodes:
        touching = g.node_paths.get(tn.part, ())
        if not touching and tn.hidden:
            continue
        out.append(
            RevenueNode(
                id=first_id + len(out),
                hex=h,
                part=tn.part,
                node=tn,
                city_index=g.cities.index(tn.part) if tn.is_city else None,
                terminal=tn.is_offboard or any(g.paths[i].terminal for i in touching),
                tile_color=tile.color,
                name=f"{h}-{tn.part}",
            )
        )
    return out


def _derive(board: Board, old: TrackGraph | None, changed: set[str]) -> TrackGraph:
    """The graph of ``board``: from scratch (``old`` None), or ``old`` updated for
    the ``changed`` hexes (module docstring)."""
    if old is not None:
        rows = {h: _hex_nodes(h, board.tiles[h], 0) for h in changed}
        if all(len(rows[h]) == len(old.by_hex.get(h, ())) for h in changed):
            return _update_in_place(board, old, rows)
    graph = TrackGraph(version=board.version, tiles=dict(board.tiles))
    nodes = graph.nodes
    old_id: list[int | None] = []  # new id -> old id, None for a node walked again
    renumber: dict[int, int] = {}  # old id -> new id, where it moved
    old_by_hex = old.by_hex if old is not None else {}
    for h, placed in board.tiles.items():
        if h in changed:
            if not placed.tile.nodes:
                continue
            row = _hex_nodes(h, placed, len(nodes))
            if not row:
                continue
            old_id.extend([None] * len(row))
        else:
            row = old_by_hex.get(h, [])
            if not row:
                continue
            old_id.extend([rn.id for rn in row])
            if row[0].id != len(nodes):
                moved = [replace(rn, id=len(nodes) + k) for k, rn in enumerate(row)]
                renumber.update((rn.id, new.id) for rn, new in zip(row, moved, strict=True))
                row = moved
        nodes.extend(row)
        graph.by_hex[h] = row
        for rn in row:
            graph.by_name[rn.name] = rn
            graph.node_ids[(h, rn.part)] = rn.id
    walker = _Walker(board, graph.node_ids)
    for rn, was in zip(nodes, old_id, strict=True):
        if was is not None and old is not None and changed.isdisjoint(old.reach[was]):
            segs = old.out[was]
            if renumber:
                segs = [_renumbered(s, renumber) for s in segs]
            graph.out.append(segs)
            graph.reach.append(old.reach[was])
        else:
            segs, reach = walker.segments_from(rn)
            graph.out.append(segs)
            graph.reach.append(reach)
    for segs in graph.out:
        for seg in segs:
            graph.by_hexes.setdefault(seg.hexes, []).append(seg)
    return graph


def _update_in_place(
    board: Board, old: TrackGraph, rows: dict[str, list[RevenueNode]]
) -> TrackGraph:
    """``old`` updated where every changed hex keeps its number of nodes (so no id
    moves): the changed hexes' nodes take their predecessors' ids, and only the
    nodes whose reach holds a changed hex are walked again."""
    graph = TrackGraph(
        version=board.version,
        tiles=dict(board.tiles),
        nodes=list(old.nodes),
        by_name=dict(old.by_name),
        by_hex=dict(old.by_hex),
        out=list(old.out),
        by_hexes=dict(old.by_hexes),
        reach=list(old.reach),
        node_ids=dict(old.node_ids),
    )
    for h, row in rows.items():
        if not row:
            continue
        first = old.by_hex[h][0].id
        for prev in old.by_hex[h]:
            del graph.by_name[prev.name]
            del graph.node_ids[(h, prev.part)]
        row = [replace(rn, id=first + k) for k, rn in enumerate(row)]
        graph.by_hex[h] = row
        for rn in row:
            graph.nodes[rn.id] = rn
            graph.by_name[rn.name] = rn
            graph.node_ids[(h, rn.part)] = rn.id
    changed = rows.keys()
    again = [i for i, reach in enumerate(old.reach) if not changed.isdisjoint(reach)]
    if not again:
        return graph
    walker = _Walker(board, graph.node_ids)
    starts = {graph.nodes[i].hex for i in again}
    for h in starts:  # every chain from these hexes is listed again below
        for rn in old.by_hex.get(h, ()):
            for seg in old.out[rn.id]:
                graph.by_hexes.pop(seg.hexes, None)
    for i in again:
        graph.out[i], graph.reach[i] = walker.segments_from(graph.nodes[i])
    for h in starts:
        for rn in graph.by_hex[h]:
            for seg in graph.out[rn.id]:
                graph.by_hexes.setdefault(seg.hexes, []).append(seg)
    return graph


def _renumbered(seg: Segment, renumber: dict[int, int]) -> Segment:
    a = renumber.get(seg.a, seg.a)
    b = renumber.get(seg.b, seg.b)
    if a == seg.a and b == seg.b:
        return seg
    return Segment(a, b, seg.hexes, seg.steps, seg.edges, seg.units, seg.gauges)


class _Walker:
    """Walks the segments leaving one node (depth first, no track unit used twice)."""

    def __init__(self, board: Board, node_ids: dict[tuple[str, int], int]) -> None:
        self.cross, self.hex_index = _crossings(board.spec)
        self.tiles = board.tiles
        self.node_ids = node_ids
        self.hexes: list[str] = []
        self.steps: list[tuple[str, int]] = []
        self.edges: list[tuple[str, int]] = []
        self.units: set[int] = set()
        self.gauges: list[str] = []
        self.reach: set[str] = set()
        self.found: list[Segment] = []

    def segments_from(self, rn: RevenueNode) -> tuple[list[Segment], frozenset[str]]:
        """The segments leaving ``rn`` in walk order, and the hexes the walks reached."""
        self.reach = {rn.hex}
        self.found = []
        g = self.tiles[rn.hex].geometry
        for path_i in g.node_paths.get(rn.part, ()):
            self.hexes[:] = [rn.hex]
            self.walk(rn.id, rn.hex, g, path_i, -1 - rn.part)
        return self.found, frozenset(self.reach)

    def walk(self, start: int, h: str, g: TileGeometry, path_i: int, came_from: int) -> None:
        """Follow path ``path_i`` of hex ``h`` entered at end ``came_from``; the
        segments completed go to ``found``."""
        units = self.units
        steps = self.steps
        a, b = g.ends[path_i]
        other = b if a == came_from else a
        base = self.hex_index[h] * _UNITS_PER_HEX
        added: list[int] = []
        path = g.paths[path_i]
        if path.edges:
            for e in path.edges:
                if base + e not in units:
                    units.add(base + e)
                    added.append(base + e)
        else:
            units.add(base + 6 + path_i)
            added.append(base + 6 + path_i)
        steps.append((h, path_i))
        self.gauges.append(path.gauge)
        if other < 0:  # reached a node
            end = self.node_ids.get((h, -1 - other))
            if end is not None and end != start:
                self.found.append(
                    Segment(
                        start,
                        end,
                        tuple(self.hexes),
                        tuple(steps),
                        tuple(self.edges),
                        frozenset(units),
                        frozenset(self.gauges),
                    )
                )
        else:
            nh = self.cross[h].get(other)
            if nh is not None:
                self.reach.add(nh)
                ng = self.tiles[nh].geometry
                ne = (other + 3) % 6
                if ng.paths and self.hex_index[nh] * _UNITS_PER_HEX + ne not in units:
                    self.edges.append((h, other))
                    self.edges.append((nh, ne))
                    self.hexes.append(nh)
                    for nxt in ng.edge_paths.get(ne, ()):
                        if (nh, nxt) not in steps:
                            self.walk(start, nh, ng, nxt, ne)
                    self.hexes.pop()
                    self.edges.pop()
                    self.edges.pop()
        steps.pop()
        self.gauges.pop()
        for u in added:
            units.discard(u)
