"""The branch and bound over the trains (step 3 of the algorithm in
:mod:`rhineland.routes.search`): :func:`branch_and_bound` finds the best run among the
candidate lists of the trains, each level trying its candidates by decreasing ``ub``,
pricing a run exactly only when its optimistic total beats the incumbent."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator

from rhineland.routes.search.budget import Budget
from rhineland.routes.search.candidate import Candidate, joint, released
from rhineland.routes.search.index import CandidateIndex, bit_pieces
from rhineland.routes.search.level_bounds import (
    crowd_bound,
    free_pieces,
    lowest_index,
    need_bound,
    pair_bound,
)
from rhineland.routes.search.lists import Search
from rhineland.routes.search_model import Track, TrainModel


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


def exact_total(pick: list[Candidate | None]) -> int:
    """The exact revenue (M) of the picks priced so far (``None``: a train without a route)."""
    return sum(c.exact for c in pick if c is not None and c.exact is not None)


def branch_and_bound(
    s: Search,
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

    best = exact_total(best_pick)
    same_as_prev = [i > 0 and names[trains[i]] == names[trains[i - 1]] for i in range(k)]
    run_end = list(range(k))  # run_end[i]: the last level of the same type right after i
    for i in range(k - 2, -1, -1):
        if same_as_prev[i + 1]:
            run_end[i] = run_end[i + 1]
    shared: dict[str, CandidateIndex] = {}
    for t, lst in zip(trains, levels, strict=True):
        shared.setdefault(names[t], CandidateIndex(lst, s.units.masks))
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
        (a subset: see :class:`CandidateIndex`); ``real[level]``: realisations of the picks that
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
                got = later_chunks[j] = bit_pieces(later[j])
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
                nb = need_bound(new_top, [*capped, *rests[same:]], level + 1)
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
                    fill = free_pieces(ix, c, later_pieces(j))
                    pieces = [-1] * len(ix.alive_pieces())
                    lazy.append((pieces, fill))
                    h = lowest_index(pieces, i if j < same else 0, len(ix.cands), (), (), fill)
                    lims.append(max(ix.cands[h].ub, 0) if h < len(ix.cands) else 0)
                lim = sum(lims)
            elif later:
                nxt = eager(c, i, lims)
                lim = sum(lims)
            still = i < first_new
            if still:
                nb = need_bound(new_top, lims, level + 1)
                if nb is None:
                    continue
                lim = nb
            if len(lims) == 2 and cur + val + lim > best:
                # the last two trains: a small branch and bound on their pair
                ia, ib = index[level + 1], index[level + 2]
                pb = pair_bound(ia, ib, lazy[0][0], lazy[1][0], same, i, best - cur - val,
                                 lims, negs[level + 1], negs[level + 2], lazy[0][1],
                                 lazy[1][1])
                if pb is not None:
                    lim = min(lim, pb)
            if not nxt and later and cur + val + lim > best:  # the whole sets after all
                nxt = eager(c, i, [])
            if len(lims) > 1 and cur + val + lim > best:
                # the trains left share no track: at most one takes a crowded unit set
                lim = min(lim, crowd_bound(index, level + 1, list(nxt), lims, same,
                                            (1 << i) - 1))
            b = cur + val + lim
            if b <= best:
                pruned = max(pruned, b)
                continue
            got = joint([*taken, c])
            if got is None:  # no track for it beside the picks
                if not taken:
                    here.alive &= ~(1 << i)
                continue
            pick[level] = c
            real[level + 1] = got
            branch(level + 1, nxt, cur + val, i, still)
            pick[level] = None
        if need:  # "no route" here: a later level must take a new candidate
            nb = need_bound(new_top, rests, level + 1)
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
        branch = released
    return pruned
