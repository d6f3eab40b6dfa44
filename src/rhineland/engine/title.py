"""The title interface: static data plus the rule hooks in which titles differ.

The engine calls these hooks instead of testing the title's name.  Each title
package subclasses :class:`Title` in ``titles/<package>/rules.py`` and
overrides what its rules change; the defaults here are the common 18xx rules.
"""

from __future__ import annotations

from typing import ClassVar

from rhineland.engine.titledata import TitleData, load_title_data


class Title:
    """A title with one set of optional rules.

    Subclasses set ``name`` (the export's ``title``) and ``package`` (the
    module path of the title package holding ``data/``).
    """

    name: ClassVar[str] = ""
    package: ClassVar[str] = ""

    def __init__(self, optional_rules: tuple[str, ...] | list[str] = ()) -> None:
        self.optional_rules = tuple(sorted(optional_rules))
        self.data: TitleData = load_title_data(self.name, self.package, self.optional_rules)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self.optional_rules)!r})"
