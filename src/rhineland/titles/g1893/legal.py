"""1893's legal actions: the Starting Package draft and forced auction, merger votes and
discards (the stock and operating rounds' own are in their declared steps).

Each hook lists the candidates of a decision, reading the state only; the rules' own
checks (``process``, tried and undone) keep the legal ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rhineland.engine.actions import (
    Bid,
    DiscardTrain,
    Pass,
    SpecialBuy,
)
from rhineland.engine.title import Title
from rhineland.titles.g1893.rounds import ForcedAuction, MergerRound, StartingPackageDraft

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.legal.choices import Candidate
    from rhineland.engine.rounds.base import Round


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
        if isinstance(rnd, StartingPackageDraft | ForcedAuction):
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
