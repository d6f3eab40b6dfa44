"""Bots (:mod:`rhineland.bots`): every bot plays only legal actions, the greedy bot's
rules of thumb at real positions of the reference games, and a bounded number of
complete games per bot whose exports replay to the same result."""

from __future__ import annotations

import pytest

from reference import ReferenceGames, check_invariants, needs_shared, total_money
from rhineland import Game, best_routes, replay, to_export
from rhineland.bots import (
    Bot,
    GreedyBot,
    MCTSBot,
    RandomBot,
    decider,
    make_bot,
    play_game,
)
from rhineland.bots.mcts import candidate_actions, estimated_values, rewards
from rhineland.engine.actions import (
    Action,
    BuyShares,
    BuyTrain,
    Dividend,
    LayTile,
    RunRoutes,
)
from rhineland.engine.legal.choices import find_choice
from rhineland.io.export import parse_export

RHL = ReferenceGames("18Rhl")


class Checked:
    """Wraps a bot: before each choice is played, checks it is offered by
    ``legal_actions()`` (through :func:`find_choice`) and that ``choose`` left the
    game unchanged."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name
        self.checked = 0

    def choose(self, game: Game, entity: int) -> Action:
        before = (len(game.actions), len(game.log), total_money(game))
        action = self.bot.choose(game, entity)
        assert (len(game.actions), len(game.log), total_money(game)) == before
        assert entity in game.acting_entities()
        assert find_choice(game, game.legal_actions(), action) is not None, action
        self.checked += 1
        return action


def _full_game(title: str, names: list[str], seed: int, **bot_args: object) -> None:
    bots = [Checked(make_bot(n, seed + i)) for i, n in enumerate(names)]
    money: list[int] = []

    def after(game: Game, action: Action) -> None:
        if not money:
            money.append(total_money(game))
        check_invariants(game, money[0])

    played = play_game(title, bots, seed=seed, max_actions=5000, on_action=after)
    assert played.finished, f"no end after {played.actions} actions"
    assert played.end_reason in ("bank", "bankrupt")
    assert sum(b.checked for b in bots) == played.actions
    again = replay(parse_export(to_export(played.game)))
    assert again.is_terminal
    assert again.result() == played.result
    assert set(played.result) == set(range(1, len(names) + 1))


@pytest.mark.parametrize(("title", "names", "seed"), [
    ("18Rhl", ["random", "random", "random"], 1),
    ("1893", ["random", "random"], 2),
])
def test_random_bot_plays_legal_complete_games(title: str, names: list[str], seed: int) -> None:
    _full_game(title, names, seed)


@pytest.mark.parametrize(("title", "names", "seed"), [
    ("18Rhl", ["greedy", "greedy", "greedy", "greedy"], 3),
    ("1893", ["greedy", "random", "greedy"], 4),
])
def test_greedy_bot_plays_legal_complete_games(title: str, names: list[str], seed: int) -> None:
    _full_game(title, names, seed)


def test_mcts_bot_plays_a_legal_complete_game() -> None:
    """A 2-player 1893 game, MCTS (3 iterations, random rollouts of 3 actions) against
    the random bot: every MCTS move is legal and the game ends."""
    mcts = Checked(MCTSBot(iterations=3, rollout="random", depth=3, seed=5))
    played = play_game("1893", [mcts, Checked(RandomBot(6))], seed=5, max_actions=5000)
    assert played.finished
    assert mcts.checked > 0
    again = replay(parse_export(to_export(played.game)))
    assert again.result() == played.result


def test_random_bot_is_reproducible_by_seed() -> None:
    def moves(seed: int) -> list[dict[str, object]]:
        played = play_game("18Rhl", [RandomBot(seed), RandomBot(seed + 1), RandomBot(seed + 2)],
                           seed=0, max_actions=60)
        return [a.to_json() for a in played.game.actions]

    assert moves(7) == moves(7)
    assert moves(7) != moves(8)


@needs_shared
def test_greedy_runs_the_best_routes() -> None:
    """18Rhl end_bank after action 606: CCE runs; the best routes earn 760M."""
    game = RHL.position("end_bank", 606)
    action = GreedyBot().choose(game, decider(game))
    assert isinstance(action, RunRoutes)
    assert action.entity == "CCE"
    assert sum(r["revenue"] for r in action.routes) == 760 == best_routes(game).revenue


@needs_shared
def test_greedy_buys_a_train_when_it_has_none() -> None:
    """After action 32 RhE (380M, no train) is to buy trains: the cheapest, a 2 for 100M."""
    game = RHL.position("end_bank", 32)
    rhe = game.corporation("RhE")
    assert not rhe.trains and rhe.cash == 380
    action = GreedyBot().choose(game, decider(game))
    assert isinstance(action, BuyTrain)
    assert (action.entity, action.train, action.price) == ("RhE", "2-0", 100)


@needs_shared
def test_greedy_pays_out_when_it_helps_the_price() -> None:
    """After action 304 ADR pays out: its share price after a payout is above the price
    after withholding."""
    game = RHL.position("end_bank", 304)
    action = GreedyBot().choose(game, decider(game))
    assert isinstance(action, Dividend) and action.kind == "payout"
    prices = {}
    for kind in ("payout", "withhold"):
        twin = game.copy()
        twin.process(Dividend(entity="ADR", entity_type="corporation", kind=kind))
        cell = twin.corporation("ADR").share_price
        assert cell is not None
        prices[kind] = cell.price
    assert prices["payout"] > prices["withhold"]


@needs_shared
def test_greedy_lays_the_tile_that_earns_most() -> None:
    """After action 201 DEE lays track: no other legal lay of DEE gives its best routes
    more revenue than the greedy lay."""
    game = RHL.position("end_bank", 201)
    action = GreedyBot().choose(game, decider(game))
    assert isinstance(action, LayTile) and action.entity == "DEE"

    def revenue_after(lay: Action) -> int:
        twin = game.copy()
        twin.process(lay)
        return best_routes(twin, "DEE").revenue

    lays = [c for c in game.legal_actions()
            if isinstance(c, LayTile) and c.entity == "DEE"]
    assert len(lays) > 1
    best = max(revenue_after(lay) for lay in lays)
    assert revenue_after(action) == best
    assert best >= best_routes(game, "DEE").revenue


@needs_shared
def test_greedy_buys_a_share_of_its_company() -> None:
    """SR 4 after action 104: the player to act presides DEE and buys a DEE share."""
    game = RHL.position("end_bank", 104)
    pid = decider(game)
    action = GreedyBot().choose(game, pid)
    assert isinstance(action, BuyShares)
    assert action.shares[0].startswith("DEE_")
    assert game.corporation("DEE").president == pid


@needs_shared
def test_mcts_choice_is_a_candidate_and_reproducible() -> None:
    """At SR 4 (after action 104) MCTS with 6 iterations picks one of its candidate
    actions, the same one for the same seed, and leaves the game unchanged."""
    game = RHL.position("end_bank", 104)
    pid = decider(game)
    n = len(game.actions)
    cands = candidate_actions(game)
    assert len(cands) > 1
    first = MCTSBot(iterations=6, depth=4, seed=3).choose(game, pid)
    again = MCTSBot(iterations=6, depth=4, seed=3).choose(game, pid)
    assert first == again
    assert first in cands
    assert len(game.actions) == n


@needs_shared
def test_mcts_candidates_put_the_greedy_action_first() -> None:
    """SR 4 after action 104 (buy, par, sell or pass): 14 candidates, the greedy buy of
    DEE_6 first, every one a legal action; the track decision after action 201 (DEE lays
    or passes) is not searched: its only candidate is the greedy lay, which MCTS plays."""
    game = RHL.position("end_bank", 104)
    cands = candidate_actions(game)
    assert len(cands) == 14
    assert cands[0] == GreedyBot().choose(game, decider(game))
    assert isinstance(cands[0], BuyShares) and cands[0].shares == ("DEE_6",)
    assert {a.type for a in cands} == {"buy_shares", "par", "sell_shares", "pass"}
    assert all(find_choice(game, game.legal_actions(), a) is not None for a in cands)
    track = RHL.position("end_bank", 201)
    greedy = GreedyBot().choose(track, decider(track))
    assert candidate_actions(track) == [greedy]
    bot = MCTSBot(iterations=4, seed=1)
    assert bot.choose(track, decider(track)) == greedy
    assert bot.searched == 0 and bot.last_visits == {}


@needs_shared
def test_mcts_spends_its_budget_on_a_widening_set_of_children() -> None:
    """SR 4 after action 104, 8 iterations, widening 1.5: the root's visits add up to
    the 8 iterations, over 5 children (at most 1 + 1.5 * sqrt(7) when the last child was
    added), the greedy action among them; the search counts one decision."""
    game = RHL.position("end_bank", 104)
    bot = MCTSBot(iterations=8, widening=1.5, seed=3)
    choice = bot.choose(game, decider(game))
    assert sum(bot.last_visits.values()) == 8
    assert len(bot.last_visits) == 5
    assert repr(candidate_actions(game)[0]) in bot.last_visits
    assert repr(choice) in bot.last_visits
    assert bot.searched == 1


@needs_shared
def test_estimated_values_add_horizon_income() -> None:
    """OR 7.1 after action 304: the players' values are 1860, 2149 and 1421M; one OR of
    income at the best routes (ADR 240, BME 160, DEE 360, GVE 340, CCE 160, RhE 350M)
    adds e.g. 50% of 240 + 70% of 360 + 10% of 350 = 407M to player 635's 1421M."""
    game = RHL.position("end_bank", 304)
    assert estimated_values(game, 0) == {13627: 1860.0, 579: 2149.0, 635: 1421.0}
    assert estimated_values(game, 1.0, route_budget=None) == {
        13627: 2314.0, 579: 2616.0, 635: 1828.0}
    assert estimated_values(game, 2.0, route_budget=None)[635] == 1421.0 + 2 * 407
    r = rewards({1: 300.0, 2: 100.0, 3: -50.0})
    assert r == {1: 0.75, 2: 0.25, 3: 0.0}


def test_make_bot_names() -> None:
    assert isinstance(make_bot("random"), RandomBot)
    assert isinstance(make_bot("greedy"), GreedyBot)
    assert isinstance(make_bot("mcts"), MCTSBot)
    with pytest.raises(ValueError, match="unknown bot 'smart'"):
        make_bot("smart")
