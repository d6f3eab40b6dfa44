"""1893's stock round steps, before the common buy/sell/par step.

In order (:data:`STOCK_STEPS`): a RAG par by the FdSD's owner waiting for how it
is paid (:class:`RagParPayment`, blocking: ``assign`` exchanges FdSD, ``pass``
pays cash); RAG's par by the FdSD's owner (:class:`RagParByFdsdOwner`); the
FdSD exchange for RAG shares, made by the private (:class:`FdsdExchange`);
buying EVA, a Starting Package item or a bond (:class:`BuyCompanyInSr`);
selling a bond (:class:`SellBond`); then the common step, where a pass in the
first SR makes the player a first-SR passer (:class:`G1893BuySellParShares`).
The rules themselves are the title's (:mod:`rhineland.titles.g1893.stock`).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

from rhineland.engine.actions import (
    Action,
    Assign,
    BuyCompany,
    BuyShares,
    Par,
    SellCompany,
    trusted,
)
from rhineland.engine.entities import MARKET
from rhineland.engine.legal.choices import AmountSpan
from rhineland.engine.rounds.stock import stock_round
from rhineland.engine.rounds.stock_steps import BuySellParShares
from rhineland.engine.steps import Step
from rhineland.errors import GameError
from rhineland.titles.g1893.bonds import BONDS, check_sell_bond, next_bond, sell_bond
from rhineland.titles.g1893.constants import is_bond
from rhineland.titles.g1893.eva import (
    buy_eva_from_player,
    check_buy_eva_from_player,
    eva_buyable_in_sr,
    eva_from_player,
    eva_price_bounds,
)
from rhineland.titles.g1893.fdsd import (
    check_fdsd_exchange,
    exchange_fdsd_for_par,
    fdsd_exchange,
    owns_fdsd,
    resolve_rag_par,
)
from rhineland.titles.g1893.starting_package import (
    buy_package_item,
    check_package_payment,
    unsold_package,
)
from rhineland.titles.g1893.state import cologne_state

if TYPE_CHECKING:
    from rhineland.engine.entities import Player
    from rhineland.engine.game import Game
    from rhineland.engine.legal.choices import Candidate
    from rhineland.engine.rounds.base import Round
    from rhineland.engine.rounds.stock import StockRound


class RagParPayment(Step):
    """After RAG's par by the FdSD's owner: how it is paid, before anything else."""

    name: ClassVar[str] = "rag_par_payment"

    def candidates(self, game: Game, rnd: Round, entity: Any) -> list[Candidate]:
        """While the payment is pending: FdSD pays (``assign``); a pass (cash) is the
        common step's."""
        if cologne_state(game).rag_par_pending is None:
            return []
        return [Assign(entity=entity.id, target="FdSD", target_type="company")]

    def takes(self, game: Game, rnd: Round, entity: Any, action: Action) -> bool:
        """Every action while the payment is pending."""
        return cologne_state(game).rag_par_pending is not None

    def apply(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """:meth:`CologneStock.resolve_rag_par`."""
        pending = cologne_state(game).rag_par_pending
        assert pending is not None
        resolve_rag_par(game, stock_round(rnd), action, pending)


class RagParByFdsdOwner(Step):
    """RAG's par by the FdSD's owner: with less cash than the par the FdSD is exchanged
    at once, else the payment is asked (docs/rules-differences.md 1893 (f))."""

    name: ClassVar[str] = "rag_par"

    def takes(self, game: Game, rnd: Round, entity: Any, action: Action) -> bool:
        """A par of RAG by the FdSD's owner."""
        return (isinstance(action, Par) and action.corporation == "RAG"
                and owns_fdsd(game, action.entity))

    def apply(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """Exchange and par, or ask for the payment."""
        assert isinstance(action, Par)
        title = game.title
        sr = stock_round(rnd)
        player = sr.expect_player(game, action)
        cell = title.par_cell(game, game.corporation("RAG"), action.share_price)
        if player.cash < cell.price * 2:
            exchange_fdsd_for_par(game, player, cell.price * 2)
            sr.par(game, player, action)
        else:
            cologne_state(game).rag_par_pending = (player.id, action.share_price)
            game.add_log(f"{player.name} may pay for RAG's par by exchanging FdSD")


class FdsdExchange(Step):
    """The FdSD (a private company) exchanged for RAG shares from the market."""

    name: ClassVar[str] = "fdsd_exchange"
    CHECKED: ClassVar[frozenset[str]] = frozenset({BuyShares.TYPE})

    def candidates(self, game: Game, rnd: Round, entity: Any) -> list[Candidate]:
        """The FdSD takes the first RAG share in the market."""
        rag = game.corporation("RAG")
        in_market = sorted((c for c in rag.certs_of(MARKET) if not c.president),
                           key=lambda c: c.index)
        if not in_market:
            return []
        return [trusted(BuyShares, entity="FdSD", entity_type="company",
                        shares=(in_market[0].id,), percent=in_market[0].percent)]

    def takes(self, game: Game, rnd: Round, entity: Any, action: Action) -> bool:
        """A share buy by a private company."""
        return isinstance(action, BuyShares) and action.entity_type == "company"

    def check(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """:meth:`CologneStock.check_fdsd_exchange`."""
        assert isinstance(action, BuyShares)
        check_fdsd_exchange(game, stock_round(rnd), action)

    def apply(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """:meth:`CologneStock.fdsd_exchange`."""
        assert isinstance(action, BuyShares)
        fdsd_exchange(game, stock_round(rnd), action)


class BuyCompanyInSr(Step):
    """EVA from its owner, an unsold Starting Package item or the next bond."""

    name: ClassVar[str] = "buy_company"
    CHECKED: ClassVar[frozenset[str]] = frozenset({BuyCompany.TYPE})

    def candidates(self, game: Game, rnd: Round, entity: Any) -> list[Candidate]:
        """Each unsold Starting Package item and the next bond at face value; EVA from
        another player (a price span up to the buyer's cash)."""
        out: list[Candidate] = [
            trusted(BuyCompany, entity=entity.id, company=s,
                    price=game.private(s).spec.value)
            for s in [*unsold_package(game), *next_bond(game)]
        ]
        eva = game.private("EVA")
        if (not eva.closed and isinstance(eva.owner, int) and eva.owner != entity.id
                and eva_buyable_in_sr(game, stock_round(rnd), entity)):
            out.append(AmountSpan(trusted(BuyCompany, entity=entity.id, company="EVA", price=1),
                                  "price", 1, max(entity.cash, 1), 1, (eva.spec.value,),
                                  frozenset({"stock.passed", "stock.one_buy", "stock.eva_alone"}),
                                  partial(eva_price_bounds, game, entity)))
        return out

    def takes(self, game: Game, rnd: Round, entity: Any, action: Action) -> bool:
        """``buy_company``."""
        return isinstance(action, BuyCompany)

    def check(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """By the player whose turn it is (``turn.order``):
        :meth:`CologneStock.check_buy_company_in_sr`."""
        assert isinstance(action, BuyCompany)
        sr = stock_round(rnd)
        player = sr.expect_player(game, action)
        check_buy_company_in_sr(game, sr, player, action)

    def apply(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """:meth:`CologneStock.buy_company_in_sr`, by the player whose turn it is."""
        assert isinstance(action, BuyCompany)
        sr = stock_round(rnd)
        player = sr.expect_player(game, action)
        buy_company_in_sr(game, sr, player, action)


class SellBond(Step):
    """A bond sold back to the bank."""

    name: ClassVar[str] = "sell_company"
    CHECKED: ClassVar[frozenset[str]] = frozenset({SellCompany.TYPE})

    def candidates(self, game: Game, rnd: Round, entity: Any) -> list[Candidate]:
        """Each bond the player holds, at face value."""
        return [trusted(SellCompany, entity=entity.id, company=s,
                        price=game.private(s).spec.value)
                for s in entity.companies if is_bond(s)]

    def takes(self, game: Game, rnd: Round, entity: Any, action: Action) -> bool:
        """``sell_company``."""
        return isinstance(action, SellCompany)

    def check(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """By the player whose turn it is (``turn.order``): :meth:`CologneStock.check_sell_bond`."""
        assert isinstance(action, SellCompany)
        sr = stock_round(rnd)
        player = sr.expect_player(game, action)
        check_sell_bond(game, sr, player, action)

    def apply(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """:meth:`CologneStock.sell_bond`, by the player whose turn it is."""
        assert isinstance(action, SellCompany)
        sr = stock_round(rnd)
        player = sr.expect_player(game, action)
        sell_bond(game, sr, player, action)


class G1893BuySellParShares(BuySellParShares):
    """As the common step; a pass in the first SR makes the player a first-SR passer
    (no share bought later in that round)."""

    CHECKED: ClassVar[frozenset[str]] = BuySellParShares.CHECKED  # its apply refuses no more

    def apply(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """Record a first-SR pass, then the common step."""
        if action.type == "pass" and game.state.turn == 1 and rnd.turn == 1:
            passers = cologne_state(game).first_sr_passers
            if isinstance(action.entity, int) and action.entity not in passers:
                passers.append(action.entity)
        super().apply(game, rnd, entity, action)


STOCK_STEPS: tuple[Step, ...] = (RagParPayment(), RagParByFdsdOwner(), FdsdExchange(),
                                 BuyCompanyInSr(), SellBond(), G1893BuySellParShares())
"""A 1893 stock round turn."""


def buy_company_in_sr(
    game: Game, rnd: StockRound, player: Player, action: BuyCompany
) -> None:
    """Buy EVA from its owner, an unsold Starting Package item or the next bond at face value.

    One buy per turn, none for a player who passed in the draft or earlier in SR 1; a
    package item or bond only under the certificate limit (privates and bonds count
    toward it), and no bond after selling one in the same round (reference engine).
    Raises ``GameError`` [``stock.passed``, ``stock.company``, ``stock.one_buy``,
    ``stock.cert_limit``, ``stock.bond_buy_back``, ``stock.company_price``,
    ``stock.cash``, ``draft.cash``]: :func:`check_buy_company_in_sr` alone.
    """
    check_buy_company_in_sr(game, rnd, player, action)
    sym = action.company
    if eva_from_player(game, player, sym):
        buy_eva_from_player(game, rnd, player, action)
        return
    buy_package_item(game, player, sym, game.private(sym).spec.value)
    rnd.bought_this_turn = True
    rnd.end_turn(game, player, passed=False)


def check_buy_company_in_sr(
    game: Game, rnd: StockRound, player: Player, action: BuyCompany
) -> None:
    """Every check of :func:`buy_company_in_sr`, before anything changes (its
    ``GameError`` rules)."""
    sym = action.company
    if player.id in cologne_state(game).first_sr_passers:
        raise GameError(f"{player.name} passed in the first stock round", "stock.passed")
    if is_bond(sym) and BONDS in rnd.sold.get(player.id, set()):
        raise GameError(
            f"{player.name} sold a bond this round and may not buy one back",
            "stock.bond_buy_back",
        )
    if eva_from_player(game, player, sym):
        check_buy_eva_from_player(game, rnd, player, action)
        return
    offered = unsold_package(game) + next_bond(game)
    if sym not in offered:
        raise GameError(
            f"{sym} is not for sale (for sale: {', '.join(offered)})", "stock.company"
        )
    if rnd.bought_this_turn:
        raise GameError(f"{player.name} has already bought this turn", "stock.one_buy")
    limit = game.title.cert_limit(game)
    if rnd.cert_count(game, player) >= limit:
        raise GameError(
            f"{player.name} holds {limit} certificates (privates and bonds count), the "
            "limit",
            "stock.cert_limit",
        )
    price = game.private(sym).spec.value
    if action.price != price:
        raise GameError(f"{sym} costs {price}M, not {action.price}M", "stock.company_price")
    check_package_payment(game, player, sym, price)
