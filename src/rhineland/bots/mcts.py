"""``MCTSBot``: Monte Carlo tree search (UCT, max-n) over the legal actions, at a cost
a whole game can afford.

What makes it affordable (the greedy bot, :mod:`rhineland.bots.greedy`, is the
prior and the rollout policy):

* **Search only strategic decisions.**  A decision is searched when it offers one of
  :data:`SEARCHED` (bids, pars, share buys and sales, dividends, train buys and
  discards, merger votes) and more than one candidate; tile lays, tokens, routes and
  every other decision are the greedy bot's.
* **Candidates** (:func:`candidate_actions`): the greedy bot's action first, then every
  other legal action except tile lays, tokens and runs (the greedy pick stands for
  them), an amount range at its lowest and highest amount.
* **Progressive widening**: a node visited ``n`` times has at most
  ``1 + widening * sqrt(n)`` children (the greedy action is always the first), so a
  small budget is spent on few actions rather than one visit each.
* **Truncated rollouts**: at most ``depth`` greedy actions after the new node, then a
  heuristic value (:func:`estimated_values`): each player's value (cash + certificates
  at market price, the title's score) plus ``horizon`` operating rounds of the
  dividends their shares would earn at each company's current best-route revenue.
  A player's reward is their share of all players' values (0..1); a finished game
  gives the final scores.
* **A fixed budget of ``iterations`` per searched decision** (a count, never a clock):
  the same seed and position give the same choice.

The action chosen is the most visited child of the root (ties: the higher mean).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from rhineland.bots.base import Bot, decider
from rhineland.bots.greedy import GreedyBot
from rhineland.bots.random_bot import RandomBot
from rhineland.engine.actions import Action, LayTile, PlaceToken, RunRoutes
from rhineland.engine.entities import Train
from rhineland.engine.game import Game
from rhineland.engine.legal import AmountRange, RouteChoice
from rhineland.errors import GameError
from rhineland.routes.search import best_routes

SEARCHED = frozenset({"bid", "par", "buy_shares", "sell_shares", "dividend", "buy_train",
                      "discard_train", "special_buy"})
"""Action types that make a decision worth a search (see the module docstring)."""

ROUTE_BUDGET = 400
"""Search nodes the heuristic value gives each company's best-route estimate."""


def candidate_actions(game: Game, greedy: Action | None = None) -> list[Action]:
    """The actions the search tries for the decision now: ``greedy`` (the greedy bot's
    action, computed when not given) first, then every other legal action except
    tile lays, tokens and runs, each amount range at its lowest and its highest
    amount; no action twice.  Only ``greedy`` when the decision offers none of
    :data:`SEARCHED`."""
    choices = game.legal_actions()
    if greedy is None:
        pid = decider(game)
        greedy = GreedyBot().choose(game, pid)
    if not {c.type for c in choices} & SEARCHED:
        return [greedy]
    out = [greedy]
    seen = {_key(greedy)}

    def add(a: Action) -> None:
        k = _key(a)
        if k not in seen:
            seen.add(k)
            out.append(a)

    for c in choices:
        if isinstance(c, AmountRange):
            add(c.at(c.min))
            if c.max != c.min:
                add(c.at(c.max))
        elif isinstance(c, RouteChoice | LayTile | PlaceToken | RunRoutes):
            continue
        else:
            add(c)
    return out


def _key(action: Action) -> str:
    return repr(action)


RevenueCache = dict[tuple[str, int, int, tuple[str, ...]], int]
"""Best-route revenue (M) by company symbol, board version, phase and train ids."""


def estimated_values(game: Game, horizon: float = 2.0,
                     route_budget: int | None = ROUTE_BUDGET,
                     cache: RevenueCache | None = None) -> dict[int, float]:
    """Each player's estimated worth (M) by player id: the final score once the game is
    over; else their value (:meth:`Game.player_value`: cash + certificates at market
    price and the title's extras) plus ``horizon`` times one operating round's income
    from their holdings: a corporation's best-route revenue (found within
    ``route_budget`` search nodes) times the percent held, half a minor's revenue to
    its owner.  ``cache`` keeps revenues found (by company, board version, phase and
    trains) for the next calls."""
    if game.is_terminal:
        return {pid: float(v) for pid, v in game.result().items()}
    values = {p.id: float(game.player_value(p)) for p in game.players}
    if horizon <= 0:
        return values
    for corp in game.corporations.values():
        if corp.closed or not corp.floated or not corp.trains:
            continue
        rev = _revenue(game, corp.sym, corp.trains, route_budget, cache)
        for cert in corp.certificates:
            if isinstance(cert.owner, int) and cert.owner in values:
                values[cert.owner] += horizon * rev * cert.percent / 100
    for minor in game.minors.values():
        if minor.closed or not minor.floated or not minor.trains or minor.owner is None:
            continue
        if minor.owner in values:
            rev = _revenue(game, minor.sym, minor.trains, route_budget, cache)
            values[minor.owner] += horizon * rev / 2
    return values


def _revenue(game: Game, sym: str, trains: list[Train], budget: int | None,
             cache: RevenueCache | None) -> int:
    key = (sym, game.state.board.version, game.state.phase, tuple(t.id for t in trains))
    if cache is not None and key in cache:
        return cache[key]
    try:
        rev = best_routes(game, sym, budget_nodes=budget).revenue
    except GameError:
        rev = 0
    if cache is not None:
        if len(cache) > 20000:
            cache.clear()
        cache[key] = rev
    return rev


