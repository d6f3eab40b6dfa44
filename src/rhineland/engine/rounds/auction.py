"""The waterfall auction of the private companies (18Rhl's initial packet).

In turn order a player either buys the cheapest remaining item at its current
price (a ``bid`` at that price), bids on another item (at least its face value
plus the minimum increment, or the highest bid on it plus the increment; a
player's open bids may not exceed their cash), or passes.  When the cheapest
item is sold, the next cheapest is resolved at once if it has bids: a single
bidder buys at their bid, several bidders auction it among themselves: the
lowest bidder raises above the highest bid or drops out, until one is left.
When every player passes in a row, the cheapest item's price drops by the
increment (at 0 the next player takes it); once the cheapest of the packet is
sold, the privates pay their income instead.  Source: 18Rhl
seed ``000`` ("Stock round 1: first the initial packet"), oracle traces, the
reference's waterfall auction (the lowest bidder acts).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from rhineland.engine.actions import Action, Bid, Par, Pass
from rhineland.engine.entities import Player
from rhineland.engine.legal.choices import AmountSpan
from rhineland.engine.legal.generate import par_actions
from rhineland.engine.rounds.base import Round, finish_round
from rhineland.engine.steps import Step
from rhineland.errors import GameError

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.legal.choices import Candidate


@dataclass
class _Item:
    sym: str
    value: int
    discount: int = 0
    bids: dict[int, int] = field(default_factory=dict)  # player id -> price

    @property
    def price(self) -> int:
        return max(self.value - self.discount, 0)


class AuctionStep(Step):
    """A declared step of the waterfall auction: active or not; when active it takes
    every action (and refuses what its rules do not allow)."""

    def active(self, game: Game, rnd: WaterfallAuction) -> bool:
        """Whether the step is the round's current one."""
        return True

    def takes(self, game: Game, rnd: Round, entity: Any, action: Action) -> bool:
        """Every action while active."""
        assert isinstance(rnd, WaterfallAuction)
        return self.active(game, rnd)


