"""18Rhl's OR steps (:mod:`rhineland.engine.rounds.operating_steps` subclassed).

* A corporation in receivership lays no track, places no token and withholds
  (its dividend step is skipped: a withhold of the run), as the reference
  engine does (rule 13.2).
* The track step's end checks the Köln–Düren–Aachen link while RhE's bonus is
  pending (private No. 6).
* A president who cannot pay for the train the corporation must buy goes
  bankrupt (:meth:`G18RhlBuyTrain.bankrupt`); the game goes on.
* Open all turn (not blocking): a private company's lay (:class:`PrivateLay`:
  Szl, ATB an extra lay; KEO, Tjt a teleport lay, then the special token), and
  the special token itself once a teleport lay asks for it
  (:class:`SpecialToken`, shown as the step ``special_token`` until resolved).
  Private lays stay open during the special token (the reference's
  special-track step comes before it and never blocks): another private's lay
  there leaves the token decision pending.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rhineland.engine.actions import Action, Bankrupt, LayTile, Pass, PlaceToken
from rhineland.engine.entities import Corporation
from rhineland.engine.rounds.operating import operating_round
from rhineland.engine.rounds.operating_steps import (
    ROUTE,
    BuyTrainStep,
    DividendStep,
    TokenStep,
    TrackStep,
)
from rhineland.engine.steps import Step
from rhineland.errors import GameError
from rhineland.titles.g18rhl.receivership import bankrupt, check_bankrupt, in_receivership
from rhineland.titles.g18rhl.rhe_link import check_rhe_link
from rhineland.titles.g18rhl.state import end_metropolis_lag

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.legal.choices import Candidate
    from rhineland.engine.rounds.base import Round
    from rhineland.engine.rounds.operating import OperatingRound

SPECIAL_TOKEN = "special_token"


def special_token_price(game: Game, entity: Corporation, private_sym: str) -> int:
    """The teleport token's price (M), as the board rules price it (KEO free, Tjt normal)."""
    return game.title.board_rules.teleport_token_price(private_sym, entity.next_token_price)


class G18RhlTrack(TrackStep):
    """No lay in receivership; after the step, the RhE link check, also when the step
    is skipped (the reference engine's link-check step follows the track step and runs
    whether or not the company could lay track)."""

    CHECKED: ClassVar[frozenset[str]] = TrackStep.CHECKED  # its apply refuses no more

    def applicable(self, game: Game, rnd: OperatingRound, entity: Any) -> bool:
        """As the default, never in receivership."""
        return not in_receivership(entity) and super().applicable(game, rnd, entity)

    def finish(self, game: Game, rnd: OperatingRound, entity: Any) -> None:
        """The RhE link check (:func:`rhineland.titles.g18rhl.rhe_link.check_rhe_link`)."""
        check_rhe_link(game, entity)

    def skip(self, game: Game, rnd: OperatingRound, entity: Any) -> None:
        """A company in receivership or with a negative treasury lays no track, but the
        RhE link is checked at its turn's start all the same (a link a private's lay
        made after an earlier track step is paid now; reference: the auto action
        ``destination_connection`` on the action before such a turn, g00 #243)."""
        self.finish(game, rnd, entity)


class G18RhlToken(TokenStep):
    """No token in receivership."""

    CHECKED: ClassVar[frozenset[str]] = TokenStep.CHECKED  # its apply refuses no more

    def applicable(self, game: Game, rnd: OperatingRound, entity: Any) -> bool:
        """As the default, never in receivership."""
        return not in_receivership(entity) and super().applicable(game, rnd, entity)


class G18RhlDividend(DividendStep):
    """A corporation in receivership always withholds (the step is skipped)."""

    CHECKED: ClassVar[frozenset[str]] = DividendStep.CHECKED  # its apply refuses no more

    def applicable(self, game: Game, rnd: OperatingRound, entity: Any) -> bool:
        """As the default, never in receivership."""
        return not in_receivership(entity) and super().applicable(game, rnd, entity)


class G18RhlBuyTrain(BuyTrainStep):
    """Bankruptcy as the reference engine has it (the game goes on)."""

    CHECKED: ClassVar[frozenset[str]] = BuyTrainStep.CHECKED  # its apply refuses no more

    def check_bankrupt(self, game: Game, rnd: OperatingRound, entity: Any,
                       action: Bankrupt) -> None:
        """:func:`~rhineland.titles.g18rhl.receivership.check_bankrupt`."""
        check_bankrupt(game, rnd, entity)

    def bankrupt(self, game: Game, rnd: OperatingRound, entity: Any, action: Bankrupt) -> None:
        """:func:`~rhineland.titles.g18rhl.receivership.bankrupt`; the turn ends when the
        corporation, now in receivership, bought its train at once."""
        if bankrupt(game, rnd, entity):
            rnd.end_turn_now(game, entity)


