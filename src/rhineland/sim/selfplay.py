"""Random self-play: a game from :func:`rhineland.new_game` to its end by a seeded random
choice among ``legal_actions(expand=True)``.

The choice is biased so that games end: first an action kind is drawn by weight
(in the operating round laying track, placing tokens, paying out and buying
trains from the depot are preferred to passing and to buying other companies'
trains; in the stock round buying and starting to selling), then one action of
that kind uniformly (:func:`choose`: the candidates are tried only as the draw needs
them, with the distribution of a draw from the whole list).  A random player never
raises a waterfall-auction bid it already leads (legal, but it only locks up its own
cash: with every open bid locked, all players could pass round after round, the
privates' income feeding the leader's next raise).  Every game is bounded by
``max_actions``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rhineland.api import new_game
from rhineland.engine.actions import Action, Bid, BuyTrain, Dividend
from rhineland.engine.entities import MARKET
from rhineland.engine.game import Game
from rhineland.engine.legal import AmountRange, Choice, RouteChoice
from rhineland.engine.legal.lazy import Entry, LazyChoices
from rhineland.engine.rounds.auction import WaterfallAuction
from rhineland.engine.titledata import optional_rules_of
from rhineland.titles import TITLES

WEIGHTS: dict[str, float] = {
    "pass": 1.0,
    "bid": 1.0,
    "par": 2.0,
    "buy_shares": 4.0,
    "sell_shares": 0.5,
    "lay_tile": 6.0,
    "place_token": 4.0,
    "run_routes": 1.0,
    "dividend": 1.0,
    "buy_train": 10.0,
    "buy_train_other": 0.2,
    "discard_train": 1.0,
    "buy_company": 1.0,
    "sell_company": 0.3,
    "special_buy": 1.0,
    "assign": 1.0,
    "bankrupt": 0.2,
}
"""Weight of each action kind in the random choice (other kinds: 1)."""

ROUTE_BUDGET: int | None = 2000
"""Search nodes the random choice gives the best-route search of a run
(:meth:`~rhineland.engine.legal.RouteChoice.best` in the anytime mode): the run is a
legal one found within the budget, not always the most valuable (``None``: exact)."""

TITLE_PLAYERS = {"18Rhl": (3, 6), "1893": (2, 4)}
"""Player counts drawn for each title (inclusive)."""


@dataclass
class SelfPlayResult:
    """One self-played game: the game, whether it finished, its end reason, the actions
    processed and each player's result."""

    game: Game
    finished: bool
    end_reason: str | None
    actions: int
    result: dict[int, int] = field(default_factory=dict)


EVEN_WEIGHTS: dict[str, float] = {}
"""Every action kind drawn with the same weight (1.0): rare kinds get tried as often as
common ones (the differential runs against the reference)."""


def _raises_own_lead(game: Game, action: Action) -> bool:
    """Whether ``action`` is a bid on a waterfall-auction item whose top bid is the
    bidder's own (the random player does not make it: module docstring)."""
    rnd = game.round
    if not isinstance(rnd, WaterfallAuction) or not isinstance(action, Bid):
        return False
    for item in rnd.items:
        if item.sym == action.company and item.bids:
            return max(item.bids, key=lambda pid: item.bids[pid]) == action.entity
    return False


