"""Rule sets: which reading of a title's rules a game plays.

* ``reference`` (the default): the rules as the reference engine (18xx.games) plays
  them, so that every exported game replays exactly.
* ``seed``: the rules as the seed summaries (``../shared/seeds``) state them where
  they state a rule (a mechanism, a number, an order) that the reference plays
  differently; everywhere else the reference behaviour (docs/rules-differences.md,
  "The seed rule set").

A rule set is chosen when a game is created (``new_game(..., rules="seed")``) and
kept with the title (:attr:`rhineland.engine.title.Title.rules`); each title picks
its steps and values for it in one place (its ``rule_set`` table).  An export of a
non-reference game records it under :data:`EXPORT_KEY` in ``settings``, a key the
reference never writes.
"""

from __future__ import annotations

from rhineland.errors import GameError

REFERENCE = "reference"
SEED = "seed"
RULE_SETS: tuple[str, ...] = (REFERENCE, SEED)
"""The rule sets every title offers."""
EXPORT_KEY = "rhineland_rules"
"""The export ``settings`` key naming a non-reference rule set (absent: ``reference``)."""


def check_rule_set(rules: str) -> str:
    """``rules`` when it names a rule set; raises ``GameError`` (``"setup.rules"``)."""
    if rules not in RULE_SETS:
        raise GameError(
            f"unknown rule set {rules!r} (rule sets: {', '.join(RULE_SETS)})", "setup.rules"
        )
    return rules
