"""Tournament statistics: each bot's win rate and average score with 95% intervals."""

from __future__ import annotations

import math
import random
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


@dataclass(frozen=True)
class Margin:
    """Bot ``first``'s win rate less bot ``second``'s (per seat played), ``diff``,
    with its bootstrap 95% interval ``low``..``high`` (games resampled)."""

    first: str
    second: str
    diff: float
    low: float
    high: float


def margin(outcomes: Iterable[GameOutcome], first: str, second: str,
           resamples: int = 2000, seed: int = 0) -> Margin | None:
    """The win-rate margin of bot ``first`` over bot ``second`` over the finished games
    of ``outcomes`` where both sat, with a percentile bootstrap 95% interval
    (``resamples`` resamples of whole games, drawn with ``random.Random(seed)``: the
    same outcomes give the same interval); ``None`` without such a game."""
    rows: list[tuple[float, int, float, int]] = []  # wins and seats of each bot a game
    for o in outcomes:
        if not o.finished or not o.scores:
            continue
        winners = o.winners
        row = [0.0, 0, 0.0, 0]
        for seat, bot in enumerate(o.spec.bots):
            for k, name in ((0, first), (2, second)):
                if bot == name:
                    row[k + 1] += 1
                    if seat in winners:
                        row[k] += 1 / len(winners)
        if row[1] and row[3]:
            rows.append((row[0], int(row[1]), row[2], int(row[3])))
    if not rows:
        return None
    return _bootstrap(rows, first, second, resamples, seed)


def score_margin(outcomes: Iterable[GameOutcome], first: str, second: str,
                 resamples: int = 2000, seed: int = 0) -> Margin | None:
    """Bot ``first``'s average final score less bot ``second``'s (M, per seat played)
    over the finished games of ``outcomes`` where both sat, with a percentile bootstrap
    95% interval (whole games resampled, ``random.Random(seed)``); ``None`` without
    such a game."""
    rows: list[tuple[float, int, float, int]] = []  # score sums and seats of each bot
    for o in outcomes:
        if not o.finished or not o.scores:
            continue
        row = [0.0, 0, 0.0, 0]
        for seat, bot in enumerate(o.spec.bots):
            for k, name in ((0, first), (2, second)):
                if bot == name:
                    row[k] += o.scores[seat]
                    row[k + 1] += 1
        if row[1] and row[3]:
            rows.append((row[0], int(row[1]), row[2], int(row[3])))
    if not rows:
        return None
    return _bootstrap(rows, first, second, resamples, seed)


def _bootstrap(rows: list[tuple[float, int, float, int]], first: str, second: str,
               resamples: int, seed: int) -> Margin:
    """The ratio-of-sums difference of ``rows`` and its percentile bootstrap interval."""

    def diff(sample: list[tuple[float, int, float, int]]) -> float:
        return (sum(r[0] for r in sample) / sum(r[1] for r in sample)
                - sum(r[2] for r in sample) / sum(r[3] for r in sample))

    rng = random.Random(seed)
    n = len(rows)
    diffs = sorted(diff([rows[rng.randrange(n)] for _ in range(n)]) for _ in range(resamples))
    low = diffs[int(0.025 * (resamples - 1))]
    high = diffs[math.ceil(0.975 * (resamples - 1))]
    return Margin(first, second, diff(rows), low, high)
