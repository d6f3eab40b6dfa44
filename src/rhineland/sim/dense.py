"""Dense boards: late boards filled with every legal tile lay that adds track (issue 10).

A final board of a game is densified by the engine's own tile rules: every company
with a token on the board lays, in turn, its legal normal lays
(:func:`rhineland.board.legality.legal_tile_lays`, cash unlimited) that add track
paths, until no lay of any company adds track.  :func:`fill_tokens` then gives one
company a token in every free city slot.  ``bench/routes_dense.py`` times the
best-route search on such boards; the route tests check it against a brute force.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rhineland.board.legality import check_tile_lay, legal_tile_lays, remap_tokens
from rhineland.board.upgrades import geometry
from rhineland.engine.game import Game
from rhineland.errors import GameError
from rhineland.routes.model import RouteContext


def _paths(tile: Any, rotation: int) -> int:
    return len(geometry(tile, rotation).paths)


def tokened_companies(game: Game) -> list[Any]:
    """The open corporations and minors with a token on the board."""
    out: list[Any] = []
    every: list[Any] = [*game.corporations.values(), *game.minors.values()]
    for ent in every:
        if getattr(ent, "closed", False):
            continue
        if game.board.token_locations(ent.sym):
            out.append(ent)
    return out


def densify(game: Game) -> int:
    """Lay track until no company's legal lay adds any; returns the number of lays.

    Each round asks every tokened company for its legal normal lays (cash
    unlimited) and applies, hex by hex, the first lay that adds track paths and
    is still legal on the changed board (checked by asking again for that hex).
    """
    title = game.title
    board = game.board
    laid = 0
    while True:
        progress = False
        for ent in tokened_companies(game):
            lctx = dataclasses.replace(
                title.lay_context(game, None, ent), cash=10**9, tokened=True, bought_train=True
            )
            done: set[str] = set()
            for lay in legal_tile_lays(lctx):
                if lay.special or lay.hex in done:
                    continue
                old = board.tiles[lay.hex]
                new = game.data.tiles[lay.tile]
                if _paths(new, lay.rotation) <= _paths(old.tile, old.rotation):
                    continue
                if not board.supply.get(lay.tile):
                    continue
                try:  # still legal on the board changed by this round's lays
                    check_tile_lay(lctx, lay.hex, lay.tile, lay.rotation, None)
                except GameError:
                    continue
                seats = remap_tokens(board, lay.hex, new, lay.rotation)
                board.place_tile(lay.hex, board.supply[lay.tile][0], lay.rotation)
                title.reseat_tokens(game, lay.hex, seats)
                done.add(lay.hex)
                laid += 1
                progress = True
        if not progress:
            return laid


def fill_tokens(ctx: RouteContext) -> RouteContext:
    """A copy of ``ctx`` whose board has ``ctx.entity``'s token in every free city slot."""
    board = ctx.board.clone()
    for hex_id, placed in board.tiles.items():
        for ci, city in enumerate(placed.tile.cities):
            toks = board.tokens_in(hex_id, ci)
            if ctx.entity in toks:
                continue
            markers = [m for m in city.markers if m not in toks]
            if len(toks) + len(markers) < city.slots:
                board.add_token(hex_id, ci, ctx.entity)
    return dataclasses.replace(ctx, board=board)


def largest_types(game: Game) -> list[str]:
    """Train types of the current phase, largest first: not rusted, and either the phase's
    own train or earlier, or on sale early (``available_on`` this phase or before)."""
    data = game.data
    names = [t.name for t in data.trains]
    on = names.index(game.phase.on) if game.phase.on in names else len(names) - 1
    phases = [ph.name for ph in data.phases]
    now = phases.index(game.phase.name)
    alive = []
    for i, t in enumerate(data.trains):
        early = t.available_on in phases and phases.index(t.available_on) <= now
        if i > on and not early:
            continue
        if t.rusts_on is not None and t.rusts_on in names and names.index(t.rusts_on) <= on:
            continue
        alive.append(t)
    alive.sort(key=lambda t: (-t.city_stops, -sum(d.visit for d in t.distance), t.name))
    return [t.name for t in alive]
