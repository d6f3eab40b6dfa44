"""The game report: its data for the real games, the HTML page, the ``report`` command,
and the page opened in a real browser (Debian's chromium, headless)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from reference import SHARED, needs_shared
from rhineland.cli.main import cli
from rhineland.io.export import load_export
from rhineland.report import build_report, collect

REAL = {"18Rhl": SHARED / "fixtures" / "18Rhl" / "18Rhl_end_bank.json",
        "1893": SHARED / "fixtures" / "1893" / "1893_end_bank.json"}
SEED = SHARED / "fixtures" / "18Rhl" / "18Rhl_seed_opening.json"


@needs_shared
def test_real_18rhl_report_data() -> None:
    data = collect(load_export(REAL["18Rhl"]))
    # the figure: 51 of the 84 runs of the real game were below the best
    assert len(data.runs) == 84
    assert sum(1 for r in data.runs if r.missed > 0) == 51
    assert all(r.best.revenue >= r.ran for r in data.runs)
    labels = [r.label for r in data.rounds]
    assert labels[:4] == ["Auction 1", "SR 1", "OR 1.1", "SR 2"] and labels[-1] == "OR 9.3"
    assert len(labels) == len(set(labels))
    assert [m[0] for m in data.maps] == [lbl for lbl in labels if lbl.startswith("OR")]
    texts = [e.text for e in data.events]
    assert [t for t in texts if t.startswith("phase")] == [
        f"phase {p} begins" for p in ("3", "4", "5", "6", "8")]
    rust = [t for t in texts if t.startswith("trains rust")]
    assert len(rust) == 3 and "2-0 (RhE)" in rust[0]  # 2s, 3s, 4s rust
    result = json.loads(REAL["18Rhl"].read_text())["result"]
    assert sorted(v for _, v in data.scores) == sorted(result.values())
    assert data.finished and data.end_reason == "bank"
    # share prices at the end are those drawn on the final market
    assert data.rounds[-1].prices["CCE"] == 180


@needs_shared
def test_report_of_an_unfinished_game() -> None:
    data = collect(load_export(SEED))
    assert not data.finished
    assert [r.ran for r in data.runs] == [50]  # ADR: Aachen - town - Düren, seed 000
    page = build_report(load_export(SEED))
    assert page.count('class="or-map"') == len(data.maps) == 2
    assert "not finished" in page


@needs_shared
def test_report_command_writes_one_self_contained_page(tmp_path: Path) -> None:
    out = tmp_path / "game.html"
    result = CliRunner().invoke(cli, ["report", str(REAL["1893"]), "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    # plotly.js inlined, nothing to fetch: no external script, style sheet or image
    markup = re.sub(r"<script[^>]*>.*?</script>", "", page, flags=re.S)
    assert "<script" not in markup and page.count("<script") == page.count("</script>")
    assert "<link" not in markup and "http" not in markup.replace("http://www.w3.org/2000/svg", "")
    assert page.count('class="or-map"') == 14  # 1893's ORs
    result = CliRunner().invoke(cli, ["report", str(tmp_path / "none.json"), "-o", str(out)])
    assert result.exit_code == 2 and result.stderr.startswith("error: ")


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


@needs_shared
@pytest.mark.parametrize("title", sorted(REAL))
def test_report_opens_in_a_real_browser(title: str, tmp_path: Path) -> None:
    chromium = _chromium()
    if chromium is None:
        pytest.skip("chromium not found (apt-get install chromium): browser test skipped")
    from PIL import Image
    from playwright.sync_api import sync_playwright

    out = tmp_path / "game.html"
    result = CliRunner().invoke(cli, ["report", str(REAL[title]), "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    problems: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=chromium,
            args=["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(out.as_uri())
        page.wait_for_selector(".js-plotly-plot .main-svg")
        assert page.locator(".js-plotly-plot").count() == 2  # share prices, net worth
        assert page.eval_on_selector("#or-label", "e => e.textContent") == \
            ("OR 9.3" if title == "18Rhl" else "OR 7.2")
        page.eval_on_selector(
            "#or-slider", "e => { e.value = '0'; e.dispatchEvent(new Event('input')); }")
        assert page.eval_on_selector("#or-label", "e => e.textContent") == "OR 1.1"
        assert page.locator(".or-map.shown").count() == 1
        shot = tmp_path / "shot.png"
        page.screenshot(path=str(shot))
        browser.close()
    assert problems == []
    image = Image.open(shot).convert("RGB")
    colors = image.getcolors(maxcolors=1 << 24) or []
    total = image.width * image.height
    white = sum(n for n, c in colors if c == (255, 255, 255))
    assert total - white > total // 10  # the map and the scores fill the first screen
    assert len(colors) > 50  # tiles, tokens and text in many colours
