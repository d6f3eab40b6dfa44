"""What the player's page shows beside the map, read from a game through its public API:
the private company and minor cards (their abilities in words, from the title data),
the stock market as a grid, the companies/players spreadsheet, the train roster, the
tile manifest and the log in sentences under round headings.

Money is in M (Mark).  Every function returns plain JSON-able data; the page inserts
every text as text (never as markup).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from rhineland.board.names import location_name
from rhineland.engine.actions import Dividend, RunRoutes
from rhineland.engine.entities import IPO, MARKET
from rhineland.engine.game import Game
from rhineland.io.describe import round_words, who
from rhineland.io.export import standing_positions
from rhineland.render.style import TILE_FILL, colors_of

# -- the cards -------------------------------------------------------------------------------


def _hexes(game: Game, hexes: Sequence[str]) -> str:
    names = [location_name(game.board.spec, h) for h in hexes]
    if len(names) > 4:
        return f"one of {len(names)} hexes ({', '.join(hexes)})"
    return " or ".join(names)


def _tile_colors(game: Game, tiles: Sequence[str]) -> str:
    colors: list[str] = []
    for name in tiles:
        tile = game.data.tiles.get(name)
        if tile is not None and tile.color not in colors:
            colors.append(tile.color)
    return " or ".join(colors) if colors else "a"


def _share_words(game: Game, share: str) -> str:
    sym, _, index = share.rpartition("_")
    try:
        spec = game.data.corporation(sym)
        pct = spec.shares[int(index)]
    except (KeyError, ValueError, IndexError):
        return f"the share {share}"
    return (f"the president's certificate ({pct}%) of {sym}" if int(index) == 0
            else f"a {pct}% share of {sym}")


def _when(ability: Mapping[str, Any]) -> str:
    when = ability.get("when") or []
    if "owning_player_sr_turn" in when:
        return "in a stock round, on its owner's turn"
    if "owning_player_or_turn" in when:
        return "when a company its owner presides operates"
    return ""


def ability_words(game: Game, ability: Mapping[str, Any]) -> str | None:
    """One ability record of the title data (``entities.json``) as a sentence, e.g.
    ``{"type": "blocks_hexes", "hexes": ["E14"]}`` -> ``"Blocks Ratingen (E14): no tile
    may be laid there while a player owns it."``; ``None`` for a record that says nothing
    to a player (``base``)."""
    kind = ability.get("type")
    once = "Once" if ability.get("count") == 1 else "It may"
    when = _when(ability)
    when = f", {when}" if when else ""
    if kind == "blocks_hexes":
        return f"Blocks {_hexes(game, ability.get('hexes', []))}: no tile may be laid " \
               "there while a player owns it."
    if kind == "teleport":
        names = list(ability.get("tiles", []))
        tiles = f"tile {names[0]}" if len(names) == 1 else \
            f"a {_tile_colors(game, names)} tile ({', '.join(names)})"
        free = " for free" if ability.get("free_tile_lay") else ""
        return f"{once}{when}: lay {tiles}{free} on {_hexes(game, ability.get('hexes', []))}" \
               " and place a token there, even off the company's network."
    if kind == "tile_lay":
        free = " free of cost" if ability.get("free") else ""
        reach = "" if ability.get("reachable") else " (no connection to the company needed)"
        color = _tile_colors(game, ability.get("tiles", []))
        return f"{once}{when}: lay a {color} tile{free} on " \
               f"{_hexes(game, ability.get('hexes', []))}{reach}."
    if kind == "shares":
        got = " and ".join(_share_words(game, s) for s in ability.get("shares", []))
        return f"Its buyer receives {got}."
    if kind == "close":
        if "par" in (ability.get("when") or []):
            return f"Closes when {ability.get('corporation', 'its corporation')} is parred."
        return "Closes " + " or ".join(ability.get("when") or ["at some point"]) + "."
    if kind == "no_buy":
        return "Cannot be sold to a corporation."
    if kind == "exchange":
        corps = ", ".join(ability.get("corporations", []))
        src = " or ".join("the market" if s == "market" else "the IPO"
                          for s in ability.get("from", []))
        lead = f"{_when(ability).capitalize()}, its owner" if _when(ability) else "Its owner"
        return f"{lead} may exchange it for a share of {corps} from {src or 'the bank'}."
    if kind == "blocks_partition":
        return None  # the rules say what the water partition means (not the data)
    if kind == "base":
        return None
    return str(kind).replace("_", " ").capitalize() + "."


def _closing(game: Game) -> dict[str, str]:
    """Private symbol (``"*"``: every private) -> the train type whose first purchase
    closes it, from the trains' events (``close_companies``, ``<sym>_closed``)."""
    out: dict[str, str] = {}
    syms = {p.sym.lower(): p.sym for p in game.data.privates}
    for train in game.data.trains:
        for event in train.events:
            if event == "close_companies":
                out.setdefault("*", train.name)
            elif event.endswith("_closed") and event.removesuffix("_closed") in syms:
                out.setdefault(syms[event.removesuffix("_closed")], train.name)
    return out


