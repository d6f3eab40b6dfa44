"""The route preview in a real browser (Debian's chromium through Playwright): a
reference game's BME runs between two two-city hexes (F13, G12); the president edits
the 2-train's route by clicking the cities on the map, sees the engine's revenue, its
refusals and the difference from the best routes (drawn on the map) before sending, then
sends the run.  Screenshots of the preview (desktop and phone width) go to
``/tmp/rhineland-web-shots/route-preview-*.png``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from reference import needs_shared
from test_web_browser import ARGS, CHROMIUM, SHOTS
from test_web_routes import TWO_CITIES, up_to_first_run
from webserver import live_server

TOTAL = "#route-preview .preview-total"


def _open(browser: Any, url: str, size: tuple[int, int], problems: list[str], at: int) -> Any:
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(url)
    page.wait_for_selector(f'body[data-last-action-id="{at}"] #map svg g.routes')
    return page


def _clear(page: Any) -> Any:
    """Edit the 2-train's route and clear it: the preview then says no route is 50M less
    than the best."""
    train = page.locator('.train-routes li[data-train="2-4"]')
    train.get_by_role("button", name="edit 2-4").click()
    page.locator('.train-routes li[data-train="2-4"]').get_by_role("button", name="clear").click()
    page.wait_for_selector(f'{TOTAL}[data-revenue="0"][data-difference="50"]')
    return page.locator('.train-routes li[data-train="2-4"]')


@needs_shared
def test_edit_a_route_on_two_city_hexes_with_the_preview(tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not found (apt-get install chromium): browser test skipped")
    from playwright.sync_api import sync_playwright

    data, at = up_to_first_run(TWO_CITIES, "BME")
    problems: list[str] = []
    SHOTS.mkdir(parents=True, exist_ok=True)
    with live_server(f"sqlite:///{tmp_path / 'games.sqlite3'}") as base, sync_playwright() as p:
        g = httpx.post(f"{base}/api/games/import", json=data).json()
        acting = httpx.get(f"{base}/api/games/{g['id']}").json()["acting"]
        url = base + next(s for s in g["seats"] if s["id"] in acting)["url"]
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = _open(browser, url, (1280, 900), problems, at)
        # the best routes: in the list, previewed, drawn on the map with their revenue
        train = page.locator('.train-routes li[data-train="2-4"]')
        assert train.locator(".stop").all_inner_texts() == ["F13-1", "G12-0"]
        page.wait_for_selector(f'{TOTAL}[data-revenue="50"][data-best="50"]')
        assert page.locator(TOTAL).inner_text() == "your routes 50M, best 50M: the best"
        assert page.locator('#map g.routes g.route[data-train="2-4"]').count() == 1
        assert "50" in page.locator("#map g.route-legend").text_content()
        train = _clear(page)
        assert page.locator(TOTAL).inner_text() == "your routes 0M, best 50M: 50M less"
        page.screenshot(path=str(SHOTS / "route-preview-desktop.png"))
        # a click on F13 beside its two cities picks none of them
        outline = page.locator('#map g.hex[data-hex="F13"] > polygon').first
        box = outline.bounding_box()
        outline.click(force=True, position={"x": box["width"] * 0.5, "y": box["height"] * 0.9})
        assert page.locator("#message").inner_text() == (
            "F13 has 2 stops: click the city or town you mean")
        assert train.locator(".stop").count() == 0
        # the city without BME's token (F13-0), then G12-0: the engine's refusal
        page.locator('#map [data-node="F13-0"]').click()
        page.wait_for_selector('#route-preview[data-state="illegal"]')
        assert page.locator("#route-preview .preview-error").inner_text() == (
            "not legal: train 2-4: a route needs at least two stops [route.stops]")
        page.locator('#map [data-node="G12-0"]').click()
        page.wait_for_selector('#route-preview[data-state="illegal"] .preview-error'
                               ':has-text("F13-0")')
        assert page.locator("#route-preview .preview-error").inner_text() == (
            "not legal: train 2-4: no track runs from F13-0 to G12-0 without passing another "
            "town or city (click every stop in order) [route.track]")
        assert train.locator(".stop").all_inner_texts() == ["F13-0", "G12-0"]
        # the city with the token instead: the run the engine pays 50M for, the best
        train.get_by_role("button", name="clear").click()
        page.wait_for_selector(f'{TOTAL}[data-revenue="0"]')
        for node in ("F13-1", "G12-0"):
            page.locator(f'#map [data-node="{node}"]').click()
        page.wait_for_selector(f'{TOTAL}[data-revenue="50"][data-difference="0"]')
        assert page.locator("#route-preview li[data-train='2-4']").inner_text() == (
            "2-4: F13-1 – G12-0 · 50M")
        assert page.evaluate("document.body.dataset.lastActionId") == str(at)  # nothing sent
        phone = _open(browser, url, (390, 844), problems, at)
        _clear(phone)
        phone.locator("#route-preview").scroll_into_view_if_needed()
        phone.screenshot(path=str(SHOTS / "route-preview-phone.png"))
        phone.close()
        page.get_by_role("button", name="run these routes").click()
        page.wait_for_selector(f'body[data-last-action-id="{at + 1}"]')
        browser.close()
        export = httpx.get(f"{base}/api/games/{g['id']}/export").json()
    assert problems == []
    run = export["actions"][-1]
    assert run["type"] == "run_routes" and [(r["nodes"], r["revenue"]) for r in run["routes"]] \
        == [(["F13-1", "G12-0"], 50)]
    assert run["entity"] == "BME"
