"""18Rhl rules first seen in the later reference games (``released``, ``generated2``).

Each test replays a reference game of ``../shared`` to the action before the
rule applies, checks the position, processes the recorded action (or a
variant) and checks the state the reference engine reached (its oracle trace).

Rules: a partial sale of the president's certificate when the seller gets a
double certificate back, and the share count the presidency goes by after it;
the order of the sold-out price rises at the end of a stock round; bankruptcy
(what the bankrupt president sells, who takes their companies, the company's
forced train purchase with the bank's loan); Siegerland's steel and the
Rheingold-Express doubling of a ferry pair.  Where these differ from the seed
rules summary, ``docs/rules-differences.md`` lists it.
"""

from __future__ import annotations

import pytest

from play import co, label, price, step
from reference import ReferenceGames, needs_shared
from rhineland import GameError
from rhineland.engine.actions import Bankrupt, BuyShares, BuyTrain, Pass, SellShares
from rhineland.engine.entities import IPO, MARKET, Holder
from rhineland.engine.game import Game
from rhineland.io.state_view import game_state
from rhineland.routes.engine import run_revenue
from rhineland.routes.model import RouteResult

REF = ReferenceGames("18Rhl")


def certs(game: Game, sym: str) -> dict[str, Holder]:
    """Certificate id -> holder."""
    return {c.id: c.owner for c in game.corporation(sym).certificates}


# -- partial sale of the president's certificate --------------------------------------


@needs_shared
def test_partial_president_sale_gives_back_the_double_certificate() -> None:
    """generated2 g400 #375: 1001 (KEG_0, the 20% president's certificate) sells 10% of
    it at 80M; 1002 (KEG_2, a 20% double) and 1003 (KEG_3, 20%) hold as much, 1002 is
    next in order after 1001 and becomes president.  1002's double goes to the market
    for the president's certificate, and the seller takes back one certificate for the
    10% kept, the one longest in the market: the double.  So 1001 still holds 20%, the
    market none, and 1001 was paid 80M for one 10% share; the price falls a row."""
    game = REF.position("generated2/g400", 374)
    assert [p.id for p in game.state.players] == [1002, 1003, 1001]
    assert certs(game, "KEG") == {
        "KEG_0": 1001, "KEG_1": IPO, "KEG_2": 1002, "KEG_3": 1003,
        "KEG_4": IPO, "KEG_5": IPO, "KEG_6": IPO}
    before = game.player(1001).cash
    game.process(SellShares(entity=1001, shares=("KEG_0",), percent=10))
    keg = game.corporation("KEG")
    assert keg.president == 1002
    assert certs(game, "KEG")["KEG_0"] == 1002 and certs(game, "KEG")["KEG_2"] == 1001
    assert (keg.percent_of(1001), keg.percent_of(MARKET)) == (20, 0)
    assert game.player(1001).cash == before + 80
    assert price(game, "KEG") == (75, 3, 3)
    # the presidency counts 1001 10% short (the 10% sold) and the market 10% over
    assert (keg.counted_percent(1001), keg.counted_percent(MARKET)) == (10, 10)
    state = game_state(game)
    trace = REF.trace_entry("generated2/g400", 375)
    assert state["players"]["1001"] == trace["players"]["1001"]
    assert state["corporations"]["KEG"] == trace["corporations"]["KEG"]


@needs_shared
def test_presidency_goes_by_the_counted_percent_after_a_double_came_back() -> None:
    """generated2 g400 #455: 1001 now holds KEG_2 (20%, from the partial sale above) and
    buys KEG_1 from the IPO: 30% of certificates against president 1002's 20%.  The
    presidency counts 1001 at 20% (10% short since that sale), a tie with 1002, so
    1002 stays president."""
    game = REF.position("generated2/g400", 454)
    keg = game.corporation("KEG")
    assert (keg.president, keg.percent_of(1001), keg.counted_percent(1001)) == (1002, 20, 10)
    game.process(BuyShares(entity=1001, shares=("KEG_1",), percent=10))
    keg = game.corporation("KEG")
    assert (keg.percent_of(1001), keg.counted_percent(1001)) == (30, 20)
    assert keg.president == 1002
    assert game_state(game)["corporations"]["KEG"]["president"] == REF.trace_entry(
        "generated2/g400", 455)["corporations"]["KEG"]["president"]


