"""Best routes: the provably optimal run of a company's trains (18Rhl and 1893).

:func:`best_routes` (a game position) and :func:`search_routes` (a
:class:`RouteContext`) return a :class:`RouteSet`: one route per train that
runs, maximising the total revenue under the title's rules, with the proof
data of the search (:class:`SearchProof`).

Algorithm
---------
1. **Candidates per train type.**  A depth-first search over the segment
   graph (:mod:`rhineland.routes.graph`) from every node lists each *node
   sequence* once (kept in the orientation whose first node id is the smaller),
   with the parallel segments still open per step: the track is chosen last (a
   realisation, :meth:`Candidate.realisations`), so parallel track does not
   multiply the walk.
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
   offboards, an RGE end for the 8-train).  A train with such an end rule
   walks from those ends only (a path with one RGE end is found from it).  A walk
   from start ``s`` keeps paths ending at a node of larger id only; once a walk is
   big (``END_CUT_AFTER`` nodes) it leaves a path that can no longer reach such an
   end within its visits left (as the token reach, :func:`_token_distance`).

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
   either direction.  18Rhl tightens it
   (:meth:`~rhineland.titles.g18rhl.search_profile.RhlProfile.route_bound`: a
   dropped visit never pays, so ``pay`` instead of ``pay + free``; a ferried run
   pays once; the Rheingold doubling inside the 8 best).

   **Value pruning.**  A walk has a threshold: it keeps only candidates with
   ``ub`` above it and leaves a branch as soon as the branch's *completion
   bound* (:func:`_completion_bound`: the path's values, the best values any
   extension can still add -- the best unvisited values per rule and the walk
   table :func:`_walk_table` -- and the title's bonus cap
   :meth:`~rhineland.routes.search_model.TitleProfile.bonus_cap`) is at most
   the threshold.  The first walk of a train type raises its threshold with
   the best ``ub`` seen (``top - margin``, :func:`_margin`); it yields the
   type's best ``ub`` (``top``) and the candidates near it.  Why each bound is
   admissible with every bonus of both titles: ``docs/best-routes.md``.

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

3. **Branch and bound over the trains.**  First, trains of a type with an end rule
   beyond the number of disjoint segments leaving its end nodes are dropped (they can
   never all run: :func:`_end_room`).  Trains are taken one after another
   (the train type with the highest ``top`` first); each level tries its
   candidates by decreasing ``ub`` (ties: node ids, then hexes), then "no
   route" (0 M).  Every candidate list is indexed as bitsets (:class:`_Index`):
   per set of units some step surely uses, the candidates using it, so the
   candidates of a train that may still run beside the routes picked so far
   (their ``must`` units miss the picks') are one big-integer expression, and
   the first of them carries the best ``ub`` that train can still add; a pick is
   kept only when the picks have realisations sharing no unit (:func:`_joint`).
   The bound at a node is ``current + sum over the trains left of that best
   ub`` (at least 0 each; for the next trains of the same type at most the
   ``ub`` of this level's pick, since they take the same or later candidates).
   It only ignores the no-reuse rule *among* the remaining trains, and each
   ``ub`` is admissible, so it never underestimates the best completion.  Where two
   or more trains are left, :func:`_crowd_bound` tightens it: at most one of them
   takes a candidate surely using a given unit set.  The last train's bound looks
   only at the window of its sorted list that could beat the incumbent.
   A level stops at the first candidate with ``current + ub + rest <= best``
   (the candidates are sorted, so no later one can beat the incumbent);
   a candidate is skipped when ``current + value + bound of the trains left
   beside it <= best``; trains of one type take candidates in
   non-decreasing index order only (symmetry; one node sequence may serve two
   trains on disjoint realisations).  The incumbent changes only on a
   strict improvement of an exactly priced assignment.

   **Completeness.**  The first branch and bound runs on the candidates near
   each type's ``top``; it yields an incumbent of ``best`` M.  A run beating it
   gives train ``j`` a route worth more than ``best - sum of the other trains'
   top`` (each other train earns at most its ``top``), so every train type whose
   first walk stopped above that threshold is walked again down to it (or, for a
   walk without a completion bound, its kept candidates filtered: the walk is not
   repeated; with one, the candidates it met filtered and only the branches it left
   by the completion bound walked again, from where it left them) and the branch and
   bound repeats on the full lists, searching only runs with at least one candidate
   the first lists lacked (the first pass was exhaustive over those; see ``fresh`` of
   :func:`_branch_and_bound`): the answer is then exact.
   Memory: the candidate lists (only those above the thresholds), one bitset
   per surely used unit set, a clash memo capped at 64 MB per list
   (:data:`MEMO_BITS`), and per train type the first walk's spare candidates and
   left branches (at most 20,000 and 5,000, :class:`WalkLog`).

   **Anytime.**  With ``budget_nodes`` the walks and the branch and bound are
   charged per node; when the budget is spent the search stops and returns the
   best run found (by the branch and bound, or greedily from the candidates
   walked so far), with ``proof.bound`` = the sum of each train's ``top``
   (an admissible bound of the walk that completed, or the completion bound of
   the empty path, :func:`_crude_bound`, for a type whose walk did not).

4. **Judge.**  The winning routes go through
   :func:`~rhineland.routes.engine.run_revenue` (resolution of the export
   chains, every check, every bonus); its revenue must equal the search's
   or ``RuntimeError`` is raised (a bug, never a rule outcome).

Proof data: ``proof.bound`` is the largest bound of any pruned subtree or
the incumbent, whichever is larger -- equal to ``revenue`` when the search
is complete, which is the optimality certificate (``RouteSet.gap`` is 0);
after a spent budget it is the sum of the trains' bounds (``gap`` > 0 unless
the incumbent reaches it); ``proof.root_bound`` the sum of the trains'
``top``; ``proof.nodes`` the walk nodes plus the branch-and-bound nodes
explored (independent of the machine's load: the budget counts them).

Units: revenue in M (Mark).
"""

from __future__ import annotations

