"""What the terminal game shows: the state (players, companies, market) as tables
(:mod:`rhineland.cli.play`); the moves' text is :mod:`rhineland.io.describe`'s."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from rhineland.engine.entities import IPO, MARKET
from rhineland.engine.game import Game
from rhineland.io.describe import who


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
        corps.add_row(c.sym, who(game, pres) if pres is not None else "receivership",
                      f"{c.share_price.price}M" if c.share_price else "-", f"{c.cash}M",
                      " ".join(t.name for t in c.trains) or "-",
                      f"{' '.join(h for h, _ in c.tokens) or '-'} ({c.tokens_left} left)",
                      f"{c.percent_of(IPO)}%", f"{c.percent_of(MARKET)}%")
    for m in game.minors.values():
        if m.owner is None or m.closed:
            continue
        corps.add_row(m.sym, who(game, m.owner), "-", f"{m.cash}M",
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
