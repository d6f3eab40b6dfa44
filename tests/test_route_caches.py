"""The best-route search's setup caches give what a fresh build gives.

``run_revenue`` keeps a legal run's results (``engine._RUNS``): the same run in the same
context is answered from it, what a fresh check gives; a board change or an illegal run
is checked anew, and a route step of a game checks the run it found once.

``_walk_table_memo`` (the completion bound's walk tables, reused across a search's
refills and between searches) and ``search_model.tracks`` (the segment tables, kept
while only tokens change) are checked against fresh builds on the recorded
``run_routes`` positions of both titles' real games (the first 12 of each).
"""

from __future__ import annotations

import dataclasses
import gc

import pytest

from play import random_positions
from rhineland.engine.legal import RouteChoice
from rhineland.errors import GameError
from rhineland.routes import engine, search_model
from rhineland.routes.model import RouteSpec
from rhineland.routes.rules import RevenueRules
from rhineland.routes.search.bounds import _WALKS, _walk_table, _walk_table_memo
from rhineland.routes.search.lists import Search as _Search
from rhineland.routes.search.run import _MEMO
from rhineland.sim.selfplay import TITLE_PLAYERS
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


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the checks ``run_revenue`` makes (its reuse aside)."""
    calls: list[int] = []
    real = engine._run_revenue

    def spy(ctx: object, specs: object) -> object:
        calls.append(1)
        return real(ctx, specs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "_run_revenue", spy)
    return calls


@pytest.mark.parametrize("title", sorted(GAMES))
def test_run_revenue_reuses_a_legal_run_in_the_same_context(
    title: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The recorded runs of the real game (the first 12): asked twice, the second answer
    is the first's (no check made), equal to a fresh check; on the board without the
    entity's tokens (a new version) the run is checked again; a refused run (a train the
    entity lacks) is checked each time."""
    calls = _counting(monkeypatch)
    engine._RUNS.clear()
    for pos in positions(title)[:12]:
        before = len(calls)
        first = engine.run_revenue(pos.ctx, pos.routes)
        again = engine.run_revenue(pos.ctx, list(pos.routes))
        assert len(calls) == before + 1
        assert again == first and again is not first
        assert engine._run_revenue(pos.ctx, [RouteSpec.coerce(r) for r in pos.routes]) == first
        board = pos.ctx.board.clone()
        for hex_id, city in board.token_locations(pos.ctx.entity):
            board.remove_token(hex_id, city, pos.ctx.entity)
        moved = dataclasses.replace(pos.ctx, board=board)
        assert moved.key() != pos.ctx.key()
        before = len(calls)
        try:  # another board version: checked again (18Rhl: no token left, refused)
            engine.run_revenue(moved, pos.routes)
        except GameError as exc:
            assert exc.rule == "route.token"
        assert len(calls) == before + 1
        bad = ({**pos.routes[0], "train": "99-0"}, *pos.routes[1:])
        for _ in range(2):  # refused each time: a refusal is not kept
            with pytest.raises(GameError, match=r"route\.train"):
                engine.run_revenue(pos.ctx, bad)
        assert len(calls) == before + 3


@pytest.mark.parametrize("title", sorted(TITLE_PLAYERS))
def test_a_route_step_checks_the_run_it_found_once(
    title: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At the route steps of a seeded random game, the best run (searched afresh) is
    checked once: by the search; processing it takes the kept answer.  A run of other
    routes (the best run's first route alone) is checked when processed."""
    calls = _counting(monkeypatch)
    steps = parts = 0
    for game in random_positions(title, 3, 400):
        choice = next((c for c in game.legal_actions() if isinstance(c, RouteChoice)), None)
        if choice is None:
            continue
        _MEMO.clear()
        engine._RUNS.clear()
        calls.clear()  # (the random game's own steps between positions)
        run = choice.best(game)
        if not run.routes:
            continue
        searched = len(calls)
        assert searched == 1
        snap = game.snapshot()
        game.process(run, atomic=False)
        game.restore(snap)
        assert len(calls) == searched
        if len(run.routes) > 1:
            fewer = dataclasses.replace(run, routes=run.routes[:1])
            game.process(fewer, atomic=False)
            game.restore(snap)
            assert len(calls) == searched + 1
            parts += 1
        steps += 1
    assert steps >= 5 and parts >= 1, (steps, parts)


@pytest.mark.parametrize("title", sorted(GAMES))
def test_search_leaves_nothing_for_the_cycle_collector(title: str) -> None:
    """A route search frees all it made by reference counting: its recursive walks leave
    no reference cycle behind (``search.candidate.released``, module-level recursive helpers).
    Every ``run_routes`` position of the real game is searched anew (exact and in the
    anytime mode) with the collector off; a collection afterwards finds nothing
    unreachable.  Before, each search left its walks' closures (and the search state they
    held) for the collector: on a 1893 random game, ~20 objects per env step."""
    from rhineland.routes.search.run import _search_routes

    pos = positions(title)
    assert any(len(p.ctx.trains) >= 2 for p in pos)  # the runs of several trains too
    gc.collect()
    gc.disable()
    try:
        for p in pos:
            _search_routes(p.ctx, None)
            _search_routes(p.ctx, 50)
            engine.run_revenue(p.ctx, list(p.routes))
        found = gc.collect()
    finally:
        gc.enable()
    assert found == 0


def test_a_context_with_rules_of_the_wrong_kind_is_refused() -> None:
    """``RouteContext.rules`` is typed ``object`` (the data module does not know the rules
    that read it): :func:`rhineland.routes.engine.rules_of` takes None (the common rules)
    or a ``RevenueRules`` and refuses anything else with a TypeError."""
    pos = positions("18Rhl")[0]
    assert engine.rules_of(pos.ctx) is pos.ctx.rules
    assert type(engine.rules_of(dataclasses.replace(pos.ctx, rules=None))) is RevenueRules
    wrong = r"RouteContext\.rules must be RevenueRules or None, not str"
    with pytest.raises(TypeError, match=wrong):
        engine.rules_of(dataclasses.replace(pos.ctx, rules="18Rhl"))
