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
    """The bot called ``name`` (one of :data:`BOT_NAMES`), seeded with ``seed``.
    Raises ``ValueError`` for an unknown name."""
    if name == "random":
        return RandomBot(seed)
    if name == "greedy":
        return GreedyBot(seed)
    if name == "mcts":
        return MCTSBot(seed=seed)
    raise ValueError(f"unknown bot {name!r} (bots: {', '.join(BOT_NAMES)})")


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
