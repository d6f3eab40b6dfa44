"""Positions where random self-play once found the engine without a legal action.

The games in ``tests/data/selfplay`` are our own random self-play games (exports written
by ``scripts/selfplay.py``, seeds 378 and 959 of 18Rhl), cut just before the point that
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
    """18Rhl seed 378, OR 14.1: CCE (263M, no train) must buy the cheapest train, a
    5-train for 500M; its president P2 has 231M, so 6M are missing.  P2's only
    sellable certificate is KEG_2, a 20% certificate of KEG at 75M: selling it (150M)
    is legal though 10% would cover 6M, because a certificate is sold whole.  P2 could
    raise 300M from KEG (KEG_2 and the president's certificate KEG_0: P3 holds 20% and
    would take the presidency), so bankruptcy is refused."""
    game = position("18Rhl_seed378_emergency_20pct.json")
    money = total_money(game)
    cce = game.state.round.current_entity(game)
    p2 = game.player(2)
    assert (cce.sym, cce.cash, cce.trains, p2.cash) == ("CCE", 263, [], 231)
    assert emergency_need(game, cce, p2) == 6
    assert emergency_means(game, cce, p2) == 263 + 231 + 300
    keg2 = game.corporation("KEG").certificates[2]
    assert (keg2.id, keg2.percent, keg2.owner, keg2.president) == ("KEG_2", 20, 2, False)
    assert game.corporation("KEG").share_price.price == 75

    sales = {(a.shares, a.percent) for a in game.legal_actions() if isinstance(a, SellShares)}
    assert sales == {(("KEG_2",), 20)}
    # selling the president's certificate with it is more than needed: 20% would do
    with pytest.raises(GameError) as info:
        game.process(SellShares(entity=2, shares=("KEG_0", "KEG_2"), percent=30))
    assert info.value.rule == "train.emergency_sell_excess"
    # a 20% certificate is not sold as 10% at half its price; nothing changes
    with pytest.raises(GameError) as info:
        game.process(SellShares(entity=2, shares=("KEG_2",), percent=10))
    assert info.value.rule == "stock.sell_percent"
    assert (p2.cash, keg2.owner) == (231, 2)
    assert not game.is_legal(Bankrupt(entity="CCE", entity_type="corporation"))

    game.process(SellShares(entity=2, shares=("KEG_2",), percent=20))
    assert (game.player(2).cash, game.corporation("KEG").certificates[2].owner) == (
        381, "market")
    buys = [a for a in game.legal_actions() if isinstance(a, BuyTrain)]
    assert [(a.variant, a.price) for a in buys] == [("5", 500)]
    game.process(buys[0])
    cce = game.corporation("CCE")
    assert [t.name for t in cce.trains] == ["5"]
    assert (cce.cash, game.player(2).cash) == (0, 381 - 237)
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
