"""The sale candidates (``sell_share_actions``) skip bundles without checking them only
where the title's sale check would refuse them: at every 2nd position of random games of
both titles (both 18Rhl rule sets), for every player, the candidates equal, in order,
every bundle of ``_bundles`` that ``check_sell`` accepts.  The games must reach the
skips' cases: a corporation whose smaller bundles sell while the market limit refuses
the larger ones, and corporations refused whole (not operated; 1893's first SR, found in
the environment's games)."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from rhineland import Game, new_game
from rhineland.engine.entities import Player
from rhineland.engine.legal.generate import _bundles, sell_share_actions
from rhineland.engine.rounds.stock import StockRound
from rhineland.env import RhinelandEnv
from rhineland.errors import GameError
from rhineland.sim.selfplay import choose, random_setup

EVERY = 2
ACTIONS = 700


def _every_accepted(game: Game, player: Player) -> tuple[list[tuple[tuple[str, ...], int]],
                                                         Counter[str]]:
    """Every bundle ``check_sell`` accepts, in ``_bundles``' order, and the refusals'
    rules counted per corporation (``"mixed"`` for a corporation with a bundle accepted
    and one refused by the market limit)."""
    out: list[tuple[tuple[str, ...], int]] = []
    seen: Counter[str] = Counter()
    for corp in game.corporations.values():
        if corp.closed or corp.share_price is None:
            continue
        rules = set()
        for certs, pct in _bundles(player, corp):
            try:
                game.title.check_sell(game, player, corp, certs, pct)
            except GameError as exc:
                rules.add(exc.rule)
                continue
            rules.add("accepted")
            out.append((tuple(c.id for c in certs), pct))
        if {"accepted", "stock.market_limit"} <= rules:
            seen["mixed"] += 1
        seen.update(rules - {"accepted"})
    return out, seen


@pytest.mark.parametrize(("title", "rules", "seeds"), [
    ("18Rhl", "reference", range(4)), ("18Rhl", "seed", range(2)), ("1893", "reference", range(4)),
])
def test_sale_candidates_are_every_bundle_the_check_accepts(title: str, rules: str,
                                                            seeds: range) -> None:
    seen: Counter[str] = Counter()
    for seed in seeds:
        rng = random.Random(seed)
        n, opts = random_setup(title, rng)
        game = new_game(title, [f"P{i + 1}" for i in range(n)], seed=seed,
                        optional_rules=opts, rules=rules)
        game.keep_history = False
        for count in range(ACTIONS):
            if game.is_terminal:
                break
            if count % EVERY == 0:
                seen += _compare(game)
            game.process(choose(game, rng), atomic=False)
    assert seen["mixed"] > 0 and seen["stock.sell_before_operating"] > 0, seen


def _compare(game: Game) -> Counter[str]:
    """Every player's sale candidates are the bundles the check accepts; returns the
    refusals seen (:func:`_every_accepted`)."""
    seen: Counter[str] = Counter()
    for player in game.state.players:
        want, refused = _every_accepted(game, player)
        got = [(a.shares, a.percent) for a in sell_share_actions(game, player)]
        assert got == want, player.name
        seen += refused
    return seen


def test_1893_first_stock_round_offers_no_sale() -> None:
    """1893's first SR, a started corporation's shares held (a Starting Package's
    president's certificate; the environment's games, random codes): nothing is offered
    for sale, the check refusing each such corporation whole."""
    env = RhinelandEnv("1893", 3)
    found = 0
    for seed in range(10):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(15):
            game = env.game
            assert game is not None
            if game.state.turn == 1 and isinstance(game.state.round, StockRound):
                seen = _compare(game)
                if seen["stock.sell_first_sr"]:
                    found += 1
                    assert not any(sell_share_actions(game, p) for p in game.state.players)
                    assert set(seen) == {"stock.sell_first_sr"}, seen
                    break
            env.step(int(rng.choice(np.flatnonzero(env.legal().mask))))
    assert found >= 3
