"""Drawing a position: the map with tiles, track, cities, tokens and names, and beside it
the stock market, companies, players, bank, phase and depot, as one SVG document.

    from rhineland import load_export, replay
    from rhineland.render import render_svg, svg_to_png

    game = replay(load_export("game.json"), until=120)
    text = render_svg(game)                 # an SVG document (str)
    svg_to_png(text, "position.png")        # needs cairosvg (the "render" extra)

Everything drawn comes from the title data and the game state (see
:mod:`rhineland.render.hexmap`, :mod:`rhineland.render.panels`); best or recorded
routes can be drawn over the map (:mod:`rhineland.render.routes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rhineland.render import svg
from rhineland.render.hexmap import MapDrawing, draw_map
from rhineland.render.panels import draw_panels
from rhineland.render.routes import DrawnRoute, draw_routes

if TYPE_CHECKING:
    from rhineland.engine.game import Game

__all__ = ["DrawnRoute", "MapDrawing", "render_side_by_side", "render_svg", "svg_to_png"]

HEX_RADIUS = 50.0
"""Default hex radius, px."""


def render_svg(game: Game, *, routes: Sequence[DrawnRoute] = (), r: float = HEX_RADIUS,
               panels: bool = True, title: str = "") -> str:
    """The SVG document of ``game``'s position: the map (hex radius ``r`` px) with
    ``routes`` drawn over it, and (``panels``) the tables beside it."""
    m = draw_map(game, r)
    parts = [m.body]
    width, height = m.width, m.height
    if routes:
        body, legend_h = draw_routes(game, m, routes)
        parts.append(body)
        height += legend_h
    if panels:
        body, pw, ph = draw_panels(game, width + 10, 10)
        parts.append(body)
        width += pw + 20
        height = max(height, ph + 20)
    background = svg.element("rect", x=0, y=0, width=width, height=height, fill="#ffffff")
    return svg.document(width, height, [background, *parts], title=title or game.data.title)


def render_side_by_side(game: Game, left: Sequence[DrawnRoute], right: Sequence[DrawnRoute],
                        *, r: float = 40.0, heading: str = "") -> str:
    """One SVG document with two maps of ``game`` side by side, ``left``'s routes on the
    first and ``right``'s on the second (e.g. a recorded run and the best one), each
    with its legend, under a ``heading`` line."""
    top = 24.0 if heading else 0.0
    m1 = draw_map(game, r, 0.0, top)
    b1, h1 = draw_routes(game, m1, left)
    m2 = draw_map(game, r, m1.width + 20, top)
    b2, h2 = draw_routes(game, m2, right)
    width = m1.width + m2.width + 20
    height = top + m1.height + max(h1, h2)
    parts = [svg.element("rect", x=0, y=0, width=width, height=height, fill="#ffffff")]
    if heading:
        parts.append(svg.text(12, 17, heading, font_size=14, font_weight="bold"))
    parts += [m1.body, b1, m2.body, b2]
    return svg.document(width, height, parts, title=heading or game.data.title)


def svg_to_png(text: str, out: str | Path) -> None:
    """Rasterise the SVG document ``text`` to the PNG file ``out`` (cairosvg).

    Raises ``ImportError`` when cairosvg is not installed (``pip install
    'rhineland[render]'``)."""
    import cairosvg  # type: ignore[import-untyped]  # optional: imported only when needed

    cairosvg.svg2png(bytestring=text.encode("utf-8"), write_to=str(out))
