"""The ``seed`` rule set of 18Rhl (:mod:`rhineland.titles.g18rhl.rule_sets`): the rules
seed 000 (English) and 004 (Italian) state where the reference engine plays otherwise,
each with the seed's numbers, beside the same position under ``reference``
(docs/rules-differences.md, "The seed rule set")."""

from __future__ import annotations

import orjson
import pytest
from click.testing import CliRunner

from play import co, label, play_packet_4p
from rhineland import GameError, new_game, replay
from rhineland.cli.main import cli
from rhineland.engine.actions import BuyShares, BuyTrain, Par, Pass
from rhineland.engine.game import Game
from rhineland.errors import ExportError
from rhineland.io.export import load_export, parse_export, to_export

NAMES = ["P1", "P2", "P3", "P4"]


def game_4p(rules: str) -> Game:
    return new_game("18Rhl", NAMES, seed=1, rules=rules)


# -- the rule set as a setting -----------------------------------------------------------

def test_rule_set_defaults_to_reference_and_unknown_ones_are_refused() -> None:
    assert game_4p("reference").title.rules == "reference"
    assert new_game("18Rhl", NAMES).title.rules == "reference"
    assert new_game("1893", ["A", "B"], rules="seed").title.rules == "seed"
    with pytest.raises(GameError) as err:
        new_game("18Rhl", NAMES, rules="printed")
    assert err.value.rule == "setup.rules"


def test_export_names_the_seed_rule_set_and_loads_it_back(tmp_path: object) -> None:
    game = game_4p("seed")
    play_packet_4p(game)
    data = to_export(game)
    assert data["settings"]["rhineland_rules"] == "seed"
    again = replay(parse_export(orjson.loads(orjson.dumps(data))))
    assert again.title.rules == "seed"
    assert {p.id: p.cash for p in again.players} == {p.id: p.cash for p in game.players}
    ref = game_4p("reference")
    play_packet_4p(ref)
    assert "rhineland_rules" not in to_export(ref)["settings"]  # as 18xx.games writes it
    assert parse_export(to_export(ref)).rules == "reference"


def test_export_with_an_unknown_rule_set_is_a_one_line_error() -> None:
    data = to_export(game_4p("seed"))
    data["settings"]["rhineland_rules"] = "printed"
    with pytest.raises(ExportError, match=r"settings\.rhineland_rules: expected a rule set"):
        parse_export(data)


def test_simulate_and_play_take_rules_seed(tmp_path: object) -> None:
    from pathlib import Path

    out = Path(str(tmp_path)) / "games"
    res = CliRunner().invoke(cli, ["simulate", "1893", "--games", "1", "--players", "2",
                                   "--rules", "seed", "--seed", "3", "--out", str(out)])
    assert res.exit_code == 0, res.output
    export = load_export(out / "1893-3.json")
    assert export.rules == "seed"
    assert replay(export).is_terminal
    # replay names the rule set played (nothing for the reference's)
    res = CliRunner().invoke(cli, ["replay", str(out / "1893-3.json")])
    assert res.exit_code == 0, res.output
    assert res.output.startswith("1893, seed rules: ")
    res = CliRunner().invoke(cli, ["replay", str(out / "1893-3.json"), "--json"])
    assert orjson.loads(res.output)["rules"] == "seed"
    res = CliRunner().invoke(cli, ["play", "18Rhl", "--players", "A,B,C", "--rules", "x"])
    assert res.exit_code != 0 and "--rules" in res.output
    res = CliRunner().invoke(cli, ["play", "-h"])
    assert "--rules" in res.output and "seed" in res.output


# -- (f) floating at the end of the stock round ----------------------------------------

def _sr1_adr(game: Game) -> None:
    """Seed 000's SR 1 after the packet: P1 pars ADR at 80M, buys three 10% shares."""
    game.process(Par(entity=1, corporation="ADR", share_price="80,1,2"))
    for share in ("ADR_1", "ADR_2", "ADR_3"):
        for pid in (2, 3, 4):
            game.process(Pass(entity=pid))
        game.process(BuyShares(entity=1, shares=(share,), percent=10))


