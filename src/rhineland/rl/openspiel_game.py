"""OpenSpiel python games for 18Rhl and 1893 (``pip install -e '.[openspiel]'``).

Importing this module registers two games with ``pyspiel``:

* ``python_rhineland_18rhl`` (parameters ``players`` 3-6, default 4; ``seed``, default 0;
  ``max_game_length``, default 6000 actions),
* ``python_rhineland_1893`` (``players`` 2-4, default 3; ``seed``; ``max_game_length``).

    import pyspiel
    import rhineland.rl.openspiel_game  # registers the games
    game = pyspiel.load_game("python_rhineland_18rhl", {"players": 3, "seed": 7})

A state is a rhineland game: its actions are the codes of
:class:`rhineland.rl.ActionCodec` (``num_distinct_actions`` = the codec's size), its
legal actions the codes legal now (sorted), the current player the seat (0-based) of
the player who decides.  The games are deterministic (the setup draws come from
``seed``), sequential, with perfect information; the observation tensor is
:class:`rhineland.rl.ObservationEncoder`'s vector from the player's seat (the
information state is the same: every fact is public).  Returns come at the end: +1
for each player with the highest score, -1 for the others; a game cut at
``max_game_length`` actions ends with 0 for everyone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

try:
    import numpy as np
    import pyspiel
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError("rhineland.rl.openspiel_game needs the openspiel extra: "
                      f"pip install -e '.[openspiel]' ({exc.name} is missing)") from exc

from rhineland.api import new_game
from rhineland.bots.base import decider
from rhineland.engine.game import Game
from rhineland.rl.actions import ActionCodec, LegalCodes
from rhineland.rl.observation import ObservationEncoder

TITLES = {"python_rhineland_18rhl": ("18Rhl", 3, 6, 4),
          "python_rhineland_1893": ("1893", 2, 4, 3)}
"""Short name -> (title, fewest players, most players, default players)."""
MAX_GAME_LENGTH = 6000


def _game_type(short_name: str) -> Any:
    title, lo, hi, default = TITLES[short_name]
    return pyspiel.GameType(
        short_name=short_name,
        long_name=f"rhineland {title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=hi,
        min_num_players=lo,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": default, "seed": 0,
                                 "max_game_length": MAX_GAME_LENGTH})


@dataclass(frozen=True)
class GameSpec:
    """What the states of one loaded game share: title, seats, seed, length bound, the
    codec and the encoder (never copied: a state's clone shares it)."""

    title: str
    num_seats: int
    seed: int
    max_length: int
    codec: ActionCodec
    encoder: ObservationEncoder

    def __deepcopy__(self, memo: dict[int, Any]) -> GameSpec:
        return self


class Position:
    """A state's rhineland game (made on first use) and its legal codes; a deep copy
    (OpenSpiel's clone deep-copies a state's attributes) is the game's cheap
    :meth:`~rhineland.engine.game.Game.copy`."""

    def __init__(self, spec: GameSpec, game: Game | None = None) -> None:
        self.spec = spec
        self._game = game
        self.legal: LegalCodes | None = None

    @property
    def game(self) -> Game:
        """The game (a new one from the spec's seed on first use)."""
        if self._game is None:
            spec = self.spec
            self._game = new_game(spec.title, [f"P{i + 1}" for i in range(spec.num_seats)],
                                  seed=spec.seed)
            self._game.keep_history = False
        return self._game

    def __deepcopy__(self, memo: dict[int, Any]) -> Position:
        return Position(self.spec, self.game.copy())


class RhinelandGame(pyspiel.Game):  # type: ignore[misc]
    """An OpenSpiel game of one title (``short_name``: a key of :data:`TITLES`).
    Raises ``GameError`` for a player count the title does not have."""

    short_name = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        title, _, _, default = TITLES[self.short_name]
        seats = int(params.get("players", default))
        self.spec = GameSpec(title, seats, int(params.get("seed", 0)),
                             int(params.get("max_game_length", MAX_GAME_LENGTH)),
                             ActionCodec(title, seats), ObservationEncoder(title, seats))
        info = pyspiel.GameInfo(
            num_distinct_actions=self.spec.codec.size,
            max_chance_outcomes=0,
            num_players=seats,
            min_utility=-1.0,
            max_utility=1.0,
            max_game_length=self.spec.max_length)
        super().__init__(_game_type(self.short_name), info, params)

    def new_initial_state(self) -> RhinelandState:
        """A new game from the seed."""
        return RhinelandState(self)

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: dict[str, Any] | None = None) -> RhinelandObserver:
        """The observer: the encoder's vector (public information only)."""
        return RhinelandObserver(self.spec, params)


