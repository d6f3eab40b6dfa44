"""1893's legal actions: the Starting Package draft and forced auction, merger votes and
discards, bonds, Starting Package items and EVA in the stock round, the FdSD exchange and
RAG's par by FdSD, train trade-ins.

Each hook lists the candidates of a decision, reading the state only; the rules' own
checks (``process``, tried and undone) keep the legal ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rhineland.engine.actions import (
    Assign,
    Bid,
    BuyCompany,
    BuyShares,
    BuyTrain,
    DiscardTrain,
    Pass,
    SellCompany,
    SpecialBuy,
)
from rhineland.engine.entities import MARKET
from rhineland.engine.legal.choices import AmountSpan
from rhineland.engine.legal.generate import entity_type
from rhineland.engine.title import Title
from rhineland.titles.g1893.constants import is_bond
from rhineland.titles.g1893.rounds import ForcedAuction, MergerRound, StartingPackageDraft
from rhineland.titles.g1893.seed_rounds import SeedPackageRound

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.legal.choices import Candidate
    from rhineland.engine.rounds.base import Round
    from rhineland.engine.rounds.operating import OperatingRound
    from rhineland.engine.rounds.stock import StockRound


class CologneLegal(Title):
    """Legal-action hooks of :class:`rhineland.titles.g1893.rules.Cologne`."""

    if TYPE_CHECKING:
        def draftables(self, game: Game) -> list[str]:
            """For type checking only: see :meth:`CologneStock.draftables`."""
            ...

        def unsold_package(self, game: Game) -> list[str]:
            """For type checking only: see :meth:`CologneStock.unsold_package`."""
            ...

        def next_bond(self, game: Game) -> list[str]:
            """For type checking only: see :meth:`CologneStock.next_bond`."""
            ...

    def round_candidates(self, game: Game, rnd: Round) -> list[Candidate] | None:
        """The draft (buy an item on offer at face value, or pass), the forced auction
        (select an item; then buy at the current price or pass), the merger round (vote
        yes or no; a founded corporation's discards)."""
        cands: list[Candidate] = []
        if isinstance(rnd, SeedPackageRound):
            cands.extend(rnd.candidates(game))
        elif isinstance(rnd, StartingPackageDraft | ForcedAuction):
            pid = rnd.current_entity(game).id
            if isinstance(rnd, ForcedAuction) and rnd.item is not None:
                cands.append(Bid(entity=pid, company=rnd.item, price=rnd.price(game)))
            else:
                cands.extend(Bid(entity=pid, company=s, price=game.private(s).spec.value)
                             for s in self.draftables(game))
            cands.append(Pass(entity=pid))
        elif isinstance(rnd, MergerRound):
            if rnd.discards:
                corp = game.corporation(rnd.discards[0])
                cands.extend(DiscardTrain(entity=corp.sym, entity_type="corporation", train=t.id)
                             for t in corp.trains)
                cands.append(Pass(entity=corp.sym, entity_type="corporation"))
            else:
                pid = rnd.current_entity(game).id
                cands.extend(SpecialBuy(entity=pid, description=d) for d in ("yes", "no"))
        else:
            return None
        return list(cands)

    def stock_extra_candidates(self, game: Game, rnd: StockRound,
                               player: Any) -> list[Candidate]:
        """Buy a Starting Package item or the next bond (face value), EVA from another
        player (a price span); sell a bond; the FdSD exchange for RAG shares; FdSD paying
        for RAG's par (``assign``)."""
        cands: list[Candidate] = [
            BuyCompany(entity=player.id, company=s, price=game.private(s).spec.value)
            for s in [*self.unsold_package(game), *self.next_bond(game)]
        ]
        eva = game.private("EVA")
        if not eva.closed and isinstance(eva.owner, int) and eva.owner != player.id:
            # EVA from another player: a price span up to the buyer's cash
            cands.append(AmountSpan(BuyCompany(entity=player.id, company="EVA", price=1),
                                    "price", 1, max(player.cash, 1), 1, (eva.spec.value,)))
        cands.extend(SellCompany(entity=player.id, company=s, price=game.private(s).spec.value)
                     for s in player.companies if is_bond(s))
        rag = game.corporation("RAG")
        in_market = sorted((c for c in rag.certs_of(MARKET) if not c.president),
                           key=lambda c: c.index)
        if in_market:
            cands.append(BuyShares(entity="FdSD", entity_type="company",
                                   shares=(in_market[0].id,), percent=in_market[0].percent))
        cands.append(Assign(entity=player.id, target="FdSD", target_type="company"))
        return list(cands)

    def operating_extra_candidates(self, game: Game, rnd: OperatingRound, entity: Any,
                                   step: str | None) -> list[Candidate]:
        """Trade-ins in the train step: an own train for a depot or discarded train, at
        the discount; in any step of the turn, buying EVA from a player (a price span:
        1M up to the cash of whoever pays)."""
        cands: list[Candidate] = []
        eva = game.private("EVA")
        owners = game.entity_owner_ids(entity)
        if step != "discard_train" and not eva.closed and isinstance(eva.owner, int):
            payer = max([entity.cash] + [game.player(o).cash for o in owners[:1]])
            cands.append(AmountSpan(
                BuyCompany(entity=entity.sym, entity_type=entity_type(entity), company="EVA",
                           price=1), "price", 1, payer, 1, (eva.spec.value,),
                frozenset({"or.step"})))
        if step != "buy_train":
            return cands
        seen: set[str] = set()
        for new in self.available_depot_trains(game):
            if new.owner is None:  # one of the identical depot trains; each discarded one
                if new.name in seen:
                    continue
                seen.add(new.name)
            for old in entity.trains:
                discount = (new.spec.discount or {}).get(old.name)
                if discount is None:
                    continue
                cands.append(BuyTrain(entity=entity.sym, entity_type=entity_type(entity),
                                      train=new.id, price=new.spec.price - discount,
                                      variant=new.name, exchange=old.id))
        return list(cands)
