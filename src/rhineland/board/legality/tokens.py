"""Legal token placements: :func:`legal_tokens` lists them, :func:`check_token` checks one."""

from __future__ import annotations

from rhineland.board.graph import Connectivity
from rhineland.board.legality.rules import (
    LayContext,
    TokenSpot,
)
from rhineland.errors import GameError

# -- tokens -----------------------------------------------------------------------------


def _token_error(
    ctx: LayContext, hex_id: str, city_index: int, conn: Connectivity | None
) -> str | None:
    """Why the next token may not go there (None: it may); ``conn`` None skips connection."""
    board = ctx.board
    placed = board.tiles[hex_id]
    cities = placed.tile.cities
    if city_index < 0 or city_index >= len(cities):
        return f"{hex_id} has no city {city_index}"
    if ctx.next_token_price is None:
        return f"{ctx.entity} has no tokens left"
    if conn is not None and not conn.city_connected(board, hex_id, city_index):
        return f"city {city_index} of {hex_id} is not connected to {ctx.entity}'s network"
    tokens = board.tokens_in(hex_id, city_index)
    reserved = ctx.rules.reservations(board, hex_id, city_index)
    free = cities[city_index].slots - len(tokens) - len(reserved)
    if ctx.entity not in reserved and free <= 0:
        return f"no free token slot in city {city_index} of {hex_id}"
    price = _token_price(ctx)
    if price > ctx.cash:
        return f"the token costs {price}M but {ctx.entity} has {ctx.cash}M"
    for ci in range(len(cities)):
        if ctx.entity in board.tokens_in(hex_id, ci):
            return f"{ctx.entity} already has a token on {hex_id}"
    return None


def _token_price(ctx: LayContext) -> int:
    price = ctx.next_token_price or 0
    if ctx.teleported:
        return ctx.rules.teleport_token_price(ctx.teleported, price)
    return price


def _token_hexes(ctx: LayContext) -> tuple[list[str], Connectivity | None]:
    """Candidate hexes for the next token, and the network to check (None: teleport)."""
    if ctx.teleported:
        hexes = [h for h in ctx.rules.teleport_token_hexes(ctx.teleported) if h in ctx.board.tiles]
        return hexes, None
    conn = ctx.connectivity()
    return sorted(conn.node_hexes), conn


def legal_tokens(ctx: LayContext) -> list[TokenSpot]:
    """Every city where ``ctx.entity`` may place its next token now, with the price in M.

    Normally a city its network reaches; right after a teleport lay
    (``ctx.teleported``) a city in that ability's hexes, connected or not.
    """
    out: list[TokenSpot] = []
    if ctx.next_token_price is None:
        return out
    price = _token_price(ctx)
    if price > ctx.cash:  # refused in every city: no need to walk the network
        return out
    hexes, conn = _token_hexes(ctx)
    for hex_id in hexes:
        n = len(ctx.board.tiles[hex_id].tile.cities)
        for ci in range(n):
            if _token_error(ctx, hex_id, ci, conn) is None:
                out.append(TokenSpot(hex_id, ci, price))
    out.sort()
    return out


def check_token(ctx: LayContext, hex_id: str, city_index: int) -> int:
    """Price in M of placing ``ctx.entity``'s next token in city ``city_index`` of ``hex_id``.

    Raises :class:`GameError` (rule ``token.place``) when the city is not
    connected (or, after a teleport, not in the ability's hexes), full,
    reserved for others, the entity already has a token in that hex, or it
    cannot pay.
    """
    if hex_id not in ctx.data.map.hexes:
        raise GameError(f"no hex {hex_id!r} on the map", "token.place")
    hexes, conn = _token_hexes(ctx)
    if conn is None and hex_id not in hexes:
        raise GameError(
            f"after {ctx.teleported}'s teleport a token may go only on {', '.join(hexes)}",
            "token.place",
        )
    err = _token_error(ctx, hex_id, city_index, conn)
    if err is not None:
        raise GameError(err, "token.place")
    return _token_price(ctx)
