"""rhineland: an engine and toolkit for the 18xx titles 18Rhl and 1893: Cologne.

Layers (imports point downward only)::

    cli/, io/        interfaces: command line, 18xx.games export JSON
    titles/<title>/  each title's data files and rule hooks
    routes/          route validation, revenue, best-route search
    engine/          title-independent 18xx machinery (game, rounds, shares, market, trains)
    board/           hex grid, tiles, upgrades, the placed-track graph

Money is in Mark (M) as integers throughout.  ``rhineland.native``: the optional build
of the hottest modules with mypyc (decided here, before they are imported).
"""

from rhineland import native  # noqa: F401 (first: it decides how the compiled modules load)
from rhineland.api import new_game
from rhineland.engine.game import Game
from rhineland.errors import ActionError, ExportError, GameError, RhinelandError
from rhineland.io.export import load_export, replay, to_export
from rhineland.routes.search import best_routes

__all__ = [
    "ActionError",
    "ExportError",
    "Game",
    "GameError",
    "RhinelandError",
    "best_routes",
    "load_export",
    "new_game",
    "replay",
    "to_export",
]
__version__ = "0.1.0"
