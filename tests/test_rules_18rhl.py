"""18Rhl rule cases, each checked with real values.

Positions are built through the public API, either from a new game or by
replaying a reference game of ``../shared`` to a chosen action id and then
acting.  Each test names the rule it checks; where the seed (``000``) or the
issue wording differs from the reference engine, the difference is listed in
``docs/rules-differences.md`` together with the test that pins it.

Note: an illegal action restores a copy of the state, so entity objects fetched
before a failing ``process`` are stale afterwards; the tests fetch them again.
"""

from __future__ import annotations

import copy

import pytest

from play import cash, co, label, play_packet_4p, price, step
from reference import ReferenceGames, needs_shared
from rhineland import GameError
from rhineland.engine.actions import (
    Bankrupt,
    Bid,
    BuyShares,
    BuyTrain,
    Dividend,
    LayTile,
    Par,
    Pass,
    PlaceToken,
    Redo,
    RunRoutes,
    SellShares,
    Undo,
)
from rhineland.engine.entities import IPO, MARKET, Corporation
from rhineland.engine.game import Game
from rhineland.io.export import replay
from rhineland.io.state_view import game_state
from rhineland.titles import get_title

PLAYERS4 = [(1, "P1"), (2, "P2"), (3, "P3"), (4, "P4")]
PLAYERS3 = [(1, "P1"), (2, "P2"), (3, "P3")]


# -- helpers ---------------------------------------------------------------------------


REF = ReferenceGames("18Rhl")
position = REF.position
fixture_action = REF.action
trace_entry = REF.trace_entry
_export = REF.export


def corp(game: Game, sym: str) -> Corporation:
    return game.corporation(sym)


def new_game(players: list[tuple[int, str]] = PLAYERS4) -> Game:
    return Game(get_title("18Rhl"), players, seed=1)


def play_packet_3p(game: Game) -> None:
    """3 players (600M each): P1 PWB 20 + Tjt 80, P2 KEO 30 + NLK 120, P3 Szl 50 + RhE 140
    (RhE par 70).  Cash after: P1 500, P2 450, P3 410."""
    game.process(Bid(entity=1, company="PWB", price=20))
    game.process(Bid(entity=2, company="KEO", price=30))
    game.process(Bid(entity=3, company="Szl", price=50))
    game.process(Bid(entity=1, company="Tjt", price=80))
    game.process(Bid(entity=2, company="NLK", price=120))
    game.process(Bid(entity=3, company="RhE", price=140))
    game.process(Par(entity=3, corporation="RhE", share_price="70,2,1"))


# -- receivership (issue case 5) -------------------------------------------------------

# (game, bankrupt action id, corporation, its treasury, president, president's cash
#  after the emergency sales, cheapest depot train, its price, treasury afterwards)
BANKRUPTCIES = [
    ("g00", 243, "DEE", 60, 1001, 307, "5-1", 500, -233),
    ("g03", 249, "CME", 88, 1002, 91, "4-2", 300, -221),
    ("g03", 362, "RhE", 209, 1003, 271, "5-1", 500, -120),
    ("g03", 423, "ADR", 96, 1001, 130, "6-3", 600, -474),
    ("g06", 392, "DEE", 315, 1003, 83, "5-0", 500, -202),
    ("g08", 324, "CME", 267, 1001, 57, "5-2", 500, -276),
    ("g08", 412, "ADR", 189, 1003, 375, "6-5", 600, -136),
]


@needs_shared
@pytest.mark.parametrize(
    ("name", "action_id", "sym", "treasury", "pres", "pres_cash", "train", "cost", "after"),
    BANKRUPTCIES,
    ids=[f"{b[0]}-{b[1]}-{b[2]}" for b in BANKRUPTCIES],
)
def test_receivership_company_buys_cheapest_train_and_owes_shortfall_plus_100(
    name: str, action_id: int, sym: str, treasury: int, pres: int, pres_cash: int,
    train: str, cost: int, after: int,
) -> None:
    """Receivership (issue case 5): the president cannot pay the train their company must
    buy and nobody takes the presidency.  The company buys the cheapest depot train with
    its treasury and the president's cash (paid to the bank); the bank pays the rest and
    the company owes it plus 100M (treasury + cash - price - 100)."""
    game = position(name, action_id - 1)
    c = corp(game, sym)
    assert step(game) == "buy_train" and game.round.current_entity(game) is c
    assert (c.cash, c.president, game.player(pres).cash, c.trains) == (
        treasury, pres, pres_cash, [])
    bank = game.bank.cash
    game.process(Bankrupt(**co(sym)))
    c = corp(game, sym)
    assert c.cash == after == treasury + pres_cash - cost - 100
    assert [t.id for t in c.trains] == [train]
    assert game.bank.cash == bank + cost + 100  # nothing was left to sell
    player = game.player(pres)
    assert player.bankrupt and player.cash == 0 and player.companies == []
    assert all(k.percent_of(pres) == 0 for k in game.corporations.values())
    assert c.receivership and c.president is None
    assert game_state(game)["corporations"][sym]["cash"] == trace_entry(name, action_id)[
        "corporations"][sym]["cash"]


