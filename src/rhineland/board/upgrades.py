"""Tile geometry and the generic 18xx upgrade rules.

A tile on the map is a :class:`~rhineland.board.tiles.Tile` plus a rotation;
:func:`geometry` turns that pair into a :class:`TileGeometry` (rotated paths,
exits, the edges each city/town reaches), computed once and cached.

Upgrade rules (the usual 18xx ones, as the reference engine applies them):

* colour: the new tile is exactly one step later in yellow → green → brown →
  gray (from a white hex: yellow);
* track: every path of the old tile, under some rotation, is contained in a
  path of the new tile ("contained" compares endpoints: the same edge, or a
  revenue node of the same kind - city, town, offboard);
* label: the last label of both tiles is the same (or both have none);
* cities and towns: the number of towns is kept; without a label the number of
  cities is kept; where both tiles have several cities, every old city's edges
  must lie inside one new city's edges; a labelled city may not lose all its
  cities; a white "OO" hex takes only two-city tiles.

A private company's special lay (the reference's ``special`` flag) skips the
label and city/town checks.  Title exceptions are not here: a title's
:class:`UpgradePolicy` (the ``BoardRules`` of ``rhineland.board.legality``)
decides first and falls back to :func:`generic_upgrades_to`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from rhineland.board.hexgrid import OPPOSITE
from rhineland.board.tiles import Tile

COLOR_ORDER: tuple[str, ...] = ("white", "yellow", "green", "brown", "gray")
"""Colours in upgrade order; other colours (red, orange, ...) never upgrade generically."""

End = tuple[str, int]
"""A path endpoint in comparable form: ``("edge", n)`` or ``(node kind, part)``."""


@dataclass(frozen=True, slots=True)
class RotatedPath:
    """One path of a tile at a rotation.

    ``a``/``b`` are the endpoints (``("edge", n)`` or ``("city"|"town"|"offboard", part)``),
    ``edges`` the hex edges it touches (0..5, rotated), ``nodes`` the node parts.
    """

    a: End
    b: End
    edges: tuple[int, ...]
    nodes: tuple[int, ...]
    terminal: bool
    gauge: str

    def __reduce__(self) -> tuple[Any, tuple[End, End, tuple[int, ...], tuple[int, ...], bool,
                                             str]]:
        """Pickled and copied as its constructor's arguments (a compiled build's frozen
        class cannot be filled in field by field)."""
        return RotatedPath, (self.a, self.b, self.edges, self.nodes, self.terminal, self.gauge)

    def within(self, other: RotatedPath) -> bool:
        """True when this path is contained in ``other`` (reference ``Path#<=``).

        Each endpoint must match an endpoint of ``other`` (same edge, or a node of
        the same kind) and the gauges must match (a dual-gauge path only within a dual
        one; any path within a dual one).  Written out: the upgrade checks ask it for
        every pair of paths (tests/test_path_within.py states the rule apart).
        """
        oa, ob = other.a, other.b
        a, b = self.a, self.b
        if a[0] == "edge":
            if a != oa and a != ob:
                return False
        elif a[0] != oa[0] and a[0] != ob[0]:
            return False
        if b[0] == "edge":
            if b != oa and b != ob:
                return False
        elif b[0] != oa[0] and b[0] != ob[0]:
            return False
        mine, theirs = self.gauge, other.gauge
        if mine == "dual":
            return theirs == "dual"
        return theirs == mine or theirs == "dual"


@dataclass(frozen=True)
class TileGeometry:
    """A tile at one rotation: rotated paths and what they connect.

    ``edge_paths[e]`` / ``node_paths[part]`` index into ``paths``;
    ``ends[i]`` are path ``i``'s two endpoints as ints (edge ``e`` as ``e``, node
    part ``p`` as ``-1 - p``: what a walk along the track compares);
    ``ct_edges`` lists, per city or town reached by an edge path (in path order),
    ``(part, edges)``; ``cities`` are the city parts in tile order (a token's
    city index is a position in this tuple); ``gauge_paths[(e, gauge)]`` are the
    paths of ``edge_paths[e]`` of that gauge (in the same order), ``converging`` the
    edges that several paths share (what a network walk asks at every step);
    ``crossings[i]`` has, for each edge ``e`` of path ``i`` (in its order), ``(e, the
    neighbour's edge facing it, (that edge, the path's gauge), e in converging)``: what a
    network walk leaving by ``e`` asks (the neighbour's ``gauge_paths`` key).
    """

    tile: Tile
    rotation: int
    paths: tuple[RotatedPath, ...]
    exits: frozenset[int]
    edge_paths: dict[int, tuple[int, ...]]
    node_paths: dict[int, tuple[int, ...]]
    ends: tuple[tuple[int, int], ...]
    ct_edges: tuple[tuple[int, frozenset[int]], ...]
    node_exits: dict[int, frozenset[int]]
    cities: tuple[int, ...]
    towns: tuple[int, ...]
    gauge_paths: dict[tuple[int, str], tuple[int, ...]]
    converging: frozenset[int]
    crossings: tuple[tuple[tuple[int, int, tuple[int, str], bool], ...], ...]

    def __reduce__(self) -> tuple[Any, tuple[Tile, int]]:
        """Pickled and copied as its tile and rotation, worked out again (a compiled
        build's frozen class cannot be filled in field by field); the copy is not cached
        (:func:`geometry` keeps the tiles it caches alive)."""
        return _build_geometry, (self.tile, self.rotation)


_GEOM: dict[int, tuple[Tile, list[TileGeometry | None]]] = {}


def geometry(tile: Tile, rotation: int = 0) -> TileGeometry:
    """The cached :class:`TileGeometry` of ``tile`` turned by ``rotation`` (0..5)."""
    rotation %= 6
    entry = _GEOM.get(id(tile))
    if entry is None or entry[0] is not tile:
        entry = (tile, [None] * 6)
        _GEOM[id(tile)] = entry
    got = entry[1][rotation]
    if got is None:
        got = _build_geometry(tile, rotation)
        entry[1][rotation] = got
    return got


def _build_geometry(tile: Tile, rotation: int) -> TileGeometry:
    kinds = {n.part: n.kind for n in tile.nodes}
    paths: list[RotatedPath] = []
    codes: list[tuple[int, int]] = []
    for p in tile.paths:
        r = p.rotated(rotation)
        ends = tuple(_end(e, kinds) for e in (r.a, r.b))
        paths.append(
            RotatedPath(ends[0], ends[1], r.edges(), r.nodes(), bool(r.terminal), r.gauge)
        )
        codes.append((_code(r.a), _code(r.b)))
    edge_paths: dict[int, list[int]] = {}
    node_paths: dict[int, list[int]] = {}
    ct: dict[int, list[int]] = {}
    for i, rp in enumerate(paths):
        for e in rp.edges:
            edge_paths.setdefault(e, []).append(i)
        for n in rp.nodes:
            node_paths.setdefault(n, []).append(i)
        # the reference keys a path's edges by its city, else its town
        ct_node = next((n for n in rp.nodes if kinds.get(n) == "city"), None)
        if ct_node is None:
            ct_node = next((n for n in rp.nodes if kinds.get(n) == "town"), None)
        if ct_node is not None:
            for e in rp.edges:
                ct.setdefault(ct_node, []).append(e)
    node_exits = {
        part: frozenset(e for i in idx for e in paths[i].edges) for part, idx in node_paths.items()
    }
    converging = frozenset(e for e, v in edge_paths.items() if len(v) > 1)
    return TileGeometry(
        tile=tile,
        rotation=rotation,
        paths=tuple(paths),
        exits=frozenset(e for rp in paths for e in rp.edges),
        edge_paths={e: tuple(v) for e, v in edge_paths.items()},
        node_paths={n: tuple(v) for n, v in node_paths.items()},
        ends=tuple(codes),
        ct_edges=tuple((n, frozenset(v)) for n, v in ct.items()),
        node_exits=node_exits,
        cities=tuple(n.part for n in tile.nodes if n.kind == "city"),
        towns=tuple(n.part for n in tile.nodes if n.kind == "town"),
        gauge_paths={(e, g): tuple(i for i in v if paths[i].gauge == g)
                     for e, v in edge_paths.items() for g in {paths[i].gauge for i in v}},
        converging=converging,
        crossings=tuple(
            tuple((e, OPPOSITE[e], (OPPOSITE[e], rp.gauge), e in converging) for e in rp.edges)
            for rp in paths),
    )


def _code(e: int | str) -> int:
    return e if isinstance(e, int) else -1 - int(e[1:])


def _end(e: int | str, kinds: Mapping[int, str]) -> End:
    if isinstance(e, int):
        return ("edge", e)
    part = int(e[1:])
    return (kinds.get(part, "node"), part)


# -- generic rules ---------------------------------------------------------------


def label(tile: Tile) -> str | None:
    """The label the upgrade rules compare: the tile's last label, or None."""
    return tile.labels[-1] if tile.labels else None


def next_color(color: str) -> str | None:
    """The colour a tile of ``color`` upgrades to, or None (gray, red, orange...)."""
    if color in COLOR_ORDER[:-1]:
        return COLOR_ORDER[COLOR_ORDER.index(color) + 1]
    return None


def paths_within(old: Iterable[RotatedPath], new: tuple[RotatedPath, ...]) -> bool:
    """Every old path is contained in some new path (rotations already applied)."""
    for p in old:
        for q in new:
            if p.within(q):
                break
        else:
            return False
    return True


def keeps_track(old: Tile, new: Tile) -> bool:
    """Some rotation of ``old``'s track lies inside ``new``'s (``paths_are_subset_of?``)."""
    target = geometry(new, 0).paths
    return any(paths_within(geometry(old, r).paths, target) for r in range(6))


def city_edges_within(old: Tile, new: Tile) -> bool:
    """Under some rotation, each old city/town's edges lie inside one new city/town's edges."""
    old_ct = geometry(old, 0).ct_edges
    for r in range(6):
        new_ct = [edges for _, edges in geometry(new, r).ct_edges]
        if all(any(edges <= other for other in new_ct) for _, edges in old_ct):
            return True
    return False


def city_town_counts_ok(old: Tile, new: Tile) -> bool:
    """The usual count rules for cities and towns (see the module docstring)."""
    old_cities = sum(1 for n in old.nodes if n.is_city)
    new_cities = sum(1 for n in new.nodes if n.is_city)
    old_towns = sum(1 for n in old.nodes if n.is_town)
    new_towns = sum(1 for n in new.nodes if n.is_town)
    old_label = label(old)
    if old_towns != new_towns:
        return False
    if old_label is None and old_cities != new_cities:
        return False
    if old_cities > 1 and new_cities > 1 and not city_edges_within(old, new):
        return False
    if old_label is not None and old_cities and not new_cities:
        return False
    return not (old.color == "white" and old_label == "OO" and old_cities != new_cities)


_GENERIC: dict[tuple[int, int, bool], bool] = {}
""":func:`generic_upgrades_to`'s answers by ``(id(old), id(new), special)``: plain ints and
bools, which the garbage collector does not track (the tiles are held in
:data:`_GENERIC_TILES`)."""
_GENERIC_TILES: dict[int, Tile] = {}
"""The tiles whose ``id`` is part of a key of :data:`_GENERIC`, held so that no other
object takes that ``id`` while a key names it."""


def generic_upgrades_to(old: Tile, new: Tile, *, special: bool = False) -> bool:
    """Whether ``new`` may replace ``old`` under the usual 18xx rules (module docstring).

    ``special`` (a private company's lay) skips the label and city/town checks.  The
    answer depends on the two tiles alone: memoised by tile (kept, so an id is never
    confused with a later tile's).
    """
    key = (id(old), id(new), special)
    got = _GENERIC.get(key)
    if got is not None:
        return got
    answer = _generic_upgrades_to(old, new, special=special)
    if len(_GENERIC) > 200_000:
        _GENERIC.clear()
        _GENERIC_TILES.clear()
    _GENERIC_TILES[id(old)] = old
    _GENERIC_TILES[id(new)] = new
    _GENERIC[key] = answer
    return answer


def _generic_upgrades_to(old: Tile, new: Tile, *, special: bool = False) -> bool:
    """:func:`generic_upgrades_to` without the memo."""
    if next_color(old.color) != new.color:
        return False
    if not keeps_track(old, new):
        return False
    if special:
        return True
    if label(old) != label(new):
        return False
    return city_town_counts_ok(old, new)


class UpgradePolicy(Protocol):
    """What :func:`upgrade_graph` needs from a title's board rules."""

    def upgrades_to(
        self,
        hex_id: str | None,
        old: Tile,
        new: Tile,
        *,
        special: bool = False,
        company: str | None = None,
        phase: str | None = None,
    ) -> bool:
        """Whether ``new`` may replace ``old`` on ``hex_id`` (None: off the map)."""
        ...

    def manifest_upgrades(self, tile: Tile) -> tuple[str, ...]:
        """Extra tile names the tile manifest lists as upgrades of ``tile``."""
        ...


def hex_first_upgrades(
    tiles: Mapping[str, Tile], policy: UpgradePolicy, hex_id: str, base: Tile
) -> list[str]:
    """Manifest tile names (in manifest order) that may be laid on ``hex_id`` over ``base``."""
    return [name for name, t in tiles.items() if policy.upgrades_to(hex_id, base, t)]


def upgrade_graph(
    tiles: Mapping[str, Tile], policy: UpgradePolicy, hex_id: str, base: Tile
) -> dict[str, list[str]]:
    """The upgrade tree of one hex: tile name -> names it upgrades to on that hex.

    Starts from the preprinted tile (keyed by the hex id) and follows every
    manifest tile reachable from it, breadth first, in manifest order.
    """
    graph: dict[str, list[str]] = {}
    queue: list[tuple[str, Tile]] = [(hex_id, base)]
    while queue:
        key, tile = queue.pop(0)
        if key in graph:
            continue
        nxt = hex_first_upgrades(tiles, policy, hex_id, tile)
        graph[key] = nxt
        queue.extend((n, tiles[n]) for n in nxt if n not in graph)
    return graph


def tile_upgrades(tiles: Mapping[str, Tile], policy: UpgradePolicy, name: str) -> list[str]:
    """The manifest's "upgrades to" list of tile ``name`` (no hex: hex rules do not apply)."""
    tile = tiles[name]
    out = [n for n, t in tiles.items() if policy.upgrades_to(None, tile, t)]
    for extra in policy.manifest_upgrades(tile):
        if extra in tiles and extra not in out:
            out.append(extra)
    return out
