"""The engine's own error types.

Every illegal action raises :class:`GameError`, whose message names the rule
and the values involved; the game state is left exactly as it was.  Bad input
(a file that cannot be read, a malformed export, an action whose fields are of
the wrong type or name things the game does not have) raises
:class:`ExportError` with a one-line message; a malformed action raises its
subclass :class:`ActionError`, which also names the action, the field, what was
expected and what was found.
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
    """Input that cannot be used: an unreadable file, malformed JSON, an export whose
    shape, title, players or settings are wrong, or a malformed action.

    ``rule`` names what is wrong (``"input.json"``, ``"input.title"``, ...), ``action_id``
    the action concerned, when there is one.
    """

    def __init__(self, message: str, rule: str = "input", action_id: int | None = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.action_id = action_id


class ActionError(ExportError):
    """An action's fields are malformed: a wrong type, a value out of range, a missing
    or unknown field, or a name (player, company, hex, tile, train ...) the game does
    not have.

    The message is one line: ``action 12 (lay_tile): rotation: expected an integer
    0-5, found 99``; ``action_type``, ``field``, ``expected`` and ``found`` hold its parts.
    """

    def __init__(self, where: str, field: str, expected: str, found: str, *,
                 action_id: int | None = None, action_type: str = "") -> None:
        super().__init__(f"{where}: {field}: expected {expected}, found {found}",
                         "input.action", action_id)
        self.where = where
        self.action_type = action_type
        self.field = field
        self.expected = expected
        self.found = found
