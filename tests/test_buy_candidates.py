"""The stock round's buy candidates leave out a corporation only where the round
refuses every buy of it (``StockRound.check_buy_corporation``: one buy per turn, no
buy-back after a sale this round): at every stock-round position of random games of
both titles, each certificate ``buy_share_actions`` would propose for such a
corporation is refused by the rules (``Game.is_legal``), the generator lists none of
them, and the games reach the buy-back refusal."""

from __future__ import annotations

from collections import Counter

import pytest

from play import random_positions
from rhineland.engine.actions import BuyShares
from rhineland.engine.legal.generate import buy_share_actions
from rhineland.engine.rounds.stock import StockRound
from rhineland.errors import GameError

ACTIONS = 600


@pytest.mark.parametrize(("title", "seeds"), [("18Rhl", range(3)), ("1893", range(3))])
def test_buys_left_out_are_refused(title: str, seeds: range) -> None:
    refused: Counter[str] = Counter()
    for seed in seeds:
        for game in random_positions(title, seed, ACTIONS):
            rnd = game.state.round
            if not isinstance(rnd, StockRound) or rnd.current is None:
                continue
            player = rnd.current_entity(game)
            listed = {a.shares for a in game.legal_actions() if isinstance(a, BuyShares)}
            for corp in game.corporations.values():
                if corp.closed or not corp.ipoed:
                    continue
                try:
                    rnd.check_buy_corporation(game, player, corp)
                except GameError as exc:
                    refused[exc.rule] += 1
                    for buy in buy_share_actions(game, player, corp):
                        assert not game.is_legal(buy), (seed, buy)
                        assert buy.shares not in listed
    if title == "18Rhl":
        assert refused["stock.buy_after_sell"] > 0, refused
