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
CHAT = 'look at SR 1 <b>here</b> <img src=x id="chat-pwned">'
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


def _playwright() -> Any:
    """Playwright's ``sync_playwright`` (the test skips without chromium)."""
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not found (apt-get install chromium): browser test skipped")
    from playwright.sync_api import sync_playwright

    return sync_playwright


def _worked_example(last: int) -> dict[str, Any]:
    """The worked example's export up to action ``last``."""
    data: dict[str, Any] = json.loads(SEED_EXPORT.read_text())
    data["actions"] = [a for a in data["actions"] if a["id"] <= last]
    return data


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

    data = _worked_example(38)
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


@needs_shared
def test_history_and_chat_in_the_browser(tmp_path: Path) -> None:
    """The worked example imported to ADR's payout in OR 2.1: P2 (desktop) steps back
    by rounds to the start of SR 1 (the map without ADR's tile, the tables of then, no
    action offered, the position in the fragment beside the secret), stays there while
    P1 (phone) acts, steps on with the keyboard and the buttons, and comes back to now;
    a link to a position opens it, for anyone.  The chat: P2 writes from the past
    position (markup in it shown as text), P1's phone shows it at once and answers, the
    spectator reads both and has nothing to write with."""
    playwright = _playwright()
    problems: list[str] = []
    with live_server(f"sqlite:///{tmp_path / 'games.sqlite3'}") as base, playwright() as p:
        g = httpx.post(f"{base}/api/games/import", json=_worked_example(38)).json()
        gid, p2 = g["id"], g["seats"][1]["secret"]
        rounds = {r["round"]: r["at"] for r in
                  httpx.get(f"{base}/api/games/{gid}").json()["rounds"]}
        sr1 = rounds["SR 1"]
        then = httpx.get(f"{base}/api/games/{gid}", params={"at": sr1}).json()
        browser = _browser(p)
        desk = _open(browser, base + g["seats"][1]["url"], "desktop", problems, 38)
        phone = _open(browser, base + g["seats"][0]["url"], "phone", problems, 38)
        assert desk.locator("#h-where").inner_text() == "now: 38 actions"
        assert desk.locator("#h-banner").is_hidden()
        assert desk.locator('#map g.hex[data-hex="K4"]').get_attribute("data-tile") == "4-0"
        # back by rounds: the starts of OR 2.1, SR 2, OR 1.1, SR 1
        for name in ("OR 2.1", "SR 2", "OR 1.1", "SR 1"):
            desk.get_by_role("button", name="previous round").click()
            desk.wait_for_selector(f'body.history[data-position="{rounds[name]}"]')
        assert desk.locator("#h-where").inner_text() == f"SR 1 · after action {sr1} of 38"
        assert desk.locator("#status").inner_text() == then["status"]
        assert then["status"].startswith("SR 1")
        assert desk.locator("#h-banner").is_visible()
        assert desk.locator("#h-banner").get_by_role("button", name="back to now").is_visible()
        assert desk.locator("#actions button.act").count() == 0
        assert desk.locator("#undo").is_hidden()
        assert desk.locator('#map g.hex[data-hex="K4"]').get_attribute("data-tile") != "4-0"
        assert desk.locator('#sheet tr[data-company="ADR"]').count() == 0  # not parred yet
        for pl in then["players"]:
            cash = desk.locator(f'#sheet tfoot td.cash[data-player="{pl["id"]}"]')
            assert cash.inner_text() == f"{pl['cash']}M"
        assert desk.locator("#log section.log-round h4").all_inner_texts() == [
            "Private auction"]
        # the position is in the fragment, with the secret; never in the query string
        url = desk.evaluate("location.href")
        assert url.endswith(f"/g/{gid}#{p2}&at={sr1}") and "?" not in url
        link = desk.locator("#h-link").get_attribute("href")
        assert link == f"/g/{gid}#at={sr1}"  # a link for anyone: no secret in it
        desk.screenshot(path=str(SHOTS / "page-18rhl-history-sr1-desktop.png"), full_page=True)
        # the chat, from the past position: P1's phone shows it at once, as text
        desk.locator("#chat-text").fill(CHAT)
        desk.locator("#chat-form").get_by_role("button", name="send").click()
        phone.wait_for_selector("#chat li[data-seat='2']")
        line = phone.locator("#chat li").first
        assert line.locator("b.name").inner_text() == "P2"
        assert line.locator(".text").inner_text() == CHAT
        assert phone.locator("#chat li img, #chat-pwned").count() == 0
        assert desk.locator("#chat-text").input_value() == ""
        assert desk.locator(f'body.history[data-position="{sr1}"]').count() == 1
        phone.locator("#chat-text").fill("  yes, before ADR was parred  ")
        phone.locator("#chat-text").press("Enter")
        desk.wait_for_selector("#chat li[data-seat='1']")
        assert desk.locator("#chat li .text").all_inner_texts() == [
            CHAT, "yes, before ADR was parred"]
        assert "mine" in (desk.locator("#chat li").first.get_attribute("class") or "")
        phone.locator("#chat-box").screenshot(path=str(SHOTS / "page-18rhl-chat-phone.png"))
        # a private note: kept for the seat over a reload, shown to nobody else
        desk.locator("#note-box summary").click()
        desk.locator("#note-text").fill("P1 will buy the 3-train")
        desk.get_by_role("button", name="save my notes").click()
        desk.wait_for_selector("#note-said:text-is('saved')")
        # P1 acts on the phone; the desk stays where it looks, and learns of the action
        phone.locator("#actions").get_by_role("button", name="ADR: pass: buy no train",
                                              exact=True).click()
        phone.wait_for_selector('body[data-last-action-id="39"]')
        desk.wait_for_selector(f'body.history[data-last-action-id="39"][data-position="{sr1}"]')
        assert desk.locator("#h-where").inner_text() == f"SR 1 · after action {sr1} of 39"
        # forward: the keyboard's arrow, then a round, then back to now
        desk.keyboard.press("ArrowRight")
        desk.wait_for_selector(f'body.history[data-position="{sr1 + 1}"]')
        desk.get_by_role("button", name="next position").click()
        desk.wait_for_selector(f'body.history[data-position="{sr1 + 2}"]')
        desk.get_by_role("button", name="previous position").click()
        desk.wait_for_selector(f'body.history[data-position="{sr1 + 1}"]')
        desk.get_by_role("button", name="next round").click()
        desk.wait_for_selector(f'body.history[data-position="{rounds["OR 1.1"]}"]')
        assert desk.locator("#h-where").inner_text().startswith("OR 1.1 · ")
        desk.get_by_role("button", name="back to now").click()
        desk.wait_for_selector('body:not(.history)[data-position="39"]')
        assert desk.locator("#h-banner").is_hidden()
        assert desk.locator('#map g.hex[data-hex="K4"]').get_attribute("data-tile") == "4-0"
        assert desk.evaluate("location.hash") == f"#{p2}"
        assert desk.locator('#sheet tr[data-company="ADR"]').count() == 1
        # the first position, then a reload keeps it
        desk.get_by_role("button", name="first position").click()
        desk.wait_for_selector('body.history[data-position="0"]')
        assert desk.get_by_role("button", name="previous position").is_disabled()
        desk.reload()
        desk.wait_for_selector('body.history[data-position="0"] #map svg')
        assert desk.locator("#note-text").input_value() == "P1 will buy the 3-train"
        assert phone.locator("#note-text").input_value() == ""
        assert desk.locator("#h-where").inner_text() == "Private auction · the start"
        desk.get_by_role("button", name="last position").click()
        desk.wait_for_selector('body:not(.history)[data-position="39"]')
        # a shared link opens the position, as a spectator
        shared = _open(browser, f"{base}/g/{gid}#at={sr1}", "phone", problems, 39)
        shared.wait_for_selector(f'body.history[data-position="{sr1}"]')
        assert shared.locator("#whoami").inner_text() == "watching (spectator)"
        assert shared.locator("#status").inner_text() == then["status"]
        shared.wait_for_selector("#chat li[data-seat='1']")
        assert shared.locator("#chat li .text").count() == 2
        assert shared.locator("#chat-form").is_hidden()
        assert shared.locator("#chat-watch").is_visible()
        assert shared.locator("#note-box").is_hidden()
        shared.screenshot(path=str(SHOTS / "page-18rhl-history-link-phone.png"), full_page=True)
        # a link past the end says so and shows now
        late = _open(browser, f"{base}/g/{gid}#at=500", "phone", problems, 39)
        late.wait_for_selector('body:not(.history)[data-position="39"]')
        browser.close()
        export = httpx.get(f"{base}/api/games/{gid}/export").json()
    assert len(export["actions"]) == 39  # looking back wrote nothing
    assert problems == ["Failed to load resource: the server responded with a status of 404 "
                        "(Not Found)"]  # the link past the end


