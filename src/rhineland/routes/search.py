"""Best routes: the provably optimal run of a company's trains (18Rhl and 1893).

:func:`best_routes` (a game position) and :func:`search_routes` (a
:class:`RouteContext`) return a :class:`RouteSet`: one route per train that
runs, maximising the total revenue under the title's rules, with the proof
data of the search (:class:`SearchProof`).

Algorithm
---------
1. **Candidates per train type.**  A depth-first search over the segment
   graph (:mod:`rhineland.routes.graph`) from every node lists each simple
   path once (kept in the orientation whose first node id is the smaller).
   A branch is cut as soon as the path breaks a rule that no extension can
   repair (each cut is a check of :func:`rhineland.routes.engine.check_route`
   or of the title hook that raises on every extension too):

   * a node visited twice, or track (a unit bitmask) used twice;
   * passing through a terminal node (offboard / terminal track) or a city
     blocked by other companies' tokens -- such nodes only end a branch;
   * a node kind no distance rule of the train names, or more counted visits
     of a rule than its ``visit`` limit (towns cost nothing where the rule
     says 99; a visit the 18Rhl ferry rule drops costs 0, so counting is exact,
     but for a dropped pair of two kinds -- the gray 949's town and city --
     where the direction decides which kind counts: there neither counts, a
     necessary condition of both directions);
   * two nodes of one exclusivity group (offboard ``groups``; 18Rhl's Eastern
     Ruhr, Nimwegen/Arnheim and Basel/Frankfurt pairs);
   * 18Rhl: a red hex other than the RGE hexes for the Rheingold-Express; a
     green Rhine metropolis re-entered other than by its ferry.

   A path is kept when it also meets the end conditions: two stops that
   count, a token city of the entity, legal ends (towns, out-tokened
   offboards, an RGE end for the 8-train).

   Each candidate gets an **optimistic value** ``ub``
   (:meth:`~rhineland.routes.search_model.TrainModel.bound`): per distance
   rule the best ``pay + free`` positive stop values on it (the stop values
   are the rules' own :meth:`~rhineland.routes.rules.RevenueRules.stop_value`),
   plus an upper bound of every bonus
   (:class:`~rhineland.routes.search_model.RhlProfile`).  It is admissible:
   the paying stops the rules pick are the zero-cost visits plus at most
   ``pay`` counted visits per rule, hence worth at most the best ``pay +
   free``; every bonus is bounded separately (Montan by per-node coal/steel
   counts, which never undercount the per-hex count and Montan only grows
   with them; Eastern Ruhr, Eisern Rhein and Ratingen at full value when
   their nodes are on the path; the Rheingold doubling by the sum of the
   metropolis values whenever both ends are RGE hexes; penalties as 0), and
   bonuses are additive per route, so the sum bounds the route's revenue in
   either direction.

2. **Exact value, lazily.**  A candidate's exact revenue is the rules' own
   verdict: :func:`~rhineland.routes.engine.check_route` and
   :meth:`~rhineland.routes.rules.RevenueRules.evaluate` on the route.  Both
   directions are tried when the path takes an 18Rhl ferry (the second visit
   of the pair is dropped and the first pays the fee, so the directions may
   pay differently: the town and city of the gray Duisburg tile 949 do);
   otherwise every check and every payout rule is symmetric in the
   direction (ends, revisits, pairs, best-``pay`` stops with the token
   substitution, bonuses), so one direction decides.  A candidate is priced
   only when the branch and bound below completes an assignment holding it
   whose optimistic total beats the incumbent; its exact value then
   replaces ``ub`` for the rest of the search (an illegal one is dropped).
   For a rules class the profiles were not written for (a subclass: see
   :func:`~rhineland.routes.search_model.profile_for`) every candidate is priced, in both
   directions, up front and ``ub`` is the exact value.

3. **Branch and bound over the trains.**  Trains are taken one after another
   (the train type with the highest ``ub`` first); each level tries its
   candidates by decreasing ``ub`` (ties: node ids, then hexes), then "no
   route" (0 M).  Every candidate list is indexed as bitsets (:class:`_Index`):
   per track id, the candidates using track that clashes with it, so the
   candidates of a train that may still run beside the routes picked so far
   are one big-integer expression, and the first of them carries the best
   ``ub`` that train can still add.  The bound at a node is ``current +
   sum over the trains left of that best ub`` (at least 0 each).  It only
   ignores the no-reuse rule *among* the remaining trains, and each ``ub``
   is admissible, so it never underestimates the best completion.  A level
   stops at the first candidate with ``current + ub + rest <= best`` (the
   candidates are sorted, so no later one can beat the incumbent); a
   candidate is skipped when ``current + value + bound of the trains left
   beside it <= best``; trains of one type take candidates in increasing
   index order only (symmetry).  The incumbent changes only on a strict
   improvement of an exactly priced assignment, so among equal totals the
   first in this order wins: ties are broken deterministically.

4. **Judge.**  The winning routes go through
   :func:`~rhineland.routes.engine.run_revenue` (resolution of the export
   chains, every check, every bonus); its revenue must equal the search's
   or ``RuntimeError`` is raised (a bug, never a rule outcome).

Proof data: ``proof.bound`` is the largest bound of any pruned subtree or
the incumbent, whichever is larger -- equal to ``revenue`` when the search
is complete, which is the optimality certificate; ``proof.root_bound`` the
bound before any branching; ``proof.nodes`` the path-DFS nodes plus the
branch-and-bound nodes explored.

Not done: the per-train enumeration prunes on legality only, not on value
(an optimistic bound per partial route needs a revenue threshold per train,
i.e. an incumbent and the other trains' best before enumerating); on the
reference games it is the larger share of the time and still well within
budget (``bench/routes.py``).

Units: revenue in M (Mark).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rhineland.errors import GameError
from rhineland.routes.engine import check_route, rules_of, run_revenue
from rhineland.routes.graph import Segment, track_graph
from rhineland.routes.model import Route, RouteContext, RouteResult, RouteSpec
from rhineland.routes.search_model import (
    BoardModel,
    TitleProfile,
    TrainModel,
    board_model,
    profile_for,
    train_model,
)


@dataclass(frozen=True)
class TrainRoute:
    """One train's best route.

    ``spec``: the route as an export gives it (``connections`` hex chains in
    walk order, ``nodes`` visit names), ready for a ``run_routes`` action;
    ``result``: what :func:`run_revenue` computes for it (revenue in M, stops,
    itemised bonuses).
    """

    train: str
    spec: RouteSpec
    result: RouteResult

    @property
    def revenue(self) -> int:
        """The route's revenue in M."""
        return self.result.revenue

    def to_export(self) -> dict[str, Any]:
        """The route as a ``run_routes`` route dict (``train``, ``connections``, ``nodes``,
        ``revenue``)."""
        return {
            "train": self.train,
            "connections": [list(c) for c in self.spec.connections],
            "nodes": list(self.spec.nodes),
            "revenue": self.result.revenue,
        }


