"""The operating round: private income, then each operating entity's turn.

Each corporation (and 1893 minor), in the title's operating order, goes
through the steps ``track`` (one lay or upgrade), ``token``, ``route`` (run
trains), ``dividend`` (payout or withhold) and ``buy_train``.  A step with
nothing to decide is skipped: no token step without a tokenable city, no
route/dividend step without trains (a skipped dividend is a withhold of 0M),
no train buying without room under the limit or without cash.  Title hooks
add steps (18Rhl special token, discards after a phase change) and rules.

Beside these blocking steps, the title's open steps
(:meth:`~rhineland.engine.rules_operating.OperatingRules.operating_open_steps`,
:class:`rhineland.engine.steps.Step` with ``blocks = False``) take their
action at any point of the turn without moving it on; after one, the current
step goes on if it still has a decision, else the turn moves on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rhineland.engine.actions import (
    Action,
    BuyTrain,
    DiscardTrain,
    Dividend,
    LayTile,
    Pass,
    PlaceToken,
    RunRoutes,
    SellShares,
)
from rhineland.engine.entities import Corporation, Minor
from rhineland.engine.rounds.base import Round, finish_round
from rhineland.errors import GameError

if TYPE_CHECKING:
    from rhineland.engine.game import Game


class OperatingRound(Round):
    """One operating round (``OR turn.num``)."""

    kind = "Operating"

    def __init__(self, turn: int, num: int) -> None:
        super().__init__(turn, num)
        self.order: list[str] = []
        self.index = 0
        self.step: str | None = None
        self.revenue = 0
        self.route_results: list[Any] = []
        self.laid_tiles = 0
        self.tokened = False
        self.bought_trains = 0
        self.pending_discards: list[str] = []
        self.turn_state: dict[str, Any] = {}
        self.interrupt: str | None = None  # a title's special step inserted mid-turn
        self.deferred_start = False  # the next turn waits for pending discards

    # -- views -------------------------------------------------------------------
    def current_entity(self, game: Game) -> Any:
        """The entity to act: the first one owing a train discard, else the operator
        whose turn it is; ``None`` once every entity has operated."""
        if self.pending_discards:
            return game.title.operator(game, self.pending_discards[0])
        if self.index >= len(self.order):
            return None
        return game.title.operator(game, self.order[self.index])

    def final_entity(self, game: Game) -> Any:
        """The entity before the current index (the last operator once the round is
        done), shown as current after the game ends; ``None`` without operators."""
        if not self.order:
            return None
        return game.title.operator(game, self.order[min(self.index, len(self.order)) - 1])

    def step_name(self, game: Game) -> str | None:
        """``"discard_train"`` while a discard is pending, else a title's inserted step
        (18Rhl ``"special_token"``) or the current step."""
        if self.pending_discards:
            return "discard_train"
        return self.interrupt or self.step

    # -- flow ----------------------------------------------------------------------
    def start(self, game: Game) -> None:
        """Start the OR: private companies pay income (title hook), the operating order
        is fixed and the first entity's turn begins."""
        game.title.start_operating_round(game, self)
        self.order = game.title.operating_order(game)
        self.index = 0
        self._start_entity(game)

    def _start_entity(self, game: Game) -> None:
        while self.index < len(self.order):
            entity = game.title.operator(game, self.order[self.index])
            self.laid_tiles = 0
            self.tokened = False
            self.bought_trains = 0
            self.revenue = 0
            self.route_results = []
            self.turn_state = {}
            self.interrupt = None
            game.title.start_operating_turn(game, self, entity)
            self.step = None
            if self._advance(game, entity, "start"):
                return
            self.index += 1
        self._finish(game)

    def _finish(self, game: Game) -> None:
        self.step = None
        game.title.end_operating_round(game, self)
        finish_round(game, self)

    def _advance(self, game: Game, entity: Any, after: str) -> bool:
        """Move to the first applicable step after ``after``; False when the turn is over."""
        steps = game.title.operating_steps(game, entity)
        start = 0 if after == "start" else steps.index(after) + 1
        for name in steps[start:]:
            if game.title.step_applicable(game, self, entity, name):
                self.step = name
                return True
            game.title.skip_step(game, self, entity, name)
        return False

    def end_turn_now(self, game: Game, entity: Any) -> None:
        """End ``entity``'s turn at once (e.g. after a bankruptcy)."""
        game.title.end_operating_turn(game, self, entity)
        self.index += 1
        self._start_next(game)

    def _start_next(self, game: Game) -> None:
        """Start the next entity's turn once every pending discard is done."""
        if self.pending_discards:
            self.deferred_start = True
            return
        self._start_entity(game)

    def resume(self, game: Game, entity: Any) -> None:
        """Continue the current step after an interruption, if it still applies."""
        assert self.step is not None
        if game.title.step_applicable(game, self, entity, self.step):
            return
        self.next_step(game, entity)

    def next_step(self, game: Game, entity: Any) -> None:
        """Finish the current step and continue (next step, next entity, next round)."""
        assert self.step is not None
        if self.step == "track":
            game.title.after_track_step(game, self, entity)
        if self._advance(game, entity, self.step):
            return
        game.title.end_operating_turn(game, self, entity)
        self.index += 1
        self._start_next(game)

    # -- processing -------------------------------------------------------------------
    def process(self, game: Game, action: Action) -> None:
        """Apply ``action`` in the current step, then re-sort the entities yet to operate
        (share prices may have moved).  Raises ``GameError`` (``"or.step"``,
        ``"turn.order"``, the step's own rules) when illegal."""
        self._process(game, action)
        if game.state.round is self:
            self.recalculate_order(game)

    def recalculate_order(self, game: Game) -> None:
        """Entities yet to operate this round are re-sorted after price changes."""
        rest = self.order[self.index + 1:]
        if len(rest) > 1:
            self.order[self.index + 1:] = game.title.sort_operating(game, rest)

    def _process(self, game: Game, action: Action) -> None:
        if self.pending_discards:
            self._discard(game, action)
            return
        entity = self.current_entity(game)
        if entity is None:
            raise GameError("the operating round is over", "or.finished")
        for open_step in game.title.operating_open_steps(game, entity):
            if open_step.takes(game, self, entity, action):
                open_step.process(game, self, entity, action)
                self.resume(game, entity)
                return
        if game.title.process_operating_action(game, self, entity, action):
            return
        step = self.step
        if isinstance(action, SellShares) and step == "buy_train":
            game.title.emergency_sell(game, self, entity, action)
            return
        actor = self._check_actor(game, entity, action)
        if isinstance(action, Pass):
            if step == "buy_train":
                game.title.check_may_pass_buy_train(game, self, entity)
            if step in ("route", "dividend"):
                raise GameError(f"{entity.sym} must {step.replace('_', ' ')} now", f"or.{step}")
            self.next_step(game, entity)
        elif isinstance(action, LayTile) and step == "track":
            game.title.lay_tile(game, self, entity, actor, action)
            self.laid_tiles += 1
            if not game.title.track_step_continues(game, self, entity):
                self.next_step(game, entity)
        elif isinstance(action, PlaceToken) and step == "token":
            game.title.place_token(game, self, entity, action)
            self.tokened = True
            self.next_step(game, entity)
        elif isinstance(action, RunRoutes) and step == "route":
            self.route_results = game.title.run_routes(game, self, entity, action)
            self.revenue = sum(r.revenue for r in self.route_results)
            self.next_step(game, entity)
        elif isinstance(action, Dividend) and step == "dividend":
            game.title.pay_dividend(game, self, entity, action.kind)
            self.next_step(game, entity)
        elif isinstance(action, BuyTrain) and step == "buy_train":
            game.title.buy_train(game, self, entity, action)
            self.bought_trains += 1
            over = game.title.over_train_limit(game, entity)
            if over and entity.sym not in self.pending_discards:
                self.pending_discards.append(entity.sym)
            if not game.title.step_applicable(game, self, entity, "buy_train"):
                self.next_step(game, entity)
        else:
            raise GameError(
                f"{action.type} is not possible in the {step} step of {entity.sym}'s turn "
                f"in {self.label}",
                "or.step",
            )

    def _check_actor(self, game: Game, entity: Any, action: Action) -> Any:
        """The acting entity (the operator, or a private its president uses)."""
        if action.entity == entity.sym:
            return entity
        if action.entity_type == "company":
            private = game.private(str(action.entity))
            return private
        raise GameError(
            f"it is {entity.sym}'s turn in {self.label}, not {action.entity_type} "
            f"{action.entity!r}",
            "turn.order",
        )

    def _discard(self, game: Game, action: Action) -> None:
        """A discard by any entity over its train limit, in any order (the first one
        is shown as current); nothing else happens until all are within it."""
        if not isinstance(action, DiscardTrain) or action.entity not in self.pending_discards:
            who = " or ".join(self.pending_discards)
            raise GameError(f"{who} must discard a train first", "train.discard")
        sym = str(action.entity)
        entity: Corporation | Minor = game.title.operator(game, sym)
        game.title.discard_train(game, entity, action.train)
        if not game.title.over_train_limit(game, entity):
            self.pending_discards.remove(sym)
        if not self.pending_discards and self.deferred_start:
            self.deferred_start = False
            self._start_entity(game)
