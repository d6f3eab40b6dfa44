"""The legal-action generator against the reference games, and its API.

* Every recorded decision of every real and generated reference game is in
  ``legal_actions()`` at its point (compared by ``choice_key``: type, entity,
  parameters; a run by the route choice accepting its routes), or the replay
  accepted it under a named leniency and recorded it.  The real games need none.
* ``acting_entities()`` equals the trace's ``acting`` after every action.
* ``is_legal`` and ``process`` agree; ranges, copies, results, the public API.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reference import SHARED, ReferenceGames, needs_shared
from rhineland import Game, GameError, best_routes, load_export, new_game, replay, to_export
from rhineland.engine.actions import Bid, BuyTrain, Pass, RunRoutes
from rhineland.engine.legal import AmountRange, RouteChoice, choice_key, find_choice
from rhineland.engine.leniency import LENIENCIES
from rhineland.io.export import game_from_export, parse_export, read_json, undo_targets
from test_oracle_replays import DIVERGING, GAMES_18RHL, GAMES_1893

SERVER_RECORDS = frozenset({
    "undo", "redo", "message", "program_share_pass", "program_buy_shares",
    "program_disable", "destination_connection",
})
"""Recorded actions that are not decisions of the rules (undo/redo, chat, the server's
automation and its 18Rhl link records): not in ``legal_actions()``."""

GAMES = [  # every game in ../shared (those still diverging as strict xfails)
    pytest.param(
        export.removesuffix(".json"), id=Path(export).stem,
        marks=[pytest.mark.xfail(strict=True, reason="diverges")]
        if Path(export).stem in DIVERGING else [],
    )
    for export, _ in GAMES_18RHL + GAMES_1893
]

EXPECTED_LENIENCIES = {
    # the reference's interface offers the cheapest item at its price only
    "generated/18Rhl/18Rhl_g01": {1: "auction.buy_price"},
    "generated/18Rhl/18Rhl_g03": {2: "auction.buy_price", 3: "auction.buy_price"},
    "generated/18Rhl/18Rhl_g04": {6: "auction.buy_price"},
    "generated/18Rhl/18Rhl_g06": {4: "auction.buy_price"},
    "generated/18Rhl/18Rhl_g08": {1: "auction.buy_price"},
    # at its train limit a company is offered trade-ins only
    "generated/1893/1893_g07": {170: "train.limit", 204: "train.limit", 275: "train.limit"},
    "generated/1893/1893_g08": {364: "train.limit", 398: "train.limit"},
    "generated/1893/1893_g24": {215: "train.limit"},
}


def _trace_rel(game: str) -> str:
    folder, _, name = game.rpartition("/")
    kind = folder.partition("/")[0]
    if kind in ("generated", "generated2", "released"):
        return f"{kind}/{name}.trace.json"
    return f"{name}.trace.json"


@needs_shared
@pytest.mark.parametrize("name", GAMES)
def test_recorded_actions_are_legal_or_named_leniencies(name: str) -> None:
    export = load_export(SHARED / "fixtures" / f"{name}.json")
    trace = read_json(SHARED / "oracle" / _trace_rel(name))["trace"]
    game = game_from_export(export)
    targets = undo_targets(export.actions)
    unlisted: dict[int, str] = {}
    checked = 0
    for i, (action, entry) in enumerate(zip(export.actions, trace, strict=True)):
        if action.type not in SERVER_RECORDS:
            choices = game.legal_actions()
            if find_choice(game, choices, action) is None:
                assert action.id is not None
                unlisted[action.id] = action.type
            checked += 1
        game.process(action, atomic=False, history=i in targets)
        assert [str(p) for p in game.acting_entities()] == entry["acting"], action.id
    used = {u.action_id: u.rule for u in game.leniencies_used}
    if name.startswith("released/"):  # kept back games of the older kinds: some need one
        assert set(used.values()) <= set(LENIENCIES)
    else:  # none in the real and generated2 games; the generated ones' are known
        assert used == EXPECTED_LENIENCIES.get(name, {})
    assert set(unlisted) == set(used), f"unlisted without a leniency: {unlisted}"
    assert checked > 30


@needs_shared
def test_auction_bid_above_the_cheapest_price_is_refused_without_leniency() -> None:
    games = ReferenceGames("18Rhl")
    export = games.export("g01")
    game = Game(game_from_export(export).title, export.players, export.seed)
    recorded = games.action("g01", 1)
    assert isinstance(recorded, Bid) and recorded.price == 25
    before = game.state.clone()
    with pytest.raises(GameError) as err:
        game.process(recorded)
    assert err.value.rule == "auction.buy_price"
    assert game.state.players[0].cash == before.players[0].cash
    assert game.legal_actions()[0] == Bid(entity=1001, company="PWB", price=20)
    assert not game.is_legal(recorded)
    replayed = replay(export, until=1)
    assert [str(u) for u in replayed.leniencies_used] == [
        "action 1: the cheapest item PWB is bought at its price 20M, not 25M "
        "(accepted under leniency auction.buy_price)"
    ]


def test_new_game_lists_the_opening_bids_as_ranges() -> None:
    game = new_game("18Rhl", ["Ann", "Ben", "Cid"], seed=3)
    choices = game.legal_actions()
    assert choices[0] == Bid(entity=1, company="PWB", price=20)
    ranges = [c for c in choices if isinstance(c, AmountRange)]
    assert [(r.action.company, r.min, r.max) for r in ranges][:2] == [  # type: ignore[attr-defined]
        ("KEO", 35, 600), ("Szl", 55, 600)]
    assert Pass(entity=1) in choices
    assert game.acting_entities() == [1]
    expanded = game.legal_actions(expand=True)
    assert len(expanded) == 1 + sum(len(r.values()) for r in ranges) + 1
    assert all(game.is_legal(a) for a in expanded[:3] + expanded[-3:])
    assert not game.is_legal(Bid(entity=1, company="KEO", price=34))
    assert not game.is_legal(Bid(entity=2, company="PWB", price=20))  # not Ben's turn


def test_amount_range_lists_and_contains_its_values() -> None:
    r = AmountRange(Bid(entity=1, company="KEO", price=35), "price", 35, 50, 5)
    assert list(r.values()) == [35, 40, 45, 50]
    assert [a.price for a in r.actions()] == [35, 40, 45, 50]  # type: ignore[attr-defined]
    assert r.contains(Bid(entity=1, company="KEO", price=45))
    assert not r.contains(Bid(entity=1, company="KEO", price=42))
    assert not r.contains(Bid(entity=2, company="KEO", price=45))
    assert not r.contains(Bid(entity=1, company="Szl", price=45))


@needs_shared
def test_route_choice_offers_the_best_routes_and_accepts_any_valid_run() -> None:
    games = ReferenceGames("18Rhl")
    game = games.position("end_bank", 606)  # CCE is to run (README example)
    choices = game.legal_actions()
    assert choices == [RouteChoice("CCE", "corporation")]
    best = choices[0].best(game)  # type: ignore[union-attr]
    assert sum(r["revenue"] for r in best.routes) == best_routes(game).revenue == 760
    recorded = games.action("end_bank", 607)
    assert isinstance(recorded, RunRoutes)
    assert find_choice(game, choices, recorded) is choices[0]
    assert game.legal_actions(expand=True) == [best]
    broken = RunRoutes(entity="CCE", entity_type="corporation",
                       routes=({**recorded.routes[0], "revenue": 10},))
    assert not choices[0].contains(broken, game)


@needs_shared
def test_train_from_another_company_is_a_price_range_up_to_the_cash() -> None:
    games = ReferenceGames("18Rhl")
    game = games.position("end_bank", 305)
    adr = game.corporation("ADR")
    choices = game.legal_actions()
    assert choices[0] == Pass(entity="ADR", entity_type="corporation")  # the depot: 5s, 6s
    ranges = {c.action.train: c for c in choices[1:]}  # type: ignore[union-attr]
    assert set(ranges) == {"3-3", "4-2", "3-4", "3-1", "4-1", "3-2", "3-0", "4-0"}
    assert {(r.min, r.max) for r in ranges.values()} == {(1, adr.cash)} == {(1, 450)}
    r = ranges["3-4"]
    recorded = games.action("end_bank", 306)
    assert isinstance(recorded, BuyTrain) and recorded.price == 425
    assert find_choice(game, game.legal_actions(), recorded) is r
    assert not game.is_legal(BuyTrain(entity="ADR", entity_type="corporation", train="3-4",
                                      price=adr.cash + 1))


@needs_shared
def test_is_legal_leaves_the_state_and_process_agrees() -> None:
    games = ReferenceGames("1893")
    game = games.position("end_bank", 120)
    before = to_export(game)
    state = game.state
    choices = game.legal_actions(expand=True)
    assert choices
    for a in choices[:40]:
        assert game.is_legal(a)
        copy = game.copy()
        copy.process(a)
    assert game.state is state and to_export(game) == before
    nxt = games.action("end_bank", 121)
    assert game.is_legal(nxt)


def test_copy_is_independent_and_result_scores_players() -> None:
    game = new_game("1893", ["Ann", "Ben"], seed=1)
    first = game.legal_actions()[0]
    assert isinstance(first, Bid)
    twin = game.copy()
    twin.process(first)
    assert len(twin.actions) == 1 and not game.actions
    assert game.player(1).cash != twin.player(1).cash
    assert not game.is_terminal
    assert game.result() == {1: game.player_value(game.player(1)),
                             2: game.player_value(game.player(2))}
    data = to_export(twin)
    again = replay(parse_export(data))
    assert again.result() == twin.result()


@needs_shared
def test_finished_game_has_no_legal_action_and_everyone_acting() -> None:
    export = load_export(SHARED / "fixtures" / "18Rhl" / "18Rhl_end_bank.json")
    game = replay(export)
    assert game.is_terminal
    assert game.legal_actions() == []
    assert game.acting_entities() == [p.id for p in game.players if not p.bankrupt]
    assert {str(k): v for k, v in game.result().items()} == export.result


def test_choice_key_ignores_interchangeable_parts() -> None:
    game = new_game("18Rhl", ["Ann", "Ben", "Cid"])
    a = Bid(entity=1, company="PWB", price=20, id=7, created_at=99)
    assert choice_key(game, a) == choice_key(game, Bid(entity=1, company="PWB", price=20))


def test_readme_public_api_imports() -> None:
    import rhineland

    for name in ("Game", "new_game", "load_export", "replay", "to_export", "best_routes",
                 "GameError"):
        assert hasattr(rhineland, name)
    assert Path(rhineland.__file__).exists()


@needs_shared
def test_game_ends_when_no_solvent_player_is_left() -> None:
    """Self-play found it: the last solvent player's bankruptcy left no one to act
    (the reference has no end check for it in 18Rhl); the game is then over."""
    games = ReferenceGames("18Rhl")
    game = games.position("end_bank", 300)
    for p in game.players:
        p.bankrupt = True
    game.process(games.action("end_bank", 301))  # BME passes in its track step
    assert game.is_terminal
    assert game.state.game_end_reason == "bankrupt"
    assert game.legal_actions() == []
