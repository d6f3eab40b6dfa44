"""1893: Cologne: the rule hooks that differ from the defaults."""

from __future__ import annotations

from rhineland.engine.title import Title


class Cologne(Title):
    """1893: Cologne, 2-4 players (rules: the seed ``001`` summary and the reference facts)."""

    name = "1893"
    package = "rhineland.titles.g1893"
