"""Legal tile lays: :func:`legal_tile_lays` lists them, :func:`check_tile_lay` checks one
(the rule names are listed in :mod:`rhineland.board.legality`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NoReturn, TypeVar

from rhineland.board.board import PlacedTile
from rhineland.board.graph import (
    Connectivity,
    compute_connectivity,
    hex_links,
    known_connectivity,
    may_walk_any,
    remember_connectivity,
)
from rhineland.board.hexgrid import OPPOSITE
from rhineland.board.legality.rules import (
    BoardRules,
    Lay,
    LayContext,
    SpecialAbility,
    remap_tokens,
)
from rhineland.board.tiles import Tile
from rhineland.board.upgrades import (
    TileGeometry,
    geometry,
    paths_within,
)
from rhineland.errors import GameError

# -- tile lays --------------------------------------------------------------------------

_K = TypeVar("_K")
_V = TypeVar("_V")


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
    """An exit on the network (``reach``: edges it touches), the title's rotation rule
    and :func:`_fits` (each a pure check: the cheapest first)."""
    new = geometry(new_tile, rotation)
    if new.exits.isdisjoint(reach):
        return False
    if not ctx.rules.rotation_allowed(ctx, hex_id, new):
        return False
    return _fits(ctx, hex_id, new_tile, rotation)


def _rotations(ctx: LayContext, hex_id: str, placed: PlacedTile, new_tile: Tile,
               reach: frozenset[int]) -> tuple[int, ...]:
    """The rotations of ``new_tile`` on ``hex_id`` (now ``placed``) that pass
    :func:`_rotation_ok` with the network touching the hex's edges ``reach``: memoised by
    the rules (:attr:`~rhineland.board.legality.rules.BoardRules.rotations_memo`; the
    rotation rule's part of the context is :meth:`rotation_key`)."""
    rules = ctx.rules
    key = (hex_id, id(placed.tile), placed.rotation, id(new_tile), reach,
           rules.rotation_key(ctx))
    memo = rules.rotations_memo
    got = memo.get(key)
    if got is None:
        got = memo[key] = tuple(
            r for r in range(6) if _rotation_ok(ctx, hex_id, new_tile, r, reach))
    return got


def _fits(ctx: LayContext, hex_id: str, new_tile: Tile, rotation: int) -> bool:
    """Whether ``new_tile`` at ``rotation`` fits ``hex_id`` as the map and the tile there
    stand: every exit leads where track may cross, the old track and cities kept
    (:func:`_ct_checks`).  Depends on those alone: memoised by the rules."""
    placed = ctx.board.tiles[hex_id]
    key = (hex_id, id(placed.tile), placed.rotation, id(new_tile), rotation)
    memo = ctx.rules.fits_memo
    got = memo.get(key)
    if got is None:
        links = hex_links(ctx.board.spec)[hex_id]
        new = geometry(new_tile, rotation)
        got = all(e in links for e in new.exits) and _keeps(
            placed.tile, placed.rotation, new_tile, rotation)
        memo[key] = got
    return got


_KEEPS: dict[tuple[int, int, int, int], bool] = {}
"""Answers of :func:`_keeps` by ``(id(old tile), old rotation, id(new tile), rotation)``
(the tiles held in :data:`_KEPT_ALIVE`)."""


def _keeps(old_tile: Tile, old_rotation: int, new_tile: Tile, rotation: int) -> bool:
    """:func:`_ct_checks` of the two rotated tiles, memoised (it looks at them alone: the
    same on every hex)."""
    key = (id(old_tile), old_rotation, id(new_tile), rotation)
    got = _KEEPS.get(key)
    if got is not None:
        return got
    answer = _ct_checks(geometry(old_tile, old_rotation), geometry(new_tile, rotation))
    _remember(_KEEPS, key, answer, old_tile, new_tile)
    return answer


_RESTRICTION_MEMO: dict[tuple[int, str, str, int, int, int], str | None] = {}
"""Answers of :func:`_restriction_error` by ``(board.version, entity, hex, id(rules),
id(new tile), rotation)`` (the rules and the tile held in :data:`_KEPT_ALIVE`).  The
answer depends on the board's tiles and tokens (a version is unique across all boards
and clones and renewed on every change), the entity and the rules alone; a position
looked at again (a legal-action listing after a non-blocking action, a random player's
draw, a trial's copy) asks again.  Emptied when it grows past :data:`_RESTRICTION_MEMO_SIZE`."""

_KEPT_ALIVE: dict[int, object] = {}
"""The objects (rules, tiles) whose ``id`` is part of a key of :data:`_RESTRICTION_MEMO`,
:data:`_NEW_TRACK` or :data:`_KEEPS`, held so that no other object takes that ``id`` while
a key names it (an entry found was made for the very objects asking).  The memos' keys
and answers are then plain values, which the garbage collector does not look through
(their tuples of strings and numbers are untracked): thousands of entries cost a full
collection nothing.  Emptied with the memos (:func:`_remember`)."""

_MISSING = object()

_RESTRICTION_MEMO_SIZE = 50_000


def _restriction_error(ctx: LayContext, hex_id: str, new_tile: Tile, rotation: int) -> str | None:
    """The "semi-restrictive" track rule for a corporation/minor's upgrade (None: ok),
    memoised (:data:`_RESTRICTION_MEMO`)."""
    key = (ctx.board.version, ctx.entity, hex_id, id(ctx.rules), id(new_tile), rotation)
    got = _RESTRICTION_MEMO.get(key, _MISSING)
    if got is not _MISSING:
        return got  # type: ignore[return-value]
    answer = _restriction_refusal(ctx, hex_id, new_tile, rotation)
    _remember(_RESTRICTION_MEMO, key, answer, ctx.rules, new_tile)
    return answer


def _remember(memo: dict[_K, _V], key: _K, answer: _V, *named: object) -> None:
    """Enter ``answer`` in one of the memos keyed by ``id`` (:data:`_KEPT_ALIVE`), holding
    the ``named`` objects whose ids ``key`` holds; every such memo is emptied when one
    grows past :data:`_RESTRICTION_MEMO_SIZE`."""
    if len(memo) >= _RESTRICTION_MEMO_SIZE:
        _RESTRICTION_MEMO.clear()
        _NEW_TRACK.clear()
        _KEEPS.clear()
        _KEPT_ALIVE.clear()
    for obj in named:
        _KEPT_ALIVE[id(obj)] = obj
    memo[key] = answer


def _restriction_refusal(ctx: LayContext, hex_id: str, new_tile: Tile,
                         rotation: int) -> str | None:
    """:func:`_restriction_error` worked out: the tiles' part
    (:func:`_new_track`), then the walk."""
    placed = ctx.board.tiles[hex_id]
    fresh = _new_track(ctx.rules, placed.tile, placed.rotation, new_tile, rotation)
    if fresh is None or isinstance(fresh, str):
        return fresh
    if _walks_any(ctx, hex_id, new_tile, rotation, fresh):
        return None
    if ctx.rules.restriction == "restrictive":
        return "must use new track"
    return "must use new track or change city value"


_NEW_TRACK: dict[tuple[int, int, int, int, int], str | tuple[int, ...] | None] = {}
"""Answers of :func:`_new_track` by ``(id(rules), id(old tile), old rotation, id(new
tile), rotation)`` (the objects held in :data:`_KEPT_ALIVE`)."""


def _new_track(rules: BoardRules, old_tile: Tile, old_rotation: int, new_tile: Tile,
               rotation: int) -> str | tuple[int, ...] | None:
    """The track restriction's part that looks at the two tiles alone (memoised):
    ``None`` when the upgrade passes whatever the network (exempt, permissive, no old
    track), a refusal when it breaks a town's or city's track, else the indices of the
    new tile's paths that count as new track (or a changed city, semi-restrictive):
    the upgrade passes when the network walks one of them."""
    key = (id(rules), id(old_tile), old_rotation, id(new_tile), rotation)
    got = _NEW_TRACK.get(key, _MISSING)
    if got is not _MISSING:
        return got  # type: ignore[return-value]
    answer = _tiles_new_track(rules, old_tile, old_rotation, new_tile, rotation)
    _remember(_NEW_TRACK, key, answer, rules, old_tile, new_tile)
    return answer


def _tiles_new_track(rules: BoardRules, old_tile: Tile, old_rotation: int, new_tile: Tile,
                     rotation: int) -> str | tuple[int, ...] | None:
    """:func:`_new_track` worked out."""
    if rules.skip_track_restriction(old_tile, new_tile):
        return None  # exempt from the whole rule, the towns' and cities' track included
    old = geometry(old_tile, old_rotation)
    new = geometry(new_tile, rotation)
    # towns and cities keep (at least) their edges
    old_nodes = old.cities + old.towns
    new_nodes = new.cities + new.towns
    for part in old_nodes:
        oe = old.node_exits.get(part, frozenset())
        if not any(oe <= new.node_exits.get(n, frozenset()) for n in new_nodes):
            return "new track must keep every town and city's track"
    if rules.restriction == "permissive":
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
        if rules.restriction == "restrictive":
            continue
        old_rev = sorted(_max_revenue(old_tile, n) for n in op.nodes)
        new_rev = sorted(_max_revenue(new_tile, n) for n in np_.nodes)
        if old_rev != new_rev:
            fresh.append(i)
    return tuple(fresh)


def _max_revenue(tile: Tile, part: int) -> int:
    rev = tile.node(part).revenue
    if isinstance(rev, int):
        return rev
    return max(rev.values(), default=0)


def _normal_candidates(
    ctx: LayContext, hex_id: str, conn: Connectivity, only: tuple[str, int] | None = None,
    restricted: bool = True, afford: bool = True,
) -> list[Lay]:
    """Normal lays on one hex: offered (phase colours, rotations) and accepted.

    ``only`` = ``(tile name, rotation)`` checks just that lay (same rules, less work);
    ``restricted`` False leaves out the last check, the track restriction
    (:func:`passes_restriction`); ``afford`` False keeps the lays costing more than
    ``ctx.cash``.
    """
    rules = ctx.rules
    reach = conn.hexes.get(hex_id)
    if reach is None or rules.hex_blocker(ctx, hex_id, ctx.entity) is not None:
        return []
    placed = ctx.board.tiles[hex_id]
    old = placed.tile
    out: list[Lay] = []
    supply = ctx.board.supply
    for new in rules.upgrade_targets(hex_id, old, ctx.phase):
        name = new.name
        if not supply.get(name) or (only is not None and name != only[0]):
            continue
        if new.color not in ctx.tile_colors:
            continue
        fixed = rules.fixed_rotation(ctx, hex_id, new)
        rotations: Iterable[int]
        wanted = range(6) if only is None else (only[1],)
        if fixed is not None:
            rotations = (fixed,) if fixed in wanted else ()
        elif only is None:
            rotations = _rotations(ctx, hex_id, placed, new, reach)
        else:
            rotations = [r for r in wanted if _rotation_ok(ctx, hex_id, new, r, reach)]
        cost = rules.lay_cost(ctx, hex_id, old, new)
        if afford and cost > ctx.cash:
            continue
        for r in rotations:
            if not restricted or _restriction_error(ctx, hex_id, new, r) is None:
                out.append(Lay(hex_id, name, r, cost))
    return out


def passes_restriction(ctx: LayContext, lay: Lay) -> bool:
    """Whether a lay of :func:`tile_lay_options` passes the track restriction ("must
    use new track", the last check of a normal lay; a special lay is checked in full
    already): it is then one of :func:`legal_tile_lays`."""
    if lay.special:
        return True
    return _restriction_error(ctx, lay.hex, ctx.data.tiles[lay.tile], lay.rotation) is None


def _special_candidates(ctx: LayContext, ability: SpecialAbility, hex_id: str,
                        afford: bool = True) -> list[Lay]:
    """A private's lays on one hex: offered (its tiles, phase colours) and accepted
    (``afford`` False: also those costing more than ``ctx.cash``)."""
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
        if not rules.can_upgrade(
            hex_id, placed.tile, new, special=True, company=ability.company, phase=ctx.phase
        ):
            continue
        if rules.special_refusal(ctx, ability, new) is not None:
            continue
        fixed = rules.special_rotations(ctx, ability, hex_id, new)
        if fixed is not None:
            rotations: Iterable[int] = fixed
        else:
            rotations = [r for r in range(6) if _rotation_ok(ctx, hex_id, new, r, links)]
        cost = 0 if ability.free else rules.lay_cost(ctx, hex_id, placed.tile, new)
        if afford and cost > ctx.cash:
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
    """With ``new_tile`` laid on ``hex_id``, does the network walk one of these of its paths?

    Known without a walk where a token city of the new tile holds one of the paths, or
    where the walk of the board as it stands first enters the hex by one of them
    (:func:`_entered_by`), or where not even a relaxed walk reaches one
    (:func:`~rhineland.board.graph.may_walk_any`: asked only where the board's walk is at
    hand, i.e. while every lay is listed; checking one lay alone, as a replay does, it
    would cost more than it saves); else walked with the new tile until one is found."""
    wanted = frozenset(indices)
    if not wanted:
        return False
    seats = remap_tokens(ctx.board, hex_id, new_tile, rotation)
    # The walk starts at the entity's token cities and first walks every path of such a
    # city (nothing is used yet then): a path touching a token city of the new tile is
    # walked for sure, no walk needed to know it.
    new = geometry(new_tile, rotation)
    for ci, syms in seats.items():
        if (ctx.entity in syms and ci < len(new.cities)
                and wanted.intersection(new.node_paths.get(new.cities[ci], ()))):
            return True
    own = any(ctx.entity in syms for syms in seats.values()) or (
        bool(ctx.board.tiles[hex_id].geometry.cities) and any(
            ctx.entity in syms for (h, _), syms in ctx.board.tokens.items() if h == hex_id))
    if not own and (_entered_by(ctx, hex_id, new, wanted, seats)
                    or _plain_track_crossed(ctx, hex_id, new, wanted)):
        return True  # no token of the entity on the hex: often known without the walk
    targets = frozenset((hex_id, i) for i in wanted)
    override = (hex_id, new_tile, rotation % 6, seats)
    if (known_connectivity(ctx.board, ctx.entity, ctx.rules) is not None
            and not may_walk_any(ctx.board, ctx.entity, ctx.rules, override, targets)):
        return False  # not even a walk free to reverse and reuse track gets there
    conn = compute_connectivity(
        ctx.board, ctx.entity, ctx.rules, override=override, stop_at=targets)
    return bool(targets & conn.paths)


def _entered_by(ctx: LayContext, hex_id: str, new: TileGeometry,
                wanted: frozenset[int], seats: dict[int, list[str]]) -> bool:
    """Whether the network walk with the new tile on ``hex_id`` (``new``, its tokens
    ``seats``: city index -> syms) surely walks one of its ``wanted`` paths, known from
    the walk of the board as it stands: where the entity has no token on the hex (the
    caller's condition), that walk is the same until it first finds track on the hex
    (:meth:`~rhineland.board.graph.Connectivity.first_looks`), and there it walks every
    path of the new tile on that edge with that gauge, and then, the hex being untouched
    till then, every path of each node those paths lead into (a path that is not
    terminal; a city that does not block the entity).  False: not known so (or that
    walk is not at hand: listing lays makes it, checking one lay does not)."""
    conn = known_connectivity(ctx.board, ctx.entity, ctx.rules)
    if conn is None:
        return False  # the whole walk would cost more than it saves (one lay checked)
    looks = conn.first_looks(hex_id)
    for back, gauge in looks or ():
        found = new.gauge_paths.get((back, gauge), ())
        if found:
            if not wanted.isdisjoint(found):
                return True
            return any(
                not wanted.isdisjoint(new.node_paths.get(part, ()))
                and not _blocks(ctx, hex_id, new, part, seats)
                for pi in found if not new.paths[pi].terminal
                for part in new.paths[pi].nodes
            )
    return False


def _plain_track_crossed(ctx: LayContext, hex_id: str, new: TileGeometry,
                         wanted: frozenset[int]) -> bool:
    """Whether the network walk with the new tile on ``hex_id`` (``new``) surely walks one
    of its ``wanted`` paths, known from the walk of the board as it stands where the
    upgrade only adds track: both tiles plain track (no town, city or other node, so no
    token there either), the new tile's other paths the old tile's paths as they were
    (edges in the same order, gauge, in the same order), the wanted paths sharing no edge
    with them.  Then the walk with the new tile is the old walk until it first looks into
    the hex by an edge of a wanted path with that path's gauge, and there it walks such a
    path (nothing of the hex it uses then is on the wanted paths' edges).  The old walk
    made such a look where it touched the hex by a side no old path uses (a path of the
    neighbour crossed towards the hex), if every path of the neighbour's tile at that side
    has the wanted path's gauge.  False: not known so (or the old walk is not at hand)."""
    conn = known_connectivity(ctx.board, ctx.entity, ctx.rules)
    if conn is None:
        return False
    touched = conn.hexes.get(hex_id)
    placed = ctx.board.tiles[hex_id]
    if not touched or placed.tile.nodes or new.tile.nodes:
        return False
    old = placed.geometry
    kept = [(p.edges, p.gauge, p.terminal) for i, p in enumerate(new.paths) if i not in wanted]
    if kept != [(p.edges, p.gauge, p.terminal) for p in old.paths]:
        return False
    old_edges = {e for p in old.paths for e in p.edges}
    if any(not old_edges.isdisjoint(new.paths[i].edges) for i in wanted):
        return False
    links = hex_links(ctx.board.spec)[hex_id]
    tiles = ctx.board.tiles
    for i in wanted:
        path = new.paths[i]
        for b in path.edges:
            if b not in touched or b not in links:
                continue
            other = tiles[links[b]].geometry
            crossing = other.edge_paths.get(OPPOSITE[b], ())
            if crossing and all(other.paths[j].gauge == path.gauge for j in crossing):
                return True
    return False



def _blocks(ctx: LayContext, hex_id: str, new: TileGeometry, part: int,
            seats: dict[int, list[str]]) -> bool:
    """Whether node ``part`` of the new tile on ``hex_id`` (tokens ``seats``) stops the
    entity's walk, as the walk asks it (a town never does)."""
    if part not in new.cities:
        return False
    ci = new.cities.index(part)
    return ctx.rules.city_blocks(ctx.board, hex_id, ci, ctx.entity, list(seats.get(ci, ())),
                                 new.tile.node(part).slots)


def legal_tile_lays(ctx: LayContext) -> list[Lay]:
    """Every legal tile lay for ``ctx.entity`` now, sorted by hex, tile, rotation, special.

    Includes the special lays of the private companies its president may use
    (``Lay.special`` names the company).  See the module docstring for the rules.
    """
    return [lay for lay in tile_lay_options(ctx) if passes_restriction(ctx, lay)]


_OPTIONS_MEMO: dict[tuple[object, ...], tuple[BoardRules, object, list[Lay]]] = {}
"""Answers of :func:`tile_lay_options` by :func:`_options_key`, every lay whatever its cost
(with the rules and title data objects, to tell a reused ``id`` apart).  The same position
(but for the entity's cash) is often listed twice
(a step that leaves the board and the operating entity as they were, the entity's next
turn after a stock round that laid nothing); the latest :data:`_OPTIONS_MEMO_SIZE` are kept
(few: the lays are objects every full garbage collection looks through)."""

_OPTIONS_MEMO_SIZE = 32


def _options_key(ctx: LayContext) -> tuple[object, ...] | None:
    """Everything :func:`tile_lay_options` reads but the cash: the board by its version
    (its tiles, tokens and tile supply; renewed on every change, unique across boards and
    clones), the title data and rules by identity, the private companies the lay hooks
    read (:attr:`~rhineland.board.legality.rules.BoardRules.lay_privates`) and every
    other field of ``ctx`` by value (the cash only filters the lays by their cost).  None
    when a title's ``extra`` entry cannot be hashed (then the answer is not memoised)."""
    try:
        extra = tuple(sorted(ctx.extra.items())) if ctx.extra else ()
        key = (ctx.board.version, id(ctx.rules), id(ctx.data), ctx.entity, ctx.entity_kind,
               ctx.president, ctx.phase, ctx.tile_colors,
               tuple(ctx.privates.get(sym) for sym in ctx.rules.lay_privates),
               ctx.next_token_price, ctx.tokened,
               ctx.bought_train, ctx.teleported, extra)
        hash(key)
    except TypeError:
        return None
    return key


def tile_lay_options(ctx: LayContext) -> list[Lay]:
    """:func:`legal_tile_lays` before the last check of the normal lays, the track
    restriction (:func:`passes_restriction`, a network walk each): a superset, in the
    same order (for a caller that needs only some of the legal lays).  Memoised by
    everything it reads but the cash (:func:`_options_key`: the memo keeps every lay
    whatever its cost, and the cash picks those the entity can pay; a position that
    differs from an earlier one by the cash alone, e.g. after a train bought, is
    answered by it); a new list each call."""
    key = _options_key(ctx)
    every: list[Lay] | None = None
    if key is not None:
        got = _OPTIONS_MEMO.get(key)
        if got is not None and got[0] is ctx.rules and got[1] is ctx.data:
            every = got[2]
    if every is None:
        every = _tile_lay_options(ctx, afford=False)
        if key is not None:
            if len(_OPTIONS_MEMO) >= _OPTIONS_MEMO_SIZE:
                del _OPTIONS_MEMO[next(iter(_OPTIONS_MEMO))]  # the oldest
            _OPTIONS_MEMO[key] = (ctx.rules, ctx.data, every)
    cash = ctx.cash
    return [lay for lay in every if lay.cost <= cash]


def _tile_lay_options(ctx: LayContext, afford: bool = True) -> list[Lay]:
    """:func:`tile_lay_options` worked out (``afford`` False: also the lays costing more
    than ``ctx.cash``)."""
    conn = ctx.connectivity()
    out: list[Lay] = []
    for hex_id in ctx.data.map.hexes:
        if hex_id in conn.hexes:
            out.extend(_normal_candidates(ctx, hex_id, conn, restricted=False, afford=afford))
    for ability in ctx.rules.special_abilities(ctx):
        for hex_id in ability.hexes:
            out.extend(_special_candidates(ctx, ability, hex_id, afford=afford))
    out.sort()
    return out


def legal_special_lays(ctx: LayContext) -> list[Lay]:
    """The special lays of :func:`legal_tile_lays` alone (the private companies' lays
    ``ctx.entity``'s president may use now), without the normal lays."""
    out: list[Lay] = []
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
        conn = _network_near(ctx, hex_id, new, rotation)
        if hex_id not in conn.hexes:
            raise GameError(
                f"{hex_id} is not connected to {ctx.entity}'s network", "track.connected"
            )
        lays = _normal_candidates(ctx, hex_id, conn, only=(tile_name, rotation))
    for lay in lays:
        if lay.tile == tile_name and lay.rotation == rotation:
            return lay.cost
    _explain(ctx, hex_id, new, rotation, special)


def _network_near(ctx: LayContext, hex_id: str, new_tile: Tile, rotation: int) -> Connectivity:
    """The entity's network as far as checking one normal lay needs it: walked until it
    touches ``hex_id`` on a side the new tile leaves by (then the lay's hex is reached
    and its rotation joins the network, all the check asks of it), or all of it.
    The whole network when it is known already."""
    conn = known_connectivity(ctx.board, ctx.entity, ctx.rules)
    if conn is not None:
        return conn
    exits = geometry(new_tile, rotation).exits
    conn = compute_connectivity(
        ctx.board, ctx.entity, ctx.rules, stop_sides=frozenset((hex_id, e) for e in exits)
    )
    remember_connectivity(ctx.board, ctx.rules, conn)
    return conn


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
    if not rules.can_upgrade(
        hex_id, old, new, special=special is not None, company=special, phase=ctx.phase
    ):
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
