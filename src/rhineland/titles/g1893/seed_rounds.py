"""1893's Starting Package as seed 001 states it (the ``seed`` rule set).

Seed 001, comparison §2: "in turn, each player may buy the topmost card in the
package, buy the cheapest available minor company, or pass. If everyone passes
without buying the first still-available card, its price drops by 5 Mark and it is
offered again, and so on until someone buys it."  The summary: the Starting Package
"is bought through sequential offers with a price drop if everyone passes, instead of
an ascending auction".

* The package is in the seed's order: FdSD, EVA, HdSK, then minors 1-5 (EKB, KFBE,
  KSZ, KBE, BKB); the topmost card is the first one unsold.
* The cheapest available minor is the unsold minor of the lowest price (the
  lowest-numbered of equal price), at face value.
* A pass is not for good.  When every player has passed in a row, the topmost card's
  price drops by 5M (a buy starts the count again); the next card starts at its face
  value.
* The seed leaves open what happens at 0M: here the player in turn must then take the
  topmost card (or the cheapest minor) — a pass is refused (``draft.must_take``), so the
  round ends.  A minor bought below 100M still receives 100M (the reference's rule;
  the seed is silent).
* The round ends when the package is sold out; the first stock round follows, led by
  the player after the last buyer, and nobody sits it out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rhineland.engine.actions import Action, Bid, Pass
from rhineland.engine.rounds.base import finish_round
from rhineland.errors import GameError
from rhineland.titles.g1893.constants import MINORS
from rhineland.titles.g1893.rounds import StartingPackageDraft
from rhineland.titles.g1893.starting_package import buy_package_item, unsold_package

if TYPE_CHECKING:
    from rhineland.engine.game import Game

PRICE_DROP = 5
"""M by which the topmost card's price drops after a lap of passes (seed 001)."""


class SeedPackageRound(StartingPackageDraft):
    """The Starting Package by sequential offers (module docstring)."""

    def __init__(self, turn: int) -> None:
        super().__init__(turn)
        self.reduction = 0
        self.passes_in_row = 0

    def topmost(self, game: Game) -> str | None:
        """The first unsold card of the package, ``None`` when sold out."""
        unsold = unsold_package(game)
        return unsold[0] if unsold else None

    def cheapest_minor(self, game: Game) -> str | None:
        """The unsold minor of the lowest price (the first of equal price)."""
        minors = [s for s in unsold_package(game) if s in MINORS]
        if not minors:
            return None
        return min(minors, key=lambda s: game.private(s).spec.value)

    def offers(self, game: Game) -> dict[str, int]:
        """Item -> price (M) now: the topmost card (less the drops so far) and the
        cheapest minor at face value."""
        out: dict[str, int] = {}
        top = self.topmost(game)
        if top is not None:
            out[top] = max(0, game.private(top).spec.value - self.reduction)
        minor = self.cheapest_minor(game)
        if minor is not None and minor not in out:
            out[minor] = game.private(minor).spec.value
        return out

    def finished(self, game: Game) -> bool:
        """Whether the package is sold out."""
        return self.topmost(game) is None

    def process(self, game: Game, action: Action) -> None:
        """A ``bid`` buys an item on offer at its price; a ``pass`` hands the offer on.

        Raises ``GameError`` [``draft.item``, ``draft.price``, ``draft.must_take``,
        ``draft.action``, ``draft.cash``, ``turn.order``].
        """
        player = self.expect_player(game, action)
        offers = self.offers(game)
        if isinstance(action, Bid):
            sym = action.company or action.minor
            if sym not in offers:
                raise GameError(
                    f"{sym} is not on offer (on offer: the topmost card and the cheapest "
                    f"minor: {', '.join(offers)})", "draft.item")
            if action.price != offers[sym]:
                raise GameError(f"{sym} costs {offers[sym]}M, not {action.price}M",
                                "draft.price")
            buy_package_item(game, player, sym, offers[sym])
            if sym == self.topmost_before(offers):
                self.reduction = 0
            self.last_buyer = player.id
            self.passes_in_row = 0
        elif isinstance(action, Pass):
            top = self.topmost(game)
            if top is not None and offers[top] == 0:
                raise GameError(f"{top} costs 0M: {player.name} must take it (or the "
                                f"cheapest minor)", "draft.must_take")
            self.passes_in_row += 1
            game.add_log(f"{player.name} passes")
            if self.passes_in_row >= len(game.seat_order()):
                self.passes_in_row = 0
                self.reduction += PRICE_DROP
                assert top is not None
                game.add_log(f"{top}'s price drops to "
                             f"{max(0, game.private(top).spec.value - self.reduction)}M")
        else:
            raise GameError(f"{action.type} is not possible in the Starting Package",
                            "draft.action")
        if self.finished(game):
            finish_round(game, self)
            return
        self.index = (self.index + 1) % len(game.seat_order())

    @staticmethod
    def topmost_before(offers: dict[str, int]) -> str:
        """The topmost card of an :meth:`offers` made before a buy (its first key)."""
        return next(iter(offers))

    def candidates(self, game: Game) -> list[Any]:
        """Buy each offer at its price, or pass."""
        pid = self.current_entity(game).id
        out: list[Any] = [Bid(entity=pid, company=s, price=p)
                          for s, p in self.offers(game).items()]
        out.append(Pass(entity=pid))
        return out
