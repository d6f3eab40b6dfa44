"""Title hooks of the legal-action generator (defaults: nothing of the title's own).

A hook reads the state only and returns candidates (a superset of the legal
decisions); the generator tries them against the rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.legal.choices import Candidate
    from rhineland.engine.rounds.base import Round


class LegalRules:
    """Where a title adds to the legal-action generator: its own rounds.  In the stock
    and operating rounds each declared step lists its own candidates
    (:meth:`rhineland.engine.steps.Step.candidates`)."""

    def round_candidates(self, game: Game, rnd: Round) -> list[Candidate] | None:
        """The candidate decisions in a round of the title's own kind (e.g. 1893's draft,
        forced auction, merger round); ``None`` for the engine's rounds."""
        return None
