"""The player's page data (:mod:`rhineland.web.page`, the words of
:func:`rhineland.io.describe.spoken`), each checked against real games: the worked
example of the 18Rhl seed (``../shared/fixtures/18Rhl/18Rhl_seed_opening.json``) and
bot-played games of both titles."""

from __future__ import annotations

from typing import Any

import pytest

from reference import SHARED, needs_shared
from rhineland import new_game
from rhineland.bots import make_bot
from rhineland.engine.actions import Action
from rhineland.engine.game import Game
from rhineland.engine.legal import AmountRange, RouteChoice
from rhineland.io.describe import player_status, spoken
from rhineland.io.export import load_export, replay
from rhineland.web import page
from rhineland.web.views import _token_hexes

SEED_EXPORT = SHARED / "fixtures" / "18Rhl" / "18Rhl_seed_opening.json"


def _seed(until: int) -> Game:
    return replay(load_export(SEED_EXPORT), until=until)


def _texts(game: Game) -> dict[str, int | None]:
    _, tokens = _token_hexes(game)
    lays = {(lay.hex, lay.tile, lay.rotation): lay.cost for lay in game.legal_tile_lays()}
    return dict(spoken(game, c, lays, tokens) for c in game.legal_actions())


def test_the_opening_is_worded_as_a_player_says_it() -> None:
    game = new_game("18Rhl", ["Ann", "Ben", "Cid", "Dan"], seed=1)
    texts = _texts(game)
    # the cheapest private is bought at face value; the others are bid on
    assert texts["buy PWB for 20M"] == 20
    assert texts["bid on KEO, 35 to 450M"] == 35
    assert texts["pass"] is None
    assert not any(t.startswith("bid 20M") for t in texts)
    status = player_status(game)
    assert status == "Private auction · buy the cheapest private or bid on another · Ann to act"
    assert "_" not in status


def test_1893_starting_package_and_vote_words() -> None:
    game = new_game("1893", ["Ann", "Ben", "Cid"], seed=1)
    texts = _texts(game)
    assert texts["buy FdSD for 180M"] == 180 and "pass" in texts
    assert player_status(game).startswith("Starting Package · buy from the Starting Package")
    # the draft, then OR 1.1: EKB's owner may buy EVA (for Cid, never
    # for EKB: no company holds it)
    for text in ("buy FdSD for 180M", "buy EVA for 150M", "buy EKB for 210M",
                 "pass", "pass", "pass"):
        game.process(next(c for c in game.legal_actions() if isinstance(c, Action)
                          and spoken(game, c)[0] == text))
    assert player_status(game) == "OR 1.1 · lay or upgrade track · EKB (Cid) to act"
    assert _texts(game)["EKB: buy EVA from Ben for Cid, 75 to 300M"] == 75


def _payer_cash(game: Game, a: Action) -> int:
    if a.entity_type == "player":
        return game.player(int(a.entity)).cash
    if a.entity_type == "corporation":
        return game.corporations[str(a.entity)].cash
    if a.entity_type == "minor":
        return game.minors[str(a.entity)].cash
    raise AssertionError(a.entity_type)


@pytest.mark.parametrize(("title", "n", "seed"), [("18Rhl", 4, 3), ("1893", 3, 3)])
def test_the_cost_shown_is_what_the_action_costs(title: str, n: int, seed: int) -> None:
    """Bots play 400 actions; at every decision each plain choice with a cost shown is
    made on a copy: the payer's cash falls by exactly that much (a sale: rises), where
    the round goes on (a round's end pays incomes too)."""
    game = new_game(title, [f"P{i}" for i in range(1, n + 1)], seed=seed)
    bots = {p.id: make_bot("greedy", seed=p.id) for p in game.players}
    checked: dict[str, int] = {}
    for _ in range(400):
        if game.is_terminal:
            break
        _, tokens = _token_hexes(game)
        lays = {(lay.hex, lay.tile, lay.rotation): lay.cost for lay in game.legal_tile_lays()}
        per_type: dict[str, int] = {}
        for choice in game.legal_actions():
            if isinstance(choice, AmountRange | RouteChoice):
                continue
            text, cost = spoken(game, choice, lays, tokens)
            if choice.entity_type == "company" or per_type.get(choice.type, 0) >= 2:
                continue
            if cost is None and choice.type not in ("lay_tile", "place_token"):
                continue
            per_type[choice.type] = per_type.get(choice.type, 0) + 1
            trial = game.copy()
            before = _payer_cash(trial, choice)
            trial.process(choice)
            paid = before - _payer_cash(trial, choice)
            if choice.type == "par" and cost is None:
                continue  # RhE's par after its director's certificate: nothing to pay
            if trial.is_terminal or trial.round.label != game.round.label:
                continue  # the round ended: income paid since (not the action's cost)
            assert paid == (cost or 0), (text, paid)
            checked[choice.type] = checked.get(choice.type, 0) + 1
        pid = game.acting_entities()[0]
        game.process(bots[pid].choose(game, pid))
    for kind in ("bid", "par", "buy_shares", "lay_tile", "place_token", "buy_train"):
        assert checked.get(kind), (kind, checked)


