"""Named leniencies: actions the reference engine (18xx.games) accepted although the
rules refuse them, because it trusts what a stored action records (its interface would
not have offered them, or it never re-checks a loaded route).

The rules refuse them: ``process`` raises ``GameError`` and ``legal_actions()``
never lists them.  A replay of an 18xx.games export turns the
:data:`REPLAY_LENIENCIES` on so that it accepts what the reference accepted, and
records every use (:attr:`Game.leniencies_used`), which the replay reports:
nothing is accepted silently.

``route`` (``replay(export, trust_routes=True)``, ``rhineland replay --trust-routes``)
is never on by default: a replay checks every route unless asked to trust them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

TRUST_ROUTES = "route"
"""The leniency that trusts a ``run_routes`` action's recorded revenue (every ``route.*``
rule of its routes relaxed; the trains must still be the company's, each run once)."""

LENIENCIES: dict[str, str] = {
    "auction.buy_price": "the cheapest item of the initial packet bought above its price",
    "train.limit": "a train bought beyond the company's train limit while its buy-train "
                   "step is open (a train is then discarded)",
    "train.assist_price": "a trainless 1893 minor paying another company more than a "
                          "train's face value with its owner's help",
    "train.cheapest_offer": "a bank train other than the cheapest bought with help by a "
                            "company whose cash is short of every bank train",
    "or.eva_price": "1893's EVA bought from a player in an OR at a price outside the "
                    "span 18xx.games's interface offers (its engine takes 1M up to the "
                    "president's cash)",
    TRUST_ROUTES: "a run whose routes break a route rule (route.*), applied with the "
                  "revenue each train records, as 18xx.games replays it (--trust-routes)",
}
"""Every leniency by name (the rule id, or family of rules, it relaxes) and what it lets
through.  Add one where a reference game needs it; the rule code calls
:meth:`Game.lenient`."""

REPLAY_LENIENCIES: frozenset[str] = frozenset(LENIENCIES) - {TRUST_ROUTES}
"""The leniencies an export replay allows without being asked (each use is recorded
and reported); :data:`TRUST_ROUTES` is never one of them."""


@dataclass(frozen=True)
class LeniencyUse:
    """One action accepted under a leniency: the ``rule`` the rules refuse it by, its
    id, and what the rules say (``message``)."""

    rule: str
    action_id: int | None
    message: str

    def __str__(self) -> str:
        return f"action {self.action_id}: {self.message} (accepted under leniency {self.rule})"

    def as_dict(self) -> dict[str, Any]:
        """The use as a JSON object (``action_id``, ``rule``, ``message``)."""
        return {"action_id": self.action_id, "rule": self.rule, "message": self.message}


@dataclass(frozen=True, kw_only=True)
class TrustedRun(LeniencyUse):
    """A run the route rules reject, applied with its recorded revenue (leniency
    :data:`TRUST_ROUTES`).

    ``rule`` and ``message`` are what the route check says; ``train`` is the train
    whose route it rejects, ``recorded`` that train's recorded revenue and ``ours``
    what the rules give it (``None`` when the route itself is illegal, so it earns
    nothing under them); ``revenue`` is the run's recorded total, which was applied.
    """

    entity: str
    train: str
    recorded: int
    ours: int | None
    revenue: int
    leniency: str = TRUST_ROUTES

    def __str__(self) -> str:
        ours = "the rules reject its route" if self.ours is None else f"the rules {self.ours}M"
        return (f"action {self.action_id}: {self.entity} train {self.train} recorded "
                f"{self.recorded}M, {ours}: {self.message} [{self.rule}]; run applied at "
                f"its recorded {self.revenue}M (leniency {self.leniency})")

    def as_dict(self) -> dict[str, Any]:
        """The run as a JSON object: the use's fields and ``leniency``, ``entity``,
        ``train``, ``recorded``, ``ours``, ``revenue``."""
        return {**super().as_dict(), "leniency": self.leniency, "entity": self.entity,
                "train": self.train, "recorded": self.recorded, "ours": self.ours,
                "revenue": self.revenue}