@needs_shared
def test_receivership_bankrupt_players_shares_go_to_market_and_privates_close() -> None:
    """Receivership: the bankrupt president's remaining shares go to the market (their
    companies without a new president enter receivership, a company they did not preside
    keeps its president) and their privates close; other players' privates stay open.
    Game g03 action 249: player 1002 (CME 20%, KEG 20%, GVE 10%, private PWB)."""
    game = position("g03", 248)
    assert game.player(1002).companies == ["PWB"]
    before = {s: corp(game, s).percent_of(MARKET) for s in ("CME", "KEG", "GVE")}
    assert before == {"CME": 10, "KEG": 0, "GVE": 0}
    game.process(Bankrupt(**co("CME")))
    after = {s: corp(game, s).percent_of(MARKET) for s in ("CME", "KEG", "GVE")}
    assert after == {"CME": 30, "KEG": 20, "GVE": 10}
    assert corp(game, "CME").receivership and corp(game, "KEG").receivership
    assert corp(game, "GVE").president == 1001 and not corp(game, "GVE").receivership
    assert game.private("PWB").closed and game.private("PWB").owner is None
    assert {s: game.private(s).owner for s in ("KEO", "Szl", "Tjt", "NLK")} == {
        "KEO": 1003, "Szl": 1005, "Tjt": 1006, "NLK": 1001}
    assert corp(game, "CME").cash == -221  # 88 + 91 - 300 - 100


@needs_shared
def test_receivership_with_treasury_of_exactly_zero() -> None:
    """Receivership: a company with an empty treasury (0M) before the purchase owes the
    whole shortfall plus 100M.  g00: DEE spends its last 60M on a tile (G14, terrain 60M)
    instead of action 237's free lay; the president raises 307M (actions 238-242), the
    5-train costs 500M: DEE ends at 0 + 307 - 500 - 100 = -293M."""
    game = position("g00", 236)
    assert (label(game), step(game), corp(game, "DEE").cash) == ("OR 11.2", "track", 60)
    game.process(LayTile(**co("DEE"), hex="G14", tile="8-4", rotation=1))
    assert corp(game, "DEE").cash == 0 and step(game) == "buy_train"
    for action_id in range(238, 243):  # the president's emergency sales
        game.process(fixture_action("g00", action_id))
    assert game.player(1001).cash == 307
    with pytest.raises(GameError, match="must add 500M"):
        game.process(BuyTrain(**co("DEE"), train="5-1", price=500, variant="5"))
    bank = game.bank.cash
    game.process(Bankrupt(**co("DEE")))
    dee = corp(game, "DEE")
    assert dee.cash == -293
    assert [t.id for t in dee.trains] == ["5-1"]
    assert game.bank.cash == bank + 600
    assert dee.receivership


@needs_shared
def test_receivership_bankrupt_president_sells_what_they_may_first() -> None:
    """Receivership: going bankrupt without selling first, the president sells every
    share the rules let them sell (one sale per company, price down one row each), the
    rest goes to the market.  g00 after action 237: player 1001 has 37M; sellable ADR_3
    at 50, BME_1+BME_3 at 60 (one 20% sale), GVE_2 at 55, CCE_3 at 50 = 275M, so DEE
    (60M) gets 312M and owes 500 - 372 + 100: -228M."""
    game = position("g00", 237)
    assert (corp(game, "DEE").cash, game.player(1001).cash) == (60, 37)
    with pytest.raises(GameError, match="must add 440M"):
        game.process(BuyTrain(**co("DEE"), train="5-1", price=500, variant="5"))
    bank = game.bank.cash
    game.process(Bankrupt(**co("DEE")))
    assert corp(game, "DEE").cash == -228
    assert game.bank.cash == bank - 275 + 500 + 100
    assert price(game, "BME") == (55, 4, 0)  # one row for the 20% sale
    assert price(game, "GVE") == (50, 5, 0)
    assert price(game, "ADR") == (50, 5, 0)  # already on the bottom row
    assert {s: corp(game, s).percent_of(MARKET) for s in ("ADR", "BME", "DEE", "KEG")} == {
        "ADR": 50, "BME": 20, "DEE": 60, "KEG": 20}
    assert corp(game, "BME").president == 1003 and not corp(game, "BME").receivership
    assert all(corp(game, s).receivership for s in ("ADR", "DEE", "KEG"))


@needs_shared
def test_bankruptcy_refused_while_cash_and_shares_could_pay() -> None:
    """Receivership: bankruptcy is refused while treasury + president's cash + what they
    could sell reaches the cheapest train; the president then tops up.  g00 after action
    212: DEE 98M, president 1001 49M + 630M of sellable shares, the 4-train 300M."""
    game = position("g00", 212)
    assert (step(game), corp(game, "DEE").cash, game.player(1001).cash) == (
        "buy_train", 98, 49)
    before = copy.deepcopy(game_state(game))
    with pytest.raises(GameError, match="total 777M, the cheapest train costs 300M"):
        game.process(Bankrupt(**co("DEE")))
    assert game_state(game) == before
    for action_id in (213, 214, 215):  # the president sells ADR_1, GVE_1, DEE_2
        game.process(fixture_action("g00", action_id))
    assert game.player(1001).cash == 224
    game.process(BuyTrain(**co("DEE"), train="4-1", price=300, variant="4"))
    assert (corp(game, "DEE").cash, game.player(1001).cash) == (0, 22)  # tops up 202M
    assert not corp(game, "DEE").receivership


