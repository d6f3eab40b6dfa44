"""1893's minors: the five minor companies of the Starting Package.  A minor floats when
bought with at least 100M in its treasury (:mod:`~rhineland.titles.g1893.starting_package`),
pays half of its revenue to its owner and keeps the rest (:func:`minor_half_pay`), and
merges into AGV or HGK (:mod:`~rhineland.titles.g1893.mergers`).  Source: seed ``001``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rhineland.engine.entities import Minor
    from rhineland.engine.game import Game


def minor_half_pay(game: Game, minor: Minor, revenue: int) -> None:
    """Pay a minor's revenue (M): half (rounded down) to its owner, the rest to the minor.

    Seed 001 ("Minor companies that merge"); the minor counts as operated.
    """
    owner = game.player(int(minor.owner)) if minor.owner is not None else None
    half = revenue // 2
    kept = revenue - half
    if owner is not None:
        game.pay(game.bank, owner, half)
    game.pay(game.bank, minor, kept)
    minor.operated = True
    game.add_log(f"{minor.sym} pays {half}M to its owner and keeps {kept}M")
