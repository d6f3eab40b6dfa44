"""The game's seeded random number generator, and 18Rhl's variable icons.

Both titles draw from the same linear congruential generator as the reference
engine (constants in ``game.json`` ``rng``; reference facts ``rules.rand_a``,
``rand_c``, ``rand_m``)::

    state0 = seed mod m
    state  = (a * state + c) mod m      # each draw; the draw returns the new state

with a = 1103515245, c = 12345, m = 2**31.  The seed is the export's
``settings.seed``. Only 18Rhl draws during setup, to place the
variable coal mine and steelworks icons (reference facts ``variable_icons``);
1893 makes no draws.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

RAND_A = 1103515245
"""Multiplier of the linear congruential generator."""
RAND_C = 12345
"""Increment of the linear congruential generator."""
RAND_M = 2**31
"""Modulus of the linear congruential generator (2^31)."""


class GameRandom:
    """Seeded linear congruential generator: ``state = (a * state + c) mod m``.

    The state starts at ``seed mod m``; :meth:`draw` advances it once and
    returns the new state (an integer in ``0 .. m-1``).  The default constants
    are the reference engine's (both titles); pass a title's ``TitleData.rng``
    triple as ``constants`` to take them from the data.
    """

    __slots__ = ("a", "c", "m", "state")

    def __init__(
        self, seed: int, constants: tuple[int, int, int] = (RAND_A, RAND_C, RAND_M)
    ) -> None:
        self.a, self.c, self.m = constants
        self.state = seed % self.m

    def draw(self) -> int:
        """Advance the generator once and return the new state."""
        self.state = (self.a * self.state + self.c) % self.m
        return self.state

    def __repr__(self) -> str:
        return f"GameRandom(state={self.state})"


@dataclass(frozen=True, slots=True)
class IconPlacement:
    """Where 18Rhl's variable coal (``"K"``) and steel (``"S"``) icons go.

    ``value`` is the 1-based number of the placement in ``game.json``
    ``variable_icons.placements`` (the reference's table ``value``).
    """

    value: int
    coal_hex: str
    steel_hex: str
    coal_icon: str = "K"
    steel_icon: str = "S"

    def icons_by_hex(self) -> dict[str, list[str]]:
        """Hex id -> icon names added there by this placement."""
        out: dict[str, list[str]] = {}
        out.setdefault(self.coal_hex, []).append(self.coal_icon)
        out.setdefault(self.steel_hex, []).append(self.steel_icon)
        return out


def pick_variable_icons(rng: GameRandom, variable_icons: Mapping[str, Any]) -> IconPlacement:
    """Draw once from ``rng`` and choose 18Rhl's variable icon placement.

    ``variable_icons`` is the title's ``game.json`` ``variable_icons`` record
    (``TitleData.variable_icons``): ``placements`` is a list of
    ``[coal hex, steel hex]`` pairs (nine for 18Rhl) and ``icons`` the icon
    names.  The placement chosen is number ``(draw mod n) + 1`` (1-based, n =
    number of placements), the first draw of the game's generator, made at
    setup.  Source: reference facts ``variable_icons.formula``.
    """
    placements: Sequence[Sequence[str]] = variable_icons["placements"]
    value = rng.draw() % len(placements) + 1
    coal, steel = placements[value - 1]
    names: Mapping[str, str] = variable_icons.get("icons", {})
    return IconPlacement(value, coal, steel, names.get("coal", "K"), names.get("steel", "S"))