@dataclass(frozen=True)
class SearchProof:
    """Certificate and effort of one search.

    ``bound``: proven upper bound on the total revenue (M), equal to the
    revenue found; ``root_bound``: the optimistic bound before branching
    (sum of each train's best candidate ``ub``); ``nodes``: search nodes
    explored (path DFS + branch and bound); ``candidates``: candidate routes
    listed (all train types); ``evaluations``: exact rule evaluations.
    """

    bound: int
    root_bound: int
    nodes: int
    candidates: int
    evaluations: int


@dataclass(frozen=True)
class RouteSet:
    """The best run of ``entity``: ``routes`` (in the entity's train order; trains
    without a profitable route are left out), total ``revenue`` in M, ``proof``."""

    entity: str
    revenue: int
    routes: tuple[TrainRoute, ...]
    proof: SearchProof

    def to_export(self) -> list[dict[str, Any]]:
        """The routes as ``run_routes`` route dicts."""
        return [r.to_export() for r in self.routes]


@dataclass(slots=True, eq=False)
class Candidate:
    """A candidate route of one train type (internal, exposed for tests).

    ``ub``: admissible bound in M; ``nodes``/``segments``: the path in its
    canonical direction; ``mask``: track-unit bitmask; ``tracks``: track ids
    of the segments (:class:`~rhineland.routes.search_model.Tracks`); ``free``: visits that
    cost no distance (18Rhl ferry); ``pos``: index in the sorted candidate
    list of its train type; ``exact``: revenue in M
    once evaluated (``None`` before, ``-1`` if illegal in both directions);
    ``route``: the better legal direction.
    """

    ub: int
    nodes: tuple[int, ...]
    segments: tuple[Segment, ...]
    mask: int
    tracks: tuple[int, ...] = ()
    free: int = 0
    pos: int = -1
    exact: int | None = None
    route: Route | None = None

    @property
    def key(self) -> tuple[tuple[int, ...], tuple[tuple[str, ...], ...]]:
        """Deterministic tie-break key: node ids, then the hexes of each segment."""
        return self.nodes, tuple([s.hexes for s in self.segments])


