"""Named leniencies: actions the reference engine accepted although its interface would
not have offered them (it trusts a stored action's parameters).

The rules refuse them: ``process`` raises ``GameError`` and ``legal_actions()``
never lists them.  A replay of an 18xx.games export turns them on
(:data:`REPLAY_LENIENCIES`) so that it accepts what the reference accepted,
and records every use (:attr:`Game.leniencies_used`), which the replay
reports: nothing is accepted silently.
"""

from __future__ import annotations

from dataclasses import dataclass

LENIENCIES: dict[str, str] = {
    "auction.buy_price": "the cheapest item of the initial packet bought above its price",
}
"""Every leniency by name (the rule id it relaxes) and what it lets through.  Add one
where a reference game needs it; the rule code calls :meth:`Game.lenient`."""

REPLAY_LENIENCIES = frozenset(LENIENCIES)
"""The leniencies an export replay allows (each use is recorded and reported)."""


@dataclass(frozen=True)
class LeniencyUse:
    """One action accepted under leniency ``rule``: its id and what the rules say."""

    rule: str
    action_id: int | None
    message: str

    def __str__(self) -> str:
        return f"action {self.action_id}: {self.message} (accepted under leniency {self.rule})"
