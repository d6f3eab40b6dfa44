"""Resolving export routes to track, checking them, and computing their revenue.

:func:`run_revenue` is what the engine calls for a ``run_routes`` action.
Per route, in this order (the first broken rule raises
:class:`~rhineland.errors.GameError`, rule names in brackets):

1. every train belongs to the entity and runs once [``route.train``] (all
   routes first);
2. every chain of hexes is a track segment on the board, consecutive chains
   share a node [``route.track``];
3. at least two stops [``route.stops``]; no node visited twice
   [``route.revisit``]; offboards and terminal stops only at the ends
   [``route.terminal``]; no passing through a city blocked by other companies'
   tokens [``route.blocked``]; a city with the entity's token on the route
   [``route.token``]; an offboard group used once [``route.group``];
4. start/end rules (towns) [``route.town_end``] and the title's own checks
   (:meth:`RevenueRules.check_route`);
5. at least two stops that count against the distance (18Rhl: a Rhine
   metropolis alone, its two cities joined by the ferry, is one) [``route.stops``];
   the train's distance [``route.distance``];
6. no track used twice, within the route or with an earlier route of the run
   [``route.overlap``].

Then :meth:`RevenueRules.evaluate` gives base value, paying stops and
bonuses.  Resolution is exact when the export's chains and node hints leave
one choice; where two tracks walk the same hexes it prefers the one that
keeps the run legal.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from rhineland.errors import GameError
from rhineland.routes.graph import RevenueNode, Segment, TrackGraph, track_graph, unit_hexes
from rhineland.routes.model import (
    Route,
    RouteContext,
    RouteInput,
    RouteResult,
    RouteSpec,
)
from rhineland.routes.rules import EntityView, RevenueRules

_DEFAULT_RULES = RevenueRules()


def rules_of(ctx: RouteContext) -> RevenueRules:
    """The context's title rules, or the common defaults.

    Raises ``TypeError`` when ``ctx.rules`` is neither None nor a :class:`RevenueRules`."""
    rules = ctx.rules
    if rules is None:
        return _DEFAULT_RULES
    if not isinstance(rules, RevenueRules):
        raise TypeError(f"RouteContext.rules must be RevenueRules or None, not "
                        f"{type(rules).__name__}")
    return rules


def run_revenue(ctx: RouteContext, routes: Sequence[RouteInput]) -> list[RouteResult]:
    """Validate all routes of one run and return each train's revenue.

    ``routes`` are :class:`RouteSpec` or export route dicts (``train``,
    ``connections``, ``nodes``).  Returns one :class:`RouteResult` per route,
    in input order.  Raises ``GameError`` naming the rule and the values for
    the first illegal route (see the module docstring for the order).

    A legal run's results are kept for the same context and routes
    (:data:`_RUNS`): the best-route search checks the run it found, and the
    ``run_routes`` action offering it asks again (an illegal run is checked anew).
    """
    specs = tuple(RouteSpec.coerce(raw) for raw in routes)
    key = (ctx.key(), specs)
    hit = _RUNS.get(key)
    if hit is not None and hit[0] is ctx.data and hit[1] is ctx.rules:
        _RUNS.move_to_end(key)
        return list(hit[2])
    results = _run_revenue(ctx, specs)
    _RUNS[key] = (ctx.data, ctx.rules, tuple(results))
    if len(_RUNS) > _RUNS_SIZE:
        _RUNS.popitem(last=False)
    return results


_RUNS_SIZE = 64
_RUNS: OrderedDict[tuple[object, ...], tuple[object, object, tuple[RouteResult, ...]]] = (
    OrderedDict())
"""The last legal runs' results by context (:meth:`RouteContext.key`) and routes (the
data and rules objects kept: their ``id`` is in the key).  A run's results depend on
those alone; :class:`RouteResult` is immutable."""


def _run_revenue(ctx: RouteContext, specs: Sequence[RouteSpec]) -> list[RouteResult]:
    """:func:`run_revenue` without the reuse."""
    check_trains(ctx, specs)
    rules = rules_of(ctx)
    graph = track_graph(ctx.board)
    used_units: set[int] = set()
    resolved: list[Route] = []
    results: list[RouteResult] = []
    for spec in specs:
        route = resolve(ctx, graph, spec, used_units)
        view = rules.entity_view(ctx, graph, route.visits)
        costs = check_route(ctx, graph, view, route, rules)
        units = route.segments[0].units if len(route.segments) == 1 else None
        if units is None:
            seen: set[int] = set()
            for seg in route.segments:
                dup = seen & seg.units
                if dup:
                    raise GameError(
                        f"train {spec.train} uses the same track twice ({_units_text(ctx, dup)})",
                        "route.overlap",
                    )
                seen |= seg.units
            units = frozenset(seen)
        dup = used_units & units
        if dup:
            raise GameError(
                f"train {spec.train} reuses track another train of {ctx.entity} runs on "
                f"({_units_text(ctx, dup)})",
                "route.overlap",
            )
        used_units |= units
        resolved.append(route)
        ev = rules.evaluate(ctx, route, view.tokened, costs)
        results.append(
            RouteResult(
                train=spec.train,
                revenue=ev.revenue,
                base=ev.base,
                bonuses=ev.bonuses,
                visits=tuple(v.name for v in route.visits),
                stops=tuple(route.visits[i].name for i in ev.stops),
                hexes=route.hexes,
                distance=ev.distance,
            )
        )
    rules.check_run(ctx, resolved)
    return results


def check_trains(ctx: RouteContext, routes: Sequence[RouteInput]) -> None:
    """Check 1 of the module docstring: each route's train is one of the entity's and
    runs once [``route.train``] (the checks 18xx.games keeps for a stored run)."""
    used: set[str] = set()
    for raw in routes:
        train = RouteSpec.coerce(raw).train
        if train not in ctx.trains:
            raise GameError(
                f"{ctx.entity} has no train {train} "
                f"(trains: {', '.join(ctx.trains) or 'none'})",
                "route.train",
            )
        if train in used:
            raise GameError(f"train {train} runs twice in one run", "route.train")
        used.add(train)


def check_route(
    ctx: RouteContext, graph: TrackGraph, view: EntityView, route: Route, rules: RevenueRules
) -> list[int]:
    """Apply checks 3-5 of the module docstring to one resolved route.

    Returns the distance each visit costs (:meth:`RevenueRules.visit_costs`).
    """
    visits = route.visits
    t = route.train
    if len(visits) < 2:
        raise GameError(f"train {t}: a route needs at least two stops", "route.stops")
    seen: dict[int, int] = {}
    for v in visits:
        if v.id in seen:
            raise GameError(f"train {t} visits {v.name} twice", "route.revisit")
        seen[v.id] = 1
    for v in visits[1:-1]:
        if v.terminal:
            raise GameError(
                f"train {t} may not pass through {v.name} ({v.kind} on a terminal track)",
                "route.terminal",
            )
        if v.id in view.blocked:
            raise GameError(
                f"train {t} may not pass through {v.name}: every slot is taken by other "
                f"companies ({', '.join(rules.occupants(ctx, v))})",
                "route.blocked",
            )
    if not any(v.id in view.tokened for v in visits):
        raise GameError(
            f"train {t}: the route ({', '.join(v.name for v in visits)}) has no city with a "
            f"{ctx.entity} token",
            "route.token",
        )
    groups: set[str] = set()
    for v in visits:
        for g in v.node.groups:
            if g in groups:
                raise GameError(f"train {t} uses offboard group {g} twice", "route.group")
            groups.add(g)
    rules.check_ends(ctx, route)
    rules.check_route(ctx, route)
    costs = rules.visit_costs(ctx, route)
    if sum(1 for c in costs if c > 0) < 2:
        raise GameError(
            f"train {t}: a route needs at least two stops that count; "
            f"{', '.join(v.name for v in visits)} makes one",
            "route.stops",
        )
    rules.check_distance(ctx, route, costs)
    return costs


def resolve(
    ctx: RouteContext, graph: TrackGraph, spec: RouteSpec, avoid: set[int] | None = None
) -> Route:
    """Turn an export route into segments on ``graph``.

    Each chain (hexes node to node) must be a segment of the board; the chains
    are put in route order by their shared nodes (exports list every chain in
    its own direction).  Among equal choices, track not in ``avoid`` (units of
    earlier routes) wins.  Raises ``GameError`` [``route.track``].
    """
    if not spec.connections:
        raise GameError(f"train {spec.train}: the route has no track", "route.track")
    hints = frozenset(spec.nodes)
    cands: list[list[Segment]] = []
    for chain in spec.connections:
        segs = graph.by_hexes.get(tuple(chain), [])
        if not segs:
            raise GameError(
                f"train {spec.train}: no track on the board runs node to node through "
                f"{'-'.join(chain)}",
                "route.track",
            )
        if hints and len(segs) > 1:
            hinted = [
                s for s in segs if graph.nodes[s.a].name in hints and graph.nodes[s.b].name in hints
            ]
            segs = hinted or segs
        cands.append(segs)
    order = _assemble(cands, avoid or set(), True) or _assemble(cands, set(), False)
    if order is None:
        raise GameError(
            f"train {spec.train}: the chains {' / '.join('-'.join(c) for c in spec.connections)} "
            f"do not join into one route",
            "route.track",
        )
    visits: list[RevenueNode] = [graph.nodes[order[0].a]]
    visits.extend(graph.nodes[s.b] for s in order)
    return Route(spec.train, ctx.train_spec(spec.train), tuple(order), tuple(visits))


def _assemble(cands: list[list[Segment]], avoid: set[int], strict: bool) -> list[Segment] | None:
    """Pick one segment per chain and orient them into a path; None if impossible."""
    n = len(cands)
    out: list[Segment] = []
    for seg in cands[0]:
        firsts = (seg,) if n == 1 else (seg, seg.reversed())
        for s in firsts:
            if strict and s.units & avoid:
                continue
            out.append(s)
            if _assemble_from(cands, strict, out, 1, avoid | s.units):
                return out
            out.pop()
    return None


def _assemble_from(cands: list[list[Segment]], strict: bool, out: list[Segment], i: int,
                   used: set[int]) -> bool:
    """:func:`_assemble` from chain ``i`` on, ``out`` the segments picked before (a module
    function: a recursive inner function would be a cycle left for the garbage
    collector)."""
    if i == len(cands):
        return True
    end = out[-1].b
    for seg in cands[i]:
        for s in (seg, seg.reversed()) if seg.a != seg.b else (seg,):
            if s.a != end or (strict and s.units & used):
                continue
            out.append(s)
            if _assemble_from(cands, strict, out, i + 1, used | s.units):
                return True
            out.pop()
    return False


def _units_text(ctx: RouteContext, units: set[int] | frozenset[int]) -> str:
    return "track on " + ", ".join(unit_hexes(ctx.board, units))