def _merger_words(game: Game) -> dict[str, str]:
    """1893: what each merging company (a minor's proxy, the HdSK) is exchanged for."""
    if game.data.title != "1893":
        return {}
    from rhineland.titles.g1893.constants import MERGERS

    out = {}
    for corp, parts in MERGERS.items():
        for sym, index in parts:
            out[sym] = f"Exchanged for {_share_words(game, f'{corp}_{index}')} when " \
                       f"{corp} is founded (the owners vote on it)."
    return out


def _owner_words(game: Game, owner: int | str | None, closed: bool = False) -> str:
    if closed:
        return "closed"
    if isinstance(owner, int):
        return who(game, owner)
    if owner in (None, "bank"):
        return "the bank (for sale)"
    return str(owner)


def _bond(sym: str) -> bool:
    return sym.startswith("AdSK")


def company_cards(game: Game) -> list[dict[str, Any]]:
    """The private companies and minors as cards, in the title's order: ``{"sym",
    "name", "kind"`` (``"private"``, ``"minor"``, ``"bonds"``), ``"value"`` (face value,
    M), ``"revenue"`` (M per OR; a minor's: its last run), ``"abilities"`` (sentences),
    ``"owner"`` (a name, a company or ``"the bank (for sale)"``), ``"owner_id"``
    (player id or ``None``), ``"closed"``, and for a minor ``"home"``, ``"cash"``,
    ``"trains"``}.  The ten 1893 bonds (AdSK) are one card of ``"count"`` bonds with
    their ``"owners"`` (name -> number held)."""
    closing = _closing(game)
    mergers = _merger_words(game)
    revenue = last_revenues(game)
    out: list[dict[str, Any]] = []
    bonds: dict[str, Any] | None = None
    for spec in game.data.privates:
        priv = game.privates[spec.sym]
        if _bond(spec.sym):
            if bonds is None:
                bonds = {"sym": "AdSK", "name": spec.name.removeprefix("10 "), "kind": "bonds",
                         "value": spec.value, "revenue": spec.revenue, "count": 0,
                         "owners": {}, "closed": False, "owner": None, "owner_id": None,
                         "abilities": ["Bought and sold in the stock round like a share, "
                                       f"at {spec.value}M; pays {spec.revenue}M every "
                                       "operating round."]}
                out.append(bonds)
            bonds["count"] += 1
            name = _owner_words(game, priv.owner)
            bonds["owners"][name] = bonds["owners"].get(name, 0) + 1
            continue
        words = [w for w in (ability_words(game, a) for a in spec.abilities) if w]
        if spec.sym in mergers:
            words.append(mergers[spec.sym])
        closes = closing.get(spec.sym) or (closing.get("*") if spec.sym not in game.minors
                                            else None)
        if closes:
            words.append(f"Closes when the first {closes}-train is bought.")
        card: dict[str, Any] = {
            "sym": spec.sym, "name": spec.name, "kind": "private", "value": spec.value,
            "revenue": spec.revenue, "abilities": words,
            "owner": _owner_words(game, priv.owner, priv.closed),
            "owner_id": priv.owner if isinstance(priv.owner, int) else None,
            "closed": priv.closed}
        minor = game.minors.get(spec.sym)
        if minor is not None:
            card["kind"] = "minor"
            card["name"] = spec.name.removeprefix("Minor ")  # the minor's own is cut short
            card["home"] = location_name(game.board.spec, minor.spec.home)
            card["cash"] = minor.cash
            card["trains"] = [t.name for t in minor.trains]
            card["revenue"] = revenue.get(spec.sym, (None, None))[0]
            if minor.owner is not None and not minor.closed:
                card["owner"] = who(game, minor.owner)
                card["owner_id"] = minor.owner
            card["closed"] = minor.closed or priv.closed
            if card["closed"]:
                card["owner"] = "closed"
            card["abilities"].insert(0, "A minor company: it operates with one home token, "
                                        "pays half its revenue to its owner and keeps half.")
        out.append(card)
    return out


# -- the stock market ------------------------------------------------------------------------


