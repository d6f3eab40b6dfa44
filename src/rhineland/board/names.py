"""Location names for hexes and revenue nodes: ``Köln (I10)``.

One helper for every place that shows a stop or a hex to a person (the map drawing,
``rhineland routes`` and ``replay --best-routes``): the map's location name with the
hex id in brackets, or the bare hex id where the map names no place.
"""

from __future__ import annotations

from rhineland.board.mapspec import MapSpec


def location_name(spec: MapSpec, ref: str) -> str:
    """``"I10-0"`` or ``"I10"`` -> ``"Köln (I10)"``; a hex the map does not name
    (``"D11"``) or does not have stays as its id.

    ``ref`` is a hex id or a node name ``"<hex>-<part>"`` (as in routes' ``stops``).
    """
    hex_id = ref.split("-", 1)[0]
    h = spec.hexes.get(hex_id)
    if h is None or not h.location:
        return hex_id
    return f"{h.location} ({hex_id})"


def stops_text(spec: MapSpec, refs: tuple[str, ...] | list[str], sep: str = " - ") -> str:
    """The stops of a route as names joined by ``sep``:
    ``"Aachen (K2) - Düren (J5) - Köln (I10)"``."""
    return sep.join(location_name(spec, r) for r in refs)
