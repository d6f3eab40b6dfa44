"""The stock round's declared steps (docs: ``design.md``, "Steps, declared").

A stock round turn is the title's ordered tuple of steps
(:meth:`rhineland.engine.rules_stock.StockRules.stock_steps`): the first step
that takes an action (:meth:`~rhineland.engine.steps.Step.takes`) checks and
applies it.  The default turn is one step, :class:`BuySellParShares` (the
trace's ``buy_sell_par_shares``): sell any number of certificates, then buy or
start one, or pass (rules in :mod:`rhineland.engine.rounds.stock`).  A title
puts its own steps before it (1893: RAG's par by the FdSD's owner, the FdSD
exchange, privates and bonds) or subclasses it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rhineland.engine.actions import Action, BuyShares, Par, Pass, SellShares
from rhineland.engine.legal.generate import share_candidates
from rhineland.engine.rounds.turns import stock_turn
from rhineland.engine.steps import Step
from rhineland.errors import GameError

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.legal.choices import Candidate
    from rhineland.engine.rounds.base import Round


class BuySellParShares(Step):
    """Sell (``stock.sell*``), buy (``stock.buy*``, ``stock.cert_limit``,
    ``stock.holding_limit``...), par (``stock.par``) or pass, by the player whose
    turn it is (``turn.order``)."""

    name: ClassVar[str] = "buy_sell_par_shares"
    CHECKED: ClassVar[frozenset[str]] = frozenset({Pass.TYPE, BuyShares.TYPE, SellShares.TYPE,
                                                   Par.TYPE})

    def actions(self, game: Game, rnd: Round, entity: Any) -> frozenset[str]:
        """``sell_shares``, ``buy_shares``, ``par``, ``pass``."""
        return frozenset({SellShares.TYPE, BuyShares.TYPE, Par.TYPE, Pass.TYPE})

    def candidates(self, game: Game, rnd: Round, entity: Any) -> list[Candidate]:
        """Pass, each par and certificate purchase, each sale bundle
        (:func:`rhineland.engine.legal.generate.share_candidates`)."""
        return share_candidates(game, entity)

    def takes(self, game: Game, rnd: Round, entity: Any, action: Action) -> bool:
        """Every action left by the steps before it (it refuses what it does not know:
        ``stock.action``)."""
        return True

    def check(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """The player whose turn it is (``turn.order``); the checks of a sale, buy or
        par made before anything changes (:meth:`StockRound.check_sell
        <rhineland.engine.rounds.stock.StockRound.check_sell>`, ``check_buy``,
        ``check_par``); ``stock.action`` for another action."""
        sr = stock_turn(rnd)
        player = sr.expect_player(game, action)
        if isinstance(action, SellShares):
            sr.check_sell(game, player, action)
        elif isinstance(action, BuyShares):
            sr.check_buy(game, player, action)
        elif isinstance(action, Par):
            sr.check_par(game, player, action)
        elif not isinstance(action, Pass):
            raise GameError(f"{action.type} is not possible in a stock round", "stock.action")

    def apply(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """The action, by the player whose turn it is."""
        sr = stock_turn(rnd)
        player = sr.expect_player(game, action)
        if isinstance(action, Pass):
            sr.pass_turn(game, player)
        elif isinstance(action, SellShares):
            sr.sell(game, player, action)
        elif isinstance(action, BuyShares):
            sr.buy(game, player, action)
        elif isinstance(action, Par):
            sr.par(game, player, action)
        else:
            raise GameError(f"{action.type} is not possible in a stock round", "stock.action")


BUY_SELL_PAR_SHARES = BuySellParShares()
DEFAULT_STOCK_STEPS: tuple[Step, ...] = (BUY_SELL_PAR_SHARES,)
"""The common stock round turn."""
