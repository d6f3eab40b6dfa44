"""Interface-neutral text for a game: each legal choice and action as a short line,
and the status line (round, step, who is to act).  Used by the terminal game
(:mod:`rhineland.cli.play`) and the web app (:mod:`rhineland.web.views`)."""

from __future__ import annotations

from rhineland.board.names import location_name
from rhineland.engine.actions import (
    Action,
    Assign,
    Bid,
    BuyCompany,
    BuyShares,
    BuyTrain,
    DiscardTrain,
    Dividend,
    LayTile,
    Par,
    PlaceToken,
    SellCompany,
    SellShares,
    SpecialBuy,
)
from rhineland.engine.entities import IPO, MARKET
from rhineland.engine.game import Game
from rhineland.engine.legal import AmountRange, Choice, RouteChoice
from rhineland.errors import GameError


def who(game: Game, entity: int | str) -> str:
    """The name of player ``entity`` (a player id), or the company symbol itself."""
    if isinstance(entity, int):
        try:
            return game.player(entity).name
        except GameError:
            return str(entity)
    return entity


def describe(game: Game, choice: Choice) -> str:
    """One legal choice as short text, e.g. ``"ADR: lay tile 7 on J9 (rotation 2)"``,
    ``"bid 35..600M on KEO"`` (a range of amounts), ``"ADR: run trains on the best
    routes"``; amounts in M."""
    if isinstance(choice, RouteChoice):
        return f"{choice.entity}: run trains on the best routes"
    if isinstance(choice, AmountRange):
        return _action_text(game, choice.action, amount=f"{choice.min}..{choice.max}M")
    return _action_text(game, choice)


def _action_text(game: Game, a: Action, amount: str | None = None) -> str:
    prefix = "" if a.entity_type == "player" else f"{a.entity}: "
    if isinstance(a, Bid):
        item = a.company or a.minor or a.corporation
        return f"{prefix}bid {amount or f'{a.price}M'} on {item}"
    if isinstance(a, Par):
        return f"{prefix}par {a.corporation} at {a.share_price.split(',')[0]}M"
    if isinstance(a, BuyShares):
        sym = a.shares[0].rpartition("_")[0]
        corp = game.corporations.get(sym)
        src = ""
        if corp is not None:
            idx = int(a.shares[0].rpartition("_")[2])
            owner = corp.certificates[idx].owner if idx < len(corp.certificates) else None
            src = {IPO: " from the IPO", MARKET: " from the market"}.get(str(owner), "")
        return f"{prefix}buy {a.percent}% {sym}{src}"
    if isinstance(a, SellShares):
        return f"{prefix}sell {a.percent}% {a.shares[0].rpartition('_')[0]}"
    if isinstance(a, LayTile):
        return f"{prefix}lay tile {a.tile.rpartition('-')[0] or a.tile} on {a.hex} " \
               f"(rotation {a.rotation})"
    if isinstance(a, PlaceToken):
        return f"{prefix}place a token in {city_place(game, a.city)}"
    if isinstance(a, Dividend):
        return f"{prefix}{a.kind}"
    if isinstance(a, BuyTrain):
        train = game.train(a.train)
        src = "the depot" if train.owner is None else (
            "the open market" if train.owner == MARKET else str(train.owner))
        trade = f", trading in {a.exchange}" if a.exchange else ""
        return f"{prefix}buy a {train.name} train ({a.train}) from {src} for " \
               f"{amount or f'{a.price}M'}{trade}"
    if isinstance(a, DiscardTrain):
        return f"{prefix}discard train {a.train}"
    if isinstance(a, BuyCompany):
        return f"{prefix}buy private {a.company} for {amount or f'{a.price}M'}"
    if isinstance(a, SellCompany):
        return f"{prefix}sell private {a.company} for {amount or f'{a.price}M'}"
    if isinstance(a, SpecialBuy):
        cost = f" ({a.cost}M)" if a.cost else ""
        return f"{prefix}{a.description}{cost}"
    if isinstance(a, Assign):
        return f"{prefix}assign {a.target} ({a.target_type})"
    return f"{prefix}{a.type.replace('_', ' ')}"


def status_line(game: Game) -> str:
    """Round, step, the entity to act and who decides, e.g.
    ``"OR 2.1 · track · RhE (Ann) to act"``."""
    if game.is_terminal:
        return f"game over ({game.state.game_end_reason})"
    ent = game.round.current_entity(game)
    name = getattr(ent, "sym", None) or getattr(ent, "name", "?")
    deciders = ", ".join(who(game, pid) for pid in game.acting_entities())
    acting = name if deciders == name else f"{name} ({deciders})"
    return f"{game.round.label} · {game.round.step_name(game)} · {acting} to act"


def city_place(game: Game, city: str) -> str:
    """A token's city ``"<tile id>-<part>"`` as a place a person reads: the hex's location
    name and id, and which of the tile's cities where it has several, e.g.
    ``"Köln (I10), city 2 of 3"``; the id itself when the map has no such city.  The
    city is found as the rules find it (``parse_city``)."""
    try:
        hex_id, index = game.title.parse_city(game, city)
    except GameError:
        return city
    place = location_name(game.board.spec, hex_id)
    count = len(game.board.tiles[hex_id].tile.cities)
    return place if count == 1 else f"{place}, city {index + 1} of {count}"