@needs_shared
def test_cards_of_the_18rhl_privates() -> None:
    game = _seed(38)
    cards = {c["sym"]: c for c in page.company_cards(game)}
    pwb = cards["PWB"]
    assert (pwb["name"], pwb["value"], pwb["revenue"], pwb["owner"], pwb["owner_id"]) == \
        ("No. 1 Prinz Wilhelm-Bahn", 20, 5, "P1", 1)
    assert pwb["abilities"] == ["Blocks E14: no tile may be laid there while a player owns it.",
                                "Closes when the first 5-train is bought."]
    assert cards["NLK"]["abilities"][0] == "Its buyer receives a 10% share of GVE."
    assert cards["KEO"]["abilities"][0].startswith(
        "Once, when a company its owner presides operates: lay tile 935 for free on E8")
    assert "13 hexes" in cards["Szl"]["abilities"][0]
    rhe = cards["RhE"]
    assert rhe["closed"] and rhe["owner"] == "closed"
    assert "the president's certificate (20%) of RhE" in rhe["abilities"][0]


def test_cards_of_the_1893_minors_and_bonds() -> None:
    game = new_game("1893", ["Ann", "Ben", "Cid"], seed=1)
    cards = {c["sym"]: c for c in page.company_cards(game)}
    ekb = cards["EKB"]
    assert ekb["kind"] == "minor" and ekb["value"] == 210 and ekb["home"] == "Euskirchen (T3)"
    assert ekb["owner"] == "the bank (for sale)" and ekb["owner_id"] is None
    # the full names (the minors' own are cut short: "2 Köln-Frechen-Benzelrather E")
    assert ekb["name"] == "1 Euskirchener Kreisbahn"
    assert cards["KFBE"]["name"] == "2 Köln-Frechen-Benzelrather Eisenbahn"
    assert "Exchanged for the president's certificate (20%) of AGV when AGV is founded " \
           "(the owners vote on it)." in ekb["abilities"]
    assert "Closes when the first 6-train is bought." in cards["EVA"]["abilities"]
    assert "exchange it for a share of RAG from the market" in " ".join(
        cards["FdSD"]["abilities"])
    # what the trains' first purchases do, in words
    events = {r["name"]: r["events"] for r in page.train_roster(game)}
    assert events["3"] == ["opens the closed Rhine crossings"]
    assert events["5"] == ["founds AGV", "HGK shares buyable on the market", "closes FdSD"]
    assert events["6"] == ["founds HGK", "closes EVA"]
    bonds = cards["AdSK"]
    assert bonds["count"] == 10 and bonds["owners"] == {"the bank (for sale)": 10}
    # Ann buys the FdSD: its card names her
    game.process(next(c for c in game.legal_actions()
                      if not isinstance(c, AmountRange | RouteChoice) and c.type == "bid"))
    fdsd = next(c for c in page.company_cards(game) if c["sym"] == "FdSD")
    assert (fdsd["owner"], fdsd["owner_id"]) == ("Ann", 1)


@needs_shared
def test_market_grid_holds_each_company_on_its_price() -> None:
    game = _seed(38)
    grid = page.market_grid(game)
    where = {sym: (r, c, cell["price"]) for r, row in enumerate(grid["rows"])
             for c, cell in enumerate(row) if cell for sym in cell["companies"]}
    adr, rhe = game.corporations["ADR"], game.corporations["RhE"]
    assert adr.share_price is not None and rhe.share_price is not None
    assert where == {"ADR": (adr.share_price.row, adr.share_price.col, adr.share_price.price),
                     "RhE": (rhe.share_price.row, rhe.share_price.col, rhe.share_price.price)}
    assert grid["rows"][0][3] == {"price": 100, "par": True, "types": ["par"], "companies": []}
    assert grid["colors"]["ADR"] == ["#008f4f", "#ffffff"]
    assert [len(r) for r in grid["rows"]] == [17, 14, 11, 7, 4, 3]


