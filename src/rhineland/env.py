"""A PettingZoo AEC environment for 18Rhl and 1893 (``pip install -e '.[rl]'``).

    from rhineland.env import env
    e = env("18Rhl", 4, seed=7)
    e.reset()
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else \\
            e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are ``player_0 .. player_{n-1}`` in seat order (``Game.seats``: player ids 1..n,
the same all game while the priority order turns).  The agent to
act is the player who decides now (the president of the operating company, the
bidder, ...).  An observation is ``{"observation": float32 vector, "action_mask":
int8 vector}``: the vector of :class:`rhineland.rl.ObservationEncoder` seen from that
seat, and the mask over :class:`rhineland.rl.ActionCodec`'s codes (all zeros for an
agent that does not act now).  An action is a code (``Discrete(codec.size)``).

Rewards come at the end only: +1 for each player with the highest final score (money
plus the value of shares and private companies, M), -1 for the others;
``infos[agent]["score"]`` holds the score.  The game is truncated after
``max_actions`` actions (no reward then).  An illegal code raises ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

try:
    import gymnasium
    import numpy as np
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError("rhineland.env needs the rl extra: pip install -e '.[rl]' "
                      f"({exc.name} is missing)") from exc

from rhineland.api import new_game
from rhineland.bots.base import decider
from rhineland.engine.game import Game
from rhineland.rl.actions import ActionCodec, LegalCodes
from rhineland.rl.observation import ObservationEncoder


class RhinelandEnv(AECEnv):  # type: ignore[misc]
    """The raw AEC environment (no wrappers; :func:`env` adds PettingZoo's checks).

    ``title``: ``"18Rhl"`` (3-6 players) or ``"1893"`` (2-4); ``seed``: the game's
    seed (the setup draws; ``reset(seed=...)`` overrides it); ``optional_rules``: the
    title's optional rules; ``max_actions``: truncation bound.  Raises ``GameError``
    for a player count or optional rule the title does not have."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "name": "rhineland_v0",
                "is_parallelizable": False}

    def __init__(self, title: str, num_players: int, seed: int | None = None,
                 optional_rules: Sequence[str] = (), max_actions: int = 6000,
                 render_mode: str | None = None) -> None:
        super().__init__()
        self.title = title
        self.num_players = num_players
        self.optional_rules = tuple(optional_rules)
        self.max_actions = max_actions
        self.render_mode = render_mode
        self._seed = seed
        self.codec = ActionCodec(title, num_players)
        self.encoder = ObservationEncoder(title, num_players)
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(-np.inf, np.inf, (self.encoder.size,),
                                                dtype=np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (self.codec.size,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: gymnasium.spaces.Discrete(self.codec.size)
                              for a in self.possible_agents}
        self.game: Game | None = None
        self._legal: LegalCodes | None = None
        self._no_mask = np.zeros(self.codec.size, dtype=np.int8)

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The same Dict space for every agent (see the module docstring)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """``Discrete(codec.size)`` for every agent."""
        return self.action_spaces[agent]

    # -- the game ------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game (``seed``: the game's seed; default the constructor's, else 0), or
        a copy of ``options["game"]`` (e.g. a replayed position of a real game; it must
        have this title and player count, else ``ValueError``)."""
        if seed is not None:
            self._seed = seed
        start = (options or {}).get("game")
        if start is not None:
            if (start.title.data.title, len(start.players)) != (self.title, self.num_players):
                raise ValueError(f"the game is not {self.title} with {self.num_players} "
                                 "players")
            self.game = start.copy()
        else:
            names = [f"P{i + 1}" for i in range(self.num_players)]
            self.game = new_game(self.title, names, seed=self._seed or 0,
                                 optional_rules=self.optional_rules)
        self.game.keep_history = False
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.num_actions = 0
        self._legal = None
        self.agent_selection = self._decider()

    def _decider(self) -> str:
        assert self.game is not None
        pid = decider(self.game)
        seat = next(i for i, (p, _) in enumerate(self.game.seats) if p == pid)
        return self.possible_agents[seat]

    def legal(self) -> LegalCodes:
        """The legal codes now (cached until the next step)."""
        assert self.game is not None, "call reset() first"
        if self._legal is None:
            self._legal = self.codec.legal(self.game)
        return self._legal

    def observe(self, agent: str) -> dict[str, Any]:
        """``agent``'s observation (see the module docstring)."""
        assert self.game is not None, "call reset() first"
        acting = (agent == self.agent_selection and not self.game.is_terminal
                  and not self.truncations.get(agent, False))
        mask = self.legal().mask if acting else self._no_mask
        return {"observation": self.encoder.encode(self.game, self._seat[agent]),
                "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Play code ``action`` for the selected agent (``None`` once it is done).
        Raises ``ValueError`` for a code that is not legal now."""
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        assert self.game is not None
        legal = self.legal()
        if action is None or int(action) not in legal:
            raise ValueError(f"action {action} is not legal now "
                             f"({len(legal.codes)} legal codes; see the action mask)")
        agent = self.agent_selection
        self._cumulative_rewards[agent] = 0.0
        # a legal code's action is legal (the generator is the check): no snapshot to undo to
        self.game.process(legal.action(int(action)), atomic=False)
        self._legal = None
        self.num_actions += 1
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.game.is_terminal:
            scores = self.game.result()
            best = max(scores.values())
            for a in self.agents:
                score = scores[self.game.seats[self._seat[a]][0]]
                self.rewards[a] = 1.0 if score == best else -1.0
                self.infos[a]["score"] = score
                self.terminations[a] = True
        elif self.num_actions >= self.max_actions:
            for a in self.agents:
                self.truncations[a] = True
        else:
            self.agent_selection = self._decider()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """One line: the round, whose turn, each player's cash (``"ansi"``: returned;
        ``"human"``: printed)."""
        if self.game is None:
            return None
        st = self.game.state
        label = st.round.label if st.round is not None else "-"
        cash = ", ".join(f"{p.name} {p.cash}M" for p in st.players)
        text = f"{self.title} {label}: {self.agent_selection} to act; {cash}"
        if self.render_mode == "human":
            print(text)
        return text

    def close(self) -> None:
        """Nothing to release."""


def env(title: str, num_players: int, seed: int | None = None,
        **kwargs: Any) -> AECEnv:
    """The PettingZoo factory: :class:`RhinelandEnv` wrapped in PettingZoo's order
    checks (``kwargs``: ``optional_rules``, ``max_actions``, ``render_mode``)."""
    raw = RhinelandEnv(title, num_players, seed=seed, **kwargs)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(raw))


raw_env = RhinelandEnv
