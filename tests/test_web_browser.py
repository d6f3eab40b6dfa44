"""The page in a real browser (Debian's chromium through Playwright): two browser
contexts (two people: P1 and P3 in one, P2 and P4 in the other) play the opening of the
worked example of the 18Rhl seed (``../shared/seeds/000_...``: the waterfall auction,
ADR par 80M and its shares, the K4 tile, a 2-train, the run for 50M) through the page,
with a token at Düren (K6) added in OR 1.  Every page sees every move without reloading
(server-sent events).  Screenshots go to ``$TMPDIR/rhineland-web-shots``."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import httpx
import pytest

from reference import SHARED, needs_shared
from rhineland.io.export import load_export, replay
from webserver import live_server

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
SEED_EXPORT = SHARED / "fixtures" / "18Rhl" / "18Rhl_seed_opening.json"
SHOTS = Path(tempfile.gettempdir()) / "rhineland-web-shots"
OPENING_SHOTS = ("1-auction-done-phone.png", "2-tile-laid.png", "3-after-the-run.png",
                 "4-after-the-run-phone.png")
"""The screenshots of the worked example's opening, as the test names them."""

PASS_ROUND = [(2, "pass"), (3, "pass"), (4, "pass")]
# (seat, hex to click first or None, the button's text), in the worked example's order
OPENING: list[tuple[int, str | None, str]] = [
    (1, None, "buy PWB for 20M"), (2, None, "buy KEO for 30M"), (3, None, "buy Szl for 50M"),
    (4, None, "buy Tjt for 80M"), (1, None, "pass"), (2, None, "buy NLK for 120M"),
    (3, None, "buy RhE for 140M"),
    (3, None, "par RhE at 70M"),
    (1, None, "par ADR at 80M: its 20% president's certificate for 160M"),
    *[(s, None, t) for s, t in PASS_ROUND],
    *[(s, None, t) for _ in range(3)
      for s, t in [(1, "buy 10% of ADR from the IPO for 80M"), *PASS_ROUND]],
    # OR 1: ADR lays tile 4 on K4, places a token at Düren (the example passes here),
    # buys a 2-train; RhE passes
    (1, "K4", "ADR: lay tile 4 on K4, rotation 1"),
    (1, "K6", "ADR: place a token in Düren (K6) for 60M"),
    (1, None, "ADR: buy a 2-train from the depot for 100M"),
    (1, None, "ADR: pass: buy no train"), (3, None, "RhE: pass: lay no track"),
    (3, None, "RhE: pass: buy no train"),
    # SR 2: everyone passes
    (4, None, "pass"), (1, None, "pass"), (2, None, "pass"), (3, None, "pass"),
    # OR 2: ADR runs Aachen - town - Düren for 50M and pays out
    (1, None, "ADR: pass: lay no track"),
    (1, None, "ADR: run trains on the best routes (50M)"),
    (1, None, "ADR: pay out 50M (5M a share)"),
]


def _blank_share(path: Path) -> float:
    from PIL import Image

    image = Image.open(path).convert("RGB")
    colors = image.getcolors(maxcolors=1 << 24) or []
    white = sum(n for n, c in colors if c == (255, 255, 255))
    return white / (image.width * image.height)


