"""What the terminal game shows: the state (players, companies, the stock market, and in
an operating round the operating company's part of the map) as tables
(:mod:`rhineland.cli.play`); the moves' text is :mod:`rhineland.io.describe`'s.
Names come from the players and are shown as typed (no rich markup)."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from rhineland.board.graph import connectivity
from rhineland.board.names import location_name
from rhineland.engine.entities import IPO, MARKET, Corporation, Minor
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
        players.add_row(escape(p.name) + (" (bankrupt)" if p.bankrupt else ""), f"{p.cash}M",
                        _certs(game, p.id), ", ".join(p.companies) or "-",
                        f"{game.player_value(p)}M")
    corps = Table(title="companies", title_justify="left")
    for col in ("co.", "president", "price", "treasury", "trains", "tokens", "IPO", "market"):
        corps.add_column(col, justify="right" if col in ("price", "treasury") else "left")
    for c in game.corporations.values():
        if not c.ipoed or c.closed:
            continue
        pres = c.president
        corps.add_row(c.sym, escape(who(game, pres)) if pres is not None else "receivership",
                      f"{c.share_price.price}M" if c.share_price else "-", f"{c.cash}M",
                      " ".join(t.name for t in c.trains) or "-",
                      f"{' '.join(h for h, _ in c.tokens) or '-'} ({c.tokens_left} left)",
                      f"{c.percent_of(IPO)}%", f"{c.percent_of(MARKET)}%")
    for m in game.minors.values():
        if m.owner is None or m.closed:
            continue
        corps.add_row(m.sym, escape(who(game, m.owner)), "-", f"{m.cash}M",
                      " ".join(t.name for t in m.trains) or "-",
                      " ".join(h for h, _ in m.tokens) or "-", "-", "-")
    parts: list[RenderableType] = [players]
    if corps.row_count:
        parts.append(corps)
    market = market_view(game)
    if market is not None:
        parts.append(market)
    network = network_view(game)
    if network is not None:
        parts.append(network)
    depot = game.depot_trains()
    nxt = f"{depot[0].name} for {depot[0].spec.price}M ({len(depot)} in the depot)" \
        if depot else "none"
    bank = Text(f"bank {game.bank.cash}M · phase {game.phase.name} · next train {nxt}")
    return Group(*parts, bank)


def market_view(game: Game) -> Table | None:
    """The stock market: the rows of cells whose columns hold a share price now (and
    two columns either side), each cell its price in M and the companies on it, top
    company first (the order they arrived); ``None`` while no company has a price."""
    at: dict[tuple[int, int], list[str]] = {}
    for c in game.corporations.values():
        cell = c.share_price
        if cell is not None and not c.closed:
            at.setdefault((cell.row, cell.col), []).append(c.sym)
    if not at:
        return None
    order = game.state.cell_order
    for syms in at.values():
        syms.sort(key=lambda s: order.get(s, 0))
    cols = [col for _, col in at]
    first, last = max(min(cols) - 2, 0), max(cols) + 2
    grid = game.data.market
    table = Table(title="stock market (M)", title_justify="left",
                  show_header=False, show_lines=True)
    width = max(len(r) for r in grid)
    for _ in range(first, min(last, width - 1) + 1):
        table.add_column(justify="center")
    for r, row in enumerate(grid):
        cells: list[str] = []
        for col in range(first, min(last, width - 1) + 1):
            cell = row[col] if col < len(row) else None
            if cell is None:
                cells.append("")
                continue
            here = at.get((r, col))
            cells.append(f"{cell.price}" + (f"\n[bold]{' '.join(here)}[/bold]" if here else ""))
        if any(cells):
            table.add_row(*cells)
    return table


def network_view(game: Game) -> Table | None:
    """The part of the map that matters now: in an operating round, every hex the
    operating company's network reaches (its tile, the tokens on it); ``None``
    otherwise."""
    state = game.state
    if state.finished or state.round is None or state.round.kind != "Operating":
        return None
    ent = game.round.current_entity(game)
    if not isinstance(ent, Corporation | Minor):
        return None
    rules = game.title.board_rules
    conn = connectivity(game.board, ent.sym, rules)
    board = game.board
    tokens: dict[str, list[str]] = {}
    for (hex_id, _), syms in board.tokens.items():
        tokens.setdefault(hex_id, []).extend(syms)
    table = Table(title=f"{ent.sym}'s network ({len(conn.hexes)} hexes reached)",
                  title_justify="left")
    for col in ("hex", "tile", "tokens"):
        table.add_column(col)
    for hex_id in sorted(conn.hexes, key=lambda h: (h[0], int(h[1:]) if h[1:].isdigit() else 0)):
        placed = board.tiles.get(hex_id)
        tile = "-" if placed is None else f"{placed.tile.name} ({placed.tile.color})"
        table.add_row(location_name(board.spec, hex_id), tile,
                      " ".join(tokens.get(hex_id, ())) or "-")
    return table
