"""Tournament statistics: each bot's win rate and average score with 95% intervals."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from rhineland.sim.batch import GameOutcome

Z95 = 1.959963984540054
"""The two-sided 95% normal quantile."""


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``successes / n`` (``(0, 1)`` when
    ``n`` is 0)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(values: list[float], z: float = Z95) -> tuple[float, float]:
    """The mean of ``values`` and the half-width of its normal 95% interval (0 for
    fewer than two values)."""
    n = len(values)
    if n == 0:
        return (0.0, 0.0)
    mean = sum(values) / n
    if n < 2:
        return (mean, 0.0)
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return (mean, z * math.sqrt(var / n))


@dataclass
class BotStanding:
    """One bot's record: ``seats`` played in finished games, ``wins`` (a tie for the top
    score shared by k seats counts 1/k), its ``scores`` (M)."""

    bot: str
    seats: int = 0
    wins: float = 0.0
    scores: list[float] = field(default_factory=list)

    @property
    def win_rate(self) -> float:
        """Wins per seat played."""
        return self.wins / self.seats if self.seats else 0.0

    @property
    def win_ci(self) -> tuple[float, float]:
        """The Wilson 95% interval of :attr:`win_rate`."""
        return wilson(self.wins, self.seats)

    @property
    def score(self) -> tuple[float, float]:
        """Average score (M) and the half-width of its 95% interval."""
        return mean_ci(self.scores)


def standings(outcomes: Iterable[GameOutcome]) -> dict[str, BotStanding]:
    """Each bot's :class:`BotStanding` over the finished games of ``outcomes``."""
    table: dict[str, BotStanding] = {}
    for o in outcomes:
        if not o.finished or not o.scores:
            continue
        winners = o.winners
        for seat, bot in enumerate(o.spec.bots):
            st = table.setdefault(bot, BotStanding(bot))
            st.seats += 1
            st.scores.append(o.scores[seat])
            if seat in winners:
                st.wins += 1 / len(winners)
    return table
