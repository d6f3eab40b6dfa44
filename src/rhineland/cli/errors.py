"""How the ``rhineland`` command reports a failure: one line, the documented exit status.

Four kinds of failure, each with its exit status:

* ``illegal_action`` (1): an action of the export breaks a rule; ``action_id`` and
  ``rule`` name it;
* ``bad_input`` (2): the file cannot be read or is not a valid export (malformed JSON,
  unknown title, a malformed action: ``rule`` ``"input.*"``);
* ``bad_argument`` (2): an option value the command cannot use (``--until``/``--before``
  naming an action the export does not have, ``--entity`` naming no company, an output
  path that cannot be written, ...);
* ``engine_error`` (1): a game of ``simulate`` or ``tournament`` failed (an exception in
  the engine or a bot, or a broken check); the message names the game and its export.

As text the failure is ``error: <message>`` on standard error; with ``--json`` it is the
object ``{"error": {"kind", "action_id", "rule", "message"}}`` on one line there.
"""

from __future__ import annotations

import sys
from typing import NoReturn

import click
import orjson

from rhineland.errors import ExportError, GameError

EXIT_CODES = {"illegal_action": 1, "bad_input": 2, "bad_argument": 2, "engine_error": 1}


def report(kind: str, message: str, *, as_json: bool = False, action_id: int | None = None,
           rule: str | None = None) -> int:
    """Print the failure (text or JSON) on standard error and return its exit status."""
    if as_json:
        body = {"kind": kind, "action_id": action_id, "rule": rule or None, "message": message}
        click.echo(orjson.dumps({"error": body}).decode(), err=True)
    else:
        click.echo(f"error: {message}", err=True)
    return EXIT_CODES[kind]


def fail(kind: str, message: str, *, as_json: bool = False, action_id: int | None = None,
         rule: str | None = None) -> NoReturn:
    """:func:`report` the failure and exit with its status."""
    sys.exit(report(kind, message, as_json=as_json, action_id=action_id, rule=rule))


def fail_input(exc: ExportError, as_json: bool) -> NoReturn:
    """Exit for unusable input: a bad argument when the export has no such action,
    otherwise bad input."""
    kind = "bad_argument" if exc.rule.startswith("argument") else "bad_input"
    fail(kind, str(exc), as_json=as_json, action_id=exc.action_id, rule=exc.rule)


def fail_illegal(action_id: int | None, reason: str, rule: str, as_json: bool) -> NoReturn:
    """Exit for the illegal action ``action_id``: ``reason`` is the rule's message (a
    :class:`GameError`'s text, ending in ``[rule]``)."""
    if as_json:
        message = reason.removesuffix(f" [{rule}]") if rule else reason
        fail("illegal_action", f"illegal action {action_id}: {message}", as_json=True,
             action_id=action_id, rule=rule)
    fail("illegal_action", f"illegal action {action_id}: {reason}")


def fail_game(exc: GameError, as_json: bool) -> NoReturn:
    """Exit for a refusal that is no action of the export (an argument the position
    cannot serve): a bad argument."""
    fail("bad_argument", str(exc), as_json=as_json, rule=exc.rule)
