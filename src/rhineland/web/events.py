"""Live updates: every stored action is pushed to the open pages as a server-sent event.

:class:`Hub` is fed from any thread (``publish(game_id, last_action_id)``, the store's
``on_change``) and read by the event streams of the event loop: each subscriber has an
``asyncio.Queue`` filled through ``loop.call_soon_threadsafe``.  A stream sends
``event: action`` with ``{"last_action_id": N}``; the page then fetches the state.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator

import orjson

HEARTBEAT = 15.0
"""Seconds between keep-alive comments on an idle stream."""


class Hub:
    """Subscribers by game id; thread-safe publishing."""

    def __init__(self) -> None:
        self._subs: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Queue[int]]]] = {}
        self._lock = threading.Lock()

    def publish(self, game_id: str, last_action_id: int) -> None:
        """Tell every stream of ``game_id`` that the game is now at ``last_action_id``."""
        with self._lock:
            subs = list(self._subs.get(game_id, ()))
        for loop, queue in subs:
            with contextlib.suppress(RuntimeError):  # the loop has closed
                loop.call_soon_threadsafe(queue.put_nowait, last_action_id)

    def subscribers(self, game_id: str) -> int:
        """How many streams of ``game_id`` are open."""
        with self._lock:
            return len(self._subs.get(game_id, ()))

    async def stream(self, game_id: str, first: int) -> AsyncIterator[bytes]:
        """The event stream of ``game_id``: an ``action`` event at once (``first``, the
        last action id now), then one per stored action, a comment every
        :data:`HEARTBEAT` seconds while idle."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[int] = asyncio.Queue()
        entry = (loop, queue)
        with self._lock:
            self._subs.setdefault(game_id, set()).add(entry)
        try:
            yield _event(first)
            while True:
                try:
                    last = await asyncio.wait_for(queue.get(), HEARTBEAT)
                except TimeoutError:
                    yield b": keep-alive\n\n"
                    continue
                while not queue.empty():  # several actions at once: one event
                    last = queue.get_nowait()
                yield _event(last)
        finally:
            with self._lock:
                subs = self._subs.get(game_id)
                if subs is not None:
                    subs.discard(entry)
                    if not subs:
                        del self._subs[game_id]


def _event(last_action_id: int) -> bytes:
    data = orjson.dumps({"last_action_id": last_action_id})
    return b"event: action\ndata: " + data + b"\n\n"
