"""What a round's steps see of the round they run in: typed views, no round classes.

A step receives the round as :class:`~rhineland.engine.rounds.base.Round`.  The
stock steps and the legal-action generator read a stock round through
:class:`StockTurn`, which :class:`~rhineland.engine.rounds.stock.StockRound`
satisfies (checked by mypy where it is defined); the operating steps take the
operating round by its kind.  So neither imports the round that calls it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    from rhineland.engine.actions import Action, BuyShares, Par, SellShares
    from rhineland.engine.entities import Certificate, Corporation, Player
    from rhineland.engine.game import Game
    from rhineland.engine.rounds.base import Round
    from rhineland.engine.rounds.operating import OperatingRound


class StockTurn(Protocol):
    """A stock round as its steps use it: whose turn, the checks and the moves of a
    sale, buy and par (rules in :mod:`rhineland.engine.rounds.stock`)."""

    def expect_player(self, game: Game, action: Action) -> Any:
        """The acting player; ``GameError`` when it is not their turn."""

    def check_buy_corporation(self, game: Game, player: Player, corp: Corporation) -> bool:
        """Whether a buy of ``corp`` is limited (``GameError`` when refused)."""

    def check_cert_room(self, game: Game, player: Player, count: int) -> None:
        """``GameError`` when ``count`` more certificates pass the limit."""

    def check_sell(self, game: Game, player: Player,
                   action: SellShares) -> tuple[Corporation, list[Certificate]]:
        """The sale checks: the corporation and certificates sold."""

    def check_buy(self, game: Game, player: Player,
                  action: BuyShares) -> tuple[Corporation, list[Certificate], str, int]:
        """The buy checks: corporation, certificates, source, price (M)."""

    def check_par(self, game: Game, player: Player, action: Par) -> Corporation:
        """The par checks: the corporation started."""

    def sell(self, game: Game, player: Player, action: SellShares) -> None:
        """Sell as checked."""

    def buy(self, game: Game, player: Player, action: BuyShares) -> None:
        """Buy as checked."""

    def par(self, game: Game, player: Player, action: Par) -> None:
        """Par as checked."""

    def pass_turn(self, game: Game, player: Player) -> None:
        """The player passes."""


def stock_turn(rnd: Round) -> StockTurn:
    """``rnd``, a stock round, as its steps see it."""
    assert rnd.kind == "Stock", rnd.kind
    return cast("StockTurn", rnd)


def operating_turn(rnd: Round) -> OperatingRound:
    """``rnd``, an operating round (checked by its kind, without importing its class:
    :mod:`rhineland.engine.rounds.operating` imports the steps)."""
    assert rnd.kind == "Operating", rnd.kind
    return cast("OperatingRound", rnd)
