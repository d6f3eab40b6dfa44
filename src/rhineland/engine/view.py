"""What the modules below the game see of it: typed views, no game class.

:class:`~rhineland.engine.game.Game` imports the rules, rounds and the legal-action
generator; a module below it that needs only part of a game names that part through
a view here (:class:`GameView`, :class:`TrialGame`), which ``Game`` satisfies (checked
by mypy wherever a game is passed), rather than importing ``engine.game`` back.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rhineland.engine.actions import Action
    from rhineland.engine.entities import Corporation, Holder, Train
    from rhineland.engine.market import StockMarket
    from rhineland.engine.state import State


class GameView(Protocol):
    """A game as the share moves (:mod:`rhineland.engine.shares`) and the shapes of
    legal actions (:mod:`rhineland.engine.legal.choices`) use it."""

    @property
    def state(self) -> State[Any]:
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


class TrialGame(Protocol):
    """A game as the legal-action trials (:class:`~rhineland.engine.legal.Trial`) use
    it: its checks, its own path of ``process`` and the state they set aside."""

    state: State[Any]
    leniencies: frozenset[str]
    position_memo: dict[Hashable, Any] | None

    @property
    def log(self) -> list[str]:
        """The game log."""

    def check(self, action: Action) -> bool:
        """The checks ``process`` makes first, on the state as it is."""

    def _apply(self, action: Action) -> None:
        """Apply ``action`` as ``process`` does, without its snapshot."""

    def truncate_log(self, length: int) -> None:
        """Drop the log lines after the first ``length``."""