FAKE_NOTIFICATIONS = """
window.__shown = [];
window.__asked = 0;
window.__visibility = "visible";
Object.defineProperty(Document.prototype, "visibilityState",
  { get() { return window.__visibility; }, configurable: true });
class FakeNotification {
  constructor(title, options) { window.__shown.push([title, (options || {}).body || ""]); }
}
FakeNotification.permission = "default";
FakeNotification.requestPermission = async () => {
  window.__asked += 1;
  FakeNotification.permission = "granted";
  return "granted";
};
window.Notification = FakeNotification;
"""
"""The browser's notifications and the tab's visibility, stood in for (a headless
browser's tab is always shown): ``__shown`` keeps the notifications made,
``__asked`` counts the permission prompts, ``__visibility`` is what
``document.visibilityState`` says."""


def test_your_turn_in_the_tab_title_and_a_notification(tmp_path: Path) -> None:
    """Ann and Ben (people) against a bot: the tab's title says "▶ Your turn — 18Rhl"
    on the page of the seat to act, and only there, after every move (Ann's, Ben's, the
    bot's); nothing asks for the notification permission until the button is pressed;
    then a notification comes when the turn becomes the seat's while its tab is not
    shown, never while it is shown or for a move that keeps the turn elsewhere.  The
    alerts form keeps a webhook and shows a refusal in words."""
    playwright = _playwright()
    problems: list[str] = []
    with live_server(f"sqlite:///{tmp_path / 'games.sqlite3'}") as base, playwright() as p:
        g = httpx.post(f"{base}/api/games", json={
            "title": "18Rhl", "players": ["Ann", "Ben", "Cid"], "seed": 1,
            "bots": {"3": "random"}}).json()
        gid, (ann, ben) = g["id"], [s["secret"] for s in g["seats"][:2]]
        browser = _browser(p)
        pages = []
        for seat in g["seats"][:2]:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.add_init_script(FAKE_NOTIFICATIONS)
            page = context.new_page()
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.goto(base + seat["url"])
            page.wait_for_selector('body[data-last-action-id="0"] #map svg')
            pages.append(page)
        a_page, b_page = pages
        yours = "▶ Your turn — 18Rhl"
        assert a_page.title() == yours
        assert not b_page.title().startswith("▶") and b_page.title().startswith("18Rhl · ")
        for page in pages:  # no prompt on load: a button asks
            assert page.evaluate("window.__asked") == 0
            assert page.locator("#notify-me").is_visible()
            page.get_by_role("button", name="notify me in this browser").click()
            page.wait_for_selector("#notify-said:text-is('browser notifications on "
                                   "(while this tab is not shown)')")
            assert page.locator("#notify-me").is_hidden()
            assert page.evaluate("window.__asked") == 1
            page.evaluate("window.__visibility = 'hidden'")

        def pass_turn(secret: str) -> None:
            acts = httpx.get(f"{base}/api/games/{gid}/legal",
                             headers={"Authorization": f"Bearer {secret}"}).json()
            pas = next(e["action"] for e in acts["actions"] if e["action"]["type"] == "pass")
            r = httpx.post(f"{base}/api/games/{gid}/actions",
                           headers={"Authorization": f"Bearer {secret}"},
                           json={"action": pas, "last_action_id": acts["last_action_id"]})
            assert r.status_code == 200, r.text

        def shown(page: Any) -> list[list[str]]:
            return list(page.evaluate("window.__shown"))

        # Ann passes: Ben's turn; his hidden tab says so and notifies, Ann's does not
        pass_turn(ann)
        for page in pages:
            page.wait_for_selector('body[data-last-action-id="1"]')
        b_page.wait_for_function("() => document.title.startsWith('▶')")
        assert b_page.title() == yours and not a_page.title().startswith("▶")
        status = b_page.locator("#status").inner_text()
        assert shown(b_page) == [["Your turn: 18Rhl", status]] and shown(a_page) == []
        # Ben passes, the bot moves: Ann's turn (her tab hidden: notified), not Ben's
        pass_turn(ben)
        for page in pages:
            page.wait_for_selector('body[data-last-action-id="3"]')
        a_page.wait_for_function("() => document.title.startsWith('▶')")
        assert a_page.title() == yours and not b_page.title().startswith("▶")
        assert len(shown(a_page)) == 1 and len(shown(b_page)) == 1
        # Ben looks at his tab: his next turn shows in the title only
        b_page.evaluate("window.__visibility = 'visible'")
        pass_turn(ann)
        b_page.wait_for_selector('body[data-last-action-id="4"]')
        b_page.wait_for_function("() => document.title.startsWith('▶')")
        assert len(shown(b_page)) == 1
        # the alerts form: a refusal in words, then a webhook kept on the server
        b_page.locator("#alerts-box summary").click()
        assert b_page.locator("#alert-email-label").is_hidden()  # this server sends no mail
        b_page.locator("#alert-webhook").fill("ftp://example.org/x")
        b_page.get_by_role("button", name="save my alerts").click()
        b_page.wait_for_selector("#alerts-said:text-matches('^not saved: webhook: "
                                 "expected an http')")
        b_page.locator("#alert-webhook").fill("https://hooks.example.org/ben")
        b_page.get_by_role("button", name="save my alerts").click()
        b_page.wait_for_selector("#alerts-said:text-is('saved')")
        got = httpx.get(f"{base}/api/games/{gid}/alerts",
                        headers={"Authorization": f"Bearer {ben}"}).json()
        assert got["webhook"] == "https://hooks.example.org/ben"
        b_page.screenshot(path=str(SHOTS / "page-18rhl-your-turn.png"))
        browser.close()
    # the one refusal asked for above (the browser logs the failed request)
    assert problems == ["Failed to load resource: the server responded with a status of "
                        "422 (Unprocessable Entity)"]
