"""1893's own rounds: the Starting Package draft and its forced auction (the merger round:
:mod:`rhineland.titles.g1893.mergers`).

Sources: seed ``001`` ("Starting Package", "Minor companies that merge via
shareholder vote") and the oracle traces of the reference engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rhineland.engine.actions import Action, Bid, Pass
from rhineland.engine.entities import Player
from rhineland.engine.rounds.base import Round, finish_round
from rhineland.errors import GameError
from rhineland.titles.g1893.starting_package import (
    buy_package_item,
    check_package_payment,
    draftables,
)
from rhineland.titles.g1893.state import cologne_state

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.legal.choices import Candidate


class StartingPackageDraft(Round):
    """The first round: in turn, each player buys one item of the Starting Package
    at its price (a ``bid``) or passes for good.  The three privates and the two
    lowest-numbered unsold minors are on offer.  The round ends when one item
    is left or every player has passed."""

    kind = "Draft"

    def __init__(self, turn: int) -> None:
        super().__init__(turn)
        self.index = 0
        self.passed: list[int] = []
        self.last_buyer: int | None = None

    def start(self, game: Game) -> None:
        """The draft starts with the first seat."""
        self.index = 0

    def current_entity(self, game: Game) -> Any:
        """The player at the current seat (players who passed are skipped)."""
        return game.seat_order()[self.index % len(game.seat_order())]

    def step_name(self, game: Game) -> str:
        """The reference engine's step name for the draft."""
        return "starting_package_initial_auction"

    def candidates(self, game: Game) -> list[Candidate]:
        """Buy an item on offer at its face value (a ``bid``), or pass."""
        pid = self.current_entity(game).id
        out: list[Candidate] = [
            Bid(entity=pid, company=s, price=game.private(s).spec.value)
            for s in draftables(game)
        ]
        out.append(Pass(entity=pid))
        return out

    def finished(self, game: Game) -> bool:
        """Whether one item or fewer is left on offer, or every player has passed (for good)."""
        return len(draftables(game)) <= 1 or len(self.passed) >= len(game.seat_order())

    def process(self, game: Game, action: Action) -> None:
        """A ``bid`` buys an item on offer at its face value; a ``pass`` is for good.

        docs/rules-differences.md 1893 (a).  Raises ``GameError`` (:meth:`check` alone).
        """
        self.check(game, action)
        player = self.expect_player(game, action)
        if isinstance(action, Bid):
            sym = str(action.company or action.minor)
            buy_package_item(game, player, sym, game.private(sym).spec.value)
            self.last_buyer = player.id
        else:
            self.passed.append(player.id)
            cologne_state(game).first_sr_passers.append(player.id)
            game.add_log(f"{player.name} passes")
        self._advance(game)

    def check(self, game: Game, action: Action) -> bool:
        """Every check of :meth:`process`, before anything changes (True: what follows
        refuses nothing): the player in turn (``turn.order``), an item on offer
        (``draft.item``) at its price (``draft.price``) that they can pay
        (``draft.cash``), or a pass (``draft.action`` for anything else)."""
        player = self.expect_player(game, action)
        if isinstance(action, Bid):
            sym = action.company or action.minor
            if sym not in draftables(game):
                raise GameError(
                    f"{sym} is not on offer (on offer: {', '.join(draftables(game))})",
                    "draft.item",
                )
            price = game.private(sym).spec.value
            if action.price != price:
                raise GameError(f"{sym} costs {price}M, not {action.price}M", "draft.price")
            check_package_payment(game, player, sym, price)
        elif not isinstance(action, Pass):
            raise GameError(f"{action.type} is not possible in the draft", "draft.action")
        return True

    def _advance(self, game: Game) -> None:
        if self.finished(game):
            finish_round(game, self)
            return
        order = game.seat_order()
        for _ in range(len(order)):
            self.index = (self.index + 1) % len(order)
            if order[self.index].id not in self.passed:
                return