@needs_shared
def test_receivership_company_lays_no_track_places_no_token_and_withholds() -> None:
    """Receivership: a company without a president starts its turn at the route step (no
    track, no token), always withholds (price left) and may still buy trains.  g06: DEE
    in receivership since action 392 starts OR 12.2 at 'route' with -202M at 70M (2,1);
    its 110M run is withheld: -92M, price 65M (2,0); no player receives anything."""
    game = position("g06", 410)
    dee = corp(game, "DEE")
    assert dee.receivership and game.round.current_entity(game) is dee
    assert (step(game), dee.cash, price(game, "DEE")) == ("route", -202, (70, 2, 1))
    with pytest.raises(GameError, match="route step"):
        game.process(LayTile(**co("DEE"), hex="F11", tile="9-6", rotation=1))
    with pytest.raises(GameError, match="route step"):
        game.process(PlaceToken(**co("DEE"), city="X925-0-0", slot=1))
    before = cash(game)
    game.process(fixture_action("g06", 411))  # 5-0 runs for 110M
    assert corp(game, "DEE").cash == -92
    assert price(game, "DEE") == (65, 2, 0)
    assert cash(game) == before
    assert label(game) == "OR 12.2" and game.round.current_entity(game).sym != "DEE"


@needs_shared
def test_receivership_company_with_zero_treasury_withholds_its_run() -> None:
    """Receivership: ADR (0M, president bankrupt at g00 action 243) runs its 4-train for
    120M right after; the run goes to its treasury (0 -> 120M) and no dividend is asked."""
    game = position("g00", 243)
    adr = corp(game, "ADR")
    assert adr.receivership and (step(game), adr.cash) == ("route", 0)
    with pytest.raises(GameError, match="route step"):
        game.process(Dividend(**co("ADR"), kind="payout"))
    before = cash(game)
    game.process(fixture_action("g00", 244))
    assert (corp(game, "ADR").cash, step(game)) == (120, "buy_train")
    assert cash(game) == before


@needs_shared
def test_receivership_game_goes_on_without_the_bankrupt_player() -> None:
    """Receivership: the game goes on after a bankruptcy.  In g00 the next stock round
    (SR 12) seats only 1002 and 1003; an IPO share of DEE (in receivership, -233M) costs
    the market price 50M (par 60M) and pays the treasury (-183M); the game ends by the
    bank with the bankrupt player worth 0."""
    game = position("g00", 257)
    assert label(game) == "SR 12"
    assert [p.id for p in game.seat_order()] == [1002, 1003]
    dee = corp(game, "DEE")
    assert dee.cash == -233 and dee.par_price is not None and dee.par_price.price == 60
    game.process(BuyShares(entity=1002, shares=("DEE_6",), percent=10))
    assert corp(game, "DEE").cash == -183 and game.player(1002).cash == 3
    with pytest.raises(GameError):
        game.process(Pass(entity=1001))
    full = replay(_export("g00"))
    assert full.finished and full.state.game_end_reason == "bank"
    assert full.player_value(full.player(1001)) == 0


@needs_shared
def test_receivership_ends_when_a_player_holds_20_percent() -> None:
    """Receivership: it ends when a player reaches the president's 20%.  g06 action 430:
    1005 (DEE 10%) buys DEE_4 from the treasury for the market price 65M (DEE -92 ->
    -27M) and takes the president's certificate from the market, handing back 20%."""
    game = position("g06", 429)
    dee = corp(game, "DEE")
    assert dee.receivership and (dee.cash, dee.percent_of(1005), dee.percent_of(MARKET)) == (
        -92, 10, 30)
    game.process(fixture_action("g06", 430))
    dee = corp(game, "DEE")
    assert not dee.receivership and dee.president == 1005
    assert (dee.cash, dee.percent_of(1005), dee.percent_of(MARKET)) == (-27, 20, 30)
    assert dee.certificates[0].owner == 1005


@needs_shared
def test_negative_treasury_lays_no_track_even_with_a_president() -> None:
    """Receivership debt: a company with a negative treasury lays no track and places no
    token, but with a president it chooses its dividend.  g06 after action 442: DEE
    (president 1005, -27M) starts at 'route'; its 80M run waits for a dividend choice."""
    game = position("g06", 442)
    assert (corp(game, "DEE").president, corp(game, "DEE").cash, step(game)) == (
        1005, -27, "route")
    with pytest.raises(GameError, match="route step"):
        game.process(LayTile(**co("DEE"), hex="F11", tile="9-6", rotation=1))
    game.process(fixture_action("g06", 443))
    assert step(game) == "dividend" and game.round.revenue == 80  # type: ignore[attr-defined]
    game.process(Dividend(**co("DEE"), kind="withhold"))
    assert corp(game, "DEE").cash == 53


# -- KEG ----------------------------------------------------------------------------------


def test_keg_sells_its_two_double_certificates_first_and_floats_at_60_with_6_par() -> None:
    """KEG: president 20%, two 20% certificates (KEG_2, KEG_3), four 10%; the first two
    certificates sold from the IPO must be the 20% ones; it floats at 60% and receives
    6 x par (incremental, before phase 5)."""
    game = new_game()
    play_packet_4p(game)
    keg = corp(game, "KEG")
    assert [c.percent for c in keg.certificates] == [20, 10, 20, 20, 10, 10, 10]
    game.process(Par(entity=1, corporation="KEG", share_price="70,2,1"))
    assert game.player(1).cash == 430 - 140
    with pytest.raises(GameError, match="20% ones"):
        game.process(BuyShares(entity=2, shares=("KEG_1",), percent=10))
    game.process(BuyShares(entity=2, shares=("KEG_2",), percent=20))
    assert game.player(2).cash == 300 - 140  # a 20% certificate: 2 x 70M
    with pytest.raises(GameError, match="20% ones"):
        game.process(BuyShares(entity=3, shares=("KEG_4",), percent=10))
    assert not corp(game, "KEG").floated  # 40%
    game.process(BuyShares(entity=3, shares=("KEG_3",), percent=20))
    keg = corp(game, "KEG")
    assert keg.floated and keg.cash == 6 * 70 and keg.capitalization == "incremental"
    game.process(BuyShares(entity=4, shares=("KEG_1",), percent=10))
    assert corp(game, "KEG").cash == 420 + 70  # a treasury share pays the company
    assert game.player(4).cash == 370 - 70
    for pid in (1, 2, 3, 4):
        game.process(Pass(entity=pid))
    assert label(game) == "OR 1.1"
    assert price(game, "KEG") == (75, 1, 1)  # newly floated: up one row at the end of SR 1


