"""Admissible bounds on routes, read by the walks and the search: the completion bound
of a partial path (:func:`completion_bound`) with its walk table (:func:`_walk_table`,
reused between searches by :func:`_walk_table_memo`), the token reach
(:func:`token_distance`), the bound of a train without search (:func:`crude_bound`)
and how many routes of a train with an end rule can run at all (:func:`end_room`).
Why each is admissible: ``docs/best-routes.md``."""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable

from rhineland.routes.search_model import BoardModel, TrainModel

UNLIMITED = 50
"""A distance rule allowing at least this many visits is treated as unlimited by
:func:`_walk_table` (1893's and 18Rhl's towns: 99)."""


def walk_prunes(tm: TrainModel) -> bool:
    """Whether a walk of ``tm``'s train with a threshold cuts branches by the completion
    bound (a limited or all-paying distance rule and no general distance check); if not,
    every threshold visits the same paths."""
    limited = any(lim < UNLIMITED for lim in tm.limits)
    return not tm.general and (limited or tm.all_pay)


def completion_bound(
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
        counted = [r for r in range(nrules) if limits[r] < UNLIMITED]
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


def token_distance(tm: TrainModel, bm: BoardModel, sources: int | None = None
                   ) -> list[float]:
    """Per node ``x``: the fewest visits of limited distance rules (``limits`` below
    :data:`UNLIMITED`) a route must still make after ``x`` to reach a city with the
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
        limited = r >= 0 and limits[r] < UNLIMITED
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
    limited = [r for r in range(len(limits)) if limits[r] < UNLIMITED]
    if not limited:
        return None
    depth = sum(limits[r] for r in limited) + len(
        {tm.metro_hex[i] for i in range(n) if tm.ferry[i]}
    )
    freek = [tm.visit[i] and tm.rule[i] >= 0 and limits[tm.rule[i]] >= UNLIMITED
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


def crude_bound(tm: TrainModel) -> int:
    """An admissible bound (M) on any route of ``tm``'s train, computed without search:
    the completion bound of the empty path (every value the train may still collect)."""
    if tm.general:
        return sum(v for i, v in enumerate(tm.value) if v > 0 and tm.visit[i]) + (
            tm.profile.bonus_cap(tm)
        )
    return completion_bound(tm)([], 0, [0] * len(tm.limits), 0, 0, 1 << 60)


def end_room(bm: BoardModel, tm: TrainModel) -> int:
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
