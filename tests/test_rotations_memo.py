"""The rotations a normal lay may take, memoised by the rules, are the checks' answer.

``tile_lays._rotations`` keeps, per hex, old tile and rotation, new tile, the edges the
network touches there and the part of the context the title's rotation rule reads
(``BoardRules.rotation_key``), the rotations that pass the geometric checks (an exit on
the network, the title's rotation rule, the fit).  At every track position of seeded
random games of both titles the memo's answer equals the checks made afresh; and 1893's
rotation rule reads the phase (in phase 2 no track may cross a Rhine passage's water),
so the same lay asked in phase 2 and then in phase 3 gets each phase's rotations."""

from __future__ import annotations

import pytest

from play import random_positions
from rhineland.board.board import Board
from rhineland.board.legality import LayContext, tile_lays
from rhineland.sim.selfplay import TITLE_PLAYERS
from rhineland.titles import get_title
from rhineland.titles.g1893.board_rules import CologneBoardRules

ACTIONS = 600


@pytest.mark.parametrize("title", sorted(TITLE_PLAYERS))
def test_memo_answers_the_checks(title: str) -> None:
    asked = hits = misses = 0
    for game in random_positions(title, 5, ACTIONS):
        ctx, _ = game.tile_lay_options()
        if ctx is None:
            continue
        memo = ctx.rules.rotations_memo
        conn = ctx.connectivity()
        for hex_id, reach in conn.hexes.items():
            placed = ctx.board.tiles[hex_id]
            for new in ctx.rules.upgrade_targets(hex_id, placed.tile, ctx.phase):
                fresh = tuple(r for r in range(6)
                              if tile_lays._rotation_ok(ctx, hex_id, new, r, reach))
                key = (hex_id, id(placed.tile), placed.rotation, id(new), reach,
                       ctx.rules.rotation_key(ctx))
                known = key in memo
                assert tile_lays._rotations(ctx, hex_id, placed, new, reach) == fresh
                assert memo[key] == fresh  # the answer is kept under its key
                hits += known
                misses += not known
                asked += 1
    assert asked > 500 and hits > 0 and misses > 0


def test_the_phase_is_part_of_1893s_key() -> None:
    data = get_title("1893").data
    rules = CologneBoardRules(data)
    rules.rotations_memo.clear()
    board = Board(data.map, data.tiles)
    placed = board.tiles["L5"]  # a Rhine passage: water on edge 4
    every = frozenset(range(6))
    got = {}
    for phase in ("2", "3"):
        colors = next(p.tiles for p in data.phases if p.name == phase)
        ctx = LayContext(board=board, data=data, rules=rules, entity="HGK", phase=phase,
                         tile_colors=colors, cash=500)
        (new,) = rules.upgrade_targets("L5", placed.tile, phase)
        got[phase] = (new.name, tile_lays._rotations(ctx, "L5", placed, new, every))
    assert got == {"2": ("K201", (0, 1, 2)), "3": ("K201", (0, 1, 2, 3))}
