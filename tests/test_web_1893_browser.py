"""An 1893 opening played on the player's page in a real browser (Debian's chromium
through Playwright), three people at desktop and phone width: the Starting Package draft
clicked by every seat until it ends (seven buys and Ann's pass, which is for good), SR 1
(Cid buys the first bond), OR 1.1 (EKB lays its home tile and buys a 2-train on the
page, the other minors through the API), and in OR 1.2 EKB lays a town tile and runs its
train on the page: 30M, half to Cid, half kept, as the engine says.  Screenshots go to
``$TMPDIR/rhineland-web-shots/page-1893-*.png``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from test_web_browser import SHOTS
from test_web_page_browser import _browser, _open, _panels_present, _playwright
from webserver import live_server

NAMES = ["Ann", "Ben", "Cid"]
# (seat, the button's text): the Starting Package draft, then SR 1
DRAFT = [(1, "buy FdSD for 180M"), (2, "buy EVA for 150M"), (3, "buy EKB for 210M"),
         (1, "buy KFBE for 200M"), (2, "buy HdSK for 100M"), (3, "buy KSZ for 100M"),
         (1, "pass"), (2, "buy KBE for 220M")]
SR1 = [(3, "buy AdSK-1 for 100M"), (2, "pass"), (3, "pass")]
# OR 1.1 after EKB's turn, through the API: the other minors lay nothing, buy a 2-train
OR11_API = [(3, "EKB: pass: buy no train"),
            (1, "KFBE: pass: lay no track"), (1, "KFBE: buy a 2-train from the depot for 80M"),
            (1, "KFBE: pass: buy no train"),
            (3, "KSZ: pass: lay no track"), (3, "KSZ: buy a 2-train from the depot for 80M"),
            (3, "KSZ: pass: buy no train"),
            (2, "KBE: pass: lay no track"), (2, "KBE: buy a 2-train from the depot for 80M"),
            (2, "KBE: pass: buy no train")]


def _click(page: Any, text: str, hex_id: str | None = None) -> None:
    """Click the offered action worded ``text`` (first the hex ``hex_id`` on the map)."""
    if hex_id is not None:
        page.locator(f'#map g.hex[data-hex="{hex_id}"]').click(force=True)
        box = page.locator("#hex-choices")
    else:
        box = page.locator("#actions")
    box.get_by_role("button", name=text, exact=True).click()


def _act(base: str, gid: str, secret: str, text: str) -> None:
    """Take the legal action worded ``text`` through the API, as the page would."""
    auth = {"Authorization": f"Bearer {secret}"}
    legal = httpx.get(f"{base}/api/games/{gid}/legal", headers=auth).json()
    action = next(e["action"] for e in legal["actions"] if e["text"] == text)
    r = httpx.post(f"{base}/api/games/{gid}/actions", headers=auth,
                   json={"action": action, "last_action_id": legal["last_action_id"]})
    assert r.status_code == 200, r.text


def _cash(page: Any) -> list[str]:
    return [page.locator(f'#sheet tfoot td.cash[data-player="{s}"]').inner_text()
            for s in (1, 2, 3)]


def test_1893_opening_starting_package_to_a_minor_run(tmp_path: Path) -> None:
    """Seed 1: the draft's buys and a pass clicked, each seat's cash and holdings after
    it; the bond in SR 1; EKB's tile lays and its run clicked; the run's 30M on the page
    (the log, the spreadsheet, EKB's card, Cid's cash) equal to the API's state."""
    playwright = _playwright()
    SHOTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    with live_server(f"sqlite:///{tmp_path / 'games.sqlite3'}") as base, playwright() as p:
        g = httpx.post(f"{base}/api/games", json={
            "title": "1893", "players": NAMES, "seed": 1}).json()
        gid, secrets = g["id"], [s["secret"] for s in g["seats"]]
        browser = _browser(p)
        pages = {1: _open(browser, base + g["seats"][0]["url"], "desktop", problems, 0),
                 2: _open(browser, base + g["seats"][1]["url"], "phone", problems, 0),
                 3: _open(browser, base + g["seats"][2]["url"], "desktop", problems, 0)}
        watch = _open(browser, base + g["spectator_url"], "phone", problems, 0)
        n = 0

        def wait_all() -> None:
            for page in (*pages.values(), watch):
                page.wait_for_selector(f'body[data-last-action-id="{n}"]', timeout=15000)

        ann = pages[1]
        assert ann.locator("#status").inner_text() == (
            "Starting Package · buy from the Starting Package · Ann to act")
        offered = ann.locator("#actions button.act").all_inner_texts()
        assert offered == ["buy FdSD for 180M", "buy EVA for 150M", "buy HdSK for 100M",
                           "buy EKB for 210M", "buy KFBE for 200M", "pass"]
        for seat, text in DRAFT:
            _click(pages[seat], text)
            n += 1
            wait_all()
        # the draft is over (one minor left, BKB); SR 1, Ann (who passed) out of it
        assert ann.locator("#status").inner_text() == (
            "SR 1 · buy, sell or par shares · Cid to act")
        for page in (ann, watch):
            _panels_present(page)
            assert _cash(page) == ["220M", "130M", "290M"]  # 600M less the buys
            assert [page.locator(f'#sheet tfoot td.privates[data-player="{s}"]').inner_text()
                    for s in (1, 2, 3)] == ["FdSD, KFBE", "EVA, HdSK, KBE", "EKB, KSZ"]
            name = page.locator('article.card.minor[data-company="KFBE"] .name')
            assert name.inner_text() == "2 Köln-Frechen-Benzelrather Eisenbahn"  # in full
            for sym, owner in (("EKB", "Cid"), ("KFBE", "Ann"), ("KSZ", "Cid"),
                               ("KBE", "Ben"), ("BKB", "the bank (for sale)")):
                card = page.locator(f'article.card.minor[data-company="{sym}"] .owner')
                assert card.inner_text() == f"owner: {owner}", sym
            section = page.locator('#log section.log-round[data-round="Draft 1"]')
            assert section.locator("h4").inner_text() == "Starting Package"
            assert section.locator("li").all_inner_texts()[::-1] == [  # newest first
                "Ann buys FdSD for 180M", "Ben buys EVA for 150M", "Cid buys EKB for 210M",
                "Ann buys KFBE for 200M", "Ben buys HdSK for 100M", "Cid buys KSZ for 100M",
                "Ann passes", "Ben buys KBE for 220M"]
        # the train roster fits the desktop's width: the trade-ins (notes) in view
        assert ann.locator("#roster").evaluate(
            "t => t.scrollWidth <= t.parentElement.clientWidth")
        three = ann.locator('#roster tr[data-train="3"] td').last.inner_text()
        assert three == "trade-in: 2-train 40M; opens the closed Rhine crossings"
        ann.screenshot(path=str(SHOTS / "page-1893-starting-package-desktop.png"),
                       full_page=True)
        pages[2].screenshot(path=str(SHOTS / "page-1893-starting-package-phone.png"),
                            full_page=True)
        assert ann.locator("#actions button.act").count() == 0  # no turn of hers
        for seat, text in SR1:
            _click(pages[seat], text)
            n += 1
            wait_all()
        cid = pages[3]
        assert cid.locator("#status").inner_text() == (
            "OR 1.1 · lay or upgrade track · EKB (Cid) to act")
        # EVA, which no company may hold, is offered in EKB's turn for its owner
        assert cid.locator('#actions .amount[data-text="EKB: buy EVA from Ben for Cid, '
                           '75 to 200M"]').count() == 1
        _click(cid, "EKB: lay tile 57 on Euskirchen (T3), rotation 2", "T3")
        _click(cid, "EKB: buy a 2-train from the depot for 80M")
        n += 2
        wait_all()
        for seat, text in OR11_API:
            _act(base, gid, secrets[seat - 1], text)
            n += 1
        wait_all()
        assert cid.locator("#status").inner_text() == (
            "OR 1.2 · lay or upgrade track · EKB (Cid) to act")
        _click(cid, "EKB: lay tile 3 on S2, rotation 4", "S2")
        n += 1
        wait_all()
        _click(cid, "EKB: run trains on the best routes (30M)")
        n += 1
        wait_all()
        state = httpx.get(f"{base}/api/games/{gid}").json()
        for page in (cid, watch):
            assert "EKB runs a 2-train for 30M" in page.locator("#log").inner_text()
            assert "EKB pays 15M to its owner and keeps 15M" in \
                page.locator("#log").inner_text()
            row = page.locator('#sheet tr[data-company="EKB"]')
            assert row.locator("td.treasury").inner_text() == "145M"  # 210 - 80 + 15
            assert row.locator("td.revenue").inner_text() == "30M half paid"
            card = page.locator('article.card.minor[data-company="EKB"]')
            assert card.locator(".facts").inner_text() == (
                "face value 210M · home Euskirchen (T3) · treasury 145M · trains 2 · "
                "last run 30M")
            assert _cash(page) == [f"{pl['cash']}M" for pl in state["players"]]
        cid.screenshot(path=str(SHOTS / "page-1893-minor-run-desktop.png"), full_page=True)
        watch.screenshot(path=str(SHOTS / "page-1893-minor-run-phone.png"), full_page=True)
        browser.close()
    assert problems == []
    ekb = next(c for c in state["sheet"]["companies"] if c["sym"] == "EKB")
    assert (ekb["cash"], ekb["last_revenue"], ekb["president"]) == (145, 30, "Cid")
    # Cid: 290 - 100 (the bond) + 2 x 10 (the bond, each OR) + 15 (half of EKB's 30M)
    assert [pl["cash"] for pl in state["players"]] == [260, 210, 225]
    assert "EKB pays 15M to its owner and keeps 15M" in state["log"]