def rewards(values: dict[int, float]) -> dict[int, float]:
    """Each player's share (0..1) of the sum of all players' ``values`` (negative
    values count as 0); equal shares when every value is 0."""
    clipped = {pid: max(0.0, v) for pid, v in values.items()}
    total = sum(clipped.values())
    if total <= 0:
        return {pid: 1.0 / len(clipped) for pid in clipped}
    return {pid: v / total for pid, v in clipped.items()}


@dataclass
class _Node:
    action: Action | None
    mover: int | None  # the player deciding at this node (None: the game is over)
    untried: list[Action] | None = None
    children: list[_Node] = field(default_factory=list)
    visits: int = 0
    totals: dict[int, float] = field(default_factory=dict)

    def mean(self, pid: int) -> float:
        return self.totals.get(pid, 0.0) / self.visits if self.visits else 0.0


class MCTSBot:
    """UCT search with ``iterations`` iterations per searched decision (see the module
    docstring): ``depth`` greedy rollout actions before the heuristic value (``0``: the
    value right after the tree), ``horizon`` operating rounds of income in that value,
    ``widening`` the progressive-widening factor, ``exploration`` the UCB constant,
    ``seed`` the seed of the candidates' order.  ``rollout="random"`` rolls out with a
    seeded random bot instead of the greedy one.  Raises ``ValueError`` for an unknown
    rollout or a budget below 1, ``RuntimeError`` when no action is legal."""

    name = "mcts"

    def __init__(self, iterations: int = 8, *, rollout: str = "greedy", depth: int = 0,
                 horizon: float = 2.0, widening: float = 1.5, exploration: float = 0.5,
                 seed: int = 0) -> None:
        if rollout not in ("greedy", "random"):
            raise ValueError(f"unknown rollout {rollout!r} (greedy or random)")
        if iterations < 1:
            raise ValueError(f"MCTS needs at least 1 iteration, not {iterations}")
        self.iterations = iterations
        self.depth = depth
        self.horizon = horizon
        self.widening = widening
        self.exploration = exploration
        self.rng = random.Random(seed)
        self.greedy = GreedyBot()
        self.rollout_bot: Bot = self.greedy if rollout == "greedy" else RandomBot(seed)
        self.revenues: RevenueCache = {}
        self.last_visits: dict[str, int] = {}
        self.searched = 0
        """Decisions searched so far (the others were the greedy bot's)."""

    def choose(self, game: Game, entity: int) -> Action:
        """The most visited root action after the search, or the greedy action when
        the decision is not searched (``game`` is not changed)."""
        greedy = self.greedy.choose(game, entity)
        actions = candidate_actions(game, greedy)
        self.last_visits = {}
        if len(actions) == 1:
            return actions[0]
        self.searched += 1
        root_game = game.copy()
        root_game.keep_history = False
        root = _Node(None, entity, untried=self._ordered(actions))
        for _ in range(self.iterations):
            self._iterate(root, root_game)
        best = max(root.children, key=lambda n: (n.visits, n.mean(entity)))
        self.last_visits = {repr(n.action): n.visits for n in root.children}
        assert best.action is not None
        return best.action

    def _ordered(self, actions: list[Action]) -> list[Action]:
        """The untried list, popped from the end: the greedy action (first) is tried
        first, the others in a seeded random order."""
        rest = actions[1:]
        self.rng.shuffle(rest)
        return [*rest, actions[0]]

    def _widen(self, node: _Node) -> bool:
        """Whether ``node`` may get one more child now."""
        return bool(node.untried) and \
            len(node.children) < 1 + self.widening * math.sqrt(node.visits)

    def _iterate(self, root: _Node, root_game: Game) -> None:
        g = root_game.copy()
        g.keep_history = False
        node = root
        path = [root]
        # selection
        while node.children and not self._widen(node):
            node = self._select(node)
            assert node.action is not None
            g.process(node.action, atomic=False, history=False)
            path.append(node)
            if node.mover is not None and node.untried is None and not g.is_terminal:
                node.untried = self._ordered(candidate_actions(g))
        # expansion
        if node.mover is not None and not g.is_terminal:
            if node.untried is None:
                node.untried = self._ordered(candidate_actions(g))
            while node.untried:
                action = node.untried.pop()
                try:
                    g.process(action, atomic=True, history=False)
                except GameError:
                    continue
                child = _Node(action, None if g.is_terminal else decider(g))
                node.children.append(child)
                path.append(child)
                break
        # truncated rollout
        for _ in range(self.depth):
            if g.is_terminal:
                break
            pid = decider(g)
            g.process(self.rollout_bot.choose(g, pid), atomic=False, history=False)
        reward = rewards(estimated_values(g, self.horizon, cache=self.revenues))
        for n in path:
            n.visits += 1
            for pid, r in reward.items():
                n.totals[pid] = n.totals.get(pid, 0.0) + r

    def _select(self, node: _Node) -> _Node:
        mover = node.mover
        log_n = math.log(max(1, node.visits))

        def ucb(child: _Node) -> float:
            if child.visits == 0:
                return math.inf
            value = child.mean(mover) if mover is not None else 0.0
            return value + self.exploration * math.sqrt(log_n / child.visits)

        return max(node.children, key=ucb)
