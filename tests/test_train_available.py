"""``TrainRules.train_available`` (asked by every train purchase check) answers as the
list it stands for, ``available_depot_trains``: at every position of seeded random games
of both titles, for every train of the game (depot, owned, open market, rusted)."""

from __future__ import annotations

import pytest

from play import random_positions
from rhineland.sim.selfplay import TITLE_PLAYERS

ACTIONS = 900


@pytest.mark.parametrize("title", sorted(TITLE_PLAYERS))
def test_train_available_equals_the_list(title: str) -> None:
    asked = available = market = 0
    for game in random_positions(title, 6, ACTIONS):
        listed = game.title.available_depot_trains(game)
        for train in game.state.trains:
            expected = train in listed
            assert game.title.train_available(game, train) == expected
            asked += 1
            available += expected
            market += expected and train.owner is not None
    assert asked > 1000 and 0 < available < asked and market > 0