# -- market moves on dividends ------------------------------------------------------------


@needs_shared
def test_dividend_equal_to_price_moves_right() -> None:
    """Market moves on dividends: at 100M, paying out 100M moves right to 110M.  g01 after
    action 520: DEE (100M, 0,3) runs only its 3-3 (100M) instead of both trains."""
    game = position("g01", 520)
    assert price(game, "DEE") == (100, 0, 3) and step(game) == "route"
    route = fixture_action("g01", 521).routes[1]  # type: ignore[attr-defined]
    assert route["train"] == "3-3" and route["revenue"] == 100
    game.process(RunRoutes(**co("DEE"), routes=(route,)))
    before = cash(game)
    game.process(Dividend(**co("DEE"), kind="payout"))
    assert price(game, "DEE") == (110, 0, 4)
    # 10M per 10%: 1002 holds 10%, 1003 30%, 1004 60%
    assert {p: cash(game)[p] - before[p] for p in before} == {
        1001: 0, 1002: 10, 1003: 30, 1004: 60}


@needs_shared
def test_withholding_moves_left() -> None:
    """Market moves on dividends: withholding moves left (100M -> 90M), whatever the run.
    g01 after action 520: DEE withholds its 240M run."""
    game = position("g01", 520)
    game.process(fixture_action("g01", 521))
    game.process(Dividend(**co("DEE"), kind="withhold"))
    assert price(game, "DEE") == (90, 0, 2)
    assert corp(game, "DEE").cash == 629 + 240


@needs_shared
def test_dividend_below_price_does_not_move() -> None:
    """Market moves on dividends: at 100M, paying out 90M does not move the price.
    g06 after action 330: RhE (100M, 0,3) ran 90M."""
    game = position("g06", 330)
    assert game.round.revenue == 90  # type: ignore[attr-defined]
    game.process(Dividend(**co("RhE"), kind="payout"))
    assert price(game, "RhE") == (100, 0, 3)


@needs_shared
def test_dividend_right_at_the_end_of_a_row_moves_up() -> None:
    """Market moves on dividends: a 'right' move at the row's right end goes up a row.
    g04 action 392: CME at 100M (3,6) pays 150M -> 110M (2,6)."""
    game = position("g04", 391)
    assert price(game, "CME") == (100, 3, 6)
    game.process(Dividend(**co("CME"), kind="payout"))
    assert price(game, "CME") == (110, 2, 6)


# -- IPO at market price -------------------------------------------------------------------


@needs_shared
def test_ipo_share_costs_the_current_market_price_not_par() -> None:
    """Shares bought from the IPO cost the current market price, not par.  g03 after
    action 142: ADR par 60M, now 65M; an IPO share costs 65M and (incremental) pays the
    treasury 200 -> 265M; the same price from the market pays the bank."""
    game = position("g03", 142)
    adr = corp(game, "ADR")
    assert adr.par_price is not None and adr.par_price.price == 60
    assert price(game, "ADR") == (65, 4, 2)
    p = game.player(1004).cash
    bank = game.bank.cash
    game.process(BuyShares(entity=1004, shares=("ADR_4",), percent=10))
    assert game.player(1004).cash == p - 65
    assert corp(game, "ADR").cash == 265
    assert game.bank.cash == bank


# -- priority deal ---------------------------------------------------------------------------


def test_priority_after_stock_round_goes_to_the_richest_player() -> None:
    """Priority deal after each stock round: the player with the most cash.  Seed 000:
    P1 acts last in SR 1 (the usual rule would give P2), but P4 has the most (370M) and
    starts SR 2."""
    game = new_game()
    play_packet_4p(game)
    assert [p.id for p in game.players] == [1, 2, 3, 4]  # SR 1: P1 has the most (430M)
    game.process(Par(entity=1, corporation="ADR", share_price="80,1,2"))
    for share in ("ADR_1", "ADR_2", "ADR_3"):
        for pid in (2, 3, 4):
            game.process(Pass(entity=pid))
        game.process(BuyShares(entity=1, shares=(share,), percent=10))
    for pid in (2, 3, 4):
        game.process(Pass(entity=pid))
    assert label(game) == "OR 1.1"
    # end of SR 1: P1 30M, P2 300M, P3 260M, P4 370M; OR 1 has paid the private income
    assert cash(game) == {4: 390, 1: 35, 2: 325, 3: 275}
    assert [p.id for p in game.players] == [4, 1, 2, 3]


