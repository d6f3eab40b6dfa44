"""A real server for the web tests: uvicorn in a thread on a free loopback port."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn

from rhineland.web import create_app
from rhineland.web.limits import server_config


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def live_server(db_url: str, **app_args: object) -> Iterator[str]:
    """Serve ``create_app(db_url, **app_args)`` as ``rhineland serve`` does (the server's
    limits: ``server_config``); yields the base URL (``http://127.0.0.1:PORT``).  Waits
    (up to 200 polls) until it answers."""
    port = free_port()
    app = create_app(db_url, **app_args)  # type: ignore[arg-type]
    server = uvicorn.Server(server_config(app, "127.0.0.1", port, app.state.limits))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            httpx.get(f"{base}/api/games", timeout=2)
            break
        except httpx.TransportError:
            time.sleep(0.05)
    else:
        raise RuntimeError("the test server did not start")
    try:
        yield base
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def next_event(lines: Iterator[str]) -> tuple[str, dict[str, Any]]:
    """The next server-sent event of a stream's ``lines``: its kind and its data."""
    kind = ""
    for line in lines:
        if line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: "):
            return kind, json.loads(line[6:])
    raise AssertionError("the stream ended")
