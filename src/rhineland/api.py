"""The public API in one place: start a game, replay an export, list legal actions.

``from rhineland import Game, new_game, load_export, replay, to_export, best_routes,
GameError`` gives everything a bot or a script needs; see docs/python-api.md.
"""

from __future__ import annotations

from collections.abc import Sequence

from rhineland.engine.game import Game
from rhineland.titles import get_title


def new_game(title: str, player_names: Sequence[str], *, seed: int = 0,
             optional_rules: Sequence[str] = (), rules: str = "reference") -> Game:
    """A new game of ``title`` (``"18Rhl"`` or ``"1893"``) for ``player_names`` in seat
    order (player ids 1, 2, ...), with ``seed`` and the title's ``optional_rules``,
    played by the rule set ``rules``: ``"reference"`` (18xx.games' rules, the default)
    or ``"seed"`` (the rules as the seed summaries state them; docs/rules-differences.md).

    Raises :class:`~rhineland.errors.ExportError` for an unknown title and
    ``GameError`` for a player count, an optional rule the title does not have or an
    unknown rule set (``"setup.rules"``).
    """
    players = [(i + 1, str(n)) for i, n in enumerate(player_names)]
    return Game(get_title(title, tuple(optional_rules), rules), players, seed)
