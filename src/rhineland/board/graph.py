"""Connectivity of a company's network: what it can reach from its tokens along track.

Used for tile-lay legality (a lay must touch the network), token legality (a
token goes into a connected city) and the "use new track" restriction.

Rules modelled here (as the reference engine applies them):

* **Links between hexes** (:func:`hex_links`): track crosses from a hex to its
  neighbour on edge ``e`` unless the hex has an impassable border on ``e``;
  a red/gray (offboard, fixed) neighbour is linked only where its own track
  points at the hex.  Links are static (built once per map).
* **Walk**: from every city holding one of the entity's tokens, follow track:
  paths join across linked edges; a path ending in a revenue node continues
  through that node unless the path is terminal (offboard stubs) or the node
  is a city that *blocks* the entity - all slots filled, none by the entity,
  no neutral token (see :meth:`BoardRulesLike.city_blocks`; 18Rhl changes it
  in the green Rhine metropolis hexes).  Like a train, a chain of track never
  reverses, never reuses a path, and never crosses the same hex side twice;
  where several paths of a tile share an exit (a junction), the track beyond
  it may be walked again by other chains (:class:`_Walk`).  Track that only a
  reversing train could use does not count as connected.  The Rhine partitions of the 18Rhl
  metropolis hexes need no extra rule: the cities on each bank have no track
  between them except the ferry path on the green tiles.
* **Result** (:class:`Connectivity`): per hex the edges touched (a token's hex
  counts all its linked edges), the nodes reached (token cities included) and
  the paths walked.

:func:`connectivity` caches by ``(board, board.version, entity)``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from rhineland.board.board import Board, PlacedTile
from rhineland.board.hexgrid import opposite
from rhineland.board.mapspec import MapSpec
from rhineland.board.tiles import Tile
from rhineland.board.upgrades import TileGeometry

# a chain of track can be a few hundred paths long; the walk recurses along it
if sys.getrecursionlimit() < 10_000:
    sys.setrecursionlimit(10_000)

NodeRef = tuple[str, int]
"""A revenue node on the map: ``(hex id, node part)``."""
PathRef = tuple[str, int]
"""A path on the map: ``(hex id, index of the path in the tile)``."""


class BoardRulesLike(Protocol):
    """The blocking hook the walk needs (implemented by ``legality.BoardRules``)."""

    def city_blocks(self, board: Board, hex_id: str, city_index: int, entity: str,
                    tokens: list[str], slots: int) -> bool:
        """Whether the city (holding ``tokens`` in ``slots`` slots) stops ``entity``'s walk."""
        ...


_LINKS: dict[int, tuple[MapSpec, dict[str, dict[int, str]]]] = {}


def hex_links(spec: MapSpec) -> dict[str, dict[int, str]]:
    """Per hex, edge -> neighbour hex that track may cross into
    (:meth:`MapSpec.open_neighbors`, cached per map)."""
    got = _LINKS.get(id(spec))
    if got is not None and got[0] is spec:
        return got[1]
    links = {hid: spec.open_neighbors(hid) for hid in spec.hexes}
    _LINKS[id(spec)] = (spec, links)
    return links


@dataclass(frozen=True)
class Connectivity:
    """An entity's network on one board state.

    ``hexes``: hex id -> edges of that hex the network touches (tile lays must
    use one); ``nodes``: revenue nodes reached ``(hex, part)``; ``paths``: paths
    walked ``(hex, path index)``.
    """

    entity: str
    hexes: Mapping[str, frozenset[int]]
    nodes: frozenset[NodeRef]
    paths: frozenset[PathRef]

    def city_connected(self, board: Board, hex_id: str, city_index: int) -> bool:
        """Whether city ``city_index`` of the tile on ``hex_id`` is reached."""
        cities = board.tiles[hex_id].geometry.cities
        return city_index < len(cities) and (hex_id, cities[city_index]) in self.nodes


Override = tuple[str, Tile, int, Mapping[int, list[str]]]
"""A hypothetical tile: ``(hex, tile, rotation, city index -> tokens)``."""


