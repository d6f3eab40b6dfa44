"""Legal actions: what every entity may do now, concrete and processable as-is.

* :func:`legal_actions` (``Game.legal_actions``): plain actions,
  :class:`AmountRange` for amounts (bids, prices), :class:`RouteChoice` for
  running trains;
* :func:`choice_key`: what decides an action (to compare a recorded action with a
  listed one);
* :class:`Trial`: the rules' own check (``process``) applied and undone, behind
  ``Game.is_legal`` and the generator alike.
"""

from rhineland.engine.legal.choices import (
    AmountRange,
    Choice,
    RouteChoice,
    choice_key,
    find_choice,
)
from rhineland.engine.legal.generate import expand, legal_actions
from rhineland.engine.legal.trial import Trial

__all__ = [
    "AmountRange",
    "Choice",
    "RouteChoice",
    "Trial",
    "choice_key",
    "expand",
    "find_choice",
    "legal_actions",
]
