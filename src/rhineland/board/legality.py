"""Legal tile lays and token placements for the entity that is operating.

The engine fills a :class:`LayContext` (plain fields: board, title data, the
title's :class:`BoardRules`, the acting corporation/minor, phase, cash in M,
the private companies' state) and calls:

* :func:`legal_tile_lays` -> every legal :class:`Lay` (normal lays and the
  special lays of private companies usable now);
* :func:`check_tile_lay` -> the cost in M of one lay, or :class:`GameError`;
* :func:`legal_tokens` -> every legal :class:`TokenSpot`;
* :func:`check_token` -> the token price in M, or :class:`GameError`.

A lay is legal when the usual 18xx track rules allow it (the reference engine
tobymao/18xx is the rule source; see each check's ``rule`` name):

``track.hex``        the hex is on the map and not blocked by a private company;
``track.connected``  (normal lays) the hex is reached by the entity's network;
``track.supply``     an unused copy of the tile exists;
``track.phase``      the tile's colour is allowed in the current phase;
``track.upgrade``    the tile may replace the hex's tile (:mod:`rhineland.board.upgrades`
                     plus title exceptions in :meth:`BoardRules.upgrades_to`);
``track.rotation``   every exit leads to a hex track may enter, one exit touches the
                     network (or any neighbour for private lays), old track and
                     cities are kept, stubs are used, title hooks;
``track.restriction`` (corporations/minors) "semi-restrictive": towns/cities keep
                     their edges, and the new tile must add track the network
                     uses or change the value of a city it reaches;
``track.cash``       the terrain cost (M) is affordable.

Title differences are hooks of :class:`BoardRules`; each title subclasses it in
``titles/<title>/board_rules.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn

from rhineland.board.board import Board
from rhineland.board.graph import Connectivity, compute_connectivity, connectivity, hex_links
from rhineland.board.tiles import Tile
from rhineland.board.upgrades import (
    TileGeometry,
    generic_upgrades_to,
    geometry,
    paths_within,
)
from rhineland.engine.titledata import TitleData
from rhineland.errors import GameError

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


class BoardRules:
    """Tile and token rules with the common 18xx defaults; titles override hooks.

    Built once per title and option set: ``BoardRules(title.data)``.
    """

    NEUTRAL_TOKENS: frozenset[str] = frozenset()
    """Token symbols that never block a city (e.g. a printed "open city" marker)."""

    def __init__(self, data: TitleData) -> None:
        self.data = data
        self.first_phase = data.phases[0].name if data.phases else ""
        self.restriction = str(data.rules.get("track_restriction", "semi_restrictive"))
        self._upgrade_memo: dict[tuple[object, ...], bool] = {}

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

    def manifest_upgrades(self, tile: Tile) -> tuple[str, ...]:
        """Extra names the tile manifest lists as upgrades of ``tile`` (default none)."""
        return ()

    def hex_blocker(self, ctx: LayContext, hex_id: str, actor: str) -> str | None:
        """The private company blocking lays on ``hex_id`` for ``actor``, or None.

        Default: an open, player-owned private with an unused ``blocks_hexes``
        ability listing the hex.
        """
        for p in self.data.privates:
            ab = p.ability("blocks_hexes")
            if ab is None or hex_id not in ab.get("hexes", ()):
                continue
            st = ctx.privates.get(p.sym)
            if st is None or st.closed or st.used or st.owner is None:
                continue
            if p.sym == actor:
                continue
            if self.blocker_exempt(ctx, p.sym, st, hex_id, actor):
                continue
            return p.sym
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

    def fixed_rotation(self, ctx: LayContext, hex_id: str, new: Tile) -> int | None:
        """A rotation offered instead of the geometric checks (default None: check)."""
        return None

    def skip_track_restriction(self, old: Tile, new: Tile) -> bool:
        """Upgrades exempt from the "use new track" restriction (default none)."""
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
            if self.can_upgrade(hex_id, old, t, special=ability.special, company=ability.company,
                                phase=ctx.phase):
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

    def teleport_token_price(self, ctx: LayContext, company: str, price: int) -> int:
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
    old_geom = geometry(placed.tile, placed.rotation)
    new_geom = geometry(new, rotation)
    out: dict[int, list[str]] = {}
    for (h, ci), syms in board.tokens.items():
        if h != hex_id or not syms:
            continue
        out.setdefault(_follow_city(old_geom, ci, new_geom), []).extend(syms)
    return out


# -- tile lays --------------------------------------------------------------------------


def _ct_checks(old: TileGeometry, new: TileGeometry) -> bool:
    """Old track kept, no city appears from nowhere, multi-city tiles keep their cities."""
    if not paths_within(old.paths, new.paths):
        return False
    old_ct = [e for _, e in old.ct_edges]
    new_ct = [e for _, e in new.ct_edges]
    extra = max(0, len(new_ct) - len(old_ct))
    fresh = sum(1 for n in new_ct if all(not (n & o) for o in old_ct))
    if fresh > extra:
        return False
    if len(new.cities) > 1 and len(old.cities) > 1:
        return all(sum(1 for n in new_ct if o <= n) == 1 for o in old_ct)
    return True


def _rotation_ok(
    ctx: LayContext, hex_id: str, new_tile: Tile, rotation: int, reach: Iterable[int]
) -> bool:
    links = hex_links(ctx.board.spec)[hex_id]
    placed = ctx.board.tiles[hex_id]
    new = geometry(new_tile, rotation)
    if not ctx.rules.rotation_allowed(ctx, hex_id, new):
        return False
    if any(e not in links for e in new.exits):
        return False
    reach_set = set(reach)
    if not any(e in reach_set for e in new.exits):
        return False
    return _ct_checks(geometry(placed.tile, placed.rotation), new)


def _restriction_error(ctx: LayContext, hex_id: str, new_tile: Tile, rotation: int) -> str | None:
    """The "semi-restrictive" track rule for a corporation/minor's upgrade (None: ok)."""
    placed = ctx.board.tiles[hex_id]
    old = geometry(placed.tile, placed.rotation)
    new = geometry(new_tile, rotation)
    # towns and cities keep (at least) their edges
    old_nodes = old.cities + old.towns
    new_nodes = new.cities + new.towns
    for part in old_nodes:
        oe = old.node_exits.get(part, frozenset())
        if not any(oe <= new.node_exits.get(n, frozenset()) for n in new_nodes):
            return "new track must keep every town and city's track"
    if ctx.rules.skip_track_restriction(placed.tile, new_tile):
        return None
    if ctx.rules.restriction == "permissive":
        return None
    if not old.paths:
        return None
    # paths that would count as new track / a changed city if the network uses them
    fresh: list[int] = []
    for i, np_ in enumerate(new.paths):
        op = next((p for p in old.paths if np_.within(p)), None)
        if op is None:
            fresh.append(i)
            continue
        if ctx.rules.restriction == "restrictive":
            continue
        old_rev = sorted(_max_revenue(placed.tile, n) for n in op.nodes)
        new_rev = sorted(_max_revenue(new_tile, n) for n in np_.nodes)
        if old_rev != new_rev:
            fresh.append(i)
    if _walks_any(ctx, hex_id, new_tile, rotation, fresh):
        return None
    if ctx.rules.restriction == "restrictive":
        return "must use new track"
    return "must use new track or change city value"


