"""Colours and sizes of the drawing.

Tile colours are the usual 18xx ones; company colours come from each title's
``data/style.json`` (``companies``: symbol -> ``[background, text]``); a company the
file does not list is drawn in a neutral grey.
"""

from __future__ import annotations

import functools
from importlib import resources

import orjson

TILE_FILL = {
    "white": "#eae0c8",
    "yellow": "#fde900",
    "green": "#71bf44",
    "brown": "#cb7745",
    "gray": "#bcbdc0",
    "red": "#ec232a",
    "orange": "#f48221",
    "blue": "#35a7ff",
}
"""Hex fill per tile colour (``white`` is the bare map)."""

PHASE_FILL = TILE_FILL
"""An offboard's value box is filled in the colour of the phase it applies from."""

TRACK = "#000000"
TRACK_EDGE = "#ffffff"
RIVER = "#1a73d9"
MOUNTAIN = "#8b5a2b"
NEUTRAL = ("#9e9e9e", "#000000")

ROUTE_COLORS = ("#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4",
                "#f032e6", "#9a6324")
"""One colour per train of a drawn run, in train order."""


@functools.cache
def company_colors(package: str) -> dict[str, tuple[str, str]]:
    """Symbol -> (background, text) colour of the companies of a title package
    (``"rhineland.titles.g18rhl"``); empty when the package has no ``style.json``."""
    try:
        raw = resources.files(package).joinpath("data", "style.json").read_bytes()
    except (FileNotFoundError, ModuleNotFoundError):
        return {}
    data = orjson.loads(raw)
    return {sym: (str(c[0]), str(c[1])) for sym, c in data.get("companies", {}).items()}


def colors_of(package: str, sym: str) -> tuple[str, str]:
    """(background, text) colour of company ``sym`` in the title ``package``."""
    return company_colors(package).get(sym, NEUTRAL)