@needs_shared
def test_partial_president_sale_with_single_certificates_keeps_the_count() -> None:
    """generated2 g410 #838: the same sale at the bottom of the market (50M, no move):
    1004 sells 10% of KEG_0; 1001 becomes president (the next in order holding 20%) and
    the seller again ends with 20% and 50M more, as the reference engine has it."""
    game = REF.position("generated2/g410", 837)
    assert game.corporation("KEG").president == 1004
    before = game.player(1004).cash
    game.process(SellShares(entity=1004, shares=("KEG_0",), percent=10))
    keg = game.corporation("KEG")
    assert keg.president == 1001
    assert (keg.percent_of(1004), keg.percent_of(MARKET)) == (20, 40)
    assert game.player(1004).cash == before + 50
    assert price(game, "KEG") == (50, 5, 0)


@needs_shared
def test_bankrupt_presidents_company_goes_to_a_double_holder_counted_short() -> None:
    """generated2 g422 #497: 1003 (KEG president: KEG_0 and KEG_6, 30%) goes bankrupt for
    DEE's train.  1001 holds KEG_3, a 20% double that came back from an earlier partial
    sale, so the presidency counts it as 10% (the market 10% over).  With 1003's 30% in
    the market 1001's 10% is still the most, and its certificates reach the president's
    20%: 1001 takes KEG (KEG_0 for KEG_3), not receivership.  The counts stay 10% off."""
    game = REF.position("generated2/g422", 496)
    keg = game.corporation("KEG")
    assert (keg.president, keg.percent_of(1003), keg.percent_of(MARKET)) == (1003, 30, 50)
    assert (keg.percent_of(1001), keg.counted_percent(1001)) == (20, 10)
    game.process(Bankrupt(**co("DEE")))
    keg = game.corporation("KEG")
    assert (keg.president, keg.receivership) == (1001, False)
    assert certs(game, "KEG")["KEG_0"] == 1001 and certs(game, "KEG")["KEG_3"] == MARKET
    assert (keg.percent_of(1001), keg.percent_of(MARKET)) == (20, 80)
    assert (keg.counted_percent(1001), keg.counted_percent(MARKET)) == (10, 90)
    assert game.corporation("DEE").receivership
    trace = REF.trace_entry("generated2/g422", 497)["corporations"]["KEG"]
    assert game_state(game)["corporations"]["KEG"]["president"] == trace["president"] == "1001"


# -- sold-out rises at the end of the stock round ----------------------------------------


@needs_shared
def test_sold_out_rises_go_in_operating_order() -> None:
    """generated2 g400 #516: SR 11 ends with CCE and RhE both sold out on the same cell
    (80M, row 3 col 4), RhE ahead (it came there first, at #431; CCE at #441).  They rise
    in operating order, so RhE reaches 90M (row 2 col 4) first and still operates
    before CCE in OR 11.1 (after CME at 120M)."""
    game = REF.position("generated2/g400", 515)
    assert price(game, "CCE") == price(game, "RhE") == (80, 3, 4)
    game.process(REF.action("generated2/g400", 516))
    assert label(game) == "OR 11.1"
    assert price(game, "CCE") == price(game, "RhE") == (90, 2, 4)
    for action_id in (517, 518, 519):  # CME's turn
        game.process(REF.action("generated2/g400", action_id))
    assert game.round.current_entity(game).sym == "RhE" and step(game) == "track"


# -- bankruptcy --------------------------------------------------------------------------


