"""A recorded run checked against the rules, and the same run as 18xx.games replays it.

A ``run_routes`` action records each train's route and revenue.  The rules check
every route and compute its revenue, which must equal the recorded one
(:func:`check_recorded_run`).  18xx.games, loading a stored run, trusts the
revenue it records and checks only that each train is the company's and runs
once (:func:`~rhineland.routes.engine.check_trains`); :func:`trusted_results` is
the run that way and :func:`find_rejection` says which train's route the rules
reject, with the rule, the message and, where the route is legal, the revenue
the rules give it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rhineland.errors import GameError
from rhineland.routes.engine import run_revenue
from rhineland.routes.model import RouteContext, RouteInput, RouteResult, RouteSpec


def recorded_revenue(route: RouteInput) -> int | None:
    """The revenue a route records (an export route dict's ``revenue``), or ``None``."""
    if isinstance(route, Mapping):
        value = route.get("revenue")
        return value if isinstance(value, int) else None
    return None


def check_recorded_run(ctx: RouteContext, routes: Sequence[RouteInput]) -> list[RouteResult]:
    """:func:`~rhineland.routes.engine.run_revenue`, and each route's recorded revenue
    must equal the rules' [``route.revenue``]."""
    results = run_revenue(ctx, routes)
    for route, result in zip(routes, results, strict=True):
        recorded = recorded_revenue(route)
        if recorded is not None and recorded != result.revenue:
            raise GameError(
                f"train {result.train} of {ctx.entity}: the route earns {result.revenue}M, "
                f"not the recorded {recorded}M",
                "route.revenue",
            )
    return results


@dataclass(frozen=True)
class Rejection:
    """Why the rules reject a recorded run: the route at ``index`` (its ``train``)
    breaks ``rule`` (``message``: the check's text, without the rule); ``recorded``
    is that train's recorded revenue, ``ours`` what the rules give it (``None``
    when its route is illegal)."""

    index: int
    train: str
    rule: str
    message: str
    recorded: int | None
    ours: int | None


def find_rejection(ctx: RouteContext, routes: Sequence[RouteInput]) -> Rejection | None:
    """The first route of the run the rules reject (``None``: the run is legal and
    earns what it records).

    The checks go route by route, so the shortest prefix of the run the rules
    reject ends with the route at fault (a check across the whole run names its
    last route); a run whose routes are legal but record another revenue names the
    first train whose revenue differs.
    """
    try:
        check_recorded_run(ctx, routes)
        return None
    except GameError as exc:
        error = exc
    if error.rule != "route.revenue":
        for k in range(1, len(routes) + 1):
            try:
                run_revenue(ctx, routes[:k])
            except GameError as exc:
                error, index, ours = exc, k - 1, None
                break
        else:  # pragma: no cover - the whole run was rejected, so a prefix is
            raise AssertionError("a rejected run has a rejected prefix")
    else:
        results = run_revenue(ctx, routes)
        index = next(i for i, (route, result) in enumerate(zip(routes, results, strict=True))
                     if recorded_revenue(route) not in (None, result.revenue))
        ours = results[index].revenue
    route = routes[index]
    return Rejection(
        index=index,
        train=RouteSpec.coerce(route).train,
        rule=error.rule,
        message=str(error).removesuffix(f" [{error.rule}]"),
        recorded=recorded_revenue(route),
        ours=ours,
    )


def trusted_results(routes: Sequence[RouteInput]) -> list[RouteResult] | None:
    """Each train's run with the revenue it records, as 18xx.games takes a stored
    run (visits and hexes as recorded; no bonus, distance or paying stop is
    derived); ``None`` when a route records no revenue (nothing to trust)."""
    out: list[RouteResult] = []
    for route in routes:
        revenue = recorded_revenue(route)
        if revenue is None or not isinstance(route, Mapping):
            return None
        nodes = tuple(str(n) for n in route.get("nodes", ()))
        out.append(RouteResult(
            train=str(route["train"]),
            revenue=revenue,
            base=revenue,
            bonuses=(),
            visits=nodes,
            stops=(),
            hexes=tuple(str(h) for h in route.get("hexes", ())),
            distance=0,
        ))
    return out
