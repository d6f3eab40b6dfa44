"""1893's bonds (AdSK): ten at 100M each, 10M income, bought from the bank in a stock
round (the lowest-numbered first) and sold back at face value, not in the first stock
round, never bought back in the round they were sold.  They count toward the
certificate limit.  Source: seed ``001``, the reference engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rhineland.engine.actions import SellCompany
from rhineland.engine.entities import Player
from rhineland.errors import GameError
from rhineland.titles.g1893.constants import is_bond

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.rounds.stock import StockRound

BONDS = "AdSK"
"""The bonds' key in a stock round's record of what each player sold (``rnd.sold``)."""


def next_bond(game: Game) -> list[str]:
    """The lowest-numbered bond still in the bank (a list of one), or ``[]``."""
    for p in game.privates.values():
        if is_bond(p.sym) and p.owner == "bank":
            return [p.sym]
    return []


def sell_bond(game: Game, rnd: StockRound, player: Player, action: SellCompany) -> None:
    """Sell a bond back to the bank for its face value (100M); not in the first SR.

    Selling comes before buying in a turn; the turn ends when the player can do nothing
    more (as after a share sale).  Raises ``GameError`` (:func:`check_sell_bond`).
    """
    check_sell_bond(game, rnd, player, action)
    sym = action.company
    private = game.private(sym)
    price = private.spec.value
    game.pay(game.bank, player, price)
    private.owner = "bank"
    player.companies.remove(sym)
    game.add_log(f"{player.name} sells {sym} for {price}M")
    rnd.sold_this_turn.append(sym)
    rnd.sold.setdefault(player.id, set()).add(BONDS)
    rnd.last_to_act = player.id
    if not game.title.can_act_in_stock_round(game, rnd, player):
        rnd.end_turn(game, player, passed=True)


def check_sell_bond(game: Game, rnd: StockRound, player: Player,
                    action: SellCompany) -> None:
    """The checks of :func:`sell_bond`, before anything changes.  Raises
    ``GameError`` [``stock.sell_company``, ``stock.sell_first_sr``,
    ``stock.sell_buy_order``]."""
    sym = action.company
    private = game.private(sym)
    if not is_bond(sym) or private.owner != player.id:
        raise GameError(f"{player.name} cannot sell {sym}", "stock.sell_company")
    if rnd.turn == 1:
        raise GameError("nothing is sold in the first stock round", "stock.sell_first_sr")
    if rnd.bought_this_turn:
        raise GameError("selling comes before buying in a turn", "stock.sell_buy_order")
