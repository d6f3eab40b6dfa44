"""rhineland: an engine and toolkit for the 18xx titles 18Rhl and 1893: Cologne.

Layers (imports point downward only)::

    cli/, io/        interfaces: command line, 18xx.games export JSON
    titles/<title>/  each title's data files and rule hooks
    routes/          route validation, revenue, best-route search
    engine/          title-independent 18xx machinery (game, rounds, shares, market, trains)
    board/           hex grid, tiles, upgrades, the placed-track graph

Money is in Mark (M) as integers throughout.
"""

from rhineland.errors import ActionError, ExportError, GameError, RhinelandError

__all__ = ["ActionError", "ExportError", "GameError", "RhinelandError"]
__version__ = "0.1.0"
