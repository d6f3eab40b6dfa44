"""``MCTSBot``: Monte Carlo tree search (UCT; greedy opponents, or max-n) over the legal
actions, at a cost a whole game can afford.

What makes it affordable (the greedy bot, :mod:`rhineland.bots.greedy`, is the
prior and the rollout policy):

* **Search only strategic decisions.**  A decision is searched when it offers one of
  :data:`SEARCHED` (bids, pars, share buys and sales, dividends, train buys and
  discards, merger votes) and more than one candidate; tile lays, tokens, routes and
  every other decision are the greedy bot's.
* **Candidates** (:func:`candidate_actions`): the greedy bot's action first, then every
  other legal action except tile lays, tokens and runs (the greedy pick stands for
  them), an amount range at its lowest and highest amount (a bid at its lowest
  only), another company's train only from a company of the same president, share
  sales only when the player may not pass.
* **Progressive widening**: a node visited ``n`` times has at most
  ``1 + widening * sqrt(n)`` children (the greedy action is always the first), so a
  small budget is spent on few actions rather than one visit each.
* **Greedy opponents**: in the tree only the searching player branches; every other
  player's node has one child, their greedy action (``opponents="greedy"``, the
  default; ``"search"`` branches for everyone, max-n).  With a budget of a few
  iterations, max-n let imagined opponents dump the searcher's shares and made
  the searcher sell first.
* **Truncated rollouts**: at most ``depth`` greedy actions after the new node, then a
  heuristic value (:func:`estimated_values`): each player's value (cash + certificates
  at market price, the title's score) plus ``horizon`` operating rounds of the
  dividends their shares would earn at each company's current best-route revenue
  (and five ORs of their privates' income where the score counts privates at
  nothing, as in 18Rhl), half of each company's assets (treasury and
  trains at face value) to its holders by percent, less, for the president of a
  floated company without a train, what it lacks for the cheapest depot train
  (what the president would top up).  Without the assets the search paid other
  companies any price for a train and never withheld; without the liability it
  ignored a coming forced buy.  A player's reward is their value against the best
  of the others (:func:`leader_rewards`); a finished game gives the final scores.
* **A fixed budget of ``iterations`` per searched decision** (a count, never a clock):
  the same seed and position give the same choice.

The action chosen is the most visited child of the root (ties: the higher mean),
unless its mean reward beats the greedy action's by less than ``margin``: then the
greedy action (the heuristic value is rough; a deviation must pay for its risk, which
stopped the search from buying and selling the same share in a stock round to move
money into its company).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from rhineland.bots.base import Bot, decider
from rhineland.bots.greedy import GreedyBot
from rhineland.bots.random_bot import RandomBot
from rhineland.engine.actions import (
    Action,
    Bid,
    BuyTrain,
    LayTile,
    Pass,
    PlaceToken,
    RunRoutes,
    SellShares,
)
from rhineland.engine.entities import Train
from rhineland.engine.game import Game
from rhineland.engine.legal import AmountRange, RouteChoice
from rhineland.errors import GameError
from rhineland.routes.search import best_routes

SEARCHED = frozenset({"bid", "par", "buy_shares", "sell_shares", "dividend", "buy_train",
                      "discard_train", "special_buy"})
"""Action types that make a decision worth a search (see the module docstring)."""

AUTO_PRIVATE_HORIZON = 5.0
"""ORs of private income in the value where the score counts privates at nothing."""

ROUTE_BUDGET = 400
"""Search nodes the heuristic value gives each company's best-route estimate."""


def candidate_actions(game: Game, greedy: Action | None = None) -> list[Action]:
    """The actions the search tries for the decision now: ``greedy`` (the greedy bot's
    action, computed when not given) first, then every other legal action except
    tile lays, tokens and runs, each amount range at its lowest and its highest
    amount (a bid at its lowest only: a value taken before the auction resolves
    cannot see the price of an overbid), a train of another company only when the
    same player presides both (the seller's consent), a share sale only when the
    player may not pass (a forced sale: a dump judged by a value a few actions deep
    sold the searcher's own companies away); no action twice.  Only
    ``greedy`` when the decision offers none of :data:`SEARCHED`."""
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

    pid = decider(game)
    may_pass = any(isinstance(c, Pass) for c in choices)
    for c in choices:
        if isinstance(c, AmountRange) and isinstance(c.action, BuyTrain) \
                and not _own_train(game, c.action.train, pid):
            continue
        if isinstance(c, SellShares) and may_pass:
            continue
        if isinstance(c, AmountRange):
            add(c.at(c.min))
            if c.max != c.min and not isinstance(c.action, Bid):
                add(c.at(c.max))
        elif isinstance(c, RouteChoice | LayTile | PlaceToken | RunRoutes):
            continue
        else:
            add(c)
    return out


