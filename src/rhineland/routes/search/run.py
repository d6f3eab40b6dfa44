"""The search of one position: the entry points (:func:`best_routes` for a game,
:func:`search_routes` for a route context), the answers reused between calls on the same
board (``_MEMO``, the collector paused meanwhile), and the phases of one search
(:func:`_search_routes`: the first walks, the branch and bound, the second walks where a
better run may hide, the greedy answer of a spent budget, the judge by
:func:`~rhineland.routes.engine.run_revenue`)."""

from __future__ import annotations

import gc
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rhineland.errors import GameError
from rhineland.routes.engine import run_revenue
from rhineland.routes.model import RouteContext, RouteSpec
from rhineland.routes.search.bounds import crude_bound, end_room
from rhineland.routes.search.branch_and_bound import branch_and_bound, exact_total
from rhineland.routes.search.budget import Budget, OutOfBudget
from rhineland.routes.search.candidate import Candidate, joint
from rhineland.routes.search.lists import Search
from rhineland.routes.search.result import RouteSet, SearchProof, TrainRoute
from rhineland.routes.search_model import Track, TrainModel


def search_routes(ctx: RouteContext, budget_nodes: int | None = None) -> RouteSet:
    """The best routes of ``ctx.entity``'s trains ``ctx.trains`` on ``ctx.board``.

    Returns a :class:`RouteSet` whose revenue (M) is the maximum over every
    legal assignment of routes to the trains (see the module docstring).
    ``budget_nodes``: the anytime mode -- stop after about that many search nodes
    and return the best legal run found so far with a proven upper bound
    (``proof.bound``; :attr:`RouteSet.gap` is 0 when the answer is proven
    optimal).  ``None``: search to the end (exact).  Rules classes whose bounds
    are not checked (:func:`~rhineland.routes.search_model.profile_for`) are always
    searched exactly.  Raises ``GameError`` [``route.train``] for an unknown train
    type and ``RuntimeError`` if :func:`run_revenue` disagrees with the search (a bug).
    """
    key = _memo_key(ctx, budget_nodes)
    hit = _MEMO.get(key)
    if hit is not None and hit[0] is ctx.data and hit[1] is ctx.rules:
        _MEMO.move_to_end(key)
        return hit[2]
    with _collector_paused():
        got = _search_routes(ctx, budget_nodes)
    _MEMO[key] = (ctx.data, ctx.rules, got)
    if len(_MEMO) > _MEMO_SIZE:
        _MEMO.popitem(last=False)
    return got


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused for one search, and restored after.

    A large search holds ~10^5 candidate objects and index rows alive at once; each
    automatic collection of the older generations walks all of them again while none of
    them can be garbage yet (20-25% of the largest dense calls, docs/best-routes.md §4).
    Reference counting still frees everything acyclic at once; the few cycles a search
    makes (its recursive inner functions) are collected at the next collection after it.
    The switch is process-wide: another thread's allocations meanwhile trigger no
    collection either (only for the search's duration).  Already paused (by the caller,
    or a nested search): left as it is.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


_MEMO_SIZE = 64
_MEMO: OrderedDict[tuple[object, ...], tuple[object, object, RouteSet]] = OrderedDict()
"""Reuse between calls on the same board (an OR asks again for the same company: legal
actions, then the run itself): the last answers by board version (renewed on every tile
and token change, shared by clones of the same content), company, phase, trains, title
data and rules (by identity), 18Rhl's icons and links, and budget."""


def _memo_key(ctx: RouteContext, budget_nodes: int | None) -> tuple[object, ...]:
    return (*ctx.key(), budget_nodes)


