"""1893: Cologne route rules.

Rule sources: the seed ``001`` summary and the reference facts.  1893 runs on
the common rules (:class:`~rhineland.routes.rules.RevenueRules`) with these
specifics:

* Trains 2..6 count every stop, towns included (plain integer distance).
* The 8+x-train pays up to 8 cities/offboards and any number of towns
  (its distance rules: cities/offboards visit 8, towns visit 99).
* Routes may start and end at towns (Leverkusen, the A4 town offboard...).
* The neutral token printed in H5 (marker ``"N"``) fills the slot but never
  blocks; HGK's home token printed in J5 stands for HGK's token.
* The Rhine passages (L5, S6; closed in phase 2) and the tile blocks (N5,
  P5) restrict tile lays only; routes use whatever track is on the map.
"""

from __future__ import annotations

from rhineland.engine.titledata import TitleData
from rhineland.routes.rules import RevenueRules

NEUTRAL_MARKER = "N"


class CologneRevenue(RevenueRules):
    """1893 route rules: the common ones plus H5's neutral token."""

    SEARCH_BOUNDS_CHECKED = True  # the common search profile's bounds hold for 1893
    neutral_markers = frozenset({NEUTRAL_MARKER})
    towns_may_end = True

    @classmethod
    def for_data(cls, data: TitleData) -> CologneRevenue:
        """The rules for ``data`` (1893 has no constants that change routes)."""
        return cls()