def test_priority_on_a_cash_tie_goes_to_the_player_after_the_last_to_act() -> None:
    """Priority deal after each stock round: on a tie for the most cash, the player after
    the last one to act.  3 players: P1 pars ADR at 70 and buys a share (290M), P2 pars
    BME at 80 (290M), P3 pars CME at 100 (210M); P1 acted last, so P2 gets priority
    (not P1, the first of the tied players in seat order)."""
    game = new_game(PLAYERS3)
    play_packet_3p(game)
    assert cash(game) == {1: 500, 2: 450, 3: 410}
    game.process(Par(entity=1, corporation="ADR", share_price="70,2,1"))
    game.process(Par(entity=2, corporation="BME", share_price="80,1,2"))
    game.process(Par(entity=3, corporation="CME", share_price="100,0,3"))
    game.process(BuyShares(entity=1, shares=("ADR_1",), percent=10))
    for pid in (2, 3, 1):
        game.process(Pass(entity=pid))
    assert label(game) == "OR 1.1"
    # OR 1 has paid the private income (P1 PWB 5 + Tjt 20, P2 NLK 25, P3 Szl 15)
    assert cash(game) == {2: 315, 3: 225, 1: 315}
    assert [p.id for p in game.players] == [2, 3, 1]


@needs_shared
def test_priority_on_a_tie_may_go_to_a_player_not_in_the_tie() -> None:
    """Priority deal: on a tie the player after the last to act gets it even with less
    cash.  g08 SR 14: 1003 and 1001 have 30M, 1002 0M; 1001 acted last: 1002 starts."""
    game = position("g08", 110)
    assert cash(game) == {1003: 30, 1001: 30, 1002: 0}
    game.process(fixture_action("g08", 111))
    assert label(game) == "OR 14.1"
    assert [p.id for p in game.players] == [1002, 1003, 1001]


def test_stock_round_1_starts_with_the_richest_player() -> None:
    """Priority deal after the initial packet: SR 1 starts with the player with the most
    cash (P3, 400M), whatever the seat order and whoever bought last."""
    game = new_game()
    game.process(Bid(entity=1, company="PWB", price=20))
    game.process(Bid(entity=2, company="KEO", price=30))
    game.process(Bid(entity=3, company="Szl", price=50))
    game.process(Bid(entity=4, company="Tjt", price=80))
    game.process(Bid(entity=1, company="NLK", price=120))
    game.process(Bid(entity=2, company="RhE", price=140))
    game.process(Par(entity=2, corporation="RhE", share_price="75,2,2"))
    assert label(game) == "SR 1"
    assert cash(game) == {3: 400, 4: 370, 1: 310, 2: 280}
    assert [p.id for p in game.players] == [3, 4, 1, 2]
    assert game.round.current_entity(game).id == 3


def test_player_who_cannot_buy_or_sell_passes_automatically() -> None:
    """A player who can neither buy nor sell anything in a stock round passes
    automatically: seed 000, P1 (30M, ADR not yet operated) is skipped and SR 1 ends
    after P4's pass."""
    game = new_game()
    play_packet_4p(game)
    game.process(Par(entity=1, corporation="ADR", share_price="80,1,2"))
    for share in ("ADR_1", "ADR_2", "ADR_3"):
        for pid in (2, 3, 4):
            game.process(Pass(entity=pid))
        game.process(BuyShares(entity=1, shares=(share,), percent=10))
    game.process(Pass(entity=2))
    game.process(Pass(entity=3))
    assert label(game) == "SR 1" and game.round.current_entity(game).id == 4
    game.process(Pass(entity=4))
    assert label(game) == "OR 1.1"


def test_company_counts_as_operated_after_its_first_turn_even_without_a_run() -> None:
    """Selling after operating: ADR had its OR 1 turn (track, no run, a train bought), so
    in SR 2 P1 (35M, nothing to buy) is not auto-passed and may sell ADR_3: 80M, price
    one row down 80M (0,1) -> 75M (1,1)."""
    game = new_game()
    play_packet_4p(game)
    game.process(Par(entity=1, corporation="ADR", share_price="80,1,2"))
    for share in ("ADR_1", "ADR_2", "ADR_3"):
        for pid in (2, 3, 4):
            game.process(Pass(entity=pid))
        game.process(BuyShares(entity=1, shares=(share,), percent=10))
    for pid in (2, 3, 4):
        game.process(Pass(entity=pid))
    game.process(LayTile(**co("ADR"), hex="K4", tile="4-0", rotation=1))
    game.process(Pass(**co("ADR")))
    game.process(BuyTrain(**co("ADR"), train="2-0", price=100, variant="2"))
    game.process(Pass(**co("ADR")))
    game.process(Pass(**co("RhE")))
    game.process(Pass(**co("RhE")))
    assert label(game) == "SR 2" and corp(game, "ADR").operated
    game.process(Pass(entity=4))
    assert game.round.current_entity(game).id == 1 and game.player(1).cash == 35
    game.process(SellShares(entity=1, shares=("ADR_3",), percent=10))
    assert game.player(1).cash == 35 + 80
    assert price(game, "ADR") == (75, 1, 1)


# -- privates close ----------------------------------------------------------------------


@needs_shared
def test_all_privates_close_when_the_first_5_train_is_bought() -> None:
    """All privates close when the first 5-train is bought (g00 action 231: RhE buys 5-0);
    the 4-trains before did not close them."""
    game = position("g00", 230)
    assert game.phase.name == "4"
    assert {s: p.owner for s, p in game.privates.items() if not p.closed} == {
        "PWB": 1002, "KEO": 1003, "Szl": 1001, "Tjt": 1003, "NLK": 1001}
    game.process(fixture_action("g00", 231))
    assert game.phase.name == "5"
    assert all(p.closed and p.owner is None for p in game.privates.values())
    assert all(p.companies == [] for p in game.players)


# -- GVE with NLK --------------------------------------------------------------------------


