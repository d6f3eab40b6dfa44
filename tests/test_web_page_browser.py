"""The player's page in a real browser (Debian's chromium through Playwright), at desktop
(1280 px) and phone (390 px) width, both titles: the panels (the spreadsheet, the stock
market grid, the cards, the train roster, the tile manifest, the log under round
headings) are there with the game's figures, player names with markup show as text, and
the screenshots go to ``/tmp/page-*.png``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from reference import SHARED, needs_shared
from rhineland import new_game
from test_web_browser import ARGS, CHROMIUM
from webserver import live_server

SEED_EXPORT = SHARED / "fixtures" / "18Rhl" / "18Rhl_seed_opening.json"
SHOTS = Path("/tmp")
ANN = "<b>Ann</b>"
BEN = 'Ben<img src=x id="pwned">'
WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}


def _browser(p: Any) -> Any:
    return p.chromium.launch(executable_path=CHROMIUM, args=ARGS)


def _open(browser: Any, url: str, width: str, problems: list[str], last: int) -> Any:
    w, h = WIDTHS[width]
    page = browser.new_page(viewport={"width": w, "height": h})
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(url)
    page.wait_for_selector(f'body[data-last-action-id="{last}"] #map svg')
    return page


def _panels_present(page: Any, log: bool = True) -> None:
    for sel in ("#sheet thead th", "#sheet tfoot td.cash", "#market-grid td.cell",
                "article.card", "#roster tr[data-train]", "#tiles .tile-group",
                *(["#log section.log-round"] if log else [])):
        assert page.locator(sel).count() > 0, sel
    assert page.locator("#panels").count() == 0  # no SVG panel beside the HTML tables
    assert "_" not in page.locator("#status").inner_text()


def test_18rhl_opening_page_at_desktop_and_phone_width(tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not found (apt-get install chromium): browser test skipped")
    from playwright.sync_api import sync_playwright

    problems: list[str] = []
    with live_server(f"sqlite:///{tmp_path / 'games.sqlite3'}") as base, sync_playwright() as p:
        g = httpx.post(f"{base}/api/games", json={
            "title": "18Rhl", "players": [ANN, BEN, "Cid"], "seed": 1}).json()
        browser = _browser(p)
        desk = _open(browser, base + g["seats"][0]["url"], "desktop", problems, 0)
        phone = _open(browser, base + g["seats"][1]["url"], "phone", problems, 0)
        for page in (desk, phone):
            _panels_present(page, log=False)  # nothing logged yet
            # the names are text: no element made of them
            head = page.locator('#sheet thead th[data-player="1"]')
            assert head.inner_text().startswith(ANN) and head.locator("b").count() == 0
            assert page.locator("#pwned").count() == 0 and page.locator("#sheet img").count() == 0
            assert BEN in page.locator('#sheet thead th[data-player="2"]').inner_text()
        assert desk.locator("#whoami").inner_text() == f"you play {ANN}"
        assert desk.locator("#status").inner_text() == (
            f"Private auction · buy the cheapest private or bid on another · {ANN} to act")
        # the opening: the cards on offer beside the actions, each with its ability
        offer = desk.locator("#offer")
        assert offer.is_visible() and offer.locator("article.card").count() == 6
        pwb = desk.locator('#offer article.card[data-company="PWB"]')
        assert pwb.locator(".name").inner_text() == "No. 1 Prinz Wilhelm-Bahn"
        assert pwb.locator(".facts").inner_text() == "face value 20M · revenue 5M"
        assert "Blocks E14" in pwb.locator(".abilities").inner_text()
        # the market grid: 18Rhl's six rows, each cell its price; the par cells marked
        assert desk.locator("#market-grid tr").count() == 6
        assert desk.locator("#market-grid td.cell").count() == 17 + 14 + 11 + 7 + 4 + 3
        pars = len(new_game("18Rhl", ["A", "B", "C"]).data.par_cells)
        assert desk.locator("#market-grid td.par").count() == pars
        # the roster: six types, the 2-train next, all six in the depot, rusted by the 4
        two = desk.locator('#roster tr[data-train="2"]')
        assert "next" in (two.get_attribute("class") or "")
        assert two.locator("td.left").inner_text() == "6 of 6"
        assert two.locator("td.rusts-on").inner_text() == "first 4-train bought"
        assert desk.locator('#roster tr[data-train="4"] td.rusts').inner_text() == "2-trains"
        assert desk.locator('#tiles .tile-group[data-color="yellow"] h4').inner_text() == \
            "Yellow: 45 of 45 left"  # every yellow tile of the manifest
        assert desk.locator('#tiles .tile-group[data-color="green"] h4').inner_text() == \
            "Green: 45 of 45 left (not yet)"
        desk.screenshot(path=str(SHOTS / "page-18rhl-auction-desktop.png"), full_page=True)
        phone.screenshot(path=str(SHOTS / "page-18rhl-auction-phone.png"), full_page=True)
        # Ann buys PWB at face value; the phone follows
        button = desk.locator("#actions").get_by_role("button", name="buy PWB for 20M",
                                                      exact=True)
        assert button.get_attribute("data-cost") == "20"
        assert (button.get_attribute("title") or "").startswith("No. 1 Prinz Wilhelm-Bahn")
        button.click()
        phone.wait_for_selector('body[data-last-action-id="1"]')
        section = phone.locator('#log section.log-round[data-round="Auction 1"]')
        assert section.locator("h4").inner_text() == "Private auction"
        assert section.locator("li").all_inner_texts() == [f"{ANN} buys PWB for 20M"]
        card = phone.locator('#cards article.card[data-company="PWB"] .owner')
        assert card.inner_text() == f"owner: {ANN}"
        assert phone.locator('#sheet tfoot td.cash[data-player="1"]').inner_text() == "580M"
        assert phone.locator('#sheet tfoot td.privates[data-player="1"]').inner_text() == "PWB"
        # Ben's turn: KEO, now the cheapest, at face value; a bid on Szl is a range of
        # amounts (up to his 600M), what it costs shown as the amount changes
        assert phone.locator("#actions").get_by_role("button", name="buy KEO for 30M",
                                                     exact=True).count() == 1
        row = phone.locator('#actions .amount[data-text="bid on Szl, 55 to 600M"]')
        assert row.locator(".cost").inner_text() == "you pay 55M"
        row.locator("input").fill("65")
        assert row.locator(".cost").inner_text() == "you pay 65M"
        browser.close()
    assert problems == []


@needs_shared
def test_18rhl_operating_round_tables_in_the_browser(tmp_path: Path) -> None:
    """The worked example imported to ADR's payout in OR 2.1: the market grid holds ADR
    and RhE on their prices in their colours; the spreadsheet, the roster and the log
    say what the engine says."""
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not found (apt-get install chromium): browser test skipped")
    from playwright.sync_api import sync_playwright

    data = json.loads(SEED_EXPORT.read_text())
    data["actions"] = [a for a in data["actions"] if a["id"] <= 38]
    problems: list[str] = []
    with live_server(f"sqlite:///{tmp_path / 'games.sqlite3'}") as base, sync_playwright() as p:
        g = httpx.post(f"{base}/api/games/import", json=data).json()
        state = httpx.get(f"{base}/api/games/{g['id']}").json()
        adr = next(c for c in state["sheet"]["companies"] if c["sym"] == "ADR")
        browser = _browser(p)
        for width in WIDTHS:
            page = _open(browser, base + g["spectator_url"], width, problems, 38)
            _panels_present(page)
            marker = page.locator(f'#market-grid td[data-price="{adr["price"]}"] '
                                  '.badge[data-company="ADR"]')
            assert marker.count() == 1
            assert marker.evaluate("e => getComputedStyle(e).backgroundColor") == \
                "rgb(0, 143, 79)"  # ADR's green (style.json)
            row = page.locator('#sheet tr[data-company="ADR"]')
            assert row.locator('td[data-player="1"]').inner_text() == "50% P"
            assert row.locator("td.revenue").inner_text() == "50M paid out"
            assert row.locator("td.treasury").inner_text() == f"{adr['cash']}M"
            assert page.locator('#roster tr[data-train="2"] td.left').inner_text() == "5 of 6"
            headings = page.locator("#log section.log-round h4").all_inner_texts()
            assert headings == ["OR 2.1", "SR 2", "OR 1.1", "SR 1", "Private auction"]
            assert "ADR runs a 2-train for 50M" in page.locator("#log").inner_text()
            page.screenshot(path=str(SHOTS / f"page-18rhl-or-{width}.png"), full_page=True)
        browser.close()
    assert problems == []


def test_1893_starting_package_page(tmp_path: Path) -> None:
    """1893 for three: the Starting Package's cards (privates and the minors' proxies)
    on offer, the minor cards, Ann buys the FdSD at its price, the 1893 market grid."""
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not found (apt-get install chromium): browser test skipped")
    from playwright.sync_api import sync_playwright

    problems: list[str] = []
    with live_server(f"sqlite:///{tmp_path / 'games.sqlite3'}") as base, sync_playwright() as p:
        g = httpx.post(f"{base}/api/games", json={
            "title": "1893", "players": [ANN, "Ben", "Cid"], "seed": 1}).json()
        browser = _browser(p)
        desk = _open(browser, base + g["seats"][0]["url"], "desktop", problems, 0)
        phone = _open(browser, base + g["seats"][1]["url"], "phone", problems, 0)
        for page in (desk, phone):
            _panels_present(page, log=False)
            assert page.locator("#minors-title").is_visible()
            ekb = page.locator('article.card.minor[data-company="EKB"]')
            assert ekb.locator(".facts").inner_text().startswith(
                "face value 210M · home Euskirchen (T3)")
            assert "president's certificate (20%) of AGV" in ekb.inner_text()
            assert page.locator("#market-grid tr").count() == 7
        assert desk.locator("#status").inner_text().startswith(
            "Starting Package · buy from the Starting Package")
        assert desk.locator("#offer article.card").count() >= 3
        desk.screenshot(path=str(SHOTS / "page-1893-package-desktop.png"), full_page=True)
        desk.locator("#actions").get_by_role("button", name="buy FdSD for 180M",
                                             exact=True).click()
        phone.wait_for_selector('body[data-last-action-id="1"]')
        assert phone.locator('#cards article.card[data-company="FdSD"] .owner').inner_text() \
            == f"owner: {ANN}"
        assert phone.locator("#log li").first.inner_text() == f"{ANN} buys FdSD for 180M"
        phone.screenshot(path=str(SHOTS / "page-1893-package-phone.png"), full_page=True)
        browser.close()
    assert problems == []
