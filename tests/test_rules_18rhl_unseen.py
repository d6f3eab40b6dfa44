"""18Rhl rules the later reference games showed, with real values: whose turn it is
(auctions, operating order, steps, discards, who is passed over) and route bonuses.

Each case is a rule the reference engine applies and that the later reference games
(``generated2``, ``released``) showed: positions come from a new game driven through
the public API or from a reference game replayed to an action id, and the expected
values are the reference trace's.
"""

from __future__ import annotations

import pytest

from play import co, label, step
from reference import ReferenceGames, needs_shared
from rhineland import GameError
from rhineland.engine.actions import Bid, LayTile, Pass, PlaceToken
from rhineland.engine.game import Game
from rhineland.titles import get_title

PLAYERS4 = [(1, "P1"), (2, "P2"), (3, "P3"), (4, "P4")]
REF = ReferenceGames("18Rhl")


def new_game() -> Game:
    return Game(get_title("18Rhl"), PLAYERS4, seed=1)


def current_id(game: Game) -> object:
    entity = game.round.current_entity(game)
    return getattr(entity, "id", None) or getattr(entity, "sym", None)


# -- the waterfall auction: the lowest bidder acts ---------------------------------------


def test_auction_of_three_bidders_is_led_by_the_lowest_bid() -> None:
    """Several bids on the item that comes up: the lowest bidder raises or drops out,
    whatever the seat order (here P2, who is not next after the high bidder P3)."""
    game = new_game()
    game.process(Bid(entity=1, company="KEO", price=35))
    game.process(Bid(entity=2, company="KEO", price=40))
    game.process(Pass(entity=3))
    game.process(Pass(entity=4))
    game.process(Bid(entity=1, company="KEO", price=45))  # P1's bid is now 45M
    game.process(Pass(entity=2))
    game.process(Bid(entity=3, company="KEO", price=50))
    game.process(Bid(entity=4, company="PWB", price=20))  # KEO comes up: P2 40, P1 45, P3 50
    assert label(game) == "Auction 1"
    assert current_id(game) == 2
    game.process(Bid(entity=2, company="KEO", price=55))  # now P1 45 is the lowest
    assert current_id(game) == 1
    game.process(Pass(entity=1))  # P3 50, P2 55
    assert current_id(game) == 3
    game.process(Pass(entity=3))
    assert game.private("KEO").owner == 2 and game.player(2).cash == 450 - 55
    # the auction over, the turn goes on after the player who bought the cheapest item
    assert current_id(game) == 1


@needs_shared
def test_auction_lowest_bidder_in_a_reference_game() -> None:
    """generated2 g401, action 30: NLK bought, RhE comes up with bids 1002 145M, 1001
    155M, 1004 160M: 1002 acts (the trace), not 1001 (next after the high bidder)."""
    game = REF.position("generated2/g401", 30)
    assert current_id(game) == 1002
    assert REF.trace_entry("generated2/g401", 30)["current"]["id"] == "1002"


def test_auction_all_pass_until_the_cheapest_is_free_then_the_next_player_takes_it() -> None:
    """Every player passing in a row drops PWB's price by 5M; at 0M the player after
    the last one to pass takes it for free and the turn goes on after them."""
    game = new_game()
    for _ in range(3):
        for pid in (1, 2, 3, 4):
            game.process(Pass(entity=pid))
    for pid in (1, 2, 3):
        game.process(Pass(entity=pid))
    assert game.private("PWB").owner is None
    game.process(Pass(entity=4))  # 20M -> 0M: P1 takes PWB
    assert game.private("PWB").owner == 1 and game.player(1).cash == 450
    assert current_id(game) == 2