@needs_shared
def test_bankrupt_presidents_company_goes_to_the_next_player_in_order_on_a_tie() -> None:
    """released g05 #264: 1003 (president of RhE, ADR and DEE) goes bankrupt for RhE's
    train.  Nothing is sellable (ADR: the market is full; DEE has not operated; RhE:
    the president's certificate).  DEE's 30% go to the market and 1001 and 1002 hold
    20% each: the presidency goes to the first of them after 1003 in player order
    (1002, 1003, 1004, 1001), so 1001.  ADR and RhE (nobody at 20%) enter
    receivership; RhE buys the 5-train (phase 5: every private closes) with 409M of
    treasury and 1003's 56M, owing 500 - 465 + 100: -135M.  DEE operates next, for
    1001."""
    game = REF.position("released/g05", 263)
    assert [p.id for p in game.state.players] == [1002, 1003, 1004, 1001]
    dee = game.corporation("DEE")
    assert (dee.president, dee.percent_of(1001), dee.percent_of(1002)) == (1003, 20, 20)
    bank = game.bank.cash
    game.process(Bankrupt(**co("RhE")))
    assert game.corporation("DEE").president == 1001
    assert game.corporation("ADR").receivership and game.corporation("RhE").receivership
    rhe = game.corporation("RhE")
    assert (rhe.cash, [t.id for t in rhe.trains], game.phase.name) == (-135, ["5-0"], "5")
    assert game.bank.cash == bank + 500 + 100
    assert all(p.closed for p in game.privates.values())
    assert game.round.current_entity(game).sym == "DEE" and step(game) == "track"
    assert game_state(game)["acting"] == ["1001"]


@needs_shared
def test_bankrupt_presidents_company_with_a_new_president_buys_no_train() -> None:
    """released g11 #365: 1001 (BME 20%, president; RhE 30%; private PWB) goes bankrupt
    for BME's train.  1004 holds 20% of BME and takes the presidency, so BME is not in
    receivership and buys nothing at once: it stays in the buy-train step (270M, no
    train), now for 1004, still in phase 4; 1001's 189M go to the bank, PWB closes and
    the other privates stay open."""
    game = REF.position("released/g11", 364)
    assert (game.player(1001).cash, game.corporation("BME").cash) == (189, 270)
    bank = game.bank.cash
    game.process(Bankrupt(**co("BME")))
    bme = game.corporation("BME")
    assert (bme.president, bme.cash, bme.trains) == (1004, 270, [])
    assert game.round.current_entity(game) is bme and step(game) == "buy_train"
    assert game_state(game)["acting"] == ["1004"]
    assert game.phase.name == "4" and game.bank.cash == bank + 189
    assert game.private("PWB").closed and not game.private("Szl").closed
    with pytest.raises(GameError, match="must buy a train"):
        game.process(Pass(**co("BME")))


@needs_shared
def test_second_bankruptcy_with_a_negative_treasury_counts_the_debt_twice() -> None:
    """generated2 g403 #493 and #496: BME (-261M, no train) must buy the 5-train (500M).
    1002 goes bankrupt; 1004 (20%) becomes president and sells 175M of shares, then goes
    bankrupt too with 393M.  BME, now in receivership, buys the 5-train: the bank pays
    500 + 261 - 393 = 368M and BME owes that plus 100M on top of its debt: -729M."""
    game = REF.position("generated2/g403", 492)
    game.process(Bankrupt(**co("BME")))
    bme = game.corporation("BME")
    assert (bme.president, bme.cash, step(game)) == (1004, -261, "buy_train")
    for action_id in (494, 495):
        game.process(REF.action("generated2/g403", action_id))
    assert game.player(1004).cash == 393
    bank = game.bank.cash
    game.process(Bankrupt(**co("BME")))
    bme = game.corporation("BME")
    assert bme.receivership and [t.id for t in bme.trains] == ["5-2"]
    assert bme.cash == -729 and game.bank.cash == bank + 393 + 368 + 100
    assert game.round.current_entity(game).sym == "ADR"


@needs_shared
def test_receivership_company_without_a_train_may_pass() -> None:
    """generated2 g406 #459: ADR, in receivership since #437, has a route, no train and
    282M; the cheapest train costs 600M.  Nobody can add money, so it is not obliged to
    buy: it passes and BME operates.  It may not buy another company's train either."""
    game = REF.position("generated2/g406", 458)
    adr = game.corporation("ADR")
    assert adr.receivership and (adr.cash, adr.trains, step(game)) == (282, [], "buy_train")
    other = next(t for c in game.corporations.values() if c is not adr for t in c.trains)
    with pytest.raises(GameError, match="may not buy a train from"):
        game.process(BuyTrain(**co("ADR"), train=other.id, price=1))
    game.process(Pass(**co("ADR")))
    assert game.round.current_entity(game).sym == "BME"


