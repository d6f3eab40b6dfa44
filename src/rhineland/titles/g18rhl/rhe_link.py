"""18Rhl's Köln–Düren–Aachen link (private No. 6): while RhE's bonus of 3 x its par
is pending, each company's track step ends with a check of the link, and the bank
pays RhE the bonus the first time it exists.  Source: the rules summary (seed 000)
and the reference engine's automatic ``destination_connection``, as the oracle
traces record it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rhineland.board.graph import walk_from
from rhineland.engine.actions import DestinationConnection
from rhineland.titles.g18rhl.state import RHE, rhl_state

if TYPE_CHECKING:
    from rhineland.engine.game import Game


def rhe_link_established(game: Game) -> bool:
    """Whether Düren (K6) is linked by track with Aachen (K2) and with Köln (I10).

    Each link counts when, for some operated corporation, the walk from the
    first revenue node of the destination hex (passing only cities that do not
    block that corporation) reaches Düren's city (private No. 6; the reference
    engine's check, as the oracle traces record it).
    """
    board = game.board
    duren = _first_node(board, "K6", cities_only=True)
    if duren is None:
        return False
    rules = game.title.board_rules
    operated = [c.sym for c in game.corporations.values() if c.operated and not c.closed]
    for dest in ("K2", "I10"):
        start = _first_node(board, dest)
        if start is None or not any(
            duren in walk_from(board, sym, rules, start).nodes for sym in operated
        ):
            return False
    return True


def _first_node(board: Any, hex_id: str, cities_only: bool = False) -> tuple[str, int] | None:
    tile = board.tiles[hex_id].tile
    nodes = [n for n in tile.nodes if n.is_city or not cities_only]
    return (hex_id, nodes[0].part) if nodes else None


def check_rhe_link(game: Game, entity: Any) -> None:
    """At the end of ``entity``'s track step, while RhE's 3 x par is pending: if the
    Köln–Düren–Aachen link (private No. 6) exists, the bank pays RhE the bonus.

    Each check is an automatic ``destination_connection`` of ``entity`` in the
    reference engine (``corporations``: ``[RhE]`` when the link exists, else ``[]``),
    recorded in the ``auto_actions`` of the action that led to it
    (:meth:`~rhineland.engine.game.Game.record_auto`); ``rhe_link_now`` keeps the
    result, which a recorded ``destination_connection`` must agree with."""
    state = rhl_state(game)
    state.rhe_link_now = None
    if not state.rhe_link_bonus:
        return
    state.rhe_link_now = False
    if rhe_link_established(game):
        bonus = state.rhe_link_bonus
        state.rhe_link_bonus = 0
        state.rhe_link_now = True
        game.pay(game.bank, game.corporation(RHE), bonus)
        game.add_log(f"A link Köln–Düren–Aachen exists: {RHE} receives {bonus}M")
    game.record_auto(DestinationConnection(
        entity=entity.sym, entity_type="corporation",
        corporations=(RHE,) if state.rhe_link_now else ()))
