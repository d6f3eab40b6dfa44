"""Rules audit, round 4 (issue 9): when a president may declare bankruptcy.

The reference engine lists its bankruptcy step first among the operating round's steps
and never blocking, and the step answers ``bankrupt`` for the operating company at any
point of its turn; the action is accepted whenever the treasury, the president's cash
and what they could sell fall short of the cheapest depot train.  The reference
interface offers the button only in the buy-trains panel, with the president's
emergency money, for a train the company must buy.  The reference games settle which
of the two the held-back games follow: at 5,230 operating-round positions of the games
in ``../shared`` (3,564 in 18Rhl, 1,666 in 1893, every batch) the money falls short
before the buy-train step or for a company not obliged to buy, and no player went
bankrupt at any of them (``docs/rules-differences.md`` (p)).
rhineland offers and accepts ``bankrupt`` only in the buy-train step of a company that
must buy a train it cannot pay; these tests pin that with real positions.
"""

from __future__ import annotations

import pytest

from reference import ReferenceGames, needs_shared
from rhineland import GameError
from rhineland.engine.actions import Bankrupt, LayTile
from rhineland.engine.emergency import cheapest_train_price, emergency_means
from rhineland.engine.game import Game

RHL = ReferenceGames("18Rhl")
COLOGNE = ReferenceGames("1893")


def means_and_price(game: Game, sym: str) -> tuple[int, int | None]:
    """(treasury + president's cash + sellable shares, cheapest depot train) in M."""
    entity = game.title.operator(game, sym)
    president = game.player(game.entity_owner_ids(entity)[0])
    return emergency_means(game, entity, president), cheapest_train_price(game)


def bankrupt_offered(game: Game) -> bool:
    return any(isinstance(a, Bankrupt) for a in game.legal_actions())


@needs_shared
def test_no_bankruptcy_in_the_track_step_though_the_money_falls_short() -> None:
    """generated2 g403, OR 5.2: BME (188M, no train) is in its track step; with its
    president's 55M and the shares they may sell it has 243M, short of the 300M 4-train,
    so the reference engine would accept ``bankrupt`` (it checks only the money).  Its
    random player, who took what the interface offered, laid a tile (#216); the company
    goes bankrupt only later, in the buy-train step, if at all.  rhineland neither lists
    nor accepts it here (``or.step``)."""
    game = RHL.position("generated2/g403", 215)
    rnd = game.round
    assert (rnd.label, rnd.step_name(game)) == ("OR 5.2", "track")
    assert means_and_price(game, "BME") == (243, 300)
    assert not bankrupt_offered(game)
    with pytest.raises(GameError) as info:
        game.copy().process(Bankrupt(entity="BME", entity_type="corporation"))
    assert info.value.rule == "or.step"
    recorded = RHL.action("generated2/g403", 216)
    assert isinstance(recorded, LayTile) and game.is_legal(recorded)


@needs_shared
def test_no_bankruptcy_for_a_company_with_trains_in_the_buy_train_step() -> None:
    """generated g00, OR 9.1: GVE (25M, trains 2, 2, 3) is in its buy-train step; its
    president has 25M and 120M in all, short of the 200M 3-train.  It need not buy, so
    no bankruptcy (``bankrupt.not_needed``); its random player passed (#128).  Nor may
    the president sell shares for a train: the reference engine's emergency-money step
    would take 1002's GVE_3 here (its only test is "only enough" against the cheapest
    train: 70 + 25 + 25 < 200 + 70), but its interface shows the sales only for a train
    the company must buy, and no reference game has such a sale
    (``train.emergency_sell``)."""
    from rhineland.engine.actions import SellShares

    game = RHL.position("g00", 127)
    assert (game.round.label, game.round.step_name(game)) == ("OR 9.1", "buy_train")
    assert means_and_price(game, "GVE") == (120, 200)
    assert not bankrupt_offered(game)
    with pytest.raises(GameError) as info:
        game.copy().process(Bankrupt(entity="GVE", entity_type="corporation"))
    assert info.value.rule == "bankrupt.not_needed"
    assert not any(isinstance(a, SellShares) for a in game.legal_actions())
    with pytest.raises(GameError) as info:
        game.copy().process(SellShares(entity=1002, shares=("GVE_3",), percent=10))
    assert info.value.rule == "train.emergency_sell"


@needs_shared
def test_bankruptcy_is_offered_for_a_train_the_company_must_buy_and_cannot_pay() -> None:
    """generated g00, OR 11.2: DEE (60M, no train) must buy the 500M 5-train; its
    president's means are 372M.  ``bankrupt`` is listed (beside the emergency sales) and
    accepted, as the reference interface offers it."""
    game = RHL.position("g00", 237)
    assert (game.round.label, game.round.step_name(game)) == ("OR 11.2", "buy_train")
    assert means_and_price(game, "DEE") == (372, 500)
    assert bankrupt_offered(game)
    copy = game.copy()
    copy.process(Bankrupt(entity="DEE", entity_type="corporation"))
    assert copy.player(1001).bankrupt


