"""Bots playing their seats on the server.

After every stored action the app calls :meth:`BotRunner.kick`: while a bot seat
decides, the runner plays it one action at a time (each stored as a person's is), a
batch per turn of the worker so that many games share the workers fairly.  ``inline``
runners play at once in the caller's thread (tests, deterministic).
"""

from __future__ import annotations

import sys
import threading
from concurrent.futures import ThreadPoolExecutor

from rhineland.web.store import GameStore, WebError

BATCH = 8
"""Bot actions of one game per turn of a worker."""


class BotRunner:
    """Plays the bot seats of ``store``'s games with ``workers`` threads (or inline)."""

    def __init__(self, store: GameStore, *, workers: int = 2, inline: bool = False) -> None:
        self.store = store
        self.inline = inline
        self._pool = None if inline else ThreadPoolExecutor(workers, "rhineland-bots")
        self._queued: set[str] = set()
        self._again: set[str] = set()  # kicked while queued: look again after the run
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self.errors: list[str] = []

    def kick(self, game_id: str) -> None:
        """Play game ``game_id``'s bot seats until a person is to act (inline: now;
        else in the workers)."""
        if self._pool is None:
            while self._step(game_id):
                pass
            return
        with self._lock:
            if game_id in self._queued:
                self._again.add(game_id)
                return
            self._queued.add(game_id)
        self._pool.submit(self._run, game_id)

    def _run(self, game_id: str) -> None:
        more = False
        try:
            for _ in range(BATCH):
                more = self._step(game_id)
                if not more:
                    break
        finally:
            with self._lock:
                self._queued.discard(game_id)
                more = more or game_id in self._again
                self._again.discard(game_id)
                if not more:
                    self._idle.notify_all()
        if more and self._pool is not None:
            self.kick(game_id)

    def _step(self, game_id: str) -> bool:
        try:
            return self.store.bot_step(game_id)
        except WebError as exc:  # e.g. a second server stored first: try again later
            self.errors.append(f"{game_id}: {exc.message}")
            return False
        except Exception as exc:  # a bot failed: the game waits, the server goes on
            msg = f"{game_id}: bot failed: {type(exc).__name__}: {exc}"
            self.errors.append(msg)
            print(f"rhineland serve: {msg}", file=sys.stderr)
            return False

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until no game is queued (``False`` on timeout)."""
        with self._lock:
            return self._idle.wait_for(lambda: not self._queued, timeout)

    def shutdown(self) -> None:
        """Stop the workers (the games queued stay stored; a restart resumes them)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
