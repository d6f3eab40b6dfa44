"""The state of one search (:class:`Search`): the compiled tables, the candidate list of
each train type (the first walk with a rising threshold, the second pass down to a lower
one from what the first left), the exact pricing of a candidate by the rules, and the
counters."""

from __future__ import annotations

from collections.abc import Callable

from rhineland.errors import GameError
from rhineland.routes.engine import check_route, rules_of
from rhineland.routes.graph import track_graph
from rhineland.routes.model import Route, RouteContext
from rhineland.routes.search.bounds import walk_prunes
from rhineland.routes.search.budget import Budget
from rhineland.routes.search.candidate import (
    Candidate,
    UnitSets,
    sort_candidates,
    split,
    walk_order,
)
from rhineland.routes.search.walk import CutBranch, WalkLog, enumerate_candidates
from rhineland.routes.search_model import (
    BoardModel,
    TitleProfile,
    TrainModel,
    board_model,
    profile_for,
    train_model,
)

SPARE_MAX = 100_000
"""Most candidates a first walk without a completion bound keeps for the second pass
(:meth:`Search.first_pass`); beyond it the second pass walks again (memory bound)."""


class Search:
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
        """The compiled model of ``train``'s type (one per type name, kept)."""
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
                got = [r for c in got for r in split(c, self.units)]
                for c in got:
                    self.evaluate(tm, c)
                    c.ub = c.exact if c.exact is not None and c.exact >= 0 else -1
                got = [c for c in got if c.ub >= 0]
            sort_candidates(got)
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
        if not walk_prunes(tm):
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
        sort_candidates(got)
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
                    c.ub = tm.bound(walk_order(c, tm), c.free)
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
                ) not in early]  # (the start of the walk that met it: walk_order)
            else:
                got = [c for c in spare if threshold < c.ub <= over]
            left = [b for b in branches if b[0] > threshold]
            if left or early:
                got += [c for c in enumerate_candidates(
                    self.board, tm, self, threshold=threshold, budget=budget, resume=left,
                    restart=early) if c.ub <= over]
            sort_candidates(got)
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
