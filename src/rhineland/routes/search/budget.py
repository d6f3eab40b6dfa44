"""The node budget of the anytime mode (``budget_nodes``): the walks and the branch and
bound are charged per node (:class:`Budget`), and :class:`OutOfBudget` stops the search
once it is spent."""

from __future__ import annotations


class OutOfBudget(Exception):
    """Raised inside a search when its node budget (``budget_nodes``) is spent."""


class Budget:
    """Search nodes left to spend (``None``: unlimited); :meth:`spend` raises
    :class:`OutOfBudget` once they are gone."""

    def __init__(self, nodes: int | None) -> None:
        self.left = nodes

    def spend(self, n: int) -> None:
        """Charge ``n`` nodes; raises :class:`OutOfBudget` once the budget is overdrawn."""
        if self.left is not None:
            self.left -= n
            if self.left < 0:
                raise OutOfBudget


class _Stop(Exception):
    pass