@needs_shared
def test_spreadsheet_figures_of_the_worked_example() -> None:
    game = _seed(38)
    sheet = page.spreadsheet(game)
    p1 = next(p for p in sheet["players"] if p["id"] == 1)
    # 450 - 20 - 160 - 3 x 80 + 2 x 5 (PWB) + 25 (half of ADR's 50M)
    assert p1["cash"] == 65 and p1["shares"] == {"ADR": 50} and p1["president_of"] == ["ADR"]
    assert p1["certs"] == 5 and p1["cert_limit"] == 15  # 4 ADR certificates and PWB
    assert [p["id"] for p in sheet["players"]] == [1, 2, 3, 4]  # seat order
    adr = next(c for c in sheet["companies"] if c["sym"] == "ADR")
    real = game.corporations["ADR"]
    # the home token placed (the example places none at Düren): 60M, then 80M, left
    assert (adr["cash"], adr["trains"], adr["tokens_left"], adr["next_token"]) == \
        (real.cash, ["2"], 2, 60)
    assert (adr["last_revenue"], adr["last_kind"], adr["president"]) == (50, "payout", "P1")
    assert (adr["ipo"], adr["market"], adr["par"]) == (50, 0, 80)
    rhe = next(c for c in sheet["companies"] if c["sym"] == "RhE")
    assert rhe["last_revenue"] is None and rhe["president"] == "P3"


@needs_shared
def test_train_roster_and_tile_manifest() -> None:
    start, game = new_game("18Rhl", ["A", "B", "C", "D"]), _seed(38)
    rows = {r["name"]: r for r in page.train_roster(game)}
    two = rows["2"]
    assert (two["depot"], two["count"], two["owners"], two["next"]) == (5, 6, {"ADR": 1}, True)
    assert two["rusts_on"] == "4" and rows["4"]["rusts"] == ["2"]
    assert rows["3"]["phase"] == {"name": "3", "tiles": ["yellow", "green"], "train_limit": 4,
                                  "ors": 2}
    assert rows["6"]["available_on"] == "5" and rows["5"]["events"] == [
        "closes the private companies"]
    before = {g["color"]: g for g in page.tile_manifest(start)}
    after = {g["color"]: g for g in page.tile_manifest(game)}
    assert list(after) == ["yellow", "green", "brown", "gray", "orange"]
    assert after["yellow"]["allowed"] and not after["green"]["allowed"]
    four = {t["name"]: t for t in after["yellow"]["tiles"]}["4"]
    four_before = {t["name"]: t for t in before["yellow"]["tiles"]}["4"]
    assert four["left"] == four_before["left"] - 1  # the tile laid on K4
    assert after["yellow"]["left"] == before["yellow"]["left"] - 1


@needs_shared
def test_log_in_sentences_under_round_headings() -> None:
    game = _seed(38)
    sections = page.log_sections(game, 1000)
    assert [s["round"] for s in sections] == ["Auction 1", "SR 1", "OR 1.1", "SR 2", "OR 2.1"]
    assert [s["heading"] for s in sections][:2] == ["Private auction", "SR 1"]
    assert sections[0]["lines"][0] == "P1 buys PWB for 20M"
    assert "PWB pays 5M to its owner" in sections[2]["lines"]  # the OR's, not the SR's
    assert "ADR runs a 2-train for 50M" in sections[-1]["lines"]
    assert "ADR lays tile 4 on K4 (rotation 1)" in sections[2]["lines"]
    assert sum(len(s["lines"]) for s in sections) == len(game.log)


def test_you_buy_not_you_buys_and_undo_keeps_the_headings() -> None:
    game = new_game("18Rhl", ["You", "Ben", "Cid"], seed=1)
    buy = next(c for c in game.legal_actions() if not isinstance(c, AmountRange | RouteChoice)
               and c.type == "bid")
    game.process(buy)
    assert page.log_sections(game, 10)[-1]["lines"] == ["You buy PWB for 20M"]
    game.process(next(c for c in game.legal_actions() if c.type == "pass"))
    game.undo()  # the undone lines and their rounds go
    sections = page.log_sections(game, 10)
    assert sections == [{"round": "Auction 1", "heading": "Private auction",
                         "lines": ["You buy PWB for 20M"]}]
    assert page.log_sentence(game, "ADR: You has no money") == "ADR: You have no money"
    assert page.log_sentence(game, "You passes") == "You pass"


def test_a_whole_bot_game_log_labels_every_line() -> None:
    """1893 by bots (merger rounds included): every line labelled, SR/OR/MR headings."""
    from rhineland.bots.base import play_game

    played = play_game("1893", [make_bot("greedy", seed=i) for i in range(3)], seed=3,
                       max_actions=700)
    game = played.game
    labels = page.log_rounds(game)
    assert len(labels) == len(game.log) and all(labels)
    kinds = {label.split()[0] for label in labels}
    assert {"Draft", "SR", "OR", "MR"} <= kinds
    rows: Any = page.train_roster(game)
    assert sum(r["depot"] for r in rows) < sum(r["count"] for r in rows)
