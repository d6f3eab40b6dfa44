"""Bots (:mod:`rhineland.bots`): every bot plays only legal actions, the greedy bot's
rules of thumb at real positions of the reference games, and a bounded number of
complete games per bot whose exports replay to the same result."""

from __future__ import annotations

import pytest

from reference import ReferenceGames, check_invariants, needs_shared, total_money
from rhineland import Game, best_routes, new_game, replay, to_export
from rhineland.bots import (
    Bot,
    GreedyBot,
    MCTSBot,
    RandomBot,
    decider,
    make_bot,
    play_game,
)
from rhineland.bots.mcts import (
    candidate_actions,
    estimated_values,
    leader_rewards,
    rewards,
    score_counts_privates,
)
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
    """SR 4 after action 104 (buy, par, sell or pass): 10 candidates, the greedy buy of
    DEE_6 first, every one a legal action, no sale (the player may pass, so the 4
    sales offered are left out); the track decision after action 201 (DEE lays
    or passes) is not searched: its only candidate is the greedy lay, which MCTS plays."""
    game = RHL.position("end_bank", 104)
    cands = candidate_actions(game)
    assert len(cands) == 10
    assert cands[0] == GreedyBot().choose(game, decider(game))
    assert isinstance(cands[0], BuyShares) and cands[0].shares == ("DEE_6",)
    assert {a.type for a in cands} == {"buy_shares", "par", "pass"}
    assert sum(1 for c in game.legal_actions() if c.type == "sell_shares") == 4
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


@needs_shared
def test_estimated_values_count_company_assets_and_private_income() -> None:
    """OR 7.1 after action 304, treasury weight 0.5: player 635 holds ADR 50% (220M and
    a 5-train, 500M), DEE 70% (102M, a 4- and a 3-train, 500M) and RhE 10% (310M, a 3-
    and a 4-train, 500M): 0.5 * (360 + 421.4 + 81) = 431.2M on top of 1421M.  SR 1
    after action 14: one OR of private income adds 5 + 0 + 25 = 30M (PWB, KEO, NLK) to
    player 579 and 15 + 20 = 35M (Szl, Tjt) to player 635; five such rounds with
    ``private_horizon=5`` and no dividends."""
    game = RHL.position("end_bank", 304)
    with_assets = estimated_values(game, 0, treasury=0.5)
    assert with_assets[635] == pytest.approx(1421.0 + 431.2)
    assert with_assets[13627] == pytest.approx(
        1860.0 + 0.5 * (0.1 * 720 + 0.5 * 550 + 0.1 * 602 + 0.1 * 599 + 0.8 * 810))
    early = RHL.position("end_bank", 14)
    assert estimated_values(early, 0) == {13627: 620.0, 579: 425.0, 635: 435.0}
    assert estimated_values(early, 1.0) == {13627: 620.0, 579: 455.0, 635: 470.0}
    assert estimated_values(early, 0, private_horizon=5) == {
        13627: 620.0, 579: 425.0 + 5 * 30, 635: 435.0 + 5 * 35}


@needs_shared
def test_estimated_values_take_the_trainless_presidents_top_up() -> None:
    """SR 1 after action 14: RhE has floated with 140M and no train; the cheapest depot
    train costs 100M, so its president (13627) owes nothing.  With RhE's treasury at
    30M the president would top up 70M: the liability takes it from their 620M."""
    game = RHL.position("end_bank", 14)
    assert estimated_values(game, 0, liabilities=True)[13627] == 620.0
    game.corporations["RhE"].cash = 30
    assert estimated_values(game, 0)[13627] == 620.0
    assert estimated_values(game, 0, liabilities=True) == {
        13627: 550.0, 579: 425.0, 635: 435.0}


