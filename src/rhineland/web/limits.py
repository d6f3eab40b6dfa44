"""The web app under hostile use: bounded requests, per-seat action rates, safe headers.

* :class:`RequestGuard` (pure ASGI) reads a request's body before the app does,
  counting its bytes as they arrive (a missing or lying ``Content-Length`` changes
  nothing): over :attr:`Limits.body` bytes (:attr:`Limits.import_body` for an import)
  it answers 413, slower than :attr:`Limits.body_seconds` 408, nested deeper than
  :attr:`Limits.depth` 422; a path with a ``..`` segment, a backslash or a NUL byte is
  404 before any route sees it.  Every refusal is ``{"error": "<one line>"}``.
* :class:`SecurityHeaders` (pure ASGI) puts a Content-Security-Policy without inline
  script, ``frame-ancestors 'none'``, ``X-Frame-Options: DENY``,
  ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy: no-referrer`` on every
  response.
* :class:`TokenBuckets` bound the actions and the chat messages per (game, seat): a
  burst, then a refill rate.
* :func:`server_config` runs uvicorn with timeouts (idle keep-alive, the request head,
  the body), a bound on the request head's size and on concurrent connections.

The values are :class:`Limits`'s defaults (docs/web.md lists them).
"""

from __future__ import annotations

import asyncio
import math
import re
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import orjson
import uvicorn
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

MiB = 1024 * 1024

IMPORT_PATH = "/api/games/import"
"""The one endpoint whose body (an 18xx.games export) may be larger."""


@dataclass(frozen=True)
class Limits:
    """The bounds of the web app.

    ``body``/``import_body``: the largest request body in bytes (an import's: a whole
    18xx.games export; a finished game's weighs about 100 KB); ``body_seconds``: the
    time a body may take to arrive; ``depth``: the deepest JSON nesting of a body;
    ``action_burst`` actions per seat at once, then ``action_rate`` per second;
    ``chat_burst`` chat messages per seat at once, then ``chat_rate`` per second;
    ``streams_per_client``: event streams per client address and game (a new one closes
    the oldest); ``head_seconds``: the time a request's head (line and headers) may take
    to arrive; ``keep_alive_seconds``: an idle connection's life; ``head_bytes``: the
    most of a request head buffered while it is incomplete; ``connections``: concurrent
    connections of one server process (more get 503); ``clock``: monotonic seconds (the
    action and chat rates'; tests drive it).
    """

    body: int = 1 * MiB
    import_body: int = 8 * MiB
    body_seconds: float = 60.0
    depth: int = 64
    action_burst: int = 60
    action_rate: float = 3.0
    chat_burst: int = 10
    chat_rate: float = 0.5
    streams_per_client: int = 8
    head_seconds: float = 10.0
    keep_alive_seconds: int = 5
    head_bytes: int = 16 * 1024
    connections: int = 1000
    clock: Callable[[], float] = time.monotonic


# -- JSON nesting ------------------------------------------------------------------------

_STRING = re.compile(rb'"[^"\\]*(?:\\[\s\S]?[^"\\]*)*(?:"|\Z)')
"""A JSON string literal (an unterminated one runs to the end: no retries, linear)."""

_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_BRACKETS = bytes.maketrans(b"{}", b"[]")


def too_deep(raw: bytes, limit: int) -> bool:
    """Whether the JSON text ``raw`` nests arrays and objects deeper than ``limit``,
    found without parsing it (no recursion: the brackets outside strings, with the
    innermost pairs removed ``limit`` times).  A body whose brackets do not match is
    malformed: left to the parser to refuse."""
    brackets = _STRING.sub(b"", raw).translate(_BRACKETS, _NOT_BRACKET)
    for _ in range(limit):
        reduced = brackets.replace(b"[]", b"")
        if reduced == brackets:
            return False  # empty (depth <= limit) or unmatched brackets only
        brackets = reduced
    return b"[]" in brackets


# -- the request guard -------------------------------------------------------------------

class _TooLarge(Exception):
    pass


def _error(status: int, message: str,
           headers: dict[str, str] | None = None) -> tuple[Message, Message]:
    body = orjson.dumps({"error": message})
    head = [(b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode())]
    head += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    return ({"type": "http.response.start", "status": status, "headers": head},
            {"type": "http.response.body", "body": body})


async def refuse(send: Send, status: int, message: str,
                 headers: dict[str, str] | None = None) -> None:
    """Answer ``status`` with ``{"error": message}`` (JSON, one line)."""
    for msg in _error(status, message, headers):
        await send(msg)


def _bad_path(path: str) -> bool:
    return "\\" in path or "\x00" in path or ".." in path.split("/")


