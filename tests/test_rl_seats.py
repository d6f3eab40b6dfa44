"""Agents and OpenSpiel players keep their seat all game.

``game.players`` is the priority order: 1893 turns it after the starting package draft
and after each stock round (the priority deal leads), so the player at index 0 changes
during a game.  The RL interfaces name players by table seat (``Game.seats``, the order
they were given in, player ids 1..n): ``player_k`` of the PettingZoo environment and
OpenSpiel's player ``k`` are always seat ``k``, the observation seen from seat ``k``
starts with that player's row, and the final rewards and returns go to the seat whose
score they are.  A whole random 1893 game (3 players), in which the order turns."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install -e '.[rl]')")

from rhineland.bots.base import decider
from rhineland.env import RhinelandEnv


def test_agents_keep_their_seat_all_game() -> None:
    e = RhinelandEnv("1893", 3, seed=4, max_actions=5000)
    e.reset()
    game = e.game
    assert game is not None
    seats = [pid for pid, _ in game.seats]
    rng = np.random.default_rng(4)
    turned = acted = 0
    players_at = e.encoder.as_dict(e.encoder.encode(game, 0))["players"]  # layout only
    assert players_at.shape == (3, 4)
    while not any(e.terminations.values()):
        agent = e.agent_selection
        k = int(agent.rsplit("_", 1)[1])
        assert decider(game) == seats[k]
        turned += [p.id for p in game.players] != seats
        for j in range(3):  # each seat sees itself first: its own cash in its row 0
            view = e.encoder.as_dict(e.observe(f"player_{j}")["observation"])
            assert view["players"][0, 0] == np.float32(game.player(seats[j]).cash / 1000)
        mask = e.observe(agent)["action_mask"]
        e.step(int(rng.choice(np.flatnonzero(mask))))
        acted += 1
    assert turned > 20 and acted > 100
    scores = game.result()
    best = max(scores.values())
    for k, pid in enumerate(seats):
        assert e.infos[f"player_{k}"]["score"] == scores[pid]
        assert e.rewards[f"player_{k}"] == (1.0 if scores[pid] == best else -1.0)


def test_openspiel_players_are_seats() -> None:
    pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed")
    import rhineland.rl.openspiel_game  # noqa: F401  (registers the games)

    spiel = pyspiel.load_game("python_rhineland_1893", {"players": 3, "seed": 4})
    state = spiel.new_initial_state()
    rng = np.random.default_rng(4)
    seats = [pid for pid, _ in state.game.seats]
    turned = 0
    while not state.is_terminal():
        player = state.current_player()
        assert decider(state.game) == seats[player]
        turned += [p.id for p in state.game.players] != seats
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert turned > 20
    scores = state.game.result()
    best = max(scores.values())
    assert state.returns() == [1.0 if scores[pid] == best else -1.0 for pid in seats]