def _max_revenue(tile: Tile, part: int) -> int:
    rev = tile.node(part).revenue
    if isinstance(rev, int):
        return rev
    return max(rev.values(), default=0)


def _normal_candidates(
    ctx: LayContext, hex_id: str, conn: Connectivity, only: tuple[str, int] | None = None
) -> list[Lay]:
    """Normal lays on one hex: offered (phase colours, rotations) and accepted.

    ``only`` = ``(tile name, rotation)`` checks just that lay (same rules, less work).
    """
    rules = ctx.rules
    reach = conn.hexes.get(hex_id)
    if reach is None or rules.hex_blocker(ctx, hex_id, ctx.entity) is not None:
        return []
    placed = ctx.board.tiles[hex_id]
    old = placed.tile
    out: list[Lay] = []
    for name, copies in ctx.board.supply.items():
        if not copies or (only is not None and name != only[0]):
            continue
        new = ctx.data.tiles[name]
        if new.color not in ctx.tile_colors:
            continue
        if not rules.can_upgrade(hex_id, old, new, phase=ctx.phase):
            continue
        fixed = rules.fixed_rotation(ctx, hex_id, new)
        rotations: Iterable[int]
        wanted = range(6) if only is None else (only[1],)
        if fixed is not None:
            rotations = (fixed,) if fixed in wanted else ()
        else:
            rotations = [r for r in wanted if _rotation_ok(ctx, hex_id, new, r, reach)]
        cost = rules.lay_cost(ctx, hex_id, old, new)
        if cost > ctx.cash:
            continue
        for r in rotations:
            if _restriction_error(ctx, hex_id, new, r) is None:
                out.append(Lay(hex_id, name, r, cost))
    return out


