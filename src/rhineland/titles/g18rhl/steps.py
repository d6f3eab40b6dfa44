"""18Rhl's OR steps (:mod:`rhineland.engine.rounds.operating_steps` subclassed).

* A corporation in receivership lays no track, places no token and withholds
  (its dividend step is skipped: a withhold of the run), as the reference
  engine does (rule 13.2).
* The track step's end checks the Köln–Düren–Aachen link while RhE's bonus is
  pending (private No. 6).
* A president who cannot pay for the train the corporation must buy goes
  bankrupt (:meth:`G18RhlBuyTrain.bankrupt`); the game goes on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rhineland.engine.actions import Bankrupt
from rhineland.engine.entities import Corporation
from rhineland.engine.rounds.operating_steps import (
    ROUTE,
    BuyTrainStep,
    DividendStep,
    TokenStep,
    TrackStep,
)
from rhineland.engine.steps import Step

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.rounds.operating import OperatingRound


def in_receivership(entity: Any) -> bool:
    """Whether ``entity`` is a corporation in receivership (no president)."""
    return isinstance(entity, Corporation) and entity.receivership


class G18RhlTrack(TrackStep):
    """No lay in receivership; after the step, the RhE link check."""

    def applicable(self, game: Game, rnd: OperatingRound, entity: Any) -> bool:
        """As the default, never in receivership."""
        return not in_receivership(entity) and super().applicable(game, rnd, entity)

    def finish(self, game: Game, rnd: OperatingRound, entity: Any) -> None:
        """The RhE link check (:func:`rhineland.titles.g18rhl.rules.check_rhe_link`)."""
        from rhineland.titles.g18rhl.rules import check_rhe_link

        check_rhe_link(game)


class G18RhlToken(TokenStep):
    """No token in receivership."""

    def applicable(self, game: Game, rnd: OperatingRound, entity: Any) -> bool:
        """As the default, never in receivership."""
        return not in_receivership(entity) and super().applicable(game, rnd, entity)


class G18RhlDividend(DividendStep):
    """A corporation in receivership always withholds (the step is skipped)."""

    def applicable(self, game: Game, rnd: OperatingRound, entity: Any) -> bool:
        """As the default, never in receivership."""
        return not in_receivership(entity) and super().applicable(game, rnd, entity)


class G18RhlBuyTrain(BuyTrainStep):
    """Bankruptcy as the reference engine has it (the game goes on)."""

    def bankrupt(self, game: Game, rnd: OperatingRound, entity: Any, action: Bankrupt) -> None:
        """:meth:`G18Rhl.bankrupt`; the turn ends when the corporation, now in
        receivership, bought its train at once."""
        if game.title.bankrupt(game, rnd, entity):  # type: ignore[attr-defined]
            rnd.end_turn_now(game, entity)


STEPS: tuple[Step, ...] = (G18RhlTrack(), G18RhlToken(), ROUTE, G18RhlDividend(),
                           G18RhlBuyTrain())
"""An 18Rhl OR turn (private lays and the special token beside it:
:meth:`G18Rhl.process_operating_action`)."""