@needs_shared
def test_two_people_play_the_worked_example_opening_in_the_browser(tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not found (apt-get install chromium): browser test skipped")
    from playwright.sync_api import Page, sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    for old in OPENING_SHOTS:  # only this test's own: other tests keep theirs there
        (SHOTS / old).unlink(missing_ok=True)
    problems: list[str] = []
    with live_server(f"sqlite:///{tmp_path / 'games.sqlite3'}") as base:
        g = httpx.post(f"{base}/api/games", json={
            "title": "18Rhl", "players": ["P1", "P2", "P3", "P4"], "seed": 1}).json()
        gid = g["id"]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            first = browser.new_context(viewport={"width": 1280, "height": 900})
            second = browser.new_context(viewport={"width": 390, "height": 844})  # a phone
            pages: dict[int, Page] = {}
            for seat, ctx in ((1, first), (3, first), (2, second), (4, second)):
                page = ctx.new_page()
                page.on("console", lambda m: problems.append(m.text)
                        if m.type == "error" else None)
                page.on("pageerror", lambda e: problems.append(str(e)))
                page.goto(base + g["seats"][seat - 1]["url"])
                page.wait_for_selector('body[data-last-action-id="0"] #map svg')
                pages[seat] = page
            loaded = {s: pg.evaluate("window.rhinelandLoaded") for s, pg in pages.items()}
            assert pages[1].locator("#turn").inner_text() == "your turn"
            assert pages[2].locator("#turn").inner_text() == "waiting for P1"

            for n, (seat, hex_id, text) in enumerate(OPENING, start=1):
                page = pages[seat]
                if hex_id is not None:
                    # a click in the middle of the hex: on its town or city, drawn in the
                    # layer above the hexes (which names the hex too)
                    page.locator(f'#map g.hex[data-hex="{hex_id}"]').click(force=True)
                    button = page.locator("#hex-choices").get_by_role(
                        "button", name=text, exact=True)
                else:
                    button = page.locator("#actions").get_by_role("button", name=text,
                                                                  exact=True)
                    # a kind with many choices (the pars) is a list with one button
                    listed = page.locator("#actions select", has=page.locator(
                        "option", has_text=text))
                    if listed.count():
                        listed.select_option(label=text)
                        button = listed.locator("xpath=following-sibling::button")
                button.click()
                # every page, in both browsers, shows the new position without reloading
                for other in pages.values():
                    other.wait_for_selector(f'body[data-last-action-id="{n}"]', timeout=15000)
                if n == 7:
                    pages[2].screenshot(path=str(SHOTS / "1-auction-done-phone.png"))
                if hex_id == "K4":
                    pages[1].screenshot(path=str(SHOTS / "2-tile-laid.png"))
                    tile = pages[3].locator('#map g.hex[data-hex="K4"]')
                    assert tile.get_attribute("data-tile") == "4-0"  # P3 sees the tile
                if hex_id == "K6":
                    assert pages[2].locator('#map .token[data-company="ADR"]'
                                            '[data-hex="K6"]').count() == 1
            pages[3].screenshot(path=str(SHOTS / "3-after-the-run.png"), full_page=True)
            pages[4].screenshot(path=str(SHOTS / "4-after-the-run-phone.png"))
            assert {s: pg.evaluate("window.rhinelandLoaded") for s, pg in pages.items()} \
                == loaded  # no page was reloaded
            assert all(pg.locator("#conn").inner_text() == "live" for pg in pages.values())
            cash = {s: pages[2].locator(f'#sheet tfoot td.cash[data-player="{s}"]')
                    .inner_text() for s in pages}
            adr = pages[4].locator('#sheet tr[data-company="ADR"]')
            adr_cells = [adr.locator(f"td.{k}").inner_text()
                         for k in ("price", "treasury", "trains", "tokens", "revenue")]
            adr_p1 = adr.locator('td[data-player="1"]').inner_text()
            log = pages[1].locator("#log li").all_inner_texts()
            browser.close()
        export = httpx.get(f"{base}/api/games/{gid}/export").json()
    assert problems == []
    # the worked example's figures: the export's game at its payout (action 38)
    example = replay(load_export(SEED_EXPORT), until=38)
    assert cash == {p.id: f"{p.cash}M" for p in example.players}
    assert cash[1] == "65M"  # 450 - 20 - 160 - 3 x 80 + 2 x 5 (PWB) + 25 (half of 50)
    ex_adr = example.corporations["ADR"]
    assert adr_p1 == "50% P"  # P1 presides: 20% + 3 x 10%
    assert adr_cells[:2] == [f"{ex_adr.share_price.price}M",  # type: ignore[union-attr]
                             f"{ex_adr.cash - 60}M"]  # less the token at Düren
    # one 2-train (limit 4), two of three tokens placed (home, Düren), the run paid out
    assert adr_cells[2:] == ["2 (limit 4)", "1 of 3 left (next 80M)", "50M paid out"]
    assert any("50" in line for line in log)
    actions = export["actions"]
    assert len(actions) == len(OPENING)
    recorded = json.loads(SEED_EXPORT.read_text())["actions"]
    assert [a["type"] for a in actions[:24]] == [a["type"] for a in recorded[:24]]
    assert actions[24]["hex"] == "K4" and actions[24]["tile"] == "4-0"
    assert actions[25]["type"] == "place_token"
    run: Any = actions[-2]
    assert run["type"] == "run_routes" and [r["revenue"] for r in run["routes"]] == [50]
    shots = [SHOTS / name for name in OPENING_SHOTS]
    assert all(shot.is_file() for shot in shots)
    for shot in shots:
        assert _blank_share(shot) < 0.9, shot.name  # map, tables and text fill the screen


def test_lobby_new_game_against_a_bot_with_clock_and_undo(tmp_path: Path) -> None:
    """The lobby's form makes a game (1893, Ann against a random bot, a 5-minute clock);
    Ann follows her invite link, buys EVA for 150M, the bot answers on the server, Ann
    undoes her purchase (and the bot's answer) from the page."""
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not found (apt-get install chromium): browser test skipped")
    from playwright.sync_api import sync_playwright

    problems: list[str] = []
    with live_server(f"sqlite:///{tmp_path / 'games.sqlite3'}") as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(base + "/")
        form = page.locator("#new-game")
        form.locator("select[name=title]").select_option("1893")
        form.locator("input[name=players]").fill("Ann,Bot")
        form.locator("input[name=bots]").fill("2:random")
        form.locator("input[name=clock]").fill("5")
        form.get_by_role("button", name="Create").click()
        page.wait_for_selector("#created a.seat-link")
        link = page.locator("#created a.seat-link")
        assert link.count() == 1  # only Ann's: the bot has no invite link
        page.wait_for_selector("#games tbody tr")
        assert "Bot (random)" in page.locator("#games tbody tr").inner_text()
        link.click()
        page.wait_for_selector('body[data-last-action-id="0"] #map svg')
        assert page.locator("#turn").inner_text() == "your turn"
        clock = page.locator('#sheet td.clock[data-player="1"]').inner_text()
        assert clock in ("5:00", "4:59", "4:58")
        page.locator("#actions").get_by_role("button", name="buy EVA for 150M",
                                             exact=True).click()
        # the bot answers on the server; the page follows (events) until Ann is to act
        # (a selector, not a page function: the page's CSP allows no script but its own)
        page.wait_for_selector('body:not([data-last-action-id="0"]):not([data-last-action-id='
                               '"1"]) #turn[data-mine="1"]')
        after = int(page.evaluate("document.body.dataset.lastActionId"))
        assert "EVA" in page.locator('#sheet td.privates[data-player="1"]').inner_text()
        page.get_by_role("button", name="Undo my last action").click()
        page.wait_for_selector(f'body[data-last-action-id="{after + 1}"]')
        assert page.locator("#turn").inner_text() == "your turn"
        assert "EVA" not in page.locator('#sheet td.privates[data-player="1"]').inner_text()
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "5-lobby-game-after-undo.png"))
        browser.close()
    assert problems == []