@pytest.mark.parametrize("rules", ["reference", "seed"])
def test_adr_floats_with_400_at_the_end_of_sr1_in_the_seed(rules: str) -> None:
    game = game_4p(rules)
    play_packet_4p(game)
    bank = game.bank.cash
    _sr1_adr(game)
    adr = game.corporation("ADR")
    assert game.player(1).cash == 30
    if rules == "seed":
        # "Until the company floats, the money goes to the bank": 160 + 3 x 80 = 400M
        assert not adr.floated and adr.cash == 0
        assert game.bank.cash == bank + 400
    else:
        assert adr.floated and adr.cash == 400  # at the purchase reaching 50%
    for pid in (2, 3, 4):
        game.process(Pass(entity=pid))
    # "At the end of the round, the [ADR] has 50% sold and floats. The bank pays it the
    # par price of the 5 shares sold: 400M. The share price also moves up a row"
    assert label(game) == "OR 1.1"
    assert adr.floated and adr.cash == 400
    assert adr.share_price is not None and adr.share_price.price == 90


def test_seed_float_pays_par_times_every_share_sold_in_the_round() -> None:
    """Seed: "Before phase 5: on floating, par × shares sold" — 60% sold by the end of
    the round gives 6 × 80M (the reference: 5 × par at 50%, the 6th share paid to ADR)."""
    results = {}
    for rules in ("reference", "seed"):
        game = game_4p(rules)
        play_packet_4p(game)
        _sr1_adr(game)
        game.process(BuyShares(entity=2, shares=("ADR_4",), percent=10))
        for pid in (3, 4, 1, 2, 3, 4):
            if label(game) == "SR 1" and game.round.acting_player_ids(game) == [pid]:
                game.process(Pass(entity=pid))
        assert label(game) == "OR 1.1"
        results[rules] = game.corporation("ADR").cash
    assert results == {"reference": 480, "seed": 480}


# -- (c) GVE with NLK: 40% sold, par × shares sold ------------------------------------

def _gve(game: Game, shares: tuple[str, ...]) -> None:
    """After the packet (P2 holds NLK and its free GVE_1), P1 passes and P2 pars
    GVE at 70M and buys ``shares``; everyone else passes until the round ends."""
    game.process(Pass(entity=1))  # P1 (430M) leads SR 1
    game.process(Par(entity=2, corporation="GVE", share_price="70,2,1"))
    for share in shares:
        game.process(Pass(entity=3))
        game.process(Pass(entity=4))
        game.process(Pass(entity=1))
        game.process(BuyShares(entity=2, shares=(share,), percent=10))
    while label(game) == "SR 1":
        game.process(Pass(entity=game.round.acting_player_ids(game)[0]))


@pytest.mark.parametrize(("rules", "cash"), [("reference", 350), ("seed", 280)])
def test_gve_with_nlk_floats_with_40_percent_sold(rules: str, cash: int) -> None:
    """Seed: NLK — "the GVE also floats with only 40% sold"; "on floating, par × shares
    sold": P2's 20% + 2 × 10% sold (NLK's free 10% is not sold) float GVE at the end of
    SR 1 with 4 × 70 = 280M; the reference pays 5 × 70 = 350M (NLK's 10% counted)."""
    game = game_4p(rules)
    play_packet_4p(game)
    _gve(game, ("GVE_2", "GVE_3"))
    gve = game.corporation("GVE")
    assert gve.percent_of(2) == 50
    assert gve.floated and gve.cash == cash
    assert game.player(2).cash == 300 - 140 - 70 - 70 + 25  # NLK's income in OR 1.1


@pytest.mark.parametrize("rules", ["reference", "seed"])
def test_gve_with_30_percent_sold_and_nlk_does_not_float(rules: str) -> None:
    game = game_4p(rules)
    play_packet_4p(game)
    _gve(game, ("GVE_2",))
    gve = game.corporation("GVE")
    assert gve.percent_of(2) == 40
    assert not gve.floated and gve.cash == 0


# -- (b) trains between companies from phase 3 -----------------------------------------

