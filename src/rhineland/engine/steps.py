"""Declared steps: a round's unit of rules (docs: ``design.md``, "Steps, declared").

A :class:`Step` says which action types it takes from an entity now
(:meth:`Step.actions`), whether it blocks the round until it is resolved
(:attr:`Step.blocks`), lists its candidate decisions for the legal-action
generator (:meth:`Step.candidates`, a superset of the legal ones that the
generator tries against :meth:`Step.check`), checks an action (:meth:`Step.check`, raising
``GameError`` with the rule id, the state untouched) and applies it
(:meth:`Step.apply`).  Where :meth:`Step.check` is the whole of the rules for an
action type (:attr:`Step.CHECKED`), the legal-action trials ask it alone
(:meth:`Step.complete`), without copying the state and applying the action.

The operating round asks its title for the turn's ordered steps
(:meth:`rhineland.engine.rules_operating.OperatingRules.operating_steps`;
the defaults in :mod:`rhineland.engine.rounds.operating_steps`).  Non-blocking
steps take their action at any point of the operator's turn, beside the
blocking track, token, route, dividend and train steps, without moving the
turn on (e.g. 1893: a company's president buying EVA from another player;
18Rhl: a private company's lay).  Steps hold no state of their own (their state lives in the game or
the round), so one instance serves every game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rhineland.engine.actions import Action

if TYPE_CHECKING:
    from rhineland.engine.game import Game
    from rhineland.engine.legal.choices import Candidate
    from rhineland.engine.rounds.base import Round


class Step:
    """One step of a round; subclasses set ``name`` and ``blocks`` and implement
    :meth:`actions`, :meth:`check` and :meth:`apply`."""

    name: ClassVar[str] = ""
    CHECKED: ClassVar[frozenset[str]] = frozenset()
    """Action types for which :meth:`check` is the whole of the step's rules: once it
    passes, :meth:`apply` (and what follows it: the next step, turn or round) accepts
    the action.  Read from the class's own body only (:meth:`complete`): a subclass,
    whose :meth:`apply` may refuse more, states its own."""
    blocks: ClassVar[bool] = True
    resumes: ClassVar[bool] = True
    """For a non-blocking step: after its action the current step goes on if it still
    has a decision, else the turn moves on (False: the step moves the round itself)."""

    def actions(self, game: Game, rnd: Round, entity: Any) -> frozenset[str]:
        """The action types this step takes from ``entity`` now (empty: none)."""
        return frozenset()

    def candidates(self, game: Game, rnd: Round, entity: Any) -> list[Candidate]:
        """The step's candidate decisions for the operator ``entity`` now: a superset of
        the legal ones (the generator keeps those :meth:`check` accepts), reading the
        state only.  Default: none."""
        return []

    def takes(self, game: Game, rnd: Round, entity: Any, action: Action) -> bool:
        """Whether ``action`` is for this step now: its type is one of
        :meth:`actions` of the entity whose turn it is.  An override may look at the
        state and at the action's type and entity type, nothing else of the action (an
        operating round routes each type once per position while the legal actions are
        listed: :meth:`~rhineland.engine.rounds.operating.OperatingRound.route`)."""
        return action.type in self.actions(game, rnd, entity)

    def check(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """Raise ``GameError`` (with the rule id) unless ``action`` is legal now."""

    def complete(self, game: Game, rnd: Round, entity: Any, action: Action) -> bool:
        """Whether :meth:`check` alone decides ``action`` (its type is one of the
        :attr:`CHECKED` of this step's own class): a check that passes means
        :meth:`process` accepts it."""
        return action.type in type(self).__dict__.get("CHECKED", ())

    def apply(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """Apply a checked ``action``."""
        raise NotImplementedError

    def process(self, game: Game, rnd: Round, entity: Any, action: Action) -> None:
        """Check, then apply ``action``."""
        self.check(game, rnd, entity, action)
        self.apply(game, rnd, entity, action)
