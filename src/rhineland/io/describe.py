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


# -- the player's words (the web page) ---------------------------------------------------

STEP_WORDS: dict[str, str] = {
    "waterfall_auction": "buy the cheapest private or bid on another",
    "company_pending_par": "choose the RhE's par price",
    "buy_sell_par_shares": "buy, sell or par shares",
    "track": "lay or upgrade track",
    "special_track": "lay a private company's tile",
    "token": "place a token",
    "special_token": "place a private company's token",
    "route": "run trains",
    "dividend": "pay out or withhold",
    "buy_train": "buy trains",
    "discard_train": "discard a train over the limit",
    "buy_company": "buy a private company",
    "sell_company": "sell a private company",
    "starting_package_initial_auction": "buy from the Starting Package",
    "starting_package_forced_auction": "pick an item: its price falls until it is bought",
    "merger": "vote on the merger",
    "potential_discard_trains_after_merge": "discard trains after the merger",
    "rag_par_payment": "pay for the RAG's par",
    "rag_par": "par the RAG",
    "fdsd_exchange": "exchange the FdSD",
}
"""Each step's name (the engine's, as 18xx.games names it) as a player says it."""

ROUND_WORDS: dict[str, str] = {"Auction": "Private auction", "Draft": "Starting Package"}
"""Rounds other than SR/OR/MR named as a player says it (the turn number dropped)."""


def step_words(step: str | None) -> str:
    """A step's name in words (``"waterfall_auction"`` -> ``"buy the cheapest private or
    bid on another"``); an unknown step with its underscores as spaces, ``""`` for none."""
    if not step:
        return ""
    return STEP_WORDS.get(step, step.replace("_", " "))


def round_words(label: str) -> str:
    """A round's label as a heading: ``"SR 1"``, ``"OR 2.1"`` stay, ``"Auction 1"`` ->
    ``"Private auction"``, ``"Draft 1"`` -> ``"Starting Package"``."""
    kind, _, _ = label.partition(" ")
    return ROUND_WORDS.get(kind, label)


def player_status(game: Game) -> str:
    """Round, what is to be done and who is to act in words, with no step name, e.g.
    ``"OR 2.1 · lay or upgrade track · RhE (Ann) to act"``."""
    if game.is_terminal:
        reason = game.state.game_end_reason
        return "game over" + (f": {_END_WORDS.get(reason, reason)}" if reason else "")
    ent = game.round.current_entity(game)
    name = getattr(ent, "sym", None) or getattr(ent, "name", "?")
    deciders = ", ".join(who(game, pid) for pid in game.acting_entities())
    acting = name if deciders == name else f"{name} ({deciders})"
    step = step_words(game.round.step_name(game))
    parts = [round_words(game.round.label), step, f"{acting} to act"]
    return " · ".join(p for p in parts if p)


_END_WORDS = {"bank": "the bank is broken", "bankrupt": "a player went bankrupt",
              "stock_market": "a share price reached the end of the market"}


def spoken(game: Game, choice: Choice, lay_costs: dict[tuple[str, str, int], int] | None = None,
           token_costs: dict[str, int] | None = None) -> tuple[str, int | None]:
    """One legal choice as a player says it and what it costs (M; ``None`` when it costs
    nothing, negative for money received): ``("buy PWB for 20M", 20)``, ``("bid on KEO,
    35 to 450M", 35)``, ``("ADR: lay tile 7 on Köln (I10), rotation 2, for 30M", 30)``.
    ``lay_costs``: ``(hex, tile name, rotation)`` -> cost of the legal lays now
    (``game.legal_tile_lays()``), ``token_costs``: city id -> price of the legal tokens."""
    if isinstance(choice, RouteChoice):
        return f"{choice.entity}: run trains", None
    if isinstance(choice, AmountRange):
        a = choice.action
        prefix = "" if a.entity_type == "player" else f"{a.entity}: "
        span = f"{choice.min} to {choice.max}M"
        if isinstance(a, Bid):
            return f"{prefix}bid on {a.company or a.minor or a.corporation}, {span}", choice.min
        if isinstance(a, BuyTrain):
            train = game.train(a.train)
            return f"{prefix}buy a {train.name}-train from {_train_source(train.owner)}, " \
                   f"{span}", choice.min
        if isinstance(a, BuyCompany):
            return f"{prefix}buy {a.company}{_from_owner(game, a.company, a)}, {span}", \
                choice.min
        if isinstance(a, SellCompany):
            return f"{prefix}sell {a.company}, {span}", -choice.min
        return f"{prefix}{_action_text(game, a, amount=span)}", choice.min
    return _spoken_action(game, choice, lay_costs or {}, token_costs or {})


