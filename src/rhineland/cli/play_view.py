"""What the terminal game shows: the state (players, companies, market) and each legal
move as a short line of text (:mod:`rhineland.cli.play`)."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

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


def _who(game: Game, entity: int | str) -> str:
    if isinstance(entity, int):
        try:
            return game.player(entity).name
        except GameError:
            return str(entity)
    return entity


def describe(game: Game, choice: Choice) -> str:
    """One legal choice as short text, e.g. ``"ADR: lay tile 7 on J9 (rotation 2)"``,
    ``"bid 35..600M on KEO"``; amounts in M."""
    if isinstance(choice, RouteChoice):
        return f"{choice.entity}: run trains on the best routes"
    if isinstance(choice, AmountRange):
        what = _action_text(game, choice.action, amount=f"{choice.min}..{choice.max}M")
        return f"{what}  (type: N AMOUNT)"
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
        return f"{prefix}place a token in {a.city}"
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
    deciders = ", ".join(_who(game, pid) for pid in game.acting_entities())
    who = name if deciders == name else f"{name} ({deciders})"
    return f"{game.round.label} · {game.round.step_name(game)} · {who} to act"


def _certs(game: Game, pid: int) -> str:
    parts = []
    for corp in game.corporations.values():
        pct = corp.percent_of(pid)
        if pct:
            parts.append(f"{corp.sym} {pct}%{'P' if corp.president == pid else ''}")
    return ", ".join(parts) or "-"


def state_view(game: Game) -> RenderableType:
    """Players (cash, certificates, privates, value), the started companies (share
    price, treasury, trains, tokens, IPO and market shares), the bank, the phase and
    the depot."""
    players = Table(title="players", title_justify="left")
    for col in ("player", "cash", "certificates", "privates", "value"):
        players.add_column(col, justify="right" if col in ("cash", "value") else "left")
    for p in game.players:
        players.add_row(p.name + (" (bankrupt)" if p.bankrupt else ""), f"{p.cash}M",
                        _certs(game, p.id), ", ".join(p.companies) or "-",
                        f"{game.player_value(p)}M")
    corps = Table(title="companies", title_justify="left")
    for col in ("co.", "president", "price", "treasury", "trains", "tokens", "IPO", "market"):
        corps.add_column(col, justify="right" if col in ("price", "treasury") else "left")
    for c in game.corporations.values():
        if not c.ipoed or c.closed:
            continue
        pres = c.president
        corps.add_row(c.sym, _who(game, pres) if pres is not None else "receivership",
                      f"{c.share_price.price}M" if c.share_price else "-", f"{c.cash}M",
                      " ".join(t.name for t in c.trains) or "-",
                      f"{' '.join(h for h, _ in c.tokens) or '-'} ({c.tokens_left} left)",
                      f"{c.percent_of(IPO)}%", f"{c.percent_of(MARKET)}%")
    for m in game.minors.values():
        if m.owner is None or m.closed:
            continue
        corps.add_row(m.sym, _who(game, m.owner), "-", f"{m.cash}M",
                      " ".join(t.name for t in m.trains) or "-",
                      " ".join(h for h, _ in m.tokens) or "-", "-", "-")
    parts: list[RenderableType] = [players]
    if corps.row_count:
        parts.append(corps)
    depot = game.depot_trains()
    nxt = f"{depot[0].name} for {depot[0].spec.price}M ({len(depot)} in the depot)" \
        if depot else "none"
    bank = Text(f"bank {game.bank.cash}M · phase {game.phase.name} · next train {nxt}")
    return Group(*parts, bank)
