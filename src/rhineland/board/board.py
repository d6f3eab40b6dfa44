"""The mutable board of one game: the tile on every hex, tokens in cities, the tile supply.

The board is small on purpose so that :meth:`Board.clone` is cheap (undo,
look-ahead): its values are immutable (placed tiles, tuples of token symbols
and of tile copy ids), a change replaces them, so a clone copies three dicts.
Static facts come from :class:`~rhineland.board.mapspec.MapSpec` and the
title's tile manifest.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rhineland.board.mapspec import MapSpec
from rhineland.board.tiles import Tile, split_tile_id
from rhineland.board.upgrades import TileGeometry, geometry
from rhineland.errors import GameError


@dataclass(frozen=True, slots=True)
class PlacedTile:
    """A tile on a hex: definition, export id of the copy, rotation 0..5.

    ``geometry`` is the tile's :class:`~rhineland.board.upgrades.TileGeometry` at
    that rotation (the shared, cached one), what every walk along the track reads.
    """

    tile: Tile
    tile_id: str
    rotation: int = 0
    geometry: TileGeometry = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "geometry", geometry(self.tile, self.rotation))


_VERSIONS = itertools.count(1)
"""Board versions are unique across all boards and clones, so caches keyed on a
version never confuse two boards that diverged from a common snapshot."""


class Board:
    """Tiles on hexes, tokens in city slots, and the unused tile copies.

    ``tokens[(hex, city_index)]`` lists the corporation/minor symbols occupying
    the slots of that city (index among the current tile's cities, as in the
    trace files); ``supply`` maps a manifest tile name to its unused copy ids.
    Both hold tuples, replaced (never mutated) on a change.
    """

    __slots__ = ("manifest", "route_cache", "spec", "supply", "tiles", "tokens", "version")

    def __init__(self, spec: MapSpec, manifest: Mapping[str, Tile]) -> None:
        self.spec = spec
        self.manifest = manifest
        self.tiles: dict[str, PlacedTile] = {
            hid: PlacedTile(h.tile, h.preprinted_id, 0) for hid, h in spec.hexes.items()
        }
        self.tokens: dict[tuple[str, int], tuple[str, ...]] = {}
        self.supply: dict[str, tuple[str, ...]] = {
            name: tuple(t.copy_ids()) for name, t in manifest.items()
        }
        self.version = next(_VERSIONS)  # renewed on every change, for caches
        self.route_cache: object = None  # routes.graph caches its track graph here (by version)

    def clone(self) -> Board:
        """An independent copy (static parts shared)."""
        b = Board.__new__(Board)
        b.spec = self.spec
        b.manifest = self.manifest
        b.tiles = dict(self.tiles)
        b.tokens = dict(self.tokens)
        b.supply = dict(self.supply)
        b.version = self.version
        b.route_cache = self.route_cache  # same tiles, same version: the cache stays valid
        return b

    def __getstate__(self) -> dict[str, object]:
        """The board for ``pickle`` and ``copy.deepcopy``, without its route cache (rebuilt on
        demand; it may hold objects of the native build, which do not copy)."""
        state = {name: getattr(self, name) for name in self.__slots__}
        state["route_cache"] = None
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        """Restore a board from :meth:`__getstate__`."""
        for name, value in state.items():
            setattr(self, name, value)

    # -- tiles ---------------------------------------------------------------
    def tile_at(self, hex_id: str) -> PlacedTile:
        """The tile currently on ``hex_id``; raises ``GameError`` for an unknown hex."""
        try:
            return self.tiles[hex_id]
        except KeyError:
            raise GameError(f"no hex {hex_id!r} on the map", "map.hex") from None

    def is_preprinted(self, hex_id: str) -> bool:
        """Whether ``hex_id`` still holds its preprinted tile (no tile laid there yet)."""
        return self.tiles[hex_id].tile_id == self.spec.hexes[hex_id].preprinted_id

    def take_tile(self, tile_id: str) -> Tile:
        """Remove copy ``tile_id`` (e.g. ``"57-1"``) from the supply and return its tile.

        Raises ``GameError`` when that copy is not available.
        """
        try:
            name, _ = split_tile_id(tile_id)
        except ValueError:
            raise GameError(f"malformed tile id {tile_id!r}", "track.tile") from None
        copies = self.supply.get(name)
        if copies is None:
            raise GameError(f"tile {name} is not in the manifest", "track.tile")
        if tile_id not in copies:
            raise GameError(
                f"tile {tile_id} is not available (unused copies of {name}: "
                f"{', '.join(copies) or 'none'})",
                "track.tile_supply",
            )
        self.supply[name] = tuple(c for c in copies if c != tile_id)
        return self.manifest[name]

    def place_tile(self, hex_id: str, tile_id: str, rotation: int) -> PlacedTile:
        """Put copy ``tile_id`` on ``hex_id``; the old tile returns to the supply.

        Tokens keep their city: a token on city ``i`` of the old tile moves to the
        city of the new tile that the caller maps it to (see
        :meth:`move_tokens`).  No legality checks here: see ``board.legality``.
        """
        tile = self.take_tile(tile_id)
        old = self.tiles[hex_id]
        if old.tile.count and old.tile.name in self.supply:
            back = (*self.supply[old.tile.name], old.tile_id)
            self.supply[old.tile.name] = tuple(sorted(back, key=lambda s: split_tile_id(s)[1]))
        placed = PlacedTile(tile, tile_id, rotation % 6)
        self.tiles[hex_id] = placed
        self.version = next(_VERSIONS)
        return placed

    def move_tokens(self, hex_id: str, mapping: Mapping[int, int]) -> None:
        """Re-seat tokens after an upgrade: old city index -> new city index."""
        moved: dict[tuple[str, int], tuple[str, ...]] = {}
        for (h, ci), syms in list(self.tokens.items()):
            if h != hex_id:
                continue
            del self.tokens[(h, ci)]
            key = (h, mapping.get(ci, ci))
            moved[key] = moved.get(key, ()) + syms
        self.tokens.update(moved)
        self.version = next(_VERSIONS)

    def set_hex_tokens(self, hex_id: str, seats: Mapping[int, Sequence[str]]) -> None:
        """Replace the tokens of ``hex_id``: city index -> symbols."""
        for key in [k for k in self.tokens if k[0] == hex_id]:
            del self.tokens[key]
        for ci, syms in seats.items():
            if syms:
                self.tokens[(hex_id, ci)] = tuple(syms)
        self.version = next(_VERSIONS)

    # -- tokens --------------------------------------------------------------
    def tokens_in(self, hex_id: str, city_index: int) -> tuple[str, ...]:
        """The symbols of the tokens in city ``city_index`` of ``hex_id``
        (``()`` when the city holds no token)."""
        return self.tokens.get((hex_id, city_index), ())

    def add_token(self, hex_id: str, city_index: int, sym: str) -> None:
        """Put a token of ``sym`` (corporation or minor) in city ``city_index`` of
        ``hex_id``; no legality check here (see ``board.legality``)."""
        key = (hex_id, city_index)
        self.tokens[key] = (*self.tokens.get(key, ()), sym)
        self.version = next(_VERSIONS)

    def remove_token(self, hex_id: str, city_index: int, sym: str) -> None:
        """Take ``sym``'s token out of city ``city_index`` of ``hex_id``; nothing
        happens when it is not there."""
        key = (hex_id, city_index)
        slots = self.tokens.get(key, ())
        if sym in slots:
            i = slots.index(sym)
            rest = slots[:i] + slots[i + 1:]
            if rest:
                self.tokens[key] = rest
            else:
                del self.tokens[key]
            self.version = next(_VERSIONS)

    def token_locations(self, sym: str) -> list[tuple[str, int]]:
        """Every ``(hex, city_index)`` holding a token of ``sym``."""
        return [k for k, syms in self.tokens.items() if sym in syms]

    def changed_tiles(self) -> dict[str, tuple[str, int]]:
        """hex -> (tile name, rotation) for hexes whose tile is no longer preprinted."""
        return {
            h: (p.tile.name, p.rotation)
            for h, p in self.tiles.items()
            if p.tile_id != self.spec.hexes[h].preprinted_id
        }