def _train_source(owner: str | None) -> str:
    if owner is None:
        return "the depot"
    return "the open market" if owner == MARKET else owner


def _from_owner(game: Game, sym: str, buyer: BuyCompany | None = None) -> str:
    """`` from OWNER`` of a private a player owns; for a company's ``buyer`` of a private
    no company may hold (its ``no_buy`` ability: 1893's EVA), ``for PRESIDENT`` too (it
    buys it for them)."""
    priv = game.privates.get(sym)
    owner = priv.owner if priv is not None else None
    if not isinstance(owner, int):
        return ""
    words = f" from {who(game, owner)}"
    if buyer is not None and buyer.entity_type != "player" and priv is not None and any(
            a.get("type") == "no_buy" for a in priv.spec.abilities):
        company = game.minors.get(str(buyer.entity)) or game.corporations.get(str(buyer.entity))
        for pid in game.entity_owner_ids(company)[:1]:
            words += f" for {who(game, pid)}"
    return words


def _money(m: int) -> str:
    return f"{m}M"


def _spoken_action(game: Game, a: Action, lay_costs: dict[tuple[str, str, int], int],
                   token_costs: dict[str, int]) -> tuple[str, int | None]:
    prefix = "" if a.entity_type == "player" else f"{a.entity}: "
    step = game.round.step_name(game) if not game.is_terminal else None
    if isinstance(a, Bid):
        item = a.company or a.minor or a.corporation or "?"
        if step == "starting_package_forced_auction" and getattr(game.round, "item", None) is None:
            return f"{prefix}select {item} for auction (at {_money(a.price)})", None
        return f"{prefix}buy {item} for {_money(a.price)}", a.price
    if isinstance(a, Par):
        corp = game.corporations.get(a.corporation)
        price = int(a.share_price.split(",")[0])
        if corp is None or step == "company_pending_par":
            return f"{prefix}par {a.corporation} at {_money(price)}", None
        pct = corp.spec.president_percent
        cost = price * pct // 10
        fdsd = game.privates.get("FdSD")
        if a.corporation == "RAG" and fdsd is not None and fdsd.owner == a.entity \
                and not fdsd.closed:  # 1893: paid next, in cash or by the FdSD
            return f"{prefix}par RAG at {_money(price)}, then pay {_money(cost)} or " \
                   "exchange the FdSD", None
        return f"{prefix}par {a.corporation} at {_money(price)}: its {pct}% president's " \
               f"certificate for {_money(cost)}", cost
    if isinstance(a, BuyShares):
        return _buy_shares(game, a, prefix)
    if isinstance(a, SellShares):
        sym = a.shares[0].rpartition("_")[0]
        corp = game.corporations.get(sym)
        if corp is None or corp.share_price is None:
            return f"{prefix}sell {a.percent}% of {sym}", None
        gain = corp.share_price.price * a.percent // 10
        return f"{prefix}sell {a.percent}% of {sym} for {_money(gain)}", -gain
    if isinstance(a, LayTile):
        name = a.tile.rpartition("-")[0] or a.tile
        place = location_name(game.board.spec, a.hex)
        cost = lay_costs.get((a.hex, name, a.rotation), 0)
        old = game.board.tiles.get(a.hex)
        upgrade = old is not None and old.tile.color != "white"
        verb = f"upgrade {place} to tile {name}" if upgrade else f"lay tile {name} on {place}"
        return f"{prefix}{verb}, rotation {a.rotation}" + \
               (f", for {_money(cost)}" if cost else ""), cost or None
    if isinstance(a, PlaceToken):
        fee = token_costs.get(a.city)
        text = f"{prefix}place a token in {city_place(game, a.city)}"
        return text + (f" for {_money(fee)}" if fee else " (free)"), fee or None
    if isinstance(a, Dividend):
        return _dividend(game, a, prefix), None
    if isinstance(a, BuyTrain):
        train = game.train(a.train)
        if a.exchange:
            traded = game.train(a.exchange)
            return f"{prefix}trade in the {traded.name}-train ({a.exchange}) for a " \
                   f"{train.name}-train, paying {_money(a.price)}", a.price
        return f"{prefix}buy a {train.name}-train from {_train_source(train.owner)} for " \
               f"{_money(a.price)}", a.price
    if isinstance(a, DiscardTrain):
        return f"{prefix}discard the {game.train(a.train).name}-train ({a.train})", None
    if isinstance(a, BuyCompany):
        return f"{prefix}buy {a.company}{_from_owner(game, a.company, a)} for " \
               f"{_money(a.price)}", a.price
    if isinstance(a, SellCompany):
        return f"{prefix}sell {a.company} for {_money(a.price)}", -a.price
    if isinstance(a, SpecialBuy):
        offering = getattr(game.round, "offering", None)
        if a.description in ("yes", "no") and offering:
            return f"{prefix}vote {a.description} on founding {offering[0]}", None
        paid = f" ({_money(a.cost)})" if a.cost else ""
        return f"{prefix}{a.description}{paid}", a.cost or None
    if isinstance(a, Assign):
        if a.target == "FdSD":
            return f"{prefix}pay with the FdSD (exchange it)", None
        return f"{prefix}use {a.target}", None
    if a.type == "pass":
        return f"{prefix}{_PASS_WORDS.get(step or '', 'pass')}", None
    return f"{prefix}{a.type.replace('_', ' ')}", None