import bisect
import gc
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from rhineland.errors import GameError
from rhineland.routes.engine import check_route, rules_of, run_revenue
from rhineland.routes.graph import Segment, track_graph
from rhineland.routes.model import Route, RouteContext, RouteResult, RouteSpec
from rhineland.routes.search_model import (
    BoardModel,
    TitleProfile,
    Track,
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

    @property
    def gap(self) -> int:
        """``proof.bound - revenue`` in M: 0 when the run is proven optimal (always without
        a node budget), else how much more the best run might earn."""
        return self.proof.bound - self.revenue

    @property
    def exact(self) -> bool:
        """Whether the run is proven optimal (:attr:`gap` is 0)."""
        return self.gap == 0

    def to_export(self) -> list[dict[str, Any]]:
        """The routes as ``run_routes`` route dicts."""
        return [r.to_export() for r in self.routes]


@dataclass(slots=True, eq=False)
class Candidate:
    """A candidate route of one train type (internal, exposed for tests): a *node
    sequence* with the track still open between each two consecutive nodes.

    ``ub``: admissible bound in M of every route with these visits; ``nodes``: the
    visits in their canonical direction (first id the smaller); ``hops``: per step of
    the walk (the same direction, but for a path walked from its need end, e.g. the
    Rheingold-Express's RGE end) the parallel segments (:data:`Track`) the step may
    take -- a *realisation* (:meth:`realisations`) takes one per step, no track unit
    twice; ``must``: the track units every realisation uses (per step, those all its
    segments share); ``sure``: the same units as a bitmask of :class:`UnitSets` ids
    (per step one set: its segment's units if it has one, else the units its segments
    share); ``free``: visits that cost no distance (18Rhl ferry); ``pos``:
    index in the sorted candidate list of its train type; ``exact``: revenue in M once
    evaluated (``None`` before, ``-1`` if illegal in both directions or without a
    realisation); ``route``: the better legal direction of the first realisation;
    ``flip``: whether that direction is the reverse of ``hops``' order.  The rules'
    checks and payout read the visits and the train only (never the track), so every
    realisation of a node sequence earns the same (see ``docs/best-routes.md``).
    """

    ub: int
    nodes: tuple[int, ...]
    hops: tuple[tuple[Track, ...], ...]
    must: int
    sure: int = 0
    free: int = 0
    pos: int = -1
    exact: int | None = None
    route: Route | None = None
    flip: bool = False

    @property
    def key(self) -> tuple[tuple[int, ...], tuple[tuple[tuple[str, ...], ...], ...]]:
        """Deterministic tie-break key: node ids, then the hexes of each step's segments."""
        return self.nodes, tuple([tuple([a[1].hexes for a in alts]) for alts in self.hops])

    def realisations(self, avoid: int = 0) -> Iterator[tuple[int, tuple[Track, ...]]]:
        """Every choice of one segment per step using no track unit twice nor any unit of
        ``avoid``: ``(units bitmask, the chosen tracks in walk order)``."""
        yield from _realise(self.hops, avoid, [], 0, avoid)

    @property
    def segments(self) -> tuple[Segment, ...]:
        """The segments of the first realisation (walk order); ``()`` when there is none."""
        first = next(self.realisations(), None)
        return tuple(t[1] for t in first[1]) if first is not None else ()


def _released(*args: Any) -> Any:
    """What the name of a recursive inner function refers to once its walk is over.

    An inner function that calls itself holds a reference to itself (through its closure),
    a cycle that only the garbage collector frees, with everything the walk's closures
    hold; rebinding the name to this function when the walk ends breaks the cycle, so
    reference counting frees the walk at once.  Never called."""
    raise AssertionError("a finished walk was called again")


def _realise(hops: tuple[tuple[Track, ...], ...], avoid: int, chosen: list[Track], i: int,
             used: int) -> Iterator[tuple[int, tuple[Track, ...]]]:
    """:meth:`Candidate.realisations` from step ``i`` on, ``chosen`` the segments of the
    steps before, ``used`` their units (a module function, not an inner one: a recursive
    inner function refers to itself, a cycle left for the garbage collector)."""
    if i == len(hops):
        yield used & ~avoid, tuple(chosen)
        return
    for alt in hops[i]:
        if not alt[0] & used:
            chosen.append(alt)
            yield from _realise(hops, avoid, chosen, i + 1, used | alt[0])
            chosen.pop()


def _walk_order(c: Candidate, tm: TrainModel) -> tuple[int, ...]:
    """``c``'s nodes in the order its walk met them (a walk from a need end, e.g. the
    Rheingold-Express's RGE end, met them in reverse when that end has the larger id)."""
    nodes = c.nodes
    if tm.need_end >= 0 and not (tm.need_end >> nodes[0]) & 1:
        return nodes[::-1]
    return nodes


def _joint(cands: list[Candidate]) -> list[tuple[Track, ...]] | None:
    """One realisation per candidate, no track unit used twice among them all (a run of
    the candidates' trains beside each other), or ``None`` when there is none.  A
    necessary condition first: the ``must`` units of the candidates are disjoint."""
    used = 0
    for c in cands:
        if c.must & used:
            return None
        used |= c.must
    items = [(len(alts), ci, hi) for ci, c in enumerate(cands) for hi, alts in enumerate(c.hops)]
    items.sort()  # fixed steps first, then the steps with fewest choices
    pick: list[Track | None] = [None] * len(items)
    if not _joint_walk(cands, items, pick, 0, 0):
        return None
    out: list[list[Track | None]] = [[None] * len(c.hops) for c in cands]
    for (_n, ci, hi), alt in zip(items, pick, strict=True):
        out[ci][hi] = alt
    return [tuple(a for a in row if a is not None) for row in out]


def _joint_walk(cands: list[Candidate], items: list[tuple[int, int, int]],
                pick: list[Track | None], i: int, used: int) -> bool:
    """:func:`_joint` from item ``i`` on (``used``: the units of the picks before)."""
    if i == len(items):
        return True
    _n, ci, hi = items[i]
    for alt in cands[ci].hops[hi]:
        if not alt[0] & used:
            pick[i] = alt
            if _joint_walk(cands, items, pick, i + 1, used | alt[0]):
                return True
    return False


def _split(c: Candidate, ids: UnitSets) -> list[Candidate]:
    """One candidate per realisation of ``c`` (each step fixed to one segment)."""
    return [
        Candidate(c.ub, c.nodes, tuple((t,) for t in tracks), mask,
                  sum(1 << j for j in {ids.id(t[0]) for t in tracks}), c.free)
        for mask, tracks in c.realisations()
    ]


class UnitSets:
    """Ids for the sets of track units the steps of candidates surely use (one per
    distinct set), shared by every walk of one search, so that whether two candidates'
    ``must`` units meet is a question about a few ids (:class:`_Index`)."""

    def __init__(self) -> None:
        self.masks: list[int] = []
        self.ids: dict[int, int] = {}

    def id(self, mask: int) -> int:
        """The id of the unit set ``mask`` (a new id the first time)."""
        got = self.ids.get(mask)
        if got is None:
            got = self.ids[mask] = len(self.masks)
            self.masks.append(mask)
        return got


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
        self.units = UnitSets()
        self._cands: dict[str, list[Candidate]] = {}
        self._spare: dict[str, list[Candidate]] = {}
        self._spare_floor: dict[str, int] = {}  # the spare list is whole above it
        # the branches the first walk left and the starts it walked before recording them
        # (and down to which threshold the spare alone serves a second pass)
        self._resume: dict[str, tuple[list[CutBranch], frozenset[int], int]] = {}
        # the list installed from the spare, and its threshold: a refill appends to it
        self._head: dict[str, tuple[int, list[Candidate]]] = {}

    # -- candidates ------------------------------------------------------------
    def model(self, train: str) -> TrainModel:
        name = self.ctx.train_spec(train).name
        tm = self._models.get(name)
        if tm is None:
            tm = self._models[name] = train_model(self.ctx, self.profile, train)
        return tm

    def candidates(
        self, train: str, threshold: int | None = None, budget: Budget | None = None
    ) -> list[Candidate]:
        """Candidates of ``train``'s type with ``ub > threshold`` (all: ``None``), sorted by
        decreasing ``ub`` then key.  For an unbounded profile every candidate is priced
        and ``ub`` is its exact value (the threshold is then ignored)."""
        tm = self.model(train)
        got = self._cands.get(tm.name)
        if got is None:
            bounded = self.profile.bounded
            got = enumerate_candidates(
                self.board, tm, self, threshold=threshold if bounded else None, budget=budget
            )
            if not bounded:  # each realisation priced on its own
                got = [r for c in got for r in _split(c, self.units)]
                for c in got:
                    self.evaluate(tm, c)
                    c.ub = c.exact if c.exact is not None and c.exact >= 0 else -1
                got = [c for c in got if c.ub >= 0]
            _sort_candidates(got)
            for i, c in enumerate(got):
                c.pos = i
            self._cands[tm.name] = got
        return got

    def first_pass(
        self, train: str, margin: Callable[[int], int], budget: Budget | None,
        got: list[Candidate],
    ) -> tuple[int, int]:
        """Walk ``train``'s type once, collecting into ``got`` the candidates with ``ub >
        top - margin(top)``, ``top`` the largest ``ub`` seen so far (the threshold rises
        with it).  Returns ``(top, threshold)``: the largest ``ub`` of any candidate (0 if
        none) and the final threshold; ``got`` is left sorted (decreasing ``ub``, then
        key) and cut to the candidates above the threshold, cached as the type's list."""
        tm = self.model(train)
        top = [0]
        if not _walk_prunes(tm):
            # no completion bound: a walk at any threshold visits the same paths, so keep
            # every candidate worth more than 0 (up to SPARE_MAX) for the second pass
            got[:] = enumerate_candidates(self.board, tm, self, threshold=0, budget=budget)
            top[0] = max((c.ub for c in got), default=0)
            theta = max(top[0] - margin(top[0]), 0)
            if len(got) <= SPARE_MAX:
                self._spare[tm.name] = got[:]
                self._spare_floor[tm.name] = 0
            got[:] = [c for c in got if c.ub > theta]
            self._install(tm, got)
            self._head[tm.name] = (theta, got)
            return top[0], theta

        def improve(c: Candidate) -> int:
            got.append(c)
            top[0] = max(top[0], c.ub)
            return top[0] - margin(top[0])

        log = WalkLog([])
        enumerate_candidates(self.board, tm, self, threshold=0, improve=improve, budget=budget,
                             log=log)
        theta = max(top[0] - margin(top[0]), 0)
        if log.spare is not None:  # for a second pass down to ``log.cut``
            self._spare[tm.name] = [*got, *log.spare]
            self._spare_floor[tm.name] = max(log.cut, 0)
            if log.branches is not None and log.recording:
                # or lower: the branches left and the first starts are walked then
                self._spare_floor[tm.name] = 0
                self._resume[tm.name] = (log.branches, frozenset(log.early), max(log.cut, 0))
        got[:] = [c for c in got if c.ub > theta]
        self._install(tm, got)
        self._head[tm.name] = (theta, got)
        return top[0], theta

    def _install(self, tm: TrainModel, got: list[Candidate]) -> None:
        _sort_candidates(got)
        for i, c in enumerate(got):
            c.pos = i
        self._cands[tm.name] = got

    def refill(self, train: str, threshold: int, budget: Budget | None) -> list[Candidate]:
        """Replace the cached list of ``train``'s type by its candidates with ``ub >
        threshold``."""
        tm = self.model(train)
        self._cands.pop(tm.name, None)
        spare = self._spare.get(tm.name)
        if spare is not None and threshold >= self._spare_floor[tm.name]:
            # the first walk met every candidate above the threshold, or left it in a
            # branch it recorded (walked now, at the new threshold): no second full walk
            for c in spare:
                if c.ub < -1 and -1 - c.ub > threshold:  # price it now, as the walk would
                    c.ub = tm.bound(_walk_order(c, tm), c.free)
            # the list installed last holds every candidate above its threshold ``over``
            # (sorted): the new ones, all at most ``over``, sort after it
            over, head = self._head.get(tm.name, (-1, []))
            if over < threshold:
                over, head = 1 << 60, []
            branches, early, cut = self._resume.get(tm.name, ([], frozenset(), 0))
            if threshold >= cut:  # every candidate above it was met: no walk at all
                branches, early = [], frozenset()
            if early:  # those starts are walked again: not their candidates met
                need = tm.need_end
                got = [c for c in spare if threshold < c.ub <= over and (
                    c.nodes[0] if need < 0 or (need >> c.nodes[0]) & 1 else c.nodes[-1]
                ) not in early]  # (the start of the walk that met it: _walk_order)
            else:
                got = [c for c in spare if threshold < c.ub <= over]
            left = [b for b in branches if b[0] > threshold]
            if left or early:
                got += [c for c in enumerate_candidates(
                    self.board, tm, self, threshold=threshold, budget=budget, resume=left,
                    restart=early) if c.ub <= over]
            _sort_candidates(got)
            got[:0] = head
            for i in range(len(head), len(got)):
                got[i].pos = i
            self._cands[tm.name] = got
            self._head[tm.name] = (threshold, got)
            return got
        return self.candidates(train, threshold, budget)

    def evaluate(self, tm: TrainModel, cand: Candidate) -> int:
        """Exact revenue (M) of ``cand`` by the rules' hooks on its first realisation; -1 if
        illegal both ways or without a realisation."""
        if cand.exact is not None:
            return cand.exact
        self.evaluations += 1
        ctx, graph, view, rules = self.ctx, self.graph, self.view, self.rules
        spec = ctx.train_spec(tm.train)
        nodes = graph.nodes
        best = -1
        fwd = cand.segments
        if not fwd:
            cand.exact = -1
            return -1
        both = cand.free > 0 or not self.profile.bounded
        dirs = (fwd, tuple(s.reversed() for s in reversed(fwd))) if both else (fwd,)
        for flip, segs in enumerate(dirs):
            visits = (nodes[segs[0].a], *(nodes[s.b] for s in segs))
            route = Route(tm.train, spec, segs, visits)
            try:
                costs = check_route(ctx, graph, view, route, rules)
            except GameError:
                continue
            rev = rules.evaluate(ctx, route, view.tokened, costs).revenue
            if cand.route is None or rev > best:
                best, cand.route, cand.flip = rev, route, bool(flip)
        cand.exact = best if cand.route is not None else -1
        return cand.exact


class OutOfBudget(Exception):
    """Raised inside a search when its node budget (``budget_nodes``) is spent."""


class Budget:
    """Search nodes left to spend (``None``: unlimited); :meth:`spend` raises
    :class:`OutOfBudget` once they are gone."""

    def __init__(self, nodes: int | None) -> None:
        self.left = nodes

    def spend(self, n: int) -> None:
        """Charge ``n`` nodes; raises :class:`OutOfBudget` once the budget is overdrawn."""
        if self.left is not None:
            self.left -= n
            if self.left < 0:
                raise OutOfBudget


class _Stop(Exception):
    pass


CutBranch = tuple[int, tuple[int, ...], tuple[tuple[Track, ...], ...], tuple[int, ...],
                  list[float] | None, int, int, int, int, int, int, bool, int]
"""A branch a walk left by its completion bound, as the walk stood at its last node (a
plain tuple: walks record many): the completion bound (M) it was left at; the path's
nodes; the open segments per step; the visits counted per distance rule (a walk with a
completion bound has no general distance rule); the end-reach table of its start
(``None``: none); then the arguments of the walk's node visit (node, visited, must
units, sure ids, groups, free visits, counted, values)."""


@dataclass(slots=True)
class WalkLog:
    """What a walk with a rising threshold leaves out, so that a second pass at a lower
    threshold need not walk again (:meth:`_Search.refill`).

    ``spare``: every candidate with ``ub > 0`` the walk met but did not keep (``None``
    once more than ``cap`` of them: then a second pass walks again); a candidate whose
    ``ub`` is below ``-1`` is not priced yet (its title route bound was skipped: the sum
    ``-1 - ub`` bounding it was at most the threshold then).  ``cut``: the largest
    completion bound of a branch the walk left (``-1``: none).  Every candidate with
    ``ub`` above ``cut`` was met, so the kept ones and ``spare`` hold every candidate a
    walk at a threshold ``>= cut`` keeps.  ``branches``: the branches the walk left
    once ``recording`` (from the first start after :data:`RECORD_AFTER` walk nodes; the
    starts walked before are ``early``), ``None`` once more than :data:`BRANCHES_MAX`:
    every candidate the walk did not meet lies in one of them or in the paths of an
    early start, with ``ub`` at most the branch's bound; so the kept ones and ``spare``
    (but those of the early starts) plus a walk of the early starts and of the branches
    bounded above a
    threshold from where they were left (``restart`` and ``resume`` of
    :func:`enumerate_candidates`) hold every candidate above it."""

    spare: list[Candidate] | None
    cut: int = -1
    cap: int = 20_000
    branches: list[CutBranch] | None = field(default_factory=list)
    recording: bool = False
    early: list[int] = field(default_factory=list)


def enumerate_candidates(
    bm: BoardModel,
    tm: TrainModel,
    counter: _Search | None = None,
    *,
    threshold: int | None = None,
    forbid: int = 0,
    improve: Callable[[Candidate], int] | None = None,
    budget: Budget | None = None,
    units: UnitSets | None = None,
    log: WalkLog | None = None,
    resume: list[CutBranch] | None = None,
    restart: frozenset[int] = frozenset(),
) -> list[Candidate]:
    """The paths ``tm``'s train might legally run, once each, with their bound ``ub``.

    See step 1 of the module docstring for the pruning.  ``threshold``: keep only
    candidates with ``ub > threshold`` and cut every branch whose completion bound
    (:func:`_completion_bound`) is at most it (``None``: keep every candidate).
    ``forbid``: track units no candidate may use.  ``improve``: called on each kept
    candidate, it returns the new threshold (at least the old one) -- the search
    for the single best route raises it as it goes and keeps nothing.  ``counter``
    (if given) has its ``nodes_explored`` increased by the DFS nodes visited;
    ``budget`` is charged the same and raises :class:`OutOfBudget` when spent.
    ``log`` (with ``improve``): collects the candidates the rising threshold leaves out
    and the branches it cut (see :class:`WalkLog`).  ``resume``: walk only these
    branches (left by an earlier walk of the same train, board and ``forbid``) from
    where they were left, and the starts in ``restart``, instead of every start.
    """
    adj = bm.hops
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
    steps: list[tuple[Track, ...]] = []
    out: list[Candidate] = []
    explored = 0
    # the completion bound (built on its first question, with its walk table: on
    # ordinary boards it is seldom asked)
    prunes = threshold is not None and _walk_prunes(tm)
    cb: Callable[[list[int], int, list[int], int, int, int], int] | None = None
    theta = threshold if threshold is not None else -(1 << 60)
    # the completion bound of a train paying every visit is at least the bonus cap plus
    # the path's values (:func:`_completion_bound`): below that it cannot cut, not asked
    floor = tm.profile.bonus_cap(tm) if prunes and tm.all_pay else -1
    limited = [r for r in range(len(limits)) if limits[r] < _UNLIMITED]
    tok_dist = _token_distance(tm, bm) if not general and limited else None
    far: list[float] | None = None
    end_ids = 0  # the nodes a route may end at (a walk without a need-end rule)
    if tok_dist is not None and need < 0:
        for i in range(len(end)):
            if end[i] and visit[i]:
                end_ids |= 1 << i
    chunk = 0

    # a route with at most ``plain`` dropped visits is priced by the running sum of its
    # positive values plus the bonus bound (the title's route bound equals it there:
    # :meth:`TitleProfile.sum_bound_free`); others by the title's route bound
    plain = tm.profile.sum_bound_free(tm)
    if units is None:
        units = counter.units if counter is not None else UnitSets()
    unit_ids = units.ids
    new_id = units.id
    bonus = tm.profile.bonus_bound
    vals = tm.value

    dfs: Callable[[int, int, int, int, int, int, bool, int], None]  # the walk (released)

    def _dfs(node: int, vmask: int, umask: int, smask: int, gmask: int, free: int,
             counted: bool, acc: int) -> None:
        """``umask``: units every realisation uses; ``smask``: track ids of the fixed steps;
        ``acc``: the positive stop values on the path."""
        nonlocal explored, theta, chunk, cb
        explored += 1
        if budget is not None:
            chunk += 1
            if chunk >= 1024:
                budget.spend(chunk)
                chunk = 0
        start = path[0]
        if tok_dist is not None and not vmask & tokened:
            # no token city yet: one must still be within the visits left
            left = 0
            for r in limited:
                left += limits[r] - counts[r]
            if tok_dist[node] > left:
                return
        if far is not None:
            # the path must still reach a node it may end at, of a larger id than its start
            left = 0
            for r in limited:
                left += limits[r] - counts[r]
            if far[node] > left:
                return
        if prunes and (floor < 0 or floor + acc <= theta):
            if cb is None:
                cb = _completion_bound(tm, bm)
            v = cb(path, vmask, counts, free, acc, theta)
            if v <= theta:
                if log is not None:
                    if v > log.cut:
                        log.cut = v
                    if log.recording and log.branches is not None:
                        if len(log.branches) >= BRANCHES_MAX:
                            log.branches = None  # too many: a later pass walks again
                        else:
                            log.branches.append((
                                v, tuple(path), tuple(steps), tuple(counts), far, node,
                                vmask, umask, smask, gmask, free, counted, acc))
                return
        if (
            node > start
            and end[node]
            and vmask & tokened
            and len(path) - free >= 2
            and (need < 0 or ((1 << start) | (1 << node)) & need)
        ) or (
            from_need and end[node] and node < start and not (need >> node) & 1
            and vmask & tokened and len(path) - free >= 2
        ):
            ub = acc + bonus(tm, path, vmask)
            if free > plain:  # the title's route bound, at most the sum (skipped below it)
                ub = bound(path, free) if ub > theta else -1 - ub
            if ub > theta:
                nodes = tuple(path) if node > start else tuple(reversed(path))
                # (reversed: found from its need end; nodes in the canonical direction)
                c = Candidate(ub, nodes, tuple(steps), umask & ~forbid, smask, free)
                if improve is None:
                    out.append(c)
                else:
                    theta = max(theta, improve(c))
            elif log is not None and log.spare is not None and ub != -1:
                if len(log.spare) >= log.cap:
                    log.spare = None  # too many to keep: a later pass walks again
                else:  # (ub < -1: not priced yet, -1 - ub the sum bounding it)
                    nodes = tuple(path) if node > start else tuple(reversed(path))
                    log.spare.append(
                        Candidate(ub, nodes, tuple(steps), umask & ~forbid, smask, free))
        if len(path) > 1 and (terminal[node] or (blocked >> node) & 1):
            return
        here = metro[node]
        for b, alts in adj[node]:
            if (vmask >> b) & 1 or not visit[b] or groups[b] & gmask:
                continue
            # the parallel segments to b still open; every realisation uses their common units
            live: tuple[Track, ...]
            sm = smask
            if len(alts) == 1:
                m = alts[0][0]
                if m & umask:
                    continue
                live = alts
                j = unit_ids.get(m)
                sm |= 1 << (new_id(m) if j is None else j)
            else:
                live = tuple([a for a in alts if not a[0] & umask])
                if not live:
                    continue
                m = live[0][0]
                for a in live:
                    m &= a[0]
                if m:
                    j = unit_ids.get(m)
                    sm |= 1 << (new_id(m) if j is None else j)
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
            ok = True
            if cost:
                if general:
                    k = kinds[b]
                    kind_counts[k] = kind_counts.get(k, 0) + 1
                    if not tm.distance_ok(kind_counts):
                        kind_counts[k] -= 1
                        ok = False
                elif counts[r] >= limits[r]:
                    ok = False
                else:
                    counts[r] += 1
            if ok:
                path.append(b)
                steps.append(live)
                vb = vals[b]
                dfs(b, vmask | (1 << b), umask | m, sm, gmask | groups[b], free + (cost == 0),
                    cost > 0, acc + vb if vb > 0 else acc)
                path.pop()
                steps.pop()
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

    starts = [s for s in range(len(adj)) if visit[s] and end[s] and adj[s]]
    # one end must be in ``need`` (18Rhl's Rheingold-Express): walk from those ends only;
    # a path with one such end is found from it, one with two from the lower id
    from_need = need >= 0
    if from_need:
        starts = [s for s in starts if (need >> s) & 1]
    if prunes:  # good starts first: the threshold rises sooner
        starts.sort(key=lambda s: (-tm.value[s], s))
    dfs = _dfs
    try:
        for br in resume or ():
            path[:] = br[1]
            steps[:] = br[2]
            counts = list(br[3])
            far = br[4]  # (read by the walk)
            dfs(*br[5:])
        for s in starts if resume is None else [x for x in starts if x in restart]:
            if log is not None and not log.recording:
                if explored > RECORD_AFTER:
                    log.recording = True  # a big walk: record the branches it leaves
                else:
                    log.early.append(s)
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
            far = None
            if end_ids and explored > END_CUT_AFTER:
                # a big walk: each start's paths are kept only when they end at a node of a
                # larger id, so leave paths that can no longer reach one (as the token cut)
                far = _token_distance(tm, bm, end_ids & ~((2 << s) - 1))
            path[:] = [s]
            steps.clear()
            dfs(s, 1 << s, forbid, 0, groups[s], 0, True, max(vals[s], 0))
    finally:
        if counter is not None:
            counter.nodes_explored += explored
        dfs = _released
    if budget is not None:
        budget.spend(chunk)
    return out


def _token_distance(tm: TrainModel, bm: BoardModel, sources: int | None = None
                    ) -> list[float]:
    """Per node ``x``: the fewest visits of limited distance rules (``limits`` below
    :data:`_UNLIMITED`) a route must still make after ``x`` to reach a city with the
    entity's token (``inf``: none reachable).  A visit costs 1 when its kind's rule is
    limited, 0 when unlimited (towns) or dropped by a ferry (a ferried node right after
    a node of its hex); a route passes no terminal or blocked node.  A relaxation (nodes
    may repeat; groups and per-rule limits ignored), so a path without a token whose
    visits left are fewer than this never extends to a route (every route has a token
    city: check ``route.token``); the walk cuts it (``docs/best-routes.md`` §2).
    ``sources``: a node bitmask to reach instead of the token cities (the walk's end
    cut: the nodes a route from the current start may end at)."""
    n = len(tm.value)
    if sources is None:
        sources = bm.tokened
    limits = tm.limits
    rule = tm.rule
    metro = tm.metro_hex
    ferry = tm.ferry
    visit = tm.visit
    inf = float("inf")
    dist: list[float] = [inf] * n
    queue: deque[int] = deque()
    for t in range(n):
        if (sources >> t) & 1 and visit[t]:
            dist[t] = 0
            queue.append(t)
    done = [False] * n
    while queue:
        b = queue.popleft()
        if done[b]:
            continue
        done[b] = True
        if dist[b] and (bm.terminal[b] or (bm.blocked >> b) & 1):
            continue  # a route only ends here: no route passes through b to a token
        r = rule[b]
        limited = r >= 0 and limits[r] < _UNLIMITED
        for a, _alts in bm.hops[b]:
            if not visit[a] or done[a]:
                continue
            # the visit of b right after a: free when unlimited or ferried
            cost = 1 if limited and not (ferry[b] and metro[b] is not None
                                         and metro[a] == metro[b]) else 0
            d = dist[b] + cost
            if d < dist[a]:
                dist[a] = d
                if cost:
                    queue.append(a)
                else:
                    queue.appendleft(a)
    return dist


END_CUT_AFTER = 20_000
"""Walk nodes after which a walk computes, per start, how far each node is from a node
a route of that start may end at (one breadth-first search per start: too dear for the
small walks of ordinary boards)."""

RECORD_AFTER = 20_000
"""Walk nodes after which a first walk records the branches it leaves (:class:`WalkLog`):
a small walk is walked again instead (cheaper than recording its many small cuts)."""

BRANCHES_MAX = 5_000
"""Most branches a first walk records (:class:`WalkLog`); beyond, none is kept and a
second pass below the walk's largest cut walks again.  Records cost time (allocations and
the collector's passes over them) where no second pass comes: at 20,000 the two walks of
1893_end_bank HGK 8+x+6 took ~0.2 s more."""

SPARE_MAX = 100_000
"""Most candidates a first walk without a completion bound keeps for the second pass
(:meth:`_Search.first_pass`); beyond it the second pass walks again (memory bound)."""


def _walk_prunes(tm: TrainModel) -> bool:
    """Whether a walk of ``tm``'s train with a threshold cuts branches by the completion
    bound (a limited or all-paying distance rule and no general distance check); if not,
    every threshold visits the same paths."""
    limited = any(lim < _UNLIMITED for lim in tm.limits)
    return not tm.general and (limited or tm.all_pay)


def _completion_bound(
    tm: TrainModel, bm: BoardModel | None = None
) -> Callable[[list[int], int, list[int], int, int, int], int]:
    """An admissible bound on every route that extends a partial path at its end.

    ``f(path, vmask, counts, free, acc, theta)``: ``path`` the nodes so far, ``vmask``
    their bitmask, ``counts[r]`` the visits distance rule ``r`` counted so far, ``free``
    the visits dropped so far (18Rhl ferry), ``acc`` the sum of the positive values on
    the path; ``theta`` the walk's threshold: a result above it may stop early (it is
    then only known to exceed ``theta``), one at most ``theta`` is the bound.  Per
    rule ``r``, any extension adds at most ``limits[r] - counts[r]`` counted visits
    of the kinds ``r`` names plus at most ``fmax - free`` dropped ones (``fmax``: the
    hexes that can drop a visit, one dropped visit each -- a green metropolis is
    entered twice only by its ferry and the gray 949 joins one town and one city); the
    best such visits are at most the best values among the nodes not on the path.
    The route's base bound (:meth:`TrainModel.base_bound`) over the whole route is
    then at most the best ``pay + free`` values among the path's values and those, per
    rule; the title's bonuses at most :meth:`TitleProfile.bonus_cap`.  See
    ``docs/best-routes.md``.
    """
    vals = tm.value
    kinds = tm.profile.kinds
    nrules = len(tm.limits)
    fmax = len({tm.metro_hex[i] for i in range(len(vals)) if tm.ferry[i]})
    per_rule: list[list[tuple[int, int]]] = [[] for _ in range(nrules)]
    for i, v in enumerate(vals):
        r = tm.rule[i]
        if v > 0 and tm.visit[i] and r >= 0:
            per_rule[r].append((v, 1 << i))
    for lst in per_rule:
        lst.sort(key=lambda vb: -vb[0])
    cap = tm.profile.bonus_cap(tm)
    limits = tm.limits
    pays = tm.pays
    rule = tm.rule
    if tm.all_pay:
        walk = _walk_table_memo(tm, bm) if bm is not None else None
        counted = [r for r in range(nrules) if limits[r] < _UNLIMITED]
        top_left = len(walk) - 1 if walk is not None else 0

        def f(path: list[int], vmask: int, counts: list[int], free: int, acc: int,
              theta: int) -> int:
            total = cap + acc
            extra = fmax - free
            by_walk = -1
            if walk is not None:
                left = extra
                for r in counted:
                    left += limits[r] - counts[r]
                row, ban, sec = walk[min(left, top_left)]
                x = path[-1]
                p = ban[x]
                # the best first hop ends on the path: the second best
                by_walk = sec[x] if p >= 0 and (vmask >> p) & 1 else row[x]
                if total + by_walk <= theta:
                    return total + by_walk
            need = theta - total  # past it the branch stays, whatever the rest adds
            glob = 0
            for r in range(nrules):
                k = limits[r] - counts[r] + extra
                for v, bit in per_rule[r]:
                    if k <= 0 or 0 <= by_walk < glob or glob > need:
                        break
                    if not vmask & bit:
                        glob += v
                        k -= 1
            return total + (by_walk if 0 <= by_walk < glob else glob)

        return f

    def g(path: list[int], vmask: int, counts: list[int], free: int, acc: int,
          theta: int) -> int:
        total = cap
        extra = fmax - free
        for r in range(nrules):
            mine = [v for i in path if rule[i] == r and (v := vals[i]) > 0]
            k = limits[r] - counts[r] + extra
            for v, bit in per_rule[r]:
                if k <= 0:
                    break
                if not vmask & bit:
                    mine.append(v)
                    k -= 1
            mine.sort(reverse=True)
            total += sum(mine[: pays[r] + fmax])
        return total

    del kinds
    return g


_DIGITS = [bytes(48 + ((v >> b) & 1) for v in range(256)) for b in range(8)]
"""Per bit ``b``: the byte table mapping a byte to the ASCII digit of its bit ``b``."""

MEMO_BITS = 8 * 64 * 2**20
"""Bits the clash memo of one candidate index may hold (64 MB)."""


class _Index:
    """One train type's candidates (sorted by decreasing ``ub``) as bitsets over their indices.

    ``alive``: candidates not known to be illegal.  :meth:`clashes` of a picked
    candidate of any train is the set of candidates that cannot run beside it because
    their ``must`` units meet its ``must`` units (every realisation of the one shares
    a unit with every realisation of the other), asked through the unit-set ids of
    ``sure``.  So the candidates that may run beside some picked routes are within
    ``alive`` minus the union of their clashes, and the first of them (lowest index)
    has the best ``ub`` -- :meth:`best_ub` is an upper bound of "best ub of this
    train beside the picks", computed with a few big-integer operations.  Whether
    picked candidates really run beside each other is decided by :func:`_joint`.
    """

    def __init__(self, cands: list[Candidate], masks: list[int]) -> None:
        self.cands = cands
        self.alive = (1 << len(cands)) - 1
        self._masks = masks
        self._by_id: list[int] | None = None
        self._near: dict[int, int] = {}
        self._memo: dict[int, tuple[Candidate, int]] = {}
        self._memo_cap = max(16, MEMO_BITS // max(1, len(cands)))
        self._counts: list[int] | None = None
        self._near_rows: dict[int, int] = {}  # per unit-set id: candidates using it
        self._chunked: dict[int, list[int]] = {}  # using (id), near (~id) in pieces
        self._orders: dict[int, list[int]] = {}  # per candidate pos: order()
        self._alive_key: int | None = None
        self._alive_chunks: list[int] = []

    def _build(self) -> list[int]:
        """Per unit-set id, the bitset of the candidates whose ``sure`` holds it: the
        ``sure`` masks laid out as one byte string, each id's column read out as binary
        digits (candidate 0 the lowest bit) -- no loop per candidate and id."""
        if not self.cands:
            return [0] * len(self._masks)
        width = max(1, (len(self._masks) + 7) // 8)
        blob = b"".join([c.sure.to_bytes(width, "little") for c in self.cands])
        rows = []
        for j in range(len(self._masks)):
            col = blob[j >> 3::width].translate(_DIGITS[j & 7])
            rows.append(int(col[::-1], 2))
        return rows

    def near_ids(self, j: int) -> int:
        """Bitmask of the unit-set ids meeting unit set ``j``."""
        got = self._near.get(j)
        if got is None:
            mine = self._masks[j]
            got = 0
            for x, other in enumerate(self._masks):
                if other & mine:
                    got |= 1 << x
            self._near[j] = got
        return got

    def _near_row(self, j: int) -> int:
        """Bitset of the candidates with a unit set in ``sure`` that meets unit set ``j``
        (one per unit-set id asked: the ids are few -- 59 on the densest 1893 board)."""
        got = self._near_rows.get(j)
        if got is None:
            if self._by_id is None:
                self._by_id = self._build()
            using = self._by_id
            rows = len(using)
            got = 0
            near = self.near_ids(j)
            while near:
                low = near & -near
                x = low.bit_length() - 1
                if x < rows:
                    got |= using[x]
                near ^= low
            self._near_rows[j] = got
        return got

    def clashes(self, other: Candidate) -> int:
        """Bitset of this type's candidates whose ``must`` units meet ``other``'s (a
        candidate of any train).

        Memoised per candidate, but the memo holds at most :data:`MEMO_BITS` bits in all
        (one candidate-sized bitset per entry; the oldest entry goes first): memory stays
        bounded by design, whatever the number of candidates."""
        key = id(other)
        hit = self._memo.get(key)
        if hit is not None and hit[0] is other:
            return hit[1]
        bits = 0
        m = other.sure
        while m:
            low = m & -m
            bits |= self._near_row(low.bit_length() - 1)
            m ^= low
        if len(self._memo) >= self._memo_cap:
            del self._memo[next(iter(self._memo))]
        self._memo[key] = (other, bits)
        return bits

    def best_ub(self, clash: int) -> int:
        """Best ``ub`` (at least 0) among the live candidates outside ``clash``."""
        free = self.alive & ~clash
        if not free:
            return 0
        return max(self.cands[(free & -free).bit_length() - 1].ub, 0)

    def first(self, clash: int) -> Candidate | None:
        """The first (best ``ub``) live candidate outside ``clash``, if any."""
        free = self.alive & ~clash
        if not free:
            return None
        return self.cands[(free & -free).bit_length() - 1]

    def order(self, c: Candidate) -> list[int]:
        """All the unit-set ids of ``c.sure`` in :meth:`crowded` order (kept per
        candidate of this list, by ``pos``)."""
        got = self._orders.get(c.pos)
        if got is None or self.cands[c.pos] is not c:
            got = self.crowded(c, len(self._masks))
            if self.cands[c.pos] is c:
                self._orders[c.pos] = got
        return got

    def crowded(self, c: Candidate, most: int) -> list[int]:
        """Up to ``most`` of the unit-set ids in ``c.sure``: those that the most candidates
        of this list surely use first (ties: the lower id)."""
        if self._by_id is None:
            self._by_id = self._build()
        if self._counts is None:
            self._counts = [row.bit_count() for row in self._by_id]
        counts = self._counts
        ids = []
        m = c.sure
        while m:
            low = m & -m
            x = low.bit_length() - 1
            if self._masks[x]:  # (a set of no unit is shared by nobody)
                ids.append(x)
            m ^= low
        ids.sort(key=lambda x: (-counts[x] if x < len(counts) else 0, x))
        return ids[:most]

    def alive_pieces(self) -> list[int]:
        """:attr:`alive` as :func:`_pieces` (kept while ``alive`` is the same)."""
        if self._alive_key is not self.alive:
            self._alive_key = self.alive
            self._alive_chunks = _pieces(self.alive)
        return self._alive_chunks

    def near(self, x: int) -> int:
        """Bitset of this list's candidates with a unit set in ``sure`` meeting unit set
        ``x``: each of them shares a unit with every candidate surely using ``x``."""
        return self._near_row(x)

    def using_chunks(self, x: int) -> list[int]:
        """:meth:`using` as :func:`_pieces` (kept per unit-set id)."""
        got = self._chunked.get(x)
        if got is None:
            got = self._chunked[x] = _pieces(self.using(x))
        return got

    def near_chunks(self, x: int) -> list[int]:
        """:meth:`near` as :func:`_pieces` (kept per unit-set id)."""
        got = self._chunked.get(~x)
        if got is None:
            got = self._chunked[~x] = _pieces(self.near(x))
        return got

    def using(self, x: int) -> int:
        """Bitset of this list's candidates whose ``sure`` holds unit set ``x``: they all
        use its units, so no two of them run beside each other."""
        if self._by_id is None:
            self._by_id = self._build()
        return self._by_id[x] if x < len(self._by_id) else 0


_UNLIMITED = 50
"""A distance rule allowing at least this many visits is treated as unlimited by
:func:`_walk_table` (1893's and 18Rhl's towns: 99)."""


WalkRow = tuple[list[int], list[int], list[int]]
"""One row of :func:`_walk_table`: the bound per node; per node ``x`` the end ``p`` of
the best first hop (-1: none) and the bound when the first hop may not end at ``p``
(forbidding any other node leaves the bound as it is)."""


_WALKS_SIZE = 64
_WALKS: OrderedDict[tuple[object, ...], tuple[object, list[WalkRow] | None]] = OrderedDict()
"""The last :func:`_walk_table` results, by what they read: the segment lists ``bm.adj``
(by identity, kept alive by the entry), the blocked and terminal nodes, and the train's
values, visits, rules, limits, metropolis hexes and ferry flags (by content)."""


def _walk_table_memo(tm: TrainModel, bm: BoardModel) -> list[WalkRow] | None:
    """:func:`_walk_table` reused between the walks of one search (its refills) and between
    searches on boards with the same track (the table is read only)."""
    key = (id(bm.adj), bm.blocked, bm.terminal, tm.value, tm.visit, tm.rule, tm.limits,
           tm.metro_hex, tm.ferry)
    hit = _WALKS.get(key)
    if hit is not None and hit[0] is bm.adj:
        _WALKS.move_to_end(key)
        return hit[1]
    got = _walk_table(tm, bm)
    _WALKS[key] = (bm.adj, got)
    if len(_WALKS) > _WALKS_SIZE:
        _WALKS.popitem(last=False)
    return got


def _walk_table(tm: TrainModel, bm: BoardModel) -> list[WalkRow] | None:
    """``table[c][0][x]``: an upper bound (M) on the values a route collects after node
    ``x`` when it may still make ``c`` visits that count (or are dropped by the ferry),
    for a train that pays every visit (``tm.all_pay``); ``None`` when no rule limits the
    visits.  ``table[c][2][x]`` if ``p == table[c][1][x]``, else ``table[c][0][x]``: the
    same when the route's first limited visit after ``x`` is not ``p`` (``p`` a node
    already on the path).

    Visits of the kinds an unlimited rule names (towns: 99) cost nothing: from ``x`` the
    route walks through such nodes only (never through a terminal or blocked one) to a
    node ``w`` of a limited rule, earning the free nodes' values (``chain``) and ``w``'s,
    then continues from ``w`` with ``c - 1`` -- or stops among the free nodes.  The
    table is the best *walk* of that shape (nodes may repeat), a relaxation of every
    simple path: ``table[0][x]`` = the best run of free nodes from ``x``;
    ``table[c][x] = max(table[0][x], max over (w, chain): chain + value(w) +
    table[c - 1][w])``, with nothing after a terminal or blocked ``w``.  The walks
    never hop straight back (``w`` -> ``x`` -> ``w``): after the hop ``x`` -> ``w`` the
    rest is ``table[c - 1][w]`` with the first hop not ending at ``x``; and a lookup
    from the path's last node may forbid any node on the path as the first hop's end.
    Admissible: a legal extension is a simple path, so such a walk (no node twice, so
    no hop back and no hop to a node of the path) with at most ``c`` limited visits.
    """
    vals = tm.value
    n = len(vals)
    limits = tm.limits
    limited = [r for r in range(len(limits)) if limits[r] < _UNLIMITED]
    if not limited:
        return None
    depth = sum(limits[r] for r in limited) + len(
        {tm.metro_hex[i] for i in range(n) if tm.ferry[i]}
    )
    freek = [tm.visit[i] and tm.rule[i] >= 0 and limits[tm.rule[i]] >= _UNLIMITED
             for i in range(n)]
    stop = [bm.terminal[i] or bool((bm.blocked >> i) & 1) for i in range(n)]
    adj = bm.adj
    # per node: best value of a run of free nodes, and (w, best chain value) pairs
    tail: list[int] = [0] * n
    hops: list[dict[int, int]] = [{} for _ in range(n)]
    for x in range(n):
        best_tail = 0
        reach = hops[x]
        stack: list[tuple[int, int, int]] = [(x, 0, 1 << x)]
        steps = 0
        while stack:
            node, acc, seen = stack.pop()
            steps += 1
            if steps > 4096:
                return None  # free runs too many to list: no walk bound (still admissible)
            for b, _m, _seg, _tid in adj[node]:
                if (seen >> b) & 1 or not tm.visit[b]:
                    continue
                if freek[b]:
                    got = acc + max(vals[b], 0)
                    best_tail = max(best_tail, got)
                    if not stop[b]:
                        stack.append((b, got, seen | (1 << b)))
                elif reach.get(b, -1) < acc:
                    reach[b] = acc
        tail[x] = best_tail
    # row[x]: the bound from x; back[x][p]: the bound from x when the first hop may
    # not end at p (a walk never hops straight back to the node it came from)
    # per node: (w, chain + value of w, whether the walk stops at w) per hop
    out_hops = [[(w, chain + max(vals[w], 0), stop[w]) for w, chain in hops[x].items()]
                for x in range(n)]
    table: list[WalkRow] = [(tail[:], [-1] * n, tail[:])]
    for _c in range(depth):
        prev, prev_ban, prev_second = table[-1]
        row = tail[:]
        ban = [-1] * n
        sec = tail[:]
        for x in range(n):
            best = second = row[x]
            best_w = -1
            for w, gain, stops in out_hops[x]:
                v = gain if stops else gain + (prev_second[w] if prev_ban[w] == x else prev[w])
                if v > best:
                    best, second, best_w = v, best, w
                elif v > second:
                    second = v
            row[x] = best
            ban[x] = best_w
            sec[x] = second
        table.append((row, ban, sec))
    return table


def _crude_bound(tm: TrainModel) -> int:
    """An admissible bound (M) on any route of ``tm``'s train, computed without search:
    the completion bound of the empty path (every value the train may still collect)."""
    if tm.general:
        return sum(v for i, v in enumerate(tm.value) if v > 0 and tm.visit[i]) + (
            tm.profile.bonus_cap(tm)
        )
    return _completion_bound(tm)([], 0, [0] * len(tm.limits), 0, 0, 1 << 60)


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
    s = _Search(ctx)
    bounded = s.profile.bounded
    budget = Budget(budget_nodes if bounded else None)
    trains = list(ctx.trains)
    # a train type whose routes must end at a few nodes (18Rhl's Rheingold-Express) runs
    # at most as many routes as those nodes have track for: the other trains run nothing
    room: dict[str, int] = {}
    for t in ctx.trains:
        n = s.model(t).name
        if n not in room:
            room[n] = _end_room(s.board, s.model(t))
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
        tops_by[n] = max(_crude_bound(s.model(t)), 0)
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
            pruned = _branch_and_bound(s, trains, names, models, budget, best_pick,
                                       best_real, [lists[names[t]] for t in trains])
            # 3. a route of train j in a run beating this one earns more than
            # best - (what the other trains can earn at most): walk again where needed
            best = _total(best_pick)
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
                pruned = max(pruned, _branch_and_bound(
                    s, trains, names, models, budget, best_pick, best_real,
                    [lists[names[t]] for t in trains], [had[names[t]] for t in trains]))
        except OutOfBudget:
            complete = False
    best = _total(best_pick)

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


def _end_room(bm: BoardModel, tm: TrainModel) -> int:
    """How many routes of ``tm``'s train can run beside each other at most (a large number
    when unlimited): with a ``need_end`` rule (every route ends at one of those nodes) the
    sum over those nodes of the most segments leaving the node that share no track unit
    -- each route leaves its end node by one segment, and routes share no unit."""
    if tm.need_end < 0:
        return 1 << 30
    total = 0
    for x, adj in enumerate(bm.hops):
        if (tm.need_end >> x) & 1:
            total += _packing(sorted({a[0] for _b, alts in adj for a in alts}))
    return total


def _packing(masks: list[int]) -> int:
    """The most of ``masks`` (unit bitmasks) that are pairwise disjoint (exhaustive up to 16
    masks; beyond, their number -- an upper bound)."""
    if len(masks) > 16:
        return len(masks)
    return _packing_from(masks, 0, 0)


def _packing_from(masks: list[int], i: int, used: int) -> int:
    """:func:`_packing` of ``masks[i:]`` beside the units ``used``."""
    if i == len(masks):
        return 0
    skip = _packing_from(masks, i + 1, used)
    if masks[i] & used:
        return skip
    return max(skip, 1 + _packing_from(masks, i + 1, used | masks[i]))


def _margin(k: int) -> Callable[[int], int]:
    """How far below a train type's best ``ub`` the first walk keeps candidates, for a run
    of ``k`` trains: a guess of what running beside the others costs (a fifth of the best
    per other train); a wrong guess costs a second walk, never the optimum."""
    return lambda top: (top * (k - 1)) // 5 + 1


def _set_bits(x: int) -> Iterator[int]:
    """The indices of the set bits of ``x >= 0``, in increasing order (one pass over its
    bytes, then 4,096 bits at a time: no operation on the whole of a big integer per bit)."""
    data = x.to_bytes((x.bit_length() + 7) // 8, "little")
    for base in range(0, len(data), 512):
        chunk = int.from_bytes(data[base:base + 512], "little")
        while chunk:
            low = chunk & -chunk
            yield base * 8 + low.bit_length() - 1
            chunk ^= low


def _total(pick: list[Candidate | None]) -> int:
    return sum(c.exact for c in pick if c is not None and c.exact is not None)


def _greedy(
    s: _Search,
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
            real = _joint([*taken, c])
            if real is None:
                continue
            taken.append(c)
            where.append(j)
            best_pick[j] = c
            for jj, r in zip(where, real, strict=True):
                best_real[jj] = r
            break


def _need_bound(new_top: list[int | None], rs: list[int], first: int) -> int | None:
    """The most the levels ``first``, ``first + 1``, ... (best ``ub`` ``rs``) add to a run
    when one of them must take a candidate new to this pass (``new_top``: per level the
    best ``ub`` of those, None where it has none; :func:`_branch_and_bound`); ``None``
    when none can."""
    total = sum(rs)
    got: int | None = None
    for j, r in enumerate(rs):
        nt = new_top[first + j]
        if nt is not None:
            v = total - r + (r if r < nt else nt)
            if got is None or v > got:
                got = v
    return got


def _branch_and_bound(
    s: _Search,
    trains: list[str],
    names: dict[str, str],
    models: list[TrainModel],
    budget: Budget,
    best_pick: list[Candidate | None],
    best_real: list[tuple[Track, ...] | None],
    levels: list[list[Candidate]],
    fresh: list[int] | None = None,
) -> int:
    """Step 3 of the module docstring over the candidate lists ``levels`` (one per train,
    in ``trains`` order), starting from the incumbent ``best_pick`` with its realisations
    ``best_real`` (both updated in place on a strict improvement).  Returns the largest
    bound of a pruned subtree.

    ``fresh``: per level, the index of the first candidate the previous pass did not
    have (the lists of a second pass extend the first pass's lists, which are their
    prefixes); then only runs with at least one such candidate are searched -- the
    previous pass, exhaustive over its lists, already bounds every other run."""
    k = len(trains)
    start_new = fresh if fresh is not None else [0] * k
    # ub of the best candidate new to this pass per level (None: the level has none)
    new_top: list[int | None] = [
        max(levels[j][f].ub, 0) if f < len(levels[j]) else None for j, f in enumerate(start_new)
    ]

    best = _total(best_pick)
    same_as_prev = [i > 0 and names[trains[i]] == names[trains[i - 1]] for i in range(k)]
    run_end = list(range(k))  # run_end[i]: the last level of the same type right after i
    for i in range(k - 2, -1, -1):
        if same_as_prev[i + 1]:
            run_end[i] = run_end[i + 1]
    shared: dict[str, _Index] = {}
    for t, lst in zip(trains, levels, strict=True):
        shared.setdefault(names[t], _Index(lst, s.units.masks))
    index = [shared[names[t]] for t in trains]
    negs = [[-c.ub for c in lst] for lst in levels]  # for bisect (decreasing ub)
    pick: list[Candidate | None] = [None] * k
    real: list[list[tuple[Track, ...]] | None] = [None] * (k + 1)
    real[0] = []
    pruned = 0
    explored = 0

    branch: Callable[[int, tuple[int, ...], int, int, bool], None]  # the search (released)

    def _branch(level: int, clash: tuple[int, ...], cur: int, start: int, need: bool) -> None:
        """Level ``level``, ``cur`` M earned (optimistic until priced); ``clash[j]``: the
        candidates of train ``level + j`` that cannot run beside the routes picked so far
        (a subset: see :class:`_Index`); ``real[level]``: realisations of the picks that
        run beside each other; ``need``: no pick so far is new to this pass (see
        ``fresh``), so this or a later level must take a new one."""
        nonlocal best, pruned, explored
        explored += 1
        if explored >= 256:
            s.nodes_explored += explored
            budget.spend(explored)
            explored = 0
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
                    got = real[k]
                    assert got is not None
                    at = 0
                    for j, c in enumerate(pick):
                        best_real[j] = None
                        if c is not None:
                            best_real[j] = got[at]
                            at += 1
            return
        here = index[level]
        lst = levels[level]
        later = clash[1:]
        taken = [c for c in pick[:level] if c is not None]
        # the next levels of this train type take this or later candidates (symmetry):
        # their ub is at most this level's pick's
        same = run_end[level] - level
        before = (1 << start) - 1 if same_as_prev[level] and start else 0
        rests = [index[level + 1 + j].best_ub(cf | before if j < same else cf)
                 for j, cf in enumerate(later)]
        rest_now = sum(rests)
        rest_other = sum(rests[same:])
        rest_same = rests[:same]
        free = here.alive & ~clash[0] & ~before
        # one train left after this level: its candidates beside the picks so far, once
        last = index[level + 1].alive & ~later[0] if len(later) == 1 else 0
        last_negs = negs[level + 1] if len(later) == 1 else []
        # with two trains left: per train its free candidates as lazy pieces (and filler)
        lazy: list[tuple[list[int], Callable[[int], int]]] = []
        later_chunks: dict[int, list[int]] = {}

        def later_pieces(j: int) -> list[int]:
            got = later_chunks.get(j)
            if got is None:
                got = later_chunks[j] = _pieces(later[j])
            return got

        def eager(c: Candidate, i: int, lims: list[int]) -> tuple[int, ...]:
            """The clash sets of the levels left after picking ``c`` (index ``i``); their
            best ``ub`` beside the picks appended to ``lims``."""
            upto = (1 << i) - 1
            nx: list[int] = []
            for j, cf in enumerate(later):
                ix = index[level + 1 + j]
                if j and ix is index[level + j] and (j < same) == (j - 1 < same) \
                        and cf == later[j - 1]:
                    nx.append(nx[-1])  # one list, the same clashes and start
                    lims.append(lims[-1])
                    continue
                cf |= ix.clashes(c)
                nx.append(cf)
                fr = ix.alive & ~(cf | upto if j < same else cf)
                lims.append(max(ix.cands[(fr & -fr).bit_length() - 1].ub, 0) if fr else 0)
            return tuple(nx)

        first_new = start_new[level] if need else 0  # indices below: the last pass had them
        skip_old = False
        for i in _set_bits(free):
            if skip_old and i < first_new:
                continue
            c = lst[i]
            capped = [r if r < c.ub else c.ub for r in rest_same]
            b = cur + c.ub + rest_other + sum(capped)
            if b <= best:
                pruned = max(pruned, b)
                break
            if i < first_new:  # an old pick: a later level must take a new candidate
                nb = _need_bound(new_top, [*capped, *rests[same:]], level + 1)
                if nb is None or cur + c.ub + nb <= best:
                    # so for every later old candidate too (ub not larger): the new ones
                    if nb is not None:
                        pruned = max(pruned, cur + c.ub + nb)
                    skip_old = True
                    continue
            val = c.ub if c.exact is None else c.exact  # exact once known, else optimistic
            if val < 0:
                continue
            nxt = later
            lim = 0
            lims: list[int] = []
            if len(later) == 1 and best - cur - val >= 0:
                # the last train: only its candidates worth more than ``best - cur - val``
                # can lift the bound above the incumbent; look at those (a window of the
                # sorted list, from this pick on for the same type) beside this pick only
                w = bisect.bisect_left(last_negs, val + cur - best)
                lo = i if same else 0
                v = last & (((1 << (w - lo)) - 1) << lo) if w > lo else 0
                if v:
                    v ^= v & index[level + 1].clashes(c)
                if not v:
                    pruned = max(pruned, best)  # the last train adds at most best - cur - val
                    continue
                lims.append(levels[level + 1][(v & -v).bit_length() - 1].ub)
                lim = lims[0]
                nxt = (later[0] | index[level + 1].clashes(c),)
            elif len(later) == 2:
                # two trains left: their free candidates as pieces computed when the pair
                # bound reads them (it reads the first few); the whole sets only for a pick
                # it does not prune
                nxt = ()
                lazy.clear()
                for j in (0, 1):
                    ix = index[level + 1 + j]
                    if j and ix is index[level + 1] and same != 1 and later[1] == later[0]:
                        lazy.append(lazy[0])  # one list, the same clashes and start
                        lims.append(lims[0])
                        continue
                    fill = _free_pieces(ix, c, later_pieces(j))
                    pieces = [-1] * len(ix.alive_pieces())
                    lazy.append((pieces, fill))
                    h = _head(pieces, i if j < same else 0, len(ix.cands), (), (), fill)
                    lims.append(max(ix.cands[h].ub, 0) if h < len(ix.cands) else 0)
                lim = sum(lims)
            elif later:
                nxt = eager(c, i, lims)
                lim = sum(lims)
            still = i < first_new
            if still:
                nb = _need_bound(new_top, lims, level + 1)
                if nb is None:
                    continue
                lim = nb
            if len(lims) == 2 and cur + val + lim > best:
                # the last two trains: a small branch and bound on their pair
                ia, ib = index[level + 1], index[level + 2]
                pb = _pair_bound(ia, ib, lazy[0][0], lazy[1][0], same, i, best - cur - val,
                                 lims, negs[level + 1], negs[level + 2], lazy[0][1],
                                 lazy[1][1])
                if pb is not None:
                    lim = min(lim, pb)
            if not nxt and later and cur + val + lim > best:  # the whole sets after all
                nxt = eager(c, i, [])
            if len(lims) > 1 and cur + val + lim > best:
                # the trains left share no track: at most one takes a crowded unit set
                lim = min(lim, _crowd_bound(index, level + 1, list(nxt), lims, same,
                                            (1 << i) - 1))
            b = cur + val + lim
            if b <= best:
                pruned = max(pruned, b)
                continue
            got = _joint([*taken, c])
            if got is None:  # no track for it beside the picks
                if not taken:
                    here.alive &= ~(1 << i)
                continue
            pick[level] = c
            real[level + 1] = got
            branch(level + 1, nxt, cur + val, i, still)
            pick[level] = None
        if need:  # "no route" here: a later level must take a new candidate
            nb = _need_bound(new_top, rests, level + 1)
            if nb is None:
                return
            rest_now = nb
        if cur + rest_now <= best:
            pruned = max(pruned, cur + rest_now)
            return
        real[level + 1] = real[level]
        branch(level + 1, later, cur, len(lst), need)

    branch = _branch
    try:
        branch(0, (0,) * k, 0, 0, fresh is not None)
    finally:
        s.nodes_explored += explored
        branch = _released
    return pruned


CROWD_IDS = 3
"""How many unit sets of the next train's best candidate :func:`_crowd_bound` tries."""


def _crowd_bound(index: list[_Index], first: int, clashes: list[int], lims: list[int],
                 same: int, upto: int) -> int:
    """A bound (M) on what the trains of levels ``first``, ``first + 1``, ... earn together
    beside the picks, at most ``sum(lims)``.

    ``clashes[j]``: the candidates of level ``first + j`` that cannot run beside the picks
    (the first ``same`` levels, of the picked train's type, also skip the indices in
    ``upto``); ``lims[j]``: that level's best ``ub`` beside the picks (``a_j``).  The
    routes of a run share no track unit, so at most one of them surely uses a given unit
    set ``x`` (every candidate whose ``sure`` holds ``x`` uses its units): the trains earn
    at most ``sum_j w_j + max_j (a_j - w_j)``, ``w_j`` level ``first + j``'s best beside
    the picks among the candidates not using ``x`` (each ``ub`` admissible, "no route" 0).
    Tried for the :data:`CROWD_IDS` unit sets of the first level's best candidate that
    the most candidates of its list use (a set it does not use leaves ``w_0 = a_0``: no
    gain); the smallest result.  See ``docs/best-routes.md`` §4."""
    best = sum(lims)
    ix0 = index[first]
    head = ix0.first(clashes[0] | upto if same > 0 else clashes[0])
    if head is None:
        return best
    for x in ix0.crowded(head, CROWD_IDS):
        total = 0
        gain = 0
        for j, cf in enumerate(clashes):
            ix = index[first + j]
            w = ix.best_ub((cf | upto if j < same else cf) | ix.using(x))
            total += w
            if lims[j] - w > gain:
                gain = lims[j] - w
        if total + gain < best:
            best = total + gain
    return best


PAIR_NODES = 64
"""How many branches :func:`_pair_bound` opens before it gives up."""

_CHUNK_BYTES = 512
"""Bytes (4,096 bits) of a piece of :func:`_pieces`."""


def _pieces(x: int) -> list[int]:
    """The bitset ``x >= 0`` cut in pieces of :data:`_CHUNK_BYTES` bytes (piece ``k``: bits
    ``4096 k`` to ``4096 k + 4095``): set operations on the first pieces of big sets cost
    the pieces, not the sets."""
    data = x.to_bytes((x.bit_length() + 7) // 8, "little")
    return [int.from_bytes(data[at:at + _CHUNK_BYTES], "little")
            for at in range(0, len(data), _CHUNK_BYTES)]


def _free_pieces(ix: _Index, c: Candidate, clash: list[int]) -> Callable[[int], int]:
    """Piece ``k`` (as :func:`_pieces`) of ``ix``'s live candidates outside ``clash`` (as
    pieces) and outside the candidates clashing with ``c`` (:meth:`_Index.clashes`: a unit
    set of their ``sure`` meets one of ``c.sure``), computed on its own."""
    alive = ix.alive_pieces()
    rows = []
    m = c.sure
    while m:
        low = m & -m
        rows.append(ix.near_chunks(low.bit_length() - 1))
        m ^= low

    def fill(k: int) -> int:
        x = alive[k] if k < len(alive) else 0
        if k < len(clash):
            x ^= x & clash[k]
        for row in rows:
            if not x:
                break
            if k < len(row):
                x ^= x & row[k]
        return x

    return fill


def _head(base: list[int], start: int, stop: int, inc: tuple[list[int], ...],
          exc: tuple[list[int], ...], fill: Callable[[int], int] | None = None) -> int:
    """The lowest index ``i`` with ``start <= i < stop`` in ``base``, in every set of
    ``inc`` and in no set of ``exc`` (all as :func:`_pieces`); ``stop`` when there is
    none.  A piece of ``base`` below 0 is not computed yet: ``fill(k)`` gives piece ``k``
    (then kept in ``base``)."""
    bits = _CHUNK_BYTES * 8
    k = start // bits
    low = start - k * bits
    end = min(len(base), (stop + bits - 1) // bits)
    while k < end:
        c = base[k]
        if c < 0:
            assert fill is not None
            c = base[k] = fill(k)
        if low:
            c = (c >> low) << low
            low = 0
        for u in inc:
            if not c:
                break
            c &= u[k] if k < len(u) else 0
        for u in exc:
            if not c:
                break
            if k < len(u):
                c ^= c & u[k]
        if c:
            i = k * bits + (c & -c).bit_length() - 1
            return i if i < stop else stop
        k += 1
    return stop


def _pair_bound(ia: _Index, ib: _Index, base_a: list[int], base_b: list[int], same: int,
                start: int, threshold: int, lims: list[int], negs_a: list[int],
                negs_b: list[int], fill_a: Callable[[int], int] | None = None,
                fill_b: Callable[[int], int] | None = None) -> int | None:
    """A bound (M) at most ``threshold`` on what the last two trains (lists ``ia``, ``ib``)
    earn together beside the picks, or ``None`` when none was found.

    ``base_a``/``base_b``: their live candidates that may run beside the picks (as
    :func:`_pieces`; a piece below 0 is computed when needed by ``fill_a``/``fill_b``, see
    :func:`_head`); ``same``: how many of the two are of the picked train's type (they
    take only the indices from ``start`` on; when both are, also of one type with each
    other, the second takes a candidate at or after the first's: symmetry); ``lims``:
    each one's best ``ub`` beside the picks (at least 0); ``negs_a``/``negs_b``: their
    lists' ``-ub``, for bisection.

    A branch is a pair of candidate sets ``(A, B)``; its bound is the sum of their best
    ``ub`` (each at least 0: "no route").  While the two best candidates ``a``, ``b``
    clash (a unit set ``x`` of ``a.sure`` meets a unit set of ``b.sure``: every
    realisation of one shares a unit with every realisation of the other), the branch
    splits into "the first train's route surely uses ``x``" -- then the second's surely
    uses no unit set meeting ``x`` (``b`` is dropped) -- and "it does not" (``a`` is
    dropped): every pair of the branch is in one of the two.  Branches whose bound is at
    most ``threshold`` are closed; once all are, the largest closed bound is returned
    (every pair lies in a closed branch).  Candidates worth at most ``threshold`` less
    the other train's best are left out at once (they pair to at most ``threshold``).
    Gives up (``None``) on a branch whose two best may run beside each other, or after
    :data:`PAIR_NODES` branches.  Reads only ``ub`` values and units, so it holds with
    every bonus of both titles as the ``ub`` do.  See ``docs/best-routes.md`` §4."""
    wa = bisect.bisect_left(negs_a, lims[1] - threshold)
    wb = bisect.bisect_left(negs_b, lims[0] - threshold)
    got = threshold if wa < len(negs_a) or wb < len(negs_b) else 0
    ordered = same > 1 or (ia is ib and same == 0)
    ca = ia.cands
    cb = ib.cands
    no: tuple[list[int], ...] = ()
    stack = [(start if same > 0 else 0, no, no, start if same > 1 else 0, no)]
    opened = 0
    while stack:
        start_a, inc_a, exc_a, start_b, exc_b = stack.pop()
        ha = _head(base_a, start_a, wa, inc_a, exc_a, fill_a)
        if ordered and ha < wa and start_b < ha:
            start_b = ha  # the second train takes a candidate at or after the first's
        hb = _head(base_b, start_b, wb, no, exc_b, fill_b)
        va = max(ca[ha].ub, 0) if ha < wa else 0
        vb = max(cb[hb].ub, 0) if hb < wb else 0
        if va + vb <= threshold:
            if va + vb > got:
                got = va + vb
            continue
        if ha >= wa or hb >= wb:
            return None
        x = _meeting(ia, ib, ca[ha], cb[hb])
        if x < 0:
            return None  # the two best may run beside each other
        opened += 1
        if opened > PAIR_NODES:
            return None
        ux = ia.using_chunks(x)
        stack.append((ha, inc_a, (*exc_a, ux), hb, exc_b))
        stack.append((ha, (*inc_a, ux), exc_a, hb, (*exc_b, ib.near_chunks(x))))
    return got


def _meeting(ia: _Index, ib: _Index, a: Candidate, b: Candidate) -> int:
    """A unit-set id of ``a.sure`` meeting a unit set of ``b.sure`` (then ``b`` is in
    ``ib.clashes(a)``), the one the most candidates of ``ia`` use first; -1 when there
    is none (``b`` may run beside ``a``)."""
    for x in ia.order(a):
        if b.sure & ib.near_ids(x):
            return x
    return -1


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
