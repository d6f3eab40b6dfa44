"""Emergency money in the OR: a president raising cash for a train the company must buy.

Rules (seeds 000/001 "Emergency sell"; reference facts ``ebuy_pres_swap: true``,
``ebuy_sell_more_than_needed: false``, ``ebuy_depot_train_must_be_cheapest: true``,
``market_share_limit: 50``), checked at real positions of reference games:

* only enough: the sale less its smallest certificate must fall short of the cheapest
  train (``train.emergency_sell_excess``); a 20% certificate is sold whole;
* after a sale, a train from another company (1893) costs more than the company and
  its president had before the last share sold (``train.emergency_spend``);
* the operating company's presidency may not pass; another company's may
  (``train.emergency_presidency``);
* nothing is sold once treasury and president's cash cover the cheapest train
  (``train.emergency_sell``; no sale is then even proposed);
* no bankruptcy while the sellable shares cover it (``bankrupt.can_pay``).

``legal_actions()`` lists exactly the sales the rules allow.
"""

from __future__ import annotations

import pytest

from reference import ReferenceGames, needs_shared
from rhineland import GameError
from rhineland.engine.actions import Bankrupt, BuyTrain, SellShares
from rhineland.engine.emergency import emergency_means, emergency_need
from rhineland.engine.game import Game
from rhineland.engine.legal.choices import AmountRange

RHL = ReferenceGames("18Rhl")
G1893 = ReferenceGames("1893")

pytestmark = needs_shared


def sell(pid: int, *shares: str, percent: int) -> SellShares:
    return SellShares(entity=pid, shares=shares, percent=percent)


def refusal(game: Game, action: SellShares | Bankrupt | BuyTrain) -> str:
    with pytest.raises(GameError) as info:
        game.process(action)
    return info.value.rule


def listed_sales(game: Game) -> set[tuple[tuple[str, ...], int]]:
    return {(a.shares, a.percent) for a in game.legal_actions()
            if isinstance(a, SellShares)}


def test_18rhl_must_sell_only_enough() -> None:
    """generated2 g400 before #422: GVE (41M) must buy a train, its president (390M)
    misses 169M.  DEE trades at 70M: 30% (210M) is enough, so 40% is refused; the
    recorded sale of 10% of DEE is legal."""
    game = RHL.position("generated2/g400", 421)
    entity = game.state.round.current_entity(game)
    president = game.player(1001)
    assert (entity.sym, entity.cash, president.cash) == ("GVE", 41, 390)
    assert emergency_need(game, entity, president) == 169
    assert game.corporation("DEE").share_price.price == 70
    too_much = sell(1001, "DEE_0", "DEE_4", "DEE_1", percent=40)
    assert refusal(game, too_much) == "train.emergency_sell_excess"
    assert game.player(1001).cash == 390  # the state is untouched
    assert game.is_legal(sell(1001, "DEE_0", "DEE_4", "DEE_1", percent=30))
    assert game.is_legal(RHL.action("generated2/g400", 422))


def test_18rhl_legal_sales_are_exactly_the_rules() -> None:
    """generated2 g410 before #503: BME (20M) must buy, its president (462M) misses
    118M.  The listed sales: not 30% of ADR at 100M (20% is enough), nothing that
    passes BME's presidency (BME_0 with BME_6), within the 50% market limit; each
    bundle of the shape 18xx.games' interface offers there (its offers: ADR_2, ADR_2 +
    ADR_0 at 20%, BME_5, BME_5 + BME_6, CME_3, KEG_5, KEG_5 + KEG_1; one share of BME
    stands for another)."""
    game = RHL.position("generated2/g410", 502)
    entity = game.state.round.current_entity(game)
    assert (entity.sym, emergency_need(game, entity, game.player(1001))) == ("BME", 118)
    assert listed_sales(game) == {
        (("ADR_2",), 10), (("ADR_2", "ADR_0"), 20),
        (("BME_6",), 10), (("BME_6", "BME_5"), 20),
        (("CME_3",), 10), (("KEG_5",), 10), (("KEG_5", "KEG_1"), 20),
    }
    assert refusal(game, sell(1001, "ADR_0", "ADR_2", percent=30)) == (
        "train.emergency_sell_excess")
    assert refusal(game, sell(1001, "BME_0", "BME_6", percent=30)) == (
        "train.emergency_presidency")
    assert game.is_legal(RHL.action("generated2/g410", 503))  # BME_5 and BME_6: 20%