def _or1_to_or2_adr_paid(game: Game) -> None:
    """From OR 1.1 of seed 000's opening to ADR's payout in OR 2.1: ADR lays K4 and buys
    a 2-train, SR 2 all pass, ADR runs K2-K4-K6 for 50M and pays out."""
    from rhineland.engine.actions import Dividend, LayTile, RunRoutes

    game.process(LayTile(**co("ADR"), hex="K4", tile="4-0", rotation=1))
    game.process(Pass(**co("ADR")))
    game.process(BuyTrain(**co("ADR"), train="2-0", price=100, variant="2"))
    game.process(Pass(**co("ADR")))
    game.process(Pass(**co("RhE")))
    game.process(Pass(**co("RhE")))
    for pid in (4, 1, 2, 3):
        game.process(Pass(entity=pid))
    game.process(Pass(**co("ADR")))
    game.process(Pass(**co("ADR")))
    route = {"train": "2-0", "connections": [["K2", "K4"], ["K4", "K6"]],
             "hexes": ["K2", "K4", "K6"], "revenue": 50, "revenue_str": "K2-K4-K6",
             "nodes": ["K2-0", "K4-0", "K6-0"]}
    game.process(RunRoutes(**co("ADR"), routes=(route,)))
    game.process(Dividend(**co("ADR"), kind="payout"))


def _to_or2_rhe_buys(game: Game) -> None:
    """Seed 000's opening to OR 2.1, RhE's buy-train step (ADR holds 2-0 and 2-1)."""
    play_packet_4p(game)
    _sr1_adr(game)
    for pid in (2, 3, 4):
        game.process(Pass(entity=pid))

    _or1_to_or2_adr_paid(game)
    game.process(BuyTrain(**co("ADR"), train="2-1", price=100, variant="2"))
    game.process(Pass(**co("ADR")))
    game.process(Pass(**co("RhE")))  # no track
    assert game.round.step_name(game) == "buy_train"
    assert game.round.current_entity(game).sym == "RhE"  # type: ignore[attr-defined]


def test_trains_change_hands_between_companies_only_from_phase_3_in_the_seed() -> None:
    """Seed phase table: "1st 3-train · Two operating rounds; trains between companies".
    In phase 2 RhE may buy ADR's 2-train for 60M under the reference, not the seed."""
    buy = BuyTrain(**co("RhE"), train="2-1", price=60, variant="2")
    ref = game_4p("reference")
    _to_or2_rhe_buys(ref)
    ref.process(buy)
    assert ref.train("2-1").owner == "RhE" and ref.corporation("ADR").cash == 285
    seed = game_4p("seed")
    _to_or2_rhe_buys(seed)
    assert not seed.is_legal(buy)
    with pytest.raises(GameError) as err:
        seed.process(buy)
    assert err.value.rule == "train.from_other"
    assert seed.train("2-1").owner == "ADR"
    seed.state.phase = [p.name for p in seed.data.phases].index("3")  # as after a 3-train
    seed.process(buy)
    assert seed.train("2-1").owner == "RhE" and seed.corporation("RhE").cash == 80


# -- (a) the forced train purchase: company shares, president's cash, loan -------------

def _or2_adr_trainless(rules: str) -> Game:
    """Seed 000's opening to OR 2.1 after ADR's payout (P1 65M, ADR 325M, price 80M);
    then, as after a rust, ADR's only train leaves it: ADR must buy the cheapest train
    (a 2-train, 100M) and its treasury is set to ``25M``."""

    game = game_4p(rules)
    play_packet_4p(game)
    _sr1_adr(game)
    for pid in (2, 3, 4):
        game.process(Pass(entity=pid))
    _or1_to_or2_adr_paid(game)
    adr = game.corporation("ADR")
    assert game.player(1).cash == 65 and adr.cash == 325 and game.round.step_name(game) == (
        "buy_train")
    train = game.train("2-0")
    adr.trains.remove(train)
    train.owner, train.rusted = None, True
    adr.cash = 25
    game.bank.cash += 300  # the money stays counted
    assert game.title.must_buy_train(game, adr)
    return game


