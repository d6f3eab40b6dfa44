"""A recorded run against the optimum: what ``replay --best-routes`` and the game report
show for every ``run_routes`` action."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rhineland.engine.leniency import TRUST_ROUTES
from rhineland.routes.engine import run_revenue
from rhineland.routes.search import RouteSet, best_routes
from rhineland.routes.trusted import trusted_results

if TYPE_CHECKING:
    from rhineland.engine.actions import RunRoutes
    from rhineland.engine.game import Game


@dataclass(frozen=True)
class RunComparison:
    """One run: ``action_id``, the ``round`` label (``"OR 3.2"``), the company ``entity``,
    the revenue it ``ran`` (M; the recorded revenue under ``--trust-routes``) and the
    ``best`` run there (:class:`RouteSet`, its ``revenue`` in M)."""

    action_id: int
    round: str
    entity: str
    ran: int
    best: RouteSet

    @property
    def missed(self) -> int:
        """M the run earned less than the best (0 for a best run)."""
        return self.best.revenue - self.ran


def compare_run(game: Game, action: RunRoutes) -> RunComparison | None:
    """The recorded run ``action`` against the optimum, at the state just before it;
    ``None`` when no company with trains is operating.  Raises ``GameError`` for a run
    the rules reject (unless the game trusts recorded routes)."""
    rnd = game.state.round
    ent = rnd.current_entity(game) if rnd is not None else None
    if ent is None or not hasattr(ent, "trains"):
        return None
    ctx = game.title.route_context(game, ent)
    routes = list(action.routes)
    trusted = trusted_results(routes) if TRUST_ROUTES in game.leniencies else None
    ran = sum(r.revenue for r in (trusted if trusted is not None else run_revenue(ctx, routes)))
    label = rnd.label if rnd is not None else ""
    return RunComparison(int(action.id or 0), label, ent.sym, ran, best_routes(game))
