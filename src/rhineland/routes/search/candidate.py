"""One candidate route of a train type (:class:`Candidate`): a node sequence with the
track still open between each two nodes, its realisations (one segment per step, no
track unit twice), one realisation each for candidates running beside each other
(:func:`joint`), the ids of the unit sets the candidates surely use (:class:`UnitSets`)
and the order of a candidate list (:func:`sort_candidates`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from rhineland.routes.graph import Segment
from rhineland.routes.model import Route
from rhineland.routes.search_model import Track, TrainModel


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


def released(*args: Any) -> Any:
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


def walk_order(c: Candidate, tm: TrainModel) -> tuple[int, ...]:
    """``c``'s nodes in the order its walk met them (a walk from a need end, e.g. the
    Rheingold-Express's RGE end, met them in reverse when that end has the larger id)."""
    nodes = c.nodes
    if tm.need_end >= 0 and not (tm.need_end >> nodes[0]) & 1:
        return nodes[::-1]
    return nodes


def joint(cands: list[Candidate]) -> list[tuple[Track, ...]] | None:
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
    """:func:`joint` from item ``i`` on (``used``: the units of the picks before)."""
    if i == len(items):
        return True
    _n, ci, hi = items[i]
    for alt in cands[ci].hops[hi]:
        if not alt[0] & used:
            pick[i] = alt
            if _joint_walk(cands, items, pick, i + 1, used | alt[0]):
                return True
    return False


def split(c: Candidate, ids: UnitSets) -> list[Candidate]:
    """One candidate per realisation of ``c`` (each step fixed to one segment)."""
    return [
        Candidate(c.ub, c.nodes, tuple((t,) for t in tracks), mask,
                  sum(1 << j for j in {ids.id(t[0]) for t in tracks}), c.free)
        for mask, tracks in c.realisations()
    ]


class UnitSets:
    """Ids for the sets of track units the steps of candidates surely use (one per
    distinct set), shared by every walk of one search, so that whether two candidates'
    ``must`` units meet is a question about a few ids (:class:`CandidateIndex`)."""

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


def sort_candidates(cands: list[Candidate]) -> None:
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
