"""The PettingZoo AEC environment: PettingZoo's own API test for both titles, seeding,
and the end of a real game played through the environment (rewards from its scores)."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo")
np = pytest.importorskip("numpy")

from pettingzoo.test import api_test  # noqa: E402

from reference import SHARED, needs_shared  # noqa: E402
from rhineland.env import RhinelandEnv, env  # noqa: E402
from rhineland.io.export import load_export, replay  # noqa: E402


# the warnings: PettingZoo's own masked environments (classic) give them too: the
# observation is the {"observation", "action_mask"} dict of its masking convention
@pytest.mark.filterwarnings("ignore:Observation space for each agent:UserWarning")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning")
@pytest.mark.parametrize(("title", "players"), [("18Rhl", 3), ("1893", 2)])
def test_pettingzoo_api_test(title: str, players: int) -> None:
    api_test(env(title, players, seed=1), num_cycles=200, verbose_progress=False)


def _play(e: RhinelandEnv, steps: int, seed: int) -> list[int]:
    rng = np.random.default_rng(seed)
    e.reset()
    played = []
    for _ in range(steps):
        obs, _, term, trunc, _ = e.last()
        mask = obs["action_mask"]
        assert mask.sum() >= 1 and not (term or trunc)
        code = int(rng.choice(np.flatnonzero(mask)))
        played.append(code)
        e.step(code)
    return played


def test_same_seed_same_game() -> None:
    """Two environments with seed 5 and the same codes reach the same observation; the
    agent to act is always the one whose mask is not empty."""
    a, b = RhinelandEnv("18Rhl", 4, seed=5), RhinelandEnv("18Rhl", 4, seed=5)
    _play(a, 60, seed=9)
    _play(b, 60, seed=9)
    assert a.game is not None and b.game is not None
    assert len(a.game.log) == len(b.game.log)
    for agent in a.possible_agents:
        oa, ob = a.observe(agent), b.observe(agent)
        assert np.array_equal(oa["observation"], ob["observation"])
        assert np.array_equal(oa["action_mask"], ob["action_mask"])
        assert (oa["action_mask"].sum() > 0) == (agent == a.agent_selection)


def test_illegal_code_is_refused() -> None:
    e = RhinelandEnv("1893", 3, seed=0)
    e.reset()
    mask = e.observe(e.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="not legal now"):
        e.step(illegal)
    assert e.num_actions == 0


@needs_shared
def test_last_action_of_the_real_game_ends_it_with_the_winner_rewarded() -> None:
    """The real 18Rhl game (bank broken): from the position before its last recorded
    action, that action's code ends the game; the rewards are +1 for the top score of
    the recorded result and -1 for the others, and the scores are the game's."""
    export = load_export(SHARED / "fixtures" / "18Rhl" / "18Rhl_end_bank.json")
    final = replay(export)
    before = replay(export, until=export.actions[-2].id)
    n = len(before.players)
    e = RhinelandEnv("18Rhl", n)
    e.reset(options={"game": before})
    agent = e.agent_selection
    last = export.actions[-1]  # ADR passes (buys no train)
    code = e.codec.encode(before, last)
    assert e.codec.describe(code) == ("pass", ())
    e.step(code)
    assert all(e.terminations.values())
    scores = final.result()
    best = max(scores.values())
    for i, a in enumerate(e.possible_agents):
        pid = final.players[i].id
        assert e.infos[a]["score"] == scores[pid]
        assert e._cumulative_rewards[a] == (1.0 if scores[pid] == best else -1.0)
    assert agent in e.possible_agents