def test_gve_with_nlk_floats_at_50_percent_held_and_gets_5_par() -> None:
    """GVE with NLK: the NLK buyer gets a free GVE 10% share; GVE floats once 40% more is
    sold from the IPO (50% in players' hands), not at 40% held, and receives 5 x par."""
    game = new_game()
    play_packet_4p(game)
    gve = corp(game, "GVE")
    assert gve.certificates[1].owner == 2 and gve.percent_of(2) == 10
    assert game.player(2).companies == ["KEO", "NLK"]
    game.process(Par(entity=1, corporation="GVE", share_price="70,2,1"))
    game.process(Pass(entity=2))
    game.process(BuyShares(entity=3, shares=("GVE_2",), percent=10))
    assert not corp(game, "GVE").floated  # 40% held by players, 30% sold from the IPO
    game.process(BuyShares(entity=4, shares=("GVE_3",), percent=10))
    gve = corp(game, "GVE")
    assert gve.floated and gve.cash == 5 * 70  # 40% sold from the IPO, yet 5 x par
    assert gve.percent_of(IPO) == 50


# -- capitalisation -----------------------------------------------------------------------


def test_incremental_capitalisation_before_phase_5() -> None:
    """Incremental capitalisation before phase 5: 5 x par on floating (at once, in the
    round), IPO sales after floating pay the treasury, treasury shares' dividends go to the
    company, the price goes up one step at the end of the SR."""
    game = new_game()
    play_packet_4p(game)
    game.process(Par(entity=1, corporation="ADR", share_price="80,1,2"))
    bank = game.bank.cash
    for share in ("ADR_1", "ADR_2", "ADR_3"):
        for pid in (2, 3, 4):
            game.process(Pass(entity=pid))
        game.process(BuyShares(entity=1, shares=(share,), percent=10))
    adr = corp(game, "ADR")
    assert adr.floated and adr.cash == 400 and adr.capitalization == "incremental"
    assert game.bank.cash == bank + 240 - 400  # shares before floating paid the bank
    assert label(game) == "SR 1" and price(game, "ADR") == (80, 1, 2)
    game.process(BuyShares(entity=2, shares=("ADR_4",), percent=10))
    assert corp(game, "ADR").cash == 480 and game.player(2).cash == 220
    game.process(Pass(entity=3))
    game.process(Pass(entity=4))
    game.process(Pass(entity=2))  # P1 (30M) passes automatically
    assert label(game) == "OR 1.1" and price(game, "ADR") == (90, 0, 2)
    game.process(LayTile(**co("ADR"), hex="K4", tile="4-0", rotation=1))
    game.process(Pass(**co("ADR")))
    game.process(BuyTrain(**co("ADR"), train="2-0", price=100, variant="2"))
    game.process(Pass(**co("ADR")))
    game.process(Pass(**co("RhE")))
    game.process(Pass(**co("RhE")))
    assert label(game) == "SR 2"
    while label(game) == "SR 2":
        game.process(Pass(entity=game.round.current_entity(game).id))
    assert label(game) == "OR 2.1"
    game.process(Pass(**co("ADR")))
    game.process(Pass(**co("ADR")))
    route = {
        "train": "2-0",
        "connections": [["K2", "K4"], ["K4", "K6"]],
        "hexes": ["K2", "K4", "K6"],
        "revenue": 50,
        "revenue_str": "K2-K4-K6",
        "nodes": ["K2-0", "K4-0", "K6-0"],
    }
    game.process(RunRoutes(**co("ADR"), routes=(route,)))
    before = cash(game)
    treasury = corp(game, "ADR").cash
    game.process(Dividend(**co("ADR"), kind="payout"))
    # 5M per 10%: P1 50% -> 25M, P2 10% -> 5M, the 40% in the treasury -> 20M to ADR
    assert {p: cash(game)[p] - before[p] for p in before} == {1: 25, 2: 5, 3: 0, 4: 0}
    assert corp(game, "ADR").cash == treasury + 20


@needs_shared
def test_market_pool_shares_pay_no_dividend() -> None:
    """Incremental capitalisation: treasury shares' dividends go to the company, market
    pool shares' to nobody.  g00 action 31: RhE pays out 50M (5M per 10%) with 1002 30%,
    treasury 50%, pool 20%: 1002 +15M, RhE +25M, the bank pays 40M, not 50M."""
    game = position("g00", 30)
    rhe = corp(game, "RhE")
    assert (rhe.percent_of(1002), rhe.percent_of(IPO), rhe.percent_of(MARKET)) == (30, 50, 20)
    bank, before = game.bank.cash, cash(game)
    game.process(Dividend(**co("RhE"), kind="payout"))
    assert corp(game, "RhE").cash == 40 + 25
    assert {p: cash(game)[p] - before[p] for p in before} == {1002: 15, 1003: 0, 1001: 0}
    assert game.bank.cash == bank - 40


@needs_shared
def test_full_capitalisation_from_phase_5() -> None:
    """Full capitalisation from phase 5: a company floating in phase 5 receives 10 x par
    and its unsold shares go to the market; no price bump at the end of the round.
    g06 action 426: BME (par 60M) floats in SR 13, phase 5: 600M, 50% in the market."""
    game = position("g06", 425)
    assert game.phase.name == "5" and not corp(game, "BME").floated
    game.process(fixture_action("g06", 426))
    bme = corp(game, "BME")
    assert bme.floated and bme.cash == 10 * 60 and bme.capitalization == "full"
    assert (bme.percent_of(IPO), bme.percent_of(MARKET)) == (0, 50)
    for action in _export("g06").actions:
        if (action.id or 0) > 426 and label(game).startswith("SR"):
            game.process(action)
    assert label(game) == "OR 13.1"
    assert price(game, "BME") == (60, 3, 0)


