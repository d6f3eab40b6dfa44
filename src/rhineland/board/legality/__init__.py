"""Legal tile lays and token placements for the entity that is operating.

The engine fills a :class:`LayContext` (plain fields: board, title data, the
title's :class:`BoardRules`, the acting corporation/minor, phase, cash in M,
the private companies' state) and calls:

* :func:`legal_tile_lays` -> every legal :class:`Lay` (normal lays and the
  special lays of private companies usable now);
* :func:`check_tile_lay` -> the cost in M of one lay, or :class:`GameError`;
* :func:`legal_tokens` -> every legal :class:`TokenSpot`;
* :func:`check_token` -> the token price in M, or :class:`GameError`.

A lay is legal when the usual 18xx track rules allow it (the reference engine
tobymao/18xx is the rule source; see each check's ``rule`` name):

``track.hex``        the hex is on the map and not blocked by a private company;
``track.connected``  (normal lays) the hex is reached by the entity's network;
``track.supply``     an unused copy of the tile exists;
``track.phase``      the tile's colour is allowed in the current phase;
``track.upgrade``    the tile may replace the hex's tile (:mod:`rhineland.board.upgrades`
                     plus title exceptions in :meth:`BoardRules.upgrades_to`);
``track.rotation``   every exit leads to a hex track may enter, one exit touches the
                     network (or any neighbour for private lays), old track and
                     cities are kept, stubs are used, title hooks;
``track.restriction`` (corporations/minors) "semi-restrictive": towns/cities keep
                     their edges, and the new tile must add track the network
                     uses or change the value of a city it reaches;
``track.cash``       the terrain cost (M) is affordable.

Title differences are hooks of :class:`BoardRules`; each title subclasses it in
``titles/<title>/board_rules.py``.
"""

from __future__ import annotations

from rhineland.board.legality.rules import (
    BoardRules,
    Lay,
    LayContext,
    PrivateState,
    SpecialAbility,
    TokenSpot,
    remap_tokens,
)
from rhineland.board.legality.tile_lays import (
    check_tile_lay,
    legal_special_lays,
    legal_tile_lays,
    passes_restriction,
    tile_lay_options,
)
from rhineland.board.legality.tokens import check_token, legal_tokens

__all__ = [
    "BoardRules",
    "Lay",
    "LayContext",
    "PrivateState",
    "SpecialAbility",
    "TokenSpot",
    "check_tile_lay",
    "check_token",
    "legal_special_lays",
    "legal_tile_lays",
    "legal_tokens",
    "passes_restriction",
    "remap_tokens",
    "tile_lay_options",
]
