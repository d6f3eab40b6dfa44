"""1893's declared steps (:class:`rhineland.engine.steps.Step`).

The OR turn (:data:`STEPS`): EVA from a player (open all turn), track, token
(none for minors), route, dividend (a minor pays half to its owner and keeps
half: seed 001, "Minor companies"), buy trains (a president who cannot pay
goes bankrupt and the game ends: :class:`G1893BuyTrain`).

:class:`BuyEvaFromPlayer`: during the whole of a company's OR turn (a
non-blocking step beside track, token, route, dividend and trains), the
operating minor or corporation may buy EVA for its owner or president from
another player (seed 001: EVA is the only private that changes hands between
players; the reference engine's OR company-purchase step).  18xx.games's
interface offers half to twice EVA's face value (75..300M), capped at the
president's cash (only that cash when it is less); after EVA's first OR sale it
offers 1M up to what that buyer had (:func:`eva_or_price_bounds`).  Its engine
takes any price from 1M to the president's cash: an export replay accepts the
rest under the leniency ``or.eva_price``.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

from rhineland.engine.actions import Action, Bankrupt, BuyCompany, BuyTrain, trusted
from rhineland.engine.entities import Minor, Player
from rhineland.engine.rounds.operating_steps import (
    ROUTE,
    TRACK,
    BuyTrainStep,
    DividendStep,
    TokenStep,
)
from rhineland.engine.steps import Step
from rhineland.errors import GameError
from rhineland.titles.g1893.eva import EVA_MIN_PRICE
from rhineland.titles.g1893.minors import minor_half_pay
from rhineland.titles.g1893.state import cologne_state

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.legal.choices import Candidate
    from rhineland.engine.rounds.base import Round
    from rhineland.engine.rounds.operating import OperatingRound

EVA = "EVA"

def eva_seller(game: Game, buyer: Player) -> Player | None:
    """The player ``buyer`` may buy EVA from: its owner, when EVA is open, owned by a
    player and not by ``buyer``; else ``None``."""
    eva = game.private(EVA)
    if eva.closed or not isinstance(eva.owner, int) or eva.owner == buyer.id:
        return None
    return game.player(eva.owner)


def eva_or_price_bounds(game: Game, buyer: Player) -> tuple[int, int] | None:
    """The least and most price (M) 18xx.games's interface offers ``buyer`` for EVA in
    an OR: its span (half to twice the face value, or after an OR sale 1M up to that
    buyer's cash, :attr:`CologneState.eva_or_price`) capped at ``buyer``'s cash; only
    that cash when it is below the span (the price box's default), ``None`` at 0M."""
    span = cologne_state(game).eva_or_price
    if span is None:
        value = game.private(EVA).spec.value
        span = (-(-value // 2), value * 2)
    least, most = span[0], min(span[1], buyer.cash)
    if most < least:
        least = most
    return (least, most) if most >= EVA_MIN_PRICE else None


class BuyEvaFromPlayer(Step):
    """The operator's owner/president buys EVA from another player (open all turn)."""

    name: ClassVar[str] = "buy_company"
    CHECKED: ClassVar[frozenset[str]] = frozenset({BuyCompany.TYPE})
    blocks: ClassVar[bool] = False

    def buyer(self, game: Game, entity: Any) -> Player | None:
        """The player who pays for and receives EVA: the operator's owner or president."""
        owners = game.entity_owner_ids(entity)
        return game.player(owners[0]) if owners else None

    def actions(self, game: Game, rnd: Round, entity: Any) -> frozenset[str]:
        """``buy_company`` while EVA can be bought from another player."""
        buyer = self.buyer(game, entity)
        if buyer is None or eva_seller(game, buyer) is None:
            return frozenset()
        return frozenset({BuyCompany.TYPE})

    def takes(self, game: Game, rnd: Round, entity: Any, action: Action) -> bool:
        """A ``buy_company`` while :meth:`actions` offers it (asked only for one: the
        round asks every action whether this step takes it)."""
        return action.type == BuyCompany.TYPE and super().takes(game, rnd, entity, action)

    def candidates(self, game: Game, rnd: Round, entity: Any) -> list[Candidate]:
        """Buying EVA at the prices the interface offers (:func:`eva_or_price_bounds`)."""
        from rhineland.engine.legal.choices import AmountSpan
        from rhineland.engine.legal.generate import entity_type

        buyer = self.buyer(game, entity)
        bounds = eva_or_price_bounds(game, buyer) if buyer is not None else None
        if bounds is None:
            return []
        return [AmountSpan(
            trusted(BuyCompany, entity=entity.sym, entity_type=entity_type(entity),
                    company=EVA, price=bounds[0]), "price", bounds[0], bounds[1], 1,
            (bounds[0],), frozenset({"or.step"}),
            partial(self.price_bounds, game, entity))]

    def price_bounds(self, game: Game, entity: Any) -> tuple[int, int]:
        """The least and most price (M) of EVA that :meth:`check` accepts without a
        leniency (:func:`eva_or_price_bounds`; an empty span at 0M)."""
        buyer = self.buyer(game, entity)
        assert buyer is not None  # actions() is not empty
        return eva_or_price_bounds(game, buyer) or (EVA_MIN_PRICE, 0)

    def check(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """The operator itself buys EVA at a price the interface offers
        (:meth:`price_bounds`); 18xx.games's engine takes 1M up to the president's
        cash, accepted in an export replay under the leniency ``or.eva_price``.

        Raises ``GameError`` [``turn.order``, ``or.buy_company``, ``or.company_price``,
        ``or.eva_price``].
        """
        assert isinstance(action, BuyCompany)
        if action.entity != entity.sym:
            raise GameError(
                f"it is {entity.sym}'s turn in {rnd.label}, not {action.entity_type} "
                f"{action.entity!r}",
                "turn.order",
            )
        if action.company != EVA:
            raise GameError(
                f"{entity.sym} may buy only EVA from a player, not {action.company}",
                "or.buy_company",
            )
        buyer = self.buyer(game, entity)
        assert buyer is not None  # actions() is not empty
        if not EVA_MIN_PRICE <= action.price <= buyer.cash:
            raise GameError(
                f"EVA's price must be between {EVA_MIN_PRICE}M and {buyer.name}'s "
                f"{buyer.cash}M, not {action.price}M",
                "or.company_price",
            )
        least, most = self.price_bounds(game, entity)
        if not least <= action.price <= most:
            game.lenient(
                f"EVA is offered to {buyer.name} for {least}M to {most}M in this OR, "
                f"not {action.price}M",
                "or.eva_price",
            )

    def apply(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """EVA passes from its owner to the buyer, who pays the owner the price; the
        interface then offers EVA in an OR for 1M up to the buyer's cash before paying."""
        assert isinstance(action, BuyCompany)
        buyer = self.buyer(game, entity)
        assert buyer is not None
        seller = eva_seller(game, buyer)
        assert seller is not None
        seller.companies.remove(EVA)
        buyer.companies.append(EVA)
        game.private(EVA).owner = buyer.id
        cologne_state(game).eva_or_price = (EVA_MIN_PRICE, buyer.cash)
        game.pay(buyer, seller, action.price)
        game.add_log(
            f"{entity.sym}: {buyer.name} buys EVA from {seller.name} for {action.price}M"
        )


BUY_EVA_FROM_PLAYER = BuyEvaFromPlayer()


class G1893Token(TokenStep):
    """Minors place no token (seed 001, "Minor companies")."""

    CHECKED: ClassVar[frozenset[str]] = TokenStep.CHECKED  # its apply refuses no more

    def applicable(self, game: Game, rnd: OperatingRound, entity: Any) -> bool:
        """As the default, never for a minor."""
        return not isinstance(entity, Minor) and super().applicable(game, rnd, entity)


class G1893Dividend(DividendStep):
    """A minor does not choose: it pays half its revenue to its owner and keeps half
    (its skipped step, after a run)."""

    CHECKED: ClassVar[frozenset[str]] = DividendStep.CHECKED  # its apply refuses no more

    def applicable(self, game: Game, rnd: OperatingRound, entity: Any) -> bool:
        """As the default, never for a minor."""
        return not isinstance(entity, Minor) and super().applicable(game, rnd, entity)

    def skip(self, game: Game, rnd: OperatingRound, entity: Any) -> None:
        """A minor that ran pays half (:meth:`G1893.minor_half_pay`); a corporation
        withholds 0M."""
        if isinstance(entity, Minor):
            if rnd.route_results:
                minor_half_pay(game, entity, rnd.revenue)
            return
        super().skip(game, rnd, entity)


class G1893BuyTrain(BuyTrainStep):
    """A president who cannot pay for a train even after selling all they may goes
    bankrupt: their cash goes to the bank and the game ends at once (seed 001)."""

    CHECKED: ClassVar[frozenset[str]] = BuyTrainStep.CHECKED | {Bankrupt.TYPE}
    """As the default's (its apply refuses no more), and a bankruptcy: once
    :meth:`check_bankrupt` allows it, :meth:`bankrupt` sells, pays and ends the game,
    refusing nothing (the legal-action trials then need no copy of the state)."""

    def candidates(self, game: Game, rnd: Round, entity: Any) -> list[Candidate]:
        """As the default, and trade-ins: an own train for a train for sale from the
        depot or the open market (``available_depot_trains``) at its discount."""
        from rhineland.engine.legal.generate import entity_type, train_candidates

        depot = game.title.available_depot_trains(game)
        out = train_candidates(game, entity, depot)  # the default's (asked once)
        for new in depot:
            for old in entity.trains:
                discount = (new.spec.discount or {}).get(old.name)
                if discount is None:
                    continue
                out.append(trusted(BuyTrain, entity=entity.sym,
                                   entity_type=entity_type(entity), train=new.id,
                                   price=new.spec.price - discount, variant=new.name,
                                   exchange=old.id))
        return out

    def check_bankrupt(self, game: Game, rnd: OperatingRound, entity: Any,
                       action: Bankrupt) -> None:
        """The checks of :meth:`bankrupt`, before anything changes: a president, a train
        the company must buy and cannot pay.  Raises ``GameError`` (``"bankrupt.when"``,
        ``"bankrupt.not_needed"``, :func:`~rhineland.engine.emergency.check_may_go_bankrupt`'s
        rules)."""
        from rhineland.engine.emergency import check_may_go_bankrupt

        owners = game.entity_owner_ids(entity)
        if not owners:
            raise GameError(f"{action.entity} cannot declare bankruptcy now", "bankrupt.when")
        if not game.title.must_buy_train(game, entity):
            raise GameError(f"{entity.sym} is not obliged to buy a train", "bankrupt.not_needed")
        check_may_go_bankrupt(game, entity, game.player(owners[0]))

    def bankrupt(self, game: Game, rnd: OperatingRound, entity: Any, action: Bankrupt) -> None:
        """The president goes bankrupt: first they sell, per corporation, the largest
        bundle they may (:func:`~rhineland.engine.emergency.emergency_bundles`; each
        sale moves the share price down as any sale), then their cash goes to the bank
        and the game ends (the reference engine's bankruptcy step).  Raises
        ``GameError`` (``"bankrupt.when"``, ``"bankrupt.not_needed"``, and
        :func:`~rhineland.engine.emergency.check_may_go_bankrupt`'s rules:
        :meth:`check_bankrupt`)."""
        from rhineland.engine.emergency import emergency_bundles
        from rhineland.engine.rounds.stock import sell_certificates

        self.check_bankrupt(game, rnd, entity, action)
        player = game.player(game.entity_owner_ids(entity)[0])
        for corp, certs, percent in emergency_bundles(game, entity, player):
            sell_certificates(game, player, corp, certs, percent)
        game.pay(player, game.bank, player.cash)
        player.bankrupt = True
        game.add_log(f"{player.name} goes bankrupt: the game ends")
        st = game.state
        st.finished = True
        st.end_trigger = ("bankrupt", "immediate")
        st.game_end_reason = "bankrupt"
        st.ended_mid_round = True


STEPS: tuple[Step, ...] = (BUY_EVA_FROM_PLAYER, TRACK, G1893Token(), ROUTE, G1893Dividend(),
                           G1893BuyTrain())
"""A 1893 OR turn."""