def market_grid(game: Game) -> dict[str, Any]:
    """The stock market as rows of cells (``None``: no cell there), each ``{"price",
    "par"`` (a par cell), ``"types"``, ``"companies"`` (symbols on it, the top one
    first)``}``, and ``"colors"``: symbol -> ``[background, text]`` of every company."""
    at: dict[tuple[int, int], list[str]] = {}
    for c in game.corporations.values():
        cell = c.share_price
        if cell is not None and not c.closed:
            at.setdefault((cell.row, cell.col), []).append(c.sym)
    order = game.state.cell_order
    for syms in at.values():
        syms.sort(key=lambda s: order.get(s, 0))
    rows = [[None if cell is None else
             {"price": cell.price, "par": cell.is_par, "types": list(cell.types),
              "companies": at.get((r, col), [])}
             for col, cell in enumerate(row)]
            for r, row in enumerate(game.data.market)]
    return {"rows": rows, "colors": company_colors(game)}


def company_colors(game: Game) -> dict[str, list[str]]:
    """Symbol -> ``[background, text]`` colour of every corporation and minor."""
    package = type(game.title).package
    syms = [c.sym for c in game.data.corporations] + [m.sym for m in game.data.minors]
    return {s: list(colors_of(package, s)) for s in syms}


# -- the spreadsheet -------------------------------------------------------------------------


def last_revenues(game: Game) -> dict[str, tuple[int, str | None]]:
    """Company symbol -> (its last run's revenue in M, ``"payout"``/``"withhold"``/
    ``"half"`` or ``None``), from the standing ``run_routes`` and ``dividend`` actions; a
    minor's run is ``"half"`` (it pays half to its owner as it runs, with no dividend)."""
    out: dict[str, tuple[int, str | None]] = {}
    actions = game.actions
    for i in sorted(standing_positions(actions)):
        a = actions[i]
        if isinstance(a, RunRoutes):
            total = sum(int(r.get("revenue", 0)) for r in a.routes) + a.extra_revenue
            out[str(a.entity)] = (total, "half" if str(a.entity) in game.minors else None)
        elif isinstance(a, Dividend) and str(a.entity) in out:
            out[str(a.entity)] = (out[str(a.entity)][0], a.kind)
    return out


def cert_count(game: Game, pid: int) -> int:
    """The certificates of player ``pid`` that count toward the limit (the title's
    rules: privates too where they count)."""
    title = game.title
    n = sum(1 for c in game.corporations.values() for cert in c.certificates
            if cert.owner == pid and title.counts_for_cert_limit(game, c, cert))
    if game.data.rules.get("cert_limit_includes_privates", True):
        player = game.player(pid)
        n += sum(1 for s in player.companies if title.private_counts_for_cert_limit(game, s))
    return n