class ForcedAuction(Round):
    """Unsold Starting Package items after an OR set (seed 001, rule case 1).

    The player in turn selects an item (a ``bid`` at its price); then each
    player in turn, the selector last, buys it at the current price or passes.
    When all pass the price drops by 10M; at half the face value the selector
    must buy (or the next player who can afford it).
    """

    kind = "Draft"

    def __init__(self, turn: int) -> None:
        super().__init__(turn)
        self.index = 0
        self.item: str | None = None
        self.selector: int | None = None
        self.passes: set[int] = set()
        self.reduction = 0
        self.last_buyer: int | None = None

    def current_entity(self, game: Game) -> Any:
        """The player at the current seat."""
        return game.seat_order()[self.index % len(game.seat_order())]

    def step_name(self, game: Game) -> str:
        """The reference engine's step name for the forced auction."""
        return "starting_package_forced_auction"

    def candidates(self, game: Game) -> list[Candidate]:
        """Select an item on offer (a ``bid`` at face value) or pass; once one is
        selected, buy it at the current price or pass."""
        pid = self.current_entity(game).id
        if self.item is not None:
            out: list[Candidate] = [Bid(entity=pid, company=self.item, price=self.price(game))]
        else:
            out = [Bid(entity=pid, company=s, price=game.private(s).spec.value)
                   for s in draftables(game)]
        out.append(Pass(entity=pid))
        return out

    def price(self, game: Game) -> int:
        """Current price (M) of the selected item: face value less the 10M drops so far."""
        assert self.item is not None
        return game.private(self.item).spec.value - self.reduction

    def process(self, game: Game, action: Action) -> None:
        """Select an item (a ``bid``), then buy it at the current price (``bid``) or ``pass``.

        docs/rules-differences.md 1893 (b).  Raises ``GameError`` [``draft.select``,
        ``draft.item``, ``draft.price``, ``draft.action``, ``turn.order``].
        """
        player = self.expect_player(game, action)
        if self.item is None:
            if not isinstance(action, Bid):
                raise GameError("select an item of the Starting Package first", "draft.select")
            sym = action.company or action.minor
            if sym not in draftables(game):
                raise GameError(f"{sym} is not on offer", "draft.item")
            self.item = sym
            self.selector = player.id
            self.reduction = 0
            self.passes = set()
            game.add_log(f"{player.name} selects {sym} for auction")
            self._next(game)
            return
        if isinstance(action, Bid):
            price = self.price(game)
            if action.price != price:
                raise GameError(
                    f"{self.item} costs {price}M now, not {action.price}M", "draft.price"
                )
            self._sold(game, player, price)
        elif isinstance(action, Pass):
            self.passes.add(player.id)
            if not self._all_passed(game):
                self._next(game)
        else:
            raise GameError(f"{action.type} is not possible in this auction", "draft.action")

    def _sold(self, game: Game, player: Player, price: int) -> None:
        assert self.item is not None
        buy_package_item(game, player, self.item, price)
        self.last_buyer = player.id
        selector = self.selector
        self.item = None
        self.selector = None
        if not draftables(game):
            finish_round(game, self)
            return
        order = game.seat_order()
        self.index = next(i for i, p in enumerate(order) if p.id == selector)
        self.index = (self.index + 1) % len(order)

    def _all_passed(self, game: Game) -> bool:
        """When every player has passed on the item: at half its face value (or below)
        someone must buy it (:meth:`_force`), else its price drops 10M and the offer goes
        on from the next seat (:meth:`_next`).  False while someone has not passed."""
        if len(self.passes) < len(game.seat_order()):
            return False
        half = game.private(str(self.item)).spec.value // 2
        if half >= self.price(game):
            self._force(game)
            return True
        self.reduction += 10
        self.passes = set()
        game.add_log(f"{self.item}'s price drops to {self.price(game)}M")
        self._next(game)
        return True

    def _next(self, game: Game) -> None:
        """Hand the offer to the next seat; a player who cannot pay the price passes at
        once.  Whether all have passed is asked at each seat the offer reaches (the
        reference engine's order): after a pass forced on the seat before, the offer
        moves on one seat further than after a pass of the player's own choosing
        (1893-bots-906 #55: two players at 155M, KBE selected at 220M, the offer comes
        back to the selector at 150M)."""
        order = game.seat_order()
        while True:
            self.index = (self.index + 1) % len(order)
            if self._all_passed(game):
                return
            p = order[self.index]
            if p.id not in self.passes and p.cash >= self.price(game):
                return
            self.passes.add(p.id)

    def _force(self, game: Game) -> None:
        order = game.seat_order()
        start = next(i for i, p in enumerate(order) if p.id == self.selector)
        price = self.price(game)
        for k in range(len(order)):
            p = order[(start + k) % len(order)]
            if p.cash >= price:
                self._sold(game, p, price)
                return
        first = order[start]
        self._sold(game, first, first.cash)