def _sort_candidates(cands: list[Candidate]) -> None:
    """Sort by decreasing ``ub``, then :attr:`Candidate.key`; the segments' hexes of the
    key are built only where ``ub`` and the node ids tie (parallel track)."""
    cands.sort(key=lambda c: (-c.ub, c.nodes))
    i, n = 0, len(cands)
    while i < n:
        j = i + 1
        while j < n and cands[j].ub == cands[i].ub and cands[j].nodes == cands[i].nodes:
            j += 1
        if j - i > 1:
            cands[i:j] = sorted(cands[i:j], key=lambda c: c.key)
        i = j


class _Search:
    """One search: the compiled tables, the candidate lists and the counters."""

    def __init__(self, ctx: RouteContext) -> None:
        self.ctx = ctx
        self.rules = rules_of(ctx)
        self.graph = track_graph(ctx.board)
        self.view = self.rules.entity_view(ctx, self.graph)
        self.profile: TitleProfile = profile_for(ctx, self.rules, self.graph)
        self.board: BoardModel = board_model(self.graph, self.view, self.profile)
        self.nodes_explored = 0
        self.evaluations = 0
        self._models: dict[str, TrainModel] = {}
        self._cands: dict[str, list[Candidate]] = {}

    # -- candidates ------------------------------------------------------------
    def model(self, train: str) -> TrainModel:
        name = self.ctx.train_spec(train).name
        tm = self._models.get(name)
        if tm is None:
            tm = self._models[name] = train_model(self.ctx, self.profile, train)
        return tm

    def candidates(self, train: str) -> list[Candidate]:
        """Candidates of ``train``'s type, sorted by decreasing ``ub`` then key."""
        tm = self.model(train)
        got = self._cands.get(tm.name)
        if got is None:
            got = enumerate_candidates(self.board, tm, self)
            if not self.profile.bounded:
                for c in got:
                    self.evaluate(tm, c)
                    c.ub = c.exact if c.exact is not None and c.exact >= 0 else -1
                got = [c for c in got if c.ub >= 0]
            _sort_candidates(got)
            for i, c in enumerate(got):
                c.pos = i
            self._cands[tm.name] = got
        return got

    def evaluate(self, tm: TrainModel, cand: Candidate) -> int:
        """Exact revenue (M) of ``cand`` by the rules' hooks; -1 if illegal both ways."""
        if cand.exact is not None:
            return cand.exact
        self.evaluations += 1
        ctx, graph, view, rules = self.ctx, self.graph, self.view, self.rules
        spec = ctx.train_spec(tm.train)
        nodes = graph.nodes
        best = -1
        fwd = cand.segments
        both = cand.free > 0 or not self.profile.bounded
        dirs = (fwd, tuple(s.reversed() for s in reversed(fwd))) if both else (fwd,)
        for segs in dirs:
            visits = (nodes[segs[0].a], *(nodes[s.b] for s in segs))
            route = Route(tm.train, spec, segs, visits)
            try:
                costs = check_route(ctx, graph, view, route, rules)
            except GameError:
                continue
            rev = rules.evaluate(ctx, route, view.tokened, costs).revenue
            if cand.route is None or rev > best:
                best, cand.route = rev, route
        cand.exact = best if cand.route is not None else -1
        return cand.exact


