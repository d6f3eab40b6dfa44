"""Routes given as their stops: what a player clicks on the map, turned into the
export route a ``run_routes`` action records.

A route is ``{"train": "2-0", "stops": ["K2", "K4-0", "K6"]}``: its revenue nodes in
order, each a hex (its only node, or the one track joins to the stop before) or a node
``"<hex>-<part>"``.  Consecutive stops must be joined by track that passes no other node
(a town passed through is a stop too).  The result is checked by the route rules only
when the run is processed (:func:`rhineland.routes.engine.run_revenue`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from rhineland.errors import GameError
from rhineland.routes.graph import RevenueNode, Segment, TrackGraph

if TYPE_CHECKING:
    from rhineland.engine.game import Game


def _nodes(graph: TrackGraph, stop: str) -> list[RevenueNode]:
    node = graph.by_name.get(stop)
    if node is not None:
        return [node]
    found = graph.by_hex.get(stop, [])
    if not found:
        raise GameError(f"{stop} is no town, city or offboard on the map", "route.stops")
    return list(found)


def route_from_stops(graph: TrackGraph, train: str, stops: Sequence[str],
                     avoid: set[int] | None = None) -> tuple[dict[str, Any], frozenset[int]]:
    """The export route (``train``, ``connections``, ``nodes``) of ``train`` visiting
    ``stops`` in order, and the track units it uses.  Between two stops the shortest
    track not in ``avoid`` (units of the run's other routes) is taken, else the shortest.
    Raises ``GameError`` [``route.stops``] for fewer than two stops or a stop that is no
    node, [``route.track``] when no track joins two consecutive stops directly."""
    if len(stops) < 2:
        raise GameError(f"train {train}: a route needs at least two stops", "route.stops")
    avoid = avoid or set()
    starts = _nodes(graph, stops[0])
    chosen: list[Segment] = []
    for prev, stop in pairwise(stops):
        ends = {n.id for n in _nodes(graph, stop)}
        cands = [s for a in starts for s in graph.out[a.id] if s.b in ends]
        if not cands:
            raise GameError(f"train {train}: no track runs from {prev} to {stop} without "
                            "passing another town or city (click every stop in order)",
                            "route.track")
        seg = min(cands, key=lambda s: (bool(s.units & avoid), len(s.hexes)))
        chosen.append(seg)
        starts = [graph.nodes[seg.b]]
    nodes = [graph.nodes[chosen[0].a].name] + [graph.nodes[s.b].name for s in chosen]
    units = frozenset().union(*(s.units for s in chosen))
    return ({"train": train, "connections": [list(s.hexes) for s in chosen],
             "nodes": nodes}, units)


def run_from_stops(game: Game, entity: str, routes: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The ``run_routes`` export record for ``entity``'s trains on ``routes``
    (``[{"train", "stops"}]``, see the module docstring), each route's ``revenue`` (M)
    worked out by the route rules.  Raises ``GameError`` when ``entity`` does not run
    trains now, a route's stops are not joined by track (:func:`route_from_stops`), or
    the rules refuse the run (:func:`rhineland.routes.engine.run_revenue`: the engine's
    message)."""
    from rhineland.engine.legal import RouteChoice
    from rhineland.routes.engine import run_revenue
    from rhineland.routes.graph import track_graph

    choice = next((c for c in game.legal_actions()
                   if isinstance(c, RouteChoice) and c.entity == entity), None)
    if choice is None:
        raise GameError(f"{entity} does not run trains now", "route.entity")
    graph = track_graph(game.board)
    used: set[int] = set()
    out: list[dict[str, Any]] = []
    for i, route in enumerate(routes):
        train, stops = route.get("train"), route.get("stops")
        if not isinstance(train, str) or not isinstance(stops, list) \
                or not all(isinstance(s, str) for s in stops):
            raise GameError(f"routes[{i}]: expected {{\"train\": str, \"stops\": [str]}}",
                            "route.stops")
        record, units = route_from_stops(graph, train, stops, used)
        used |= units
        out.append(record)
    ctx = game.title.route_context(game, game.title.operator(game, entity))
    for record, result in zip(out, run_revenue(ctx, out), strict=True):
        record["revenue"] = result.revenue
    return {"type": "run_routes", "entity": entity, "entity_type": choice.entity_type,
            "routes": out}
