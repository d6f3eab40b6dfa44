"""Small helpers shared by the hand-built rule tests: where the game is, and the seed-000
18Rhl initial packet (``../shared/seeds/000_*``, "A round, step by step")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rhineland.engine.actions import Bid, Par, Pass
from rhineland.engine.game import Game


def label(game: Game) -> str:
    """The current round's label, e.g. ``"SR 1"`` or ``"OR 1.1"``."""
    assert game.state.round is not None
    return game.state.round.label


def step(game: Game) -> str:
    """The current step's name in the round (``"track"``, ``"token"``, …)."""
    name = game.round.step_name(game)
    assert name is not None
    return name


def play_packet_4p(game: Game) -> None:
    """The seed-000 initial packet: P1 PWB 20, P2 KEO 30 + NLK 120, P3 Szl 50 + RhE 140
    (RhE par 70), P4 Tjt 80.  Cash after: P1 430, P2 300, P3 260, P4 370."""
    game.process(Bid(entity=1, company="PWB", price=20))
    game.process(Bid(entity=2, company="KEO", price=30))
    game.process(Bid(entity=3, company="Szl", price=50))
    game.process(Bid(entity=4, company="Tjt", price=80))
    game.process(Pass(entity=1))
    game.process(Bid(entity=2, company="NLK", price=120))
    game.process(Bid(entity=3, company="RhE", price=140))
    game.process(Par(entity=3, corporation="RhE", share_price="70,2,1"))


def co(sym: str) -> dict[str, Any]:
    """Action fields naming corporation ``sym`` as the actor."""
    return {"entity": sym, "entity_type": "corporation"}


def mi(sym: str) -> dict[str, Any]:
    """Action fields naming minor ``sym`` as the actor."""
    return {"entity": sym, "entity_type": "minor"}


def cash(game: Game) -> dict[int, int]:
    """Player id -> cash (M)."""
    return {p.id: p.cash for p in game.players}


def price(game: Game, sym: str) -> tuple[int, int, int]:
    """(price, row, column) of ``sym``'s share price."""
    cell = game.corporation(sym).share_price
    assert cell is not None
    return (cell.price, cell.row, cell.col)


def random_positions(title: str, seed: int, actions: int) -> Iterator[Game]:
    """The positions of a seeded random self-play game (players and optional rules drawn
    from ``seed`` as :func:`rhineland.sim.selfplay.random_setup` does): yields the game
    before each of at most ``actions`` random legal actions, then applies the action
    (a refused one raises ``GameError``).  Stops early when the game ends."""
    import random

    from rhineland import new_game
    from rhineland.sim.selfplay import choose, random_setup

    rng = random.Random(seed)
    n, rules = random_setup(title, rng)
    game = new_game(title, [f"P{i + 1}" for i in range(n)], seed=seed, optional_rules=rules)
    game.keep_history = False
    for _ in range(actions):
        if game.is_terminal:
            return
        yield game
        game.process(choose(game, rng), atomic=False)