def enumerate_candidates(bm: BoardModel, tm: TrainModel, counter: _Search | None = None
                         ) -> list[Candidate]:
    """Every path ``tm``'s train might legally run, once each, with its bound ``ub``.

    See step 1 of the module docstring for the pruning; ``counter`` (if given)
    has its ``nodes_explored`` increased by the DFS nodes visited.
    """
    adj = bm.adj
    terminal = bm.terminal
    blocked = bm.blocked
    tokened = bm.tokened
    groups = tm.groups
    visit = tm.visit
    end = tm.end
    rule = tm.rule
    limits = tm.limits
    metro = tm.metro_hex
    ferry = tm.ferry
    same_hex = tm.same_hex
    need = tm.need_end
    general = tm.general
    kinds = tm.profile.kinds
    bound = tm.bound
    counts = [0] * len(limits)
    kind_counts: dict[str, int] = {}
    path: list[int] = []
    segs: list[Segment] = []
    tids: list[int] = []
    out: list[Candidate] = []
    explored = 0

    def dfs(node: int, vmask: int, umask: int, gmask: int, free: int, counted: bool) -> None:
        nonlocal explored
        explored += 1
        start = path[0]
        if (
            node > start
            and end[node]
            and vmask & tokened
            and len(path) - free >= 2
            and (need < 0 or ((1 << start) | (1 << node)) & need)
        ):
            out.append(
                Candidate(bound(path, free), tuple(path), tuple(segs), umask, tuple(tids), free)
            )
        if len(path) > 1 and (terminal[node] or (blocked >> node) & 1):
            return
        here = metro[node]
        for b, m, seg, tid in adj[node]:
            if (vmask >> b) & 1 or m & umask or not visit[b] or groups[b] & gmask:
                continue
            cost = 1
            # a dropped pair of two kinds (18Rhl's 949: town and city) counts either kind
            # by its direction: for the subtree count neither (the evaluation decides)
            swap = False
            mh = metro[b]
            if mh is not None:
                if mh == here:
                    cost = 0 if ferry[b] else 1
                    swap = not cost and counted and ferry[node] and kinds[node] != kinds[b]
                elif vmask & same_hex[b]:
                    continue
            if swap:
                if general:
                    kind_counts[kinds[node]] -= 1
                else:
                    counts[rule[node]] -= 1
            r = rule[b]
            if cost:
                if general:
                    k = kinds[b]
                    kind_counts[k] = kind_counts.get(k, 0) + 1
                    if not tm.distance_ok(kind_counts):
                        kind_counts[k] -= 1
                        continue
                else:
                    if counts[r] >= limits[r]:
                        continue
                    counts[r] += 1
            path.append(b)
            segs.append(seg)
            tids.append(tid)
            dfs(b, vmask | (1 << b), umask | m, gmask | groups[b], free + (cost == 0), cost > 0)
            path.pop()
            segs.pop()
            tids.pop()
            if cost:
                if general:
                    kind_counts[kinds[b]] -= 1
                else:
                    counts[r] -= 1
            if swap:
                if general:
                    kind_counts[kinds[node]] += 1
                else:
                    counts[rule[node]] += 1

    for s in range(len(adj)):
        if not visit[s] or not end[s] or not adj[s]:
            continue
        if general:
            kind_counts = {kinds[s]: 1}
            if not tm.distance_ok(kind_counts):
                continue
        else:
            r0 = rule[s]
            if limits[r0] < 1:
                continue
            counts = [0] * len(limits)
            counts[r0] = 1
        path[:] = [s]
        segs.clear()
        tids.clear()
        dfs(s, 1 << s, 0, groups[s], 0, True)
    if counter is not None:
        counter.nodes_explored += explored
    return out