def test_seed_company_sells_its_own_treasury_shares_before_the_president_pays() -> None:
    """Seed: "company shares are sold first, then the director's private cash
    contributes" / "the company must first sell its own stock certificates to the pool".
    ADR (25M) must buy a 100M 2-train: P1 may not top it up while ADR's IPO holds 50%;
    ADR sells 10% at 80M (105M), its price drops a row, and buys the train (5M left)."""
    game = _or2_adr_trainless("seed")
    adr, p1 = game.corporation("ADR"), game.player(1)
    buy = BuyTrain(**co("ADR"), train="2-1", price=100, variant="2")
    with pytest.raises(GameError) as err:
        game.process(buy)
    assert err.value.rule == "train.company_sells_first"
    assert p1.cash == 65 and adr.cash == 25
    # only enough: two shares (160M) when one (80M) covers the 75M missing
    from rhineland.engine.actions import SellShares

    with pytest.raises(GameError) as err:
        game.process(SellShares(**co("ADR"), shares=("ADR_4", "ADR_5"), percent=20))
    assert err.value.rule == "train.company_sale_excess"
    bank = game.bank.cash
    game.process(SellShares(**co("ADR"), shares=("ADR_4",), percent=10))
    assert adr.cash == 105 and game.bank.cash == bank - 80
    assert adr.percent_of("market") == 10 and adr.percent_of("ipo") == 40
    assert adr.share_price is not None and adr.share_price.price == 75  # one row down
    game.process(buy)
    assert adr.cash == 5 and p1.cash == 65 and [t.id for t in adr.trains] == ["2-1"]


def test_reference_president_tops_up_without_a_company_sale() -> None:
    """The reference: no company sale exists; with ADR at 40M P1 adds the 60M missing
    at once (the seed would have ADR sell 10% first)."""
    game = _or2_adr_trainless("reference")
    game.corporation("ADR").cash = 40
    game.bank.cash -= 15
    game.process(BuyTrain(**co("ADR"), train="2-1", price=100, variant="2"))
    assert game.corporation("ADR").cash == 0 and game.player(1).cash == 5
    assert game.corporation("ADR").percent_of("ipo") == 50


def test_seed_bank_loan_is_deducted_doubled_from_the_final_value() -> None:
    """Seed: "only as a last resort personal shares are sold or a bank loan is taken
    (deducted doubled from final wealth)".  ADR's 50% of treasury shares already lie in
    the market (the pool is full), ADR has 20M, P1 65M and nothing to sell: the
    president borrows the 15M missing for the 100M train; P1's value drops by 30M."""
    from rhineland.engine.actions import Bankrupt, TakeLoan

    game = _or2_adr_trainless("seed")
    adr, p1 = game.corporation("ADR"), game.player(1)
    for cert in adr.certificates:
        if cert.owner == "ipo":
            cert.owner = "market"
    adr.cash = 20
    game.bank.cash += 5
    value_before = game.player_value(p1)
    with pytest.raises(GameError) as err:
        game.process(Bankrupt(**co("ADR")))
    assert err.value.rule == "bankrupt.loan"
    with pytest.raises(GameError) as err:
        game.process(TakeLoan(entity=1, amount=20))
    assert err.value.rule == "loan.amount"
    legal = [a for a in game.legal_actions() if isinstance(a, TakeLoan)]
    assert legal == [TakeLoan(entity=1, amount=15)]
    bank = game.bank.cash
    game.process(TakeLoan(entity=1, amount=15))
    assert p1.cash == 80 and game.bank.cash == bank - 15
    game.process(BuyTrain(**co("ADR"), train="2-1", price=100, variant="2"))
    assert p1.cash == 0 and adr.cash == 0
    # cash 80 - 80 paid; the loan counts twice: 0 + 50% x 80M - 2 x 15M = 10M
    assert game.player_value(p1) == 0 + 5 * 80 - 2 * 15
    assert game.player_values()[1] == 0 + 5 * 80 - 2 * 15  # the one-pass values too
    assert value_before == 65 + 5 * 80
    data = orjson.loads(orjson.dumps(to_export(game)))
    assert {"type": "take_loan", "entity": 1, "amount": 15}.items() <= next(
        a for a in data["actions"] if a["type"] == "take_loan").items()


def test_reference_has_no_loan() -> None:
    from rhineland.engine.actions import TakeLoan

    game = _or2_adr_trainless("reference")
    with pytest.raises(GameError) as err:
        game.process(TakeLoan(entity=1, amount=75))
    assert err.value.rule == "or.step"


# -- the worked opening (seed 000, "A round, step by step") under both rule sets -------

def _card(game: Game) -> tuple[int, int | None, int | None, list[str]]:
    """The seed's four figures: P1 cash, ADR treasury ("—": None before it floats), ADR
    share price ("—": None before its par), ADR trains."""
    adr = game.corporation("ADR")
    treasury = adr.cash if adr.floated else None
    price = adr.share_price.price if adr.share_price is not None else None
    return game.player(1).cash, treasury, price, [t.name for t in adr.trains]