def choose(game: Game, rng: random.Random, route_budget: int | None = None,
           weights: dict[str, float] | None = None) -> Action:
    """A random action of ``legal_actions(expand=True)``: an action kind by
    ``weights`` (default :data:`WEIGHTS`) among the kinds with a legal action (operating
    companies mostly pay out), then one legal entry of that kind uniformly (a range: one
    of its amounts uniformly; running trains: the best routes found within ``route_budget`` search
    nodes, see :data:`ROUTE_BUDGET`).

    The candidates are tried only as the draw needs them
    (:class:`~rhineland.engine.legal.lazy.LazyChoices`, whose legal entries are exactly
    ``legal_actions()``): a kind is drawn by weight; if none of its entries is legal it
    is struck out and the draw repeated (so a kind is drawn with its weight's share
    among the kinds that have a legal entry); the kind's entries are tried in a random
    order and the first legal one is taken (uniform among the legal ones).  Ranges are
    drawn from without listing every amount."""
    table = WEIGHTS if weights is None else weights
    lazy = LazyChoices(game)
    kinds: dict[str, list[Entry]] = {}
    for e in lazy.entries:
        if _raises_own_lead(game, e.action):
            continue
        kinds.setdefault(_kind(game, e.action), []).append(e)
    while kinds:
        names = sorted(kinds)
        kind = rng.choices(names, [table.get(k, 1.0) for k in names])[0]
        group = kinds[kind]
        if kind == "dividend":
            payout = [lazy.legal(e) for e in group
                      if isinstance(e.action, Dividend) and e.action.kind == "payout"]
            first = next((a for a in payout if a is not None), None)
            if first is not None and rng.random() < 0.8:
                assert isinstance(first, Action)
                return first
        order = list(group)
        rng.shuffle(order)
        pick = next((c for c in map(lazy.legal, order) if c is not None), None)
        if pick is None:
            del kinds[kind]
            continue
        if isinstance(pick, AmountRange):
            return pick.at(rng.choice(pick.values()))
        if isinstance(pick, RouteChoice):
            return pick.best(game, budget_nodes=route_budget)
        return pick
    raise RuntimeError(f"no legal action in {game.round.label} "
                       f"({game.round.step_name(game)})")


def _kind(game: Game, choice: Choice) -> str:
    """The choice's kind for :data:`WEIGHTS`: its action type, with a train bought from
    another company (``buy_train_other``) apart from the depot's."""
    action = choice.action if isinstance(choice, AmountRange) else choice
    if isinstance(action, BuyTrain) and game.train(action.train).owner not in (None, MARKET):
        return "buy_train_other"
    return action.type


def random_setup(title: str, rng: random.Random) -> tuple[int, tuple[str, ...]]:
    """A random player count for ``title`` and a random mix of its optional rules."""
    lo, hi = TITLE_PLAYERS[title]
    n = rng.randint(lo, hi)
    known = optional_rules_of(TITLES[title].package)
    rules = tuple(r for r in known if rng.random() < 0.4)
    return n, rules


def play(title: str, seed: int, *, players: int | None = None,
         optional_rules: Sequence[str] | None = None, max_actions: int = 5000,
         rules: str = "reference",
         on_action: Callable[[Game, Action], Any] | None = None,
         route_budget: int | None = ROUTE_BUDGET,
         weights: dict[str, float] | None = None) -> SelfPlayResult:
    """Play one random game of ``title`` with ``seed`` (the game's and the choices' seed);
    ``players`` and ``optional_rules`` are drawn from the seed unless given; ``rules``
    is the rule set (``"reference"`` or ``"seed"``); ``route_budget``: the route
    search's node budget (:data:`ROUTE_BUDGET`); ``weights``: the action kinds' weights
    (:func:`choose`).  ``on_action(game, action)`` runs after every action."""
    rng = random.Random(seed)
    n, opts = random_setup(title, rng)
    if players is not None:
        n = players
    if optional_rules is not None:
        opts = tuple(optional_rules)
    game = new_game(title, [f"P{i + 1}" for i in range(n)], seed=seed, optional_rules=opts,
                    rules=rules)
    game.keep_history = False
    count = 0
    while not game.is_terminal and count < max_actions:
        action = choose(game, rng, route_budget, weights)
        game.process(action, atomic=False)  # legal by construction: no snapshot to undo to
        count += 1
        if on_action is not None:
            on_action(game, action)
    return SelfPlayResult(game, game.is_terminal, game.state.game_end_reason, count,
                          game.result() if game.is_terminal else {})
