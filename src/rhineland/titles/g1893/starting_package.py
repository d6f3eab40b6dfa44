"""1893's Starting Package: the three privates and five minors the bank sells at their
prices, in the draft (:class:`rhineland.titles.g1893.rounds.StartingPackageDraft`), its
forced auction and, once those are over, in the stock rounds; a minor floats with its
treasury when bought.  In a stock round a player may buy an unsold item (or the next bond,
:mod:`rhineland.titles.g1893.bonds`) at face value: :func:`can_buy_company`; the purchase
itself is the stock round's company step
(:func:`rhineland.titles.g1893.stock_steps.buy_company_in_sr`).

Sources: seed ``001`` ("Starting Package") and the oracle traces.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rhineland.engine.entities import Player
from rhineland.errors import GameError
from rhineland.titles.g1893.bonds import BONDS, next_bond
from rhineland.titles.g1893.constants import MINOR_MIN_TREASURY, MINORS, PRIVATES
from rhineland.titles.g1893.state import cologne_state

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.rounds.stock import StockRound


def unsold_package(game: Game) -> list[str]:
    """Starting Package items (3 privates, 5 minors) the bank still owns, in package order."""
    return [
        s
        for s in PRIVATES + MINORS
        if game.private(s).owner == "bank" and not game.private(s).closed
    ]


def draftables(game: Game) -> list[str]:
    """On offer: every unsold private and the two lowest-numbered unsold minors."""
    unsold = unsold_package(game)
    privates = [s for s in unsold if s in PRIVATES]
    minors = [s for s in unsold if s in MINORS]
    return privates + minors[:2]


def check_package_payment(game: Game, player: Player, sym: str, price: int) -> None:
    """The check of :func:`buy_package_item`, before anything changes: ``player`` has
    ``price`` M.  Raises ``GameError`` (``"draft.cash"``)."""
    if player.cash < price:
        raise GameError(f"{player.name} has {player.cash}M, {sym} costs {price}M", "draft.cash")


def buy_package_item(game: Game, player: Player, sym: str, price: int) -> None:
    """``player`` buys a Starting Package item; a minor floats with its treasury
    (at least 100M: the bank adds the difference).  Raises ``GameError``
    (:func:`check_package_payment`)."""
    check_package_payment(game, player, sym, price)
    private = game.private(sym)
    game.pay(player, game.bank, price)
    private.owner = player.id
    player.companies.append(sym)
    game.add_log(f"{player.name} buys {sym} for {price}M")
    if sym in game.minors:
        minor = game.minors[sym]
        minor.owner = player.id
        minor.floated = True
        game.pay(game.bank, minor, max(price, MINOR_MIN_TREASURY))


def can_buy_company(game: Game, rnd: StockRound, player: Player) -> bool:
    """Whether ``player`` may buy an unsold Starting Package item or the next bond
    now: not a first-SR passer, no buy yet this turn, under the certificate limit,
    and one they can pay (no bond after selling one this round)."""
    if player.id in cologne_state(game).first_sr_passers or rnd.bought_this_turn:
        return False
    if rnd.cert_count(game, player) >= game.title.cert_limit(game):
        return False
    offered = unsold_package(game)
    if BONDS not in rnd.sold.get(player.id, set()):
        offered += next_bond(game)
    return any(game.private(s).spec.value <= player.cash for s in offered)
