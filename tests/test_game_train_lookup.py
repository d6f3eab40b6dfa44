"""``Game.train`` looks a train up where it last found it, then checks: a state whose
trains are in another order (or another state) still gives the right train, and an
unknown id the engine's error."""

from __future__ import annotations

import pytest

from rhineland import GameError, new_game


def test_the_train_lookup_follows_the_state_it_is_asked_in() -> None:
    game = new_game("1893", ["A", "B", "C"], seed=1)
    trains = game.state.trains
    last = trains[-1]
    assert game.train(last.id) is last
    trains.reverse()  # the remembered position is stale now
    assert game.train(last.id) is last and trains[0] is last
    copy = game.copy()  # a clone's own train objects, found at the same places
    assert copy.train(last.id) is copy.state.trains[0] and copy.train(last.id) is not last
    with pytest.raises(GameError) as err:
        game.train("9-99")
    assert err.value.rule == "train.id"