def test_auction_all_pass_after_the_cheapest_is_sold_pays_the_privates_income() -> None:
    """Once PWB is sold, a full lap of passes drops no price: the privates pay their
    income (PWB 5M to P1) and the turn goes on."""
    game = new_game()
    game.process(Bid(entity=1, company="PWB", price=20))
    for pid in (2, 3, 4, 1):
        game.process(Pass(entity=pid))
    assert game.player(1).cash == 450 - 20 + 5
    assert current_id(game) == 2
    game.process(Bid(entity=2, company="KEO", price=30))  # KEO still at its face value
    assert game.private("KEO").owner == 2 and game.player(2).cash == 420


# -- the end of a stock round: rises in operating order ----------------------------------


@needs_shared
def test_sold_out_rise_keeps_the_order_of_arrival_in_a_cell() -> None:
    """released g02 action 589 (end of SR 19): ADR and GVE, both sold out, share the
    50M cell (5, 0), GVE arrived there first.  Both rise to 55M (4, 0) in operating
    order, so GVE arrives first again and operates before ADR in OR 19.1 and later
    (the trace: GVE's turn after RhE's at action 605)."""
    before = REF.position("released/g02", 588)
    adr, gve = before.corporation("ADR"), before.corporation("GVE")
    assert adr.share_price is not None and gve.share_price is not None
    assert (adr.share_price.row, adr.share_price.col) == (gve.share_price.row,
                                                          gve.share_price.col) == (5, 0)
    arrival = before.state.cell_order
    assert arrival["GVE"] < arrival["ADR"]
    game = REF.position("released/g02", 589)
    order = game.round.order
    assert order.index("GVE") == order.index("ADR") - 1
    game = REF.position("released/g02", 605)
    assert current_id(game) == "GVE"


# -- the special-token step after a private's teleport lay ------------------------------


@needs_shared
def test_special_token_step_follows_a_teleport_the_company_cannot_pay_for() -> None:
    """generated2 g416 action 189: GVE (35M, one token left, its next token costs more)
    upgrades F9 with Trajektanstalt in its route step: the special-token step follows;
    a token is refused for want of cash, a pass goes back to the route step."""
    game = REF.position("generated2/g416", 189)
    gve = game.corporation("GVE")
    assert gve.cash == 35 and gve.tokens_left == 1 and gve.next_token_price > 35
    assert step(game) == "special_token" and current_id(game) == "GVE"
    with pytest.raises(GameError, match="the token costs") as err:
        game.process(PlaceToken(**co("GVE"), city="X922-0-0", slot=0))
    assert err.value.rule == "token.cash"
    game.process(Pass(**co("GVE")))
    assert step(game) == "route" and game.corporation("GVE").cash == 35


@needs_shared
def test_no_special_token_step_where_the_company_has_a_token() -> None:
    """generated2 g403 action 78: RhE upgrades I10, where it has its token, with
    Trajektanstalt: no special-token step, the token step goes on (the trace)."""
    before = REF.position("generated2/g403", 77)
    assert any(h == "I10" for h, _ in before.corporation("RhE").tokens)
    game = REF.position("generated2/g403", 78)
    assert step(game) == "token"


@needs_shared
def test_another_private_lays_during_the_special_token_step() -> None:
    """generated2 g404 actions 167-169: BME upgrades D9 with Trajektanstalt; during the
    special-token step its president lays J13 with Seilzuganlage (an extra lay, open
    all turn): the token decision stays pending, then BME passes it."""
    game = REF.position("generated2/g404", 167)
    assert step(game) == "special_token"
    game.process(REF.action("generated2/g404", 168))
    assert game.board.tile_at("J13").tile.name == "9"
    assert step(game) == "special_token" and current_id(game) == "BME"
    with pytest.raises(GameError, match="token on D9 or pass"):  # only the token decision
        game.process(LayTile(entity="BME", entity_type="corporation", hex="K12",
                             tile="8-0", rotation=0))
    game.process(Pass(**co("BME")))
    assert step(game) != "special_token"


# -- receivership: the train step may be passed -----------------------------------------


