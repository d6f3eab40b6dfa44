"""The inputs and results of the legality checks (:class:`LayContext`, :class:`Lay`,
:class:`TokenSpot`) and the title hooks (:class:`BoardRules`) with their defaults."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rhineland.board.board import Board
from rhineland.board.graph import Connectivity, connectivity
from rhineland.board.tiles import Tile
from rhineland.board.upgrades import (
    TileGeometry,
    generic_upgrades_to,
    geometry,
)
from rhineland.engine.titledata import TitleData

# -- results and inputs ---------------------------------------------------------------


@dataclass(frozen=True, order=True, slots=True)
class Lay:
    """One legal tile lay: hex, tile name, absolute rotation 0..5, cost in M.

    ``special`` is the private company whose ability makes the lay (the action's
    entity is then that company), or ``""`` for a normal lay.
    """

    hex: str
    tile: str
    rotation: int
    cost: int = 0
    special: str = ""


@dataclass(frozen=True, order=True, slots=True)
class TokenSpot:
    """One legal token placement: hex, city index on the current tile, price in M."""

    hex: str
    city: int
    price: int


@dataclass(frozen=True, slots=True)
class PrivateState:
    """A private company's state as the board rules need it.

    ``owner``: the owning player's id (None while unsold or bank-owned);
    ``used``: its once-only map ability (tile lay, teleport, hex block) is gone.
    """

    sym: str
    owner: str | None = None
    closed: bool = False
    used: bool = False


@dataclass
class LayContext:
    """Everything the tile/token rules read, as plain fields the engine fills.

    ``entity``/``entity_kind``: the operating corporation or minor
    (``"corporation"``/``"minor"``); ``president``: the player directing it;
    ``phase``: phase name; ``tile_colors``: colours the phase allows;
    ``cash``: the entity's cash in M; ``privates``: sym -> :class:`PrivateState`;
    ``next_token_price``: price in M of the entity's next unplaced token (None:
    none left); ``tokened`` / ``bought_train``: already done this turn (private
    lays are then unavailable in 18Rhl); ``teleported``: the private company
    whose teleport lay the entity has just made (its token may follow, in that
    ability's hexes, without connection); ``extra`` is for title hooks.
    """

    board: Board
    data: TitleData
    rules: BoardRules
    entity: str
    entity_kind: str = "corporation"
    president: str | None = None
    phase: str = ""
    tile_colors: tuple[str, ...] = ("yellow",)
    cash: int = 0
    privates: Mapping[str, PrivateState] = field(default_factory=dict)
    next_token_price: int | None = None
    tokened: bool = False
    bought_train: bool = False
    teleported: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def connectivity(self) -> Connectivity:
        """The entity's network on the current board (cached)."""
        return connectivity(self.board, self.entity, self.rules)


@dataclass(frozen=True)
class SpecialAbility:
    """A private company's usable map ability.

    ``kind``: ``"tile_lay"`` (extra lay, no connection needed) or ``"teleport"``
    (lay then optionally token, no connection needed); ``hexes``/``tiles``: where
    and what; ``special``: the lay skips label and city checks when processed;
    ``free``: no terrain cost; ``reachable``: the hex must be on the operating
    company's network and the new tile's track must join it.
    """

    company: str
    kind: str
    hexes: tuple[str, ...]
    tiles: tuple[str, ...]
    special: bool = False
    free: bool = True
    reachable: bool = False


# -- the title hooks --------------------------------------------------------------------


_MEMOS: dict[tuple[type, int], tuple[TitleData, dict[tuple[object, ...], bool],
                                      dict[tuple[object, ...], tuple[Tile, ...]],
                                      dict[tuple[object, ...], bool],
                                      dict[tuple[object, ...], tuple[int, ...]]]] = {}
"""Per rules class and title data: the memos of :meth:`BoardRules.can_upgrade`,
:meth:`BoardRules.upgrade_targets`, :attr:`BoardRules.fits_memo` and
:attr:`BoardRules.rotations_memo` (their answers depend only on the arguments, the class
and the data; the data object is kept to tell a reused ``id`` apart)."""


class BoardRules:
    """Tile and token rules with the common 18xx defaults; titles override hooks.

    Built once per title and option set: ``BoardRules(title.data)``.
    """

    NEUTRAL_TOKENS: frozenset[str] = frozenset()
    """Token symbols that never block a city (e.g. a printed "open city" marker)."""

    upgrade_hexes: frozenset[str] | None = None
    """The hexes where :meth:`upgrades_to` looks at the hex for a normal lay (``None``:
    any hex may): on every other hex the answer is the same, so a normal lay's upgrade
    targets (:meth:`upgrade_targets`) are worked out once per old tile and phase.  A
    title that sets it names every hex its rule treats apart."""

    def __init__(self, data: TitleData) -> None:
        self.data = data
        self.first_phase = data.phases[0].name if data.phases else ""
        self.restriction = str(data.rules.get("track_restriction", "semi_restrictive"))
        # pure answers of this rules class on this title data: shared by every game of it
        memo = _MEMOS.get((type(self), id(data)))
        if memo is None or memo[0] is not data:
            memo = _MEMOS[(type(self), id(data))] = (data, {}, {}, {}, {})
        self._upgrade_memo: dict[tuple[object, ...], bool] = memo[1]
        self._targets_memo: dict[tuple[object, ...], tuple[Tile, ...]] = memo[2]
        self.fits_memo: dict[tuple[object, ...], bool] = memo[3]
        """Memo of the tile-lay check that a rotated tile fits its hex (its exits lead
        where track may go, the old track and cities kept): keyed by hex, old tile and
        rotation, new tile and rotation (see ``tile_lays``)."""
        self.rotations_memo: dict[tuple[object, ...], tuple[int, ...]] = memo[4]
        """Memo of the rotations of a normal lay that pass the geometric checks (an exit
        on the network, :meth:`rotation_allowed`, the fit): keyed by hex, old tile and
        rotation, new tile, the edges the network touches and :meth:`rotation_key` (see
        ``tile_lays``)."""
        self._blockers: dict[str, tuple[str, ...]] = {}
        """Hex -> the privates (in title order) whose ``blocks_hexes`` ability lists it."""
        for p in data.privates:
            ab = p.ability("blocks_hexes")
            for hid in () if ab is None else ab.get("hexes", ()):
                if p.sym not in self._blockers.get(hid, ()):
                    self._blockers[hid] = (*self._blockers.get(hid, ()), p.sym)
        self.lay_privates: tuple[str, ...] = tuple(
            p.sym for p in data.privates
            if any(p.sym in syms for syms in self._blockers.values())
            or any(ab.get("type") in ("tile_lay", "teleport") for ab in p.abilities))
        """The private companies whose state (:class:`PrivateState`) the tile-lay hooks
        read: the hex blockers (:meth:`hex_blocker`, :meth:`blocker_exempt`) and the
        privates with a map ability (:meth:`special_abilities`); the other privates'
        states do not change a tile lay (``tile_lays`` memoises by these).  A title whose
        lay hooks read another private's state adds it."""

    # -- board setup ----------------------------------------------------------------
    def setup_tokens(self) -> tuple[tuple[str, int, str], ...]:
        """Tokens on the map before the first action: ``(hex, city index, sym)``.

        Default: the markers printed in the preprinted cities (minor homes,
        neutral markers, 18Rhl coal/steel tokens).
        """
        out: list[tuple[str, int, str]] = []
        for hid, h in self.data.map.hexes.items():
            for ci, node in enumerate(h.tile.cities):
                for sym in node.markers:
                    out.append((hid, ci, sym))
        return tuple(out)

    # -- network --------------------------------------------------------------------
    def city_blocks(
        self, board: Board, hex_id: str, city_index: int, entity: str, tokens: list[str], slots: int
    ) -> bool:
        """Whether a city stops ``entity``'s network: all ``slots`` filled by others' tokens.

        A token of the entity or a neutral token (:attr:`NEUTRAL_TOKENS`) lets it pass.
        """
        if entity in tokens or len(tokens) < slots:
            return False
        return not any(t in self.NEUTRAL_TOKENS for t in tokens)

    # -- upgrades -------------------------------------------------------------------
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
        """Whether ``new`` may replace ``old`` on ``hex_id`` (None: off the map).

        ``special``: a private company's lay (skips label/city checks);
        ``company``: the private whose ability is used; ``phase``: phase name.
        Default: :func:`rhineland.board.upgrades.generic_upgrades_to`.
        """
        return generic_upgrades_to(old, new, special=special)

    def can_upgrade(
        self,
        hex_id: str | None,
        old: Tile,
        new: Tile,
        *,
        special: bool = False,
        company: str | None = None,
        phase: str | None = None,
    ) -> bool:
        """:meth:`upgrades_to`, memoised (the answer depends only on its arguments)."""
        key = (hex_id, id(old), id(new), special, company, phase)
        got = self._upgrade_memo.get(key)
        if got is None:
            got = self.upgrades_to(hex_id, old, new, special=special, company=company, phase=phase)
            self._upgrade_memo[key] = got
        return got

    def upgrade_targets(self, hex_id: str, old: Tile, phase: str | None) -> tuple[Tile, ...]:
        """The manifest tiles (``self.data.tiles``, in manifest order) a normal lay may put
        on ``hex_id`` in place of ``old`` in ``phase`` by :meth:`can_upgrade`, memoised
        (supply and phase colours are not looked at; one answer for all the hexes
        outside :attr:`upgrade_hexes`)."""
        apart = self.upgrade_hexes is None or hex_id in self.upgrade_hexes
        key = (hex_id if apart else None, id(old), phase)
        got = self._targets_memo.get(key)
        if got is None:
            got = tuple(new for new in self.data.tiles.values()
                        if self.can_upgrade(hex_id, old, new, phase=phase))
            self._targets_memo[key] = got
        return got

    def manifest_upgrades(self, tile: Tile) -> tuple[str, ...]:
        """Extra names the tile manifest lists as upgrades of ``tile`` (default none)."""
        return ()

    def hex_blocker(self, ctx: LayContext, hex_id: str, actor: str) -> str | None:
        """The private company blocking lays on ``hex_id`` for ``actor``, or None.

        Default: an open, player-owned private with an unused ``blocks_hexes``
        ability listing the hex.
        """
        for sym in self._blockers.get(hex_id, ()):
            st = ctx.privates.get(sym)
            if st is None or st.closed or st.used or st.owner is None:
                continue
            if sym == actor:
                continue
            if self.blocker_exempt(ctx, sym, st, hex_id, actor):
                continue
            return sym
        return None

    def blocker_exempt(
        self, ctx: LayContext, blocker: str, state: PrivateState, hex_id: str, actor: str
    ) -> bool:
        """Whether ``actor`` may lay on ``hex_id`` despite ``blocker`` (default: never)."""
        return False

    def rotation_allowed(self, ctx: LayContext, hex_id: str, new: TileGeometry) -> bool:
        """Title-level rotation rule; default: the new tile uses every stub of the hex."""
        stubs = self.data.map.hexes[hex_id].stubs
        return all(s in new.exits for s in stubs)

    def rotation_key(self, ctx: LayContext) -> Hashable:
        """What of ``ctx`` :meth:`rotation_allowed` reads besides the hex, the tile and the
        title data (default: nothing): part of the key of :attr:`rotations_memo`, so a
        title whose rule reads more of the context says so here."""
        return None

    def fixed_rotation(self, ctx: LayContext, hex_id: str, new: Tile) -> int | None:
        """A rotation offered instead of the geometric checks (default None: check)."""
        return None

    def skip_track_restriction(self, old: Tile, new: Tile) -> bool:
        """Upgrades exempt from the track checks of an upgrade: the old towns' and
        cities' track kept, and the "use new track" restriction (default none)."""
        return False

    def lay_cost(self, ctx: LayContext, hex_id: str, old: Tile, new: Tile) -> int:
        """Cost in M of a paid lay: the terrain costs printed on the replaced tile."""
        return old.terrain_cost

    # -- private companies --------------------------------------------------------
    def special_abilities(self, ctx: LayContext) -> list[SpecialAbility]:
        """Tile-lay/teleport abilities usable now by ``ctx.entity``'s president.

        Default: open privates owned by the president with an unused
        ``tile_lay``/``teleport`` ability.
        """
        out: list[SpecialAbility] = []
        if ctx.president is None:
            return out
        for p in self.data.privates:
            st = ctx.privates.get(p.sym)
            if st is None or st.closed or st.used or st.owner != ctx.president:
                continue
            for ab in p.abilities:
                kind = ab.get("type")
                if kind not in ("tile_lay", "teleport"):
                    continue
                out.append(
                    SpecialAbility(
                        company=p.sym,
                        kind=str(kind),
                        hexes=tuple(ab.get("hexes", ())),
                        tiles=tuple(ab.get("tiles", ())),
                        special=bool(ab.get("special", False)) if kind == "tile_lay" else False,
                        free=bool(ab.get("free", ab.get("free_tile_lay", False))),
                        reachable=bool(ab.get("reachable", False)) if kind == "tile_lay" else False,
                    )
                )
                break
        return out

    def special_offered(
        self, ctx: LayContext, ability: SpecialAbility, hex_id: str, old: Tile
    ) -> list[Tile]:
        """Tiles a private's ability offers on ``hex_id`` (before rotations).

        Default: the ability's tiles with an unused copy, of a colour the phase
        allows, that upgrade the hex (with the ability's ``special`` flag).
        """
        out = []
        for name in ability.tiles:
            t = ctx.data.tiles.get(name)
            if t is None or not ctx.board.supply.get(name):
                continue
            if t.color not in ctx.tile_colors:
                continue
            if self.can_upgrade(
                hex_id, old, t, special=ability.special, company=ability.company, phase=ctx.phase
            ):
                out.append(t)
        return out

    def special_rotations(
        self, ctx: LayContext, ability: SpecialAbility, hex_id: str, new: Tile
    ) -> tuple[int, ...] | None:
        """Rotations offered for a private's lay instead of the checks (default None)."""
        return None

    def special_refusal(self, ctx: LayContext, ability: SpecialAbility, new: Tile) -> str | None:
        """A title's reason to refuse a private's lay (default None)."""
        return None

    # -- tokens ----------------------------------------------------------------------
    def teleport_token_hexes(self, company: str) -> tuple[str, ...]:
        """Hexes where a token may follow ``company``'s teleport lay (its ability's hexes)."""
        for p in self.data.privates:
            if p.sym == company:
                ab = p.ability("teleport")
                if ab is not None:
                    return tuple(ab.get("hexes", ()))
        return ()

    def teleport_token_price(self, company: str, price: int) -> int:
        """Price in M of the token after a teleport (default: free)."""
        return 0

    def reservations(self, board: Board, hex_id: str, city_index: int) -> tuple[str, ...]:
        """Corporations holding a reserved slot (home) in this city, not yet tokened there.

        Reservations are printed on the preprinted tile; after upgrades they
        follow the city whose edges contain the old city's edges.
        """
        spec = self.data.map.hexes[hex_id]
        placed = board.tiles[hex_id]
        base = spec.tile
        in_hex = {s for (h, _), syms in board.tokens.items() if h == hex_id for s in syms}
        out: list[str] = []
        base_cities = base.cities
        if placed.tile is base:
            if city_index < len(base_cities):
                out = [r for r in base_cities[city_index].reserved if r not in in_hex]
            return tuple(out)
        new_geom = geometry(placed.tile, placed.rotation)
        base_geom = geometry(base, 0)
        for bi, node in enumerate(base_cities):
            if not node.reserved:
                continue
            target = _follow_city(base_geom, bi, new_geom)
            if target == city_index:
                out.extend(r for r in node.reserved if r not in in_hex)
        return tuple(out)


def _follow_city(old: TileGeometry, old_index: int, new: TileGeometry) -> int:
    """Index of the new tile's city that takes old city ``old_index``'s tokens."""
    if len(new.cities) <= 1:
        return 0
    edges = old.node_exits.get(old.cities[old_index], frozenset())
    if edges:
        for i, part in enumerate(new.cities):
            if edges <= new.node_exits.get(part, frozenset()):
                return i
    return min(old_index, len(new.cities) - 1)


def remap_tokens(board: Board, hex_id: str, new: Tile, rotation: int) -> dict[int, list[str]]:
    """Tokens of ``hex_id`` re-seated on ``new`` at ``rotation``: new city index -> syms."""
    placed = board.tiles[hex_id]
    old_geom = placed.geometry
    out: dict[int, list[str]] = {}
    if not old_geom.cities:
        return out  # tokens sit in cities: none here
    new_geom = geometry(new, rotation)
    for (h, ci), syms in board.tokens.items():
        if h != hex_id or not syms:
            continue
        out.setdefault(_follow_city(old_geom, ci, new_geom), []).extend(syms)
    return out
