"""What the best-route search knows about the board, a train and the title's rules.

:mod:`rhineland.routes.search` enumerates routes and combines them; this
module compiles everything that enumeration prunes on and every optimistic
bound it uses into flat per-node tables:

* :class:`BoardModel` -- per search (one entity, one board): the track graph
  as adjacency tuples ``(neighbour id, unit bitmask, segment, track id)``
  and which tracks share units (:class:`Tracks`), token and
  blocked cities as node bitmasks, per-node exclusivity groups.
* :class:`TrainModel` -- per train type: which nodes the train may visit or
  end at, the distance rule that counts each node, the per-node stop value
  (the title's own :meth:`RevenueRules.stop_value`), and the optimistic
  per-route bonus bound :meth:`TrainModel.bound`.

Title knowledge lives in :class:`TitleProfile` and its subclasses, which each
title registers for its revenue rules (:func:`register_profile`; the common
rules, also 1893: Cologne, use :class:`TitleProfile`; 18Rhl's profile is
``rhineland.titles.g18rhl.search_profile.RhlProfile``).  Every pruning condition a profile applies
is a *necessary* condition of legality under the rules' hooks (rule sources:
``routes/engine.py`` checks 3-5 and the hooks in ``titles/*/revenue.py``), and
every bound is *admissible*: never below the revenue the hooks compute for
a legal route visiting those nodes.  For a rules class it was not written
against (a subclass), :func:`profile_for` keeps the pruning but marks the
profile unbounded, and the search prices every candidate exactly.

This module knows no title: title profiles live in the title packages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mypy_extensions import mypyc_attr

from rhineland.routes.graph import RevenueNode, Segment, TrackGraph
from rhineland.routes.model import Route, RouteContext
from rhineland.routes.rules import EntityView, RevenueRules

Adjacent = tuple[int, int, Segment, int]
"""``(neighbour node id, unit bitmask of the segment, the segment, track id)``.