def _special_candidates(ctx: LayContext, ability: SpecialAbility, hex_id: str) -> list[Lay]:
    """A private's lays on one hex: offered (its tiles, phase colours) and accepted."""
    rules = ctx.rules
    if hex_id not in ctx.data.map.hexes:
        return []
    if rules.hex_blocker(ctx, hex_id, ability.company) is not None:
        return []
    if ability.reachable and hex_id not in ctx.connectivity().hexes:
        return []
    placed = ctx.board.tiles[hex_id]
    links = hex_links(ctx.board.spec)[hex_id]
    out: list[Lay] = []
    for new in rules.special_offered(ctx, ability, hex_id, placed.tile):
        if not rules.can_upgrade(hex_id, placed.tile, new, special=True, company=ability.company,
                                 phase=ctx.phase):
            continue
        if rules.special_refusal(ctx, ability, new) is not None:
            continue
        fixed = rules.special_rotations(ctx, ability, hex_id, new)
        if fixed is not None:
            rotations: Iterable[int] = fixed
        else:
            rotations = [r for r in range(6) if _rotation_ok(ctx, hex_id, new, r, links)]
        cost = 0 if ability.free else rules.lay_cost(ctx, hex_id, placed.tile, new)
        if cost > ctx.cash:
            continue
        for r in rotations:
            if ability.reachable and not _joins_network(ctx, hex_id, new, r):
                continue
            out.append(Lay(hex_id, new.name, r, cost, ability.company))
    return out


def _joins_network(ctx: LayContext, hex_id: str, new_tile: Tile, rotation: int) -> bool:
    """Whether some track of ``new_tile`` laid on ``hex_id`` is walked by the entity's network."""
    every = range(len(geometry(new_tile, rotation).paths))
    return _walks_any(ctx, hex_id, new_tile, rotation, every)


def _walks_any(
    ctx: LayContext, hex_id: str, new_tile: Tile, rotation: int, indices: Iterable[int]
) -> bool:
    """With ``new_tile`` laid on ``hex_id``, does the network walk one of these of its paths?"""
    targets = frozenset((hex_id, i) for i in indices)
    if not targets:
        return False
    seats = remap_tokens(ctx.board, hex_id, new_tile, rotation)
    conn = compute_connectivity(
        ctx.board, ctx.entity, ctx.rules, override=(hex_id, new_tile, rotation % 6, seats),
        stop_at=targets,
    )
    return bool(targets & conn.paths)


def legal_tile_lays(ctx: LayContext) -> list[Lay]:
    """Every legal tile lay for ``ctx.entity`` now, sorted by hex, tile, rotation, special.

    Includes the special lays of the private companies its president may use
    (``Lay.special`` names the company).  See the module docstring for the rules.
    """
    conn = ctx.connectivity()
    out: list[Lay] = []
    for hex_id in ctx.data.map.hexes:
        if hex_id in conn.hexes:
            out.extend(_normal_candidates(ctx, hex_id, conn))
    for ability in ctx.rules.special_abilities(ctx):
        for hex_id in ability.hexes:
            out.extend(_special_candidates(ctx, ability, hex_id))
    out.sort()
    return out