@needs_shared
def test_company_in_receivership_may_pass_its_train_buy() -> None:
    """generated2 g416 action 211: GVE, in receivership (president's certificate in the
    market), has no train and 66M; its train step offers a pass (no president pays
    toward a train), which ends its turn."""
    game = REF.position("generated2/g416", 210)
    gve = game.corporation("GVE")
    assert gve.receivership and not gve.trains and gve.cash == 66
    assert step(game) == "buy_train" and current_id(game) == "GVE"
    game.process(Pass(**co("GVE")))
    assert current_id(game) == "RhE" and step(game) == "track"


# -- train discards: every company over the limit, in any order --------------------------


@needs_shared
def test_companies_over_the_train_limit_discard_in_any_order() -> None:
    """generated2 g412 actions 291-293: the first 5-train (limit 2) leaves CME and CCE
    with 3 trains each.  CME, first in the charter order, is shown as current, but CCE
    may discard first; nothing else is possible until both have discarded."""
    game = REF.position("generated2/g412", 291)
    assert step(game) == "discard_train" and current_id(game) == "CME"
    with pytest.raises(GameError, match="must discard a train first") as err:
        game.process(LayTile(entity="CME", entity_type="corporation", hex="I8",
                             tile="46-0", rotation=4))
    assert err.value.rule == "train.discard"
    game.process(REF.action("generated2/g412", 292))  # CCE discards its 4-0
    assert [t.id for t in game.corporation("CCE").trains] == ["3-3", "3-2"]
    assert step(game) == "discard_train" and current_id(game) == "CME"
    with pytest.raises(GameError, match="must discard a train first"):
        game.process(REF.action("generated2/g412", 292))  # CCE is within the limit now
    game.process(REF.action("generated2/g412", 293))  # CME discards its 4-2
    assert step(game) == "track" and current_id(game) == "CME"


# -- the stock round: who can still act -------------------------------------------------


@needs_shared
def test_a_presidents_certificate_is_sold_only_after_the_players_other_certificates() -> None:
    """generated2 g422 action 357: 1004 (4M) holds KEG's president's certificate and a
    20% KEG certificate, the market holds 40% of KEG (room for 10%).  The 20% does not
    fit, and 10% of the presidency may only go with the other certificates (30%): 1004
    can sell nothing, buy nothing, and is passed over (the trace: 1005's turn)."""
    before = REF.position("generated2/g422", 356)
    keg = before.corporation("KEG")
    assert sorted((c.percent, c.president) for c in keg.certs_of(1004)) == [(20, False),
                                                                            (20, True)]
    assert keg.percent_of("market") == 40 and keg.percent_of(1001) == 20
    game = REF.position("generated2/g422", 357)
    assert label(game) == "SR 9" and current_id(game) == 1005


# -- floating with shares in the market -------------------------------------------------


@needs_shared
def test_shares_in_the_market_count_toward_the_float() -> None:
    """generated2 g404 action 539 (phase 8): ADR's bankrupt president's 20% went to the
    market; players hold 20%, the IPO 60%.  1003 buys ADR_3 from the IPO: with 50% out
    of the IPO (30% players, 20% market) ADR floats, fully capitalised (10 x 60M) and
    its unsold IPO shares go to the market (the reference: 600M, 70% in the pool)."""
    before = REF.position("generated2/g404", 538)
    adr = before.corporation("ADR")
    assert not adr.floated and adr.percent_of("market") == 20 and adr.percent_of("ipo") == 60
    game = REF.position("generated2/g404", 539)
    adr = game.corporation("ADR")
    assert adr.floated and adr.cash == 600 and adr.capitalization == "full"
    assert adr.percent_of("market") == 70 and adr.percent_of("ipo") == 0


# -- promotion tiles ----------------------------------------------------------------------


