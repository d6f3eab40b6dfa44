"""The round interface the game drives.

A round knows whose decision is pending (:meth:`Round.current_entity`), the
step it is in (:meth:`Round.step_name`, snake_case as in the oracle traces),
and processes one action at a time.  When it ends it asks the title for the
next round (:meth:`rhineland.engine.title.Title.next_round`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rhineland.engine.actions import Action
from rhineland.errors import GameError

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.legal.choices import Candidate


class Round:
    """Base class: ``kind`` is ``"Auction"``, ``"Draft"``, ``"Stock"``, ``"Operating"``
    or ``"Merger"``; ``turn`` the game turn; ``num`` the OR number within the set."""

    kind: str = ""

    def __init__(self, turn: int, num: int = 1) -> None:
        self.turn = turn
        self.num = num

    @property
    def label(self) -> str:
        """The trace label: ``"SR <turn>"``, ``"OR <turn>.<num>"`` or ``"<kind> <turn>"``."""
        if self.kind == "Stock":
            return f"SR {self.turn}"
        if self.kind == "Operating":
            return f"OR {self.turn}.{self.num}"
        return f"{self.kind} {self.turn}"

    def start(self, game: Game) -> None:
        """Called once when the round becomes the current round."""

    def current_entity(self, game: Game) -> Any:
        """The player/corporation/minor whose decision is pending."""
        raise NotImplementedError

    def step_name(self, game: Game) -> str | None:
        """The current step's name (snake_case as in the oracle traces), ``None``
        when there is none; subclasses implement it."""
        raise NotImplementedError

    def process(self, game: Game, action: Action) -> None:
        """Check and apply ``action``; raises ``GameError`` when it is illegal.
        Subclasses implement it."""
        raise NotImplementedError

    def check(self, game: Game, action: Action) -> bool:
        """The checks :meth:`process` makes first, on the state as it is (left
        untouched): raises ``GameError`` when they refuse ``action``; returns True when
        they are the whole of the rules for it (:meth:`process` then accepts it), False
        when only processing it tells.  Default: False, no check of its own (a round
        that has one must be the class whose :meth:`process` makes it)."""
        return False

    def candidates(self, game: Game) -> list[Candidate]:
        """The candidate decisions now, for the legal-action generator
        (:mod:`rhineland.engine.legal.generate`): a superset of the legal ones, read
        from the state only (rounds of declared steps ask their current steps,
        :meth:`rhineland.engine.steps.Step.candidates`).  Default: none."""
        return []

    def final_entity(self, game: Game) -> Any:
        """The entity shown as current once the game has ended in this round."""
        return None

    def acting_player_ids(self, game: Game) -> list[int]:
        """Player ids expected to act next."""
        return game.entity_owner_ids(self.current_entity(game))

    # -- shared checks -------------------------------------------------------------
    def expect_player(self, game: Game, action: Action) -> Any:
        """The acting player; raises ``GameError`` when it is not that player's turn."""
        current = self.current_entity(game)
        if action.entity_type != "player" or getattr(current, "id", None) != action.entity:
            who = getattr(current, "name", None) or getattr(current, "sym", current)
            raise GameError(
                f"it is {who}'s turn in {self.label}, not {action.entity_type} {action.entity!r}",
                "turn.order",
            )
        return current


def finish_round(game: Game, rnd: Round) -> None:
    """End ``rnd`` and start the title's next round (none once every player is
    bankrupt: :meth:`~rhineland.engine.game.Game.end_if_all_bankrupt`)."""
    if game.end_if_all_bankrupt():
        return
    nxt = game.title.next_round(game, rnd)
    if nxt is None:
        return  # the game is over: the last round stays current
    game.state.round = nxt
    nxt.start(game)
