"""Random self-play: 20 games per title from ``new_game`` to the end.

Each game (18Rhl with 3-6 players, 1893 with 2-4, optional rules drawn from the
seed) is played by a seeded random choice among ``legal_actions()``
(:mod:`rhineland.sim.selfplay`).  Checked:

* the invariants after every action (money conserved, certificates at 100%,
  no negative cash but an 18Rhl receivership debt or a broken bank);
* at sampled positions (every ``SAMPLE``-th action), every action of
  ``legal_actions(expand=True)`` is accepted by ``process`` on a copy;
* the game ends, and its export (``to_export``) replays to the same result with no
  leniency used.
"""

from __future__ import annotations

import random

import pytest

from reference import check_invariants, total_money
from rhineland import Game, replay, to_export
from rhineland.engine.actions import Action
from rhineland.engine.titledata import optional_rules_of
from rhineland.io.export import parse_export
from rhineland.sim.selfplay import TITLE_PLAYERS, play
from rhineland.titles import TITLES

GAMES = 20
SAMPLE = 97


def _setup(title: str, seed: int) -> tuple[int, tuple[str, ...]]:
    lo, hi = TITLE_PLAYERS[title]
    rng = random.Random(seed * 7919)
    rules = tuple(r for r in optional_rules_of(TITLES[title].package) if rng.random() < 0.5)
    return lo + seed % (hi - lo + 1), rules


def _check_listed(game: Game) -> int:
    actions = game.legal_actions(expand=True)
    assert actions, f"no legal action in {game.round.label}"
    for a in actions:
        assert isinstance(a, Action)
        game.copy().process(a)
    return len(actions)


@pytest.mark.parametrize("seed", range(GAMES))
@pytest.mark.parametrize("title", sorted(TITLE_PLAYERS))
def test_random_self_play_reaches_the_end(title: str, seed: int) -> None:
    players, rules = _setup(title, seed)
    money: list[int] = []
    listed = 0

    def after(game: Game, action: Action) -> None:
        nonlocal listed
        if not money:
            money.append(total_money(game))
        check_invariants(game, money[0])
        if len(game.actions) % SAMPLE == 0 and not game.is_terminal:
            listed += _check_listed(game)

    result = play(title, 1000 + seed, players=players, optional_rules=rules,
                  max_actions=4000, on_action=after)
    assert result.finished, f"no end after {result.actions} actions ({result.game.round.label})"
    assert result.end_reason in ("bank", "bankrupt")
    assert listed > 0
    again = replay(parse_export(to_export(result.game)))
    assert again.is_terminal
    assert again.result() == result.result
    assert again.leniencies_used == []
