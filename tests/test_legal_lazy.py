"""The lazily tried decisions of the random player (``LazyChoices``) are exactly
``legal_actions()``: at every 7th position of random games of both titles (the
positions a seeded random player reaches, optional rules mixed), and the random
choice takes only legal actions (each is processed)."""

from __future__ import annotations

import pytest

from play import random_positions
from rhineland import Game
from rhineland.engine.legal import AmountRange, RouteChoice, choice_key
from rhineland.engine.legal.lazy import LazyChoices
from rhineland.sim.selfplay import TITLE_PLAYERS

EVERY = 7
ACTIONS = 600


def _keys(game: Game, choices: list) -> list[tuple]:  # type: ignore[type-arg]
    out: list[tuple] = []  # type: ignore[type-arg]
    for c in choices:
        if isinstance(c, RouteChoice):
            out.append(("run_routes", c.entity))
        elif isinstance(c, AmountRange):
            out.append((choice_key(game, c.action), c.min, c.max, c.step))
        else:
            out.append(choice_key(game, c))
    return out


@pytest.mark.parametrize("seed", [3, 8])
@pytest.mark.parametrize("title", sorted(TITLE_PLAYERS))
def test_lazy_entries_are_the_legal_actions(title: str, seed: int) -> None:
    compared = 0
    for count, game in enumerate(random_positions(title, seed, ACTIONS)):
        if count % EVERY == 0:
            lazy = LazyChoices(game).all_legal()
            assert _keys(game, lazy) == _keys(game, game.legal_actions())
            compared += 1
    assert compared >= 20
