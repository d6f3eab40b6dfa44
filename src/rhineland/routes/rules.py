"""Route rules common to 18xx titles, as hooks a title overrides.

:class:`RevenueRules` holds the defaults (rule source: the common 18xx rules
as the reference engine applies them); ``titles/<title>/revenue.py``
subclasses it.  Every hook receives the :class:`RouteContext` and, where it
judges one route, the resolved :class:`Route`; hooks raise
:class:`~rhineland.errors.GameError` (rule name ``route.*``) for an illegal
route.  The order the engine calls them in is described in
:mod:`rhineland.routes.engine`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rhineland.errors import GameError
from rhineland.routes.graph import RevenueNode, TrackGraph
from rhineland.routes.model import Bonus, Route, RouteContext

_KIND_NAMES = {"city": "cities", "town": "towns", "offboard": "offboards"}


@dataclass(frozen=True)
class EntityView:
    """What the track graph looks like to one entity right now.

    ``tokened``: node ids of cities holding the entity's token; ``blocked``:
    node ids of cities the entity may not pass through (it may still start or
    end there).
    """

    tokened: frozenset[int]
    blocked: frozenset[int]


@dataclass(frozen=True)
class Evaluation:
    """A route's value: base (sum of paying stops, M), the paying stop indices, bonuses."""

    base: int
    stops: tuple[int, ...]
    bonuses: tuple[Bonus, ...]
    distance: int

    @property
    def revenue(self) -> int:
        """Base plus bonuses, in M."""
        return self.base + sum(b.amount for b in self.bonuses)


