"""The best-route search's setup caches give what a fresh build gives.

``_walk_table_memo`` (the completion bound's walk tables, reused across a search's
refills and between searches) and ``search_model.tracks`` (the segment tables, kept
while only tokens change) are checked against fresh builds on the recorded
``run_routes`` positions of both titles' real games (the first 12 of each).
"""

from __future__ import annotations

import dataclasses

import pytest

from rhineland.routes import search_model
from rhineland.routes.search import _WALKS, _Search, _walk_table, _walk_table_memo
from test_best_routes import GAMES, positions


@pytest.mark.parametrize("title", sorted(GAMES))
def test_walk_table_memo_equals_a_fresh_build(title: str) -> None:
    """Every memo answer equals ``_walk_table`` built anew; a second ask is the same
    object (reused), and at least one position has a table (a limited train)."""
    _WALKS.clear()
    tables = 0
    for pos in positions(title)[:12]:
        s = _Search(pos.ctx)
        for train in pos.ctx.trains:
            tm = s.model(train)
            got = _walk_table_memo(tm, s.board)
            assert got == _walk_table(tm, s.board)
            assert _walk_table_memo(tm, s.board) is got
            tables += got is not None
    assert tables > 0


@pytest.mark.parametrize("title", sorted(GAMES))
def test_tracks_kept_while_only_the_version_moves(title: str) -> None:
    """A graph differing only by version (a token placed: ``track_graph`` shares the walk
    list) gets the same tables; a graph with its own walk list gets equal ones."""
    pos = positions(title)[0]
    s = _Search(pos.ctx)
    first = search_model.tracks(s.graph)
    moved = dataclasses.replace(s.graph, version=s.graph.version + 10**9)
    assert moved.walked is s.graph.walked
    assert search_model.tracks(moved) is first
    fresh = dataclasses.replace(s.graph, walked=list(s.graph.walked))
    again = search_model.tracks(fresh)
    assert again is not first
    assert again == first