@needs_shared
def test_promotion_tile_949_upgrades_duisburg_at_rotation_0() -> None:
    """generated2 g404 action 520 (promotion tiles): DEE upgrades Duisburg (D9, brown
    929) to the gray 949, whose edge 4 runs through the printed town into the city.
    A Rhine metropolis lay is offered at rotation 0 without the geometric checks, the
    old city's edges included: it is offered and accepted (the reference did)."""
    game = REF.position("generated2/g404", 519)
    assert game.board.tile_at("D9").tile.name == "929"
    assert any((lay.hex, lay.tile, lay.rotation) == ("D9", "949", 0)
               for lay in game.legal_tile_lays())
    game.process(REF.action("generated2/g404", 520))
    assert game.board.tile_at("D9").tile.name == "949"


# -- route bonuses -------------------------------------------------------------------------


@needs_shared
def test_siegerland_is_one_steel_works_for_the_montan_bonus() -> None:
    """generated2 g401 action 658: KEG's 5-train runs D9-...-D7-...-J3-...-J15 in phase 8:
    coal at Moers (D7, carried from the brown tile) and J3, steel only at Siegerland
    (J15): a single Montan, +40M, 350M in all (the reference's revenue), not the double."""
    game = REF.position("generated2/g401", 657)
    game.process(REF.action("generated2/g401", 658))
    assert game.round.revenue == 350
    assert [b.amount for r in game.round.route_results for b in r.bonuses
            if b.name == "montan"] == [40]


@needs_shared
def test_two_stops_in_a_row_in_a_gray_metropolis_count_once_less_10() -> None:
    """generated2 g404 action 557 (phase 8): CCE's 6-train enters D9 (gray 949) by edge
    4, through the printed town into the city: like a ferry crossing the city (the
    second stop) costs no distance and pays nothing, the town pays 20 - 10M.  Six
    cities/offboards then, a legal 6-train route paying 440M (the reference's)."""
    game = REF.position("generated2/g404", 556)
    game.process(REF.action("generated2/g404", 557))
    (res,) = game.round.route_results
    assert res.revenue == 440
    assert "D9-1" in res.stops and "D9-0" not in res.stops
    assert [b.amount for b in res.bonuses if b.name == "trajekt"] == [-10]


# -- the certificate limit: a player over it sells first -------------------------------


@needs_shared
def test_a_player_over_the_certificate_limit_sells_before_anything_else() -> None:
    """Certificate limit: a player holding more certificates than the limit who can
    sell may only sell, no pass and no buy, until under it (the reference's
    ``must_sell?``).  generated2 g412 after action 564 (SR 11): 1002 holds 21 of 20
    certificates; the sale of RhE_5 (#565) brings them to 20 and the pass (#566) is
    open again."""
    name = "generated2/g412"
    game = REF.position(name, 564)
    p2 = game.player(1002)
    assert (label(game), current_id(game)) == ("SR 11", 1002)
    assert game.round.cert_count(game, p2) == 21  # type: ignore[attr-defined]
    assert game.title.cert_limit(game) == 20
    choices = game.legal_actions()
    assert len(choices) == 7 and {a.type for a in choices} == {"sell_shares"}
    with pytest.raises(GameError) as err:
        game.process(Pass(entity=1002))
    assert err.value.rule == "stock.must_sell"
    game.process(REF.action(name, 565))
    assert game.round.cert_count(game, game.player(1002)) == 20  # type: ignore[attr-defined]
    assert "pass" in {a.type for a in game.legal_actions()}
    game.process(REF.action(name, 566))
    assert current_id(game) == 1001


@needs_shared
def test_the_certificate_count_asks_a_title_that_leaves_certificates_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The certificate count asks the title's ``counts_for_cert_limit`` for each
    certificate where a title overrides it (the plain count is for titles that do
    not): generated2 g412 after action 564, 1002 holds 21 certificates, those of RhE
    left out by such a title."""
    game = REF.position("generated2/g412", 564)
    p2 = game.player(1002)
    rhe = len(game.corporations["RhE"].certs_of(1002))
    assert rhe > 0
    monkeypatch.setattr(type(game.title), "counts_for_cert_limit",
                        lambda self, g, corp, cert: corp.sym != "RhE")
    assert game.round.cert_count(game, p2) == 21 - rhe  # type: ignore[attr-defined]
