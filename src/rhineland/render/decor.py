"""What else a hex shows: terrain costs, labels and icons (with the title's extra hex
icons and blocking private companies), the location name, special borders."""

from __future__ import annotations

from rhineland.board.board import PlacedTile
from rhineland.board.mapspec import HexSpec
from rhineland.board.tiles import Tile
from rhineland.render import svg
from rhineland.render.geometry import (
    Layout,
    Point,
    corner_point,
    node_positions,
)
from rhineland.render.style import (
    MOUNTAIN,
    RIVER,
)


def terrain(tile: Tile, lay: Layout, c: Point) -> list[str]:
    """The tile's terrain (a mountain or a wave) with its cost in M, upper right of the
    hex centred at ``c``."""
    r = lay.r
    out = []
    for i, t in enumerate(tile.terrain):
        x, y = c[0] + r * (0.42 + 0.0 * i), c[1] - r * (0.38 - 0.3 * i)
        if t.kind == "mountain":
            tri = [(x - r * 0.13, y + r * 0.08), (x + r * 0.13, y + r * 0.08), (x, y - r * 0.14)]
            out.append(svg.element("polygon", points=svg.points(tri), fill=MOUNTAIN,
                                   stroke="#000", stroke_width=0.5))
        else:
            d = (f"M {svg.num(x - r * 0.15)} {svg.num(y)} q {svg.num(r * 0.075)} "
                 f"{svg.num(-r * 0.08)} {svg.num(r * 0.15)} 0 t {svg.num(r * 0.15)} 0")
            out.append(svg.element("path", d=d, fill="none", stroke=RIVER,
                                   stroke_width=r * 0.05))
        if t.cost:
            out.append(svg.text(x, y + r * 0.3, f"{t.cost}", font_size=r * 0.18,
                                text_anchor="middle", class_="terrain-cost"))
    return [svg.group(out, class_="terrain")] if out else []


def labels(tile: Tile, h: HexSpec, lay: Layout, c: Point,
            extra_icons: frozenset[str] | tuple[str, ...], open_privates: set[str]) -> list[str]:
    """Tile labels (upper left), icons and the hex's extra icons (lower right), the
    private companies blocking it, and the location name (bottom)."""
    r = lay.r
    out = []
    if tile.labels:
        x, y = c[0] - r * 0.55, c[1] - r * 0.32
        out.append(svg.text(x, y, " ".join(tile.labels), font_size=r * 0.24,
                            font_weight="bold", text_anchor="middle", class_="label"))
    icons = [i.rstrip("!") for i in tile.icons]
    icons += [f"{i}" for i in sorted(extra_icons) if i not in icons]
    icons += [p for p in h.blockers if p in open_privates]
    for k, name in enumerate(icons):
        x, y = c[0] + r * 0.5, c[1] + r * (0.22 + 0.0) - k * r * 0.3
        w = r * (0.16 + 0.12 * len(name))
        coal = name in ("K", "S")
        fill = "#222" if name == "K" else "#8aa0b4" if name == "S" else "#fff"
        out.append(svg.group([
            svg.element("rect", x=x - w / 2, y=y - r * 0.13, width=w, height=r * 0.26,
                        rx=r * 0.13 if coal else r * 0.04, fill=fill, stroke="#000",
                        stroke_width=0.7),
            svg.text(x, y + r * 0.08, name, font_size=r * 0.2, text_anchor="middle",
                     fill="#fff" if name == "K" else "#000"),
        ], class_="icon", data_icon=name))
    return out


def location_label(placed: PlacedTile, h: HexSpec, lay: Layout) -> str:
    """The location name at the bottom of the hex (two lines when long), with a white
    halo; drawn above every hex so a long name is never covered by the next hex."""
    if not h.location:
        return ""
    r = lay.r
    c = lay.centre(h.x, h.y)
    tile = placed.tile
    words = h.location.split(" ")
    lines = [h.location] if len(h.location) <= 12 or len(words) == 1 else \
        [" ".join(words[: len(words) // 2]), " ".join(words[len(words) // 2:])]
    offboard = tile.color == "red"
    y0 = c[1] + r * (0.62 if len(lines) == 1 else 0.58)
    spots = list(_visible_positions(lay.layout, placed).values())
    if not offboard and any(y > 0.28 and abs(x) < 0.5 for x, y in spots):
        # a city sits where the name goes: one line along the hex's bottom rim
        lines, y0 = [h.location], c[1] + r * 0.86
    fit = 10 if offboard else 12 if y0 < c[1] + r * 0.8 else 15  # characters that fit
    size = r * 0.19 * min(1.0, fit / max(len(line) for line in lines))
    out = []
    for k, line in enumerate(lines):
        if not offboard:  # a white halo keeps the name legible over track and cities
            out.append(svg.text(c[0], y0 + k * r * 0.21, line, font_size=size,
                                text_anchor="middle", fill="#fff", stroke="#fff",
                                stroke_width=r * 0.07, stroke_linejoin="round",
                                stroke_opacity=0.85, class_="name-halo"))
        out.append(svg.text(c[0], y0 + k * r * 0.21, line, font_size=size,
                            text_anchor="middle", class_="name", data_hex=h.id,
                            fill="#fff" if offboard else "#000",
                            font_weight="bold" if offboard else None))
    return "".join(out)


def _visible_positions(layout: str, placed: PlacedTile) -> dict[int, Point]:
    """Positions of the tile's drawn nodes (hidden ones left out)."""
    pos = node_positions(layout, placed.tile, placed.rotation)
    return {n.part: pos[n.part] for n in placed.tile.nodes if not n.hidden and n.part in pos}


def borders(h: HexSpec, lay: Layout, c: Point) -> list[str]:
    """Special hex sides: the Rhine (blue), impassable (thick dark), water costs."""
    out = []
    for b in h.borders:
        p = lay.at(c, corner_point(lay.layout, b.edge))
        q = lay.at(c, corner_point(lay.layout, b.edge + 1))
        stroke = "#d40000" if b.kind == "impassable" and b.color != "blue" else RIVER
        out.append(svg.element("line", x1=p[0], y1=p[1], x2=q[0], y2=q[1], stroke=stroke,
                               stroke_width=lay.r * 0.12, stroke_linecap="round",
                               stroke_dasharray="6 3" if b.kind == "water" else None,
                               class_="border"))
    return out
