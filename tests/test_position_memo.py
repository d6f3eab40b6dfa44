"""What the legal-action checks of one position keep (``Game.remembered``).

While a :class:`~rhineland.engine.legal.Trial` asks ``Game.check`` (the state untouched)
it lends the game its memo: a stock-round player's certificate count and whether they
must sell, and the step of an operating round that takes each action type, are then
worked out once per position, not once per candidate.  Outside those
checks (``process``, a trial applied to a copy of the state) every rule computes afresh.
At every position of seeded random games of both titles the legal actions with the memo
equal those without it; a memo answer lives only as long as its trial.
"""

from __future__ import annotations

import pytest

from play import random_positions
from rhineland.engine.actions import BuyShares
from rhineland.engine.game import Game
from rhineland.engine.legal import generate
from rhineland.engine.legal.trial import Trial
from rhineland.engine.rounds.stock import StockRound
from rhineland.sim.selfplay import TITLE_PLAYERS

ACTIONS = 500


def listing(game: Game) -> list[str]:
    """The legal decisions at ``game`` as text (no cache)."""
    return [repr(c) for c in generate.legal_actions(game)]


@pytest.mark.parametrize("title", sorted(TITLE_PLAYERS))
def test_the_memo_keeps_every_listing(title: str, monkeypatch: pytest.MonkeyPatch) -> None:
    kept = 0
    stock_positions = 0
    routed = 0
    for seed in (3, 4):
        for game in random_positions(title, seed, ACTIONS):
            with_memo = listing(game)
            calls: list[object] = []
            real = Game.remembered

            def fresh(self: Game, key: object, compute: object,
                      calls: list[object] = calls) -> object:
                calls.append(key)
                return compute()  # type: ignore[operator]

            monkeypatch.setattr(Game, "remembered", fresh)
            assert listing(game) == with_memo
            monkeypatch.setattr(Game, "remembered", real)
            if isinstance(game.round, StockRound):
                stock_positions += 1
                kept += len(calls) > len(set(calls))  # asked again: the memo answered
            routes = [k for k in calls if isinstance(k, tuple) and k[0] == "or.route"]
            routed += len(routes) > len(set(routes))  # an operating round's routing
            assert game.position_memo is None
    assert stock_positions > 20 and kept > 10 and routed > 20


def test_one_answer_per_position_and_trial() -> None:
    game = next(g for g in random_positions("18Rhl", 5, 400)
                if isinstance(g.round, StockRound) and g.round.current_entity(g) is not None
                and any(isinstance(c, BuyShares) for c in generate.candidates(g)))
    player = game.round.current_entity(game)
    buys = [c for c in generate.candidates(game) if isinstance(c, BuyShares)]
    counted: list[int] = []
    real = StockRound._cert_count

    def spy(self: StockRound, g: Game, p: object) -> int:
        counted.append(1)
        return real(self, g, p)  # type: ignore[arg-type]

    StockRound._cert_count = spy  # type: ignore[method-assign]
    try:
        trial = Trial(game)
        for action in buys:
            trial.refusal(action)
        once = len(counted)
        assert once == 1  # every candidate's check asked it: worked out once
        assert trial.memo[("cert_count", player.id)] == real(game.round, game, player)
        assert game.position_memo is None  # lent only while the checks run
        game.round.cert_count(game, player)  # outside the checks: afresh
        Trial(game).refusal(buys[0])  # a new trial (a new position): afresh
        assert len(counted) == once + 2
    finally:
        StockRound._cert_count = real  # type: ignore[method-assign]


def test_remembered_outside_the_checks_computes_each_time() -> None:
    game = next(random_positions("1893", 1, 1))
    answers = iter(range(10))
    assert [game.remembered("k", lambda: next(answers)) for _ in range(3)] == [0, 1, 2]
    game.position_memo = {}
    try:
        assert [game.remembered("k", lambda: next(answers)) for _ in range(3)] == [3, 3, 3]
        assert game.copy().position_memo is None
    finally:
        game.position_memo = None
