"""Regressions found by the differential runs (``scripts/differential.py``): games played
here that 18xx.games refused, or where its interface would not have offered an action.

Each case is our own export in ``tests/data/differential``, cut before the fault, and
the values the reference engine gives at that point (its interface's offers, read with
the oracle of ``../shared/tools/ref-oracle``).  One share of a corporation stands for
another of the same size and source, as in the reference's comparison.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rhineland.board.legality import legal_tokens
from rhineland.engine.actions import (
    Assign,
    Bankrupt,
    Bid,
    BuyCompany,
    BuyShares,
    BuyTrain,
    DestinationConnection,
    LayTile,
    Pass,
    PlaceToken,
    RunRoutes,
    SellCompany,
    SellShares,
    SpecialBuy,
)
from rhineland.engine.entities import MARKET
from rhineland.engine.game import Game
from rhineland.engine.legal import AmountRange
from rhineland.engine.leniency import REPLAY_LENIENCIES
from rhineland.errors import GameError
from rhineland.io.export import load_export, parse_export, replay, to_export
from rhineland.io.state_view import game_state

DATA = Path(__file__).parent / "data" / "differential"


EARLIER_EVA = frozenset({"or.eva_price"})
"""The leniency the 1893 games played before the EVA price fix need for their earlier
ORs (EVA bought at prices 18xx.games's engine takes but its interface does not offer)."""


def position(name: str, until: int | None = None,
             prefix: frozenset[str] = frozenset()) -> Game:
    """The game at the end of the cut export ``name`` (or just after its action
    ``until``), going on under the rules alone (no replay leniency); its actions so far
    use no leniency but those of ``prefix``."""
    game = replay(load_export(DATA / f"{name}.json"), until=until)
    assert {u.rule for u in game.leniencies_used} <= prefix
    game.leniencies = frozenset()
    game.leniencies_used.clear()
    return game


def train_offers(game: Game) -> set[tuple[str, object, str | None]]:
    """The listed train purchases as the reference's interface shows them: train, price
    (a ``(min, max)`` span for another company's train) and the train traded in."""
    out: set[tuple[str, object, str | None]] = set()
    for c in game.legal_actions():
        a = c.action if isinstance(c, AmountRange) else c
        if isinstance(a, BuyTrain):
            price = (c.min, c.max) if isinstance(c, AmountRange) else a.price
            out.add((a.train, price, a.exchange))
    return out


def refused(game: Game, action: BuyTrain) -> GameError:
    """The error ``action`` is refused with under the rules; the company's cash and
    trains and the owner's cash stay as they were."""
    entity = game.title.operator(game, str(action.entity))
    before = (entity.cash, [t.id for t in entity.trains],
              [p.cash for p in game.state.players])
    with pytest.raises(GameError) as info:
        game.process(action)
    assert (entity.cash, [t.id for t in entity.trains],
            [p.cash for p in game.state.players]) == before
    return info.value


def accepted_leniently(game: Game, action: BuyTrain) -> list[str]:
    """Process ``action`` as an export replay does (its leniencies on); the rules
    relaxed for it."""
    used = len(game.leniencies_used)
    game.leniencies = REPLAY_LENIENCIES
    game.process(action)
    return [u.rule for u in game.leniencies_used[used:]]


def share_class(game: Game, shares: tuple[str, ...], percent: int) -> tuple[object, ...]:
    """A bundle as the reference compares offers: corporation, each certificate's size
    and whether it is a president's, and the percent sold."""
    corp = game.corporation(shares[0].split("_")[0])
    certs = {c.id: c for c in corp.certificates}
    return (corp.sym, tuple(sorted((certs[s].percent, certs[s].president) for s in shares)),
            percent)


def test_sale_bundles_are_the_smallest_certificates_first() -> None:
    """18Rhl, seed 203, SR before #67: player 2 holds BME_4 (10%) and BME's president's
    certificate (20%).  The reference offers BME_4 (10%), BME_4 + BME_0 at 20% (10% of
    the president's certificate comes back in the swap) and at 30%; rhineland listed
    the president's certificate alone at 10% and 20% (a sale the reference accepts but
    its interface never shows)."""
    game = position("18Rhl_203_before67_sale_bundles")
    listed = {share_class(game, a.shares, a.percent) for a in game.legal_actions()
              if isinstance(a, SellShares) and a.shares[0].startswith("BME_")}
    assert listed == {
        ("BME", ((10, False),), 10),
        ("BME", ((10, False), (20, True)), 20),
        ("BME", ((10, False), (20, True)), 30),
    }


def test_no_presidents_certificate_from_the_market_beside_another_size() -> None:
    """18Rhl, seed 0 (even-kind random player), SR before #384: RhE is in receivership,
    its president's certificate RhE_0 (20%) lies in the market beside 10% shares.  The
    reference's interface offers RhE_5 (10%) only; rhineland offered RhE_0 and player 4
    bought it."""
    game = position("18Rhl_even0_before384_pool_president")
    rhe = game.corporation("RhE")
    market = {c.id: (c.percent, c.president) for c in rhe.certs_of("market")}
    assert market["RhE_0"] == (20, True) and (10, False) in market.values()
    listed = {share_class(game, a.shares, a.percent) for a in game.legal_actions()
              if isinstance(a, BuyShares) and a.shares[0].startswith("RhE_")}
    assert listed == {("RhE", ((10, False),), 10)}


def test_the_presidents_certificate_is_sold_only_to_a_successor() -> None:
    """18Rhl, seed 304 (even-kind random player), SR before #222: player 1 is KEG's
    president (20%); player 3 holds KEG_2, a double certificate, but counts 10% for the
    presidency (the reference's count after a partial sale).  Nobody else can take the
    presidency, so the reference refuses the sale of KEG_0 ("Cannot sell shares of
    KEG") and its interface offers player 1 only RhE_3."""
    game = position("18Rhl_even304_before222_president_sale")
    keg = game.corporation("KEG")
    assert keg.president == 1 and keg.counted_percent(3) == 10
    sale = SellShares(entity=1, entity_type="player", shares=("KEG_0",), percent=20)
    cash = game.player(1).cash
    with pytest.raises(GameError) as info:
        game.process(sale)
    assert info.value.rule == "stock.sell_presidency"
    assert game.player(1).cash == cash and keg.president == 1
    listed = {share_class(game, a.shares, a.percent) for a in game.legal_actions()
              if isinstance(a, SellShares)}
    assert listed == {("RhE", ((10, False),), 10)}


def test_a_holding_counted_short_is_not_sold_out() -> None:
    """18Rhl, seed 409 (random player), the last pass of SR 13 (#899): player 3 holds
    every certificate of KEG (100%), but after player 1's partial sale of KEG's
    president's certificate handed back a double, the reference counts player 1 10%
    short (-10%) and the market 10% over: the players hold 90% by its count.  The
    reference does not move KEG up at the end of the SR: it stays
    at 60M on row 5, column 2 (rhineland moved it to 65M)."""
    game = position("18Rhl_random409_before899_sold_out")
    keg = game.corporation("KEG")
    assert keg.percent_of(3) == 100 and keg.counted_percent(1) == -10
    game.process(Pass(entity=5, entity_type="player"))
    assert game.round.kind == "Operating"
    assert keg.share_price is not None
    assert (keg.share_price.price, keg.share_price.row, keg.share_price.col) == (60, 5, 2)


def test_a_metropolis_laid_green_passes_from_the_next_lay_or_token_on() -> None:
    """18Rhl, seed 309 (random player), OR before #425: CME (tokens on I10, K6) has just
    upgraded Düsseldorf F9 from yellow to X922; its city 1 holds DEE and CCE (both
    slots), so by the green-metropolis rule it no longer blocks (2 tokens of 3).  The
    reference walked CME's network during the lay, before it set that rule for the new
    tile, and keeps that walk until the next lay or token: beyond F9 nothing is
    reached, it refuses CME's token on Osterath E8 ("CME cannot place token in City
    935-0-0 on hex E8") and on F9's city 0 ("not connected").  CME may only pass;
    the network as the rules give it (no round: the token step has something to
    decide) reaches E8."""
    game = position("18Rhl_random309_before425_metropolis_lag")
    cme = game.corporation("CME")
    assert game.board.tile_at("F9").tile_id == "X922-0"
    assert game.board.tokens_in("F9", 1) == ("DEE", "CCE")
    assert [a.type for a in game.legal_actions()] == ["pass"]
    for city in ("935-0-0", "X922-0-0"):
        with pytest.raises(GameError) as info:
            game.process(PlaceToken(entity="CME", entity_type="corporation", city=city,
                                    slot=0))
        assert info.value.rule == "token.place" and "not connected" in str(info.value)
    assert cme.cash == 111 and cme.tokens_left == 2
    now = game.title.lay_context(game, None, cme)
    assert ("E8", 0) in {(s.hex, s.city) for s in legal_tokens(now)}


def test_no_second_teleport_while_the_first_ones_token_is_pending() -> None:
    """18Rhl, web-API game 403, OR before #223: ADR's president used Tjt (teleport to
    Düsseldorf F9, tile X922) and the special token is pending.  The reference's
    interface still shows KEO's teleport lay on E8, but processing it fails inside the
    reference (NoMethodError ``tokens_by_type`` for the player): ADR decides the token
    first (the two cities of X922 or pass)."""
    game = position("18Rhl_web403_before223_second_teleport")
    listed = {(a.type, a.entity, getattr(a, "city", None)) for a in game.legal_actions()}
    assert listed == {("place_token", "ADR", "X922-0-0"), ("place_token", "ADR", "X922-0-1"),
                      ("pass", "ADR", None)}
    lay = LayTile(entity="KEO", entity_type="company", hex="E8", tile="935-0", rotation=1)
    before = game.board.tile_at("E8").tile_id
    with pytest.raises(GameError) as info:
        game.process(lay)
    assert info.value.rule == "token.special"
    assert game.board.tile_at("E8").tile_id == before


def test_the_rhe_certificate_is_bid_at_145_while_a_cheaper_item_is_left() -> None:
    """18Rhl, seed 700 (even-kind random player), the opening auction before #22: No. 2
    (KEO) is the cheapest item left.  The reference offers KEO at 30M, bids on Szl from
    55M, NLK from 125M and RhE's director's certificate from 145M, each up to the
    player's 445M, and refuses 141M on RhE ("Minimum bid is 145M"); 140M is its price
    only as the cheapest item left."""
    game = position("18Rhl_even700_before22_rhe_min_bid")
    offers = {}
    for choice in game.legal_actions():
        action = getattr(choice, "action", choice)
        span = (choice.min, choice.max) if hasattr(choice, "min") else None
        offers[(action.type, getattr(action, "company", None))] = (
            span or getattr(action, "price", None))
    assert offers == {("bid", "KEO"): 30, ("bid", "Szl"): (55, 445),
                      ("bid", "NLK"): (125, 445), ("bid", "RhE"): (145, 445),
                      ("pass", None): None}
    with pytest.raises(GameError) as info:
        game.process(Bid(entity=2, entity_type="player", company="RhE", price=141))
    assert "145" in str(info.value)


def test_a_teleport_token_keeps_out_of_reserved_home_slots() -> None:
    """18Rhl, seed 740 (even-kind random player), OR before #176: Tjt upgraded Köln I10 to
    X923 for ADR; its city 0 (2 slots) holds RhE's token and CCE's home reservation,
    city 1 (1 slot) CME's.  The reference's interface shows both cities, but it refuses
    the token ("ADR cannot lay token - no token slots available on I10"): ADR may only
    pass."""
    game = position("18Rhl_even740_before176_reserved_homes")
    rules = game.title.board_rules
    assert rules.reservations(game.board, "I10", 0) == ("CCE",)
    assert rules.reservations(game.board, "I10", 1) == ("CME",)
    assert [(a.type, a.entity) for a in game.legal_actions()] == [("pass", "ADR")]
    adr = game.corporation("ADR")
    tokens, cash = list(adr.tokens), adr.cash
    with pytest.raises(GameError) as info:
        game.process(PlaceToken(entity="ADR", entity_type="corporation", city="X923-0-0",
                                slot=1))
    assert info.value.rule == "token.special"
    assert (adr.tokens, adr.cash) == (tokens, cash)
    assert game.board.tokens_in("I10", 0) == ("RhE",)


def test_no_private_lay_for_a_company_in_receivership() -> None:
    """18Rhl, web-API game 735, OR before #504: ADR is in receivership (no president);
    player 1 owns Szl.  The reference offers Szl nothing (its ability is used in the
    turn of a company its owner presides) and refuses the lay ("Blocking step Run
    Routes cannot process action lay_tile")."""
    game = position("18Rhl_web735_before504_receivership_private")
    adr = game.corporation("ADR")
    assert adr.receivership and game.private("Szl").owner == 1
    assert not any(getattr(getattr(a, "action", a), "entity_type", "") == "company"
                   for a in game.legal_actions())
    with pytest.raises(GameError) as info:
        game.process(LayTile(entity="Szl", entity_type="company", hex="J13", tile="8-4",
                             rotation=2))
    assert info.value.rule == "private.owner"


def test_a_bankrupt_player_keeps_the_shares_of_a_corporation_not_yet_parred() -> None:
    """18Rhl, seed 776 (even-kind random player), OR before #129: DEE's president, player
    6, goes bankrupt holding GVE_1, the 10% NLK brought, while GVE is not yet parred.
    The reference sells and discards only shares of parred corporations: GVE_1 stays
    with player 6 (its trace: players.6.shares.GVE 10), so nobody can buy it from the
    market later ("Cannot buy a share of GVE")."""
    game = position("18Rhl_even776_before129_unparred_shares")
    gve = game.corporation("GVE")
    assert gve.share_price is None and gve.percent_of(6) == 10
    game.process(Bankrupt(entity="DEE", entity_type="corporation"))
    assert game.player(6).bankrupt
    assert gve.percent_of(6) == 10 and not gve.certs_of("market")

def test_the_open_market_sells_its_longest_waiting_train_of_a_type() -> None:
    """1893, seed 609 (random player), OR before #354: the open market holds 3-1 and
    3-0, discarded in that order.  The reference refused HGK's purchase of 3-0 ("Not a
    buyable train: 3-0"); its interface offers 3-1 at 180M, the other companies' trains
    at 1..425M (HGK's cash) and DE's 5-0 at 1..450M (HGK has no train: its president
    may add up to the face value).  It also shows the depot's 5-1 at 450M, which HGK
    cannot pay (its president may help with the cheapest train only)."""
    game = position("1893_random609_before354_train_order", prefix=EARLIER_EVA)
    assert [t.id for t in game.discarded_trains()] == ["3-1", "3-0"]
    assert train_offers(game) == {
        ("3-1", 180, None), ("3-2", (1, 425), None), ("4-0", (1, 425), None),
        ("4-1", (1, 425), None), ("5-0", (1, 450), None)}
    error = refused(game, BuyTrain(entity="HGK", entity_type="corporation", train="3-0",
                                   price=180, variant="3"))
    assert error.rule == "train.available" and "sells 3-1 first" in str(error)


def test_the_depot_sells_the_next_train_of_a_type() -> None:
    """1893, seed 608 (even-kind random player), OR before #314: the depot's next
    trains are 4-1, 4-2, 4-3; the open market holds 3-2 then 3-0.  The reference's
    interface offers RAG 4-1 at 300M, 3-2 at 180M and DE's 3-1 at 1..488M; its engine
    refuses 4-2 and 3-0 ("Not a buyable train"), as rhineland did not."""
    game = position("1893_even608_before314_depot_order", prefix=EARLIER_EVA)
    assert train_offers(game) == {("4-1", 300, None), ("3-2", 180, None),
                                  ("3-1", (1, 488), None)}
    for train, price in (("4-2", 300), ("3-0", 180)):
        error = refused(game, BuyTrain(entity="RAG", entity_type="corporation", train=train,
                                       price=price, variant=train[0]))
        assert error.rule == "train.available" and "first" in str(error)


def test_at_the_train_limit_only_trade_ins_are_offered() -> None:
    """1893, seed 609, OR before #175: minor KSZ holds 2-4 and 3-0, its limit of 2.  The
    reference's interface offers only trade-ins: 4-0 for 3-0 at 210M (and for 2-4 at
    260M, beyond KSZ's 243M); rhineland also listed the other companies' trains.  The
    reference's engine takes a purchase beyond the limit (KFBE's 2-0 for 10M: the
    players' values 659, 382, 747, 570), which a replay accepts under the leniency
    ``train.limit``."""
    game = position("1893_random609_before354_train_order", until=174, prefix=EARLIER_EVA)
    ksz = game.minors["KSZ"]
    assert [t.id for t in ksz.trains] == ["2-4", "3-0"] and ksz.cash == 243
    assert train_offers(game) == {("4-0", 210, "3-0")}
    buy = BuyTrain(entity="KSZ", entity_type="minor", train="2-0", price=10)
    assert refused(game, buy).rule == "train.limit"
    assert accepted_leniently(game, buy) == ["train.limit"]
    assert game.player_values() == {1: 659, 2: 382, 3: 747, 4: 570}


def test_a_trainless_minor_pays_at_most_face_value_with_its_owners_help() -> None:
    """1893, seed 609, OR before #178: minor KBE has no train and 145M, its owner 97M.
    The reference's interface offers the open market's 3-0 at 180M, KSZ's 3-1 and RSE's
    3-2 at 1..180M (their face value) and KSZ's 4-0 at 1..242M (all both have);
    rhineland offered the 3-trains up to 242M.  The reference's engine takes 200M for
    3-1 (the owner adds 55M: values 659, 382, 692, 570) but not 243M ("KBE has 145 and
    cannot spend 243"): a replay accepts the 200M under the leniency
    ``train.assist_price``."""
    game = position("1893_random609_before354_train_order", until=177, prefix=EARLIER_EVA)
    kbe = game.minors["KBE"]
    assert not kbe.trains and kbe.cash == 145
    assert train_offers(game) == {("3-0", 180, None), ("3-1", (1, 180), None),
                                  ("3-2", (1, 180), None), ("4-0", (1, 242), None)}
    buy = BuyTrain(entity="KBE", entity_type="minor", train="3-1", price=200)
    assert refused(game, buy).rule == "train.assist_price"
    assert refused(game, BuyTrain(entity="KBE", entity_type="minor", train="3-1",
                                  price=243)).rule == "train.cash"
    assert accepted_leniently(game, buy) == ["train.assist_price"]
    assert game.player_values() == {1: 659, 2: 382, 3: 692, 4: 570}


def test_short_of_every_bank_train_only_the_cheapest_is_offered() -> None:
    """1893, seed 605 (random player), OR before #155: minor KFBE has no train and
    135M, less than any train the bank sells; its owner could add the rest.  The
    reference's interface offers only the cheapest, the open market's 3-0 at 180M (and
    the other companies' trains: DE's 3-1 at 1..180M, RAG's 4-0 at 1..300M); rhineland
    also offered the depot's 4-2 at 300M, which the reference's engine takes (values
    1339, 1199): a replay accepts it under the leniency ``train.cheapest_offer``."""
    game = position("1893_random605_before156_cheapest_offer", until=154, prefix=EARLIER_EVA)
    kfbe = game.minors["KFBE"]
    assert not kfbe.trains and kfbe.cash == 135
    assert train_offers(game) == {("3-0", 180, None), ("3-1", (1, 180), None),
                                  ("4-0", (1, 300), None)}
    buy = BuyTrain(entity="KFBE", entity_type="minor", train="4-2", price=300, variant="4")
    assert refused(game, buy).rule == "train.cheapest_offer"
    assert accepted_leniently(game, buy) == ["train.cheapest_offer"]
    assert game.player_values() == {1: 1339, 2: 1199}


def eva_offers(game: Game) -> list[tuple[object, object]]:
    """The listed purchases of EVA: (buyer, price or ``(min, max)`` span)."""
    out: list[tuple[object, object]] = []
    for c in game.legal_actions():
        a = c.action if isinstance(c, AmountRange) else c
        if isinstance(a, BuyCompany) and a.company == "EVA":
            out.append((a.entity, (c.min, c.max) if isinstance(c, AmountRange) else a.price))
    return out


def test_in_an_or_eva_is_offered_from_half_its_value_up_to_the_presidents_cash() -> None:
    """1893, seed 900, OR 1.1 before #27: minor EKB operates, its owner P2 has 20M, EVA
    (face value 150M) is P4's.  The reference's interface offers EVA for 75..300M capped
    at P2's cash, i.e. only 20M (its price box's default); rhineland offered 1..20M.  The
    reference's engine took 10M (P2 10M, P4 52M after), which a replay accepts under
    the leniency ``or.eva_price``."""
    game = position("1893_even900_before27_eva_or_price")
    assert [(p.id, p.cash) for p in game.state.players] == [(1, 260), (2, 20), (3, 70),
                                                            (4, 42)]
    assert game.private("EVA").owner == 4
    assert eva_offers(game) == [("EKB", (20, 20))]
    buy = BuyCompany(entity="EKB", entity_type="minor", company="EVA", price=10)
    with pytest.raises(GameError) as info:
        game.process(buy)
    assert info.value.rule == "or.eva_price" and game.private("EVA").owner == 4
    assert refused_rule(game, BuyCompany(entity="EKB", entity_type="minor", company="EVA",
                                         price=21)) == "or.company_price"
    assert accepted_leniently(game, buy) == ["or.eva_price"]
    assert game.private("EVA").owner == 2
    assert (game.player(2).cash, game.player(4).cash) == (10, 52)


def test_after_an_or_sale_eva_is_offered_up_to_what_that_buyer_had() -> None:
    """1893, seed 903 (web), OR before #102: EVA was bought in an earlier OR by a
    player who then had 75M; minor KFBE's owner P1 now has 388M.  The reference's
    interface offers 1..75M (the price span the last OR sale left); rhineland offered
    1..388M, and P1 bought it for 106M, which the reference's engine takes (its check is
    1M up to the buyer's cash): a replay accepts it under the leniency ``or.eva_price``."""
    game = position("1893_web903_before102_eva_after_or_sale")
    assert game.player(1).cash == 388 and game.private("EVA").owner == 2
    assert eva_offers(game) == [("KFBE", (1, 75))]
    buy = BuyCompany(entity="KFBE", entity_type="minor", company="EVA", price=106)
    assert refused_rule(game, buy) == "or.eva_price"
    assert accepted_leniently(game, buy) == ["or.eva_price"]
    assert (game.player(1).cash, game.player(2).cash) == (282, 215)


def refused_rule(game: Game, action: BuyCompany) -> str:
    """The rule ``action`` is refused by; every player's cash and EVA's owner stay."""
    before = ([p.cash for p in game.state.players], game.private("EVA").owner)
    with pytest.raises(GameError) as info:
        game.process(action)
    assert ([p.cash for p in game.state.players], game.private("EVA").owner) == before
    return info.value.rule


def test_in_a_stock_round_eva_is_bought_only_beside_another_buy_or_share_sale() -> None:
    """1893, seed 900, SR before #210: P3 has 16M and bond AdSK-1 and can buy no share;
    EVA is P2's.  The reference's interface offers only the bond's sale (100M) and a
    pass, and its engine refused P3's purchase of EVA for 16M ("Blocking step Sell then
    Buy Shares cannot process action buy_company").  The same beside the FdSD exchange
    (seed 911, web, SR before #78: P3 with FdSD, 56M)."""
    game = position("1893_even900_before210_eva_beside_bond_sale", prefix=EARLIER_EVA)
    assert game.player(3).cash == 16 and game.private("EVA").owner == 2
    assert [(type(a).__name__, getattr(a, "company", None)) for a in game.legal_actions()] == [
        ("SellCompany", "AdSK-1"), ("Pass", None)]
    assert refused_rule(game, BuyCompany(entity=3, company="EVA", price=16)) == (
        "stock.eva_alone")
    game.process(SellCompany(entity=3, company="AdSK-1", price=100))
    game = position("1893_web911_before78_eva_beside_fdsd_exchange")
    assert game.player(3).cash == 56 and game.private("EVA").owner == 1
    assert eva_offers(game) == []
    assert refused_rule(game, BuyCompany(entity=3, company="EVA", price=55)) == (
        "stock.eva_alone")


def test_the_forced_auction_offer_moves_on_past_a_forced_pass() -> None:
    """1893, seed 906 (bots), the Starting Package's forced auction at #55: two players
    at 155M each, P2 (first seat) selects KBE at its 220M.  Neither can pay, so each
    passes perforce and the price drops 10M a lap; the reference engine asks whether all
    have passed at each seat the offer reaches, and at 150M it offers KBE to P2, the
    selector (buy at 150M or pass); rhineland offered it to P1."""
    game = position("1893_bots906_before56_forced_auction_turn")
    assert [(p.id, p.cash) for p in game.state.players] == [(2, 155), (1, 155)]
    assert game.legal_actions() == [Bid(entity=2, company="KBE", price=150), Pass(entity=2)]
    game.process(Pass(entity=2))
    assert game.legal_actions() == [Bid(entity=1, company="KBE", price=150), Pass(entity=1)]


def test_a_swap_handing_back_more_than_the_presidents_certificate_counts_as_even() -> None:
    """18Rhl, seed 1100: at #824 P3 buys the KEG double KEG_2 (20%) and takes KEG's
    presidency from P1; for the 20% president's certificate P3 hands back KEG_2 and a
    10% (KEG_4), as the reference engine does.  The presidency goes on counting the
    exchange as even: P1 30% and P3 50%, though they hold 40% each.  At #920 P3 goes
    bankrupt and all of P3's KEG goes to the market; P1 holds the other double but
    counts 10%, as much as P3 still counts, so KEG enters receivership (the reference:
    KEG's owner the market); rhineland gave P1 the presidency."""
    game = position("18Rhl_even1100_before920_counted_swap", until=824)
    keg = game.corporation("KEG")
    assert (keg.president, keg.percent_of(1), keg.percent_of(3)) == (3, 40, 40)
    assert (keg.counted_percent(1), keg.counted_percent(3), keg.counted_percent("market")) == (
        30, 50, 20)
    game = position("18Rhl_even1100_before920_counted_swap")
    keg = game.corporation("KEG")
    assert (keg.president, keg.percent_of(1), keg.counted_percent(1)) == (3, 20, 10)
    game.process(Bankrupt(entity="BME", entity_type="corporation"))
    assert keg.president is None and keg.receivership
    assert keg.percent_of(1) == 20 and keg.percent_of("market") == 80
    assert game.corporation("BME").receivership and game.player(3).bankrupt


def test_in_the_first_stock_round_fdsd_pays_for_rags_par() -> None:
    """1893, seed 1202 (bots), SR 1 #8: P2, FdSD's owner with 270M, pars RAG at 80M and
    is asked how to pay.  The reference engine counts a pass (paying 160M cash) as P2's
    first-SR pass before the president's certificate is bought, then refuses the
    purchase ("Cannot buy a share of RAG"); so only the exchange is offered.  With it
    the bank pays the 160M, FdSD closes, P2 keeps 270M and holds RAG's 20%, the other
    80% goes to the market and P3 is next (the reference's values)."""
    game = position("1893_bots1202_before9_fdsd_par_first_sr")
    assert game.legal_actions() == [Assign(entity=2, target="FdSD", target_type="company")]
    cash = [p.cash for p in game.state.players]
    with pytest.raises(GameError) as info:
        game.process(Pass(entity=2))
    assert info.value.rule == "fdsd.par_cash_first_sr"
    assert [p.cash for p in game.state.players] == cash == [270, 190, 220]
    game.process(Assign(entity=2, target="FdSD", target_type="company"))
    rag = game.corporation("RAG")
    assert (rag.president, rag.percent_of(2), rag.percent_of("market")) == (2, 20, 80)
    assert game.private("FdSD").closed and game.player(2).cash == 270
    assert game.state.round.current == 3


def test_a_discarded_train_bought_again_fires_no_event() -> None:
    """1893, seed 1209 (random), OR 8.2 #504: DE trades its 3-0 for the 5-0 that HGK
    discarded at #377 (360M, from the open market).  The 5-0's events (HGK's shares
    made buyable at 120M) fired when RSE bought it first at #281; the reference engine
    fires a train's events once, so HGK stays at 120M in row 0, column 4, its shares
    where they are; rhineland moved HGK to its 120M par cell (row 1, column 5).  Buying
    the next 5-train from the depot fires nothing either."""
    for train in ("5-0", "5-1"):
        game = position("1893_random1209_before504_discarded_5_train")
        hgk = game.corporation("HGK")
        before = (hgk.share_price, hgk.cash, [(c.id, c.owner) for c in hgk.certificates])
        assert (hgk.share_price.price, hgk.share_price.row, hgk.share_price.col) == (120, 0, 4)
        game.process(BuyTrain(entity="DE", entity_type="corporation", train=train,
                              price=360, variant="5", exchange="3-0"))
        assert (hgk.share_price, hgk.cash, [(c.id, c.owner) for c in hgk.certificates]) == before
        assert game.corporation("DE").cash == 370 - 360
        assert not any("can now be bought" in line for line in game.log[-3:])


def test_fdsd_closes_at_its_owners_share_buy_not_at_a_rag_par() -> None:
    """1893, seed 2014 (bots), SR 7: the first 5-train (#329) scheduled FdSD's closing.
    Player 1, its owner, pars RAG at 100M (#364) and pays 200M in cash (the pass, #365):
    the reference engine keeps FdSD open (player 1: 415M cash, value 2030M with FdSD's
    180M); it closes at the owner's next share buy, RAG_1 from the market at #368 (315M,
    value 1850M)."""
    game = position("1893_bots2014_before369_fdsd_closes_at_a_buy", until=365)
    p1, fdsd = game.player(1), game.private("FdSD")
    assert (p1.cash, p1.companies, fdsd.owner, fdsd.closed) == (415, ["FdSD"], 1, False)
    assert game.player_value(p1) == 2030
    assert game.corporation("RAG").percent_of(1) == 20
    game = position("1893_bots2014_before369_fdsd_closes_at_a_buy")
    p1, fdsd = game.player(1), game.private("FdSD")
    assert (p1.cash, p1.companies, fdsd.closed) == (315, [], True)
    assert game.player_value(p1) == 1850


def test_a_merger_tie_goes_to_the_first_merging_owner_before_other_holders() -> None:
    """1893, seed 3017 (random), merger round, #430: P1's yes founds HGK.  P1 (three
    bought 10% shares) and P2 (KFBE's 20% and a bought 10%) hold 30% each, more than
    P4, who holds the president's certificate for KBE.  The tie goes by the merging
    order (KFBE's owner P2 first; a holder who merged nothing comes after every merging
    owner): P2 becomes president and hands P4 a 20% certificate.  The reference engine
    crashes there (``Integer::MAX``, docs/rules-differences.md)."""
    game = position("1893_random3017_before430_merger_tie")
    game.process(SpecialBuy(entity=1, entity_type="player", description="yes", cost=0))
    hgk = game.corporation("HGK")
    assert hgk.president == 2 and hgk.floated
    assert [hgk.percent_of(p) for p in (1, 2, 3, 4)] == [30, 30, 10, 20]
    assert [(c.id, c.owner) for c in hgk.certificates[:3]] == [
        ("HGK_0", 2), ("HGK_1", 3), ("HGK_2", 4)]


def test_a_company_keeps_its_route_once_found() -> None:
    """18Rhl, seed 3088 (even), OR 15.1, #700: DEE (its one token in Düsseldorf's
    second city on X922, a 4-train, 50M) upgrades F9 to 927 for 50M.  The narrow link
    between X922's two cities was its only route (#666: an empty run); on 927 no track
    leaves the city.  18xx.games keeps a route once found: DEE is still to run (step
    Route; its interface offers run_routes to DEE, not ADR) and its empty run is 0M,
    the price staying at 50M in the market's first column; then ADR runs."""
    game = position("18Rhl_even3088_before701_route_kept")
    dee = game.corporation("DEE")
    assert game.state.board.tile_at("F9").tile.name == "927"
    assert not game.title.route_connected(game, dee)
    assert dee.had_route and game.title.has_route(game, dee)
    assert game.round.current_entity(game) is dee
    assert game.round.step_name(game) == "route"
    assert {(a.type, a.entity) for a in game.legal_actions()} == {("run_routes", "DEE")}
    game.process(RunRoutes(entity="DEE", entity_type="corporation", routes=()))
    assert (dee.cash, dee.share_price.price if dee.share_price else None) == (0, 50)
    assert game.round.current_entity(game).sym == "ADR"
    assert game.round.step_name(game) == "route"


def test_a_token_is_offered_in_a_slot_after_the_reserved_ones() -> None:
    """18Rhl, seed 3117 (random), #636: CCE tokens Düsseldorf (F9, tile 927, 3 slots).
    DEE's home reservation came along from the preprinted city through X922, and CME's
    token (#311) lies behind it: 18xx.games has slot 0 reserved, CME in slot 1, slot 2
    open, and its interface offers slots 0 and 2.  Ours offers slot 2 (the one after
    the reservations and tokens), never CME's slot 1."""
    game = position("18Rhl_random3117_before636_reserved_slot")
    assert game.state.board.tile_at("F9").tile.name == "927"
    assert game.title.board_rules.reservations(game.state.board, "F9", 0) == ("DEE",)
    offers = {(a.city, a.slot) for a in game.legal_actions() if isinstance(a, PlaceToken)}
    assert ("927-0-0", 2) in offers
    assert not {o for o in offers if o[0] == "927-0-0"} - {("927-0-0", 0), ("927-0-0", 2)}


def test_fdsd_is_exchanged_for_the_rag_shares_longest_in_the_market() -> None:
    """1893, seed 5011 (web), SR 2, #81: P2 exchanges FdSD for 20% of RAG.  The market
    holds RAG_6, RAG_7, RAG_8 (there since the par) and RAG_3 (P4's sale at #79);
    18xx.games takes the first two to arrive, RAG_6 and RAG_7, whichever share the
    action names.  P2 (RAG_4 bought at #77) then holds 30% against P4's president's
    certificate and becomes president, handing P4 its oldest two: RAG_4 and RAG_6.
    Its state: P2 RAG_0 and RAG_7, P4 RAG_4 and RAG_6, the market RAG_3 and RAG_8."""
    game = position("1893_web5011_before81_fdsd_first_market_shares", prefix=EARLIER_EVA)
    with pytest.raises(GameError) as info:  # P1's share, not one in the market
        game.process(BuyShares(entity="FdSD", entity_type="company", shares=("RAG_1",),
                               percent=10))
    assert info.value.rule == "fdsd.exchange"
    assert game.private("FdSD").owner == 2
    game.process(BuyShares(entity="FdSD", entity_type="company", shares=("RAG_3",),
                           percent=10))
    rag = game.corporation("RAG")
    owners = {c.id: c.owner for c in rag.certificates}
    assert rag.president == 2
    assert [k for k, v in owners.items() if v == 2] == ["RAG_0", "RAG_7"]
    assert [k for k, v in owners.items() if v == 4] == ["RAG_4", "RAG_6"]
    assert [k for k, v in owners.items() if v == "market"] == ["RAG_3", "RAG_8"]


def test_once_the_bank_sells_no_train_nobody_must_buy_one() -> None:
    """1893, seed 5059 (web), #1018: DE (452M, no train, a route) is to buy trains;
    every train is sold (the depot and the open market are empty).  18xx.games then
    obliges nobody, so DE's president adds nothing: DE may pass or buy another
    company's train for up to its 452M ("DE has 452 and cannot spend 499")."""
    game = position("1893_web5059_before1018_no_train_left_to_sell", prefix=EARLIER_EVA)
    de = game.corporation("DE")
    assert (de.cash, de.trains) == (452, [])
    assert not game.title.available_depot_trains(game)
    assert not game.title.must_buy_train(game, de)
    assert train_offers(game) == {(t, (1, 452), None)
                                  for t in ("5-0", "5-1", "6-0", "6-1", "8+x-0", "8+x-1")}
    assert "Pass" in {type(a).__name__ for a in game.legal_actions()}
    error = refused(game, BuyTrain(entity="DE", entity_type="corporation", train="8+x-1",
                                   price=499))
    assert error.rule == "train.cash"
    game.process(BuyTrain(entity="DE", entity_type="corporation", train="8+x-1", price=452))
    assert (de.cash, [t.id for t in de.trains]) == (0, ["8+x-1"])


def test_the_moers_gray_tile_is_checked_for_new_track_like_any_upgrade() -> None:
    """18Rhl with the promotion tiles, seed 5049 (random), OR 20.1, #729: CCE (tokens
    on E6, I10, E8; none on Moers) may not upgrade D7's brown 947 (30M, full with KEG
    and ADR) to the gray 950: the city keeps its 30M and 950's new town (edge 0 at
    rotation 2, edge 3 at 5) is not on CCE's network ("Must use new track or change
    city value").  Only 929 -> 949 and the four-spoke tiles go unchecked.  The reference
    lists the same 12 lays; KEG, with a token in the city, may lay 950 (#659)."""
    game = position("18Rhl_random5049_before729_moers_gray_track")
    lays = {(a.hex, a.tile, a.rotation) for a in game.legal_actions() if isinstance(a, LayTile)}
    assert lays == {
        ("B9", "15-1", 4), ("C12", "938-0", 2), ("C12", "938-0", 4), ("C12", "941-0", 2),
        ("C12", "942-0", 5), ("D3", "31-0", 4), ("E10", "1911-0", 0), ("E6", "216-1", 0),
        ("E6", "216-1", 4), ("J3", "87-0", 3), ("J5", "24-1", 4), ("K6", "15-1", 1)}
    with pytest.raises(GameError) as info:
        game.process(LayTile(entity="CCE", entity_type="corporation", hex="D7",
                             tile="950-0", rotation=2))
    assert info.value.rule == "track.restriction"
    assert game.state.board.tile_at("D7").tile.name == "947"
    keg = position("18Rhl_random5049_before729_moers_gray_track", until=658)
    assert {(a.hex, a.rotation) for a in keg.legal_actions()
            if isinstance(a, LayTile) and a.tile == "950-0"} == {("D7", 2), ("D7", 5)}


def test_the_action_that_ends_the_game_carries_the_rhe_link_check() -> None:
    """18Rhl, seed 5018 (bots), OR 52.1, #622: the bank broke at #616; RhE, the last to
    operate, passes its track step.  18xx.games writes the RhE link check into that
    pass's ``auto_actions`` and ends the game only once it has run (without it the
    game waits at the check, unfinished): the export carries it, the game is over by
    the bank (-95M) with RhE at 50M, values 5845, 111, 3275, and the export loads again
    (the recorded check is compared even though the pass ended the game)."""
    game = position("18Rhl_bots5018_before622_link_check_at_the_end")
    game.process(Pass(entity="RhE", entity_type="corporation"))
    assert game.actions[-1].auto_actions == (
        DestinationConnection(entity="RhE", entity_type="corporation", corporations=()),)
    assert (game.state.finished, game.state.game_end_reason) == (True, "bank")
    assert game.state.bank.cash == -95
    rhe = game.corporation("RhE")
    assert rhe.share_price is not None and rhe.share_price.price == 50
    export = to_export(game)
    assert export["actions"][-1]["auto_actions"] == [{
        "type": "destination_connection", "entity": "RhE", "entity_type": "corporation",
        "corporations": []}]
    assert export["result"] == {"1": 5845, "2": 111, "3": 3275}
    again = replay(parse_export(export))
    assert again.state.finished and len(again.actions) == 622
    with pytest.raises(GameError) as info:
        again.process(DestinationConnection(entity="RhE", entity_type="corporation",
                                            corporations=()))
    assert info.value.rule == "game.finished"


def test_a_route_is_noted_where_the_reference_walks_the_network() -> None:
    """The same position one action earlier (#699 done, DEE to lay track), as if DEE's
    route had not been noted yet.  A lay on a Rhine metropolis has no rotation check,
    so 18xx.games walks DEE's network only after it, on 927, and finds no route: DEE's
    turn ends, ADR runs next.  A lay elsewhere (G8) walks it through X922's narrow
    link, which stays, and keeps the route."""
    game = position("18Rhl_even3088_before701_route_kept", until=699)
    dee = game.corporation("DEE")
    dee.had_route = False
    game.process(LayTile(entity="DEE", entity_type="corporation", hex="F9", tile="927-0",
                         rotation=0))
    assert not dee.had_route
    assert game.round.current_entity(game).sym == "ADR"
    other = position("18Rhl_even3088_before701_route_kept", until=699)
    other_dee = other.corporation("DEE")
    other_dee.had_route = False
    other.process(LayTile(entity="DEE", entity_type="corporation", hex="G8", tile="18-0",
                          rotation=0))
    assert other_dee.had_route


def test_a_bankrupt_president_sells_in_operating_order() -> None:
    """18Rhl, seed 10019 (web), OR 11.2, #383: ADR's president P1 goes bankrupt holding
    10% of ADR and 10% of GVE, both at 55M on the same market cell, GVE first there.
    18xx.games sells in operating order as it stands (GVE, then ADR), so GVE reaches the
    50M cell first and operates before ADR from then on: after BME's pass at #434 of
    OR 12.1, GVE is next, at its track step (so the pass records no link check; ours
    had ADR next, which lays no track, and wrote ADR's check, which 18xx.games refused)."""
    before = position("18Rhl_web10019_before434_bankrupt_sale_order", until=382)
    before.process(Bankrupt(entity="ADR", entity_type="corporation"))
    start = max(i for i, line in enumerate(before.log) if line == "P1 goes bankrupt")
    sales = [line for line in before.log[start:] if line.startswith("P1 sells")]
    assert sales == ["P1 sells 10% of GVE for 55M", "P1 sells 10% of ADR for 55M"]
    game = position("18Rhl_web10019_before434_bankrupt_sale_order")
    game.process(Pass(entity="BME", entity_type="corporation"))
    assert game.round.current_entity(game).sym == "GVE"
    assert game.round.step_name(game) == "track"
    assert game.actions[-1].auto_actions == ()


def test_a_bankrupt_presidents_shares_reach_the_market_as_acquired() -> None:
    """18Rhl, seed 12085 (random), #436: RhE's president P2 goes bankrupt holding ADR_6
    (bought at #230) and ADR_5 (bought back at #389); 18xx.games moves them to the
    market in that order, ADR_6 first.  At #732 ADR's president P3 sells 20% of its 30%
    (the 20% certificate and ADR_2): P5 takes the presidency and P3 takes back the
    share longest in the market, ADR_6, so at #746 the market holds ADR_5, ADR_1,
    ADR_2, ADR_4, ADR_8 in that order and refuses P1 ADR_6, "Cannot buy a share of
    ADR"."""
    game = position("18Rhl_random12085_before746_bankrupt_market_order")
    adr = game.corporation("ADR")
    assert [(c.index, c.owner) for c in adr.certificates] == [
        (0, 5), (1, MARKET), (2, MARKET), (3, 1), (4, MARKET), (5, MARKET), (6, 3), (7, 1),
        (8, MARKET)]
    market = sorted((c for c in adr.certificates if c.owner == MARKET),
                    key=lambda c: c.pool_seq)
    assert [c.index for c in market] == [5, 1, 2, 4, 8]
    assert {a.shares for a in game.legal_actions()
            if isinstance(a, BuyShares) and a.shares[0].startswith("ADR")} == {("ADR_5",)}
    cash = game.player(1).cash
    with pytest.raises(GameError) as info:
        game.process(BuyShares(entity=1, entity_type="player", shares=("ADR_6",), percent=10))
    assert info.value.rule == "stock.buy_source"
    assert (adr.certificates[6].owner, game.player(1).cash) == (3, cash)


def test_a_metropolis_lag_lasts_into_the_companys_next_turn() -> None:
    """18Rhl, seed 11008 (even), #472: CME upgrades Köln (I10) to X924; nobody lays or
    places a token until CME's next turn, so 18xx.games still walks CME's network as
    it did during that lay (I10 blocking as the yellow tile did): at CME's token step
    (#484) its interface offers no token and it refuses one in Aachen (K2, city 0, a
    slot free beside ADR), "CME cannot place token in City 930-0-0 on hex K2"."""
    game = position("18Rhl_even11008_before484_metropolis_lag_next_turn")
    assert (game.round.current_entity(game).sym, game.round.step_name(game)) == ("CME", "token")
    assert not [c for c in game.legal_actions() if isinstance(c, PlaceToken)]
    cme = game.corporation("CME")
    before = (cme.cash, list(cme.tokens))
    with pytest.raises(GameError) as info:
        game.process(PlaceToken(entity="CME", entity_type="corporation", city="930-0-0",
                                slot=1))
    assert info.value.rule == "token.place"
    assert (cme.cash, list(cme.tokens)) == before


def test_a_metropolis_lag_limits_the_companys_next_tile_lay() -> None:
    """18Rhl, seed 11077 (random), #445: KEG upgrades Duisburg (D9) to X926; nobody lays
    or places a token until KEG's next turn, so at its track step (#457) 18xx.games
    still walks KEG's network from Moers (D7) as during that lay, D9 blocking as the
    yellow tile did: it offers exactly the five lays below (none on C10 or E10, which
    the green D9 would open) and refuses tile 1 on C10, "C10 is not legally rotated
    for 1"."""
    game = position("18Rhl_random11077_before457_metropolis_lag_tile_lay")
    assert (game.round.current_entity(game).sym, game.round.step_name(game)) == ("KEG", "track")
    lays = {(a.hex, a.tile.split("-")[0], a.rotation) for a in game.legal_actions()
            if isinstance(a, LayTile)}
    assert lays == {("B3", "28", 5), ("B5", "7", 5), ("B5", "8", 5), ("D5", "70", 2),
                    ("D9", "929", 0)}
    with pytest.raises(GameError) as info:
        game.process(LayTile(entity="KEG", entity_type="corporation", hex="C10",
                             tile="1-0", rotation=5))
    assert info.value.rule == "track.connected"
    assert (game.state.board.tile_at("C10").tile.name, game.corporation("KEG").cash) == (
        "C10", 260)


def test_the_game_ends_showing_the_last_actions_entity() -> None:
    """18Rhl, seed 12012 (even), #736: ADR (in receivership) runs and withholds, DEE's
    turn is skipped whole, and the game ends with the bank broken (-665M), values P3
    3764 and the bankrupt P1, P2, P4 0.  With no step left 18xx.games shows the last
    action's entity as current: ADR, not DEE (the last operator of the round)."""
    game = position("18Rhl_even12012_end_last_action_entity")
    assert game.state.finished
    assert game.player_values() == {1: 0, 2: 0, 3: 3764, 4: 0}
    state = game_state(game)
    assert (state["bank"], state["current"]) == (-665, {"id": "ADR", "type": "corporation"})
    assert game.state.round is not None and game.state.round.order[-1] == "DEE"


def test_a_holding_over_the_limit_that_cannot_be_sold_does_not_force_a_sale() -> None:
    """1893 play.rb g1014015 (a reference game), SR 7: Player 1 holds 70% of HGK, formed
    by the merger just before and not yet operated, so none of it can be sold; at 9 of 12
    certificates they are not forced to sell and buy AGV_4 from the market at 135M
    (#355, which we refused with stock.must_sell)."""
    game = position("1893_playrb1014015_before355_unsellable_over_holding_limit")
    p1 = game.player(1001)
    assert game.corporation("HGK").percent_of(1001) == 70
    assert not game.corporation("HGK").operated
    assert not game.title.must_sell(game, game.round, p1)
    offered = game.legal_actions()
    assert Pass(entity=1001) in offered
    buys = {(a.shares, a.percent) for a in offered if isinstance(a, BuyShares)
            and a.shares[0].startswith("AGV_")}
    assert (("AGV_4",), 10) in buys
    game.process(BuyShares(entity=1001, shares=("AGV_4",), percent=10))
    state = game_state(game)["players"]["1001"]
    assert state["cash"] == 216  # the reference's trace after #355
    assert state["shares"] == {"DE": 20, "RSE": 30, "AGV": 10, "HGK": 70}
    assert game.acting_entities() == [1002]
