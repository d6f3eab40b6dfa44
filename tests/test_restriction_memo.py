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

    from rhineland.board.legality import rules as board_rules

    # Start from empty memos: earlier tests may have filled them (the lay options and fit
    # checks of these very positions then come from their memos, and nothing asks the tile
    # memos again).
    for memo in (tile_lays._RESTRICTION_MEMO, tile_lays._NEW_TRACK, tile_lays._KEEPS,
                 tile_lays._KEPT_ALIVE, tile_lays._OPTIONS_MEMO, board_rules._MEMOS):
        memo.clear()
    for game in random_positions("1893", 2, 300):
        game.legal_actions()
    memos = (tile_lays._RESTRICTION_MEMO, tile_lays._NEW_TRACK, tile_lays._KEEPS)
    assert all(memos)
    gc.collect()
    for memo in memos:
        assert not any(gc.is_tracked(k) or gc.is_tracked(v) for k, v in memo.items())
    for (_, _, _, rules, tile, _) in tile_lays._RESTRICTION_MEMO:
        assert rules in tile_lays._KEPT_ALIVE and tile in tile_lays._KEPT_ALIVE


def test_generic_upgrade_memo_is_plain_values() -> None:
    """The generic-upgrade memo (``board.upgrades._GENERIC``) holds plain keys and answers,
    which a garbage collection untracks, and the tiles its keys name (so no other object
    takes their id while an entry names it); its answers are the rule's."""
    import gc

    from rhineland.board import upgrades

    for game in random_positions("1893", 2, 300):
        game.legal_actions()
    assert upgrades._GENERIC
    gc.collect()
    assert not any(gc.is_tracked(k) or gc.is_tracked(v) for k, v in upgrades._GENERIC.items())
    tiles = upgrades._GENERIC_TILES
    for (old, new, special), answer in list(upgrades._GENERIC.items())[:500]:
        assert old in tiles and new in tiles
        assert answer == upgrades._generic_upgrades_to(tiles[old], tiles[new], special=special)


def test_network_edge_sets_are_shared() -> None:
    """Every walk's ``Connectivity.hexes`` holds the one shared frozenset of each set of
    edges (at most 64 of them: the cached walks add none of their own for a garbage
    collection to look through)."""
    from rhineland.board import graph

    conns = []
    for game in random_positions("1893", 2, 200):
        game.legal_actions()
        conns.extend(conn for _, conn in graph._CACHE.values())
    assert conns
    shared = {id(s) for s in graph._EDGE_SETS.values()}
    assert len(graph._EDGE_SETS) <= 64
    for conn in conns:
        for edges in conn.hexes.values():
            assert id(edges) in shared and graph._EDGE_SETS[edges] is edges
            assert edges <= frozenset(range(6))
