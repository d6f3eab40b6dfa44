"""The route search's cheap cuts keep every candidate (issue 9: self-play speed).

* the token-reach cut (``_token_distance``): a path without a token city that cannot
  reach one within its visits left is left by the walk; on the recorded ``run_routes``
  positions of both real games the candidates are exactly those of a walk without
  the cut, with fewer walk nodes;
* the running sum (``TitleProfile.sum_bound_free``): where the walk prices a route by
  the sum of its positive stop values plus the bonus bound, that is the title's own
  route bound.
"""

from __future__ import annotations

import math
from collections import Counter

import pytest

from rhineland.routes import search
from rhineland.routes.search import enumerate_candidates, run, walk
from rhineland.routes.search.bounds import token_distance as _token_distance
from rhineland.routes.search.index import CandidateIndex
from rhineland.routes.search.lists import Search as _Search
from test_best_routes import GAMES, positions


def _walk(s: _Search, train: str) -> tuple[list[tuple[int, ...]], int]:
    """Every candidate (node sequences) of ``train``'s type and the walk nodes spent."""
    s.nodes_explored = 0
    got = enumerate_candidates(s.board, s.model(train), s)
    return sorted(c.nodes for c in got), s.nodes_explored


@pytest.mark.sources_only
@pytest.mark.parametrize("title", sorted(GAMES))
def test_token_cut_keeps_every_candidate(title: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With and without the cut (every distance 0) the walks list the same candidates on
    every 4th recorded position of the real game; the cut saves walk nodes."""
    with_cut = without = checked = 0
    for pos in positions(title)[::4]:
        s = _Search(pos.ctx)
        for train in dict.fromkeys(pos.ctx.trains):
            got, nodes = _walk(s, train)
            with monkeypatch.context() as m:
                m.setattr(walk, "token_distance", lambda tm, bm: [0] * len(tm.value))
                want, nodes0 = _walk(s, train)
            assert got == want, (pos.game, pos.action_id, train)
            assert nodes <= nodes0
            with_cut += nodes
            without += nodes0
            checked += 1
    assert checked >= 10
    assert with_cut < without, (with_cut, without)


def test_token_distance_counts_limited_visits() -> None:
    """On the last recorded 1893 run (DE, 6- and 4-train, action 370): 0 at DE's two token
    cities, the other nodes 1 to 5 limited visits away or unreachable (15 nodes), and
    every finite entry is one more than a neighbour's or equal to it (a limited visit
    costs 1, a town 0)."""
    pos = positions("1893")[-1]
    assert (pos.action_id, pos.ctx.entity) == (370, "DE")
    s = _Search(pos.ctx)
    tm = s.model(pos.ctx.trains[0])
    dist = _token_distance(tm, s.board)
    tokened = [i for i in range(len(dist)) if (s.board.tokened >> i) & 1]
    assert len(tokened) == 2 and all(dist[i] == 0 for i in tokened)
    assert Counter(dist) == {0: 2, 1: 8, 2: 5, 3: 5, 4: 3, 5: 1, math.inf: 15}
    for x, hops in enumerate(s.board.hops):
        if dist[x] == 0 or math.isinf(dist[x]):
            continue
        assert any(dist[x] - 1 <= dist[b] <= dist[x] for b, _alts in hops), x


def test_running_sum_is_the_route_bound() -> None:
    """18Rhl: every candidate without a dropped visit of a train paying every visit has
    ``ub`` = the sum of its positive stop values plus the bonus bound, and that is
    ``RhlProfile.route_bound`` (on the recorded positions of the real game)."""
    checked = 0
    for pos in positions("18Rhl"):
        s = _Search(pos.ctx)
        for train in dict.fromkeys(pos.ctx.trains):
            tm = s.model(train)
            plain = tm.profile.sum_bound_free(tm)
            for c in s.candidates(train):
                if c.free > plain:
                    continue
                total = sum(v for i in c.nodes if (v := tm.value[i]) > 0)
                total += tm.profile.bonus_bound(tm, c.nodes)
                assert c.ub == total == tm.profile.route_bound(tm, c.nodes, c.free)
                checked += 1
    assert checked >= 1000, checked


def test_route_bound_at_most_the_running_sum() -> None:
    """18Rhl: every candidate's ``ub`` (the title's route bound where a ferry drops a
    visit) is at most the sum of its positive stop values plus the bonus bound, so the
    walk may skip the route bound where that sum is at most its threshold."""
    checked = priced = 0
    for pos in positions("18Rhl"):
        s = _Search(pos.ctx)
        for train in dict.fromkeys(pos.ctx.trains):
            tm = s.model(train)
            for c in s.candidates(train):
                total = sum(v for i in c.nodes if (v := tm.value[i]) > 0)
                assert c.ub <= total + tm.profile.bonus_bound(tm, c.nodes)
                checked += 1
                priced += c.free > tm.profile.sum_bound_free(tm)
    assert checked >= 1000 and priced >= 50, (checked, priced)


@pytest.mark.parametrize("title", sorted(GAMES))
def test_second_pass_from_the_first_walk_equals_a_new_walk(title: str) -> None:
    """After a first walk with a rising threshold (``first_pass``), the second pass at a
    lower threshold served from what the walk recorded (``WalkLog``) lists the same
    candidates with the same ``ub``, in the same order, as a new walk at that threshold
    -- on every 2nd recorded position of the real game, thresholds 0, a quarter and half
    the top (measured: 138 of 198 such passes in 18Rhl, 18 of 132 in 1893 are served
    without a walk)."""
    served = 0
    asked = 0
    for pos in positions(title)[::2]:
        for train in dict.fromkeys(pos.ctx.trains):
            first = _Search(pos.ctx)
            got: list[search.Candidate] = []
            top, theta = first.first_pass(train, run._margin(2), None, got)
            name = first.model(train).name
            for low in sorted({0, top // 4, top // 2}, reverse=True):
                if low >= theta:
                    continue
                whole = name in first._spare and low >= first._spare_floor[name]
                again = first.refill(train, low, None)
                fresh = _Search(pos.ctx).candidates(train, low)
                assert [(c.ub, c.nodes) for c in again] == [(c.ub, c.nodes) for c in fresh]
                served += whole
                asked += 1
    assert served >= 10, (served, asked)


def test_index_rows_built_by_columns_equal_the_rows_per_candidate() -> None:
    """``_Index._build`` (each unit-set id's column of the ``sure`` masks read as binary
    digits) gives, per id, exactly the candidates whose ``sure`` holds it: random masks
    over 1 to 150 ids, 0 to 1,000 candidates (byte edges included)."""
    import random

    rng = random.Random(10)
    for n in (0, 1, 7, 8, 9, 64, 1000):
        for ids in (1, 8, 9, 59, 150):
            cands = [search.Candidate(0, (), (), 0, rng.getrandbits(ids)) for _ in range(n)]
            rows = CandidateIndex(cands, [1 << j for j in range(ids)])._build()
            assert rows == [sum(1 << i for i, c in enumerate(cands) if (c.sure >> j) & 1)
                            for j in range(ids)]