class RevenueRules:
    """The common route rules; subclass per title and override what differs.

    Class attributes a title sets:

    ``neutral_markers``: printed slot markers that never block (1893's ``"N"``).
    ``towns_may_end``: whether a route may start or end at a town.
    """

    SEARCH_BOUNDS_CHECKED = True
    """The best-route search's bounds were checked against these hooks (see
    :func:`rhineland.routes.search_model.profile_for`, where a title registers its
    search profile); a subclass must say so again in its own body."""

    neutral_markers: frozenset[str] = frozenset()
    towns_may_end: bool = True

    # -- tokens and blocking -------------------------------------------------
    def occupants(self, ctx: RouteContext, node: RevenueNode) -> tuple[str, ...]:
        """Symbols filling the slots of city ``node``: board tokens, then printed markers.

        A marker naming no entity (18Rhl coal ``"K"``/steel ``"S"``, 1893's
        neutral ``"N"``) always fills a slot.  A marker naming an entity (a
        1893 home such as ``"HGK"``) stands for that entity's token while the
        board holds no token of it and the city has a free slot.
        """
        if node.city_index is None:
            return ()
        toks = ctx.board.tokens_in(node.hex, node.city_index)
        if not node.node.markers:
            return tuple(toks)
        out = list(toks)
        entities = _entity_syms(ctx)
        for m in node.node.markers:
            if m in out:
                continue
            if m in entities:
                if len(out) < node.node.slots and not ctx.board.token_locations(m):
                    out.append(m)
            else:
                out.append(m)
        return tuple(out)

    def city_blocks(self, ctx: RouteContext, graph: TrackGraph, node: RevenueNode) -> bool:
        """True if ``node`` is a city the entity may not pass through.

        Default: every slot is filled, none by the entity, none by a neutral marker.
        """
        if node.city_index is None or node.node.slots == 0:
            return False
        occ = self.occupants(ctx, node)
        if len(occ) < node.node.slots or ctx.entity in occ:
            return False
        return not any(o in self.neutral_markers for o in occ)

    def entity_view(
        self, ctx: RouteContext, graph: TrackGraph, nodes: Iterable[RevenueNode] | None = None
    ) -> EntityView:
        """Token cities and blocked cities of ``ctx.entity`` on ``graph``, among ``nodes``
        (default: every node; a run asks only about the nodes its routes visit)."""
        tokened: list[int] = []
        blocked: list[int] = []
        for n in graph.nodes if nodes is None else nodes:
            if n.city_index is None:
                continue
            if ctx.entity in self.occupants(ctx, n):
                tokened.append(n.id)
            elif self.city_blocks(ctx, graph, n):
                blocked.append(n.id)
        return EntityView(frozenset(tokened), frozenset(blocked))

    # -- legality ------------------------------------------------------------
    def check_ends(self, ctx: RouteContext, route: Route) -> None:
        """Start/end rules; default: towns may end a route iff :attr:`towns_may_end`."""
        if self.towns_may_end:
            return
        for end in (route.visits[0], route.visits[-1]):
            if end.kind == "town":
                raise GameError(
                    f"train {route.train}: a route may not start or end at a town ({end.name})",
                    "route.town_end",
                )

    def check_route(self, ctx: RouteContext, route: Route) -> None:
        """Title-specific legality checks after the common ones; default none."""

    def check_run(self, ctx: RouteContext, routes: Sequence[Route]) -> None:
        """Checks across all routes of one run; default none."""

    def visit_costs(self, ctx: RouteContext, route: Route) -> list[int]:
        """How much of the train's distance each visit uses; default 1 each."""
        return [1] * len(route.visits)

    def check_distance(self, ctx: RouteContext, route: Route, costs: Sequence[int]) -> None:
        """Raise ``GameError`` if the visits exceed the train's distance.

        Each visit's cost goes to the distance rules naming its node kind,
        narrowest rule first (a rule is ``{nodes, pay, visit}``: at most
        ``visit`` such stops).  A kind no rule names may not be visited.
        """
        rules = sorted(route.train_spec.distance, key=lambda r: len(r.nodes))
        left = [r.visit for r in rules]
        per_kind: dict[str, int] = {}
        for v, c in zip(route.visits, costs, strict=True):
            per_kind[v.kind] = per_kind.get(v.kind, 0) + c
        for kind, num in per_kind.items():
            for i, r in enumerate(rules):
                if num <= 0:
                    break
                if kind in r.nodes and left[i] > 0:
                    take = min(num, left[i])
                    left[i] -= take
                    num -= take
            if num > 0:
                group = next((r for r in rules if kind in r.nodes), None)
                kinds = group.nodes if group else (kind,)
                used = sum(per_kind.get(k, 0) for k in kinds)
                names = "/".join(_KIND_NAMES.get(k, k) for k in kinds)
                visits = zip(route.visits, costs, strict=True)
                stops = ", ".join(v.name for v, c in visits if c and v.kind in kinds)
                raise GameError(
                    f"train {route.train} may visit at most {group.visit if group else 0} {names}; "
                    f"the route visits {used} ({stops})",
                    "route.distance",
                )

    # -- revenue -------------------------------------------------------------
    def stop_value(self, ctx: RouteContext, route: Route, node: RevenueNode) -> int:
        """What visiting ``node`` pays in M in the current phase (before bonuses)."""
        return node.node.revenue_in(ctx.phase_color)

    def paying_stops(
        self,
        ctx: RouteContext,
        route: Route,
        values: Sequence[int],
        costs: Sequence[int],
        tokened: frozenset[int],
    ) -> tuple[int, ...]:
        """Indices of the visits that pay.

        A visit costing no distance always pays.  All visits pay when every
        distance rule pays for as many stops as the route makes of its kinds.
        Otherwise each rule pays for its best ``pay`` visits (highest value
        first), keeping a city with the entity's token among them.
        """
        rules = route.train_spec.distance
        kinds = [v.kind for v in route.visits]
        counted = [i for i, c in enumerate(costs) if c > 0]
        if all(r.pay >= sum(1 for i in counted if kinds[i] in r.nodes) for r in rules):
            return tuple(range(len(kinds)))
        chosen: list[int] = [i for i, c in enumerate(costs) if c == 0]
        for r in sorted(rules, key=lambda r: len(r.nodes)):
            if r.pay <= 0:
                continue
            pool = [i for i in counted if kinds[i] in r.nodes and i not in chosen]
            pool.sort(key=lambda i: (-values[i], i))
            pick = pool[: r.pay]
            if pick and not any(route.visits[i].id in tokened for i in chosen + pick):
                tok = [i for i in pool[r.pay :] if route.visits[i].id in tokened]
                if tok:
                    pick[-1] = tok[0]
            chosen.extend(pick)
        return tuple(sorted(chosen))

    def bonuses(
        self, ctx: RouteContext, route: Route, stops: Sequence[int], values: Sequence[int]
    ) -> list[Bonus]:
        """Title bonuses and penalties for a legal route; default none."""
        return []

    def evaluate(
        self, ctx: RouteContext, route: Route, tokened: frozenset[int], costs: Sequence[int]
    ) -> Evaluation:
        """Base value, paying stops and bonuses of a legal route (``costs`` per visit)."""
        values = [self.stop_value(ctx, route, v) for v in route.visits]
        stops = self.paying_stops(ctx, route, values, costs, tokened)
        base = sum(values[i] for i in stops)
        bonuses = tuple(self.bonuses(ctx, route, stops, values))
        return Evaluation(base, stops, bonuses, sum(costs))


def _entity_syms(ctx: RouteContext) -> frozenset[str]:
    data = ctx.data
    return frozenset(c.sym for c in data.corporations) | frozenset(m.sym for m in data.minors)
