"""What a best-route search answers: the routes of one run (:class:`RouteSet`, one
:class:`TrainRoute` per train that runs) and the proof data of the search
(:class:`SearchProof`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rhineland.routes.model import RouteResult, RouteSpec


@dataclass(frozen=True)
class TrainRoute:
    """One train's best route.

    ``spec``: the route as an export gives it (``connections`` hex chains in
    walk order, ``nodes`` visit names), ready for a ``run_routes`` action;
    ``result``: what :func:`run_revenue` computes for it (revenue in M, stops,
    itemised bonuses).
    """

    train: str
    spec: RouteSpec
    result: RouteResult

    @property
    def revenue(self) -> int:
        """The route's revenue in M."""
        return self.result.revenue

    def to_export(self) -> dict[str, Any]:
        """The route as a ``run_routes`` route dict (``train``, ``connections``, ``nodes``,
        ``revenue``)."""
        return {
            "train": self.train,
            "connections": [list(c) for c in self.spec.connections],
            "nodes": list(self.spec.nodes),
            "revenue": self.result.revenue,
        }


@dataclass(frozen=True)
class SearchProof:
    """Certificate and effort of one search.

    ``bound``: proven upper bound on the total revenue (M), equal to the
    revenue found; ``root_bound``: the optimistic bound before branching
    (sum of each train's best candidate ``ub``); ``nodes``: search nodes
    explored (path DFS + branch and bound); ``candidates``: candidate routes
    listed (all train types); ``evaluations``: exact rule evaluations.
    """

    bound: int
    root_bound: int
    nodes: int
    candidates: int
    evaluations: int


@dataclass(frozen=True)
class RouteSet:
    """The best run of ``entity``: ``routes`` (in the entity's train order; trains
    without a profitable route are left out), total ``revenue`` in M, ``proof``."""

    entity: str
    revenue: int
    routes: tuple[TrainRoute, ...]
    proof: SearchProof

    @property
    def gap(self) -> int:
        """``proof.bound - revenue`` in M: 0 when the run is proven optimal (always without
        a node budget), else how much more the best run might earn."""
        return self.proof.bound - self.revenue

    @property
    def exact(self) -> bool:
        """Whether the run is proven optimal (:attr:`gap` is 0)."""
        return self.gap == 0

    def to_export(self) -> list[dict[str, Any]]:
        """The routes as ``run_routes`` route dicts."""
        return [r.to_export() for r in self.routes]
