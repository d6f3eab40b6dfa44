"""``RandomBot``: a seeded uniform choice among the legal actions."""

from __future__ import annotations

import random

from rhineland.bots.base import materialize
from rhineland.engine.actions import Action
from rhineland.engine.game import Game


class RandomBot:
    """Plays a uniformly random entry of ``game.legal_actions()`` (each amount range
    and the run-routes choice count as one entry), then a range's amount uniformly
    (:func:`~rhineland.bots.base.materialize`); a run is the best routes.

    ``seed`` makes its play reproducible (the same seed and game give the same moves).
    Raises ``RuntimeError`` when no action is legal (the game is over)."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: Game, entity: int) -> Action:
        """A random legal action (see the class docstring)."""
        choices = game.legal_actions()
        if not choices:
            raise RuntimeError(f"no legal action in {game.round.label}")
        return materialize(game, choices[self.rng.randrange(len(choices))], self.rng)
