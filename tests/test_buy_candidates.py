"""Candidates left out before any trial are refused by the rules.  The stock round's
buy candidates leave out a corporation only where the round
refuses every buy of it (``StockRound.check_buy_corporation``: one buy per turn, no
buy-back after a sale this round; ``StockRound.check_cert_room``: no room for one more
certificate where the limit applies): at every stock-round position of random games of
both titles, each certificate ``buy_share_actions`` would propose for such a
corporation is refused by the rules (``Game.is_legal``), the generator lists none of
them, and the games reach the buy-back refusal.  The depot trains left out by the
payment check (``train_candidates``) likewise."""

from __future__ import annotations

from collections import Counter

import pytest

from play import random_positions
from rhineland.engine.actions import BuyShares, BuyTrain
from rhineland.engine.legal.generate import buy_share_actions, entity_type
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
                    if rnd.check_buy_corporation(game, player, corp):
                        rnd.check_cert_room(game, player, 1)
                except GameError as exc:
                    refused[exc.rule] += 1
                    for buy in buy_share_actions(game, player, corp):
                        assert not game.is_legal(buy), (seed, buy)
                        assert buy.shares not in listed
    if title == "18Rhl":
        assert refused["stock.buy_after_sell"] > 0, refused
    assert refused["stock.cert_limit"] > 0, refused


@pytest.mark.parametrize(("title", "seeds"), [("18Rhl", range(3)), ("1893", range(3))])
def test_depot_trains_listed_are_those_the_rules_accept(title: str, seeds: range) -> None:
    """At every buy-train position: a depot train (each type once, each discarded one)
    at its price is listed exactly when the rules accept it (``Game.is_legal``); the
    payment check leaves some out (a company short of the price, not obliged to buy)."""
    refused = 0
    for seed in seeds:
        for game in random_positions(title, seed, ACTIONS):
            rnd = game.state.round
            if rnd is None or rnd.step_name(game) != "buy_train":
                continue
            entity = rnd.current_entity(game)
            listed = {(a.train, a.price) for a in game.legal_actions()
                      if isinstance(a, BuyTrain) and a.exchange is None}
            names: set[str] = set()
            for t in game.title.available_depot_trains(game):
                if t.owner is None:
                    if t.name in names:
                        continue
                    names.add(t.name)
                buy = BuyTrain(entity=entity.sym, entity_type=entity_type(entity), train=t.id,
                               price=t.spec.price, variant=t.name)
                legal = game.is_legal(buy)
                assert legal == ((t.id, t.spec.price) in listed), (seed, buy)
                refused += not legal
    assert refused > 0