def spreadsheet(game: Game) -> dict[str, Any]:
    """The companies/players table of 18xx.games' spreadsheet: ``"players"``: per player
    in seat order
    ``{"id", "name", "cash", "value", "certs", "cert_limit", "shares"`` (symbol ->
    percent), ``"president_of"``, ``"privates"``, ``"priority"`` (holds the priority
    deal)``}``; ``"companies"``: per started corporation and owned minor, in operating
    order, ``{"sym", "name", "kind", "president"`` (name), ``"cash"``, ``"price"``,
    ``"par"``, ``"ipo"``, ``"market"`` (percent), ``"trains"``, ``"tokens_left"``,
    ``"tokens"`` (of the charter), ``"next_token"`` (M), ``"last_revenue"`` (M),
    ``"last_kind"``, ``"floated"``, ``"receivership"``, ``"privates"``}."""
    limit = game.title.cert_limit(game)
    revenue = last_revenues(game)
    seat_order = [p.id for p in game.seat_order()]
    players = []
    seats = {pid: i for i, (pid, _) in enumerate(game.seats)}
    for p in sorted(game.players, key=lambda p: seats.get(p.id, len(seats))):
        players.append({
            "id": p.id, "name": p.name, "cash": p.cash, "value": game.player_value(p),
            "certs": cert_count(game, p.id), "cert_limit": limit,
            "shares": {c.sym: c.percent_of(p.id) for c in game.corporations.values()
                       if c.percent_of(p.id)},
            "president_of": [c.sym for c in game.corporations.values()
                             if c.president == p.id and not c.closed],
            "privates": [s for s in p.companies if not _bond(s)],
            "bonds": sum(1 for s in p.companies if _bond(s)),
            "bankrupt": p.bankrupt,
            "priority": bool(seat_order) and seat_order[0] == p.id})
    companies: list[dict[str, Any]] = []
    started = [c for c in game.corporations.values() if c.ipoed and not c.closed]
    try:
        order = {s: i for i, s in enumerate(game.title.operating_order(game))}
    except Exception:  # the order is a rule's; a position it cannot sort keeps the data's
        order = {}
    started.sort(key=lambda c: order.get(c.sym, len(order)))
    for m in game.minors.values():
        if m.owner is None or m.closed:
            continue
        last, kind = revenue.get(m.sym, (None, None))
        companies.append({
            "sym": m.sym, "name": m.spec.name, "kind": "minor",
            "president": who(game, m.owner), "cash": m.cash, "price": None, "par": None,
            "ipo": None, "market": None, "trains": [t.name for t in m.trains],
            "tokens_left": len(m.spec.tokens) - len(m.tokens), "tokens": len(m.spec.tokens),
            "next_token": None, "last_revenue": last, "last_kind": kind,
            "floated": m.floated, "receivership": False, "privates": []})
    for c in started:
        last, kind = revenue.get(c.sym, (None, None))
        pres = c.president
        companies.append({
            "sym": c.sym, "name": c.spec.name, "kind": "corporation",
            "president": who(game, pres) if pres is not None else None,
            "cash": c.cash, "price": c.share_price.price if c.share_price else None,
            "par": c.par_price.price if c.par_price else None,
            "ipo": c.percent_of(IPO), "market": c.percent_of(MARKET),
            "trains": [t.name for t in c.trains], "tokens_left": c.tokens_left,
            "tokens": len(c.spec.tokens),
            "next_token": c.next_token_price if c.tokens_left else None,
            "last_revenue": last, "last_kind": kind, "floated": c.floated,
            "receivership": c.receivership,
            "privates": [p.sym for p in game.privates.values()
                         if p.owner == c.sym and not p.closed]})
    return {"players": players, "companies": companies}


# -- the train roster and the tile manifest --------------------------------------------------


EVENT_WORDS = {"close_companies": "closes the private companies",
               "remove_tile_block": "opens the closed Rhine crossings"}
"""What a train's first purchase does, in words, for the events not named by a company."""


def event_words(game: Game, event: str) -> str:
    """A train event in words: :data:`EVENT_WORDS`, ``<corporation>_buyable`` (its shares
    buyable on the market), ``<corporation>_founded``, ``<private>_closed``."""
    if event in EVENT_WORDS:
        return EVENT_WORDS[event]
    head, _, what = event.rpartition("_")
    syms = {c.sym.lower(): c.sym for c in game.data.corporations}
    syms |= {p.sym.lower(): p.sym for p in game.data.privates}
    sym = syms.get(head)
    words = {"buyable": f"{sym} shares buyable on the market", "founded": f"founds {sym}",
             "closed": f"closes {sym}"}
    return words[what] if sym is not None and what in words else event.replace("_", " ")


def train_roster(game: Game) -> list[dict[str, Any]]:
    """Per train type, in the depot's order: ``{"name", "price"`` (M), ``"count"``,
    ``"depot"`` (left in the depot), ``"market"`` (in the open market), ``"owners"``
    (company symbol -> number), ``"rusted"``, ``"rusts_on"`` (the type whose first
    purchase rusts it, or ``None``), ``"rusts"`` (the types its first purchase rusts),
    ``"phase"`` (the phase it opens: ``{"name", "tiles", "train_limit", "ors"}`` or
    ``None``), ``"available_on"``, ``"trade_in"`` (type -> discount M), ``"events"``
    (:func:`event_words`),
    ``"next"`` (the depot's next train)``}``."""
    depot = game.depot_trains()
    next_name = depot[0].name if depot else None
    rows = []
    for spec in game.data.trains:
        trains = [t for t in game.state.trains if t.spec is spec or t.name == spec.name]
        owners: dict[str, int] = {}
        for t in trains:
            if t.owner not in (None, MARKET) and not t.rusted:
                owners[str(t.owner)] = owners.get(str(t.owner), 0) + 1
        phase = next((p for p in game.data.phases if p.on == spec.name), None)
        rows.append({
            "name": spec.name, "price": spec.price, "count": spec.count,
            "depot": sum(1 for t in trains if t.owner is None and not t.rusted),
            "market": sum(1 for t in trains if t.owner == MARKET and not t.rusted),
            "owners": owners, "rusted": sum(1 for t in trains if t.rusted),
            "rusts_on": spec.rusts_on,
            "rusts": [o.name for o in game.data.trains if o.rusts_on == spec.name],
            "phase": None if phase is None else {
                "name": phase.name, "tiles": list(phase.tiles),
                "train_limit": (phase.train_limit if isinstance(phase.train_limit, int)
                                else dict(phase.train_limit)),
                "ors": phase.operating_rounds},
            "available_on": spec.available_on,
            "trade_in": dict(spec.discount or {}),
            "events": [event_words(game, e) for e in spec.events],
            "next": spec.name == next_name})
    return rows