def _search_routes(ctx: RouteContext, budget_nodes: int | None) -> RouteSet:
    """:func:`search_routes` without the reuse."""
    s = Search(ctx)
    bounded = s.profile.bounded
    budget = Budget(budget_nodes if bounded else None)
    trains = list(ctx.trains)
    # a train type whose routes must end at a few nodes (18Rhl's Rheingold-Express) runs
    # at most as many routes as those nodes have track for: the other trains run nothing
    room: dict[str, int] = {}
    for t in ctx.trains:
        n = s.model(t).name
        if n not in room:
            room[n] = end_room(s.board, s.model(t))
        room[n] -= 1
        if room[n] < 0:
            trains.remove(t)
    names = {t: s.model(t).name for t in trains}
    k = len(trains)
    complete = True

    # 1. per train type one walk: its best ub, and the candidates near it
    tops_by: dict[str, int] = {}
    used_theta: dict[str, int] = {}
    lists: dict[str, list[Candidate]] = {}
    for t in trains:
        n = names[t]
        if n in tops_by:
            continue
        if not bounded:
            lists[n] = s.candidates(t)
            tops_by[n] = max(lists[n][0].ub, 0) if lists[n] else 0
            used_theta[n] = -1
            continue
        got: list[Candidate] = []
        lists[n] = got
        if complete:
            try:
                tops_by[n], used_theta[n] = s.first_pass(t, _margin(k), budget, got)
                continue
            except OutOfBudget:
                complete = False
        s._install(s.model(t), got)  # what the walk found before the budget ran out
        tops_by[n] = max(crude_bound(s.model(t)), 0)
        used_theta[n] = 0

    trains.sort(key=lambda t: (-tops_by[names[t]], names[t], t))
    tops = [tops_by[names[t]] for t in trains]
    root = sum(tops)
    models = [s.model(t) for t in trains]
    best_pick: list[Candidate | None] = [None] * k
    best_real: list[tuple[Track, ...] | None] = [None] * k
    pruned = 0
    if not complete:
        _greedy(s, trains, models, [lists[names[t]] for t in trains], best_pick, best_real)
    else:
        try:
            # 2. the best run among the candidates near each train's best
            pruned = branch_and_bound(s, trains, names, models, budget, best_pick,
                                       best_real, [lists[names[t]] for t in trains])
            # 3. a route of train j in a run beating this one earns more than
            # best - (what the other trains can earn at most): walk again where needed
            best = exact_total(best_pick)
            again = False
            had = {n: len(lst) for n, lst in lists.items()}
            for j, t in enumerate(trains):
                n = names[t]
                theta = max(best - (root - tops[j]), 0)
                if bounded and theta < used_theta[n]:
                    lists[n] = s.refill(t, theta, budget)
                    used_theta[n] = theta
                    again = True
            if again:  # only runs with a candidate the first lists lacked are left
                pruned = max(pruned, branch_and_bound(
                    s, trains, names, models, budget, best_pick, best_real,
                    [lists[names[t]] for t in trains], [had[names[t]] for t in trains]))
        except OutOfBudget:
            complete = False
    best = exact_total(best_pick)

    chosen = [(t, c, real) for t, c, real in zip(trains, best_pick, best_real, strict=True)
              if c is not None and real is not None]
    order = {t: i for i, t in enumerate(ctx.trains)}
    chosen.sort(key=lambda tc: order[tc[0]])
    specs: list[RouteSpec] = []
    for t, c, real in chosen:
        # the realisation the run found, in the direction the evaluation preferred
        segs = tuple(a[1] for a in real)
        if c.flip:
            segs = tuple(seg.reversed() for seg in reversed(segs))
        specs.append(
            RouteSpec(
                train=t,
                connections=tuple(seg.hexes for seg in segs),
                nodes=(s.graph.nodes[segs[0].a].name, *(s.graph.nodes[x.b].name for x in segs)),
            )
        )
    results = run_revenue(ctx, specs) if specs else []
    total = sum(r.revenue for r in results)
    if total != best:
        raise RuntimeError(
            f"best_routes: run_revenue gives {total}M for the routes the search valued at "
            f"{best}M ({ctx.entity}, trains {', '.join(ctx.trains)})"
        )
    routes = tuple(
        TrainRoute(spec.train, spec, res) for spec, res in zip(specs, results, strict=True)
    )
    proof = SearchProof(
        bound=max(best, pruned) if complete else max(best, root),
        root_bound=root,
        nodes=s.nodes_explored,
        candidates=sum(len(v) for v in s._cands.values()),
        evaluations=s.evaluations,
    )
    return RouteSet(ctx.entity, best, routes, proof)


def _margin(k: int) -> Callable[[int], int]:
    """How far below a train type's best ``ub`` the first walk keeps candidates, for a run
    of ``k`` trains: a guess of what running beside the others costs (a fifth of the best
    per other train); a wrong guess costs a second walk, never the optimum."""
    return lambda top: (top * (k - 1)) // 5 + 1


def _greedy(
    s: Search,
    trains: list[str],
    models: list[TrainModel],
    levels: list[list[Candidate]],
    best_pick: list[Candidate | None],
    best_real: list[tuple[Track, ...] | None],
    tries: int = 64,
) -> None:
    """Anytime fallback once the budget is spent: each train in turn takes the first of its
    candidates (best ``ub`` first, at most ``tries`` priced) that is legal, earns more
    than 0 M and runs beside the routes taken."""
    taken: list[Candidate] = []
    where: list[int] = []
    for j, lst in enumerate(levels):
        for c in lst[:tries]:
            if s.evaluate(models[j], c) <= 0:
                continue
            real = joint([*taken, c])
            if real is None:
                continue
            taken.append(c)
            where.append(j)
            best_pick[j] = c
            for jj, r in zip(where, real, strict=True):
                best_real[jj] = r
            break


def best_routes(
    game: Any, entity: str | None = None, budget_nodes: int | None = None
) -> RouteSet:
    """The best routes for the company about to run in ``game`` (or for ``entity``).

    ``game``: a :class:`rhineland.engine.game.Game`; ``entity``: a
    corporation/minor symbol (default: the current round's entity).  Raises
    ``GameError`` [``route.entity``] when no entity is given and none is
    about to operate, or the symbol is unknown.  ``budget_nodes``: the anytime
    mode of :func:`search_routes` (best run found within about that many search
    nodes, with a proven bound; ``None``: exact).
    """
    if entity is None:
        state_round = game.state.round
        ent = state_round.current_entity(game) if state_round is not None else None
        if ent is None or not hasattr(ent, "trains"):
            raise GameError("no company is about to run routes; name one", "route.entity")
    else:
        try:
            ent = game.title.operator(game, entity)
        except KeyError:
            known = ", ".join([*game.corporations, *game.minors])
            raise GameError(
                f"no company {entity!r} in this game (companies: {known})", "route.entity"
            ) from None
    ctx = game.title.route_context(game, ent)
    return search_routes(ctx, budget_nodes)