def is_private_lay(action: Action) -> bool:
    """Whether ``action`` is a private company's tile lay."""
    return isinstance(action, LayTile) and action.entity_type == "company"


def end_teleport(game: Game, rnd: OperatingRound, entity: Any) -> None:
    """After a teleport (and its special token): a lay made in the track step ends it,
    else the current step goes on if it still applies."""
    if rnd.turn_state.resume_after_track and rnd.step == "track":
        rnd.turn_state.resume_after_track = False
        rnd.next_step(game, entity)
    else:
        rnd.turn_state.resume_after_track = False
        rnd.resume(game, entity)


class PrivateLay(Step):
    """A private company's lay for the operating corporation, by its owner as president
    (``private.owner``), at any point of the turn; the board rules check it."""

    name: ClassVar[str] = "special_track"
    blocks: ClassVar[bool] = False
    resumes: ClassVar[bool] = False

    def actions(self, game: Game, rnd: Round, entity: Any) -> frozenset[str]:
        """``lay_tile`` (by a private company)."""
        return frozenset({LayTile.TYPE})

    def candidates(self, game: Game, rnd: Round, entity: Any) -> list[Candidate]:
        """Outside the track step (whose own lays include the privates'), each legal lay
        of a private company the operator's president owns (the board legality
        module's special lays)."""
        from rhineland.board.legality import legal_special_lays
        from rhineland.engine.legal.generate import lay_action

        orr = operating_round(rnd)
        if orr.step_name(game) == "track" or in_receivership(entity) or not any(
            p.owner in game.entity_owner_ids(entity) and not p.closed
            and (p.spec.ability("tile_lay") or p.spec.ability("teleport"))
            for p in game.privates.values()
        ):
            return []
        ctx = game.title.lay_context(game, orr, entity)
        pending = orr.interrupt == SPECIAL_TOKEN
        return [lay_action(game, entity, lay) for lay in legal_special_lays(ctx)
                if not (pending and game.private(lay.special).spec.ability("teleport"))]

    def takes(self, game: Game, rnd: Round, entity: Any, action: Action) -> bool:
        """A private company's lay."""
        return is_private_lay(action)

    def check(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """The private is open and owned by the operator's president (``private.owner``;
        a company in receivership has none, so no private lays for it);
        no second teleport while the first one's token is pending (``token.special``:
        the reference engine fails on it, its teleport state holds one private)."""
        private = game.private(str(action.entity))
        if (private.closed or in_receivership(entity)
                or private.owner not in game.entity_owner_ids(entity)):
            raise GameError(
                f"{private.sym} may only be used by its owner as president of the operating "
                f"corporation ({entity.sym})",
                "private.owner",
            )
        orr = operating_round(rnd)
        if orr.interrupt == SPECIAL_TOKEN and private.spec.ability("teleport"):
            pending = orr.turn_state.teleport
            raise GameError(
                f"{entity.sym} places the token after "
                f"{pending[0] if pending else 'the teleport'}'s lay or passes before "
                f"{private.sym} teleports",
                "token.special",
            )

    def apply(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """Lay the tile; an extra lay leaves the step as it is; a teleport lay asks for
        the special token when the company has a token left and none on the hex."""
        assert isinstance(action, LayTile)
        orr = operating_round(rnd)
        title = game.title
        private = game.private(str(action.entity))
        title.lay_tile(game, orr, entity, private, action)
        private.ability_uses += 1
        lay_ability = private.spec.ability("tile_lay")
        if lay_ability is not None and lay_ability.get("closed_when_used_up") and (
            private.ability_uses >= int(lay_ability.get("count", 1))
        ):
            title.close_private(game, private)
        if private.spec.ability("teleport") is None:
            return  # an extra lay: the step goes on
        orr.turn_state.teleport = (private.sym, action.hex)
        if orr.step == "track":
            orr.laid_tiles += 1
            orr.turn_state.resume_after_track = True
        if self.special_token_possible(entity, action.hex):
            orr.interrupt = SPECIAL_TOKEN
        else:
            orr.interrupt = None
            end_teleport(game, orr, entity)

    def special_token_possible(self, entity: Any, hex_id: str) -> bool:
        """Whether the special-token step follows a teleport lay on ``hex_id``: the
        company has a token left and none on that hex yet.  The step is entered even
        when every slot is taken or the company cannot pay the token (it may then
        only pass), as the reference engine does."""
        if not isinstance(entity, Corporation) or entity.tokens_left == 0:
            return False
        return not any(h == hex_id for h, _ in entity.tokens)


class SpecialToken(Step):
    """After a teleport lay: a token on the hex laid (KEO free, Tjt at the normal price),
    or pass; nothing else but another private's lay (not a teleport) until it is
    decided (``token.special``, ``token.cash``)."""

    name: ClassVar[str] = SPECIAL_TOKEN
    blocks: ClassVar[bool] = False
    resumes: ClassVar[bool] = False

    def actions(self, game: Game, rnd: Round, entity: Any) -> frozenset[str]:
        """``place_token`` and ``pass`` while a teleport lay asks for the token."""
        if operating_round(rnd).interrupt != SPECIAL_TOKEN:
            return frozenset()
        return frozenset({PlaceToken.TYPE, Pass.TYPE})

    def candidates(self, game: Game, rnd: Round, entity: Any) -> list[Candidate]:
        """A token in each city of the hex just laid with a slot open to the company (in
        a slot without a token: :func:`~rhineland.engine.legal.generate.free_slot`), and
        pass."""
        from rhineland.engine.legal.generate import entity_type, free_slot

        teleport = operating_round(rnd).turn_state.teleport
        assert teleport is not None
        hex_id = teleport[1]
        etype = entity_type(entity)
        placed = game.board.tile_at(hex_id)
        reserved = game.title.board_rules.reservations
        out: list[Candidate] = [
            PlaceToken(entity=entity.sym, entity_type=etype,
                       city=f"{placed.tile_id}-{city.part}",
                       slot=free_slot(city.slots, len(game.board.tokens_in(hex_id, ci)),
                                      reserved(game.board, hex_id, ci), entity.sym))
            for ci, city in enumerate(placed.tile.cities)
            if self.free_slots(game, entity, hex_id, ci) > 0
        ]
        out.append(Pass(entity=entity.sym, entity_type=etype))
        return out

    @staticmethod
    def free_slots(game: Game, entity: Any, hex_id: str, city_index: int) -> int:
        """Slots of the city open to ``entity``: neither tokened nor reserved for another
        company's home (a reservation follows its city through the upgrades)."""
        board = game.board
        tile = board.tile_at(hex_id).tile
        reserved = game.title.board_rules.reservations(board, hex_id, city_index)
        others = [r for r in reserved if r != entity.sym]
        return tile.cities[city_index].slots - len(board.tokens_in(hex_id, city_index)) - len(
            others)

    def takes(self, game: Game, rnd: Round, entity: Any, action: Action) -> bool:
        """Every action but a private's lay while the token is pending (the others are
        refused by :meth:`check`)."""
        return operating_round(rnd).interrupt == SPECIAL_TOKEN and not is_private_lay(action)

    def check(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """The operator's pass, or its token on the hex laid in a free slot, paid."""
        turn = operating_round(rnd).turn_state
        assert turn.teleport is not None
        private_sym, hex_id = turn.teleport
        if isinstance(action, Pass) and action.entity == entity.sym:
            return
        if not (isinstance(action, PlaceToken) and action.entity == entity.sym):
            raise GameError(
                f"{entity.sym} may place a token on {hex_id} or pass (special token of "
                f"{private_sym})",
                "token.special",
            )
        h, ci = game.title.parse_city(game, action.city)
        if h != hex_id:
            raise GameError(
                f"after {private_sym}'s lay the token may only go on {hex_id}, not {h}",
                "token.special",
            )
        if self.free_slots(game, entity, h, ci) <= 0:
            raise GameError(
                f"no free slot in city {ci} of {h} (tokens "
                f"{list(game.board.tokens_in(h, ci))}, reserved "
                f"{list(game.title.board_rules.reservations(game.board, h, ci))})",
                "token.special",
            )
        price = special_token_price(game, entity, private_sym)
        if price > entity.cash:
            raise GameError(f"{entity.sym} has {entity.cash}M, the token costs {price}M",
                            "token.cash")

    def apply(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """Place the token (or not), then go on with the turn."""
        orr = operating_round(rnd)
        if isinstance(action, PlaceToken):
            assert orr.turn_state.teleport is not None
            private_sym = orr.turn_state.teleport[0]
            h, ci = game.title.parse_city(game, action.city)
            price = special_token_price(game, entity, private_sym)
            game.board.add_token(h, ci, entity.sym)
            entity.tokens.append((h, ci))
            entity.tokens_used += 1
            if price:
                game.pay(entity, game.bank, price)
            orr.tokened = True
            end_metropolis_lag(game)
            game.add_log(f"{entity.sym} places a token on {h} for {price}M")
        orr.interrupt = None
        end_teleport(game, orr, entity)


STEPS: tuple[Step, ...] = (SpecialToken(), PrivateLay(), G18RhlTrack(), G18RhlToken(), ROUTE,
                           G18RhlDividend(), G18RhlBuyTrain())
"""An 18Rhl OR turn: the special token and private lays open all turn, then track,
token, route, dividend, buy trains."""