@needs_shared
def test_edit_a_route_by_its_stops_on_the_map(tmp_path: Path) -> None:
    """The worked example imported up to ADR's run in OR 2: P1 edits the 2-train's route
    on the page.  Removing Aachen (K2) leaves Düren's town and city, which the engine
    refuses (no ADR token on the route: its message is shown, nothing is stored); the
    stops clicked on the map in order, Aachen, the town K4, Düren, make the run the
    engine accepts (50M)."""
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not found (apt-get install chromium): browser test skipped")
    from playwright.sync_api import sync_playwright

    data = json.loads(SEED_EXPORT.read_text())
    run_at = next(i for i, a in enumerate(data["actions"]) if a["type"] == "run_routes")
    data["actions"] = data["actions"][:run_at]
    problems: list[str] = []
    with live_server(f"sqlite:///{tmp_path / 'games.sqlite3'}") as base, sync_playwright() as p:
        g = httpx.post(f"{base}/api/games/import", json=data).json()
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(base + g["seats"][0]["url"])
        page.wait_for_selector(f'body[data-last-action-id="{run_at}"] #map svg')
        train = page.locator('.train-routes li[data-train="2-0"]')
        assert train.locator(".stop").all_inner_texts() == ["K2-0", "K4-0", "K6-0"]  # best
        train.get_by_role("button", name="edit 2-0").click()
        train.get_by_role("button", name="remove K2-0").click()
        assert train.locator(".stop").all_inner_texts() == ["K4-0", "K6-0"]
        page.get_by_role("button", name="run these routes").click()
        page.wait_for_selector('#message[data-kind="error"]')
        assert page.locator("#message").inner_text() == (
            "refused: train 2-0: the route (K4-0, K6-0) has no city with a ADR token "
            "[route.token]")
        assert page.evaluate("document.body.dataset.lastActionId") == str(run_at)
        train = page.locator('.train-routes li[data-train="2-0"]')
        train.get_by_role("button", name="clear").click()
        for hex_id in ("K2", "K4", "K6"):
            page.locator(f'#map g.hex[data-hex="{hex_id}"]').click(force=True)
        assert page.locator('.train-routes li[data-train="2-0"] .stop').all_inner_texts() \
            == ["K2-0", "K4-0", "K6-0"]  # a click in a city picks its node
        page.get_by_role("button", name="run these routes").click()
        page.wait_for_selector(f'body[data-last-action-id="{run_at + 1}"]')
        assert "ADR runs a 2-train for 50M" in page.locator("#log").inner_text()
        browser.close()
        export = httpx.get(f"{base}/api/games/{g['id']}/export").json()
    # the browser logs the refused request; nothing else went wrong
    assert problems == ["Failed to load resource: the server responded with a status of 422 "
                        "(Unprocessable Entity)"]
    run = export["actions"][-1]
    assert run["type"] == "run_routes" and run["routes"] == [
        {"train": "2-0", "connections": [["K2", "K4"], ["K4", "K6"]],
         "nodes": ["K2-0", "K4-0", "K6-0"], "revenue": 50}]
