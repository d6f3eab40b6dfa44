"""The track restriction's plain-track shortcut gives the network walk's answer.

``tile_lays._plain_track_crossed`` answers "with this tile laid, does the entity's
network walk one of its new paths?" from the walk of the board as it stands, where an
upgrade of plain track only adds paths on edges no old path uses: a side of the hex the
old walk crossed towards, with the gauge of the new path there, is where the new walk
walks a new path.  At every track-step position of seeded random games of both titles,
for each normal upgrade option whose restriction asks a walk, wherever the shortcut
says yes the complete walk with the tile laid walks one of the new paths; and the
shortcut decides some of the cases (the walks it saves)."""

from __future__ import annotations

import pytest

from play import random_positions
from rhineland.board.graph import compute_connectivity, known_connectivity
from rhineland.board.legality import remap_tokens, tile_lays
from rhineland.board.upgrades import geometry
from rhineland.sim.selfplay import TITLE_PLAYERS

ACTIONS = 700


@pytest.mark.parametrize("title", sorted(TITLE_PLAYERS))
@pytest.mark.parametrize("seed", [4, 11])
def test_plain_track_shortcut_equals_the_walk(title: str, seed: int) -> None:
    asked = proven = 0
    for game in random_positions(title, seed, ACTIONS):
        ctx, lays = game.tile_lay_options()
        if ctx is None or known_connectivity(ctx.board, ctx.entity, ctx.rules) is None:
            continue
        for lay in lays:
            if lay.special:
                continue
            tile = ctx.data.tiles[lay.tile]
            placed = ctx.board.tiles[lay.hex]
            fresh = tile_lays._new_track(ctx.rules, placed.tile, placed.rotation, tile,
                                         lay.rotation)
            if not isinstance(fresh, tuple) or not fresh:
                continue
            wanted = frozenset(fresh)
            asked += 1
            if not tile_lays._plain_track_crossed(ctx, lay.hex, geometry(tile, lay.rotation),
                                                  wanted):
                continue
            proven += 1
            seats = remap_tokens(ctx.board, lay.hex, tile, lay.rotation)
            walked = compute_connectivity(ctx.board, ctx.entity, ctx.rules,
                                          override=(lay.hex, tile, lay.rotation, seats)).paths
            assert any((lay.hex, i) in walked for i in wanted), (lay, ctx.entity)
    # seed 4: 1893 77 of 3,654 proven, 18Rhl 40 of 1,902; seed 11: 10 of 499, 31 of 1,554
    assert asked > 100 and proven > 0