@pytest.mark.parametrize("rules", ["reference", "seed"])
def test_seed_opening_every_number(rules: str) -> None:
    """Every figure the seed prints at each of its 15 steps.  Only one differs under the
    reference, where the seed's own rule (float at the end of the round) is not the
    reference's: after the three buys ("Up to 50%") the seed shows ADR's treasury as
    "—", the reference has floated ADR with 400M already (docs/rules-differences.md
    (f))."""
    from rhineland.engine.actions import Dividend, LayTile, RunRoutes

    game = game_4p(rules)
    assert _card(game) == (450, None, None, [])  # 1. before starting
    play_packet_4p(game)
    assert _card(game) == (430, None, None, [])  # 2. P1 buys the PWB for 20M
    game.process(Par(entity=1, corporation="ADR", share_price="80,1,2"))
    assert _card(game) == (270, None, 80, [])  # 3. ADR's director's certificate, 160M
    for share in ("ADR_1", "ADR_2", "ADR_3"):
        for pid in (2, 3, 4):
            game.process(Pass(entity=pid))
        game.process(BuyShares(entity=1, shares=(share,), percent=10))
    up_to_50 = (30, None, 80, []) if rules == "seed" else (30, 400, 80, [])
    assert _card(game) == up_to_50  # 4. up to 50%: "the money goes to the bank"
    for pid in (2, 3, 4):
        game.process(Pass(entity=pid))
    assert label(game) == "OR 1.1"
    # 5. floats at the end of the round: 400M, 80 -> 90M; 6. PWB pays 5M
    assert _card(game) == (35, 400, 90, [])
    game.process(LayTile(**co("ADR"), hex="K4", tile="4-0", rotation=1))
    assert _card(game) == (35, 400, 90, [])  # 7. towards Düren
    game.process(Pass(**co("ADR")))
    assert _card(game) == (35, 400, 80, [])  # 8. no train: the price drops 90 -> 80M
    game.process(BuyTrain(**co("ADR"), train="2-0", price=100, variant="2"))
    assert _card(game) == (35, 300, 80, ["2"])  # 9. a 2-train for 100M
    game.process(Pass(**co("ADR")))
    game.process(Pass(**co("RhE")))
    game.process(Pass(**co("RhE")))
    assert label(game) == "SR 2"
    game.process(Pass(entity=4))
    with pytest.raises(GameError):  # shares of a company that has not operated
        game.process(BuyShares(entity=1, shares=("ADR_4",), percent=10))  # 35M < 80M
    game.process(Pass(entity=1))  # 10. with 35M P1 passes
    assert _card(game) == (35, 300, 80, ["2"])
    game.process(Pass(entity=2))
    game.process(Pass(entity=3))
    assert label(game) == "OR 2.1"
    assert _card(game) == (40, 300, 80, ["2"])  # 11. the PWB pays 5M again
    game.process(Pass(**co("ADR")))
    game.process(Pass(**co("ADR")))
    route = {"train": "2-0", "connections": [["K2", "K4"], ["K4", "K6"]],
             "hexes": ["K2", "K4", "K6"], "revenue": 50, "revenue_str": "K2-K4-K6",
             "nodes": ["K2-0", "K4-0", "K6-0"]}
    game.process(RunRoutes(**co("ADR"), routes=(route,)))
    assert game.round.revenue == 50  # type: ignore[attr-defined]  # 20 + 10 + 20
    game.process(Dividend(**co("ADR"), kind="payout"))
    assert _card(game) == (65, 325, 80, ["2"])  # 12./13. 5M a share; 50 < 80: stays
    game.process(BuyTrain(**co("ADR"), train="2-1", price=100, variant="2"))
    assert _card(game) == (65, 225, 80, ["2", "2"])  # 14. a second 2-train


def test_seed_opening_fixture_replays_under_the_seed_rules() -> None:
    """The reference game of the opening (``18Rhl_seed_opening.json``) read with
    ``rhineland_rules: seed`` replays to the seed's last figures."""
    from reference import SHARED

    path = SHARED / "fixtures" / "18Rhl" / "18Rhl_seed_opening.json"
    data = orjson.loads(path.read_bytes())
    data["settings"]["rhineland_rules"] = "seed"
    game = replay(parse_export(data))
    assert game.title.rules == "seed"
    assert _card(game) == (65, 225, 80, ["2", "2"])