class Rhineland18RhlGame(RhinelandGame):
    """``python_rhineland_18rhl``."""

    short_name = "python_rhineland_18rhl"


class Rhineland1893Game(RhinelandGame):
    """``python_rhineland_1893``."""

    short_name = "python_rhineland_1893"


class RhinelandState(pyspiel.State):  # type: ignore[misc]
    """A position of a rhineland game (see the module docstring)."""

    def __init__(self, game: RhinelandGame) -> None:
        super().__init__(game)
        self._spec = game.spec
        self._pos = Position(game.spec)
        self.num_actions = 0

    @property
    def game(self) -> Game:
        """The rhineland game at this state."""
        return self._pos.game

    def legal(self) -> LegalCodes:
        """The legal codes now (cached until the next action)."""
        if self._pos.legal is None:
            self._pos.legal = self._spec.codec.legal(self.game)
        return self._pos.legal

    def current_player(self) -> int:
        """The seat that decides, or ``pyspiel.PlayerId.TERMINAL``."""
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        pid = decider(self.game)
        return next(i for i, (p, _) in enumerate(self.game.seats) if p == pid)

    def _legal_actions(self, player: int) -> list[int]:
        if self.is_terminal() or player != self.current_player():
            return []
        return sorted(self.legal().codes)

    def _apply_action(self, action: int) -> None:
        legal = self.legal()
        if int(action) not in legal:  # as the PettingZoo env says it (the state untouched)
            raise ValueError(f"action {action} is not legal now ({len(legal.codes)} legal "
                             "codes; see legal_actions())")
        self.game.process(legal.action(int(action)))
        self._pos.legal = None
        self.num_actions += 1

    def _action_to_string(self, player: int, action: int) -> str:
        block, slot = self._spec.codec.describe(int(action))
        return f"{block} {slot}" if slot != () else block

    def is_terminal(self) -> bool:
        """Whether the game ended (or reached ``max_game_length`` actions)."""
        return self.game.is_terminal or self.num_actions >= self._spec.max_length

    def returns(self) -> list[float]:
        """+1 for the top scores, -1 for the others, once the game ended (else zeros)."""
        if not self.game.is_terminal:
            return [0.0] * self._spec.num_seats
        scores = self.game.result()
        best = max(scores.values())
        return [1.0 if scores[pid] == best else -1.0 for pid, _ in self.game.seats]

    def __str__(self) -> str:
        st = self.game.state
        label = st.round.label if st.round is not None else "-"
        cash = ", ".join(f"{p.name} {p.cash}M" for p in st.players)
        return f"{self._spec.title} {label} after {self.num_actions} actions; {cash}"


class RhinelandObserver:
    """The PyObserver of a rhineland game: ``tensor`` is the encoder's vector from the
    player's seat, ``dict`` its segments."""

    def __init__(self, spec: GameSpec, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self._encoder = spec.encoder
        self.tensor = np.zeros(spec.encoder.size, np.float32)
        self.dict = spec.encoder.as_dict(self.tensor)

    def set_from(self, state: RhinelandState, player: int) -> None:
        """Fill ``tensor`` with ``state`` seen from seat ``player``."""
        self.tensor[:] = self._encoder.encode(state.game, player)

    def string_from(self, state: RhinelandState, player: int) -> str:
        """The state as text with the history length (every fact is public)."""
        return f"{state} (seat {player})"


for _cls in (Rhineland18RhlGame, Rhineland1893Game):
    pyspiel.register_game(_game_type(_cls.short_name), _cls)