@needs_shared
def test_1893_no_bankruptcy_in_a_minors_track_step() -> None:
    """1893 end_bank, OR 1.2: minor KSZ (20M, a 2-train) in its track step; its owner's
    20M make 40M, short of the 80M 2-train: still no bankruptcy (the game would end),
    the minor lays its tile (#39)."""
    game = COLOGNE.position("end_bank", 38)
    assert (game.round.label, game.round.step_name(game)) == ("OR 1.2", "track")
    assert means_and_price(game, "KSZ") == (40, 80)
    assert not bankrupt_offered(game)
    with pytest.raises(GameError) as info:
        game.copy().process(Bankrupt(entity="KSZ", entity_type="minor"))
    assert info.value.rule == "or.step"
    assert game.is_legal(COLOGNE.action("end_bank", 39))


@needs_shared
def test_1893_eva_waits_while_companies_discard_trains() -> None:
    """1893 (the reference's discard step comes before its company-purchase step and
    blocks): generated2 g512, OR 7.1, KFBE trades in for the first 5-train (#214) and
    KBE, RSE and KFBE are over the limit; they discard (#215-#217) before KBE's turn.
    KBE's president 1002 may buy EVA from its owner 1001 in that turn, but not while
    the discards are pending (``train.discard``)."""
    from rhineland.engine.actions import BuyCompany, DiscardTrain

    name = "generated2/g512"
    game = COLOGNE.position(name, 214)
    assert game.round.step_name(game) == "discard_train"
    assert game.private("EVA").owner == 1001
    assert {type(a) for a in game.legal_actions()} == {DiscardTrain}
    eva = BuyCompany(entity="KBE", entity_type="minor", company="EVA", price=1)
    with pytest.raises(GameError) as info:
        game.copy().process(eva)
    assert info.value.rule == "train.discard"
    for action_id in (215, 216, 217):
        game.process(COLOGNE.action(name, action_id))
    assert (game.round.label, game.round.step_name(game)) == ("OR 7.1", "track")
    assert game.is_legal(eva)


@needs_shared
def test_1893_forced_auction_selection_has_no_pass() -> None:
    """1893 forced auction (the reference step answers only ``bid`` until an item is
    selected): generated g16, Draft 2 after #6; the player in turn must select EKB or
    KFBE (the two lowest-numbered minors left); a pass is refused (``draft.select``)."""
    from rhineland.engine.actions import Bid, Pass

    game = COLOGNE.position("g16", 6)
    assert game.round.label == "Draft 2"
    offers = game.legal_actions()
    assert all(isinstance(a, Bid) for a in offers)
    assert sorted((a.company, a.price) for a in offers if isinstance(a, Bid)) == [
        ("EKB", 210), ("KFBE", 200)]
    with pytest.raises(GameError) as info:
        game.copy().process(Pass(entity=1002))
    assert info.value.rule == "draft.select"


@needs_shared
def test_18rhl_rhe_link_is_checked_when_a_turn_skips_its_track_step(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """18Rhl RhE bonus (private No. 6): the reference engine's link check is a step of
    its own after the track step, and it runs also when the company lays no track (in
    receivership, or with a negative treasury): generated g00 #243 (DEE's president
    goes bankrupt, and ADR, which he also presided, starts its turn in receivership)
    carries the link check for ADR's turn.  So a link made by a private's lay after an
    earlier track step is paid at such a turn's start, not at the next track step's end.
    The map in g00 has no Düren tile, so the link itself is stubbed here: with it, RhE
    (0M) receives its 225M (3 x 75M) as ADR's turn starts at the route step; rhineland
    checked only at the end of a track step actually entered (RhE still at 0M)."""
    import dataclasses

    import rhineland.titles.g18rhl.rhe_link as rhe_link
    from rhineland.titles.g18rhl.state import rhl_state

    game = RHL.position("g00", 242)
    rhe, adr = game.corporation("RhE"), game.corporation("ADR")
    assert rhe.cash == 0 and rhl_state(game).rhe_link_bonus == 225
    recorded = RHL.action("g00", 243)
    assert [(a.type, a.entity) for a in recorded.auto_actions] == [
        ("destination_connection", "ADR")]
    monkeypatch.setattr(rhe_link, "rhe_link_established", lambda game: True)
    game.process(dataclasses.replace(recorded, auto_actions=()))
    assert adr.receivership
    assert (game.round.label, game.round.current_entity(game).sym,
            game.round.step_name(game)) == ("OR 11.2", "ADR", "route")
    assert rhe.cash == 225 and rhl_state(game).rhe_link_bonus == 0
