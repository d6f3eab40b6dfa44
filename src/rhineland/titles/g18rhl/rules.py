"""18Rhl (The Railways of the Rhineland): the rule hooks that differ from the defaults."""

from __future__ import annotations

from rhineland.engine.title import Title


class Rhl(Title):
    """18Rhl, 3-6 players (rules: the seed ``000`` summary and the reference facts)."""

    name = "18Rhl"
    package = "rhineland.titles.g18rhl"
