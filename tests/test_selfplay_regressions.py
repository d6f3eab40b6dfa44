"""Positions where random self-play once found the engine without a legal action.

The games in ``tests/data/selfplay`` are our own random self-play games (exports written
by ``scripts/selfplay.py``, seeds 105 and 959 of 18Rhl), cut just before the point that
failed.  Each test replays one and checks the rule that was missing, with its values.

* Emergency sale of a 20% certificate (seed 000/001 "Emergency sell", reference fact
  ``ebuy_sell_more_than_needed: false``): a president must sell only enough, i.e. the
  sale less one certificate must fall short; a 20% certificate is sold whole, so selling
  it is legal even when 10% would cover the need.  Before the fix the engine offered no
  action at all: it refused the 20% certificate as "one share less would do".
* A sale's percent matches its certificates (``stock.sell_percent``): a 20% certificate
  is not sold as 10% at half its price.
* The game ends when every player is bankrupt (18Rhl's end check has only the bank):
  no stock round is started with no one to seat.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rhineland import GameError
from rhineland.engine.actions import Bankrupt, BuyTrain, SellShares
from rhineland.engine.emergency import emergency_means, emergency_need
from rhineland.engine.game import Game
from rhineland.io.export import load_export, replay
from rhineland.sim.invariants import check_invariants, total_money

DATA = Path(__file__).parent / "data" / "selfplay"


def position(name: str) -> Game:
    return replay(load_export(DATA / name))


def test_emergency_sale_of_a_whole_20_percent_certificate() -> None:
    """18Rhl seed 105 (5 players), OR 7.2: CCE (284M, no train) must buy the cheapest
    train, a 5-train for 500M; its president P3 has 194M, so 22M are missing.  P3's only
    sellable certificate is KEG_2, a 20% certificate of KEG at 55M: selling it (110M) is
    legal though 10% (55M) would cover 22M, because a certificate is sold whole.  P3's
    other certificates (CME_6, GVE_5, and the president's certificates DEE_0 and CCE_0)
    would take the market beyond its 50%.  CCE's 284M, P3's 194M and KEG_2's 110M make
    588M, enough for the train, so bankruptcy is refused."""
    game = position("18Rhl_seed105_emergency_20pct.json")
    money = total_money(game)
    cce = game.state.round.current_entity(game)
    p3 = game.player(3)
    assert (cce.sym, cce.cash, cce.trains, p3.cash) == ("CCE", 284, [], 194)
    assert emergency_need(game, cce, p3) == 22
    assert emergency_means(game, cce, p3) == 284 + 194 + 110
    keg = game.corporation("KEG")
    keg2 = keg.certificates[2]
    assert (keg2.id, keg2.percent, keg2.owner, keg2.president) == ("KEG_2", 20, 3, False)
    assert (keg.share_price.price, keg.percent_of("market"), keg.president) == (55, 20, 4)
    held = {c.id for corp in game.corporations.values() for c in corp.certs_of(3)}
    assert held == {"CME_6", "DEE_0", "KEG_2", "GVE_5", "CCE_0"}

    sales = {(a.shares, a.percent) for a in game.legal_actions() if isinstance(a, SellShares)}
    assert sales == {(("KEG_2",), 20)}
    # the market holds 70% of CME, 60% of DEE and of GVE, 50% of CCE: none may take more
    for cert, percent in (("CME_6", 10), ("GVE_5", 10), ("DEE_0", 10), ("DEE_0", 20),
                          ("CCE_0", 10), ("CCE_0", 20)):
        with pytest.raises(GameError) as info:
            game.process(SellShares(entity=3, shares=(cert,), percent=percent))
        assert info.value.rule == "stock.market_limit"
    # a 20% certificate is not sold as 10% at half its price; nothing changes
    with pytest.raises(GameError) as info:
        game.process(SellShares(entity=3, shares=("KEG_2",), percent=10))
    assert info.value.rule == "stock.sell_percent"
    assert (p3.cash, keg2.owner) == (194, 3)
    assert not game.is_legal(Bankrupt(entity="CCE", entity_type="corporation"))
    with pytest.raises(GameError) as info:
        game.process(Bankrupt(entity="CCE", entity_type="corporation"))
    assert info.value.rule == "bankrupt.can_pay"

    game.process(SellShares(entity=3, shares=("KEG_2",), percent=20))
    keg = game.corporation("KEG")
    assert (game.player(3).cash, keg.certificates[2].owner) == (194 + 110, "market")
    assert (keg.share_price.price, keg.percent_of("market")) == (50, 40)
    buys = [a for a in game.legal_actions() if isinstance(a, BuyTrain)]
    assert [(a.variant, a.price) for a in buys] == [("5", 500)]
    game.process(buys[0])
    cce = game.corporation("CCE")
    assert [t.name for t in cce.trains] == ["5"]
    assert (cce.cash, game.player(3).cash) == (0, 304 - 216)
    check_invariants(game, money)


def test_game_ends_when_the_last_player_goes_bankrupt() -> None:
    """18Rhl seed 959, OR 10.2: five of six players are bankrupt; KEG (13M) must buy a
    600M 6-train and its president P4 (11M) can raise 24M in all: bankruptcy is the
    only legal action, and after it no player is left, so the game is over."""
    game = position("18Rhl_seed959_last_bankruptcy.json")
    money = total_money(game)
    keg = game.state.round.current_entity(game)
    p4 = game.player(4)
    assert [p.id for p in game.state.players if not p.bankrupt] == [4]
    assert (keg.sym, keg.cash, p4.cash, emergency_means(game, keg, p4)) == ("KEG", 13, 11, 24)
    assert game.legal_actions() == [Bankrupt(entity="KEG", entity_type="corporation")]

    game.process(Bankrupt(entity="KEG", entity_type="corporation"))
    assert game.is_terminal
    assert game.state.game_end_reason == "bankrupt"
    assert game.legal_actions() == []
    assert set(game.result()) == {1, 2, 3, 4, 5, 6}
    check_invariants(game, money)
