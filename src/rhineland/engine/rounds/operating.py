"""The operating round: private income, then each operating entity's turn.

Each corporation (and 1893 minor), in the title's operating order, goes
through the title's declared steps
(:meth:`~rhineland.engine.rules_operating.OperatingRules.operating_steps`,
:mod:`rhineland.engine.rounds.operating_steps`): by default ``track`` (one lay
or upgrade), ``token``, ``route`` (run trains), ``dividend`` (payout or
withhold) and ``buy_train``.  A step with nothing to decide is skipped
(:meth:`~rhineland.engine.rounds.operating_steps.OperatingStep.applicable`).
Discards after a phase change come first, from any company over its limit.

Beside the blocking steps, the non-blocking ones of the list
(:class:`rhineland.engine.steps.Step` with ``blocks = False``) take their
action at any point of the turn without moving it on; after one, the current
step goes on if it still has a decision, else the turn moves on.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from rhineland.engine.actions import Action
from rhineland.engine.rounds.base import Round, finish_round
from rhineland.engine.rounds.operating_steps import DISCARD_TRAIN, OperatingStep
from rhineland.engine.steps import Step
from rhineland.errors import GameError

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.legal.choices import Candidate


@dataclass
class TurnState:
    """What an operator's turn remembers beyond the step: an emergency sale happened
    (``emergency_sold``: depot trains only, where the title says so) and the price of
    one share in the last one (``last_sale_share_price``, M, before the sale moved it:
    the least spend on another company's train), a teleport lay waits for its special
    token (``teleport``: private, hex; 18Rhl), and the lay was the track step's
    (``resume_after_track``)."""

    emergency_sold: bool = False
    last_sale_share_price: int | None = None
    teleport: tuple[str, str] | None = None
    resume_after_track: bool = False


_BLOCKING: dict[int, tuple[tuple[Step, ...], tuple[OperatingStep, ...],
                           dict[str | None, OperatingStep]]] = {}
"""Per declared steps tuple (a title's constant): its blocking steps, and by name."""


def _blocking(steps: tuple[Step, ...]) -> tuple[tuple[OperatingStep, ...],
                                                dict[str | None, OperatingStep]]:
    """The blocking steps of ``steps`` in order and by name (the first of a name)."""
    got = _BLOCKING.get(id(steps))
    if got is None or got[0] is not steps:
        blocking = tuple(s for s in steps if s.blocks and isinstance(s, OperatingStep))
        by_name: dict[str | None, OperatingStep] = {}
        for s in blocking:
            by_name.setdefault(s.name, s)
        got = _BLOCKING[id(steps)] = (steps, blocking, by_name)
    return got[1], got[2]


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
        self.turn_state = TurnState()
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
        """The entity shown as current after the game ends in this round: the one that
        took the game's last action (18xx.games, with no step left, names the last
        action's entity: even-12012 #736, ADR's run ends it and DEE, skipped, is not
        shown); without actions the operator before the current index, ``None``
        without operators."""
        if game.actions:
            last = game.actions[-1]
            if last.entity_type == "player":
                return game.player(int(last.entity))
            if last.entity_type == "company":
                return game.private(str(last.entity))
            return game.title.operator(game, str(last.entity))
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
            self.turn_state = TurnState()
            self.interrupt = None
            game.title.start_operating_turn(game, self, entity)
            self.step = None
            if self._advance(game, entity, None):
                return
            self.index += 1
        self._finish(game)

    def _finish(self, game: Game) -> None:
        self.step = None
        game.title.end_operating_round(game, self)
        finish_round(game, self)

    # -- the declared steps ---------------------------------------------------------------
    def steps(self, game: Game, entity: Any) -> tuple[Step, ...]:
        """``entity``'s turn: the title's ordered, declared steps."""
        return game.title.operating_steps(game, entity)

    def blocking_steps(self, game: Game, entity: Any) -> tuple[OperatingStep, ...]:
        """The steps gone through in order (the others are open all turn)."""
        return _blocking(self.steps(game, entity))[0]

    def current_step(self, game: Game, entity: Any) -> OperatingStep | None:
        """The blocking step named :attr:`step`, ``None`` between turns."""
        return _blocking(self.steps(game, entity))[1].get(self.step)

    def _advance(self, game: Game, entity: Any, after: str | None) -> bool:
        """Move to the first applicable step after the one named ``after`` (from the
        first with ``None``), skipping the others; False when the turn is over."""
        steps = self.blocking_steps(game, entity)
        names = [s.name for s in steps]
        start = 0 if after is None else names.index(after) + 1
        for step in steps[start:]:
            step.reached(game, self, entity)
            if step.applicable(game, self, entity):
                self.step = step.name
                return True
            step.skip(game, self, entity)
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
        step = self.current_step(game, entity)
        assert step is not None
        step.reached(game, self, entity)
        if step.applicable(game, self, entity):
            return
        self.next_step(game, entity)

    def next_step(self, game: Game, entity: Any) -> None:
        """Finish the current step and continue (next step, next entity, next round)."""
        step = self.current_step(game, entity)
        assert step is not None
        step.finish(game, self, entity)
        if self._advance(game, entity, step.name):
            return
        game.title.end_operating_turn(game, self, entity)
        self.index += 1
        self._start_next(game)

    def candidates(self, game: Game) -> list[Candidate]:
        """The declared steps' candidates (:meth:`rhineland.engine.steps.Step.candidates`):
        while a discard is pending, the discard step's alone; else the current blocking
        step's (none while a title's inserted step, e.g. 18Rhl's special token, waits),
        then each step open all turn (its :meth:`~rhineland.engine.steps.Step.actions`
        not empty now), in the title's order."""
        entity = self.current_entity(game)
        if entity is None:
            return []
        if self.pending_discards:
            return DISCARD_TRAIN.candidates(game, self, entity)
        out: list[Candidate] = []
        step = self.current_step(game, entity)
        if step is not None and self.interrupt is None:
            out.extend(step.candidates(game, self, entity))
        for open_step in self.steps(game, entity):
            if not open_step.blocks and open_step.actions(game, self, entity):
                out.extend(open_step.candidates(game, self, entity))
        return out

    # -- processing -------------------------------------------------------------------
    def process(self, game: Game, action: Action) -> None:
        """Apply ``action`` in the current step, then, after a share sale the title names
        (:meth:`~rhineland.engine.rules_operating.OperatingRules.resorts_operating_order`),
        re-sort the entities yet to operate (share prices may have moved).  Raises
        ``GameError`` (``"or.step"``, ``"turn.order"``, the step's own rules) when
        illegal."""
        self._process(game, action)
        if game.state.round is self and game.title.resorts_operating_order(game, action.type):
            self.recalculate_order(game)

    def recalculate_order(self, game: Game) -> None:
        """Entities yet to operate this round are re-sorted after price changes."""
        rest = self.order[self.index + 1:]
        if len(rest) > 1:
            self.order[self.index + 1:] = game.title.sort_operating(game, rest)

    def _process(self, game: Game, action: Action) -> None:
        step, entity, open_step = self.route(game, action)
        step.process(game, self, entity, action)
        if open_step and step.resumes:
            self.resume(game, entity)

    def route(self, game: Game, action: Action) -> tuple[Step, Any, bool]:
        """The step that takes ``action`` now, the entity it acts for, and whether the
        step is open all turn (non-blocking): while a discard is pending the discard
        step; else the first open step that takes it; else the current step.  Raises
        ``GameError`` (``"or.finished"``, ``"or.step"``) when none does.  A step takes an
        action by its type and entity type (:meth:`Step.takes
        <rhineland.engine.steps.Step.takes>`): the legal-action trials of one position
        route each once (:meth:`Game.remembered
        <rhineland.engine.game.Game.remembered>`)."""
        return game.remembered(("or.route", id(self), action.type, action.entity_type),
                               partial(self._route, game, action))

    def _route(self, game: Game, action: Action) -> tuple[Step, Any, bool]:
        """:meth:`route` worked out."""
        if self.pending_discards:
            return DISCARD_TRAIN, self.current_entity(game), False
        entity = self.current_entity(game)
        if entity is None:
            raise GameError("the operating round is over", "or.finished")
        steps = self.steps(game, entity)  # asked once (every legal-action trial routes)
        for open_step in steps:
            if not open_step.blocks and open_step.takes(game, self, entity, action):
                return open_step, entity, True
        step = _blocking(steps)[1].get(self.step)  # :meth:`current_step`
        if step is None or not step.takes(game, self, entity, action):
            raise GameError(
                f"{action.type} is not possible in the {self.step} step of {entity.sym}'s "
                f"turn in {self.label}",
                "or.step",
            )
        return step, entity, False

    def check(self, game: Game, action: Action) -> bool:
        """The taking step's check (:meth:`route`, :meth:`Step.check
        <rhineland.engine.steps.Step.check>`), the state untouched; True when it is the
        whole of the rules for ``action`` (:meth:`Step.complete
        <rhineland.engine.steps.Step.complete>`).  Raises ``GameError`` as
        :meth:`process` would first."""
        step, entity, _ = self.route(game, action)
        step.check(game, self, entity, action)
        return step.complete(game, self, entity, action)

    def check_actor(self, game: Game, entity: Any, action: Action) -> Any:
        """The acting entity (the operator, or a private its president uses); raises
        ``GameError`` (``"turn.order"``) for anyone else."""
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

    def discard_done(self, game: Game) -> None:
        """Every company is within its train limit again: a turn that waited starts."""
        if not self.pending_discards and self.deferred_start:
            self.deferred_start = False
            self._start_entity(game)


def operating_round(rnd: Round) -> OperatingRound:
    """``rnd`` as the operating round it is (for a title's steps, which may know the class)."""
    assert isinstance(rnd, OperatingRound)
    return rnd
