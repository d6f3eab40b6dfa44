"""``TrainRules.train_available`` (asked by every train purchase check) answers as the
list it stands for, ``available_depot_trains``: at every position of seeded random games
of both titles, for every train of the game (depot, owned, open market, rusted).  The
bank sells the trains of one type in order: the next of each type in the depot and the
longest-waiting of each type in the open market."""

from __future__ import annotations

from typing import Any

import pytest

from play import random_positions
from rhineland.engine.entities import MARKET
from rhineland.sim.selfplay import TITLE_PLAYERS

ACTIONS = 900


@pytest.mark.parametrize("title", sorted(TITLE_PLAYERS))
def test_train_available_equals_the_list(title: str) -> None:
    asked = available = market = 0
    for seed in (5, 6, 7):  # a game may never see an open-market train
        for game in random_positions(title, seed, ACTIONS):
            listed = game.title.available_depot_trains(game)
            for train in game.state.trains:
                expected = train in listed
                assert game.title.train_available(game, train) == expected
                asked += 1
                available += expected
                market += expected and train.owner is not None
    assert asked > 1000 and 0 < available < asked and market > 0


def _listed_as_stated(game: object) -> list[object]:
    """Of the depot's trains, the first of the next type and the first of each type made
    available by a phase reached (``available_on``), in depot order; then of the open
    market's, the first discarded of each type: the rule written plainly."""
    g: Any = game
    depot = [t for t in g.state.trains if t.owner is None and not t.rusted]
    phases = [p.name for p in g.data.phases[: g.state.phase + 1]]
    on_sale = [t for t in depot if t.name == depot[0].name
               or (t.spec.available_on is not None and t.spec.available_on in phases)]
    market = g.discarded_trains()
    return ([t for i, t in enumerate(on_sale) if t.name not in {u.name for u in on_sale[:i]}]
            + [t for i, t in enumerate(market) if t.name not in {u.name for u in market[:i]}])


@pytest.mark.parametrize("title", sorted(TITLE_PLAYERS))
def test_available_depot_trains_as_stated(title: str) -> None:
    """At every position of seeded random games (the one pass of ``available_depot_trains``
    against the rule written plainly), with positions where a train is on sale early and
    where the open market has trains, two of one type among them."""
    early = market = waiting = 0
    for seed in (5, 6, 7, 10):  # seed 10: two trains of one type in the open market
        for game in random_positions(title, seed, ACTIONS):
            listed = game.title.available_depot_trains(game)
            assert listed == _listed_as_stated(game)
            depot = [t for t in listed if t.owner is None]
            early += any(t.name != depot[0].name for t in depot)
            market += any(t.owner is not None for t in listed)
            discarded = game.discarded_trains()
            waiting += len(discarded) > len({t.name for t in discarded})
    assert early > 0 and market > 0 and waiting > 0, (early, market, waiting)


@pytest.mark.parametrize("title", sorted(TITLE_PLAYERS))
def test_discarded_trains_as_stated(title: str) -> None:
    """The open market's trains, in the order they were discarded: each id of the
    discard order whose train is in the market and not rusted; at positions where the
    market has trains and where the order still names a train that left it."""
    listed = left = 0
    for seed in (5, 6, 7):
        for game in random_positions(title, seed, ACTIONS):
            by_id = {t.id: t for t in game.state.trains}
            order = game.state.discard_order
            want = [by_id[i] for i in order
                    if by_id[i].owner == MARKET and not by_id[i].rusted]
            assert game.discarded_trains() == want
            listed += bool(want)
            left += len(want) < len(order)
    assert listed > 0 and left > 0, (listed, left)
