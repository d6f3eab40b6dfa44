"""The bounds the branch and bound tightens a level with, on what the trains left earn
beside the picks: when one of them must take a new candidate (:func:`need_bound`), at
most one of them per crowded unit set (:func:`crowd_bound`), and a small branch and bound
on the last two trains' pair (:func:`pair_bound`, over lazily computed pieces:
:func:`free_pieces`, :func:`lowest_index`).  See ``docs/best-routes.md`` §4."""

from __future__ import annotations

import bisect
from collections.abc import Callable

from rhineland.routes.search.candidate import Candidate
from rhineland.routes.search.index import CHUNK_BYTES, CandidateIndex


def need_bound(new_top: list[int | None], rs: list[int], first: int) -> int | None:
    """The most the levels ``first``, ``first + 1``, ... (best ``ub`` ``rs``) add to a run
    when one of them must take a candidate new to this pass (``new_top``: per level the
    best ``ub`` of those, None where it has none; :func:`branch_and_bound`); ``None``
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


CROWD_IDS = 3
"""How many unit sets of the next train's best candidate :func:`crowd_bound` tries."""


def crowd_bound(index: list[CandidateIndex], first: int, clashes: list[int], lims: list[int],
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
"""How many branches :func:`pair_bound` opens before it gives up."""


def free_pieces(ix: CandidateIndex, c: Candidate, clash: list[int]) -> Callable[[int], int]:
    """Piece ``k`` (as :func:`bit_pieces`) of ``ix``'s live candidates outside ``clash`` (as
    pieces) and outside the candidates clashing with ``c`` (:meth:`CandidateIndex.clashes`: a unit
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


def lowest_index(base: list[int], start: int, stop: int, inc: tuple[list[int], ...],
                 exc: tuple[list[int], ...], fill: Callable[[int], int] | None = None) -> int:
    """The lowest index ``i`` with ``start <= i < stop`` in ``base``, in every set of
    ``inc`` and in no set of ``exc`` (all as :func:`bit_pieces`); ``stop`` when there is
    none.  A piece of ``base`` below 0 is not computed yet: ``fill(k)`` gives piece ``k``
    (then kept in ``base``)."""
    bits = CHUNK_BYTES * 8
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


def pair_bound(ia: CandidateIndex, ib: CandidateIndex, base_a: list[int], base_b: list[int],
               same: int, start: int, threshold: int, lims: list[int], negs_a: list[int],
               negs_b: list[int], fill_a: Callable[[int], int] | None = None,
               fill_b: Callable[[int], int] | None = None) -> int | None:
    """A bound (M) at most ``threshold`` on what the last two trains (lists ``ia``, ``ib``)
    earn together beside the picks, or ``None`` when none was found.

    ``base_a``/``base_b``: their live candidates that may run beside the picks (as
    :func:`bit_pieces`; a piece below 0 is computed when needed by ``fill_a``/``fill_b``, see
    :func:`lowest_index`); ``same``: how many of the two are of the picked train's type (they
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
        ha = lowest_index(base_a, start_a, wa, inc_a, exc_a, fill_a)
        if ordered and ha < wa and start_b < ha:
            start_b = ha  # the second train takes a candidate at or after the first's
        hb = lowest_index(base_b, start_b, wb, no, exc_b, fill_b)
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


def _meeting(ia: CandidateIndex, ib: CandidateIndex, a: Candidate, b: Candidate) -> int:
    """A unit-set id of ``a.sure`` meeting a unit set of ``b.sure`` (then ``b`` is in
    ``ib.clashes(a)``), the one the most candidates of ``ia`` use first; -1 when there
    is none (``b`` may run beside ``a``)."""
    for x in ia.order(a):
        if b.sure & ib.near_ids(x):
            return x
    return -1