class _Found(Exception):
    """Raised inside the walk when a path of ``stop_at`` is reached."""


_HEX_ORDER: dict[int, tuple[MapSpec, dict[str, int]]] = {}


def _hex_order(spec: MapSpec) -> dict[str, int]:
    got = _HEX_ORDER.get(id(spec))
    if got is None or got[0] is not spec:
        got = (spec, {h: i for i, h in enumerate(spec.hexes)})
        _HEX_ORDER[id(spec)] = got
    return got[1]


def compute_connectivity(
    board: Board,
    entity: str,
    rules: BoardRulesLike,
    override: Override | None = None,
    stop_at: frozenset[PathRef] = frozenset(),
) -> Connectivity:
    """Walk ``entity``'s network (module docstring); ``override`` replaces one hex's tile.

    With ``stop_at``, the walk stops as soon as one of those paths is reached
    (the result then holds just what was walked so far; use it to ask "is one
    of these paths connected?").
    """
    links = hex_links(board.spec)
    tiles: Mapping[str, PlacedTile] = board.tiles
    tokens: Mapping[tuple[str, int], list[str]] = board.tokens
    if override is not None:
        ov_hex = override[0]
        tiles = {**board.tiles, ov_hex: PlacedTile(override[1], override[1].name, override[2])}
        tokens = {k: v for k, v in board.tokens.items() if k[0] != ov_hex}
        for ci, syms in override[3].items():
            tokens[(ov_hex, ci)] = list(syms)

    order = _hex_order(board.spec)
    sources: list[NodeRef] = []
    ordered = sorted(tokens.items(), key=lambda kv: (order.get(kv[0][0], 0), kv[0][1]))
    for (hid, ci), syms in ordered:
        if entity in syms:
            cities = tiles[hid].geometry.cities
            if ci < len(cities):
                sources.append((hid, cities[ci]))
    sources = list(dict.fromkeys(sources))

    walk = _Walk(board, entity, rules, links, tiles, tokens, stop_at)
    for start in sources:
        walk.nodes.add(start)
        walk.hexes.setdefault(start[0], set()).update(links[start[0]])
    for start in sources:
        try:
            walk.from_token(start, sources)
        except _Found:
            break
    return Connectivity(
        entity=entity,
        hexes={h: frozenset(es) for h, es in walk.hexes.items()},
        nodes=frozenset(walk.nodes),
        paths=frozenset(walk.seen_paths),
    )


