"""The 18Rhl opening of seed 000 ("A round, step by step"), driven through the public API.

Four players with 450M each; every number of the worked example is asserted at
its step.  The same game as played in the reference engine is the fixture
``18Rhl_seed_opening.json`` (replayed against its trace in test_oracle_replays).
"""

from __future__ import annotations

import copy

import pytest

from play import play_packet_4p as play_initial_packet
from rhineland import GameError
from rhineland.engine.actions import (
    Bid,
    BuyShares,
    BuyTrain,
    Dividend,
    LayTile,
    Par,
    Pass,
    RunRoutes,
    SellShares,
)
from rhineland.engine.game import Game
from rhineland.io.state_view import game_state
from rhineland.titles import get_title

PLAYERS = [(1, "P1"), (2, "P2"), (3, "P3"), (4, "P4")]


def corp(sym: str) -> dict[str, object]:
    return {"entity": sym, "entity_type": "corporation"}


def new_game() -> Game:
    return Game(get_title("18Rhl"), PLAYERS, seed=1)


def play_sr1(game: Game) -> None:
    p1 = game.player(1)
    adr = game.corporation("ADR")
    game.process(Par(entity=1, corporation="ADR", share_price="80,1,2"))
    # pars ADR at 80M paying 160M
    assert p1.cash == 270
    assert adr.share_price is not None and adr.share_price.price == 80
    for share in ("ADR_1", "ADR_2", "ADR_3"):
        for pid in (2, 3, 4):
            game.process(Pass(entity=pid))
        game.process(BuyShares(entity=1, shares=(share,), percent=10))
    # three 10% shares at 80M: 30M left; ADR floats at 50% sold and receives 5 x 80M
    assert p1.cash == 30
    assert adr.floated and adr.cash == 400
    assert adr.share_price.price == 80  # the bump comes at the end of SR1
    for pid in (2, 3, 4):
        game.process(Pass(entity=pid))
    # P1, with 30M, can neither buy nor sell: passes automatically and SR1 ends


def test_initial_packet_prices() -> None:
    game = new_game()
    game.process(Bid(entity=1, company="PWB", price=20))
    assert game.player(1).cash == 430  # P1 buys the PWB for 20M
    assert game.private("PWB").owner == 1


def test_opening_every_number() -> None:
    game = new_game()
    play_initial_packet(game)
    p1 = game.player(1)
    adr = game.corporation("ADR")
    assert p1.cash == 430
    play_sr1(game)
    # end of SR1: ADR's price moves up a row, 80M -> 90M
    assert adr.share_price is not None and adr.share_price.price == 90
    # OR1: PWB pays 5M
    assert game.state.round is not None and game.state.round.label == "OR 1.1"
    assert p1.cash == 35
    # ADR: home token at Aachen, a yellow town tile (tile 4) on K4
    assert ("K2", 0) in adr.tokens
    game.process(LayTile(**corp("ADR"), hex="K4", tile="4-0", rotation=1))  # type: ignore[arg-type]
    assert game.board.tile_at("K4").tile.name == "4"
    game.process(Pass(**corp("ADR")))  # no token
    # no train: no revenue, the price drops 90M -> 80M
    assert adr.share_price.price == 80
    game.process(BuyTrain(**corp("ADR"), train="2-0", price=100, variant="2"))  # type: ignore[arg-type]
    assert adr.cash == 300
    assert [t.name for t in adr.trains] == ["2"]
    game.process(Pass(**corp("ADR")))
    # RhE: no track, no train
    game.process(Pass(**corp("RhE")))
    game.process(Pass(**corp("RhE")))
    # SR2: P1 has 35M and passes; shares of a company that has not operated cannot be sold
    assert game.state.round.label == "SR 2"
    game.process(Pass(entity=4))
    game.process(Pass(entity=1))
    game.process(Pass(entity=2))
    game.process(Pass(entity=3))
    # OR2: PWB pays 5M again
    assert game.state.round.label == "OR 2.1"
    assert p1.cash == 40
    game.process(Pass(**corp("ADR")))  # no track
    game.process(Pass(**corp("ADR")))  # no token
    route = {
        "train": "2-0",
        "connections": [["K2", "K4"], ["K4", "K6"]],
        "hexes": ["K2", "K4", "K6"],
        "revenue": 50,
        "revenue_str": "K2-K4-K6",
        "nodes": ["K2-0", "K4-0", "K6-0"],
    }
    game.process(RunRoutes(**corp("ADR"), routes=(route,)))  # type: ignore[arg-type]
    # Aachen (20) - town (10) - Düren (20) = 50M
    assert game.round.revenue == 50  # type: ignore[attr-defined]
    game.process(Dividend(**corp("ADR"), kind="payout"))  # type: ignore[arg-type]
    # 5M a share: P1 (50%) gets 25M, ADR 25M for the 50% in its treasury
    assert p1.cash == 65
    assert adr.cash == 325
    assert adr.share_price.price == 80  # 50M < 80M: the price stays
    game.process(BuyTrain(**corp("ADR"), train="2-1", price=100, variant="2"))  # type: ignore[arg-type]
    assert adr.cash == 225
    assert [t.id for t in adr.trains] == ["2-0", "2-1"]


def test_cannot_sell_before_operating() -> None:
    game = new_game()
    play_initial_packet(game)
    game.process(Par(entity=1, corporation="ADR", share_price="80,1,2"))
    for pid in (2, 3, 4):
        game.process(Pass(entity=pid))
    with pytest.raises(GameError, match="before it has operated"):
        game.process(SellShares(entity=1, shares=("ADR_0",), percent=20))


def test_illegal_actions_leave_state_unchanged() -> None:
    game = new_game()
    play_initial_packet(game)
    game.process(Par(entity=1, corporation="ADR", share_price="80,1,2"))
    before = copy.deepcopy(game_state(game))
    log_before = list(game.log)
    # P2 has 300M after NLK: buying 10% of ADR is fine, but not a share of a corporation
    # that has not started, and not more than the player's cash allows
    with pytest.raises(GameError, match="has not been started"):
        game.process(BuyShares(entity=2, shares=("BME_1",), percent=10))
    game.player(2).cash, saved = 5, game.player(2).cash
    with pytest.raises(GameError, match=r"stock\.cash"):
        game.process(BuyShares(entity=2, shares=("ADR_1",), percent=10))
    game.player(2).cash = saved
    with pytest.raises(GameError, match="turn"):
        game.process(BuyShares(entity=3, shares=("ADR_1",), percent=10))
    assert game_state(game) == before
    assert game.log == log_before


def test_illegal_tile_lay_leaves_state_unchanged() -> None:
    game = new_game()
    play_initial_packet(game)
    play_sr1(game)
    before = copy.deepcopy(game_state(game))
    # F5 is not connected to ADR's network (Aachen, K2)
    with pytest.raises(GameError):
        game.process(LayTile(**corp("ADR"), hex="F5", tile="1-0", rotation=0))  # type: ignore[arg-type]
    assert game_state(game) == before


def test_objects_held_by_a_caller_stay_valid_after_an_illegal_action() -> None:
    game = new_game()
    play_initial_packet(game)
    p1 = game.player(1)
    adr = game.corporation("ADR")
    with pytest.raises(GameError):
        game.process(Par(entity=1, corporation="ADR", share_price="85,1,2"))
    game.process(Par(entity=1, corporation="ADR", share_price="80,1,2"))
    assert p1 is game.player(1) and adr is game.corporation("ADR")
    assert p1.cash == 270 and adr.president == 1
