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

:func:`connectivity` caches by ``(board.version, entity, rules)`` (a board's clones share
its version while their tiles and tokens are the same).  The walk
keys hexes, paths, nodes and hex sides as small ints (:class:`_MapIndex`); a
walk may stop early (``stop_at``, ``stop_sides``: a tile lay check needs the
network only until it touches the lay's hex), and only complete walks are cached.
:func:`may_walk_any` is a cheap relaxed walk (along the track's direction, no other
chain limits) that proves where the real walk cannot reach some track (the track
restriction asks it before walking).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

from rhineland.board.board import Board
from rhineland.board.hexgrid import OPPOSITE
from rhineland.board.mapspec import MapSpec
from rhineland.board.tiles import Tile
from rhineland.board.upgrades import TileGeometry, geometry

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
    walked ``(hex, path index)``.  The walk's integer keys are kept
    (``node_keys``, ``path_keys``, see :class:`_MapIndex`) and turned into
    ``nodes`` and ``paths`` only when these are read.  ``complete`` is False
    when the walk stopped early (``stop_at``, ``stop_sides`` of
    :func:`compute_connectivity`): then it holds what was walked until then.
    """

    entity: str
    hexes: Mapping[str, frozenset[int]]
    node_keys: frozenset[int] = field(repr=False)
    path_keys: frozenset[int] = field(repr=False)
    index: _MapIndex = field(repr=False, compare=False)
    complete: bool = True
    looks: Mapping[int, tuple[tuple[int, str], ...]] | None = field(
        default=None, repr=False, compare=False)

    def first_looks(self, hex_id: str) -> tuple[tuple[int, str], ...] | None:
        """How the walk first looked into ``hex_id`` from its neighbours, in order:
        ``(edge of hex_id, gauge)`` of each walked path that crossed towards it, up to
        and including the first such look that found a path of that gauge on that edge
        there (the walk entered the hex).  ``None`` when not recorded (a walk with an
        override or a stop).

        Up to that entry the walk never touched the hex: with another tile there (and
        no token of the entity on it), the same walk makes the same looks, and the first
        look that finds a path of the new tile on its edge walks every path of the new
        tile with that edge and gauge (nothing of the hex is in use yet).
        """
        if self.looks is None:
            return None
        return self.looks.get(self.index.index[hex_id], ())

    @cached_property
    def nodes(self) -> frozenset[NodeRef]:
        """The revenue nodes reached, ``(hex, part)``."""
        ids = self.index.ids
        return frozenset((ids[k // _PER_HEX], k % _PER_HEX) for k in self.node_keys)

    @cached_property
    def paths(self) -> frozenset[PathRef]:
        """The paths walked, ``(hex, path index)``."""
        ids = self.index.ids
        return frozenset((ids[k // _PER_HEX], k % _PER_HEX) for k in self.path_keys)

    @cached_property
    def node_hexes(self) -> frozenset[str]:
        """The hexes holding a node reached."""
        ids = self.index.ids
        return frozenset(ids[k // _PER_HEX] for k in self.node_keys)

    def reaches(self, hex_id: str, part: int) -> bool:
        """Whether node ``part`` of the tile on ``hex_id`` is reached."""
        hi = self.index.index.get(hex_id)
        return hi is not None and hi * _PER_HEX + part in self.node_keys

    def city_connected(self, board: Board, hex_id: str, city_index: int) -> bool:
        """Whether city ``city_index`` of the tile on ``hex_id`` is reached."""
        cities = board.tiles[hex_id].geometry.cities
        return city_index < len(cities) and self.reaches(hex_id, cities[city_index])


@dataclass(frozen=True)
class _MapIndex:
    """A map's hexes numbered in map order, for the walk's integer keys.

    ``ids[i]`` is hex ``i``; ``index`` the reverse; ``links[i][e]`` the number of
    the hex track crosses into from edge ``e`` of hex ``i`` (:func:`hex_links`),
    -1 where it may not.  The walk keys a path or node of hex ``i`` as
    ``i * _PER_HEX + path index / node part`` and a hex side as ``i * 8 + edge``.
    """

    ids: tuple[str, ...]
    index: Mapping[str, int]
    links: tuple[tuple[int, ...], ...]


Override = tuple[str, Tile, int, Mapping[int, list[str]]]
"""A hypothetical tile: ``(hex, tile, rotation, city index -> tokens)``."""


class _Found(Exception):
    """Raised inside the walk when a path of ``stop_at`` or a side of ``stop_sides``
    is reached."""


_PER_HEX = 64  # more than the paths or nodes of any tile
_INDEX: dict[int, tuple[MapSpec, _MapIndex]] = {}


def _map_index(spec: MapSpec) -> _MapIndex:
    got = _INDEX.get(id(spec))
    if got is not None and got[0] is spec:
        return got[1]
    ids = tuple(spec.hexes)
    index = {h: i for i, h in enumerate(ids)}
    links = hex_links(spec)
    table = tuple(
        tuple(index[links[h][e]] if e in links[h] else -1 for e in range(6)) for h in ids
    )
    mi = _MapIndex(ids, index, table)
    _INDEX[id(spec)] = (spec, mi)
    return mi


def compute_connectivity(
    board: Board,
    entity: str,
    rules: BoardRulesLike,
    override: Override | None = None,
    stop_at: frozenset[PathRef] = frozenset(),
    stop_sides: frozenset[tuple[str, int]] = frozenset(),
) -> Connectivity:
    """Walk ``entity``'s network (module docstring); ``override`` replaces one hex's tile.

    With ``stop_at``, the walk stops as soon as one of those paths is reached,
    with ``stop_sides`` as soon as the network touches one of those ``(hex,
    edge)`` sides (the result is then not ``complete``: it holds just what was
    walked so far; use it to ask "is one of these paths connected?", "does the
    network reach one of these sides?").
    """
    mi = _map_index(board.spec)
    geoms = _board_geoms(board, mi)
    tokens: Mapping[tuple[str, int], tuple[str, ...]] = board.tokens
    if override is not None:
        ov_hex = override[0]
        geoms = geoms.copy()
        geoms[mi.index[ov_hex]] = geometry(override[1], override[2])
        tokens = _override_tokens(board, override)

    index = mi.index
    sources: list[int] = []
    for hid, ci in sorted(
        (index[k[0]], k[1]) for k, syms in tokens.items() if entity in syms
    ):
        cities = geoms[hid].cities
        if ci < len(cities):
            sources.append(hid * _PER_HEX + cities[ci])
    sources = list(dict.fromkeys(sources))

    walk = _Walk(board, entity, rules, mi, geoms, tokens,
                 frozenset(index[h] * _PER_HEX + i for h, i in stop_at),
                 frozenset(index[h] * 8 + e for h, e in stop_sides))
    if override is None and not stop_at and not stop_sides:
        walk.looks = {}  # a walk of the board as it stands: record the first looks
    for start in sources:
        hi = start // _PER_HEX
        walk.nodes.add(start)
        sides = [e for e in range(6) if mi.links[hi][e] >= 0]
        walk.hexes.setdefault(hi, set()).update(sides)
        if any(hi * 8 + e in walk.stop_sides for e in sides):
            return walk.result(complete=False)
    try:
        for start in sources:
            walk.from_token(start, sources)
    except _Found:
        return walk.result(complete=False)
    finally:
        walk.beyond = None  # it refers to the walk: no cycle left for the collector
    return walk.result()


_GEOMS: dict[int, tuple[MapSpec, list[TileGeometry]]] = {}
""":func:`_board_geoms` by ``board.version`` (the walks of a position share it)."""


def _board_geoms(board: Board, mi: _MapIndex) -> list[TileGeometry]:
    """The geometry of the tile on each hex of ``board``, in map order (``mi``), cached by
    version: a list the caller must not change (copy it first)."""
    got = _GEOMS.get(board.version)
    if got is not None and got[0] is board.spec:
        return got[1]
    geoms = [board.tiles[h].geometry for h in mi.ids]
    if len(_GEOMS) >= 64:
        _GEOMS.clear()
    _GEOMS[board.version] = (board.spec, geoms)
    return geoms


def may_walk_any(
    board: Board,
    entity: str,
    rules: BoardRulesLike,
    override: Override,
    targets: frozenset[PathRef],
) -> bool:
    """Whether the walk of :func:`compute_connectivity` (with ``override``) *might* walk
    one of the ``targets`` paths: False proves that it walks none.

    A relaxed walk that follows every step the real walk may take (a path's nodes
    unless the path is terminal or the node's city blocks ``entity``; across each
    linked edge into the paths of the same gauge there) along the track's direction,
    but ignores what else makes a chain stop (:class:`_Reach`): what it reaches holds
    everything the real walk reaches.  The board as it stands is walked once (cached
    by version); each override adds what its hex opens up.  Linear in the paths
    reached, far cheaper than the real walk, which re-walks track beyond junctions.
    """
    mi = _map_index(board.spec)
    index = mi.index
    wanted = frozenset(index[h] * _PER_HEX + i for h, i in targets)
    if not wanted:
        return False
    base = _board_reach(board, entity, rules)
    ov_hex = override[0]
    ov_hi = index[ov_hex]
    geoms = base.geoms.copy()
    geoms[ov_hi] = geometry(override[1], override[2])
    tokens = _override_tokens(board, override)
    walk = _Walk(board, entity, rules, mi, geoms, tokens, frozenset())
    sources = frozenset(_token_cities(tokens, entity, index, geoms))
    return _Reach.closure(walk, sources, wanted, base, ov_hi)


def _override_tokens(board: Board, override: Override) -> Mapping[tuple[str, int],
                                                                    tuple[str, ...]]:
    """``board``'s tokens with those of the override's hex replaced by its own (the board's
    mapping itself where neither has any: a tile without cities holds none)."""
    ov_hex, _, _, seats = override
    if not seats and not board.tiles[ov_hex].geometry.cities:
        return board.tokens
    tokens = {k: v for k, v in board.tokens.items() if k[0] != ov_hex}
    for ci, syms in seats.items():
        tokens[(ov_hex, ci)] = tuple(syms)
    return tokens


def _token_cities(tokens: Mapping[tuple[str, int], tuple[str, ...]], entity: str,
                  index: Mapping[str, int], geoms: Sequence[TileGeometry]) -> list[int]:
    """The node keys of the cities holding one of ``entity``'s ``tokens``."""
    out: list[int] = []
    for (hid, ci), held in tokens.items():
        if entity in held:
            hi = index[hid]
            cities = geoms[hi].cities
            if ci < len(cities):
                out.append(hi * _PER_HEX + cities[ci])
    return out


_STATE_PER_PATH = 128
"""A relaxed directed walk's state is ``path ref * 128 +`` the edge the path was entered
by, or ``64 +`` the node part (:class:`_Reach`)."""
_STATE_PER_HEX = _STATE_PER_PATH * _PER_HEX


@dataclass
class _Reach:
    """A relaxed walk along the track's direction from an entity's token cities: a path
    entered by one of its ends goes on by its others (across its other edges, into its
    other nodes unless terminal), a node entered from one of its paths goes on into its
    other paths; no chain goes through a token city.  ``states`` are the (path, end
    entered by) reached (:data:`_STATE_PER_PATH`), ``arrivals`` per hex the ``(edge,
    gauge)`` by which chains cross into it (whether or not track is there).

    Every chain of :class:`_Walk` makes these steps (it enters a path by an edge, going
    on by its nodes and other edges; or by a node, going on by its other nodes and all
    its edges; from a node into its paths not in use, the path it came by being in use;
    the token cities in use from the start), so a path it reaches is in ``states``.
    This walk ignores only the chain's other limits (hex sides and paths used once, the
    order of the marks); it never turns back at a junction (a walk free to reverse
    proves far fewer lays unused).
    """

    geoms: list[TileGeometry]
    states: set[int]
    arrivals: dict[int, set[tuple[int, str]]]

    @staticmethod
    def closure(walk: _Walk, sources: frozenset[int], wanted: frozenset[int],
                base: _Reach | None = None, own: int = -1,
                record: _Reach | None = None) -> bool:
        """Walk ``walk``'s board from ``sources`` until a ``wanted`` path is reached
        (True).  With ``base`` (the reach of the board where only hex ``own`` differs):
        its states outside ``own`` count as reached (they are closed under every step
        that does not enter ``own``), and the walk starts from its arrivals into
        ``own`` and the token cities there; a superset of the reach of ``walk``'s own
        board.  Without: the whole reach from ``sources``, entered in ``record`` (an
        empty :class:`_Reach`) when given."""
        geoms = walk.geoms
        links = walk.links
        blocks = walk.blocks
        known = base.states if base is not None else set()
        seen: set[int] = record.states if record is not None else set()
        todo: list[tuple[int, int]] = []  # (path ref, entry: edge, or -1 - node part)
        arrivals = record.arrivals if record is not None else None

        def enter_node(key: int, came: int) -> None:
            hi = key // _PER_HEX
            base_ref = hi * _PER_HEX
            part = key - base_ref
            for pi in geoms[hi].node_paths.get(part, ()):
                ref = base_ref + pi
                state = ref * _STATE_PER_PATH + 64 + part
                if ref != came and state not in seen and (
                        state not in known or hi == own):
                    seen.add(state)
                    todo.append((ref, -1 - part))

        if base is None:
            for key in sources:
                enter_node(key, -1)
        else:
            for key in sources:
                if key // _PER_HEX == own:
                    enter_node(key, -1)
            og = geoms[own]
            obase = own * _PER_HEX
            for back, gauge in base.arrivals.get(own, ()):
                for npi in og.gauge_paths.get((back, gauge), ()):
                    state = (obase + npi) * _STATE_PER_PATH + back
                    if state not in seen:
                        seen.add(state)
                        todo.append((obase + npi, back))
        while todo:
            ref, entry = todo.pop()
            if ref in wanted:
                return True
            hi = ref // _PER_HEX
            base_ref = hi * _PER_HEX
            g = geoms[hi]
            path = g.paths[ref - base_ref]
            if not path.terminal:
                for n in path.nodes:
                    key = base_ref + n
                    if n != -1 - entry and key not in sources and not blocks(key, g):
                        enter_node(key, ref)
            gauge = path.gauge
            row = links[hi]
            for e in path.edges:
                other = row[e]
                if e == entry or other < 0:
                    continue
                back = OPPOSITE[e]
                if arrivals is not None:
                    arrivals.setdefault(other, set()).add((back, gauge))
                og = geoms[other]
                obase = other * _PER_HEX
                for npi in og.gauge_paths.get((back, gauge), ()):
                    state = (obase + npi) * _STATE_PER_PATH + back
                    if state not in seen and (state not in known or other == own):
                        seen.add(state)
                        todo.append((obase + npi, back))
        return False


_REACHES: dict[tuple[int, str, int], tuple[BoardRulesLike, _Reach]] = {}
""":func:`_board_reach` by ``(board.version, entity, id(rules))`` (as :data:`_CACHE`); the
track restriction asks it for the position being listed, so a few dozen are plenty (a
smaller cache leaves the garbage collector fewer objects to look through)."""


def _board_reach(board: Board, entity: str, rules: BoardRulesLike) -> _Reach:
    """The :class:`_Reach` of ``entity`` on ``board`` as it stands (cached by version)."""
    key = (board.version, entity, id(rules))
    got = _REACHES.get(key)
    if got is not None and got[0] is rules:
        return got[1]
    mi = _map_index(board.spec)
    geoms = _board_geoms(board, mi)
    walk = _Walk(board, entity, rules, mi, geoms, board.tokens, frozenset())
    sources = frozenset(_token_cities(board.tokens, entity, mi.index, geoms))
    reach = _Reach(geoms, set(), {})
    _Reach.closure(walk, sources, frozenset(), record=reach)
    if len(_REACHES) > 64:
        _REACHES.clear()
    _REACHES[key] = (rules, reach)
    return reach


class _Walk:
    """One connectivity walk (see :func:`compute_connectivity`).

    The walk is a depth-first search over chains of track: a chain never
    re-enters a path, never leaves a hex twice by the same edge, and never
    enters a path through an edge it already left by (``edge_use``).  Paths
    and nodes stay visited once walked, except beyond a "converging" exit (an
    exit shared by several paths of a tile), where they are released when the
    chain backs up, so that other chains may use them.  This is the reference
    engine's walk; the result is what it calls connected.  Hexes, paths, nodes
    and sides are integer keys (:class:`_MapIndex`).  A long walk skips the
    converging steps that can add nothing to its result (:class:`_Beyond`).
    """

    def __init__(
        self,
        board: Board,
        entity: str,
        rules: BoardRulesLike,
        mi: _MapIndex,
        geoms: list[TileGeometry],
        tokens: Mapping[tuple[str, int], tuple[str, ...]],
        stop_at: frozenset[int],
        stop_sides: frozenset[int] = frozenset(),
    ) -> None:
        self.board = board
        self.entity = entity
        self.rules = rules
        self.mi = mi
        self.links = mi.links
        self.geoms = geoms
        self.tokens = tokens
        self.stop_at = stop_at
        self.stop_sides = stop_sides
        self.hexes: dict[int, set[int]] = {}
        self.nodes: set[int] = set()
        self.seen_paths: set[int] = set()
        self.blocked: dict[int, bool] = {}
        # marks of the current chain, one per node / path key and per hex side (lists of
        # 0/1: the compiled walk indexes them without making an int object per look)
        self.visited_nodes: list[int] = []
        self.visited_paths: list[int] = []
        self.edge_use: list[int] = []
        self.looks: dict[int, list[tuple[int, str]]] | None = None
        self.entered: set[int] = set()
        self.sources: frozenset[int] = frozenset()
        self.rewalks = 0  # converging path steps so far (see :class:`_Beyond`)
        self.beyond: _Beyond | None = None

    def result(self, complete: bool = True) -> Connectivity:
        """What was walked, keyed by hex id again."""
        ids = self.mi.ids
        return Connectivity(
            entity=self.entity,
            hexes={ids[h]: _edge_set(es) for h, es in self.hexes.items()},
            node_keys=frozenset(self.nodes),
            path_keys=frozenset(self.seen_paths),
            index=self.mi,
            complete=complete,
            looks=None if self.looks is None else {h: tuple(v) for h, v in self.looks.items()},
        )

    def from_token(self, start: int, sources: list[int]) -> None:
        """Walk from one token city (the other token cities count as visited)."""
        keys = len(self.geoms) * _PER_HEX
        self.visited_nodes = visited = [0] * keys
        for s in sources:
            if s != start:
                visited[s] = 1
        self.sources = frozenset(sources)
        self.visited_paths = [0] * keys
        self.edge_use = [0] * (len(self.geoms) * 8)
        self.node(start, False)

    def blocks(self, key: int, g: TileGeometry) -> bool:
        """Whether the city of node ``key`` stops the walk (memoised per walk)."""
        got = self.blocked.get(key)
        if got is None:
            got = False
            part = key % _PER_HEX
            if part in g.cities:
                hid = self.mi.ids[key // _PER_HEX]
                ci = g.cities.index(part)
                got = self.rules.city_blocks(
                    self.board, hid, ci, self.entity, list(self.tokens.get((hid, ci), ())),
                    g.tile.node(part).slots,
                )
            self.blocked[key] = got
        return got

    def node(self, key: int, converging: bool) -> None:
        visited_nodes = self.visited_nodes
        if visited_nodes[key]:
            return
        visited_nodes[key] = 1
        hi = key // _PER_HEX
        base = hi * _PER_HEX
        visited = self.visited_paths
        for pi in self.geoms[hi].node_paths.get(key - base, ()):
            if not visited[base + pi]:
                self.path(hi, pi, -1, converging, key)
        if converging:
            visited_nodes[key] = 0

    def path(self, hi: int, pi: int, skip: int, converging: bool, origin: int) -> None:
        """Walk path ``pi`` of hex ``hi`` (entered by edge ``skip``, -1 from a node),
        then the paths beyond its nodes and edges; the caller checked that the
        path is not visited."""
        if converging:
            beyond = self.beyond
            if beyond is None:
                self.rewalks += 1
                if self.rewalks > _REWALKS and not self.stop_at:
                    beyond = self.beyond = _Beyond(self)
            if beyond is not None:
                state = (hi * _PER_HEX + pi) * _STATE_PER_PATH + (
                    skip if skip >= 0 else 64 + origin % _PER_HEX)
                got = beyond.reach.get(state)
                if got is None:
                    got = beyond.closure(state)
                if not got & beyond.pending:
                    return
        g = self.geoms[hi]
        path = g.paths[pi]
        edge_use = self.edge_use
        sides = hi * 8
        for e in path.edges:
            if edge_use[sides + e]:
                return
        base = hi * _PER_HEX
        ref = base + pi
        visited = self.visited_paths
        visited[ref] = 1
        hl = self.links[hi]
        if ref not in self.seen_paths:
            self.seen_paths.add(ref)
            if self.beyond is not None:
                self.beyond.pending &= ~self.beyond.path_bit(ref)
            if ref in self.stop_at:
                raise _Found
            hexes = self.hexes
            touched = hexes.get(hi)
            if touched is None:
                touched = hexes[hi] = set()
            stop_sides = self.stop_sides
            for e in path.edges:
                touched.add(e)
                other = hl[e]
                if other >= 0:
                    near = hexes.get(other)
                    if near is None:
                        hexes[other] = {OPPOSITE[e]}
                    else:
                        near.add(OPPOSITE[e])
                if stop_sides and (
                    sides + e in stop_sides
                    or (other >= 0 and other * 8 + OPPOSITE[e] in stop_sides)
                ):
                    raise _Found
            for n in path.nodes:
                self.nodes.add(base + n)
        if not path.terminal:
            blocked = self.blocked
            for n in path.nodes:
                nxt = base + n
                if nxt == origin or self.visited_nodes[nxt]:
                    continue
                stop = blocked.get(nxt)
                if stop is None:
                    stop = self.blocks(nxt, g)
                if not stop:
                    self.node(nxt, converging)
        geoms = self.geoms
        looks = self.looks
        for e, back, key, conv_e in g.crossings[pi]:
            if e == skip:
                continue
            other = hl[e]
            if other < 0:
                continue
            og = geoms[other]
            if looks is not None and other not in self.entered:
                self._look(other, og, back, path.gauge)
            found = og.gauge_paths.get(key)
            if found:
                side = sides + e
                edge_use[side] = 1
                conv = converging or conv_e
                obase = other * _PER_HEX
                for npi in found:
                    if not visited[obase + npi]:
                        self.path(other, npi, back, conv, origin)
                edge_use[side] = 0
        if converging:
            visited[ref] = 0


    def _look(self, hi: int, g: TileGeometry, back: int, gauge: str) -> None:
        """Record a look into hex ``hi`` by edge ``back`` (see
        :meth:`Connectivity.first_looks`); the first that finds a path there is the last."""
        assert self.looks is not None
        self.looks.setdefault(hi, []).append((back, gauge))
        beyond = self.beyond
        if beyond is not None:
            beyond.made(hi, back, gauge)
        if (back, gauge) in g.gauge_paths:
            self.entered.add(hi)
            if beyond is not None:
                beyond.pending &= ~beyond.hex_looks(hi)


_REWALKS = 1000
"""Converging path steps a walk takes before it starts to skip what cannot add anything
(:class:`_Beyond`): most walks are done before, and a :class:`_Beyond` costs more than
it saves on them (on the walks of a 1893 random game: 1,000 steps saves a quarter of the
walks' time, 100 loses).  A walk that stops at a path (``stop_at``, the track
restriction's) mostly stops before and never skips."""

_GAUGES: dict[str, int] = {}
"""A number per track gauge, for the look bits of :class:`_Beyond` (the first four; a
look along any other gauge has a bit that is never cleared: a step that may make one is
never skipped)."""

_LOOKS_PER_HEX = 32
"""Look bits per hex in :class:`_Beyond`: 4 per edge, one per gauge."""


class _Beyond:
    """What a converging step of a :class:`_Walk` can still add, to skip those that add
    nothing.

    Beyond a converging exit the walk releases its marks as it backs up, so such a step
    changes nothing but what the walk records: the paths it sees (and with them the
    hexes and nodes of the result) and, in a walk that records them, its first looks
    (:meth:`Connectivity.first_looks`; a look made before, or into a hex already entered,
    records nothing a reader uses).  Whatever the chain's marks, the step reaches no
    more than the relaxed walk from its state (path, end entered by; :class:`_Reach`):
    where nothing that walk reaches is still ``pending`` (a path not seen, a look not
    made into a hex not entered), the step is skipped and the result is the same.
    ``reach`` holds per relaxed state a bit per path it reaches (:meth:`path_bit`) and per
    look it may make (:meth:`look_bit`), computed on demand, the states of a strongly
    connected part together (Tarjan).
    """

    def __init__(self, walk: _Walk) -> None:
        self.walk = walk
        self.looks = walk.looks is not None
        self.per_hex = max(len(g.paths) for g in walk.geoms)
        self.look_base = len(walk.geoms) * self.per_hex
        self.reach: dict[int, int] = {}
        self.never = 1 << (self.look_base + len(walk.geoms) * _LOOKS_PER_HEX)
        self.pending = (self.never << 1) - 1
        for ref in walk.seen_paths:
            self.pending &= ~self.path_bit(ref)
        if walk.looks is not None:
            for hi, made in walk.looks.items():
                for back, gauge in made:
                    self.made(hi, back, gauge)
            for hi in walk.entered:
                self.pending &= ~self.hex_looks(hi)

    def path_bit(self, ref: int) -> int:
        """The bit of the path keyed ``ref``."""
        hi = ref // _PER_HEX
        return 1 << (hi * self.per_hex + ref - hi * _PER_HEX)

    def look_bit(self, hi: int, back: int, gauge: str) -> int:
        """The bit of a look into hex ``hi`` by its edge ``back`` along ``gauge`` track."""
        gi = _GAUGES.setdefault(gauge, len(_GAUGES))
        if gi >= 4:
            return self.never
        return 1 << (self.look_base + hi * _LOOKS_PER_HEX + back * 4 + gi)

    def made(self, hi: int, back: int, gauge: str) -> None:
        """Record a look into hex ``hi`` by its edge ``back`` along ``gauge`` track."""
        bit = self.look_bit(hi, back, gauge)
        if bit != self.never:
            self.pending &= ~bit

    def hex_looks(self, hi: int) -> int:
        """The bits of every look into hex ``hi``."""
        return ((1 << _LOOKS_PER_HEX) - 1) << (self.look_base + hi * _LOOKS_PER_HEX)

    def _step(self, state: int) -> tuple[int, list[int]]:
        """The bits a relaxed state records itself, and the states it steps to."""
        walk = self.walk
        ref = state // _STATE_PER_PATH
        entry = state - ref * _STATE_PER_PATH
        hi = ref // _PER_HEX
        base = hi * _PER_HEX
        g = walk.geoms[hi]
        pi = ref - base
        path = g.paths[pi]
        bits = self.path_bit(ref)
        out: list[int] = []
        if not path.terminal:
            sources = walk.sources
            for n in path.nodes:
                key = base + n
                if entry == 64 + n or key in sources or walk.blocks(key, g):
                    continue
                for pj in g.node_paths.get(n, ()):
                    if pj != pi:
                        out.append((base + pj) * _STATE_PER_PATH + 64 + n)
        row = walk.links[hi]
        geoms = walk.geoms
        for e, back, key2, _conv in g.crossings[pi]:
            if e == entry:
                continue
            other = row[e]
            if other < 0:
                continue
            if self.looks:
                bits |= self.look_bit(other, back, path.gauge)
            obase = other * _PER_HEX
            for npi in geoms[other].gauge_paths.get(key2, ()):
                out.append((obase + npi) * _STATE_PER_PATH + back)
        return bits, out

    def closure(self, start: int) -> int:
        """``reach[start]``, computing it and every state it reaches (iterative Tarjan)."""
        reach = self.reach
        order: dict[int, int] = {}
        low: dict[int, int] = {}
        acc: dict[int, int] = {}
        stack: list[int] = []
        on_stack: set[int] = set()
        bits, out = self._step(start)
        order[start] = low[start] = 0
        acc[start] = bits
        stack.append(start)
        on_stack.add(start)
        work: list[tuple[int, list[int], int]] = [(start, out, 0)]
        while work:
            v, succ, i = work[-1]
            if i < len(succ):
                work[-1] = (v, succ, i + 1)
                w = succ[i]
                done = reach.get(w)
                if done is not None:
                    acc[v] |= done
                elif w not in order:
                    wb, wout = self._step(w)
                    order[w] = low[w] = len(order)
                    acc[w] = wb
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, wout, 0))
                elif w in on_stack and order[w] < low[v]:
                    low[v] = order[w]
                continue
            work.pop()
            if work:
                u = work[-1][0]
                if low[v] < low[u]:
                    low[u] = low[v]
                acc[u] |= acc[v]
            if low[v] == order[v]:
                total = acc[v]
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    reach[w] = total
                    if w == v:
                        break
        return reach[start]


_EDGE_SETS: dict[frozenset[int], frozenset[int]] = {}
"""Each set of hex edges a :attr:`Connectivity.hexes` entry may hold, made once (at most
64 of them) and shared by every walk's result: the cached walks then hold no frozensets of
their own for the garbage collector to look through."""


def _edge_set(edges: set[int]) -> frozenset[int]:
    """``edges`` as the shared frozenset of :data:`_EDGE_SETS`."""
    key = frozenset(edges)
    return _EDGE_SETS.setdefault(key, key)


_CACHE: dict[tuple[int, str, int], tuple[BoardRulesLike, Connectivity]] = {}
"""Complete walks by ``(board.version, entity, id(rules))``.  A version is unique across
all boards and clones and renewed on every tile and token change, so the boards that
share one (a board and its clones, e.g. the copies the legal-action trials make) hold
the same tiles and tokens: they share the walk.  The latest :data:`_CACHE_SIZE` walks are
kept (a position's walks are asked for while it is listed; each walk holds a few dozen
objects that every full garbage collection looks through)."""

_CACHE_SIZE = 64


def connectivity(board: Board, entity: str, rules: BoardRulesLike) -> Connectivity:
    """:func:`compute_connectivity`, cached by ``board.version`` (shared by clones), entity
    and rules."""
    conn = known_connectivity(board, entity, rules)
    if conn is None:
        conn = compute_connectivity(board, entity, rules)
        remember_connectivity(board, rules, conn)
    return conn


def known_connectivity(board: Board, entity: str, rules: BoardRulesLike) -> Connectivity | None:
    """``entity``'s whole network on ``board`` now if it was walked already (on this board
    or a board of the same version), else None."""
    got = _CACHE.get((board.version, entity, id(rules)))
    if got is not None and got[0] is rules:
        return got[1]
    return None


def remember_connectivity(board: Board, rules: BoardRulesLike, conn: Connectivity) -> None:
    """Cache a complete walk of ``board`` now for :func:`connectivity` (an incomplete
    one is ignored)."""
    if not conn.complete:
        return
    if len(_CACHE) >= _CACHE_SIZE:
        del _CACHE[next(iter(_CACHE))]  # the oldest
    _CACHE[(board.version, conn.entity, id(rules))] = (rules, conn)


def walk_from(board: Board, entity: str, rules: BoardRulesLike, start: NodeRef) -> Connectivity:
    """The reference walk for ``entity`` started at one node instead of its tokens.

    Used for destination checks (18Rhl: is Düren reached from Aachen's city?):
    ``start`` is ``(hex, node part)``; cities that block ``entity`` are not
    passed through.  The result's ``nodes`` are the nodes on every path walked.
    """
    mi = _map_index(board.spec)
    geoms = [board.tiles[h].geometry for h in mi.ids]
    walk = _Walk(board, entity, rules, mi, geoms, board.tokens, frozenset())
    key = mi.index[start[0]] * _PER_HEX + start[1]
    walk.nodes.add(key)
    walk.from_token(key, [key])
    return walk.result()

