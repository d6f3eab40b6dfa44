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


def test_memo_entries_are_plain_values() -> None:
    """The memos keyed by ``id`` hold the objects named (so no other object takes their
    id while an entry names it) and plain keys and answers, which a garbage collection
    untracks: thousands of entries cost a full collection nothing."""
    import gc

    for game in random_positions("1893", 2, 300):
        game.legal_actions()
    memos = (tile_lays._RESTRICTION_MEMO, tile_lays._NEW_TRACK, tile_lays._KEEPS)
    assert all(memos)
    gc.collect()
    for memo in memos:
        assert not any(gc.is_tracked(k) or gc.is_tracked(v) for k, v in memo.items())
    for (_, _, _, rules, tile, _) in tile_lays._RESTRICTION_MEMO:
        assert rules in tile_lays._KEPT_ALIVE and tile in tile_lays._KEPT_ALIVE
