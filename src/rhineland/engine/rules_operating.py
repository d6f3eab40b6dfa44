"""Default operating-round rules (hooks a title may override).

Sources: seeds ``000``/``001`` ("Operating round"), reference facts
``rules`` (``home_token_timing: operate``, ``must_buy_train: route``...).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from rhineland.board import legality
from rhineland.board.legality import BoardRules, LayContext, PrivateState
from rhineland.engine.actions import DestinationConnection, LayTile, PlaceToken, RunRoutes
from rhineland.engine.entities import IPO, MARKET, Corporation, Minor, Private
from rhineland.engine.leniency import TRUST_ROUTES, TrustedRun
from rhineland.engine.shares import move_price, operating_order_key
from rhineland.errors import GameError
from rhineland.routes import RevenueRules, RouteContext, RouteResult
from rhineland.routes.engine import check_trains
from rhineland.routes.graph import track_graph
from rhineland.routes.trusted import check_recorded_run, find_rejection, trusted_results

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.rounds.operating import OperatingRound
    from rhineland.engine.steps import Step


def private_states(game: Game) -> Mapping[str, PrivateState]:
    """Each private company's :class:`PrivateState` (owning player id as text, closed,
    ability used), by symbol in the game's order: the lay context's ``privates``.  The
    same read-only mapping is given again while no private changed
    (:data:`_PRIVATE_STATES`)."""
    key = tuple((p.sym, p.owner, p.closed, p.ability_uses > 0) for p in game.privates.values())
    got = _PRIVATE_STATES.get(key)
    if got is None:
        if len(_PRIVATE_STATES) >= _PRIVATE_STATES_SIZE:
            _PRIVATE_STATES.clear()
        got = _PRIVATE_STATES[key] = MappingProxyType({
            sym: PrivateState(sym, str(owner) if isinstance(owner, int) else None, closed, used)
            for sym, owner, closed, used in key
        })
    return got


_PRIVATE_STATES_SIZE = 256
_PRIVATE_STATES: dict[tuple[tuple[str, object, bool, bool], ...],
                      Mapping[str, PrivateState]] = {}
"""The private states by what they are made of (symbol, owner, closed, used): a game's
privates change a few times a game, the lay context is built several times a step."""


class OperatingRules:
    """Operating round defaults: order, steps, tiles, tokens, routes, dividends, trains.

    ``board_rules`` (tile and token legality) and ``revenue_rules`` (routes) are
    the title's rule objects from :mod:`rhineland.board.legality` and
    :mod:`rhineland.routes`.
    """

    board_rules: BoardRules
    revenue_rules: RevenueRules

    # -- the board and route rule contexts ------------------------------------------
    def lay_context(self, game: Game, rnd: OperatingRound | None, entity: Any) -> LayContext:
        """The tile/token legality context for ``entity`` operating now."""
        kind = "minor" if isinstance(entity, Minor) else "corporation"
        pres = game.entity_owner_ids(entity)
        privates = private_states(game)
        next_price: int | None = None
        if isinstance(entity, Corporation) and entity.tokens_left > 0:
            next_price = entity.next_token_price
        return LayContext(
            board=game.board,
            data=game.data,
            rules=self.board_rules,
            entity=entity.sym,
            entity_kind=kind,
            president=str(pres[0]) if pres else None,
            phase=game.phase.name,
            tile_colors=game.phase.tiles,
            cash=entity.cash,
            privates=privates,
            next_token_price=next_price,
            tokened=bool(rnd.tokened) if rnd is not None else False,
            bought_train=bool(rnd.bought_trains) if rnd is not None else False,
            extra=self.lay_context_extra(game, rnd, entity),
        )

    def lay_context_extra(self, game: Game, rnd: OperatingRound | None,
                          entity: Any) -> dict[str, Any]:
        """Title-specific entries of the lay context's ``extra`` mapping.  Title hook;
        default: none."""
        return {}

    def route_context(self, game: Game, entity: Any) -> RouteContext:
        """The route rules context for ``entity`` now."""
        return RouteContext(
            board=game.board,
            data=game.data,
            entity=entity.sym,
            phase=game.phase.name,
            trains=tuple(t.id for t in entity.trains),
            rules=self.revenue_rules,
            **self.route_context_extra(game, entity),
        )

    def route_context_extra(self, game: Game, entity: Any) -> dict[str, Any]:
        """Extra fields of ``entity``'s :class:`RouteContext`.  Title hook; 18Rhl adds
        ``hex_icons`` (the placed coal and steel icons)."""
        return {}

    # -- who operates ------------------------------------------------------------------
    def operating_order(self, game: Game) -> list[str]:
        """Floated corporations by share price (high first; right, up, arrival break ties)."""
        corps = [c for c in game.corporations.values() if c.floated and not c.closed]
        corps.sort(key=lambda c: operating_order_key(game, c))
        return [c.sym for c in corps]

    def sort_operating(self, game: Game, syms: list[str]) -> list[str]:
        """``syms`` in operating order (share price; corporations only by default)."""
        return sorted(syms, key=lambda s: operating_order_key(game, game.corporations[s]))

    def resorts_operating_order(self, game: Game, action_type: str) -> bool:
        """Whether an operating-round action of ``action_type`` re-sorts the entities yet
        to operate (:meth:`sort_operating`).  The reference engine re-sorts them only
        after the share sales that can move other companies' prices: a president's
        emergency ``sell_shares`` and (by default) the sales of a ``bankrupt`` president.
        Title hook."""
        return action_type in ("sell_shares", "bankrupt")

    def operator(self, game: Game, sym: str) -> Any:
        """The operating entity ``sym``: a corporation, else a minor (``KeyError`` if neither)."""
        if sym in game.corporations:
            return game.corporations[sym]
        return game.minors[sym]

    def operating_steps(self, game: Game, entity: Any) -> tuple[Step, ...]:
        """``entity``'s OR turn: the ordered, declared steps (non-blocking ones open all
        turn).  Title hook; default: track, token, route, dividend, buy_train
        (:data:`~rhineland.engine.rounds.operating_steps.DEFAULT_STEPS`)."""
        from rhineland.engine.rounds.operating_steps import DEFAULT_STEPS

        return DEFAULT_STEPS

    # -- round and turn boundaries ----------------------------------------------------------
    def start_operating_round(self, game: Game, rnd: OperatingRound) -> None:
        """Private companies pay their income (bank to owner)."""
        self.pay_private_income(game)

    def pay_private_income(self, game: Game) -> None:
        """Pay each open, owned private company's revenue (M) from the bank to its
        owner (:meth:`private_owner_entity`)."""
        for private in game.privates.values():
            if private.closed or private.owner is None or private.spec.revenue == 0:
                continue
            owner = self.private_owner_entity(game, private)
            if owner is None:
                continue
            game.pay(game.bank, owner, private.spec.revenue)
            game.add_log(f"{private.sym} pays {private.spec.revenue}M to its owner")

    def private_owner_entity(self, game: Game, private: Private) -> Any:
        """The player or corporation receiving ``private``'s income, or ``None`` (no
        income).  Title hook; 1893 pays nothing for privates the bank holds."""
        if isinstance(private.owner, int):
            return game.player(private.owner)
        if isinstance(private.owner, str) and private.owner in game.corporations:
            return game.corporations[private.owner]
        return None

    def start_operating_turn(self, game: Game, rnd: OperatingRound, entity: Any) -> None:
        """Called when ``entity``'s OR turn starts: a corporation or minor without a
        token places its home token."""
        if not entity.tokens and isinstance(entity, Corporation | Minor):
            self.place_home_token(game, entity)

    def end_operating_turn(self, game: Game, rnd: OperatingRound, entity: Any) -> None:
        """Called after an entity's last step (``operated`` is set by its dividend)."""

    def end_operating_round(self, game: Game, rnd: OperatingRound) -> None:
        """Title hook called when an operating round ends (default: nothing)."""
        pass

    def place_home_token(self, game: Game, entity: Corporation | Minor) -> None:
        """Put the free home token(s) on the home city (reserved slot or ``home_city``)."""
        homes = entity.spec.home if isinstance(entity, Corporation) else (entity.spec.home,)
        for hex_id in homes:
            tile = game.board.tile_at(hex_id).tile
            city_index = self.home_city_index(game, entity, hex_id)
            if city_index is None or city_index >= len(tile.cities):
                continue
            game.board.add_token(hex_id, city_index, entity.sym)
            entity.tokens.append((hex_id, city_index))
            if isinstance(entity, Corporation):
                entity.tokens_used += 1
            game.add_log(f"{entity.sym} places its home token on {hex_id}")

    def home_city_index(self, game: Game, entity: Any, hex_id: str) -> int | None:
        """Index of the city on ``hex_id`` taking ``entity``'s home token: the city
        reserved for it, else its spec's ``home_city`` (on a multi-city tile), else 0;
        ``None`` when the tile has no city."""
        tile = game.board.tile_at(hex_id).tile
        cities = tile.cities
        for i in range(len(cities)):
            if entity.sym in self.board_rules.reservations(game.board, hex_id, i):
                return i
        home_city: int | None = getattr(entity.spec, "home_city", None)
        if home_city is not None and len(cities) > 1:
            return min(home_city, len(cities) - 1)
        return 0 if cities else None

    def check_destination_connection(self, game: Game, action: DestinationConnection) -> None:
        """Titles that record destination checks verify them; default: nothing to check."""

    # -- track ------------------------------------------------------------------------
    def lay_tile(self, game: Game, rnd: OperatingRound, entity: Any, actor: Any,
                 action: LayTile) -> None:
        """Check the lay (legality hook), pay its cost, put the tile down."""
        from rhineland.board.tiles import split_tile_id

        try:
            name, _ = split_tile_id(action.tile)
        except ValueError:
            raise GameError(f"malformed tile id {action.tile!r}", "track.tile") from None
        cost = self.check_tile_lay(game, rnd, entity, actor, action.hex, name, action.rotation)
        if cost > entity.cash:
            raise GameError(
                f"{entity.sym} has {entity.cash}M, laying {name} on {action.hex} costs {cost}M",
                "track.cash",
            )
        new_tile = game.data.tiles[name]
        own_lay = not isinstance(actor, Private)
        if own_lay and self.board_rules.fixed_rotation(
                self.lay_context(game, rnd, entity), action.hex, new_tile) is None:
            self.note_route(game, entity)  # the rotation check walks the network
        old_tile = game.board.tile_at(action.hex).tile
        seats = legality.remap_tokens(game.board, action.hex, new_tile, action.rotation)
        game.board.place_tile(action.hex, action.tile, action.rotation)
        self.reseat_tokens(game, action.hex, seats)
        if own_lay and not self.board_rules.skip_track_restriction(old_tile, new_tile):
            self.note_route(game, entity)  # so does the new-track check, on the new tile
        if cost:
            game.pay(entity, game.bank, cost)
        game.add_log(f"{entity.sym} lays tile {name} on {action.hex} (rotation "
                     f"{action.rotation}){f' for {cost}M' if cost else ''}")
        self.after_tile_laid(game, rnd, entity, actor, action)

    def check_tile_lay(self, game: Game, rnd: OperatingRound, entity: Any, actor: Any,
                       hex_id: str, tile_name: str, rotation: int) -> int:
        """Legality of a lay (:func:`rhineland.board.legality.check_tile_lay`); cost in M."""
        special = actor.sym if isinstance(actor, Private) else None
        ctx = self.lay_context(game, rnd, entity)
        return legality.check_tile_lay(ctx, hex_id, tile_name, rotation, special)

    def reseat_tokens(self, game: Game, hex_id: str, seats: dict[int, list[str]]) -> None:
        """After an upgrade, tokens sit in the new city that continues their old one
        (``seats``: new city index -> symbols, from :func:`legality.remap_tokens`)."""
        game.board.set_hex_tokens(hex_id, seats)
        where = {sym: ci for ci, syms in seats.items() for sym in syms}
        for corp in list(game.corporations.values()) + list(game.minors.values()):
            corp.tokens = [
                (h, where.get(corp.sym, ci)) if h == hex_id else (h, ci) for h, ci in corp.tokens
            ]

    def after_tile_laid(self, game: Game, rnd: OperatingRound, entity: Any, actor: Any,
                        action: LayTile) -> None:
        """A tile on a hex a private blocks lifts the block (its ability is used up)."""
        for private in game.privates.values():
            block = private.spec.ability("blocks_hexes")
            if block is not None and action.hex in block.get("hexes", ()) and (
                private.ability_uses == 0
            ):
                private.ability_uses = 1

    # -- tokens ------------------------------------------------------------------------
    def can_place_token(self, game: Game, entity: Any) -> bool:
        """Whether any city takes ``entity``'s next token now (asked as the token step
        is reached).  18xx.games walks the whole network for it when it can pay for a
        token and no city takes one, and then notes the company's route
        (:meth:`note_route`)."""
        if isinstance(entity, Corporation) and entity.tokens_left == 0:
            return False
        ctx = self.lay_context(game, None, entity)
        spots = legality.legal_tokens(ctx)
        if (not spots and ctx.next_token_price is not None
                and ctx.next_token_price <= ctx.cash):
            self.note_route(game, entity)
        return bool(spots)

    def place_token(self, game: Game, rnd: OperatingRound, entity: Any,
                    action: PlaceToken) -> None:
        """Place ``entity``'s next token in city ``action.city``, paying its price (M) to
        the bank.  Raises ``GameError`` (``"token.city"``, ``"token.cash"``, legality)."""
        hex_id, city_index = self.parse_city(game, action.city)
        price = self.check_token(game, rnd, entity, hex_id, city_index)
        if price > entity.cash:
            raise GameError(
                f"{entity.sym} has {entity.cash}M, the token costs {price}M", "token.cash"
            )
        self.note_route(game, entity)  # the connection check walks the network
        game.board.add_token(hex_id, city_index, entity.sym)
        entity.tokens.append((hex_id, city_index))
        entity.tokens_used += 1
        if price:
            game.pay(entity, game.bank, price)
        game.add_log(f"{entity.sym} places a token on {hex_id} for {price}M")

    def check_token(self, game: Game, rnd: OperatingRound, entity: Any, hex_id: str,
                    city_index: int) -> int:
        """Legality of a token (:func:`rhineland.board.legality.check_token`); price in M."""
        return legality.check_token(self.lay_context(game, rnd, entity), hex_id, city_index)

    def parse_city(self, game: Game, city_id: str) -> tuple[str, int]:
        """``"<tile id>-<part>"`` of a city on the map -> ``(hex, city index)``: the tile
        with that id that has a city with that part (a preprinted tile's id is its hex's
        name and a copy number, so hex K6's ``K6-0`` and a laid ``K6-0`` tile share it)."""
        tile_id, _, part = city_id.rpartition("-")
        if not part.isdigit():
            raise GameError(f"malformed city id {city_id!r}", "token.city")
        for hex_id, placed in game.board.tiles.items():
            if placed.tile_id == tile_id:
                try:
                    return hex_id, placed.tile.city_index(int(part))
                except KeyError:
                    continue  # a preprinted hex's id may equal a laid tile's (K6 / K6-0)
        raise GameError(f"no city {city_id!r} on the map", "token.city")

    # -- routes and dividends -------------------------------------------------------------
    def run_routes(self, game: Game, rnd: OperatingRound, entity: Any,
                   action: RunRoutes) -> list[RouteResult]:
        """Validate the routes and compute each train's revenue; a route's recorded
        revenue must equal ours (:func:`rhineland.routes.trusted.check_recorded_run`).

        Under the leniency :data:`~rhineland.engine.leniency.TRUST_ROUTES` a run the
        route rules reject is applied with the revenue each train records, as
        18xx.games replays it (the trains must still be the company's, each run
        once), and recorded as a :class:`~rhineland.engine.leniency.TrustedRun`.
        """
        ctx = self.route_context(game, entity)
        routes = list(action.routes)
        try:
            results = check_recorded_run(ctx, routes)
        except GameError as exc:
            if TRUST_ROUTES not in game.leniencies:
                raise
            results = self._trusted_run(game, ctx, entity, action, exc)
        for result in results:
            game.add_log(f"{entity.sym} runs a {result.train}-train for {result.revenue}M")
        return results

    def _trusted_run(self, game: Game, ctx: RouteContext, entity: Any, action: RunRoutes,
                     error: GameError) -> list[RouteResult]:
        """The run the rules reject (``error``) with its recorded revenue, recorded as
        a trusted run; ``GameError`` when a train is not the company's or runs twice,
        or ``error`` itself when a route records no revenue (nothing to trust)."""
        routes = list(action.routes)
        check_trains(ctx, routes)
        results = trusted_results(routes)
        rejection = find_rejection(ctx, routes)
        if results is None or rejection is None or rejection.recorded is None:
            raise error
        game.use_leniency(TrustedRun(
            rule=rejection.rule, action_id=action.id, message=rejection.message,
            entity=entity.sym, train=rejection.train, recorded=rejection.recorded,
            ours=rejection.ours, revenue=sum(r.revenue for r in results),
        ))
        return results

    def check_dividend(self, game: Game, rnd: OperatingRound, entity: Any, kind: str) -> None:
        """The check of :meth:`pay_dividend`, before anything changes: a payout or a
        withhold.  Raises ``GameError`` (``"dividend.kind"``)."""
        if kind not in ("payout", "withhold"):
            raise GameError(f"unknown dividend kind {kind!r}", "dividend.kind")

    def pay_dividend(self, game: Game, rnd: OperatingRound, entity: Any, kind: str) -> None:
        """Payout: each 10% pays revenue/10 (holders: players, the corporation for its own
        shares, the bank keeps the market's); withhold: all to the treasury.  Raises
        ``GameError`` (:meth:`check_dividend`)."""
        self.check_dividend(game, rnd, entity, kind)
        revenue = rnd.revenue
        entity.operated = True
        if kind == "payout" and revenue > 0:
            per_share = revenue // 10
            for cert in entity.certificates:
                if cert.owner == IPO:
                    receiver = self.ipo_dividend_receiver(game, entity)
                elif cert.owner == MARKET:
                    receiver = self.market_dividend_receiver(game, entity)
                else:
                    receiver = game.player(int(cert.owner))
                if receiver is not None:
                    game.pay(game.bank, receiver, per_share * cert.percent // 10)
            game.add_log(f"{entity.sym} pays out {revenue}M ({per_share}M per share)")
        elif kind == "withhold":
            game.pay(game.bank, entity, revenue)
            game.add_log(f"{entity.sym} withholds {revenue}M")
        self.dividend_price_move(game, entity, revenue if kind == "payout" else 0)

    def ipo_dividend_receiver(self, game: Game, corp: Corporation) -> Any:
        """Who receives the payout for shares in the IPO/treasury (default: the
        corporation itself).  Title hook."""
        return corp

    def market_dividend_receiver(self, game: Game, corp: Corporation) -> Any:
        """Who receives the payout for shares in the market pool (default: ``None``,
        the bank keeps it).  Title hook."""
        return None

    def dividend_price_move(self, game: Game, corp: Any, paid: int) -> None:
        """Share price move after the dividend step: left on a withhold (``paid`` 0M),
        right when the payout is at least the share price, else none.  Title hook;
        1893 moves right on any payout."""
        if paid <= 0:
            move_price(game, corp, "left")
        elif corp.share_price is not None and paid >= corp.share_price.price:
            move_price(game, corp, "right")

    def entity_acting_ids(self, game: Game, entity: Any) -> list[int]:
        """Players who decide for an entity without an owner (default: nobody)."""
        return []

    def has_route(self, game: Game, entity: Any) -> bool:
        """Whether ``entity`` counts as having a route: the run-routes step is offered
        and, without a train, it must buy one.

        18xx.games keeps a company's route once it has found one (its route cache is
        never cleared for it), so a company whose track was cut (an upgrade that joins
        two cities of a hex into one) still runs (an empty run is 0M) and must own a
        train.  The route is noted (:meth:`note_route`) where 18xx.games walks the
        company's network: on reaching the run-routes step with trains and the
        buy-trains step without one, around its own tile lays, before its token and
        when its token step finds no city.
        """
        return entity.had_route or self.route_connected(game, entity)

    def note_route(self, game: Game, entity: Any) -> None:
        """Keep ``entity``'s route once it has one (:meth:`has_route`)."""
        if not entity.had_route and self.route_connected(game, entity):
            entity.had_route = True

    def route_connected(self, game: Game, entity: Any) -> bool:
        """Whether track leads from one of ``entity``'s token cities to another revenue
        location now (a route could be run)."""
        graph = track_graph(game.board)
        for hex_id, city_index in entity.tokens:
            for node in graph.by_hex.get(hex_id, []):
                if node.city_index == city_index and graph.out[node.id]:
                    return True
        return False
