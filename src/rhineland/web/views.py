"""What the API shows of a game: its state, a seat's legal actions, the drawings.

Money is in M (Mark).  Legal actions come from ``Game.legal_actions()`` only (the page
never works out a rule): each entry is ``{"action": export record, "text": ..., "cost":
...}`` (the text as a player says it, :func:`~rhineland.io.describe.spoken`; the cost in
M, the least of a range, negative for money received, ``None`` for none), with
``"amount": {"field", "min", "max", "step"}`` for a decision with an amount (a bid, a
price) and ``"routes": "best"`` for a run (the action then holds the best routes,
``"trains"`` the train ids of the company: the page edits a train's route by its
stops and sends them to ``POST /api/games/{id}/routes``);
tile lays and tokens carry the ``hex`` they are on, so the page can offer them when a
hex is clicked.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from rhineland.engine.actions import LayTile, PlaceToken
from rhineland.engine.entities import IPO, MARKET
from rhineland.engine.legal import AmountRange, RouteChoice
from rhineland.errors import GameError
from rhineland.io.describe import player_status, round_words, spoken
from rhineland.render import render_svg, svg
from rhineland.render.panels import draw_panels
from rhineland.render.routes import routes_to_draw
from rhineland.web.page import (
    company_cards,
    market_grid,
    spreadsheet,
    tile_manifest,
    train_roster,
)
from rhineland.web.page import log_sections as _log_sections

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.web.store import Live

LOG_LINES = 60
"""How many of the last log lines the state carries in ``log``."""

LOG_SECTION_LINES = 300
"""How many of the last log lines the state carries in ``log_sections``."""


def state_view(live: Live, seat: int | None = None, now: int | None = None) -> dict[str, Any]:
    """The game's state for a page: setup, whose turn (``acting``: player ids),
    ``last_action_id`` (send it back with an action), players, companies, bank, phase,
    the last :data:`LOG_LINES` log lines, ``clock`` (:func:`clock_view` at ``now``, Unix
    seconds) and ``result`` (player id -> score in M) once finished.  ``seat``: the
    player id of the asking seat (``None``: a spectator).

    ``status`` is in words (no step name); the player's page reads ``cards``
    (:func:`~rhineland.web.page.company_cards`), ``market``
    (:func:`~rhineland.web.page.market_grid`), ``sheet``
    (:func:`~rhineland.web.page.spreadsheet`), ``roster``
    (:func:`~rhineland.web.page.train_roster`), ``tiles``
    (:func:`~rhineland.web.page.tile_manifest`) and ``log_sections`` (the last
    :data:`LOG_SECTION_LINES` lines as sentences under round headings,
    :func:`~rhineland.web.page.log_sections`); ``rounds`` (:func:`round_starts`) and
    ``history`` (``None`` here: the position now; a past position's state,
    ``GET /api/games/{id}?at=N``, has ``{"at", "of", "last_action_id"}``) let it step
    through the game's positions."""
    game = live.game
    finished = game.is_terminal
    acting = [] if finished else game.acting_entities()
    out: dict[str, Any] = {
        "id": live.id,
        "title": game.data.title,
        "description": live.description,
        "seat": seat,
        "last_action_id": live.last_action_id,
        "n_actions": live.n_actions,
        "finished": finished,
        "status": player_status(game),
        "round": game.round.label if game.state.round is not None else "",
        "phase": game.phase.name,
        "bank": game.bank.cash,
        "acting": acting,
        "players": [_player(game, live, p.id) for p in game.players],
        "corporations": _companies(game),
        "log": game.log[-LOG_LINES:],
        "log_sections": _log_sections(game, LOG_SECTION_LINES),
        "cards": company_cards(game),
        "market": market_grid(game),
        "sheet": spreadsheet(game),
        "roster": train_roster(game),
        "tiles": tile_manifest(game),
        "train_limit": _train_limit(game),
        "result": ({str(k): v for k, v in game.result().items()} if finished else None),
        "clock": clock_view(live, acting, int(time.time()) if now is None else now),
        "rounds": round_starts(live.rounds),
        "history": None,
    }
    if seat is not None and not finished:
        out["can_undo"] = _may_undo(live, seat)
    return out


def round_starts(rounds: list[str]) -> list[dict[str, Any]]:
    """Where each round begins among the positions of a game (``rounds[i]``: the round
    after the first ``i`` actions, :attr:`~rhineland.web.store.Live.rounds`):
    ``[{"at": i, "round": "SR 1", "heading": "SR 1"}]``, oldest first (``heading`` in
    words: :func:`~rhineland.io.describe.round_words`)."""
    out: list[dict[str, Any]] = []
    for i, label in enumerate(rounds):
        if i == 0 or label != rounds[i - 1]:
            out.append({"at": i, "round": label,
                        "heading": round_words(label) if label else "game over"})
    return out


def _train_limit(game: Game) -> dict[str, int]:
    limit = game.phase.train_limit
    return {"corporation": limit, "minor": limit} if isinstance(limit, int) else dict(limit)