def check_tile_lay(
    ctx: LayContext, hex_id: str, tile_name: str, rotation: int, special: str | None = None
) -> int:
    """Cost in M of laying ``tile_name`` at ``rotation`` (0..5) on ``hex_id``.

    ``special``: the private company whose ability makes the lay (None: a
    normal lay).  A lay passes exactly when :func:`legal_tile_lays` lists it.
    Raises :class:`GameError` naming the broken rule (module docstring).
    """
    if hex_id not in ctx.data.map.hexes:
        raise GameError(f"no hex {hex_id!r} on the map", "track.hex")
    new = ctx.data.tiles.get(tile_name)
    if new is None:
        raise GameError(f"tile {tile_name} is not in the {ctx.data.title} manifest", "track.tile")
    if not ctx.board.supply.get(tile_name):
        raise GameError(f"no unused copy of tile {tile_name} is left", "track.supply")
    rotation %= 6
    blocker = ctx.rules.hex_blocker(ctx, hex_id, special or ctx.entity)
    if blocker is not None:
        raise GameError(f"{hex_id} is blocked by {blocker}", "track.hex")
    if special:
        ability = next((a for a in ctx.rules.special_abilities(ctx) if a.company == special), None)
        if ability is None:
            raise GameError(
                f"{special} has no map ability {ctx.entity}'s president may use now",
                "track.private",
            )
        if hex_id not in ability.hexes:
            raise GameError(
                f"{special} lays only on {', '.join(ability.hexes)}, not {hex_id}", "track.private"
            )
        lays = _special_candidates(ctx, ability, hex_id)
    else:
        conn = ctx.connectivity()
        if hex_id not in conn.hexes:
            raise GameError(
                f"{hex_id} is not connected to {ctx.entity}'s network", "track.connected"
            )
        lays = _normal_candidates(ctx, hex_id, conn, only=(tile_name, rotation))
    for lay in lays:
        if lay.tile == tile_name and lay.rotation == rotation:
            return lay.cost
    _explain(ctx, hex_id, new, rotation, special)


def _explain(
    ctx: LayContext, hex_id: str, new: Tile, rotation: int, special: str | None
) -> NoReturn:
    """Raise the :class:`GameError` that says why a lay is not legal."""
    rules = ctx.rules
    placed = ctx.board.tiles[hex_id]
    old = placed.tile
    what = f"tile {new.name} rotation {rotation} on {hex_id} (now {old.name})"
    ability = next((a for a in rules.special_abilities(ctx) if a.company == special), None)
    if ability is not None:
        if all(t.name != new.name for t in rules.special_offered(ctx, ability, hex_id, old)):
            raise GameError(
                f"{what}: not a tile {special} may lay there in phase {ctx.phase} "
                f"(its tiles: {', '.join(ability.tiles)})",
                "track.private",
            )
        refusal = rules.special_refusal(ctx, ability, new)
        if refusal is not None:
            raise GameError(f"{what}: {refusal}", "track.private")
        reach: Iterable[int] = hex_links(ctx.board.spec)[hex_id]
    else:
        if new.color not in ctx.tile_colors:
            raise GameError(
                f"{what}: {new.color} tiles are not allowed in phase {ctx.phase} "
                f"(allowed: {', '.join(ctx.tile_colors)})",
                "track.phase",
            )
        reach = ctx.connectivity().hexes.get(hex_id, frozenset())
    if not rules.can_upgrade(hex_id, old, new, special=special is not None, company=special,
                             phase=ctx.phase):
        raise GameError(f"{what}: {old.name} does not upgrade to {new.name}", "track.upgrade")
    cost = 0 if ability is not None and ability.free else rules.lay_cost(ctx, hex_id, old, new)
    if cost > ctx.cash:
        raise GameError(f"{what}: costs {cost}M but {ctx.entity} has {ctx.cash}M", "track.cash")
    fixed: Iterable[int] | None
    if ability is not None:
        fixed = rules.special_rotations(ctx, ability, hex_id, new)
    else:
        one = rules.fixed_rotation(ctx, hex_id, new)
        fixed = None if one is None else (one,)
    if fixed is not None and rotation not in fixed:
        raise GameError(
            f"{what}: only rotation {', '.join(map(str, fixed))} is offered there", "track.rotation"
        )
    if fixed is None and not _rotation_ok(ctx, hex_id, new, rotation, reach):
        raise GameError(
            f"{what}: not a legal rotation (new exits {sorted(geometry(new, rotation).exits)}, "
            f"must reach one of {sorted(reach)}, keep the old track and cities, "
            "and lead only to hexes track may enter)",
            "track.rotation",
        )
    if ability is not None:
        raise GameError(f"{what}: the new track does not join the network", "track.connected")
    err = _restriction_error(ctx, hex_id, new, rotation)
    raise GameError(f"{what}: {err or 'not a legal lay'}", "track.restriction")


