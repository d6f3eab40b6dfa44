"""``MCTSBot``: Monte Carlo tree search (UCT) over the legal actions.

Each of ``iterations`` iterations walks down the tree from a copy of the game, at
each node taking the child with the best upper confidence bound *for the player
who decides there* (max-n: every node keeps each player's total reward), adds
one untried action, plays a rollout of at most ``depth`` actions with the
greedy or the random bot, and backs the rewards up.  A player's reward is their
share of all players' values (cash plus certificates, the score), in 0..1; the
final score at the end of the game.  The action chosen is the most visited
child of the root.  The budget is a count of iterations, so the same seed and
position give the same choice.

A node's actions are the legal actions with a range at its lowest amount (and
its highest, for a bid or price) and a run as its best routes
(:func:`candidate_actions`).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from rhineland.bots.base import Bot, decider
from rhineland.bots.greedy import GreedyBot
from rhineland.bots.random_bot import RandomBot
from rhineland.engine.actions import Action
from rhineland.engine.game import Game
from rhineland.engine.legal import AmountRange, RouteChoice
from rhineland.errors import GameError


def candidate_actions(game: Game) -> list[Action]:
    """The actions the search tries now: every plain legal action, each amount range at
    its lowest and its highest amount, the run as its best routes."""
    out: list[Action] = []
    for c in game.legal_actions():
        if isinstance(c, AmountRange):
            out.append(c.at(c.min))
            if c.max != c.min:
                out.append(c.at(c.max))
        elif isinstance(c, RouteChoice):
            out.append(c.best(game))
        else:
            out.append(c)
    return out


def rewards(game: Game) -> dict[int, float]:
    """Each player's share (0..1) of the sum of all players' values (the final
    scores once the game is over); equal shares when every value is 0."""
    values = {p.id: max(0, game.player_value(p)) for p in game.players}
    total = sum(values.values())
    if total <= 0:
        return {pid: 1.0 / len(values) for pid in values}
    return {pid: v / total for pid, v in values.items()}


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
    """UCT search with ``iterations`` iterations per decision (see the module
    docstring); ``rollout`` is ``"greedy"`` or ``"random"``, ``depth`` the rollout
    length in actions, ``exploration`` the UCB constant.  A decision with a single
    candidate is taken without search.  Raises ``ValueError`` for an unknown
    rollout and ``RuntimeError`` when no action is legal."""

    name = "mcts"

    def __init__(self, iterations: int = 48, *, rollout: str = "greedy", depth: int = 30,
                 exploration: float = 0.7, seed: int = 0) -> None:
        if rollout not in ("greedy", "random"):
            raise ValueError(f"unknown rollout {rollout!r} (greedy or random)")
        self.iterations = iterations
        self.depth = depth
        self.exploration = exploration
        self.rng = random.Random(seed)
        self.rollout_bot: Bot = GreedyBot() if rollout == "greedy" else RandomBot(seed)
        self.last_visits: dict[str, int] = {}

    def choose(self, game: Game, entity: int) -> Action:
        """The most visited root action after the search (``game`` is not changed)."""
        root_game = game.copy()
        root_game.keep_history = False
        actions = candidate_actions(root_game)
        if not actions:
            raise RuntimeError(f"no legal action in {game.round.label}")
        if len(actions) == 1:
            return actions[0]
        root = _Node(None, entity, untried=list(actions))
        for _ in range(self.iterations):
            self._iterate(root, root_game)
        best = max(root.children, key=lambda n: (n.visits, n.mean(entity)))
        self.last_visits = {repr(n.action): n.visits for n in root.children}
        assert best.action is not None
        return best.action

    def _iterate(self, root: _Node, root_game: Game) -> None:
        g = root_game.copy()
        g.keep_history = False
        node = root
        path = [root]
        # selection
        while node.untried is not None and not node.untried and node.children:
            node = self._select(node)
            assert node.action is not None
            g.process(node.action, atomic=False, history=False)
            path.append(node)
        # expansion
        if node.mover is not None and not g.is_terminal:
            if node.untried is None:
                node.untried = candidate_actions(g)
            while node.untried:
                action = node.untried.pop(self.rng.randrange(len(node.untried)))
                try:
                    g.process(action, atomic=True, history=False)
                except GameError:
                    continue
                child = _Node(action, None if g.is_terminal else decider(g))
                node.children.append(child)
                path.append(child)
                break
        # rollout
        for _ in range(self.depth):
            if g.is_terminal:
                break
            pid = decider(g)
            g.process(self.rollout_bot.choose(g, pid), atomic=False, history=False)
        reward = rewards(g)
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