class CompanyPendingPar(AuctionStep):
    """The buyer of a president's certificate (18Rhl: RhE's director's certificate)
    sets its par before anything else (``auction.par``...)."""

    name: ClassVar[str] = "company_pending_par"

    def active(self, game: Game, rnd: WaterfallAuction) -> bool:
        """While a par is owed."""
        return rnd.pending_par is not None

    def actions(self, game: Game, rnd: Round, entity: Any) -> frozenset[str]:
        """``par``."""
        return frozenset({Par.TYPE})

    def candidates(self, game: Game, rnd: Round, entity: Any) -> list[Candidate]:
        """The owed par's cells (a ladder by price)."""
        assert isinstance(rnd, WaterfallAuction) and rnd.pending_par is not None
        pid, sym = rnd.pending_par
        return [par_actions(game, game.player(pid), game.corporation(sym))]

    def apply(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """:meth:`WaterfallAuction.process_par`."""
        assert isinstance(rnd, WaterfallAuction)
        rnd.process_par(game, action)


class WaterfallBidding(AuctionStep):
    """Buy the cheapest item, bid on another, pass; in a running auction of an item
    raise or drop out (``auction.*``; module docstring)."""

    name: ClassVar[str] = "waterfall_auction"

    def actions(self, game: Game, rnd: Round, entity: Any) -> frozenset[str]:
        """``bid`` and ``pass``."""
        return frozenset({Bid.TYPE, Pass.TYPE})

    def candidates(self, game: Game, rnd: Round, entity: Any) -> list[Candidate]:
        """Buy the cheapest item at its price, bid on another (a span up to the cash not
        committed), pass; in a running auction: raise (a span) or drop out."""
        assert isinstance(rnd, WaterfallAuction)
        player: Player = entity
        out: list[Candidate] = []
        items = [rnd.auction] if rnd.auction is not None else list(rnd.items)
        for item in items:
            if item is None:
                continue
            free = player.cash - rnd.committed(player.id) + item.bids.get(player.id, 0)
            if rnd.auction is None and item is rnd.cheapest():
                out.append(Bid(entity=player.id, company=item.sym, price=item.price))
                continue
            top = max(item.bids.values(), default=item.value)
            out.append(AmountSpan(Bid(entity=player.id, company=item.sym, price=0), "price",
                                  0, free, 1, (top + rnd.increment, item.value)))
        out.append(Pass(entity=player.id))
        return out

    def apply(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """:meth:`WaterfallAuction.bid_or_pass`."""
        assert isinstance(rnd, WaterfallAuction)
        rnd.bid_or_pass(game, action)


class WaterfallAuction(Round):
    """The initial packet auction; see the module docstring for the rules."""

    kind = "Auction"
    steps: ClassVar[tuple[AuctionStep, ...]] = (CompanyPendingPar(), WaterfallBidding())
    """The declared steps, the first active one processes (a title's subclass may
    replace them)."""

    def __init__(self, turn: int, items: list[tuple[str, int]], increment: int) -> None:
        super().__init__(turn)
        self.items = [_Item(sym, value) for sym, value in items]
        self.first_sym = self.items[0].sym if self.items else ""
        self.increment = increment
        self.current: int | None = None
        self.passes = 0
        self.auction: _Item | None = None
        self.auction_turn: int | None = None
        self.resume: int | None = None
        self.pending_par: tuple[int, str] | None = None  # (player id, corporation)
        self.last_buyer: int | None = None

    def start(self, game: Game) -> None:
        """The auction opens with the first player in seat order."""
        self.current = game.seat_order()[0].id

    # -- views ---------------------------------------------------------------------
    def current_entity(self, game: Game) -> Any:
        """The player to act: the buyer who owes a par, else the next bidder in a
        running auction, else the player in turn."""
        if self.pending_par is not None:
            return game.player(self.pending_par[0])
        if self.auction is not None:
            assert self.auction_turn is not None
            return game.player(self.auction_turn)
        assert self.current is not None
        return game.player(self.current)

    def step_name(self, game: Game) -> str:
        """The active declared step: ``"company_pending_par"`` while a bought
        certificate's par is owed (18Rhl RhE), else ``"waterfall_auction"``."""
        return self.active_step(game).name

    def candidates(self, game: Game) -> list[Candidate]:
        """The active step's candidates for the player to act."""
        return self.active_step(game).candidates(game, self, self.current_entity(game))

    def active_step(self, game: Game) -> AuctionStep:
        """The first of :attr:`steps` that is active now."""
        return next(s for s in self.steps if s.active(game, self))

    def priority_player(self, game: Game) -> Player:
        """Priority: the player after the last one who bought the cheapest item."""
        if self.last_buyer is None:
            return game.seat_order()[0]
        return game.next_player(game.player(self.last_buyer))

    def cheapest(self) -> _Item | None:
        """The first remaining item (the cheapest: items come sorted by face value),
        or ``None`` when all are sold."""
        return self.items[0] if self.items else None

    def committed(self, pid: int) -> int:
        """M a player has bid on items not yet resolved."""
        return sum(i.bids.get(pid, 0) for i in self.items)

    # -- processing -----------------------------------------------------------------
    def process(self, game: Game, action: Action) -> None:
        """Apply the action in the active declared step (:attr:`steps`: the owed par,
        else a bid or pass); the round ends when every item is sold.  Raises
        ``GameError`` (``"auction.*"``, ``"turn.order"``) when illegal."""
        step = self.active_step(game)
        step.process(game, self, self.current_entity(game), action)

    def bid_or_pass(self, game: Game, action: Action) -> None:
        """A bid or pass in the auction (:class:`WaterfallBidding`)."""
        player = self.expect_player(game, action)
        if self.auction is not None:
            self._process_auction(game, player, action)
        elif isinstance(action, Bid):
            self._process_bid(game, player, action)
        elif isinstance(action, Pass):
            self._process_pass(game, player)
        else:
            raise GameError(
                f"{action.type} is not possible in the initial packet auction (bid or pass)",
                "auction.action",
            )

    def _item(self, sym: str | None) -> _Item:
        for i in self.items:
            if i.sym == sym:
                return i
        raise GameError(f"{sym!r} is not for sale in the initial packet", "auction.item")

    def _process_bid(self, game: Game, player: Player, action: Bid) -> None:
        item = self._item(action.company)
        cheapest = self.cheapest()
        assert cheapest is not None
        if item is cheapest:
            # the cheapest item is bought at once, at its price or a higher bid
            if action.price < item.price:
                raise GameError(
                    f"the cheapest item {item.sym} costs {item.price}M, not {action.price}M",
                    "auction.buy_price",
                )
            if action.price > item.price:
                # the reference's interface offers the cheapest item at its price only
                game.lenient(
                    f"the cheapest item {item.sym} is bought at its price {item.price}M, "
                    f"not {action.price}M",
                    "auction.buy_price",
                )
            if player.cash - self.committed(player.id) < action.price:
                raise GameError(
                    f"{player.name} has {player.cash}M (less open bids), {item.sym} costs "
                    f"{action.price}M",
                    "auction.cash",
                )
            self.passes = 0
            self.last_buyer = player.id
            self.resume = game.next_player(player).id
            self._sell(game, item, player, action.price)
            self._resolve(game)
            return
        minimum = max(item.bids.values(), default=item.value) + self.increment
        if not item.bids:
            minimum = game.title.min_first_bid(game, item.sym, item.value, self.increment)
        self._place_bid(game, player, item, action.price, minimum)
        self.passes = 0
        self.current = game.next_player(player).id

    def _place_bid(self, game: Game, player: Player, item: _Item, price: int,
                   minimum: int) -> None:
        """Record ``player``'s bid of ``price`` M on ``item`` (at least ``minimum`` M; a
        player's open bids may not exceed their cash)."""
        if price < minimum:
            raise GameError(
                f"a bid on {item.sym} must be at least {minimum}M, not {price}M",
                "auction.min_bid",
            )
        available = player.cash - self.committed(player.id) + item.bids.get(player.id, 0)
        if price > available:
            raise GameError(
                f"{player.name} can bid at most {available}M (cash {player.cash}M less open "
                f"bids), not {price}M",
                "auction.cash",
            )
        item.bids[player.id] = price
        game.add_log(f"{player.name} bids {price}M for {item.sym}")

    def _process_pass(self, game: Game, player: Player) -> None:
        game.add_log(f"{player.name} passes")
        self.passes += 1
        self.current = game.next_player(player).id
        if self.passes >= len(game.seat_order()):
            self.passes = 0
            self._all_passed(game)

    def _all_passed(self, game: Game) -> None:
        """Every player passed in a row.  While the first item (the cheapest of the
        packet) is unsold its price drops; at 0M the next player takes it for free and
        the turn goes on after them.  Once it is sold, the privates sold so far pay
        their income instead, as in an operating round (the reference engine)."""
        first = self.items[0]
        if first.sym != self.first_sym:
            game.add_log("Everyone passed: the private companies pay their income")
            game.title.pay_private_income(game)
            return
        first.discount += game.title.auction_price_drop(game, first.sym)
        game.add_log(f"{first.sym}'s price drops to {first.price}M")
        if first.price > 0:
            return
        assert self.current is not None
        taker = game.player(self.current)
        self.resume = game.next_player(taker).id
        self._sell(game, first, taker, 0)
        self._resolve(game)

    def _process_auction(self, game: Game, player: Player, action: Action) -> None:
        item = self.auction
        assert item is not None
        if isinstance(action, Pass):
            del item.bids[player.id]
            game.add_log(f"{player.name} drops out of the auction for {item.sym}")
        elif isinstance(action, Bid):
            if action.company != item.sym:
                raise GameError(
                    f"{item.sym} is being auctioned; a bid on {action.company} is not possible",
                    "auction.item",
                )
            minimum = max(item.bids.values()) + self.increment
            self._place_bid(game, player, item, action.price, minimum)
        else:
            raise GameError(f"{action.type} is not possible during an auction", "auction.action")
        if len(item.bids) == 1:
            (winner, price), = item.bids.items()
            self.auction = None
            self.auction_turn = None
            self._sell(game, item, game.player(winner), price)
            self._resolve(game)
            return
        self.auction_turn = self._lowest_bidder(item)

    @staticmethod
    def _lowest_bidder(item: _Item) -> int:
        """Who acts in an auction: the bidder whose bid is now the lowest (each bid
        tops the highest, so bids never tie); they raise or drop out."""
        return min(item.bids, key=lambda pid: item.bids[pid])

    def _sell(self, game: Game, item: _Item, player: Player, price: int) -> None:
        self.items.remove(item)
        game.pay(player, game.bank, price)
        private = game.private(item.sym)
        private.owner = player.id
        player.companies.append(item.sym)
        game.add_log(f"{player.name} buys {item.sym} for {price}M")
        par_corp = game.title.on_private_bought(game, player, private, price)
        if par_corp is not None:
            self.pending_par = (player.id, par_corp)

    def _resolve(self, game: Game) -> None:
        """Sell items with bids in order; start an auction where several players bid."""
        while self.pending_par is None and self.items:
            item = self.items[0]
            if not item.bids:
                break
            if len(item.bids) == 1:
                (winner, price), = item.bids.items()
                self._sell(game, item, game.player(winner), price)
                continue
            self.auction = item
            self.auction_turn = self._lowest_bidder(item)
            return
        if self.pending_par is None:
            self.current = self.resume if self.resume is not None else self.current
            if not self.items:
                finish_round(game, self)

    def process_par(self, game: Game, action: Action) -> None:
        """The owed par of the certificate just bought (:class:`CompanyPendingPar`)."""
        assert self.pending_par is not None
        pid, sym = self.pending_par
        if not isinstance(action, Par) or action.entity != pid:
            raise GameError(
                f"{game.player(pid).name} must set the par price of {sym} first",
                "auction.pending_par",
            )
        if action.corporation != sym:
            raise GameError(f"the par price to set is {sym}'s, not {action.corporation}'s",
                            "auction.pending_par")
        game.title.par_corporation(game, game.player(pid), game.corporation(sym),
                                   action.share_price)
        self.pending_par = None
        self._resolve(game)
