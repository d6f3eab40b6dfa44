"""The stop-sequence walk: :func:`enumerate_candidates` lists, by a depth-first search over
the segment graph, every node sequence a train type might legally run, once each, with
its optimistic value; it cuts branches no extension can make legal, or (with a threshold)
worth too little, and records what a rising threshold left out (:class:`WalkLog`) for a
second pass (step 1 of the algorithm in :mod:`rhineland.routes.search`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from rhineland.routes.search.bounds import (
    UNLIMITED,
    completion_bound,
    token_distance,
    walk_prunes,
)
from rhineland.routes.search.budget import Budget
from rhineland.routes.search.candidate import Candidate, UnitSets, released
from rhineland.routes.search_model import BoardModel, Track, TrainModel


class WalkCounter(Protocol):
    """What a walk reads and counts on the search it serves
    (:class:`~rhineland.routes.search.lists.Search`): the unit-set ids shared by the
    search's walks and the walk nodes explored."""

    units: UnitSets
    nodes_explored: int


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
    threshold need not walk again (:meth:`Search.refill`).

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


def _sized(items: list[int]) -> int:
    """``len(items)``.  Compiled, this module's first use of the builtin ``len``: mypyc
    takes a function first named in a function and then in a closure inside it for a
    free variable of the closure, and then keeps the closures in their environment;
    :func:`enumerate_candidates`' walk would hold itself there, a cycle that rebinding
    ``dfs`` to :func:`released` no longer breaks (tests/test_native.py counts cycles)."""
    return len(items)


def enumerate_candidates(
    bm: BoardModel,
    tm: TrainModel,
    counter: WalkCounter | None = None,
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
    (:func:`completion_bound`) is at most it (``None``: keep every candidate).
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
    prunes = threshold is not None and walk_prunes(tm)
    cb: Callable[[list[int], int, list[int], int, int, int], int] | None = None
    theta = threshold if threshold is not None else -(1 << 60)
    # the completion bound of a train paying every visit is at least the bonus cap plus
    # the path's values (:func:`completion_bound`): below that it cannot cut, not asked
    floor = tm.profile.bonus_cap(tm) if prunes and tm.all_pay else -1
    limited = [r for r in range(len(limits)) if limits[r] < UNLIMITED]
    tok_dist = token_distance(tm, bm) if not general and limited else None
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
                cb = completion_bound(tm, bm)
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
                far = token_distance(tm, bm, end_ids & ~((2 << s) - 1))
            path[:] = [s]
            steps.clear()
            dfs(s, 1 << s, forbid, 0, groups[s], 0, True, max(vals[s], 0))
    finally:
        if counter is not None:
            counter.nodes_explored += explored
        dfs = released
    if budget is not None:
        budget.spend(chunk)
    return out


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
