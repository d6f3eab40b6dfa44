"""Tiles: revenue nodes (cities, towns, offboards), track paths, labels, terrain.

A tile is immutable; a tile *on the map* is a tile plus a rotation.  Paths join
two endpoints: an edge of the hex (``int`` 0..5, unrotated) or a revenue node
(``"p<part>"``, the node's part index in the tile definition).  Rotation turns
every edge by ``rotation`` steps (edge ``e`` becomes ``(e + rotation) % 6``).

Tile copies are named ``"<tile name>-<copy index>"`` (copies 0..count-1 in
manifest order) and preprinted map tiles ``"<hex>-<group index>"``, as in the
18xx.games exports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

Endpoint = int | str
"""An edge number (0..5) or a node reference ``"p<part>"``."""

COLORS = ("white", "yellow", "green", "brown", "gray")
"""Tile colours in upgrade order (special colours such as orange stand apart)."""


@dataclass(frozen=True, slots=True)
class Node:
    """A revenue location on a tile.

    ``kind`` is ``"city"``, ``"town"`` or ``"offboard"``; ``revenue`` is M, either a
    flat number or a mapping phase-colour -> M (offboards); ``slots`` is the number
    of token spaces (cities only); ``reserved`` the corporations whose home it is;
    ``markers`` printed markers in the slots (e.g. coal ``"K"`` / steel ``"S"``, a
    1893 minor's home); ``groups`` the offboard group names.
    """

    part: int
    kind: str
    revenue: int | Mapping[str, int] = 0
    slots: int = 0
    reserved: tuple[str, ...] = ()
    markers: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    hidden: bool = False
    loc: str | None = None

    @property
    def is_city(self) -> bool:
        """Whether this node is a city (it has token slots)."""
        return self.kind == "city"

    @property
    def is_town(self) -> bool:
        """Whether this node is a town."""
        return self.kind == "town"

    @property
    def is_offboard(self) -> bool:
        """Whether this node is an offboard (revenue may depend on the phase colour)."""
        return self.kind == "offboard"

    def revenue_in(self, color: str) -> int:
        """Revenue in M when the current phase's tile colour is ``color``."""
        if isinstance(self.revenue, int):
            return self.revenue
        best = 0
        for c in COLORS:
            if c in self.revenue:
                best = self.revenue[c]
            if c == color:
                break
        return best


@dataclass(frozen=True, slots=True)
class Path:
    """A track segment between two endpoints (edges unrotated)."""

    a: Endpoint
    b: Endpoint
    terminal: int = 0
    gauge: str = "broad"

    def rotated(self, rotation: int) -> Path:
        """This path turned by ``rotation`` steps."""
        if rotation == 0:
            return self
        return Path(_rot(self.a, rotation), _rot(self.b, rotation), self.terminal, self.gauge)

    def edges(self) -> tuple[int, ...]:
        """The hex edges (0..5, unrotated) this path ends at: none, one or two."""
        return tuple(e for e in (self.a, self.b) if isinstance(e, int))

    def nodes(self) -> tuple[int, ...]:
        """The part indices of the revenue nodes this path ends at (``"p<part>"`` ends)."""
        return tuple(int(e[1:]) for e in (self.a, self.b) if isinstance(e, str))


def _rot(end: Endpoint, rotation: int) -> Endpoint:
    return (end + rotation) % 6 if isinstance(end, int) else end


@dataclass(frozen=True, slots=True)
class Terrain:
    """An upgrade cost in M for a terrain kind (``"mountain"``, ``"water"``, ``"river"``)."""

    cost: int
    kind: str


@dataclass(frozen=True)
class Tile:
    """A tile definition (a manifest tile or a preprinted map tile).

    ``count`` is the number of copies in the manifest (0 for preprinted tiles).
    """

    name: str
    color: str
    nodes: tuple[Node, ...] = ()
    paths: tuple[Path, ...] = ()
    labels: tuple[str, ...] = ()
    terrain: tuple[Terrain, ...] = ()
    icons: tuple[str, ...] = ()
    count: int = 0
    _exits: dict[int, frozenset[int]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_data(cls, name: str, data: Mapping[str, Any]) -> Tile:
        """Build from the project's tile schema (see ``docs/data-schema.md``)."""
        nodes = []
        for pos, n in enumerate(data.get("nodes", ())):
            rev = n.get("revenue", 0)
            nodes.append(
                Node(
                    part=n.get("part", pos),
                    kind=n["kind"],
                    revenue=rev if isinstance(rev, int) else dict(rev),
                    slots=n.get("slots", 0),
                    reserved=tuple(n.get("reserved", ())),
                    markers=tuple(n.get("markers", ())),
                    groups=tuple(n.get("groups", ())),
                    hidden=bool(n.get("hidden", False)),
                    loc=n.get("loc"),
                )
            )
        paths = []
        for seg in data.get("track", ()):
            extra = seg[2] if len(seg) > 2 else {}
            paths.append(
                Path(seg[0], seg[1], extra.get("terminal", 0), extra.get("gauge", "broad"))
            )
        return _interned(cls(
            name=name,
            color=data["color"],
            nodes=tuple(nodes),
            paths=tuple(paths),
            labels=tuple(data.get("labels", ())),
            terrain=tuple(Terrain(t["cost"], t["kind"]) for t in data.get("terrain", ())),
            icons=tuple(data.get("icons", ())),
            count=data.get("count", 0),
        ))

    def node(self, part: int) -> Node:
        """The node with tile part index ``part``; raises ``KeyError``."""
        for n in self.nodes:
            if n.part == part:
                return n
        raise KeyError(f"tile {self.name} has no node part {part}")

    @property
    def cities(self) -> tuple[Node, ...]:
        """The tile's city nodes in definition order (a city index counts among these)."""
        return tuple(n for n in self.nodes if n.is_city)

    @property
    def towns(self) -> tuple[Node, ...]:
        """The tile's town nodes in definition order."""
        return tuple(n for n in self.nodes if n.is_town)

    def city_index(self, part: int) -> int:
        """Index of the city with part ``part`` among this tile's cities."""
        for i, n in enumerate(self.cities):
            if n.part == part:
                return i
        raise KeyError(f"tile {self.name} has no city part {part}")

    def exits(self, rotation: int = 0) -> frozenset[int]:
        """Edges with track leaving the hex, after rotation."""
        got = self._exits.get(rotation)
        if got is None:
            got = frozenset((e + rotation) % 6 for p in self.paths for e in p.edges())
            self._exits[rotation] = got
        return got

    def rotated_paths(self, rotation: int) -> tuple[Path, ...]:
        """The tile's paths turned by ``rotation`` steps."""
        return tuple(p.rotated(rotation) for p in self.paths)

    @property
    def terrain_cost(self) -> int:
        """The sum of the tile's terrain costs in M."""
        return sum(t.cost for t in self.terrain)

    def copy_ids(self) -> list[str]:
        """The export ids of the copies: ``"<name>-0"`` .. ``"<name>-<count-1>"``."""
        return [f"{self.name}-{i}" for i in range(self.count)]


def split_tile_id(tile_id: str) -> tuple[str, int]:
    """``"X922-0"`` -> ``("X922", 0)``; raises ``ValueError`` on a malformed id."""
    name, sep, idx = tile_id.rpartition("-")
    if not sep or not idx.isdigit():
        raise ValueError(f"malformed tile id {tile_id!r}")
    return name, int(idx)


_INTERNED: dict[tuple[str, str], list[Tile]] = {}
"""Tiles built from data so far, by name and colour (see :func:`_interned`)."""


def _interned(tile: Tile) -> Tile:
    """An equal tile built before, else ``tile``: the title data of every option set of a
    title share their tile objects, and with them the caches keyed by tile (geometry,
    upgrade answers)."""
    same = _INTERNED.setdefault((tile.name, tile.color), [])
    for old in same:
        if old == tile:
            return old
    same.append(tile)
    return tile
