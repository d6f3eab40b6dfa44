"""The engine's own error types.

Every illegal action raises :class:`GameError`, whose message names the rule
and the values involved; the game state is left exactly as it was.  Bad input
files raise :class:`ExportError` with a one-line message.
"""

from __future__ import annotations


class RhinelandError(Exception):
    """Base class of every error rhineland raises on purpose."""


class GameError(RhinelandError):
    """An action is illegal under the title's rules.

    ``rule`` is a short name of the rule broken (e.g. ``"stock.cash"``), the
    message says what was tried and the values that made it illegal.
    """

    def __init__(self, message: str, rule: str = "") -> None:
        super().__init__(f"{message} [{rule}]" if rule else message)
        self.rule = rule


class ExportError(RhinelandError):
    """An export file cannot be read: malformed JSON, unknown title or action type."""