def _declared_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class RequestGuard:
    """Pure ASGI middleware: refuses a request whose path leaves the app's folders (404),
    whose body is too large (413: by its ``Content-Length``, or counted while it arrives),
    too slow (408) or nested too deep (422), all before the app parses anything; then
    hands the app the body it read."""

    def __init__(self, app: ASGIApp, limits: Limits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check the request, read its body within the limits, then run the app."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if _bad_path(scope["path"]):
            await refuse(send, 404, "no such page")
            return
        limit = self.limits.import_body if scope["path"] == IMPORT_PATH else self.limits.body
        too_large = f"the request body is over {limit} bytes ({limit // MiB} MiB), the limit"
        declared = _declared_length(scope)
        if declared is not None and declared > limit:
            await refuse(send, 413, too_large)
            return
        try:
            async with asyncio.timeout(self.limits.body_seconds):
                body, disconnected = await _read_body(receive, limit)
        except _TooLarge:
            await refuse(send, 413, too_large)
            return
        except TimeoutError:
            await refuse(send, 408, f"the request body took over "
                                    f"{self.limits.body_seconds:g} s to arrive")
            return
        if disconnected:
            return  # nobody to answer
        if body and too_deep(body, self.limits.depth):
            await refuse(send, 422, f"the request body nests JSON deeper than "
                                    f"{self.limits.depth} levels")
            return
        await self.app(scope, _replay(body, receive), send)


async def _read_body(receive: Receive, limit: int) -> tuple[bytes, bool]:
    """The body (raises ``_TooLarge`` past ``limit`` bytes) and whether the client left."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b"", True
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise _TooLarge
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), False


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives ``body`` once, then what the client sends (a disconnect)."""
    given = False

    async def replayed() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


# -- response headers --------------------------------------------------------------------

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")
"""The pages' Content-Security-Policy: scripts, styles and requests from the app only
(no inline script or style), never in a frame."""

DOCS_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline' https:; "
            "style-src 'self' 'unsafe-inline' https:; img-src 'self' data: https:; "
            "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
"""The policy of FastAPI's API documentation pages (``/docs``, ``/redoc``), which load
Swagger UI and ReDoc from a CDN and start them with an inline script."""

DOCS_PATHS = ("/docs", "/docs/oauth2-redirect", "/redoc")

HEADERS = {"x-frame-options": "DENY", "x-content-type-options": "nosniff",
           "referrer-policy": "no-referrer"}
"""The other headers of every response (besides the policy)."""


class SecurityHeaders:
    """Pure ASGI middleware: the security headers (:data:`CSP`, :data:`HEADERS`) on
    every HTTP response, refusals and errors included."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the app, adding the headers to its response's start."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        policy = DOCS_CSP if scope["path"] in DOCS_PATHS else CSP
        extra = [(b"content-security-policy", policy.encode()),
                 *((k.encode(), v.encode()) for k, v in HEADERS.items())]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", ())}
                message = {**message, "headers": [*message.get("headers", ()),
                                                  *(h for h in extra if h[0] not in names)]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def guard(app: ASGIApp, limits: Limits) -> ASGIApp:
    """``app`` behind :class:`RequestGuard` and :class:`SecurityHeaders` (outermost)."""
    return SecurityHeaders(RequestGuard(app, limits))


# -- the action rate ---------------------------------------------------------------------

class TokenBuckets:
    """A token bucket per key: ``burst`` tokens at first, ``rate`` more per second up to
    ``burst``; each action takes one.  ``clock()``: monotonic seconds.  Thread-safe;
    full buckets are forgotten once more than ``keep`` keys are known."""

    def __init__(self, burst: int, rate: float, clock: Callable[[], float] = time.monotonic,
                 keep: int = 10_000) -> None:
        self.burst = burst
        self.rate = rate
        self.clock = clock
        self.keep = keep
        self._buckets: dict[Hashable, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: Hashable) -> float:
        """Take a token for ``key``: 0 when one was there, else the seconds until one is
        (nothing is taken then)."""
        with self._lock:
            now = self.clock()
            tokens, at = self._buckets.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - at) * self.rate)
            wait = 0.0 if tokens >= 1 else (1 - tokens) / self.rate
            self._buckets[key] = (tokens - 1 if wait == 0 else tokens, now)
            if len(self._buckets) > self.keep:
                self._forget_full(now)
            return wait

    def _forget_full(self, now: float) -> None:
        for key, (tokens, at) in list(self._buckets.items()):
            if tokens + (now - at) * self.rate >= self.burst:
                del self._buckets[key]


def retry_after(wait: float) -> int:
    """A ``Retry-After`` value (whole seconds, at least 1) for a wait of ``wait`` s."""
    return max(1, math.ceil(wait))


# -- the server --------------------------------------------------------------------------

class TimedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a time limit on each request's head: a client
    that has not sent a whole request line and headers within ``head_seconds`` of
    connecting (or of the previous response) is disconnected (uvicorn itself waits
    for ever).  Its class attribute is set by :func:`server_config`."""

    head_seconds: float = Limits.head_seconds
    _head_timer: asyncio.TimerHandle | None = None
    _waiting: Any = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Start the clock of the first request's head."""
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        """Stop the clock once a request's head is complete (a new request cycle)."""
        super().data_received(data)
        if self.cycle is not self._waiting:
            self._disarm()

    def on_response_complete(self) -> None:
        """Start the clock of the next request's head (unless it is already here)."""
        before = self.cycle
        super().on_response_complete()
        if self.cycle is before and not self.transport.is_closing():
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the clock."""
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._waiting = self.cycle
        self._head_timer = self.loop.call_later(self.head_seconds, self._head_timeout)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timeout(self) -> None:
        self._head_timer = None
        if self.cycle is self._waiting and not self.transport.is_closing():
            self.transport.close()


def server_config(app: ASGIApp, host: str, port: int, limits: Limits | None = None,
                  **options: Any) -> uvicorn.Config:
    """uvicorn's configuration for ``app`` with the server's limits: the request head's
    time (:class:`TimedH11Protocol`) and size, the keep-alive time, the concurrent
    connections, 2 s for open event streams on shutdown; ``options`` go to
    ``uvicorn.Config``."""
    lim = limits or Limits()
    protocol = type("HeadTimedH11", (TimedH11Protocol,), {"head_seconds": lim.head_seconds})
    settings: dict[str, Any] = {
        "http": protocol, "timeout_keep_alive": lim.keep_alive_seconds,
        "h11_max_incomplete_event_size": lim.head_bytes,
        "limit_concurrency": lim.connections, "timeout_graceful_shutdown": 2,
        "log_level": "warning", **options}
    return uvicorn.Config(app, host=host, port=port, **settings)
