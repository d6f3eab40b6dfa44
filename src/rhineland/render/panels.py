"""The tables beside the map: state line, stock market, companies, players, depot.

Each company row is ``<g class="company" data-company="ADR">``, each market marker
``<g class="market-marker" data-company="ADR">``, each player row
``<g class="player" data-player="1">``; money is in M (Mark).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rhineland.engine.entities import IPO, MARKET, Corporation, Minor
from rhineland.render import svg
from rhineland.render.style import colors_of

if TYPE_CHECKING:
    from rhineland.engine.game import Game

WIDTH = 560.0
"""Width of the panel column, px."""
LINE = 16.0
CELL_W, CELL_H = 32.0, 24.0


def _badge(x: float, y: float, sym: str, package: str, w: float = 40.0) -> str:
    bg, fg = colors_of(package, sym)
    return svg.element("rect", x=x, y=y - 11, width=w, height=14, rx=3, fill=bg,
                       stroke="#000", stroke_width=0.6) + \
        svg.text(x + w / 2, y, sym, font_size=10, fill=fg, text_anchor="middle",
                 font_weight="bold")


def draw_panels(game: Game, ox: float, oy: float) -> tuple[str, float, float]:
    """Draw the panels with their top-left corner at ``(ox, oy)``; returns the SVG
    ``<g>``, its width and its height (px)."""
    y = oy
    parts: list[str] = []
    for draw in (_status, _market, _companies, _players, _depot):
        body, h = draw(game, ox, y)
        parts.append(body)
        y += h + 12
    return svg.group(parts, class_="panels"), WIDTH, y - oy


def _status(game: Game, ox: float, oy: float) -> tuple[str, float]:
    st = game.state
    rnd = st.round
    label = rnd.label if rnd is not None else "end"
    ph = game.phase
    bank = f"bank {st.bank.cash}M" + (" (broken)" if st.bank.broken else "")
    end = f" · game over ({st.game_end_reason})" if st.finished else ""
    who = ""
    if rnd is not None and not st.finished:
        ent = rnd.current_entity(game)
        who = f" · to act: {getattr(ent, 'sym', None) or getattr(ent, 'name', '')}"
    limit = ph.train_limit if isinstance(ph.train_limit, int) else \
        "/".join(f"{k} {v}" for k, v in ph.train_limit.items())
    lines = [
        (f"{game.data.title} · {label}{who}{end}", 14, "bold"),
        (f"phase {ph.name}: tiles {', '.join(ph.tiles)}; train limit {limit}; "
         f"{ph.operating_rounds} OR per set", 11, None),
        (bank, 11, None),
    ]
    out = []
    y = oy + 14
    for text, size, weight in lines:
        out.append(svg.text(ox, y, text, font_size=size, font_weight=weight))
        y += size + 6
    return svg.group(out, class_="status"), y - oy


def _market(game: Game, ox: float, oy: float) -> tuple[str, float]:
    """The stock market grid with every started corporation's marker on its price."""
    package = type(game.title).package
    rows = game.data.market
    out = [svg.text(ox, oy + 12, "Stock market", font_size=12, font_weight="bold")]
    top = oy + 18
    at: dict[tuple[int, int], list[str]] = {}
    for c in game.corporations.values():
        if c.share_price is not None and not c.closed:
            at.setdefault((c.share_price.row, c.share_price.col), []).append(c.sym)
    ncols = max(len(r) for r in rows)
    cw = min(CELL_W, WIDTH / ncols)
    for ri, row in enumerate(rows):
        for ci, cell in enumerate(row):
            if cell is None:
                continue
            x, y = ox + ci * cw, top + ri * CELL_H
            fill = "#e3d3f5" if cell.is_par else "#f4f4f4"
            out.append(svg.element("rect", x=x, y=y, width=cw, height=CELL_H, fill=fill,
                                   stroke="#999", stroke_width=0.5))
            out.append(svg.text(x + 2, y + 9, str(cell.price), font_size=8, fill="#333"))
            for k, sym in enumerate(at.get((ri, ci), [])):
                bg, fg = colors_of(package, sym)
                mx, my = x + 2 + (k % 2) * (cw / 2 - 1), y + 11 + (k // 2) * 6
                out.append(svg.group([
                    svg.element("rect", x=mx, y=my, width=cw / 2 - 2, height=11 if k < 2 else 6,
                                fill=bg, stroke="#000", stroke_width=0.5),
                    svg.text(mx + cw / 4 - 1, my + 8.5, sym, font_size=min(7.0, 18 / len(sym)),
                             fill=fg, text_anchor="middle"),
                ], class_="market-marker", data_company=sym))
    return svg.group(out, class_="market"), 18 + len(rows) * CELL_H


def _player_name(game: Game, pid: int | None) -> str:
    if pid is None:
        return "-"
    for p in game.players:
        if p.id == pid:
            return p.name
    return str(pid)


def _companies(game: Game, ox: float, oy: float) -> tuple[str, float]:
    """One row per started corporation and per minor: president, treasury, share price
    (par), trains, tokens left, IPO/market percent."""
    package = type(game.title).package
    out = [svg.text(ox, oy + 12, "Companies", font_size=12, font_weight="bold")]
    cols = (("", 0), ("president", 46), ("treasury", 140), ("price (par)", 200),
            ("trains", 275), ("tokens", 390), ("IPO/market", 440), ("", 510))
    y = oy + 28
    for name, dx in cols:
        out.append(svg.text(ox + dx, y, name, font_size=9, fill="#555"))
    y += LINE
    corps: list[Corporation | Minor] = [
        c for c in game.corporations.values() if (c.ipoed or c.floated) and not c.closed]
    corps += [m for m in game.minors.values() if not m.closed and m.owner is not None]
    for c in corps:
        trains = " ".join(t.name for t in c.trains) or "-"
        if isinstance(c, Corporation):
            pres = "receivership" if c.receivership else _player_name(game, c.president)
            price = c.share_price.price if c.share_price else "-"
            par = c.par_price.price if c.par_price else "-"
            cells = [pres, f"{c.cash}M", f"{price} ({par})", trains,
                     f"{c.tokens_left}/{len(c.spec.tokens)}",
                     f"{c.percent_of(IPO)}%/{c.percent_of(MARKET)}%",
                     "" if c.floated else "not floated"]
        else:
            cells = [_player_name(game, c.owner), f"{c.cash}M", "minor", trains, "", "", ""]
        row = [_badge(ox, y, c.sym, package)]
        for (_, dx), value in zip(cols[1:], cells, strict=True):
            row.append(svg.text(ox + dx, y, str(value), font_size=11))
        out.append(svg.group(row, class_="company", data_company=c.sym))
        y += LINE
    if not corps:
        out.append(svg.text(ox, y, "no company started yet", font_size=11, fill="#555"))
        y += LINE
    return svg.group(out, class_="companies"), y - oy


def _players(game: Game, ox: float, oy: float) -> tuple[str, float]:
    """One row per player: cash, value, certificates (percent per corporation, P for the
    president) and private companies."""
    out = [svg.text(ox, oy + 12, "Players", font_size=12, font_weight="bold")]
    y = oy + 30
    for p in game.players:
        certs = []
        for c in game.corporations.values():
            pct = c.percent_of(p.id)
            if pct:
                certs.append(f"{c.sym} {pct}%{' P' if c.president == p.id else ''}")
        privates = [s for s in sorted(p.companies)]
        flag = " (bankrupt)" if p.bankrupt else ""
        row = [
            svg.text(ox, y, f"{p.name}{flag}", font_size=11, font_weight="bold"),
            svg.text(ox + 120, y, f"{p.cash}M", font_size=11),
            svg.text(ox + 175, y, f"value {game.player_value(p)}M", font_size=11),
        ]
        lines = _wrap(certs, 4) or ["-"]
        if privates:
            lines.append("privates " + ", ".join(privates))
        for k, line in enumerate(lines):
            if k:
                y += LINE - 3
            row.append(svg.text(ox + 280, y, line, font_size=10))
        out.append(svg.group(row, class_="player", data_player=p.id))
        y += LINE
    return svg.group(out, class_="players"), y - oy


def _wrap(items: list[str], per_line: int) -> list[str]:
    return [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]


def _depot(game: Game, ox: float, oy: float) -> tuple[str, float]:
    """The trains left in the depot by type (count x price) and the open market's trains."""
    left: dict[str, int] = {}
    for t in game.depot_trains():
        left[t.name] = left.get(t.name, 0) + 1
    parts = [f"{spec.name}: {left.get(spec.name, 0)} × {spec.price}M" for spec in game.data.trains
             if left.get(spec.name)]
    out = [svg.text(ox, oy + 12, "Depot", font_size=12, font_weight="bold"),
           svg.text(ox, oy + 28, ", ".join(parts) or "empty", font_size=11, class_="depot")]
    used = [t.id for t in game.discarded_trains()]
    h = 34.0
    if used:
        out.append(svg.text(ox, oy + 44, "open market: " + ", ".join(used), font_size=11))
        h += LINE
    return svg.group(out, class_="depot-panel"), h