# -- route bonuses -----------------------------------------------------------------------


def run_of(name: str, action_id: int, train: str | None = None) -> RouteResult:
    """Our result for ``train``'s route (default: the first) of the run recorded at
    ``action_id``, in the position before it."""
    game = REF.position(name, action_id - 1)
    run = next(a for a in REF.export(name).raw["actions"] if a["id"] == action_id)
    ctx = game.title.route_context(game, game.corporation(run["entity"]))
    results = run_revenue(ctx, run["routes"])
    return next(r for r in results if train is None or r.train == train)


@needs_shared
def test_siegerland_is_one_steel_hex() -> None:
    """released g11 #633 (phase 8): BME's 6-train E6-D7-D9[ferry]-E12-F13-G12-J15 has coal
    in D7 (the Moers tile) and D9 (the variable mine) and steel only in Siegerland (J15):
    a single Montan, +40M, for 300M in all."""
    result = run_of("released/g11", 633)
    assert result.bonus("montan") == 40
    assert result.revenue == 300


@needs_shared
def test_rheingold_express_doubles_a_ferry_pair_once_net_of_the_ferry() -> None:
    """released g11 #672 (phase 8): CME's 8-train runs A6 ... L13, both RGE hexes, so the
    paying Rhine metropolises double.  D9 (green) is crossed by ferry: its two 40M cities
    are one stop paying 40 - 10 = 30M (the second city is no stop: it pays nothing; the
    fee is -10M), and that doubles (+30M), with I10's 40M (+40M): 420M."""
    result = run_of("released/g11", 672)
    assert result.bonus("trajekt") == -10
    assert result.bonus("rheingold") == 70
    assert result.revenue == 420


@needs_shared
def test_rheingold_express_pays_its_best_eight_without_its_token_city() -> None:
    """generated2 g415 #884 (phase 8): KEG's 8-train runs from its token in G6 (40M) to A6
    with twelve cities and offboards on the way.  The best eight pay (I10, F9, A6 at 60M,
    F13, D13, D11, D9, E6 at 50M: 430M); the token city need not be one of them."""
    result = run_of("generated2/g415", 884)
    assert "G6-0" not in result.stops and len(result.stops) == 8
    assert result.revenue == 430


# -- the promotion tile 949 on Duisburg (D9) ---------------------------------------------


@needs_shared
def test_promotion_tile_949_replaces_929_though_an_edge_now_runs_through_its_town() -> None:
    """generated2 g403 #779 (promotion tiles, phase 8): GVE upgrades Duisburg's brown 929
    to the gray 949 at rotation 0.  929 joins edges 0, 1, 3, 4 and 5 to its city; on 949
    edge 4 reaches the city through the new town.  The upgrade is named outright, so
    its track is not checked: the lay is offered and accepted."""
    game = REF.position("generated2/g403", 778)
    assert game.board.tiles["D9"].tile.name == "929"
    assert [(lay.tile, lay.rotation) for lay in game.legal_tile_lays() if lay.hex == "D9"] == [
        ("949", 0)]
    game.process(REF.action("generated2/g403", 779))
    assert game.board.tiles["D9"].tile.name == "949" and step(game) == "route"


@needs_shared
def test_949s_town_and_city_in_a_row_are_one_stop() -> None:
    """generated2 g406 #785: CME's 5-train runs B15 ... D11-D9-D9-D7 ..., through 949's
    town (20M) and then its city (60M).  As a ferry pair, they are one stop, the town,
    paying 10M less: the city pays nothing and costs no distance, so the route has its
    5 cities (B15, B9, D11, D7, E6) and earns 340M.  #790: the Rheingold-Express ignores
    towns first, so D9's city followed by its town pays its 60M, no fee (440M)."""
    result = run_of("generated2/g406", 785, "5-0")
    assert result.bonus("trajekt") == -10 and "D9-0" not in result.stops
    assert result.revenue == 340
    rge = run_of("generated2/g406", 790)
    assert rge.bonus("trajekt") == 0 and rge.revenue == 440