class _Index:
    """One train type's candidates (sorted by decreasing ``ub``) as bitsets over their indices.

    ``alive``: candidates not known to be illegal.  :meth:`clashes` of a route
    of any train is the set of candidates that share track with it, so the
    candidates that may run beside some picked routes are ``alive`` minus the
    union of their clashes, and the first of them (lowest index) has the best
    ``ub`` -- :meth:`best_ub` is exactly the bound "best ub of this train
    beside the picks", computed with a few big-integer operations.
    """

    def __init__(self, cands: list[Candidate], clash: tuple[int, ...]) -> None:
        self.cands = cands
        self.alive = (1 << len(cands)) - 1
        self._clash = clash
        self._by_track: list[int] | None = None
        self._memo: dict[int, int] = {}

    def _build(self) -> list[int]:
        n = len(self.cands)
        rows = [bytearray((n + 7) // 8) for _ in self._clash]
        for i, c in enumerate(self.cands):
            byte, bit = i >> 3, 1 << (i & 7)
            for t in c.tracks:
                rows[t][byte] |= bit
        using = [int.from_bytes(r, "little") for r in rows]
        out: list[int] = []
        for mine in self._clash:
            acc = 0
            m = mine
            while m:
                low = m & -m
                acc |= using[low.bit_length() - 1]
                m ^= low
            out.append(acc)
        return out

    def clashes(self, other: Candidate) -> int:
        """Bitset of this type's candidates sharing track with ``other`` (any train's route)."""
        hit = self._memo.get(id(other))
        if hit is None:
            if self._by_track is None:
                self._by_track = self._build()
            by = self._by_track
            hit = 0
            for t in other.tracks:
                hit |= by[t]
            self._memo[id(other)] = hit
        return hit

    def best_ub(self, clash: int) -> int:
        """Best ``ub`` (at least 0) among the live candidates outside ``clash``."""
        free = self.alive & ~clash
        if not free:
            return 0
        return max(self.cands[(free & -free).bit_length() - 1].ub, 0)


def search_routes(ctx: RouteContext) -> RouteSet:
    """The best routes of ``ctx.entity``'s trains ``ctx.trains`` on ``ctx.board``.

    Returns a :class:`RouteSet` whose revenue (M) is the maximum over every
    legal assignment of routes to the trains (see the module docstring).
    Raises ``GameError`` [``route.train``] for an unknown train type and
    ``RuntimeError`` if :func:`run_revenue` disagrees with the search (a bug).
    """
    s = _Search(ctx)
    trains = list(ctx.trains)
    lists = {t: s.candidates(t) for t in trains}
    names = {t: s.model(t).name for t in trains}

    def top(t: str) -> int:
        lst = lists[t]
        return max(lst[0].ub, 0) if lst else 0

    trains.sort(key=lambda t: (-top(t), names[t], t))
    k = len(trains)
    tops = [top(t) for t in trains]
    models = [s.model(t) for t in trains]
    levels = [lists[t] for t in trains]
    same_as_prev = [i > 0 and names[trains[i]] == names[trains[i - 1]] for i in range(k)]
    shared: dict[str, _Index] = {}
    for t, lst in zip(trains, levels, strict=True):
        shared.setdefault(names[t], _Index(lst, s.board.clash))
    index = [shared[names[t]] for t in trains]

    best = 0
    best_pick: list[Candidate | None] = [None] * k
    pick: list[Candidate | None] = [None] * k
    pruned = 0
    explored = 0

    def branch(level: int, clash: tuple[int, ...], cur: int, start: int) -> None:
        """Level ``level``, ``cur`` M earned (optimistic until priced); ``clash[j]``: the
        candidates of train ``level + j`` that share track with the routes picked so far."""
        nonlocal best, pruned, explored
        explored += 1
        if level == k:
            if cur > best:  # price the picks exactly (cached per candidate)
                total = 0
                for j, c in enumerate(pick):
                    if c is not None:
                        ex = s.evaluate(models[j], c)
                        if ex < 0:
                            index[j].alive &= ~(1 << c.pos)
                            return
                        total += ex
                if total > best:
                    best = total
                    best_pick[:] = pick
            return
        here = index[level]
        lst = levels[level]
        later = clash[1:]
        rest_now = sum(index[level + 1 + j].best_ub(cf) for j, cf in enumerate(later))
        free = here.alive & ~clash[0]
        if same_as_prev[level] and start:
            free &= ~((1 << start) - 1)
        while free:
            low = free & -free
            free ^= low
            i = low.bit_length() - 1
            c = lst[i]
            b = cur + c.ub + rest_now
            if b <= best:
                pruned = max(pruned, b)
                break
            val = c.ub if c.exact is None else c.exact  # exact once known, else optimistic
            if val < 0:
                continue
            nxt = later
            lim = 0
            if later:
                nxt = tuple(cf | index[level + 1 + j].clashes(c) for j, cf in enumerate(later))
                lim = sum(index[level + 1 + j].best_ub(cf) for j, cf in enumerate(nxt))
            b = cur + val + lim
            if b <= best:
                pruned = max(pruned, b)
                continue
            pick[level] = c
            branch(level + 1, nxt, cur + val, i + 1)
            pick[level] = None
        if cur + rest_now <= best:
            pruned = max(pruned, cur + rest_now)
            return
        branch(level + 1, later, cur, len(lst))

    branch(0, (0,) * k, 0, 0)
    s.nodes_explored += explored

    chosen = [(t, c) for t, c in zip(trains, best_pick, strict=True) if c is not None]
    order = {t: i for i, t in enumerate(ctx.trains)}
    chosen.sort(key=lambda tc: order[tc[0]])
    specs: list[RouteSpec] = []
    for t, c in chosen:
        assert c.route is not None
        r = c.route
        specs.append(
            RouteSpec(
                train=t,
                connections=tuple(seg.hexes for seg in r.segments),
                nodes=tuple(v.name for v in r.visits),
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
        bound=max(best, pruned),
        root_bound=sum(tops),
        nodes=s.nodes_explored,
        candidates=sum(len(v) for v in s._cands.values()),
        evaluations=s.evaluations,
    )
    return RouteSet(ctx.entity, best, routes, proof)


def best_routes(game: Any, entity: str | None = None) -> RouteSet:
    """The best routes for the company about to run in ``game`` (or for ``entity``).

    ``game``: a :class:`rhineland.engine.game.Game`; ``entity``: a
    corporation/minor symbol (default: the current round's entity).  Raises
    ``GameError`` [``route.entity``] when no entity is given and none is
    about to operate, or the symbol is unknown.
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
    return search_routes(ctx)