The *track id* names the segment regardless of direction (a segment and its
reverse share it)."""

Track = tuple[int, Segment, int]
"""One stretch of track between two nodes: ``(unit bitmask, segment, track id)``."""

Hop = tuple[int, tuple[Track, ...]]
"""``(neighbour node id, the parallel segments leading there)``: every segment from a node
to one neighbour, in walk order (the walk of node sequences chooses among them last)."""


def unit_mask(units: frozenset[int]) -> int:
    """Track units as one int bitmask (bit ``u`` set for unit ``u``)."""
    m = 0
    for u in units:
        m |= 1 << u
    return m


@dataclass(frozen=True)
class Tracks:
    """The segment graph compiled for the search (cached per :class:`TrackGraph`).

    ``adj[i]``: the segments leaving node ``i`` as :data:`Adjacent`; ``hops[i]``: the
    segments of ``adj[i]`` grouped by neighbour (:data:`Hop`).
    """

    adj: tuple[tuple[Adjacent, ...], ...]
    hops: tuple[tuple[Hop, ...], ...]


_TRACKS: dict[int, tuple[object, Tracks]] = {}


def tracks(graph: TrackGraph) -> Tracks:
    """The :class:`Tracks` of ``graph`` (cached per walk list ``graph.walked``, which
    :func:`~rhineland.routes.graph.track_graph` shares only between the versions of a
    board whose tiles did not change: a token placed keeps the tables)."""
    out_lists = graph.walked
    hit = _TRACKS.get(id(out_lists))
    if hit is not None and hit[0] is out_lists:
        return hit[1]
    ids: dict[tuple[frozenset[int], frozenset[int]], int] = {}
    masks: list[int] = []
    adj: list[tuple[Adjacent, ...]] = []
    for out in graph.out:
        row: list[Adjacent] = []
        for s in out:
            key = (s.units, frozenset((s.a, s.b)))
            t = ids.get(key)
            if t is None:
                t = ids[key] = len(masks)
                masks.append(unit_mask(s.units))
            row.append((s.b, masks[t], s, t))
        adj.append(tuple(row))
    hops: list[tuple[Hop, ...]] = []
    for row_ in adj:
        by: dict[int, list[Track]] = {}
        for b, m, seg, t in row_:
            by.setdefault(b, []).append((m, seg, t))
        hops.append(tuple((b, tuple(alts)) for b, alts in by.items()))
    if len(_TRACKS) > 16:
        _TRACKS.clear()
    # keeps the segment lists (and their id)
    got = Tracks(tuple(adj), tuple(hops))
    _TRACKS[id(out_lists)] = (out_lists, got)
    return got


@dataclass(frozen=True)
class BoardModel:
    """The board as one entity's search sees it.

    ``adj``/``hops``: see :class:`Tracks`; ``tokened``/``blocked``: bitmasks over node
    ids; ``terminal[i]``: node ``i`` may only end a route.
    """

    graph: TrackGraph
    view: EntityView
    adj: tuple[tuple[Adjacent, ...], ...]
    hops: tuple[tuple[Hop, ...], ...]
    tokened: int
    blocked: int
    terminal: tuple[bool, ...]


@dataclass(frozen=True)
class TrainModel:
    """One train type's view of the nodes (all tuples indexed by node id).

    ``visit[i]``: the train may visit node ``i`` at all; ``end[i]``: it may
    start or end a route there; ``rule[i]``: index into ``limits`` of the
    distance rule counting node ``i`` (``-1`` when the rules overlap: then
    ``general`` is true and :meth:`distance_ok` runs the full allocation);
    ``limits``/``pays``: visits allowed / stops paid per rule (``all_pay``:
    every rule pays at least its visit limit, so every visit pays); ``value[i]``:
    the stop value in M; ``need_end`` a node bitmask one end must be in
    (``-1``: no such rule); ``groups[i]``: bitmask of the exclusivity groups
    of node ``i`` for this train (a route visits at most one node of each
    group: offboard ``groups`` names, plus title pairs such as 18Rhl's Eastern
    Ruhr hexes); ``metro_hex[i]``: the hex if node ``i`` is in a
    hex where a visit right after a visit of that hex may be dropped (18Rhl's
    Rhine metropolis ferry), else ``None``; ``ferry[i]``: a visit of node ``i``
    right after a visit of its ``metro_hex`` is dropped (costs no distance);
    ``same_hex[i]``: bitmask of the other nodes of its hex when a second,
    non-consecutive visit there is illegal (18Rhl green metropolis), else 0.
    """

    train: str
    name: str
    visit: tuple[bool, ...]
    end: tuple[bool, ...]
    rule: tuple[int, ...]
    rule_nodes: tuple[tuple[str, ...], ...]
    limits: tuple[int, ...]
    pays: tuple[int, ...]
    value: tuple[int, ...]
    general: bool
    all_pay: bool
    need_end: int
    groups: tuple[int, ...]
    metro_hex: tuple[str | None, ...]
    ferry: tuple[bool, ...]
    same_hex: tuple[int, ...]
    profile: TitleProfile
    bonus_data: tuple[object, ...]

    def distance_ok(self, kinds: dict[str, int]) -> bool:
        """The full :meth:`RevenueRules.check_distance` allocation on visit counts per kind."""
        order = sorted(range(len(self.limits)), key=lambda r: len(self.rule_nodes[r]))
        left = [self.limits[r] for r in order]
        for kind, num in kinds.items():
            for j, r in enumerate(order):
                if num <= 0:
                    break
                if kind in self.rule_nodes[r] and left[j] > 0:
                    take = min(num, left[j])
                    left[j] -= take
                    num -= take
            if num > 0:
                return False
        return True

    def base_bound(self, nodes: Sequence[int], free: int) -> int:
        """Optimistic base revenue (M) of a route visiting ``nodes`` with ``free`` ferried visits.

        Per distance rule, the best ``pay + free`` positive values among the
        visits it names (all of them when the rule pays at least its visit
        limit).  Admissible: the paying stops the rules choose are the free
        visits plus at most ``pay`` counted visits per rule.
        """
        vals = self.value
        if self.all_pay:
            return sum(v for i in nodes if (v := vals[i]) > 0)
        total = 0
        kinds = self.profile.kinds
        for r, names in enumerate(self.rule_nodes):
            got = sorted((vals[i] for i in nodes if kinds[i] in names), reverse=True)
            total += sum(v for v in got[: self.pays[r] + free] if v > 0)
        return total

    def bound(self, nodes: Sequence[int], free: int) -> int:
        """Admissible upper bound (M) on the revenue of any legal route visiting ``nodes``
        (:meth:`TitleProfile.route_bound`)."""
        return self.profile.route_bound(self, nodes, free)


@mypyc_attr(allow_interpreted_subclasses=True)  # titles subclass it (native build)
class TitleProfile:
    """Title knowledge for the search: pruning conditions and bonus bounds.

    The default is the common rules (:class:`RevenueRules`, 1893's
    :class:`CologneRevenue`): no bonuses, no free visits, ends restricted by
    ``towns_may_end`` only.  ``bounded``: whether :meth:`bonus_bound` and the
    stop values may serve as bounds (see :func:`profile_for`).
    """

    bounded = True

    def __init__(self, ctx: RouteContext, rules: RevenueRules, graph: TrackGraph) -> None:
        self.ctx = ctx
        self.rules = rules
        self.graph = graph
        self.kinds: tuple[str, ...] = tuple(n.kind for n in graph.nodes)

    def group_names(self, spec_name: str, node: RevenueNode) -> tuple[str, ...]:
        """Exclusivity groups of ``node`` for a train of type ``spec_name``: the offboard
        group names (check ``route.group``)."""
        return tuple(f"g:{g}" for g in node.node.groups)

    def may_visit(self, spec_name: str, node: RevenueNode) -> bool:
        """Whether a train of type ``spec_name`` may visit ``node`` at all (default: yes)."""
        return True

    def may_end(self, spec_name: str, node: RevenueNode) -> bool:
        """Whether a route of that train may start or end at ``node``."""
        return self.rules.towns_may_end or node.kind != "town"

    def need_end(self, spec_name: str) -> frozenset[str] | None:
        """Hexes one end of the route must be in (``None``: no such rule)."""
        return None

    def metro_hex(self, node: RevenueNode) -> str | None:
        """The hex if a visit right after a visit of ``node``'s hex may be dropped (a free
        second visit, :meth:`ferry_free`), else None (default: no such hex)."""
        return None

    def ferry_free(self, spec_name: str, node: RevenueNode) -> bool:
        """Whether a visit of ``node`` right after a visit of its :meth:`metro_hex` costs
        no distance for a train of type ``spec_name`` (default: never)."""
        return False

    def revisit_illegal(self, node: RevenueNode) -> bool:
        """Whether a route may visit ``node``'s :meth:`metro_hex` a second time only right
        after the first visit (default: no such rule)."""
        return False

    def bonus_data(self, spec_name: str) -> tuple[object, ...]:
        """Per-train precomputed data for :meth:`bonus_bound`."""
        return ()

    def bonus_bound(self, train: TrainModel, nodes: Sequence[int], mask: int | None = None) -> int:
        """Upper bound (M) on the sum of the title's bonuses of a route visiting ``nodes``
        (``mask``: their bitmask over node ids, when the caller has it)."""
        return 0

    def route_bound(self, train: TrainModel, nodes: Sequence[int], free: int) -> int:
        """Admissible upper bound (M) on the revenue of any legal route of ``train`` visiting
        ``nodes`` (in either direction) with ``free`` visits costing no distance: default
        :meth:`TrainModel.base_bound` plus :meth:`bonus_bound`.  A title may tighten it
        (``docs/best-routes.md`` §1 gives why each stays admissible), never above the sum
        of the positive stop values on ``nodes`` plus :meth:`bonus_bound` (the walk skips
        the call where that sum is at most its threshold)."""
        return train.base_bound(nodes, free) + self.bonus_bound(train, nodes)

    def sum_bound_free(self, train: TrainModel) -> int:
        """The most dropped visits (``free``, 18Rhl's ferry) a route may have for
        :meth:`route_bound` to equal the sum of its positive stop values plus
        :meth:`bonus_bound`; ``-1``: not even none.  The walk prices such a route by the
        sum it carries along (the same ``ub``, without the call).  Default: any number for
        a train paying every visit (``all_pay``: :meth:`TrainModel.base_bound` is that
        sum), unless a title overrides :meth:`route_bound` without this."""
        if train.all_pay and type(self).route_bound is TitleProfile.route_bound:
            return 1 << 30
        return -1

    def bonus_cap(self, train: TrainModel) -> int:
        """Upper bound (M) of :meth:`bonus_bound` over every route of ``train`` (the
        bonuses a partial route may still earn, whatever it visits next)."""
        return 0


_PROFILES: dict[type[RevenueRules], type[TitleProfile]] = {}
"""Search profile class per revenue rules class (:func:`register_profile`)."""


def register_profile(rules: type[RevenueRules], profile: type[TitleProfile]) -> None:
    """Make ``profile`` the search profile of ``rules`` and of its subclasses that
    register none of their own (a title registers its profile in the module that
    defines it; the common rules use :class:`TitleProfile`)."""
    _PROFILES[rules] = profile


def profile_for(ctx: RouteContext, rules: RevenueRules, graph: TrackGraph) -> TitleProfile:
    """The title's search profile: the class registered (:func:`register_profile`) for
    the nearest class of ``rules`` in its method resolution order, else
    :class:`TitleProfile`.

    ``profile.bounded`` is true only for a rules class that declares, in its own
    class body, ``SEARCH_BOUNDS_CHECKED = True`` (its profile's bounds were
    written against its hooks).  For another class (e.g. a subclass) the search
    keeps the pruning (so a subclass must keep its base class's checks and
    distance costs, adding restrictions or changing values and bonuses only)
    but prices every candidate exactly instead of bounding it.
    """
    cls = next((_PROFILES[c] for c in type(rules).__mro__ if c in _PROFILES), TitleProfile)
    profile = cls(ctx, rules, graph)
    profile.bounded = bool(type(rules).__dict__.get("SEARCH_BOUNDS_CHECKED", False))
    return profile


def board_model(graph: TrackGraph, view: EntityView, profile: TitleProfile) -> BoardModel:
    """Compile the per-entity tables of :class:`BoardModel`."""
    tok = 0
    for i in view.tokened:
        tok |= 1 << i
    blk = 0
    for i in view.blocked:
        blk |= 1 << i
    tr = tracks(graph)
    return BoardModel(
        graph=graph,
        view=view,
        adj=tr.adj,
        hops=tr.hops,
        tokened=tok,
        blocked=blk,
        terminal=tuple(n.terminal for n in graph.nodes),
    )


def train_model(ctx: RouteContext, profile: TitleProfile, train: str) -> TrainModel:
    """Compile one train's :class:`TrainModel` (``train`` an export train id, e.g. ``"5-0"``).

    Raises ``GameError`` [``route.train``] for an unknown train type.
    """
    spec = ctx.train_spec(train)
    rules = profile.rules
    graph = profile.graph
    dummy = Route(train, spec, (), ())
    dist = spec.distance
    kind_rules: dict[str, list[int]] = {}
    for r, d in enumerate(dist):
        for k in d.nodes:
            kind_rules.setdefault(k, []).append(r)
    general = any(len(v) > 1 for v in kind_rules.values())
    kinds = profile.kinds  # the nodes' kinds, once per search
    rule = tuple(
        (kind_rules[k][0] if k in kind_rules and not general else -1) for k in kinds
    )
    need = profile.need_end(spec.name)
    need_mask = -1
    if need is not None:
        need_mask = 0
        for n in graph.nodes:
            if n.hex in need:
                need_mask |= 1 << n.id
    metro = tuple(profile.metro_hex(n) for n in graph.nodes)
    by_hex: dict[str, int] = {}  # the nodes of each metropolis hex
    for n in graph.nodes:
        if metro[n.id] is not None:
            by_hex[n.hex] = by_hex.get(n.hex, 0) | 1 << n.id
    names: dict[str, int] = {}
    groups: list[int] = []
    for n in graph.nodes:
        g = 0
        for name in profile.group_names(spec.name, n):
            g |= 1 << names.setdefault(name, len(names))
        groups.append(g)
    return TrainModel(
        train=train,
        name=spec.name,
        visit=tuple(kinds[n.id] in kind_rules and profile.may_visit(spec.name, n)
                    for n in graph.nodes),
        end=tuple(profile.may_end(spec.name, n) for n in graph.nodes),
        rule=rule,
        rule_nodes=tuple(tuple(d.nodes) for d in dist),
        limits=tuple(d.visit for d in dist),
        pays=tuple(d.pay for d in dist),
        value=tuple(rules.stop_value(ctx, dummy, n) for n in graph.nodes),
        general=general,
        all_pay=not general and all(d.pay >= d.visit for d in dist),
        need_end=need_mask,
        groups=tuple(groups),
        metro_hex=metro,
        ferry=tuple(
            metro[n.id] is not None and profile.ferry_free(spec.name, n) for n in graph.nodes
        ),
        same_hex=tuple(
            by_hex.get(n.hex, 0) & ~(1 << n.id)
            if metro[n.id] is not None and profile.revisit_illegal(n)
            else 0
            for n in graph.nodes
        ),
        profile=profile,
        bonus_data=profile.bonus_data(spec.name),
    )