_PASS_WORDS = {
    "track": "pass: lay no track", "token": "pass: place no token",
    "buy_train": "pass: buy no train", "route": "pass: run no trains",
    "special_track": "pass: do not use it", "special_token": "pass: do not use it",
    "potential_discard_trains_after_merge": "pass: keep the trains",
    "discard_train": "pass: keep the trains",
    "rag_par_payment": "pay in cash",
}


def _buy_shares(game: Game, a: BuyShares, prefix: str) -> tuple[str, int | None]:
    sym = a.shares[0].rpartition("_")[0]
    corp = game.corporations.get(sym)
    if corp is None:
        return f"{prefix}buy {a.percent}% of {sym}", None
    by_id = {c.id: c for c in corp.certificates}
    certs = [by_id[s] for s in a.shares if s in by_id]
    owner = certs[0].owner if certs else None
    src = {IPO: " from the IPO", MARKET: " from the market"}.get(str(owner), "")
    if corp.share_price is None or not certs:
        return f"{prefix}buy {a.percent}% of {sym}{src}", None
    cost = sum(game.title.share_price_for(game, corp, c, str(owner)) for c in certs)
    return f"{prefix}buy {a.percent}% of {sym}{src} for {_money(cost)}", cost


def _dividend(game: Game, a: Dividend, prefix: str) -> str:
    revenue = getattr(game.round, "revenue", None)
    if not isinstance(revenue, int):
        return f"{prefix}{'pay out' if a.kind == 'payout' else a.kind}"
    if a.kind == "withhold":
        return f"{prefix}withhold {_money(revenue)} (the treasury keeps it)"
    corp = game.corporations.get(str(a.entity))
    if a.kind == "half":
        return f"{prefix}pay half of {_money(revenue)}, keep half"
    if corp is None:
        return f"{prefix}pay out {_money(revenue)}"
    return f"{prefix}pay out {_money(revenue)} ({_money(revenue // 10)} a share)"
