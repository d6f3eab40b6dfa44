"""The track restriction's memo (``tile_lays._RESTRICTION_MEMO``, keyed by board version)
gives the answer worked out afresh: at every track-step position seeded random games of
both titles reach (bounded by action count), each lay option is checked twice through
the memo (the second a hit) and once without it; and the memo survives nothing it must
not: a lay renews the board version, so the next position asks again."""

from __future__ import annotations

import pytest

from play import random_positions
from rhineland.board.legality import tile_lays
from rhineland.sim.selfplay import TITLE_PLAYERS

ACTIONS = 900


@pytest.mark.parametrize("seed", [2, 5])
@pytest.mark.parametrize("title", sorted(TITLE_PLAYERS))
def test_memoised_restriction_equals_the_fresh_answer(title: str, seed: int) -> None:
    checked = refused = 0
    versions: set[int] = set()
    for game in random_positions(title, seed, ACTIONS):
        ctx, lays = game.tile_lay_options()
        if ctx is not None:
            versions.add(ctx.board.version)
            for lay in lays:
                if lay.special:
                    continue
                tile = ctx.data.tiles[lay.tile]
                fresh = tile_lays._restriction_refusal(ctx, lay.hex, tile, lay.rotation)
                assert tile_lays._restriction_error(ctx, lay.hex, tile, lay.rotation) == fresh
                assert tile_lays._restriction_error(ctx, lay.hex, tile, lay.rotation) == fresh
                checked += 1
                refused += fresh is not None
    assert checked > 50 and refused > 0 and len(versions) > 5
