"""The static map of a title: hexes, their preprinted tiles, borders and blockers.

:class:`MapSpec` is built once per title (and option set) from ``map.json`` and
is shared by every game of that title; the mutable board lives in
:mod:`rhineland.board.board`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rhineland.board.hexgrid import coords, neighbor_id, opposite
from rhineland.board.tiles import Tile

IMPASSABLE_HEX_COLORS = frozenset({"blue", "gray", "red"})
"""Colours of preprinted hexes that track may enter only where their own track
faces back (the reference rules' ``impassable_hex_colors``, both titles)."""


@dataclass(frozen=True, slots=True)
class Border:
    """A hex side with a special border.

    ``kind`` is ``"impassable"`` or ``"water"``; ``cost`` the extra build cost in
    M for a water border; ``color`` the printed colour (18Rhl: ``"blue"`` for
    the Rhine), ``None`` when the reference gives none.
    """

    edge: int
    kind: str
    cost: int = 0
    color: str | None = None


@dataclass(frozen=True)
class HexSpec:
    """One map hex: position, preprinted tile, borders, private-company blockers.

    ``tile`` is the preprinted tile (named after the hex); ``preprinted_id`` its
    export id (e.g. ``"A8-1"``); ``neighbors`` maps edge -> neighbouring hex id
    for hexes that exist on the map.
    """

    id: str
    x: int
    y: int
    tile: Tile
    preprinted_id: str
    location: str | None
    borders: tuple[Border, ...]
    blockers: tuple[str, ...]
    stubs: tuple[int, ...]
    partitions: tuple[tuple[int, int, str], ...]
    neighbors: Mapping[int, str]

    def border(self, edge: int) -> Border | None:
        """The special border (impassable or water) on ``edge`` of this hex, or ``None``."""
        for b in self.borders:
            if b.edge == edge:
                return b
        return None


@dataclass(frozen=True)
class MapSpec:
    """All hexes of a title's map, by id, with the layout (``"pointy"``/``"flat"``)."""

    layout: str
    hexes: Mapping[str, HexSpec]

    @classmethod
    def from_data(cls, layout: str, data: Mapping[str, Any]) -> MapSpec:
        """Build the map from ``map.json``'s ``hexes`` (preprinted tiles, borders,
        blockers, stubs, partitions); neighbours are the on-map hexes for ``layout``."""
        raw = data["hexes"]
        hexes: dict[str, HexSpec] = {}
        for hid, h in raw.items():
            x, y = coords(hid)
            neighbors = {}
            for edge in range(6):
                other = neighbor_id(hid, edge, layout)
                if other is not None and other in raw:
                    neighbors[edge] = other
            tile = Tile.from_data(hid, h)
            hexes[hid] = HexSpec(
                id=hid,
                x=x,
                y=y,
                tile=tile,
                preprinted_id=h["preprinted"],
                location=h.get("name"),
                borders=tuple(
                    Border(b["edge"], b["type"], b.get("cost", 0), b.get("color"))
                    for b in h.get("borders", ())
                ),
                blockers=tuple(h.get("blockers", ())),
                stubs=tuple(h.get("stubs", ())),
                partitions=tuple((p["a"], p["b"], p["kind"]) for p in h.get("partitions", ())),
                neighbors=neighbors,
            )
        return cls(layout=layout, hexes=hexes)

    def neighbor(self, hex_id: str, edge: int) -> str | None:
        """The hex across ``edge`` of ``hex_id`` if it is on the map."""
        return self.hexes[hex_id].neighbors.get(edge)

    def open_neighbors(self, hex_id: str) -> dict[int, str]:
        """Edge -> neighbour for the sides track may leave ``hex_id`` by.

        As the reference engine builds its hex neighbours (once, from the
        preprinted map): every on-map neighbour except (a) across an impassable
        border recorded on *this* hex's side, and (b) a neighbour whose colour is
        in :data:`IMPASSABLE_HEX_COLORS` (red offboards, gray hexes) unless its
        own track has an exit facing back.  Note (a) is one-sided: 1893's Q6
        records an impassable border towards R5 that R5 does not record; use
        :meth:`crossing_blocked` for the symmetric test.
        """
        out = {}
        h = self.hexes[hex_id]
        for edge, other in h.neighbors.items():
            b = h.border(edge)
            if b is not None and b.kind == "impassable":
                continue
            tile = self.hexes[other].tile
            if tile.color in IMPASSABLE_HEX_COLORS and opposite(edge) not in tile.exits():
                continue
            out[edge] = other
        return out

    def crossing_blocked(self, hex_id: str, edge: int) -> bool:
        """True where an impassable border lies on this side (either hex's record)."""
        b = self.hexes[hex_id].border(edge)
        if b is not None and b.kind == "impassable":
            return True
        other = self.neighbor(hex_id, edge)
        if other is None:
            return False
        ob = self.hexes[other].border(opposite(edge))
        return ob is not None and ob.kind == "impassable"