@needs_shared
def test_private_income_counts_where_the_score_ignores_privates() -> None:
    """18Rhl scores privates at nothing (SR 1 after action 14: player 579 owns PWB, KEO
    and NLK), so the search counts 5 ORs of their income; 1893 scores a private at its
    face value (Draft 1 after action 1: player 45 owns KFBE, 200M), so it counts none.
    The new game of either title has no owned private yet: no decision, 0 ORs."""
    rhl = RHL.position("end_bank", 14)
    g1893 = ReferenceGames("1893").position("end_bank", 1)
    assert score_counts_privates(rhl) is False
    assert score_counts_privates(g1893) is True
    bot = MCTSBot()
    assert bot._private_horizon(new_game("18Rhl", ["A", "B", "C"])) == 0.0
    assert bot._private_horizon(rhl) == 5.0
    assert bot._private_horizon(g1893) == 0.0
    assert MCTSBot(private_horizon=2.0)._private_horizon(g1893) == 2.0


def test_leader_rewards_measure_against_the_best_other() -> None:
    assert leader_rewards({1: 300.0, 2: 100.0, 3: -50.0}) == {1: 0.75, 2: 0.25, 3: 0.0}
    assert leader_rewards({1: 200.0, 2: 200.0}) == {1: 0.5, 2: 0.5}
    assert leader_rewards({1: 0.0, 2: 0.0}) == {1: 0.5, 2: 0.5}


@needs_shared
def test_mcts_trades_trains_only_between_its_own_companies() -> None:
    """OR 6.1 after action 207: CCE (president 579) may buy trains of DEE (635), GVE
    (579) and RhE (13627) at 1..400M; the candidates keep the depot 3-train and GVE's
    2- and 3-train at 1M and 400M, none of DEE's or RhE's."""
    game = RHL.position("end_bank", 207)
    assert decider(game) == 579
    buys = [(a.train, a.price) for a in candidate_actions(game) if isinstance(a, BuyTrain)]
    assert buys == [("3-2", 200), ("3-1", 1), ("3-1", 400), ("2-1", 1), ("2-1", 400)]


@needs_shared
def test_mcts_opponents_play_their_greedy_action_in_the_tree() -> None:
    """SR 4 after action 104, 20 iterations, widening 0.5: with greedy opponents every
    node of another player has at most one child (their greedy action), while the root
    branches; with ``opponents="search"`` some other player's node branches too."""
    game = RHL.position("end_bank", 104)
    pid = decider(game)

    def other_branching(root: object) -> int:
        count, stack = 0, [root]
        while stack:
            node = stack.pop()
            kids = node.children  # type: ignore[attr-defined]
            if node.mover not in (None, pid) and len(kids) > 1:  # type: ignore[attr-defined]
                count += 1
            stack.extend(kids)
        return count

    bot = MCTSBot(iterations=20, widening=0.5, seed=3)
    bot.choose(game, pid)
    assert bot.last_root is not None and len(bot.last_root.children) > 1
    assert other_branching(bot.last_root) == 0
    maxn = MCTSBot(iterations=20, widening=0.5, seed=3, opponents="search")
    maxn.choose(game, pid)
    assert other_branching(maxn.last_root) > 0


@needs_shared
def test_mcts_keeps_the_greedy_action_unless_another_beats_it_by_the_margin() -> None:
    """SR 4 after action 104: with a margin of 1 (more than any reward difference) the
    search plays the greedy action whatever it found; with margin 0 its choice is the
    most visited child."""
    game = RHL.position("end_bank", 104)
    pid = decider(game)
    greedy = GreedyBot().choose(game, pid)
    assert MCTSBot(iterations=8, seed=3, margin=1.0).choose(game, pid) == greedy
    free = MCTSBot(iterations=8, seed=3, margin=0.0)
    pick = free.choose(game, pid)
    assert free.last_visits[repr(pick)] == max(free.last_visits.values())


def test_mcts_rejects_unknown_models() -> None:
    with pytest.raises(ValueError, match="unknown opponent model 'smart'"):
        MCTSBot(opponents="smart")
    with pytest.raises(ValueError, match="unknown reward 'sum'"):
        MCTSBot(reward="sum")


def test_make_bot_names() -> None:
    assert isinstance(make_bot("random"), RandomBot)
    assert isinstance(make_bot("greedy"), GreedyBot)
    assert isinstance(make_bot("mcts"), MCTSBot)
    with pytest.raises(ValueError, match="unknown bot 'smart'"):
        make_bot("smart")
