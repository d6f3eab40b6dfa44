"""18Rhl's legal actions: the special token after a teleporting private's lay (KEO, Tjt),
and the private companies' lays outside the track step.

Each hook lists the candidates of a decision, reading the state only; the rules' own
checks (``process``, tried and undone) keep the legal ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rhineland.board.legality import legal_special_lays
from rhineland.engine.actions import Pass, PlaceToken
from rhineland.engine.legal.generate import entity_type, lay_action
from rhineland.engine.title import Title

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.legal.choices import Candidate
    from rhineland.engine.rounds.operating import OperatingRound


class RhlLegal(Title):
    """Legal-action hooks of :class:`rhineland.titles.g18rhl.rules.Rhl`."""

    def operating_extra_candidates(self, game: Game, rnd: OperatingRound, entity: Any,
                                   step: str | None) -> list[Candidate]:
        """The special token: a token in a city of the hex just laid, or pass; a private
        company's lay in the other steps of the turn (the special token's too)."""
        cands: list[Candidate] = []
        etype = entity_type(entity)
        if step == "special_token":
            assert rnd.turn_state.teleport is not None
            hex_id = rnd.turn_state.teleport[1]
            placed = game.board.tile_at(hex_id)
            for city in placed.tile.cities:
                ci = placed.tile.cities.index(city)
                cands.append(PlaceToken(entity=entity.sym, entity_type=etype,
                                        city=f"{placed.tile_id}-{city.part}",
                                        slot=len(game.board.tokens_in(hex_id, ci))))
            cands.append(Pass(entity=entity.sym, entity_type=etype))
        if step not in ("track", "discard_train") and any(
            p.owner in game.entity_owner_ids(entity) and not p.closed
            and (p.spec.ability("tile_lay") or p.spec.ability("teleport"))
            for p in game.privates.values()
        ):  # only a private its president owns may lay for the company
            ctx = self.lay_context(game, rnd, entity)
            cands.extend(lay_action(game, entity, lay) for lay in legal_special_lays(ctx))
        if step == "buy_train" and self.rule_set.bank_loan:  # type: ignore[attr-defined]
            from rhineland.titles.g18rhl.seed_steps import seed_candidates

            cands.extend(seed_candidates(game, rnd, entity))
        return list(cands)
