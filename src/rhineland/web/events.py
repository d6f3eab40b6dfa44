"""Live updates: every stored action and chat message is pushed to the open pages as a
server-sent event.

:class:`Hub` is fed from any thread (``publish(game_id, last_action_id)``, the store's
``on_change``; ``publish_chat(game_id, message_id)``, its ``on_chat``) and read by the
event streams of the event loop: each subscriber has an ``asyncio.Queue`` filled through
``loop.call_soon_threadsafe``.  A stream sends ``event: action`` with
``{"last_action_id": N}`` (the page then fetches the state) and ``event: chat`` with
``{"id": N}``, the newest message (the page then fetches the chat).
A client address has at most ``per_client`` streams of one game open: a new one closes
the oldest (a reloaded page's stream whose end the server has not noticed yet, or a
client opening streams to hold the server).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator

import orjson

HEARTBEAT = 15.0
"""Seconds between keep-alive comments on an idle stream."""

PER_CLIENT = 8
"""Open streams of one game per client address (a household's players, a few tabs)."""

ACTION, CHAT = "action", "chat"
"""The kinds of event."""

_CLOSE = ("close", -1)
"""Put in a stream's queue: the stream ends (a newer one of its client took its place)."""

_Entry = tuple[asyncio.AbstractEventLoop, "asyncio.Queue[tuple[str, int]]"]


class Hub:
    """Subscribers by game id, at most ``per_client`` per client address and game;
    thread-safe publishing."""

    def __init__(self, per_client: int = PER_CLIENT) -> None:
        self.per_client = per_client
        self._subs: dict[str, set[_Entry]] = {}
        self._by_client: dict[tuple[str, str], OrderedDict[_Entry, None]] = {}
        self._lock = threading.Lock()

    def publish(self, game_id: str, last_action_id: int) -> None:
        """Tell every stream of ``game_id`` that the game is now at ``last_action_id``."""
        self._put(game_id, (ACTION, last_action_id))

    def publish_chat(self, game_id: str, message_id: int) -> None:
        """Tell every stream of ``game_id`` that its chat's newest message is ``message_id``."""
        self._put(game_id, (CHAT, message_id))

    def _put(self, game_id: str, item: tuple[str, int]) -> None:
        with self._lock:
            subs = list(self._subs.get(game_id, ()))
        for loop, queue in subs:
            with contextlib.suppress(RuntimeError):  # the loop has closed
                loop.call_soon_threadsafe(queue.put_nowait, item)

    def subscribers(self, game_id: str) -> int:
        """How many streams of ``game_id`` are open."""
        with self._lock:
            return len(self._subs.get(game_id, ()))

    async def stream(self, game_id: str, first: int, client: str = "") -> AsyncIterator[bytes]:
        """The event stream of ``game_id`` for the client address ``client``: an
        ``action`` event at once (``first``, the last action id now), then one per stored
        action and one per chat message (those that come together: one of each kind, the
        newest), a comment every :data:`HEARTBEAT` seconds while idle; it ends when the
        client opens more than ``per_client`` streams of the game (the oldest ends)."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[str, int]] = asyncio.Queue()
        entry = (loop, queue)
        key = (client, game_id)
        with self._lock:
            self._subs.setdefault(game_id, set()).add(entry)
            mine = self._by_client.setdefault(key, OrderedDict())
            mine[entry] = None
            closed = [mine.popitem(last=False)[0] for _ in range(len(mine) - self.per_client)]
        for old_loop, old_queue in closed:
            with contextlib.suppress(RuntimeError):  # the loop has closed
                old_loop.call_soon_threadsafe(old_queue.put_nowait, _CLOSE)
        try:
            yield _event(first)
            while True:
                try:
                    item = await asyncio.wait_for(queue.get(), HEARTBEAT)
                except TimeoutError:
                    yield b": keep-alive\n\n"
                    continue
                newest = {item[0]: item[1]}
                while item != _CLOSE and not queue.empty():  # several: one event a kind
                    item = queue.get_nowait()
                    newest[item[0]] = item[1]
                if _CLOSE[0] in newest:
                    return
                if ACTION in newest:
                    yield _event(newest[ACTION])
                if CHAT in newest:
                    yield _chat_event(newest[CHAT])
        finally:
            with self._lock:
                subs = self._subs.get(game_id)
                if subs is not None:
                    subs.discard(entry)
                    if not subs:
                        del self._subs[game_id]
                left = self._by_client.get(key)
                if left is not None:
                    left.pop(entry, None)
                    if not left:
                        del self._by_client[key]


def _event(last_action_id: int) -> bytes:
    data = orjson.dumps({"last_action_id": last_action_id})
    return b"event: action\ndata: " + data + b"\n\n"


def _chat_event(message_id: int) -> bytes:
    return b"event: chat\ndata: " + orjson.dumps({"id": message_id}) + b"\n\n"