def _own_train(game: Game, train_id: str, pid: int) -> bool:
    """Whether ``train_id`` belongs to a company player ``pid`` decides for (a train
    trade between two companies needs both presidents to agree: the search offers
    only trades between companies of the same president)."""
    owner = game.train(train_id).owner
    seller = game.corporations.get(owner) if isinstance(owner, str) else None
    seller_minor = game.minors.get(owner) if isinstance(owner, str) else None
    entity = seller if seller is not None else seller_minor
    return entity is not None and pid in game.entity_owner_ids(entity)


def _key(action: Action) -> str:
    return repr(action)


RevenueCache = dict[tuple[str, int, int, tuple[str, ...]], int]
"""Best-route revenue (M) by company symbol, board version, phase and train ids."""


def estimated_values(game: Game, horizon: float = 2.0,
                     route_budget: int | None = ROUTE_BUDGET,
                     cache: RevenueCache | None = None, *, treasury: float = 0.0,
                     liabilities: bool = False,
                     private_horizon: float | None = None) -> dict[int, float]:
    """Each player's estimated worth (M) by player id: the final score once the game is
    over; else their value (:meth:`Game.player_value`: cash + certificates at market
    price and the title's extras) plus ``horizon`` times one operating round's income
    from their holdings: a corporation's best-route revenue (found within
    ``route_budget`` search nodes) times the percent held, half a minor's revenue to
    its owner, and ``private_horizon`` (default: ``horizon``) operating rounds of the
    fixed income of the private companies they own.

    ``treasury`` (0..1) adds that fraction of each company's assets (treasury and
    its trains at face value) to its holders by percent held (a minor's half to its
    owner): money a company keeps, or spends on an overpriced train, is then not
    worth nothing to its shareholders, and a train bought at face value costs them
    nothing until it rusts.
    ``liabilities`` takes from a president what their company lacks for the cheapest
    depot train when it has no train (the president tops up a forced train buy, the
    liability a rust leaves behind).  ``cache`` keeps revenues found (by company,
    board version, phase and trains) for the next calls."""
    if game.is_terminal:
        return {pid: float(v) for pid, v in game.result().items()}
    values = {p.id: float(game.player_value(p)) for p in game.players}
    if horizon > 0:
        _add_income(game, values, horizon, route_budget, cache)
    ph = horizon if private_horizon is None else private_horizon
    for private in game.privates.values():
        if not private.closed and isinstance(private.owner, int) and private.owner in values:
            values[private.owner] += ph * private.spec.revenue
    if treasury > 0:
        for corp in game.corporations.values():
            if corp.closed or not corp.floated:
                continue
            assets = corp.cash + sum(t.spec.price for t in corp.trains if not t.rusted)
            for cert in corp.certificates:
                if isinstance(cert.owner, int) and cert.owner in values:
                    values[cert.owner] += treasury * assets * cert.percent / 100
        for minor in game.minors.values():
            if not minor.closed and minor.floated and minor.owner in values:
                assert minor.owner is not None
                assets = minor.cash + sum(t.spec.price for t in minor.trains if not t.rusted)
                values[minor.owner] += treasury * assets / 2
    if liabilities:
        _take_liabilities(game, values)
    return values


def _add_income(game: Game, values: dict[int, float], horizon: float,
                route_budget: int | None, cache: RevenueCache | None) -> None:
    """Add ``horizon`` operating rounds of dividends to ``values``."""
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


def score_counts_privates(game: Game) -> bool | None:
    """Whether the title's score (:meth:`Game.player_value`) counts a private company
    its owner holds (1893: at face value; 18Rhl: not at all), found on a copy by
    taking an open private from its owner; ``None`` while no player owns one."""
    for private in game.privates.values():
        owner = private.owner
        if private.closed or not isinstance(owner, int):
            continue
        twin = game.copy()
        player = twin.player(owner)
        before = twin.player_value(player)
        twin.privates[private.sym].owner = None
        if private.sym in player.companies:
            player.companies.remove(private.sym)
        return twin.player_value(player) != before
    return None


def _take_liabilities(game: Game, values: dict[int, float]) -> None:
    """Take from each president what their floated, trainless corporation lacks for
    the cheapest depot train (M)."""
    depot = game.depot_trains()
    if not depot:
        return
    cheapest = min(t.spec.price for t in depot)
    for corp in game.corporations.values():
        if corp.closed or not corp.floated or corp.trains:
            continue
        pres = corp.president
        if pres is not None and pres in values:
            values[pres] -= max(0, cheapest - corp.cash)


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