def test_18rhl_presidency_of_the_operating_company_stays() -> None:
    """generated2 g406 before #434: RhE (0M) must buy; its president may not sell part
    of RhE's president's certificate (the presidency would pass), but may sell GVE's
    (ebuy_pres_swap: another company's presidency may change) as recorded."""
    game = RHL.position("generated2/g406", 433)
    assert game.state.round.current_entity(game).sym == "RhE"
    assert refusal(game, sell(1001, "RhE_0", percent=10)) == "train.emergency_presidency"
    recorded = RHL.action("generated2/g406", 434)
    assert (recorded.shares, recorded.percent) == (("GVE_8", "GVE_0"), 20)
    game.process(recorded)
    assert game.corporation("GVE").president != 1001


def test_1893_presidency_and_other_companies() -> None:
    """1893 g17: before #530 RAG operates and its president may sell 20% of RAG but not
    30% with the president's certificate; before #536 DE operates and the same player
    may sell RAG's president's certificate (40%: all four certificates, 10% of the
    president's coming back in the swap, the bundle 18xx.games' interface offers)."""
    game = G1893.position("g17", 529)
    assert game.state.round.current_entity(game).sym == "RAG"
    assert game.is_legal(sell(1001, "RAG_7", "RAG_6", percent=20))
    assert refusal(game, sell(1001, "RAG_0", "RAG_7", percent=30)) == (
        "train.emergency_presidency")
    game = G1893.position("g17", 535)
    assert game.state.round.current_entity(game).sym == "DE"
    assert (("RAG_7", "RAG_6", "RAG_2", "RAG_0"), 40) in listed_sales(game)


def test_nothing_sold_once_the_train_is_covered() -> None:
    """18Rhl g00: after the president of DEE sells three shares (#213-#215) DEE and
    its president have enough for the cheapest train: no sale is listed or accepted,
    and the president may not go bankrupt."""
    game = RHL.position("g00", 215)
    entity = game.state.round.current_entity(game)
    president = game.player(1001)
    assert entity.sym == "DEE"
    assert emergency_need(game, entity, president) <= 0
    assert listed_sales(game) == set()
    assert refusal(game, sell(1001, "BME_3", percent=10)) == "train.emergency_sell"
    assert refusal(game, Bankrupt(entity="DEE", entity_type="corporation")) == (
        "bankrupt.can_pay")
    # the cash alone decides (98M + 224M): the shares are not looked at
    with pytest.raises(GameError, match=r"DEE's cash and .* cash total 322M, the cheapest "
                                        r"train costs 300M"):
        game.process(Bankrupt(entity="DEE", entity_type="corporation"))


def test_no_bankruptcy_while_shares_cover_the_train() -> None:
    """generated2 g400 before #422: GVE's president's cash and sellable shares cover the
    169M missing, so bankruptcy is refused and not listed."""
    game = RHL.position("generated2/g400", 421)
    entity = game.state.round.current_entity(game)
    assert emergency_means(game, entity, game.player(1001)) >= 41 + 390 + 169
    assert refusal(game, Bankrupt(entity="GVE", entity_type="corporation")) == (
        "bankrupt.can_pay")
    assert not any(isinstance(a, Bankrupt) for a in game.legal_actions())


def test_1893_whole_20_percent_certificate_and_least_spend_after_a_sale() -> None:
    """generated2 g518 before #240: RSE (9M) must buy a train; the cheapest, a 3-train,
    costs 180M and its president has 149M: 22M are missing.  The listed sales are those
    18xx.games' interface offers there: AGV_1 and one share of HGK (10% each), not the
    player's 20% certificate AGV_2 alone (a sale bundle is the smallest certificates
    first; AGV_1 + AGV_2 sells more than is missing).  After selling AGV_1 (10% at 120M) a train
    from another company (``ebuy_from_others: value``) must cost more than RSE and its
    president had before that share: at least 9 + 269 - 120 + 1 = 159M."""
    game = G1893.position("generated2/g518", 239)
    rse = game.state.round.current_entity(game)
    assert (rse.sym, rse.cash, game.player(1001).cash) == ("RSE", 9, 149)
    assert emergency_need(game, rse, game.player(1001)) == 22
    assert game.corporation("AGV").certificates[2].percent == 20
    assert listed_sales(game) == {(("AGV_1",), 10), (("HGK_3",), 10)}

    game.process(sell(1001, "AGV_1", percent=10))
    assert game.player(1001).cash == 269
    other = BuyTrain(entity="RSE", entity_type="corporation", train="4-1", price=158)
    assert game.train("4-1").owner == "AGV"
    assert refusal(game, other) == "train.emergency_spend"
    spans = {a.action.train: (a.min, a.max) for a in game.legal_actions()
             if isinstance(a, AmountRange) and isinstance(a.action, BuyTrain)}
    # up to face value (3-train 180M) or what RSE and its president have (278M)
    assert spans == {"3-2": (159, 180), "3-0": (159, 180), "4-1": (159, 278),
                     "4-3": (159, 278), "5-0": (159, 278)}
    assert game.is_legal(BuyTrain(entity="RSE", entity_type="corporation", train="4-1",
                                  price=159))
