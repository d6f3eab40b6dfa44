"""Title registry: each title's data and rule hooks live in its own package."""

from __future__ import annotations

from rhineland.engine.ruleset import REFERENCE
from rhineland.engine.title import Title
from rhineland.errors import ExportError
from rhineland.titles.g18rhl.rules import Rhl
from rhineland.titles.g1893.rules import Cologne

TITLES: dict[str, type[Title]] = {Rhl.name: Rhl, Cologne.name: Cologne}


def get_title(name: str, optional_rules: tuple[str, ...] | list[str] = (),
              rules: str = REFERENCE) -> Title:
    """The title called ``name`` (as in an export's ``title``) with those optional rules,
    played by the rule set ``rules`` (:mod:`rhineland.engine.ruleset`).

    Raises :class:`ExportError` for a title rhineland does not implement, ``GameError``
    (``"setup.rules"``) for an unknown rule set.
    """
    cls = TITLES.get(name)
    if cls is None:
        raise ExportError(f"unknown title {name!r} (rhineland plays: {', '.join(TITLES)})")
    return cls(tuple(optional_rules), rules)


def canonical_title(name: str) -> str:
    """The title's name as rhineland spells it (``"18rhl"`` -> ``"18Rhl"``), matched in
    any letter case, for names a person types; a name of no title comes back unchanged
    (:func:`get_title` then refuses it).  Exports keep the exact spelling."""
    for known in TITLES:
        if known.lower() == name.lower():
            return known
    return name
