"""The OpenSpiel python games: OpenSpiel's own random simulation checks (legal actions,
clones, observations, returns, to the end of a game) and the adapter's real values.

Skipped when ``open_spiel`` is not installed (``pip install -e '.[openspiel]'``)."""

from __future__ import annotations

import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="open_spiel is not installed (pip install -e '.[openspiel]')")

import rhineland.rl.openspiel_game  # noqa: E402,F401  (registers the games)
from rhineland.rl import ActionCodec, ObservationEncoder  # noqa: E402


def test_1893_random_game_passes_openspiel_checks() -> None:
    """A whole random 1893 game (2 players) through ``pyspiel.random_sim_test``."""
    game = pyspiel.load_game("python_rhineland_1893", {"players": 2, "seed": 3})
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_18rhl_random_play_passes_openspiel_checks_to_the_length_bound() -> None:
    """18Rhl (3 players): ``random_sim_test`` over 400 actions (the game is cut there)."""
    game = pyspiel.load_game("python_rhineland_18rhl",
                             {"players": 3, "seed": 5, "max_game_length": 400})
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_game_shape_and_clone_independence() -> None:
    game = pyspiel.load_game("python_rhineland_18rhl", {"players": 4})
    assert game.num_players() == 4
    assert game.num_distinct_actions() == ActionCodec("18Rhl", 4).size
    state = game.new_initial_state()
    assert state.current_player() == 0
    legal = state.legal_actions()
    assert legal == sorted(legal) and len(legal) > 1
    clone = state.clone()
    state.apply_action(legal[0])
    assert len(clone.history()) == 0 and state.history() == [legal[0]]
    assert clone.legal_actions() == legal
    assert len(state.observation_tensor(1)) == game.observation_tensor_size()
    # 18Rhl with 4 players: 450 M each at the start (seat-relative cash, M / 1000)
    enc = ObservationEncoder("18Rhl", 4)
    players = next(seg for seg in enc.layout if seg.name == "players")
    first = clone.observation_tensor(2)
    cash = [first[players.offset + 4 * i] for i in range(4)]
    assert cash == pytest.approx([0.45] * 4)
    assert not state.is_terminal() and state.returns() == [0.0] * 4
    # an illegal code: the engine's message, the state untouched
    illegal = next(code for code in range(game.num_distinct_actions())
                   if code not in clone.legal_actions())
    with pytest.raises(Exception, match=f"action {illegal} is not legal now") as err:
        clone.apply_action(illegal)
    assert "KeyError" not in repr(err.value)
    assert clone.history() == [] and clone.legal_actions() == legal


def test_1893_random_game_ends_with_returns_from_the_scores() -> None:
    """A seeded random 1893 game through the pyspiel state API ends (not cut at the length
    bound); the returns are +1 for the top score and -1 for the other seat or seats."""
    import random

    game = pyspiel.load_game("python_rhineland_1893", {"players": 2, "seed": 11})
    state = game.new_initial_state()
    rng = random.Random(11)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    assert state.game.is_terminal and state.current_player() == pyspiel.PlayerId.TERMINAL
    scores = state.game.result()
    top = max(scores.values())
    assert state.returns() == [1.0 if scores[pid] == top else -1.0
                               for pid, _ in state.game.seats]
    assert sorted(state.returns()) == [-1.0, 1.0] or len(set(scores.values())) == 1
    assert len(state.history()) > 100
