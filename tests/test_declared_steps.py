"""Rounds as ordered, declared steps (engine/steps.py, rounds/operating_steps.py,
rounds/stock_steps.py, the auction's steps; titles' subclasses), at real positions.

A round processes an action in the step that takes it: the non-blocking steps open the
whole turn, then the current blocking step; an action no step takes is refused with the
round's rule (``or.step``, ``stock.action``, ``auction.action``) and the state is
unchanged.
"""

from __future__ import annotations

import pytest

from reference import ReferenceGames, needs_shared
from rhineland import GameError, new_game
from rhineland.engine.actions import Action, Bankrupt, Par, Pass, PlaceToken, SellCompany
from rhineland.engine.game import Game
from rhineland.engine.rounds.auction import WaterfallAuction
from rhineland.engine.rounds.operating import OperatingRound
from rhineland.engine.rounds.stock import StockRound

RHL = ReferenceGames("18Rhl")
G1893 = ReferenceGames("1893")


def refusal(game: Game, action: Action) -> str:
    before = game.state.log_len, len(game.log)
    with pytest.raises(GameError) as info:
        game.process(action)
    assert (game.state.log_len, len(game.log)) == before
    return info.value.rule


@needs_shared
def test_18rhl_or_turn_is_an_ordered_list_of_steps() -> None:
    """generated2 g403 after #24: RhE's first OR turn, in the track step.  The turn's
    steps: the special token and private lays open all turn, then track, token, route,
    dividend, buy trains; a bankruptcy is no action of the track step."""
    game = RHL.position("generated2/g403", 24)
    rnd = game.state.round
    assert isinstance(rnd, OperatingRound)
    entity = rnd.current_entity(game)
    assert (entity.sym, rnd.label) == ("RhE", "OR 1.1")
    steps = rnd.steps(game, entity)
    assert [s.name for s in steps] == ["special_token", "special_track", "track", "token",
                                       "route", "dividend", "buy_train"]
    assert [s.name for s in steps if not s.blocks] == ["special_token", "special_track"]
    current = rnd.current_step(game, entity)
    assert current is not None and current.name == rnd.step_name(game) == "track"
    assert refusal(game, Bankrupt(entity="RhE", entity_type="corporation")) == "or.step"
    # the special token is no step now: a token in the track step is refused too
    hex_id, ci = entity.tokens[0]
    placed = game.board.tile_at(hex_id)
    city = f"{placed.tile_id}-{placed.tile.cities[ci].part}"
    assert refusal(game, PlaceToken(entity="RhE", entity_type="corporation",
                                    city=city, slot=1)) == "or.step"


@needs_shared
def test_18rhl_receivership_skips_track_token_and_dividend() -> None:
    """generated2 g403 after #521: BME, in receivership since its president's bankruptcy
    (#496), is in its route step: its track and token steps were skipped by 18Rhl's
    step subclasses, and its dividend step will be."""
    game = RHL.position("generated2/g403", 521)
    rnd = game.state.round
    assert isinstance(rnd, OperatingRound)
    bme = rnd.current_entity(game)
    assert (bme.sym, bme.receivership, rnd.step_name(game)) == ("BME", True, "route")
    by_name = {s.name: s for s in rnd.steps(game, bme)}
    rnd.tokened = False
    for name in ("track", "token", "dividend"):
        assert not by_name[name].applicable(game, rnd, bme), name  # type: ignore[attr-defined]


@needs_shared
def test_1893_or_turn_opens_eva_purchase_and_minors_skip_tokens() -> None:
    """1893 g06: the OR turn begins with the non-blocking purchase of EVA from a player;
    a minor's token and dividend steps never apply."""
    export = G1893.export("g06")
    game = G1893.position("g06", export.actions[0].id)
    for action in export.actions[1:]:
        rnd = game.state.round
        if isinstance(rnd, OperatingRound) and rnd.current_entity(game) is not None and (
            rnd.current_entity(game).sym in game.minors
        ):
            break
        game.process(action)
    rnd = game.state.round
    assert isinstance(rnd, OperatingRound)
    minor = rnd.current_entity(game)
    steps = rnd.steps(game, minor)
    assert [s.name for s in steps] == ["buy_company", "track", "token", "route", "dividend",
                                       "buy_train"]
    assert [s.blocks for s in steps] == [False, True, True, True, True, True]
    by_name = {s.name: s for s in steps}
    assert not by_name["token"].applicable(game, rnd, minor)  # type: ignore[attr-defined]
    rnd.revenue = 100
    assert not by_name["dividend"].applicable(game, rnd, minor)  # type: ignore[attr-defined]


def test_stock_round_steps_per_title() -> None:
    """18Rhl's stock round has the one common step; 1893's puts its own before it.  A
    bond sale is no action of an 18Rhl stock round."""
    rhl = new_game("18Rhl", ["A", "B", "C"])
    cologne = new_game("1893", ["A", "B", "C"])
    assert [s.name for s in rhl.title.stock_steps(rhl)] == ["buy_sell_par_shares"]
    assert [s.name for s in cologne.title.stock_steps(cologne)] == [
        "rag_par_payment", "rag_par", "fdsd_exchange", "buy_company", "sell_company",
        "buy_sell_par_shares"]
    rhl.state.round = StockRound(1)
    rhl.state.round.start(rhl)
    assert refusal(rhl, SellCompany(entity=1, company="AdSK-1", price=100)) == "stock.action"


def test_waterfall_auction_steps() -> None:
    """18Rhl's initial packet: the bidding step is active until a bought president's
    certificate owes its par; a par in the bidding is refused."""
    game = new_game("18Rhl", ["A", "B", "C"])
    rnd = game.state.round
    assert isinstance(rnd, WaterfallAuction)
    assert [s.name for s in rnd.steps] == ["company_pending_par", "waterfall_auction"]
    assert rnd.step_name(game) == "waterfall_auction"
    assert refusal(game, Par(entity=1, corporation="RhE", share_price="70,0,4")) == (
        "auction.action")


@needs_shared
def test_discard_step_comes_before_everything() -> None:
    """generated2 g403 after #352: RhE holds 4-0, 4-1 and 3-0 over its limit of 2 after
    the phase change: the round is in the discard step; only RhE's discard is taken (a
    pass is refused), and RhE discards 3-0 as recorded (#353)."""
    game = RHL.position("generated2/g403", 352)
    rnd = game.state.round
    assert isinstance(rnd, OperatingRound)
    assert rnd.step_name(game) == "discard_train"
    assert rnd.pending_discards == ["RhE"]
    rhe = game.corporation("RhE")
    assert [t.id for t in rhe.trains] == ["4-0", "4-1", "3-0"]
    current = rnd.current_entity(game)
    assert refusal(game, Pass(entity=current.sym, entity_type="corporation")) == (
        "train.discard")
    game.process(RHL.action("generated2/g403", 353))
    assert [t.id for t in game.corporation("RhE").trains] == ["4-0", "4-1"]
    assert game.state.round.pending_discards == []  # type: ignore[union-attr]