# -- selling ---------------------------------------------------------------------------------


@needs_shared
def test_sale_moves_the_price_down_one_row_per_sale_action() -> None:
    """Selling: the price drops one row per sale action, not per share.  end_bank after
    action 373: 579 holds ADR 40% at 70M (3,2).  One sale of 40%: 280M, 65M (4,2).
    Four sales of 10%: 70 + 65 + 60 + 60 = 255M, 60M (5,2)."""
    game = position("end_bank", 373)
    assert price(game, "ADR") == (70, 3, 2) and game.round.current_entity(game).id == 579
    game.process(SellShares(entity=579, shares=("ADR_1", "ADR_5", "ADR_7", "ADR_8"),
                            percent=40))
    assert game.player(579).cash == 357 + 280
    assert price(game, "ADR") == (65, 4, 2)
    game = position("end_bank", 373)
    for share in ("ADR_1", "ADR_5", "ADR_7", "ADR_8"):
        game.process(SellShares(entity=579, shares=(share,), percent=10))
    assert game.player(579).cash == 357 + 255
    assert price(game, "ADR") == (60, 5, 2)


@needs_shared
def test_market_pool_holds_at_most_50_percent() -> None:
    """Selling: the market pool may hold at most 50% of a company.  end_bank after action
    375: ADR has 40% in the market; 635 may sell 10% of it but not 20%."""
    game = position("end_bank", 375)
    assert corp(game, "ADR").percent_of(MARKET) == 40
    assert game.round.current_entity(game).id == 635
    before = copy.deepcopy(game_state(game))
    with pytest.raises(GameError, match=r"60%.*limit is 50%"):
        game.process(SellShares(entity=635, shares=("ADR_2", "ADR_3"), percent=20))
    assert game_state(game) == before
    game.process(SellShares(entity=635, shares=("ADR_2",), percent=10))
    assert corp(game, "ADR").percent_of(MARKET) == 50
    assert game.player(635).cash == 231 + 65


@needs_shared
def test_no_selling_before_the_company_has_operated() -> None:
    """Selling: no shares of a company that has not operated yet.  end_bank after action
    375: KEG floated in this SR 8 and has not operated; 635 may not sell KEG_4."""
    game = position("end_bank", 375)
    assert corp(game, "KEG").floated and not corp(game, "KEG").operated
    with pytest.raises(GameError, match="before it has operated"):
        game.process(SellShares(entity=635, shares=("KEG_4",), percent=10))


@needs_shared
def test_no_buying_back_a_company_sold_this_round() -> None:
    """Selling: a player may not buy back shares of a company they sold this round.
    end_bank after action 374: 579 sold 40% ADR and may not buy ADR from the market, but
    may start CME (action 375)."""
    game = position("end_bank", 374)
    assert game.round.current_entity(game).id == 579
    with pytest.raises(GameError, match="may not buy it back"):
        game.process(BuyShares(entity=579, shares=("ADR_1",), percent=10))
    game.process(fixture_action("end_bank", 375))
    assert corp(game, "CME").president == 579


# -- private companies: Trajektanstalt and Konzession Essen-Osterath ------------------------


@needs_shared
def test_trajektanstalt_free_green_upgrade_after_the_normal_lay_token_at_normal_price() -> None:
    """Trajektanstalt (private 4): after its normal lay (F13, action 203) BME upgrades the
    yellow Düsseldorf (F9, not on its network) to green X922 for free, then places a token
    there for the normal price (its next token: 60M).  g00 actions 203-204."""
    game = position("g00", 203)
    bme = corp(game, "BME")
    assert game.board.tile_at("F9").tile.color == "yellow"
    ctx = game.title.lay_context(game, None, bme)
    assert "F9" not in ctx.connectivity().hexes  # no connection needed
    assert (bme.cash, bme.next_token_price, step(game)) == (360, 60, "buy_train")
    game.process(LayTile(entity="Tjt", entity_type="company", hex="F9", tile="X922-0",
                         rotation=0))
    assert game.board.tile_at("F9").tile.name == "X922"
    assert game.board.tile_at("F9").tile.color == "green"
    assert corp(game, "BME").cash == 360  # the upgrade is free (no 50M river cost)
    assert step(game) == "special_token"
    game.process(PlaceToken(**co("BME"), city="X922-0-0", slot=0))
    bme = corp(game, "BME")
    assert bme.cash == 300 and ("F9", 0) in bme.tokens
    assert step(game) == "buy_train"


@needs_shared
def test_trajektanstalt_at_the_track_step_takes_the_turns_lay() -> None:
    """Trajektanstalt (private 4) used at the track step (g01 action 388, CCE): the token
    costs CCE's normal 80M, and the track step is over (the lay counts as the turn's lay:
    next step 'route')."""
    game = position("g01", 387)
    assert step(game) == "track" and corp(game, "CCE").cash == 502
    game.process(fixture_action("g01", 388))
    game.process(fixture_action("g01", 389))  # token on X922-0-0
    assert corp(game, "CCE").cash == 502 - 80
    assert step(game) == "route"
    with pytest.raises(GameError, match="route step"):
        game.process(LayTile(**co("CCE"), hex="E4", tile="9-2", rotation=0))


