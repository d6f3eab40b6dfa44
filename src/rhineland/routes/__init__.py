"""Routes: the track graph, route validation and revenue (both titles).

The engine calls::

    ctx = RouteContext(board=..., data=title.data, entity="ADR", phase="5",
                       trains=("5-0", "3-1"), rules=title_revenue_rules,
                       hex_icons=..., eastern_ruhr_links=None)
    results = run_revenue(ctx, action["routes"])   # list[RouteResult], GameError if illegal

Modules: :mod:`.graph` (revenue nodes and the segments between them, cached
per board version), :mod:`.model` (context, input and result records),
:mod:`.rules` (the common rules as overridable hooks), :mod:`.engine`
(resolution of export chains, the checks, :func:`run_revenue`).  Title hooks
live in ``rhineland.titles.<title>.revenue``.
"""

from __future__ import annotations

from rhineland.routes.engine import check_route, resolve, rules_of, run_revenue
from rhineland.routes.graph import RevenueNode, Segment, TrackGraph, track_graph
from rhineland.routes.model import (
    Bonus,
    Route,
    RouteContext,
    RouteResult,
    RouteSpec,
    train_name,
)
from rhineland.routes.rules import EntityView, Evaluation, RevenueRules

__all__ = [
    "Bonus",
    "EntityView",
    "Evaluation",
    "RevenueNode",
    "RevenueRules",
    "Route",
    "RouteContext",
    "RouteResult",
    "RouteSpec",
    "Segment",
    "TrackGraph",
    "check_route",
    "resolve",
    "rules_of",
    "run_revenue",
    "track_graph",
    "train_name",
]
