"""A per-round summary of a replay: what happened in each stock and operating round.

:class:`ReplaySummary` is fed every processed action (with the round it was
processed in) and produces one line per round, e.g. ``SR 2: 3 buys, 1 sale,
1 par`` or ``OR 3.1: ADR 120M payout, RhE 90M withhold``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rhineland.engine.actions import Action, BuyShares, Dividend, Par, RunRoutes, SellShares

if TYPE_CHECKING:
    pass


@dataclass
class RoundLine:
    """The tally of one round (label as in the traces, e.g. ``"OR 3.1"``)."""

    label: str
    actions: int = 0
    buys: int = 0
    sales: int = 0
    pars: list[str] = field(default_factory=list)
    runs: dict[str, int] = field(default_factory=dict)  # entity -> revenue (M)
    kinds: dict[str, str] = field(default_factory=dict)  # entity -> payout/withhold

    def text(self) -> str:
        """The round's summary line, e.g. ``"SR 2: 3 buys, 1 sale"`` (just an action
        count when nothing else was tallied)."""
        parts: list[str] = []
        if self.pars:
            parts.append("starts " + ", ".join(self.pars))
        if self.buys:
            parts.append(f"{self.buys} buy{'s' if self.buys > 1 else ''}")
        if self.sales:
            parts.append(f"{self.sales} sale{'s' if self.sales > 1 else ''}")
        for sym, revenue in self.runs.items():
            kind = self.kinds.get(sym, "")
            parts.append(f"{sym} {revenue}M{(' ' + kind) if kind else ''}")
        if not parts:
            parts.append(f"{self.actions} action{'s' if self.actions != 1 else ''}")
        return f"{self.label}: " + ", ".join(parts)


@dataclass
class ReplaySummary:
    """Collects :class:`RoundLine` tallies while a game is replayed."""

    lines: list[RoundLine] = field(default_factory=list)

    def record(self, action: Action, label: str) -> None:
        """Count ``action``, processed in the round labelled ``label``."""
        if not self.lines or self.lines[-1].label != label:
            self.lines.append(RoundLine(label))
        line = self.lines[-1]
        line.actions += 1
        if isinstance(action, BuyShares):
            line.buys += 1
        elif isinstance(action, SellShares):
            line.sales += 1
        elif isinstance(action, Par):
            line.pars.append(action.corporation)
        elif isinstance(action, RunRoutes):
            revenue = sum(int(r.get("revenue", 0)) for r in action.routes if isinstance(r, dict))
            line.runs[str(action.entity)] = revenue
        elif isinstance(action, Dividend):
            line.kinds[str(action.entity)] = action.kind

    def text_lines(self) -> list[str]:
        """One :meth:`RoundLine.text` line per round, in order."""
        return [line.text() for line in self.lines]
