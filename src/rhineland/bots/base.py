"""The bot protocol and what every bot shares: turning a legal choice into an action,
and playing a whole game with one bot per seat.

A bot is anything with ``choose(game, entity) -> Action``: ``entity`` is the id of
the player who decides now (one of ``game.acting_entities()``), and the action
returned must be one ``game.process`` accepts (an entry of
``game.legal_actions()``, with a range's amount and a run's routes filled in).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from rhineland.api import new_game
from rhineland.engine.actions import Action
from rhineland.engine.game import Game
from rhineland.engine.legal import AmountRange, Choice, RouteChoice


@runtime_checkable
class Bot(Protocol):
    """A player: picks one legal action for player ``entity`` (a player id) in ``game``.

    ``choose`` must not change ``game`` (bots that look ahead work on copies)."""

    name: str

    def choose(self, game: Game, entity: int) -> Action:
        """A legal action for player ``entity`` now (``game`` is left unchanged)."""
        ...


def action_of(choice: Choice) -> Action | None:
    """The action a legal choice stands for (a range's lowest amount); ``None`` for a
    run-routes choice (its routes are searched on demand)."""
    if isinstance(choice, AmountRange):
        return choice.action
    if isinstance(choice, RouteChoice):
        return None
    return choice


def materialize(game: Game, choice: Choice, rng: random.Random | None = None) -> Action:
    """The action to process for ``choice``: a plain action as it is, a range at an
    amount drawn uniformly with ``rng`` (its lowest amount without ``rng``), a route
    choice as its best routes."""
    if isinstance(choice, AmountRange):
        if rng is None:
            return choice.at(choice.min)
        values = choice.values()
        return choice.at(values[rng.randrange(len(values))])
    if isinstance(choice, RouteChoice):
        return choice.best(game)
    return choice


def decider(game: Game) -> int:
    """The player who decides now: the first of ``game.acting_entities()`` (several
    are listed only for a company in receivership, which any of them may run).
    Raises ``RuntimeError`` when nobody may act (the game is over)."""
    ids = game.acting_entities()
    if not ids or game.is_terminal:
        raise RuntimeError("nobody may act: the game is over")
    return ids[0]


@dataclass
class PlayedGame:
    """A game played by bots to its end (or to ``max_actions``).

    ``seats`` are the bot names by player id; ``result`` the final score (M) by
    player id (empty when the game did not finish); ``actions`` the actions
    processed; ``rounds`` the rounds begun (auction, stock, operating ...)."""

    game: Game
    seats: dict[int, str]
    finished: bool
    end_reason: str | None
    actions: int
    rounds: int
    result: dict[int, int] = field(default_factory=dict)


def play_game(title: str, bots: Sequence[Bot], *, seed: int = 0,
              optional_rules: Sequence[str] = (), max_actions: int = 6000,
              names: Sequence[str] | None = None, rules: str = "reference",
              on_action: Callable[[Game, Action], Any] | None = None) -> PlayedGame:
    """Play one game of ``title`` with ``bots[i]`` in seat ``i`` (player id ``i + 1``)
    from :func:`rhineland.new_game` (``seed``, ``optional_rules``, the rule set
    ``rules``) until it ends or
    ``max_actions`` actions were processed.  ``on_action(game, action)`` runs after
    each action.  Raises ``GameError`` if a bot returns an illegal action, and the
    errors of the engine as they come (the caller keeps the game: see
    :class:`BotGameError`)."""
    player_names = list(names) if names is not None else [f"P{i + 1}" for i in range(len(bots))]
    game = new_game(title, player_names, seed=seed, optional_rules=optional_rules,
                    rules=rules)
    game.keep_history = False
    by_id = {p.id: bot for p, bot in zip(game.players, bots, strict=True)}
    seats = {pid: bot.name for pid, bot in by_id.items()}
    count = 0
    rounds = 1
    label = game.round.label
    try:
        while not game.is_terminal and count < max_actions:
            pid = decider(game)
            action = by_id[pid].choose(game, pid)
            game.process(action)
            count += 1
            if on_action is not None:
                on_action(game, action)
            if not game.is_terminal and game.round.label != label:
                label = game.round.label
                rounds += 1
    except Exception as exc:
        raise BotGameError(game, exc) from exc
    return PlayedGame(game, seats, game.is_terminal, game.state.game_end_reason, count, rounds,
                      game.result() if game.is_terminal else {})


class BotGameError(Exception):
    """An error raised while bots played ``game`` (the game as it stood, for its export)."""

    def __init__(self, game: Game, cause: BaseException) -> None:
        super().__init__(f"{type(cause).__name__}: {cause}")
        self.game = game
        self.cause = cause