def clock_view(live: Live, acting: list[int], now: int) -> dict[str, Any] | None:
    """The chess clock (``None`` without one): ``limit`` (seconds per player), ``used``
    and ``left`` (seconds, by player id as a string; negative when out of time),
    ``running`` (the player whose time runs now, or ``None``) and ``out_of_time``
    (player ids).  An action's thinking time runs from the action before it (or the
    game's creation) to its ``created_at`` and counts for the seat that sent it; the
    time since the last action counts for the player to act."""
    if live.clock is None:
        return None
    used = {pid: 0 for pid, _ in live.game.seats}
    prev = live.created_at
    for action, sender in zip(live.game.actions, live.senders, strict=True):
        t = action.created_at if action.created_at is not None else prev
        if sender in used:
            used[sender] += max(0, t - prev)
        prev = max(prev, t)
    running = acting[0] if acting else None
    if running in used:
        used[running] += max(0, now - prev)
    left = {pid: live.clock - u for pid, u in used.items()}
    return {"limit": live.clock, "used": {str(k): v for k, v in used.items()},
            "left": {str(k): v for k, v in left.items()}, "running": running,
            "out_of_time": [pid for pid, v in left.items() if v < 0]}


def _player(game: Game, live: Live, pid: int) -> dict[str, Any]:
    p = game.player(pid)
    shares = {c.sym: c.percent_of(pid) for c in game.corporations.values()
              if c.percent_of(pid)}
    return {"id": pid, "name": p.name, "cash": p.cash, "value": game.player_value(p),
            "bankrupt": p.bankrupt, "shares": shares, "privates": list(p.companies),
            "bot": live.bot_names.get(pid)}


def _companies(game: Game) -> list[dict[str, Any]]:
    out = []
    for c in game.corporations.values():
        if not c.ipoed or c.closed:
            continue
        out.append({"sym": c.sym, "president": c.president, "cash": c.cash,
                    "price": c.share_price.price if c.share_price else None,
                    "par": c.par_price.price if c.par_price else None,
                    "floated": c.floated, "trains": [t.name for t in c.trains],
                    "tokens": [h for h, _ in c.tokens], "tokens_left": c.tokens_left,
                    "ipo": c.percent_of(IPO), "market": c.percent_of(MARKET)})
    for m in game.minors.values():
        if m.owner is None or m.closed:
            continue
        out.append({"sym": m.sym, "president": m.owner, "cash": m.cash, "price": None,
                    "par": None, "floated": m.floated, "trains": [t.name for t in m.trains],
                    "tokens": [h for h, _ in m.tokens], "tokens_left": None,
                    "ipo": None, "market": None})
    return out


def _may_undo(live: Live, seat: int) -> bool:
    from rhineland.web.store import Refused

    try:
        live.undo_position(seat)
    except Refused:
        return False
    return True


def legal_view(live: Live, seat: int) -> list[dict[str, Any]]:
    """The legal actions of player ``seat`` now (``[]`` when another seat is to act or
    the game is over), as described in the module docstring."""
    game = live.game
    if game.is_terminal or seat not in game.acting_entities():
        return []
    token_hex, token_costs = _token_hexes(game)
    lay_costs = {(lay.hex, lay.tile, lay.rotation): lay.cost for lay in game.legal_tile_lays()}
    out: list[dict[str, Any]] = []
    for choice in game.legal_actions():
        named = choice.action if isinstance(choice, AmountRange) else choice
        if not game.decides_for(seat, named.entity_type, named.entity):
            continue  # another seat's (e.g. a discard of another crowded company)
        text, cost = spoken(game, choice, lay_costs, token_costs)
        entry: dict[str, Any] = {"text": text, "cost": cost}
        if isinstance(choice, AmountRange):
            entry["action"] = choice.action.to_json()
            entry["amount"] = {"field": choice.field, "min": choice.min, "max": choice.max,
                               "step": choice.step}
        elif isinstance(choice, RouteChoice):
            try:
                best = choice.best(game)
            except GameError:
                continue
            entry["action"] = best.to_json()
            entry["routes"] = "best"
            entry["trains"] = [t.id for t in game.title.operator(game, choice.entity).trains]
            revenue = sum(int(r.get("revenue", 0)) for r in best.routes)
            entry["text"] = f"{choice.entity}: run trains on the best routes ({revenue}M)"
            entry["revenue"] = revenue
        else:
            entry["action"] = choice.to_json()
            if isinstance(choice, LayTile):
                entry["hex"] = choice.hex
            elif isinstance(choice, PlaceToken):
                entry["hex"] = token_hex.get(choice.city)
        out.append(entry)
    return out


def _token_hexes(game: Game) -> tuple[dict[str, str], dict[str, int]]:
    """City id (``"<tile id>-<part>"``) -> hex, and -> price (M), of every legal token
    placement now."""
    hexes: dict[str, str] = {}
    prices: dict[str, int] = {}
    for spot in game.legal_tokens():
        placed = game.board.tile_at(spot.hex)
        part = placed.tile.cities[spot.city].part
        hexes[f"{placed.tile_id}-{part}"] = spot.hex
        prices[f"{placed.tile_id}-{part}"] = spot.price
    return hexes, prices


def map_svg(game: Game) -> str:
    """The map of the position as an SVG document (hexes carry ``data-hex``)."""
    return render_svg(game, panels=False)


def best_map_svg(game: Game, entity: str, routes: list[dict[str, Any]]) -> str:
    """The map with ``entity``'s ``routes`` (export route dicts, e.g. the best found)
    drawn over it, each train in its colour, with a legend of stops and revenue."""
    return render_svg(game, routes=routes_to_draw(game, entity, routes, "best"),
                      panels=False)


def panels_svg(game: Game) -> str:
    """The stock market, companies, players and depot as an SVG document."""
    body, w, h = draw_panels(game, 10, 10)
    background = svg.element("rect", x=0, y=0, width=w + 20, height=h + 20, fill="#ffffff")
    return svg.document(w + 20, h + 20, [background, body], title=game.data.title)