COLOR_ORDER = ("yellow", "green", "brown", "gray")


def tile_manifest(game: Game) -> list[dict[str, Any]]:
    """The tiles left by colour (yellow, green, brown, gray, then any other):
    ``{"color", "fill"`` (CSS colour), ``"left"``, ``"count"``, ``"allowed"`` (the
    phase allows the colour), ``"tiles": [{"name", "left", "count"}]}``."""
    board = game.board
    by_color: dict[str, list[dict[str, Any]]] = {}
    for name, tile in board.manifest.items():
        if not tile.count:
            continue
        left = len(board.supply.get(name, ()))
        by_color.setdefault(tile.color, []).append(
            {"name": name, "left": left, "count": tile.count})
    colors = sorted(by_color, key=lambda c: (COLOR_ORDER.index(c) if c in COLOR_ORDER
                                             else len(COLOR_ORDER), c))
    allowed = set(game.phase.tiles)
    return [{"color": c, "fill": TILE_FILL.get(c, "#dddddd"),
             "left": sum(t["left"] for t in by_color[c]),
             "count": sum(t["count"] for t in by_color[c]), "allowed": c in allowed,
             "tiles": by_color[c]} for c in colors]


# -- the log ---------------------------------------------------------------------------------


def log_rounds(game: Game) -> list[str]:
    """The label of the round each line of ``game.log`` was written in (``"SR 1"``,
    ``"OR 2.1"``, ...): :meth:`~rhineland.engine.game.Game.log_rounds`."""
    return game.log_rounds()


_TRAIN_ID = re.compile(r"(?<![\w+])(\d+(?:\+x)?)-\d+-train\b")
_TRADE = re.compile(r"trades in (\d+(?:\+x)?)-\d+ for (\d+(?:\+x)?)-\d+ paying (\d+)M")
_DISCARD = re.compile(r"discards (\d+(?:\+x)?)-\d+$")
_ON_HEX = re.compile(r"\b(on|to) ([A-Z]\d{1,2})\b")
_PLURAL = {"You", "you", "We", "we", "They", "they"}
_VERBS = {"has": "have", "is": "are", "was": "were", "goes": "go", "passes": "pass",
          "does": "do", "may": "may"}


def log_sentence(game: Game, line: str) -> str:
    """A log line in plain English: train ids as types (``"runs a 2-0-train"`` ->
    ``"runs a 2-train"``), hexes with their place names, the verb agreeing with a player
    named "You" (``"You buys PWB"`` -> ``"You buy PWB"``)."""
    line = _TRAIN_ID.sub(r"\1-train", line)
    line = _TRADE.sub(r"trades in a \1-train for a \2-train, paying \3M", line)
    line = _DISCARD.sub(r"discards a \1-train", line)
    spec = game.board.spec
    line = _ON_HEX.sub(lambda m: f"{m.group(1)} {location_name(spec, m.group(2))}", line)
    for p in game.players:
        if p.name not in _PLURAL:
            continue
        for lead in (f"{p.name} ", f": {p.name} "):
            at = 0 if lead[0] != ":" else line.find(lead)
            if at < 0 or not line.startswith(lead, at):
                continue
            start = at + len(lead)
            verb, sep, rest = line[start:].partition(" ")
            plain = _VERBS.get(verb) or (verb[:-1] if verb.endswith("s") else verb)
            line = line[:start] + plain + sep + rest
    return line


def log_sections(game: Game, last: int) -> list[dict[str, Any]]:
    """The last ``last`` log lines as sentences (:func:`log_sentence`) under their round
    headings: ``[{"round": "OR 1.1", "heading": ..., "lines": [...]}]``, oldest first
    (one section ``"round": ""`` when the rounds cannot be told)."""
    labels = log_rounds(game)
    start = max(0, len(game.log) - last)
    out: list[dict[str, Any]] = []
    for i in range(start, len(game.log)):
        label = labels[i] if labels else ""
        if not out or out[-1]["round"] != label:
            out.append({"round": label, "heading": round_words(label) if label else "",
                        "lines": []})
        out[-1]["lines"].append(log_sentence(game, game.log[i]))
    return out
