"""What the modules below the game see of it: typed views, no game class.

:class:`~rhineland.engine.game.Game` imports the rules, rounds and the legal-action
generator; a module below it that needs only part of a game names that part through
:class:`GameView`, which ``Game`` satisfies (checked by mypy wherever a game is
passed), rather than importing ``engine.game`` back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from rhineland.engine.actions import Action
    from rhineland.engine.entities import Corporation, Holder, Player, Train
    from rhineland.engine.market import StockMarket


class StateView(Protocol):
    """The fields of :class:`~rhineland.engine.game.State` read and written below the
    game: the players in order and the order of arrival in the market and on its
    cells."""

    players: list[Player]
    market_order: int
    cell_order: dict[str, int]


class GameView(Protocol):
    """A game as the share moves (:mod:`rhineland.engine.shares`) and the shapes of
    legal actions (:mod:`rhineland.engine.legal.choices`) use it."""

    @property
    def state(self) -> StateView:
        """The mutable state."""

    @property
    def market(self) -> StockMarket:
        """The stock market grid."""

    @property
    def corporations(self) -> dict[str, Corporation]:
        """Every corporation by symbol."""

    def add_log(self, line: str) -> None:
        """Append a line to the game log."""

    def holder_name(self, holder: Holder) -> str:
        """A certificate holder's name for the log."""

    def train(self, train_id: str) -> Train:
        """The train with export id ``train_id`` (``GameError`` when unknown)."""

    def is_legal(self, action: Action) -> bool:
        """Whether the game accepts ``action`` now under the rules."""
