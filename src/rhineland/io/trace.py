"""Reading oracle trace states (``*.trace.json``) back into board objects.

A trace entry records, per hex, the tile name and rotation of every hex whose
tile is no longer preprinted, and per corporation/minor its placed tokens as
``[hex, city index]``.  :func:`board_from_trace_state` rebuilds a
:class:`~rhineland.board.board.Board` from that, which lets board and route
rules be tested at any recorded position without replaying the game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rhineland.board.board import Board
from rhineland.engine.titledata import TitleData


def board_from_trace_state(data: TitleData, state: Mapping[str, Any]) -> Board:
    """A board with the trace state's tiles and tokens (tile copies taken in id order).

    ``state`` is a trace entry (or the trace's ``initial``).  Raises ``KeyError``
    for a tile name the title does not have.
    """
    board = Board(data.map, data.tiles)
    for hex_id, (name, rotation) in sorted(state.get("tiles", {}).items()):
        copy_id = board.supply[name][0]
        board.place_tile(hex_id, copy_id, rotation)
    for kind in ("corporations", "minors"):
        for sym, corp in state.get(kind, {}).items():
            if corp.get("closed"):
                continue
            for hex_id, city_index in corp.get("tokens", []):
                board.add_token(hex_id, city_index, sym)
    return board
