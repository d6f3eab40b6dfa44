"""Past positions of a stored game: the game after its first ``at`` actions, replayed
from the stored actions (nothing is written, the live game is not changed).

:class:`History` keeps a few replayed positions per process (an LRU): a position is
replayed from the nearest cached one before it (a copy, with the undo snapshots the
actions after it need) or from the start, and every :data:`CHECKPOINT` actions of such a
walk is kept too, so stepping back through a long game replays a few actions, not the
whole game.  The stored actions of a game only ever grow at the end (an undo is an action
too), so a position once replayed stays true.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rhineland.engine.actions import Action
from rhineland.engine.game import Game
from rhineland.errors import GameError
from rhineland.io.export import Export, game_from_export, undo_targets

CHECKPOINT = 64
"""Every this many actions of a replay, the position is kept as a starting point."""

CACHE = 32
"""Positions kept per process (the asked ones and the checkpoints)."""


class HistoryError(Exception):
    """A stored action did not replay (it did when the game was loaded): one line."""


@dataclass
class Position:
    """A replayed past position: ``game`` after ``at`` actions (never changed once
    cached: copies go on from it), ``below`` the positions before ``at`` whose undo
    snapshots it kept, and what was drawn of it (``views``, filled once each under
    ``lock``)."""

    at: int
    game: Game
    below: frozenset[int]
    lock: threading.Lock = field(default_factory=threading.Lock)
    views: dict[str, Any] = field(default_factory=dict)

    def view(self, name: str, make: Callable[[Game], Any]) -> Any:
        """``make(game)``, computed once per ``name`` (the game is read under the lock)."""
        with self.lock:
            if name not in self.views:
                self.views[name] = make(self.game)
            return self.views[name]


def setup_of(game: Game) -> Export:
    """The setup of ``game`` as an export without actions (title, players, seed,
    optional rules, rule set): what a replay of its actions starts from."""
    return Export(title=game.data.title, players=list(game.seats), seed=game.seed,
                  optional_rules=list(game.title.optional_rules), actions=[],
                  rules=game.title.rules)


class History:
    """Replayed past positions by ``(game id, at)``, at most ``size`` kept (LRU);
    thread-safe."""

    def __init__(self, size: int = CACHE, checkpoint: int = CHECKPOINT) -> None:
        self.size = size
        self.checkpoint = checkpoint
        self._cache: OrderedDict[tuple[str, int], Position] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._cache)

    def position(self, game_id: str, setup: Export, actions: Sequence[Action],
                 at: int) -> Position:
        """The game ``game_id`` (its ``setup``, its stored ``actions``) after its first
        ``at`` actions (``0 <= at <= len(actions)``).  Raises :class:`HistoryError` if a
        stored action does not replay."""
        key = (game_id, at)
        prefix = list(actions[:at])
        targets = undo_targets(prefix)
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
            start = self._start(game_id, at, targets)
        if start is None:
            game, done = game_from_export(setup), 0
        else:
            with start.lock:
                game = start.game.copy(history=True)
            done = start.at
        kept: list[Position] = []
        for i in range(done, at):
            try:
                game.process(prefix[i], atomic=False, history=i in targets)
            except GameError as exc:
                raise HistoryError(f"action {prefix[i].id} does not replay: {exc}") from None
            step = i + 1
            if step < at and step % self.checkpoint == 0:
                kept.append(Position(step, game.copy(history=True),
                                     _below(targets, step)))
        out = Position(at, game, _below(targets, at))
        with self._lock:
            for p in [*kept, out]:
                self._cache[(game_id, p.at)] = p
                self._cache.move_to_end((game_id, p.at))
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)
        return out

    def _start(self, game_id: str, at: int, targets: set[int]) -> Position | None:
        """The cached position of ``game_id`` nearest before ``at`` that kept the undo
        snapshots the replay to ``at`` needs (``None``: start afresh)."""
        best: Position | None = None
        for (gid, k), p in self._cache.items():
            if gid != game_id or k >= at or (best is not None and k <= best.at):
                continue
            if _below(targets, k) <= p.below:
                best = p
        return best


def _below(targets: set[int], at: int) -> frozenset[int]:
    return frozenset(t for t in targets if t < at)
