"""The game report: ``rhineland report FILE -o game.html``.

    from rhineland import load_export
    from rhineland.report import build_report

    html = build_report(load_export("game.json"))   # one self-contained HTML page

Gathers the data in one replay (:mod:`rhineland.report.collect`) and writes the page
(:mod:`rhineland.report.html`).  Needs plotly (the ``report`` extra).
"""

from __future__ import annotations

from rhineland.io.export import Export
from rhineland.report.collect import ReportData, collect
from rhineland.report.html import report_html

__all__ = ["ReportData", "build_report", "collect", "report_html"]


def build_report(export: Export, *, trust_routes: bool = False, best: bool = True) -> str:
    """The HTML report of ``export`` (finished or not).  ``best``: compare every run with
    the best routes.  Raises ``GameError`` at an illegal action, ``ImportError`` without
    plotly."""
    return report_html(collect(export, trust_routes=trust_routes, best=best))
