"""Title hooks of the legal-action generator (defaults: nothing of the title's own).

A hook reads the state only and returns candidates (a superset of the legal
decisions); the generator tries them against the rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.legal.choices import Candidate
    from rhineland.engine.rounds.base import Round
    from rhineland.engine.rounds.operating import OperatingRound
    from rhineland.engine.rounds.stock import StockRound


class LegalRules:
    """Where a title adds to the legal-action generator: its own rounds, and its own
    actions in the stock and operating rounds."""

    def round_candidates(self, game: Game, rnd: Round) -> list[Candidate] | None:
        """The candidate decisions in a round of the title's own kind (e.g. 1893's draft,
        forced auction, merger round); ``None`` for the engine's rounds."""
        return None

    def stock_extra_candidates(self, game: Game, rnd: StockRound,
                               player: Any) -> list[Candidate]:
        """The title's own stock-round candidates for ``player`` (e.g. 1893's bonds,
        Starting Package items, EVA, the FdSD exchange)."""
        return []

    def operating_extra_candidates(self, game: Game, rnd: OperatingRound, entity: Any,
                                   step: str | None) -> list[Candidate]:
        """The title's own operating-round candidates in ``step`` (e.g. 18Rhl's special
        token, private companies' lays outside the track step; 1893's trade-ins)."""
        return []
