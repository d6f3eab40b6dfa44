"""Bots: players for self-play, simulations, tournaments and the terminal game.

Every bot follows :class:`Bot` (``choose(game, entity) -> Action``):
:class:`RandomBot` (seeded, uniform), :class:`GreedyBot` (rules of thumb) and
:class:`MCTSBot` (Monte Carlo tree search with an iteration budget).
:func:`make_bot` builds one by name; :func:`play_game` plays a game with one bot
per seat.
"""

from __future__ import annotations

from rhineland.bots.base import Bot, BotGameError, PlayedGame, decider, materialize, play_game
from rhineland.bots.greedy import GreedyBot
from rhineland.bots.mcts import MCTSBot
from rhineland.bots.random_bot import RandomBot

BOT_NAMES = ("random", "greedy", "mcts")
"""The bot names :func:`make_bot` knows."""


def make_bot(name: str, seed: int = 0) -> Bot:
    """The bot called ``name`` (one of :data:`BOT_NAMES`), seeded with ``seed``;
    ``"mcts:N"`` is MCTS with ``N`` iterations per searched decision (default 8).
    Raises ``ValueError`` for an unknown name or a bad iteration count."""
    base, _, arg = name.partition(":")
    if base == "mcts":
        if arg and (not arg.isdigit() or int(arg) < 1):
            raise ValueError(f"bad MCTS iteration count {arg!r} in {name!r} (e.g. mcts:32)")
        return MCTSBot(int(arg) if arg else 8, seed=seed)
    if arg:
        raise ValueError(f"bot {base!r} takes no parameter ({name!r})")
    if base == "random":
        return RandomBot(seed)
    if base == "greedy":
        return GreedyBot(seed)
    raise ValueError(f"unknown bot {name!r} (bots: {', '.join(BOT_NAMES)}; mcts:N)")


__all__ = [
    "BOT_NAMES",
    "Bot",
    "BotGameError",
    "GreedyBot",
    "MCTSBot",
    "PlayedGame",
    "RandomBot",
    "decider",
    "make_bot",
    "materialize",
    "play_game",
]
