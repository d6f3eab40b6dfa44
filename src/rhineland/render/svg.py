"""A small SVG writer: elements as escaped strings, collected in order.

Plain string building (no dependency): every attribute value and text goes through
:func:`xml.sax.saxutils.quoteattr` / :func:`~xml.sax.saxutils.escape`, so names such as
``Köln`` or ``"A&B"`` give valid XML.  Numbers are written with at most two decimals.
"""

from __future__ import annotations

from collections.abc import Iterable
from xml.sax.saxutils import escape, quoteattr

Attr = str | int | float | None


def num(v: float) -> str:
    """``v`` with at most two decimals and no trailing zeros (``3.0`` -> ``"3"``)."""
    text = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def attrs(values: dict[str, Attr]) -> str:
    """``{"class": "hex", "stroke_width": 2}`` -> `` class="hex" stroke-width="2"``;
    ``None`` values are left out, ``_`` in names becomes ``-``."""
    out = []
    for key, value in values.items():
        if value is None:
            continue
        name = _NAMES.get(key) or _name(key)
        if isinstance(value, float):
            out.append(f' {name}="{num(value)}"')
        elif isinstance(value, int):
            out.append(f' {name}="{value}"')
        else:
            out.append(f" {name}={_quote(value)}")
    return "".join(out)


_NAMES: dict[str, str] = {}


def _name(key: str) -> str:
    name = key.rstrip("_").replace("_", "-")
    _NAMES[key] = name
    return name


def _quote(text: str) -> str:
    """``text`` as a quoted attribute value, escaped (by ``quoteattr``) when it needs it."""
    if any(ch in text for ch in '&<>"'):
        return quoteattr(text)
    return '"' + text + '"'


def element(tag: str, body: str | None = None, **values: Attr) -> str:
    """One element: ``<tag a="..."/>`` or, with ``body`` (already SVG), ``<tag ...>body</tag>``."""
    if body is None:
        return f"<{tag}{attrs(values)}/>"
    return f"<{tag}{attrs(values)}>{body}</{tag}>"


def text(x: float, y: float, content: str, **values: Attr) -> str:
    """A ``<text>`` element at ``(x, y)`` with ``content`` escaped."""
    return f"<text{attrs({'x': float(x), 'y': float(y), **values})}>{escape(content)}</text>"


def points(pts: Iterable[tuple[float, float]]) -> str:
    """``[(0, 1), (2, 3)]`` -> ``"0,1 2,3"`` (a polygon's ``points``)."""
    return " ".join(f"{num(x)},{num(y)}" for x, y in pts)


def group(parts: Iterable[str], **values: Attr) -> str:
    """``<g ...>`` around ``parts``."""
    return f"<g{attrs(values)}>{''.join(parts)}</g>"


def document(width: float, height: float, parts: Iterable[str], title: str = "") -> str:
    """A complete SVG document of ``width`` x ``height`` px holding ``parts``."""
    head = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{num(width)}" '
        f'height="{num(height)}" viewBox="0 0 {num(width)} {num(height)}" '
        'font-family="DejaVu Sans, Arial, Helvetica, sans-serif">'
    )
    title_el = f"<title>{escape(title)}</title>" if title else ""
    return head + title_el + "".join(parts) + "</svg>\n"
