"""1893's EVA: the only private that changes hands between players (never to a company).

In a stock round its buyer names a price from 1M to their cash and pays it to the bank,
only beside another buy or sale they could make (this module); in an operating round
see :class:`rhineland.titles.g1893.steps.BuyEvaFromPlayer`.  It closes with the first
6-train.  Sources: seed ``001``, the reference engine (docs/rules-differences.md 1893 (g)).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rhineland.engine.actions import BuyCompany
from rhineland.engine.entities import Player
from rhineland.engine.rules_stock import StockRules
from rhineland.errors import GameError
from rhineland.titles.g1893.fdsd import owns_fdsd
from rhineland.titles.g1893.starting_package import can_buy_company
from rhineland.titles.g1893.state import cologne_state

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.rounds.stock import StockRound

EVA_MIN_PRICE = 1
"""The least price (M) EVA changes hands for between players."""


def eva_from_player(game: Game, player: Player, sym: str) -> bool:
    """Whether buying ``sym`` is buying EVA from another player."""
    eva = game.private("EVA")
    return (sym == "EVA" and isinstance(eva.owner, int) and eva.owner != player.id
            and not eva.closed)


def eva_price_bounds(game: Game, player: Player) -> tuple[int, int]:
    """The least and most price (M) :func:`buy_eva_from_player` accepts from
    ``player``: 1M up to their cash (its other checks do not look at the price)."""
    return EVA_MIN_PRICE, player.cash


def eva_buyable_in_sr(game: Game, rnd: StockRound, player: Player) -> bool:
    """Whether ``player`` may buy EVA from its owner in this stock-round turn: only
    beside another buy, par or sale they could make (a share, a par, a package item,
    a bond, RAG's par paid by FdSD, a share sale).  18xx.games skips the turn of a
    player whose only other choice would be EVA, and with only a bond sale or the
    FdSD exchange besides offers no EVA (refused: 1893-even-900 #210 beside a bond
    sale, 1893-web-911 #78 beside the exchange)."""
    if player.id in cologne_state(game).first_sr_passers or rnd.bought_this_turn:
        return False
    if can_buy_company(game, rnd, player) or game.title.can_sell_shares(game, rnd, player):
        return True
    if owns_fdsd(game, player.id) and not game.corporation("RAG").ipoed:
        return True
    return StockRules.can_buy_any(game.title, game, rnd, player)


def check_buy_eva_from_player(
    game: Game, rnd: StockRound, player: Player, action: BuyCompany
) -> None:
    """The checks of :func:`buy_eva_from_player`, before anything changes: a price
    within :func:`eva_price_bounds`, one buy per turn, beside another buy or sale
    (:func:`eva_buyable_in_sr`).  Raises ``GameError`` (``"stock.company_price"``,
    ``"stock.one_buy"``, ``"stock.eva_alone"``)."""
    if not rnd.bought_this_turn and not eva_buyable_in_sr(game, rnd, player):
        raise GameError(
            f"{player.name} may buy EVA in a stock round only beside a share, par, "
            "package item, bond or share sale they could make",
            "stock.eva_alone",
        )
    price = action.price
    least, most = eva_price_bounds(game, player)
    if not least <= price <= most:
        raise GameError(
            f"EVA's price must be between {EVA_MIN_PRICE}M and {player.name}'s "
            f"{player.cash}M, not {price}M",
            "stock.company_price",
        )
    if rnd.bought_this_turn:
        raise GameError(f"{player.name} has already bought this turn", "stock.one_buy")


def buy_eva_from_player(
    game: Game, rnd: StockRound, player: Player, action: BuyCompany
) -> None:
    """EVA is the only private that changes hands between players (seed 001); in a
    stock round the buyer names a price from 1M to their cash and pays it to the bank
    (reference engine; docs/rules-differences.md 1893 (g)).  Raises ``GameError``
    (:func:`check_buy_eva_from_player`)."""
    check_buy_eva_from_player(game, rnd, player, action)
    eva = game.private("EVA")
    price = action.price
    seller = game.player(int(eva.owner))  # type: ignore[arg-type]
    seller.companies.remove("EVA")
    game.pay(player, game.bank, price)
    eva.owner = player.id
    player.companies.append("EVA")
    game.add_log(f"{player.name} buys EVA from {seller.name} for {price}M")
    rnd.bought_this_turn = True
    rnd.end_turn(game, player, passed=False)