class _Walk:
    """One connectivity walk (see :func:`compute_connectivity`).

    The walk is a depth-first search over chains of track: a chain never
    re-enters a path, never leaves a hex twice by the same edge, and never
    enters a path through an edge it already left by (``edge_use``).  Paths
    and nodes stay visited once walked, except beyond a "converging" exit (an
    exit shared by several paths of a tile), where they are released when the
    chain backs up, so that other chains may use them.  This is the reference
    engine's walk; the result is what it calls connected.
    """

    def __init__(
        self,
        board: Board,
        entity: str,
        rules: BoardRulesLike,
        links: Mapping[str, Mapping[int, str]],
        tiles: Mapping[str, PlacedTile],
        tokens: Mapping[tuple[str, int], list[str]],
        stop_at: frozenset[PathRef],
    ) -> None:
        self.board = board
        self.entity = entity
        self.rules = rules
        self.links = links
        self.tiles = tiles
        self.tokens = tokens
        self.stop_at = stop_at
        self.hexes: dict[str, set[int]] = {}
        self.nodes: set[NodeRef] = set()
        self.seen_paths: set[PathRef] = set()
        self.blocked: dict[NodeRef, bool] = {}
        self.visited_nodes: set[NodeRef] = set()
        self.visited_paths: set[PathRef] = set()
        self.edge_use: set[tuple[str, int]] = set()

    def from_token(self, start: NodeRef, sources: list[NodeRef]) -> None:
        """Walk from one token city (the other token cities count as visited)."""
        self.visited_nodes = {s for s in sources if s != start}
        self.visited_paths = set()
        self.edge_use = set()
        self.node(start, False)

    def blocks(self, hid: str, part: int, g: TileGeometry) -> bool:
        key = (hid, part)
        got = self.blocked.get(key)
        if got is None:
            got = False
            if part in g.cities:
                ci = g.cities.index(part)
                got = self.rules.city_blocks(
                    self.board, hid, ci, self.entity, list(self.tokens.get((hid, ci), ())),
                    g.tile.node(part).slots,
                )
            self.blocked[key] = got
        return got

    def node(self, node: NodeRef, converging: bool) -> None:
        if node in self.visited_nodes:
            return
        self.visited_nodes.add(node)
        h, part = node
        visited = self.visited_paths
        for pi in self.tiles[h].geometry.node_paths.get(part, ()):
            if (h, pi) not in visited:
                self.path(h, pi, -1, converging, node)
        if converging:
            self.visited_nodes.discard(node)

    def path(self, h: str, pi: int, skip: int, converging: bool, origin: NodeRef) -> None:
        """Walk path ``pi`` of hex ``h`` (entered by edge ``skip``, -1 from a node),
        then the paths beyond its nodes and edges; the caller checked that the
        path is not visited."""
        g = self.tiles[h].geometry
        path = g.paths[pi]
        edge_use = self.edge_use
        for e in path.edges:
            if (h, e) in edge_use:
                return
        ref = (h, pi)
        visited = self.visited_paths
        visited.add(ref)
        hl = self.links[h]
        if ref not in self.seen_paths:
            self.seen_paths.add(ref)
            if ref in self.stop_at:
                raise _Found
            touched = self.hexes.setdefault(h, set())
            for e in path.edges:
                touched.add(e)
                other = hl.get(e)
                if other is not None:
                    self.hexes.setdefault(other, set()).add(_OPPOSITE[e])
            for n in path.nodes:
                self.nodes.add((h, n))
        if not path.terminal:
            for n in path.nodes:
                nxt = (h, n)
                if nxt != origin and not self.blocks(h, n, g):
                    self.node(nxt, converging)
        gauge = path.gauge
        for e in path.edges:
            if e == skip:
                continue
            other = hl.get(e)
            if other is None:
                continue
            key = (h, e)
            edge_use.add(key)
            back = _OPPOSITE[e]
            og = self.tiles[other].geometry
            conv = converging or len(g.edge_paths[e]) > 1
            for npi in og.edge_paths.get(back, ()):
                if og.paths[npi].gauge == gauge and (other, npi) not in visited:
                    self.path(other, npi, back, conv, origin)
            edge_use.discard(key)
        if converging:
            visited.discard(ref)


_OPPOSITE = tuple(opposite(e) for e in range(6))


_CACHE: dict[tuple[int, str, int], tuple[Board, int, Connectivity]] = {}


def connectivity(board: Board, entity: str, rules: BoardRulesLike) -> Connectivity:
    """:func:`compute_connectivity`, cached by board object, ``board.version``, entity, rules."""
    key = (id(board), entity, id(rules))
    got = _CACHE.get(key)
    if got is not None and got[0] is board and got[1] == board.version:
        return got[2]
    conn = compute_connectivity(board, entity, rules)
    if len(_CACHE) > 512:
        _CACHE.clear()
    _CACHE[key] = (board, board.version, conn)
    return conn


def walk_from(board: Board, entity: str, rules: BoardRulesLike, start: NodeRef) -> Connectivity:
    """The reference walk for ``entity`` started at one node instead of its tokens.

    Used for destination checks (18Rhl: is Düren reached from Aachen's city?):
    ``start`` is ``(hex, node part)``; cities that block ``entity`` are not
    passed through.  The result's ``nodes`` are the nodes on every path walked.
    """
    links = hex_links(board.spec)
    walk = _Walk(board, entity, rules, links, board.tiles, board.tokens, frozenset())
    walk.nodes.add(start)
    walk.from_token(start, [start])
    return Connectivity(
        entity=entity,
        hexes={h: frozenset(es) for h, es in walk.hexes.items()},
        nodes=frozenset(walk.nodes),
        paths=frozenset(walk.seen_paths),
    )
