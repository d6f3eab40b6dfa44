"""Phases, rusting, the emergency buy and the end of the game, on the real 18Rhl game.

Positions are reached by replaying ``18Rhl_end_bank.json`` up to an action id;
the values asserted are the game's own (checked against the oracle trace).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rhineland import GameError
from rhineland.engine.actions import BuyTrain, Pass, SellShares
from rhineland.engine.game import Game
from rhineland.io.export import game_from_export, load_export, undo_targets

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
END_BANK = SHARED / "fixtures" / "18Rhl" / "18Rhl_end_bank.json"


def game_before(action_id: int) -> Game:
    """The real 18Rhl game just before the action with this id."""
    if not END_BANK.exists():
        pytest.skip(f"reference games not found at {SHARED}")
    export = load_export(END_BANK)
    game = game_from_export(export)
    targets = undo_targets(export.actions)
    for i, action in enumerate(export.actions):
        if action.id == action_id:
            return game
        game.process(action, atomic=False, history=i in targets)
    raise AssertionError(f"no action {action_id}")


def trains_of(game: Game) -> dict[str, list[str]]:
    return {c.sym: [t.id for t in c.trains] for c in game.corporations.values() if c.floated}


def test_first_3_train_starts_phase_3() -> None:
    game = game_before(114)
    assert game.phase.name == "2" and game.phase.operating_rounds == 1
    cash = game.corporation("RhE").cash
    game.process(BuyTrain(entity="RhE", entity_type="corporation", train="3-0", price=200,
                          variant="3"))
    assert game.phase.name == "3"
    assert game.phase.operating_rounds == 2  # two ORs per set from phase 3
    assert game.corporation("RhE").cash == cash - 200
    assert game.bank.cash == 7595


def test_first_4_train_rusts_every_2_train() -> None:
    game = game_before(224)
    before = trains_of(game)
    assert before["DEE"] == ["2-3", "2-5"] and before["GVE"] == ["2-1", "2-2", "3-1"]
    game.process(BuyTrain(entity="RhE", entity_type="corporation", train="4-0", price=300,
                          variant="4"))
    after = trains_of(game)
    assert game.phase.name == "4"
    assert after["DEE"] == []  # both 2-trains rusted
    assert after["GVE"] == ["3-1"]
    assert after["RhE"] == ["3-0", "4-0"]
    assert not any(t.name == "2" for t in game.depot_trains())


def test_first_6_train_rusts_3_trains_and_first_8_train_rusts_4_trains() -> None:
    game = game_before(323)
    game.process(BuyTrain(entity="DEE", entity_type="corporation", train="6-0", price=600,
                          variant="6"))
    after = trains_of(game)
    assert game.phase.name == "6"
    assert after["GVE"] == ["4-1"] and after["RhE"] == ["4-0"] and after["CCE"] == []
    game = game_before(414)
    game.process(BuyTrain(entity="KEG", entity_type="corporation", train="8-0", price=800,
                          variant="8"))
    after = trains_of(game)
    assert game.phase.name == "8"
    assert after["DEE"] == ["6-0"] and after["GVE"] == ["6-1"] and after["RhE"] == ["6-2"]


def test_emergency_buy_president_sells_then_pays_the_rest() -> None:
    """ADR (230M) must buy the 500M 5-train: its president sells a share (65M, the price
    drops 65M -> 60M) and adds the missing 270M; ADR ends with 0M."""
    game = game_before(259)
    adr = game.corporation("ADR")
    pres = game.player(635)
    assert (adr.cash, pres.cash) == (230, 247)
    with pytest.raises(GameError, match="must buy a train"):
        game.process(Pass(entity="ADR", entity_type="corporation"))
    game.process(SellShares(entity=635, shares=("ADR_1",), percent=10))
    adr = game.corporation("ADR")
    assert game.player(635).cash == 312
    assert adr.share_price is not None and adr.share_price.price == 60
    game.process(BuyTrain(entity="ADR", entity_type="corporation", train="5-0", price=500,
                          variant="5"))
    adr = game.corporation("ADR")
    assert adr.cash == 0 and game.player(635).cash == 42
    assert [t.id for t in adr.trains] == ["5-0"]
    assert game.phase.name == "5"
    assert all(p.closed for p in game.privates.values())  # the first 5-train closes them


def test_emergency_buy_never_from_another_company() -> None:
    """18Rhl rule 13.2: once shares were sold for it, the train comes from the depot."""
    game = game_before(259)
    game.process(SellShares(entity=635, shares=("ADR_1",), percent=10))
    with pytest.raises(GameError, match="only from the depot"):
        game.process(BuyTrain(entity="ADR", entity_type="corporation", train="4-0", price=1))
    assert game.corporation("RhE").trains[-1].id == "4-0"


def test_no_shares_sold_when_cash_suffices() -> None:
    """A president who with the company can pay for the cheapest train may not sell."""
    game = game_before(224)
    with pytest.raises(GameError, match="not obliged to buy a train") as err:
        game.process(SellShares(entity=13627, shares=("RhE_1",), percent=10))
    assert err.value.rule == "train.emergency_sell"


def test_bank_breaks_and_the_set_of_operating_rounds_is_finished() -> None:
    """The bank runs out at action 556 (OR 9.1): the game ends after OR 9.3 with the
    recorded scores."""
    game = game_before(556)
    assert not game.bank.broken
    export = load_export(END_BANK)
    targets = undo_targets(export.actions)
    started = False
    for i, action in enumerate(export.actions):
        if action.id == 556:
            started = True
        if started:
            game.process(action, atomic=False, history=i in targets)
            if action.id == 556:
                assert game.bank.broken and game.bank.cash < 0
                assert game.state.end_trigger == ("bank", "full_or")
                assert not game.finished
                assert game.round.label == "OR 9.1"
    assert game.finished and game.state.game_end_reason == "bank"
    assert game.round.label == "OR 9.3"
    assert {p.id: game.player_value(p) for p in game.players} == {
        579: 9939, 635: 8729, 13627: 9115,
    }


def test_a_bank_paying_out_its_last_mark_is_not_broken_until_it_cannot_pay() -> None:
    """The bank breaks when it cannot pay in full (the reference's ``check_cash``: the
    amount exceeds its cash), not when a payment leaves it at exactly 0M.  Action 556
    (OR 9.1) is BME's payout of 660M from a bank holding 302M (it breaks at -358M).  With
    the bank set (by the test) to exactly 660M it ends at 0M, unbroken and with no game
    end triggered; set to 659M it breaks at -1M and the end is triggered."""
    if not END_BANK.exists():
        pytest.skip(f"reference games not found at {SHARED}")
    payout = next(a for a in load_export(END_BANK).actions if a.id == 556)
    game = game_before(556)
    assert game.bank.cash == 302
    game.process(payout, atomic=False)
    assert game.bank.cash == 302 - 660
    for cash, broken in ((660, False), (659, True)):
        game = game_before(556)
        game.state.bank.cash = cash
        game.process(payout, atomic=False)
        assert game.bank.cash == cash - 660
        assert game.bank.broken is broken
        assert game.state.end_trigger == (("bank", "full_or") if broken else None)