@needs_shared
def test_konzession_essen_osterath_token_is_free() -> None:
    """Konzession Essen-Osterath (private 2): tile 935 on E8 without connection, then a
    free token there (RhE's next token would cost 80M).  g01 actions 301-302."""
    game = position("g01", 300)
    rhe = corp(game, "RhE")
    assert (rhe.cash, rhe.next_token_price, rhe.tokens_left) == (209, 80, 2)
    game.process(fixture_action("g01", 301))
    assert game.board.tile_at("E8").tile.name == "935" and step(game) == "special_token"
    game.process(PlaceToken(**co("RhE"), city="935-0-0", slot=0))
    rhe = corp(game, "RhE")
    assert (rhe.cash, rhe.tokens_left) == (209, 1) and ("E8", 0) in rhe.tokens
    assert game.private("KEO").ability_uses == 1


@needs_shared
def test_teleport_token_is_offered_even_when_the_hex_is_full() -> None:
    """Trajektanstalt: the special token step follows the teleport even when every slot of
    the hex is taken (g04 action 151: I10 holds RhE, CCE | CME); a token there is refused,
    a pass ends the step."""
    game = position("g04", 151)
    tile = game.board.tile_at("I10").tile
    assert [len(game.board.tokens_in("I10", i)) for i in range(len(tile.cities))] == [
        c.slots for c in tile.cities]
    assert step(game) == "special_token"
    for city in range(len(tile.cities)):
        with pytest.raises(GameError, match="no free slot"):
            game.process(PlaceToken(**co("ADR"), city=f"X924-0-{city}", slot=0))
    game.process(Pass(**co("ADR")))
    assert step(game) == "route" and corp(game, "ADR").cash == 200


# -- trains between companies (phase 2), RhE's director certificate -------------------------


@needs_shared
def test_trains_change_hands_between_companies_in_phase_2() -> None:
    """Trains change hands between companies from phase 2 (the seed says phase 3):
    g01 action 36, phase 2: RhE buys CCE's 2-1 for 131M."""
    game = position("g01", 35)
    assert game.phase.name == "2"
    game.process(fixture_action("g01", 36))
    assert [t.id for t in corp(game, "RhE").trains] == ["2-0", "2-1"]
    assert (corp(game, "RhE").cash, corp(game, "CCE").cash) == (140 - 131, 320 + 131)
    assert corp(game, "CCE").trains == []


def test_rhe_director_certificate_price_goes_to_rhe_and_30_percent_to_the_market() -> None:
    """RhE (private 6): the bid for the director's certificate goes to the RhE treasury,
    not the bank; RhE floats at par with three 10% certificates in the market."""
    game = new_game()
    bank = game.bank.cash
    play_packet_4p(game)
    rhe = corp(game, "RhE")
    assert rhe.cash == 140 and rhe.floated
    assert game.bank.cash == bank + 20 + 30 + 50 + 80 + 120
    assert (rhe.percent_of(3), rhe.percent_of(MARKET), rhe.percent_of(IPO)) == (20, 30, 50)
    assert game.private("RhE").closed


# -- undo / redo ----------------------------------------------------------------------------


def test_undo_restores_the_exact_state_and_redo_reapplies() -> None:
    """Undo/redo: ``Undo`` restores the exact state (trace-shaped view and log), ``Redo``
    re-applies the undone action; a new action clears the redo stack."""
    game = new_game()
    play_packet_4p(game)
    before = copy.deepcopy(game_state(game))
    log_before = list(game.log)
    game.process(Par(entity=1, corporation="ADR", share_price="80,1,2"))
    after = copy.deepcopy(game_state(game))
    assert after["players"]["1"]["cash"] == 270
    game.process(Undo(entity=2))
    assert game_state(game) == before and game.log == log_before
    assert game.player(1).cash == 430 and corp(game, "ADR").par_price is None
    game.process(Redo(entity=3))
    assert game_state(game) == after
    game.process(Undo(entity=1))
    game.process(Par(entity=1, corporation="BME", share_price="100,0,3"))
    with pytest.raises(GameError, match="nothing to redo"):
        game.process(Redo(entity=1))
    assert corp(game, "BME").par_price is not None and corp(game, "ADR").par_price is None


def test_undo_to_an_action_id_walks_back_several_actions() -> None:
    """Undo/redo: ``Undo(action_id=N)`` keeps the actions up to N and removes the later
    ones at once; ``Redo`` re-applies that whole batch."""
    game = new_game()
    play_packet_4p(game)
    keep_id = game.actions[-1].id
    assert keep_id is not None
    before = copy.deepcopy(game_state(game))
    game.process(Par(entity=1, corporation="ADR", share_price="80,1,2"))
    game.process(Pass(entity=2))
    game.process(Pass(entity=3))
    after = copy.deepcopy(game_state(game))
    game.process(Undo(entity=4, action_id=keep_id))
    assert game_state(game) == before
    game.process(Redo(entity=4))
    assert game_state(game) == after
    assert game.round.current_entity(game).id == 4


def test_undo_to_the_last_action_id_removes_nothing() -> None:
    """Undo/redo: ``Undo(action_id=N)`` keeps every action up to N; with N the last
    action's id nothing is undone."""
    game = new_game()
    game.process(Bid(entity=1, company="PWB", price=20))
    game.process(Bid(entity=2, company="KEO", price=30))
    last = game.actions[-1].id
    assert last == 2
    before = copy.deepcopy(game_state(game))
    game.process(Undo(entity=1, action_id=last))
    assert game_state(game) == before
    assert game.player(2).cash == 420
