"""Hex ids, coordinates and neighbours for both map layouts.

Hex ids are a row letter (A = 0) and a column number, e.g. ``"K6"``.  Both
titles use doubled coordinates: ``x = number - 1``, ``y = letter index``.
Edges are numbered 0..5; the offset of the neighbour across each edge depends
on the layout (18Rhl: pointy-topped hexes; 1893: flat-topped).
"""

from __future__ import annotations

import re
from functools import lru_cache

# edge -> (dx, dy) in doubled coordinates
DIRECTIONS: dict[str, tuple[tuple[int, int], ...]] = {
    "pointy": ((-1, 1), (-2, 0), (-1, -1), (1, -1), (2, 0), (1, 1)),
    "flat": ((0, 2), (-1, 1), (-1, -1), (0, -2), (1, -1), (1, 1)),
}

_HEX_RE = re.compile(r"^([A-Z]+)(\d+)$")


@lru_cache(maxsize=4096)
def coords(hex_id: str) -> tuple[int, int]:
    """``"K6"`` -> ``(5, 10)``; raises ``ValueError`` on a malformed id."""
    m = _HEX_RE.match(hex_id)
    if not m:
        raise ValueError(f"malformed hex id {hex_id!r}")
    letters, number = m.groups()
    y = 0
    for ch in letters:
        y = y * 26 + (ord(ch) - 64)
    return int(number) - 1, y - 1


def hex_id(x: int, y: int) -> str:
    """Inverse of :func:`coords` for single-letter rows."""
    return f"{chr(65 + y)}{x + 1}"


def neighbor_id(hex_: str, edge: int, layout: str) -> str | None:
    """Id of the hex across ``edge`` (whether on the map or not); None off the grid."""
    x, y = coords(hex_)
    dx, dy = DIRECTIONS[layout][edge]
    nx, ny = x + dx, y + dy
    if nx < 0 or ny < 0 or ny > 25:
        return None
    return hex_id(nx, ny)


def opposite(edge: int) -> int:
    """The edge facing ``edge`` on the neighbouring hex."""
    return (edge + 3) % 6


OPPOSITE: tuple[int, ...] = tuple(opposite(e) for e in range(6))
""":func:`opposite` by edge, for hot loops (a tuple index instead of a call)."""