# -- tokens -----------------------------------------------------------------------------


def _token_error(
    ctx: LayContext, hex_id: str, city_index: int, conn: Connectivity | None
) -> str | None:
    """Why the next token may not go there (None: it may); ``conn`` None skips connection."""
    board = ctx.board
    placed = board.tiles[hex_id]
    cities = placed.tile.cities
    if city_index < 0 or city_index >= len(cities):
        return f"{hex_id} has no city {city_index}"
    if ctx.next_token_price is None:
        return f"{ctx.entity} has no tokens left"
    if conn is not None and not conn.city_connected(board, hex_id, city_index):
        return f"city {city_index} of {hex_id} is not connected to {ctx.entity}'s network"
    tokens = board.tokens_in(hex_id, city_index)
    reserved = ctx.rules.reservations(board, hex_id, city_index)
    free = cities[city_index].slots - len(tokens) - len(reserved)
    if ctx.entity not in reserved and free <= 0:
        return f"no free token slot in city {city_index} of {hex_id}"
    price = _token_price(ctx)
    if price > ctx.cash:
        return f"the token costs {price}M but {ctx.entity} has {ctx.cash}M"
    for ci in range(len(cities)):
        if ctx.entity in board.tokens_in(hex_id, ci):
            return f"{ctx.entity} already has a token on {hex_id}"
    return None


def _token_price(ctx: LayContext) -> int:
    price = ctx.next_token_price or 0
    if ctx.teleported:
        return ctx.rules.teleport_token_price(ctx, ctx.teleported, price)
    return price


def _token_hexes(ctx: LayContext) -> tuple[list[str], Connectivity | None]:
    """Candidate hexes for the next token, and the network to check (None: teleport)."""
    if ctx.teleported:
        hexes = [h for h in ctx.rules.teleport_token_hexes(ctx.teleported) if h in ctx.board.tiles]
        return hexes, None
    conn = ctx.connectivity()
    return sorted({h for h, _ in conn.nodes}), conn


def legal_tokens(ctx: LayContext) -> list[TokenSpot]:
    """Every city where ``ctx.entity`` may place its next token now, with the price in M.

    Normally a city its network reaches; right after a teleport lay
    (``ctx.teleported``) a city in that ability's hexes, connected or not.
    """
    out: list[TokenSpot] = []
    if ctx.next_token_price is None:
        return out
    hexes, conn = _token_hexes(ctx)
    price = _token_price(ctx)
    for hex_id in hexes:
        n = len(ctx.board.tiles[hex_id].tile.cities)
        for ci in range(n):
            if _token_error(ctx, hex_id, ci, conn) is None:
                out.append(TokenSpot(hex_id, ci, price))
    out.sort()
    return out


def check_token(ctx: LayContext, hex_id: str, city_index: int) -> int:
    """Price in M of placing ``ctx.entity``'s next token in city ``city_index`` of ``hex_id``.

    Raises :class:`GameError` (rule ``token.place``) when the city is not
    connected (or, after a teleport, not in the ability's hexes), full,
    reserved for others, the entity already has a token in that hex, or it
    cannot pay.
    """
    if hex_id not in ctx.data.map.hexes:
        raise GameError(f"no hex {hex_id!r} on the map", "token.place")
    hexes, conn = _token_hexes(ctx)
    if conn is None and hex_id not in hexes:
        raise GameError(
            f"after {ctx.teleported}'s teleport a token may go only on {', '.join(hexes)}",
            "token.place",
        )
    err = _token_error(ctx, hex_id, city_index, conn)
    if err is not None:
        raise GameError(err, "token.place")
    return _token_price(ctx)
