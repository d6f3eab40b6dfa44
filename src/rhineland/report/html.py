"""The game report as one self-contained HTML file (no network needed to open it).

Sections: the final map with the tables beside it; a slider through the map after each
operating round; share price per corporation and net worth per player by round
(plotly charts, plotly.js inlined once); every run against the best; the timeline of
phases, train purchases, rusting, formations, closures and bankruptcies; the scores.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rhineland.report.collect import ReportData

STYLE = """
body { font-family: DejaVu Sans, Arial, sans-serif; margin: 16px; color: #222; }
h1 { font-size: 22px; } h2 { font-size: 17px; margin-top: 28px; }
table { border-collapse: collapse; font-size: 13px; }
td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: left; }
td.num { text-align: right; } tr.below td { background: #fde8e8; }
.or-map { display: none; } .or-map.shown { display: block; }
svg { max-width: 100%; height: auto; }
#or-controls { margin: 8px 0; font-size: 14px; } #or-slider { width: 480px; }
"""

SLIDER_JS = """
(function () {
  var slider = document.getElementById('or-slider');
  var label = document.getElementById('or-label');
  var maps = document.querySelectorAll('.or-map');
  function show() {
    for (var i = 0; i < maps.length; i++) {
      maps[i].className = (String(i) === slider.value) ? 'or-map shown' : 'or-map';
    }
    var m = maps[Number(slider.value)];
    label.textContent = m ? m.getAttribute('data-label') : '';
  }
  if (slider) { slider.addEventListener('input', show); show(); }
})();
"""


def _inline(svg_document: str) -> str:
    """An SVG document without its XML declaration, to sit inside HTML."""
    return svg_document.split("?>", 1)[1] if svg_document.startswith("<?xml") else svg_document


def _charts(data: ReportData) -> tuple[str, str]:
    """The plotly.js library and the two charts' ``<div>``s."""
    import plotly.graph_objects as go  # type: ignore[import-untyped]
    from plotly.offline import get_plotlyjs  # type: ignore[import-untyped]

    labels = [r.label for r in data.rounds]
    syms = sorted({s for r in data.rounds for s in r.prices})
    price = go.Figure()
    for sym in syms:
        price.add_trace(go.Scatter(
            x=labels, y=[r.prices.get(sym) for r in data.rounds], name=sym,
            mode="lines+markers", line={"color": data.colors.get(sym, "#999")}))
    price.update_layout(title="Share price per round (M)", height=420,
                        margin={"l": 50, "r": 20, "t": 50, "b": 80})
    worth = go.Figure()
    for name in data.players:
        worth.add_trace(go.Scatter(x=labels, y=[r.worth.get(name) for r in data.rounds],
                                   name=name, mode="lines+markers"))
    worth.update_layout(title="Net worth per round (M)", height=420,
                        margin={"l": 50, "r": 20, "t": 50, "b": 80})
    phases: dict[str, list[str]] = {}  # round -> the phases that began in it
    for e in data.events:
        if e.text.startswith("phase ") and e.round in labels:
            phases.setdefault(e.round, []).append(e.text.split()[1])
    for fig in (price, worth):
        for label, names in phases.items():  # a dotted line where phases begin
            fig.add_shape(type="line", xref="x", yref="paper", x0=label, x1=label, y0=0,
                          y1=1, line={"color": "#888", "dash": "dot", "width": 1})
            fig.add_annotation(x=label, xref="x", yref="paper", y=1.0, yanchor="bottom",
                               text="phase " + ", ".join(names), showarrow=False,
                               font={"size": 10})
    config = {"displaylogo": False, "responsive": True}
    divs = "".join(f.to_html(full_html=False, include_plotlyjs=False, config=config)
                   for f in (price, worth))
    return get_plotlyjs(), divs


def report_html(data: ReportData) -> str:
    """The report page for ``data`` (see the module docstring); needs plotly."""
    plotly_js, charts = _charts(data)
    state = (f"finished ({data.end_reason})" if data.finished else "not finished")
    parts = [
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
        f"<title>{escape(data.title)} game report</title>",
        f"<style>{STYLE}</style>",
        f"<script type=\"text/javascript\">{plotly_js}</script></head><body>",
        f"<h1>{escape(data.title)}: game report</h1>",
        f"<p>{len(data.players)} players: {escape(', '.join(data.players))} · "
        f"{len(data.rounds)} rounds · {escape(state)}</p>",
        "<h2 id=\"scores\">Scores</h2>", _scores(data),
        "<h2 id=\"final\">Final position</h2>",
        f"<div class=\"map\">{_inline(data.final_map)}</div>",
        "<h2 id=\"maps\">The map after each operating round</h2>", _slider(data),
        "<h2 id=\"charts\">Share prices and net worth</h2>", charts,
        "<h2 id=\"runs\">Runs against the best routes</h2>", _runs(data),
        "<h2 id=\"timeline\">Timeline</h2>", _timeline(data),
        f"<script type=\"text/javascript\">{SLIDER_JS}</script>",
        "</body></html>",
    ]
    return "\n".join(parts)


def _scores(data: ReportData) -> str:
    rows = "".join(f"<tr><td>{k}</td><td>{escape(name)}</td><td class=\"num\">{v}M</td></tr>"
                   for k, (name, v) in enumerate(data.scores, 1))
    head = "<tr><th>#</th><th>player</th><th>score</th></tr>"
    return f"<table id=\"score-table\">{head}{rows}</table>"


def _slider(data: ReportData) -> str:
    if not data.maps:
        return "<p>No operating round yet.</p>"
    n = len(data.maps)
    maps = "".join(f"<div class=\"or-map\" data-label=\"{escape(label)}\">{_inline(svg)}</div>"
                   for label, svg in data.maps)
    return (f"<div id=\"or-controls\"><input type=\"range\" id=\"or-slider\" min=\"0\" "
            f"max=\"{n - 1}\" value=\"{n - 1}\"> <span id=\"or-label\"></span></div>{maps}")


def _runs(data: ReportData) -> str:
    if not data.runs:
        return "<p>No runs.</p>"
    below = sum(1 for r in data.runs if r.missed > 0)
    rows = []
    for r in data.runs:
        cls = " class=\"below\"" if r.missed > 0 else ""
        rows.append(f"<tr{cls}><td>{escape(r.round)}</td><td>{escape(r.entity)}</td>"
                    f"<td class=\"num\">{r.ran}M</td><td class=\"num\">{r.best.revenue}M</td>"
                    f"<td class=\"num\">{r.missed}M</td><td>{r.action_id}</td></tr>")
    return (f"<p>{len(data.runs)} runs, {below} below the best.</p><table id=\"run-table\">"
            "<tr><th>round</th><th>company</th><th>ran</th><th>best</th><th>missed</th>"
            f"<th>action</th></tr>{''.join(rows)}</table>")


def _timeline(data: ReportData) -> str:
    if not data.events:
        return "<p>Nothing happened yet.</p>"
    rows = "".join(f"<tr><td>{escape(e.round)}</td><td>{e.action_id}</td>"
                   f"<td>{escape(e.text)}</td></tr>" for e in data.events)
    return (f"<table id=\"timeline-table\"><tr><th>round</th><th>action</th><th>event</th></tr>"
            f"{rows}</table>")
