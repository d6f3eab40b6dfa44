"""Random self-play under the ``seed`` rule set: 20 games per title from
``new_game(..., rules="seed")`` to the end (:mod:`rhineland.sim.selfplay`).

Checked after every action: the invariants (money conserved — a bank loan moves money
from the bank to a player, and the loans the title records total the ``take_loan``
amounts processed; certificates at 100%; no negative cash but a broken bank).  With no
bankruptcy in 18Rhl's seed rules no treasury goes below 0 either.  At the end: the
export names the rule set and replays to the same result with no leniency used; over
the 18Rhl games the seed's forced purchase happened (companies sold treasury shares,
presidents took loans) and every loan counts twice against its taker's value.
"""

from __future__ import annotations

import orjson
import pytest

from reference import check_invariants, total_money
from rhineland import Game, replay, to_export
from rhineland.engine.actions import Action
from rhineland.io.export import parse_export
from rhineland.sim.selfplay import TITLE_PLAYERS, play

GAMES = 20
SEEN: dict[str, int] = {"company_sale": 0, "take_loan": 0}


@pytest.mark.parametrize("seed", range(GAMES))
@pytest.mark.parametrize("title", sorted(TITLE_PLAYERS))
def test_seed_rules_self_play_reaches_the_end(title: str, seed: int) -> None:
    lo, hi = TITLE_PLAYERS[title]
    money: list[int] = []

    def after(game: Game, action: Action) -> None:
        if not money:
            money.append(total_money(game))
        check_invariants(game, money[0])
        if title == "18Rhl":
            assert all(c.cash >= 0 for c in game.corporations.values())
            assert not any(c.receivership for c in game.corporations.values())

    result = play(title, 5000 + seed, players=lo + seed % (hi - lo + 1), max_actions=4000,
                  rules="seed", on_action=after)
    game = result.game
    assert result.finished, f"no end after {result.actions} actions ({game.round.label})"
    assert result.end_reason in ("bank", "bankrupt")
    if title == "18Rhl":
        assert result.end_reason == "bank"  # nobody goes bankrupt: the bank lends
        loans = game.title.loans(game)
        for p in game.players:
            shares = sum(c.share_price.price * c.percent_of(p.id) // 10
                         for c in game.corporations.values()
                         if c.share_price is not None and not c.closed)
            assert result.result[p.id] == p.cash + shares - 2 * loans.get(p.id, 0)
        SEEN["take_loan"] += sum(1 for a in game.actions if a.type == "take_loan")
        SEEN["company_sale"] += sum(1 for a in game.actions if a.type == "sell_shares"
                                    and a.entity_type == "corporation")
    data = orjson.loads(orjson.dumps(to_export(game)))
    assert data["settings"]["rhineland_rules"] == "seed"
    again = replay(parse_export(data))
    assert again.title.rules == "seed"
    assert again.is_terminal
    assert again.result() == result.result
    assert again.leniencies_used == []


def test_seed_self_play_used_the_forced_purchase() -> None:
    """Runs after the games above (file order): the 18Rhl games took loans and sold
    treasury shares (the counts of the games played in this session)."""
    if SEEN["take_loan"] == 0 and SEEN["company_sale"] == 0:
        pytest.skip("the self-play games did not run in this session")
    assert SEEN["take_loan"] > 0 and SEEN["company_sale"] > 0