def leader_rewards(values: dict[int, float]) -> dict[int, float]:
    """Each player's value against the best of the others: ``v / (v + max other)``
    (0..1, 0.5 when level with the leader; negative values count as 0): a gain over
    the leader counts, a loss of a trailing player does not.  One player gets 1."""
    clipped = {pid: max(0.0, v) for pid, v in values.items()}
    out: dict[int, float] = {}
    for pid, v in clipped.items():
        best = max((w for q, w in clipped.items() if q != pid), default=0.0)
        out[pid] = v / (v + best) if v + best > 0 else (1.0 if len(clipped) == 1 else 0.5)
    return out


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
    ``treasury`` and ``liabilities`` the company-treasury and trainless-president
    terms of the value (:func:`estimated_values`), ``opponents`` the model of the
    other players in the tree (``"greedy"``: their greedy action only; ``"search"``:
    their own candidates, max-n), ``reward`` how values become rewards
    (``"leader"``: :func:`leader_rewards`; ``"share"``: :func:`rewards`), ``margin``
    the mean reward by which the chosen action must beat the greedy action's mean
    (else the greedy action is played), ``private_horizon`` the operating rounds of
    private income in the value (``None``: see :meth:`_private_horizon`),
    ``seed`` the seed of the candidates' order.  ``rollout="random"`` rolls out with a
    seeded random bot instead of the greedy one.  Raises ``ValueError`` for an unknown
    rollout, opponent model or reward or a budget below 1, ``RuntimeError`` when no
    action is legal."""

    name = "mcts"

    def __init__(self, iterations: int = 8, *, rollout: str = "greedy", depth: int = 0,
                 horizon: float = 2.0, widening: float = 1.5, exploration: float = 0.5,
                 treasury: float = 0.5, liabilities: bool = True, opponents: str = "greedy",
                 reward: str = "leader", margin: float = 0.01,
                 private_horizon: float | None = None, seed: int = 0) -> None:
        if rollout not in ("greedy", "random"):
            raise ValueError(f"unknown rollout {rollout!r} (greedy or random)")
        if opponents not in ("greedy", "search"):
            raise ValueError(f"unknown opponent model {opponents!r} (greedy or search)")
        self.opponents = opponents
        self.margin = margin
        self.private_horizon = private_horizon
        self._scored: dict[str, bool] = {}  # title name: whether its score counts privates
        self.last_root: _Node | None = None
        """The root of the last search (``None`` before one)."""
        if reward not in ("leader", "share"):
            raise ValueError(f"unknown reward {reward!r} (leader or share)")
        self._reward = leader_rewards if reward == "leader" else rewards
        self._root_pid = 0
        if iterations < 1:
            raise ValueError(f"MCTS needs at least 1 iteration, not {iterations}")
        self.iterations = iterations
        self.depth = depth
        self.horizon = horizon
        self.treasury = treasury
        self.liabilities = liabilities
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
        self._root_pid = entity
        root = _Node(None, entity, untried=self._ordered(actions))
        for _ in range(self.iterations):
            self._iterate(root, root_game)
        best = max(root.children, key=lambda n: (n.visits, n.mean(entity)))
        self.last_visits = {repr(n.action): n.visits for n in root.children}
        self.last_root = root
        first = root.children[0]  # the greedy action, tried first
        if best is not first and best.mean(entity) < first.mean(entity) + self.margin:
            best = first
        assert best.action is not None
        return best.action

    def _ordered(self, actions: list[Action]) -> list[Action]:
        """The untried list, popped from the end: the greedy action (first) is tried
        first, the others in a seeded random order."""
        rest = actions[1:]
        self.rng.shuffle(rest)
        return [*rest, actions[0]]

    def _private_horizon(self, game: Game) -> float:
        """The ORs of private income in the value: ``private_horizon`` when given; else
        5 where the score counts privates at nothing (18Rhl), 0 where it counts them
        (1893: the face value stands for them; income on top made the search buy
        privates for the cash its shares needed)."""
        if self.private_horizon is not None:
            return self.private_horizon
        name = game.title.name
        if name not in self._scored:
            found = score_counts_privates(game)
            if found is None:
                return 0.0
            self._scored[name] = found
        return 0.0 if self._scored[name] else AUTO_PRIVATE_HORIZON

    def _candidates(self, game: Game, mover: int) -> list[Action]:
        """The untried list of a new node: the searched player's candidates, or only
        the greedy action of another player (``opponents="greedy"``)."""
        if self.opponents == "greedy" and mover != self._root_pid:
            return [self.greedy.choose(game, mover)]
        return self._ordered(candidate_actions(game))

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
                node.untried = self._candidates(g, node.mover)
        # expansion
        if node.mover is not None and not g.is_terminal:
            if node.untried is None:
                node.untried = self._candidates(g, node.mover)
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
        reward = self._reward(estimated_values(g, self.horizon, cache=self.revenues,
                                          treasury=self.treasury,
                                          liabilities=self.liabilities,
                                          private_horizon=self._private_horizon(g)))
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
