"""The web app under hostile use (rhineland.web.limits): bodies bounded in size, time and
nesting before they are parsed; ids and secrets checked for shape before the database;
static paths confined to the static folder; a seat's action rate bounded (429 with
Retry-After, on a clock the test drives); event streams bounded per client; slow clients
disconnected; the security headers on every response; and a fuzz of every endpoint's
path and body (no 500, no traceback), after which every game replays to its state."""

from __future__ import annotations

import asyncio
import json
import os
import re
import resource
import socket
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import orjson
import pytest
from click.testing import CliRunner
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference import SHARED, needs_shared
from rhineland.io.export import parse_export, replay, to_export
from rhineland.web import create_app
from rhineland.web.app import STATIC
from rhineland.web.events import Hub, _event
from rhineland.web.limits import (
    CSP,
    DOCS_CSP,
    Limits,
    MiB,
    RequestGuard,
    TimedH11Protocol,
    TokenBuckets,
    server_config,
    too_deep,
)
from rhineland.web.notify import Notifier
from rhineland.web.store import GameStore
from rhineland.web.views import legal_view, state_view
from webserver import live_server

SEED = SHARED / "fixtures" / "18Rhl" / "18Rhl_seed_opening.json"
FUZZ_EXAMPLES = int(os.environ.get("RHINELAND_FUZZ_EXAMPLES", "300"))
"""Requests each endpoint fuzz generates (the suite's 300; set the variable for a long run)."""
FUZZ_MEMORY = 256 * 2**20
"""Bytes the test process's peak memory may grow by over one fuzz (the store keeps a
bounded number of live games; nothing else a request leaves may pile up)."""


def peak_memory() -> int:
    """The process's peak resident memory so far, in bytes (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def new_game(client: TestClient, title: str = "18Rhl",
             players: tuple[str, ...] = ("Ann", "Ben", "Cid")) -> dict[str, Any]:
    r = client.post("/api/games", json={"title": title, "players": list(players), "seed": 1})
    assert r.status_code == 200, r.text
    return dict(r.json())


def one_line_error(r: httpx.Response) -> str:
    """The refusal's message, checked to be ``{"error": "<one line>"}``."""
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert list(body) == ["error"] and "\n" not in body["error"], r.text
    return str(body["error"])


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'games.sqlite3'}",
                               inline_bots=True, resume_bots=False)) as c:
        yield c


# -- driving the ASGI app directly (no client normalises the path or the framing) --------

def call(app: Any, path: str, *, method: str = "GET", chunks: tuple[bytes, ...] = (b"",),
         headers: tuple[tuple[bytes, bytes], ...] = ()) -> tuple[int, dict[str, str], bytes]:
    """One request through the ASGI ``app``: the body in ``chunks``; the status, headers
    and body of the answer."""
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": method, "scheme": "http", "path": path,
             "raw_path": path.encode("utf-8", "surrogateescape"), "query_string": b"",
             "root_path": "", "headers": list(headers), "client": ("10.0.0.1", 5000),
             "server": ("testserver", 80)}
    pending = [{"type": "http.request", "body": c, "more_body": i < len(chunks) - 1}
               for i, c in enumerate(chunks)]
    out: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if not pending:
            await asyncio.Event().wait()  # the client waits for the answer
        return pending.pop(0)

    async def send(message: dict[str, Any]) -> None:
        out.append(message)

    asyncio.run(app(scope, receive, send))
    start = next(m for m in out if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in out if m["type"] == "http.response.body")
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, body


class Recorder:
    """An ASGI app that records the body it was given and answers 200."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        message = await receive()
        self.bodies.append(message.get("body", b""))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


# -- 1. bodies bounded in size --------------------------------------------------------------

def test_a_body_over_the_limit_gets_413_before_it_is_parsed(client: TestClient) -> None:
    g = new_game(client)
    gid, ann = g["id"], g["seats"][0]["secret"]
    big = b'{"action": {"type": "pass", "pad": "' + b"x" * MiB + b'"}, "last_action_id": 0}'
    r = client.post(f"/api/games/{gid}/actions", content=big, headers=bearer(ann))
    assert r.status_code == 413
    assert one_line_error(r) == ("the request body is over 1048576 bytes (1 MiB), the limit")
    assert client.post("/api/games", content=big).status_code == 413
    # an import may be larger (a whole export): 2 MiB passes the guard to the validation
    two = b'{"title": "18Rhl", "pad": "' + b"x" * (2 * MiB) + b'"}'
    r = client.post("/api/games/import", content=two)
    assert r.status_code == 422 and "export" in one_line_error(r)
    r = client.post("/api/games/import", content=b"[" + b" " * (8 * MiB) + b"]")
    assert r.status_code == 413
    assert one_line_error(r) == "the request body is over 8388608 bytes (8 MiB), the limit"
    assert client.get(f"/api/games/{gid}").json()["last_action_id"] == 0


def test_the_size_is_counted_as_the_body_arrives() -> None:
    inner = Recorder()
    guarded = RequestGuard(inner, Limits(body=100))
    chunk = b"x" * 40
    # no Content-Length: counted while reading (three chunks of 40 bytes are 120)
    status, _, body = call(guarded, "/api/games", method="POST", chunks=(chunk,) * 3)
    assert status == 413 and inner.bodies == []
    assert json.loads(body) == {"error": "the request body is over 100 bytes (0 MiB), "
                                         "the limit"}
    # a Content-Length that lies (small) changes nothing
    status, _, _ = call(guarded, "/api/games", method="POST", chunks=(chunk,) * 3,
                        headers=((b"content-length", b"10"),))
    assert status == 413 and inner.bodies == []
    # a Content-Length over the limit: refused without reading a byte

    async def no_body(_scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("the app ran")

    status, _, _ = call(RequestGuard(no_body, Limits(body=100)), "/api/games",
                        method="POST", chunks=(), headers=((b"content-length", b"101"),))
    assert status == 413
    # within the limit, the app gets the whole body once
    status, _, _ = call(guarded, "/api/games", method="POST", chunks=(chunk, chunk))
    assert status == 200 and inner.bodies == [chunk * 2]


def test_a_body_slower_than_the_limit_gets_408() -> None:
    inner = Recorder()
    guarded = RequestGuard(inner, Limits(body_seconds=0.01))
    scope = {"type": "http", "method": "POST", "path": "/api/games", "headers": []}
    out: list[dict[str, Any]] = []

    async def never() -> dict[str, Any]:
        await asyncio.Event().wait()  # the client sends nothing more
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        out.append(message)

    asyncio.run(guarded(scope, never, send))
    assert out[0]["status"] == 408 and inner.bodies == []
    assert json.loads(out[1]["body"]) == {"error": "the request body took over 0.01 s to "
                                                   "arrive"}


@needs_shared
def test_real_exports_are_far_below_the_import_limit() -> None:
    sizes = [p.stat().st_size for p in SHARED.glob("fixtures/*/*.json")]
    assert sizes and max(sizes) < Limits().import_body // 8


# -- 2. nesting depth -----------------------------------------------------------------------

def nested(depth: int) -> bytes:
    return b'{"a": ' * (depth // 2) + b"[" * (depth - depth // 2) + b"1" + \
        b"]" * (depth - depth // 2) + b"}" * (depth // 2)


def test_deep_json_gets_422_not_a_recursion_error(client: TestClient) -> None:
    g = new_game(client)
    gid, ann = g["id"], g["seats"][0]["secret"]
    for path in (f"/api/games/{gid}/actions", "/api/games", "/api/games/import",
                 f"/api/games/{gid}/undo", f"/api/games/{gid}/routes"):
        for depth in (65, 5000, 200_000):
            body = b'{"action": ' + nested(depth - 1) + b', "last_action_id": 0}'
            r = client.post(path, content=body, headers=bearer(ann))
            assert r.status_code == 422, (path, depth)
            assert one_line_error(r) == "the request body nests JSON deeper than 64 levels"
        r = client.post(path, content=b'{"action": ' + nested(63) + b', "last_action_id": 0}',
                        headers=bearer(ann))
        assert r.status_code in (403, 404, 422) and "nests" not in r.text
    # brackets in strings do not count
    r = client.post(f"/api/games/{gid}/actions", headers=bearer(ann), content=orjson.dumps(
        {"action": {"type": "message", "message": "[" * 100}, "last_action_id": 0}))
    assert "nests" not in r.text


def depth_of(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((depth_of(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth_of(v) for v in value.values()), default=0)
    return 0


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1)
    | st.text(alphabet='[]{}"\\ab\n'),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.text(alphabet='[]{}"\\a', max_size=3), inner, max_size=3), max_leaves=30)


@settings(max_examples=300)
@given(json_values, st.integers(0, 8))
def test_the_depth_check_agrees_with_the_parsed_depth(value: Any, limit: int) -> None:
    raw = json.dumps(value).encode()
    assert too_deep(raw, limit) == (depth_of(value) > limit)


def test_the_depth_check_leaves_malformed_json_to_the_parser() -> None:
    assert not too_deep(b"[" * 100, 64)  # unclosed: the parser refuses it
    assert not too_deep(b"]" * 100 + b'"\\', 64)
    assert too_deep(b"[" * 65 + b"]" * 65 + b"]", 64)  # deep whatever follows


# -- 3. ids and secrets by their shape ------------------------------------------------------

def test_ids_and_secrets_of_the_wrong_shape_are_refused_before_the_database(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    g = new_game(client)
    gid, ann = g["id"], g["seats"][0]["secret"]
    store: GameStore = client.app.state.store  # type: ignore[attr-defined]
    loads: list[str] = []
    real = store._load

    def counted(game_id: str) -> Any:
        loads.append(game_id)
        return real(game_id)

    monkeypatch.setattr(store, "_load", counted)
    bad_ids = ["a" * 33, "x.y", "ünï", "a b", "a\tb", "*", "a'b", "a~b"]
    for bad in bad_ids:
        for path in ("", "/legal", "/export", "/map.svg", "/events", "/chat"):
            r = client.get(f"/api/games/{quote(bad, safe='')}{path}", headers=bearer(ann))
            assert r.status_code == 404, (bad, path)
            assert one_line_error(r) == ("no game: a game id is 1 to 32 letters, digits, "
                                         "'-' or '_'")
        r = client.post(f"/api/games/{quote(bad, safe='')}/actions", headers=bearer(ann),
                        json={"action": {"type": "pass"}, "last_action_id": 0})
        assert r.status_code == 404
    assert client.get(f"/g/{quote('a' * 40)}").status_code == 404
    for bad in ["x" * 65, "a.b", "a/b", "a;b", "a b", "a=", g["seats"][0]["url"]]:
        r = client.post(f"/api/games/{gid}/actions", headers=bearer(bad),
                        json={"action": {"type": "pass"}, "last_action_id": 0})
        assert r.status_code == 403
        assert one_line_error(r).startswith("the secret opens no seat of this game: it is "
                                            "not of a secret's shape")
        assert client.get(f"/api/games/{gid}/legal", headers=bearer(bad)).status_code == 403
        assert client.post(f"/api/games/{gid}/undo", headers=bearer(bad),
                           json={"last_action_id": 0}).status_code == 403
    assert loads == []  # not one of them read the database
    # a malformed secret looking at the state sees the spectator's view
    r = client.get(f"/api/games/{gid}", headers=bearer("x" * 65))
    assert r.status_code == 200 and r.json()["seat"] is None and loads == [gid]
    # well-formed but unknown: looked up, and refused as before
    assert client.get("/api/games/nope").status_code == 404 and loads[-1] == "nope"
    r = client.get(f"/api/games/{gid}/legal", headers=bearer("not-a-secret"))
    assert r.status_code == 403
    assert one_line_error(r) == ("the secret opens no seat of this game (use your seat's "
                                 "invite link)")


# -- 4. static paths ------------------------------------------------------------------------

TRAVERSALS = [
    "/static/../app.py", "/static/../../../../../../etc/passwd", "/static/%2e%2e/app.py",
    "/static/%2e%2e%2fapp.py", "/static/..%2fapp.py", "/static//etc/passwd",
    "/static/%2fetc%2fpasswd", "/static/..\\app.py", "/static/./../app.py",
    "/static/game.js/../../app.py", "/static/x\x00.js", "/static" + str(STATIC / "game.js"),
    "/static/" + str(Path(__file__).resolve()), "/static/....//app.py", "/../etc/passwd",
    "/static/%252e%252e/app.py", "/g/../static/../app.py", "/static/",
]


def test_static_paths_stay_in_the_static_folder(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'games.sqlite3'}", resume_bots=False)
    secret_files = [b"def create_app", b"root:", b"TRAVERSALS"]
    for path in TRAVERSALS:
        status, headers, body = call(app, path)
        assert status == 404, path
        assert headers["content-type"] == "application/json", path
        assert list(json.loads(body)) == ["error"], path
        assert not any(s in body for s in secret_files), path
    # what is in the folder is served, and only by its own name
    status, headers, body = call(app, "/static/game.js")
    assert status == 200 and body == (STATIC / "game.js").read_bytes()
    assert call(app, "/static/%2e/game.js")[0] == 404  # no file named "%2e"


def test_static_traversal_over_a_real_connection(tmp_path: Path) -> None:
    """uvicorn decodes ``%2e%2e`` into ``..``: the guard still sees it."""
    with live_server(f"sqlite:///{tmp_path / 'games.sqlite3'}", resume_bots=False) as base:
        port = int(base.rsplit(":", 1)[1])
        for target in ("/static/../app.py", "/static/%2e%2e/app.py", "/static/..%2fapp.py",
                       "/static/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/static//etc/passwd"):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                s.sendall(f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                          .encode())
                answer = b""
                for _ in range(1000):  # until the server closes
                    part = s.recv(65536)
                    if not part:
                        break
                    answer += part
            head, _, body = answer.partition(b"\r\n\r\n")
            assert head.split(b" ")[1] in (b"400", b"404"), (target, head)
            assert b"def create_app" not in body and b"root:" not in body


# -- 5. the action rate per seat ------------------------------------------------------------

def test_a_seats_actions_are_rate_limited(tmp_path: Path) -> None:
    now = [1000.0]
    limits = Limits(action_burst=3, action_rate=0.5, clock=lambda: now[0])
    with TestClient(create_app(f"sqlite:///{tmp_path / 'games.sqlite3'}", inline_bots=True,
                               resume_bots=False, limits=limits)) as c:
        g = new_game(c)
        gid, (ann, ben, _cid) = g["id"], [s["secret"] for s in g["seats"]]
        stale = {"action": {"type": "pass", "entity": 1, "entity_type": "player"},
                 "last_action_id": 7}
        # refused actions count too: three stale ones, then the fourth is too many
        for _ in range(3):
            assert c.post(f"/api/games/{gid}/actions", headers=bearer(ann),
                          json=stale).status_code == 409
        for path, body in (("actions", stale), ("undo", {"last_action_id": 0}),
                           ("routes", {"entity": "ADR", "routes": [], "last_action_id": 0})):
            r = c.post(f"/api/games/{gid}/{path}", headers=bearer(ann), json=body)
            assert r.status_code == 429 and r.headers["retry-after"] == "2"
            assert one_line_error(r) == ("too many actions from this seat: at most 3 at "
                                         "once, then 0.5 a second; try again in 2 s")
        # another seat has its own bucket; looking is not acting
        assert c.post(f"/api/games/{gid}/actions", headers=bearer(ben),
                      json=stale).status_code == 409
        assert c.get(f"/api/games/{gid}/legal", headers=bearer(ann)).status_code == 200
        now[0] += 1.0  # half a token: still refused, a second to wait
        r = c.post(f"/api/games/{gid}/actions", headers=bearer(ann), json=stale)
        assert r.status_code == 429 and r.headers["retry-after"] == "1"
        now[0] += 1.0  # one token
        pas = {"action": {"type": "pass", "entity": 1, "entity_type": "player"},
               "last_action_id": 0}
        assert c.post(f"/api/games/{gid}/actions", headers=bearer(ann),
                      json=pas).status_code == 200
        assert c.post(f"/api/games/{gid}/actions", headers=bearer(ann),
                      json=stale).status_code == 429
        now[0] += 3600.0  # refilled up to the burst, not beyond
        codes = [c.post(f"/api/games/{gid}/actions", headers=bearer(ann),
                        json=stale).status_code for _ in range(4)]
        assert codes == [409, 409, 409, 429]


def test_token_buckets() -> None:
    now = [0.0]
    buckets = TokenBuckets(2, 4.0, clock=lambda: now[0], keep=3)
    assert [buckets.take("a") for _ in range(3)] == [0.0, 0.0, 0.25]
    now[0] = 0.125
    assert buckets.take("a") == pytest.approx(0.125)
    for key in "bcd":
        assert buckets.take(key) == 0.0
    assert len(buckets._buckets) == 4
    now[0] = 10.0
    buckets.take("e")  # past ``keep``: the full buckets are forgotten
    assert set(buckets._buckets) == {"e"}


# -- 6. event streams per client ------------------------------------------------------------

def test_a_clients_streams_of_a_game_are_bounded_the_oldest_closed() -> None:
    async def run() -> None:
        hub = Hub(per_client=2)
        first, second, third = (hub.stream("g", 0, client="1.2.3.4") for _ in range(3))
        other = hub.stream("g", 0, client="5.6.7.8")
        elsewhere = hub.stream("h", 0, client="1.2.3.4")
        for s in (first, second, other, elsewhere):
            assert await anext(s) == _event(0)
        assert hub.subscribers("g") == 3
        assert await anext(third) == _event(0)  # the third of 1.2.3.4: the first ends
        with pytest.raises(StopAsyncIteration):
            await anext(first)
        assert hub.subscribers("g") == 3
        hub.publish("g", 5)
        hub.publish("h", 6)
        for s, last in ((second, 5), (third, 5), (other, 5), (elsewhere, 6)):
            assert await anext(s) == _event(last)
        for s in (second, third, other, elsewhere):
            await s.aclose()
        assert hub.subscribers("g") == hub.subscribers("h") == 0
        assert hub._by_client == {}

    asyncio.run(run())


def test_streams_over_the_limit_close_the_oldest_on_a_real_server(tmp_path: Path) -> None:
    with live_server(f"sqlite:///{tmp_path / 'games.sqlite3'}", resume_bots=False,
                     limits=Limits(streams_per_client=2)) as base, \
            httpx.Client(base_url=base, timeout=10) as c:
        gid = c.post("/api/games", json={"title": "1893", "players": ["A", "B"]}).json()["id"]
        with c.stream("GET", f"/api/games/{gid}/events") as one, \
                c.stream("GET", f"/api/games/{gid}/events") as two:
            assert one.headers["content-security-policy"] == CSP
            lines = [one.iter_lines(), two.iter_lines()]
            assert [next(x) for x in lines] == ["event: action"] * 2
            with c.stream("GET", f"/api/games/{gid}/events") as three:
                assert next(three.iter_lines()) == "event: action"
                rest = list(lines[0])  # the oldest stream ends
                assert "event: action" not in rest
                assert next(lines[1]) == 'data: {"last_action_id":0}'


# -- 7. slow clients ------------------------------------------------------------------------

def test_the_server_runs_with_timeouts_and_bounds(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    config = server_config(FastAPI(), "127.0.0.1", 8000)
    assert config.timeout_keep_alive == 5 and config.limit_concurrency == 1000
    assert config.h11_max_incomplete_event_size == 16 * 1024
    assert config.timeout_graceful_shutdown == 2
    assert isinstance(config.http, type) and issubclass(config.http, TimedH11Protocol)
    assert config.http.head_seconds == 10.0
    # ``rhineland serve`` runs with them
    from rhineland.cli.main import cli

    seen: list[uvicorn.Config] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: seen.append(
        self.config))
    db = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    result = CliRunner().invoke(cli, ["serve", "--db", db, "--no-demo", "--port", "8123"])
    assert result.exit_code == 0, result.output
    assert len(seen) == 1 and seen[0].port == 8123
    assert seen[0].timeout_keep_alive == 5 and seen[0].limit_concurrency == 1000
    assert isinstance(seen[0].http, type) and issubclass(seen[0].http, TimedH11Protocol)


def test_a_client_slow_to_send_its_request_head_is_disconnected(tmp_path: Path) -> None:
    with live_server(f"sqlite:///{tmp_path / 'games.sqlite3'}", resume_bots=False,
                     limits=Limits(head_seconds=0.3)) as base:
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=30) as slow:
            slow.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n")  # and no more
            # meanwhile others are served
            assert httpx.get(f"{base}/api/games", timeout=10).status_code == 200
            assert slow.recv(1024) == b""  # closed by the server, not by the 30 s
        # a keep-alive connection's next request head is timed too, after a response
        with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
            s.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = b""
            for _ in range(1000):
                answer += s.recv(65536)
                if answer.endswith(b"]"):
                    break
            assert answer.startswith(b"HTTP/1.1 200")
            s.sendall(b"GET /api/games HTTP/1.1\r\n")
            assert s.recv(1024) == b""


def test_a_request_head_over_16_kib_is_refused(tmp_path: Path) -> None:
    # the default head time (10 s), so a busy machine cannot turn the 400 into a close
    with live_server(f"sqlite:///{tmp_path / 'games.sqlite3'}", resume_bots=False) as base:
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
            s.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20_000)
            assert s.recv(1024).startswith(b"HTTP/1.1 400")


# -- 9. security headers --------------------------------------------------------------------

def test_every_response_has_the_security_headers(client: TestClient,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    g = new_game(client)
    gid = g["id"]
    answers = [client.get(p) for p in (
        "/", f"/g/{gid}", "/static/game.js", "/static/style.css", "/api/games",
        f"/api/games/{gid}", f"/api/games/{gid}/map.svg", "/openapi.json", "/nowhere",
        "/static/nothing.js", f"/api/games/{gid}/legal")]
    answers.append(client.post("/api/games", content=b"x" * (MiB + 1)))  # the guard's 413
    answers.append(client.put("/api/games"))  # 405
    answers.append(client.post("/api/games", content=b"{"))  # 422
    store: GameStore = client.app.state.store  # type: ignore[attr-defined]
    monkeypatch.setattr(store, "lobby", lambda limit=100: 1 / 0)
    with TestClient(client.app, raise_server_exceptions=False) as raw:
        failed = raw.get("/api/games")
    assert failed.status_code == 500 and "Traceback" not in failed.text
    answers.append(failed)
    assert sorted({r.status_code for r in answers}) == [200, 403, 404, 405, 413, 422, 500]
    for r in answers:
        assert r.headers["content-security-policy"] == CSP, r.url
        assert r.headers["x-frame-options"] == "DENY"
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "no-referrer"
    assert "script-src 'self';" in CSP and "unsafe" not in CSP
    assert "frame-ancestors 'none'" in CSP
    # the API documentation pages (CDN scripts, an inline start) get their own policy
    docs = client.get("/docs")
    assert docs.status_code == 200 and docs.headers["content-security-policy"] == DOCS_CSP
    assert docs.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in DOCS_CSP


def test_the_pages_have_no_inline_script_or_style() -> None:
    for page in STATIC.glob("*.html"):
        html = page.read_text()
        scripts = re.findall(r"<script\b[^>]*>(.*?)</script>", html, re.S)
        assert scripts and all(s.strip() == "" for s in scripts), page.name
        assert all("src=" in tag for tag in re.findall(r"<script\b[^>]*>", html))
        assert not re.search(r"\son[a-z]+\s*=", html), page.name  # no onclick=...
        assert "javascript:" not in html and "<style" not in html
        assert not re.search(r"\sstyle\s*=", html), page.name
    for script in STATIC.glob("*.js"):
        text = script.read_text()
        assert "eval(" not in text and "new Function" not in text, script.name
        assert not re.search(r"setAttribute\(\s*[\"'](style|on)", text), script.name


# -- 8. a fuzz of every endpoint ------------------------------------------------------------

class Fuzzed:
    """An app with a few games for the fuzz: ids, secrets and legal action records."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.store: GameStore = client.app.state.store  # type: ignore[attr-defined]
        self.ids: list[str] = []
        self.secrets: list[str] = []
        self.seats: dict[str, dict[int, str]] = {}
        self.records: list[dict[str, Any]] = [{"type": "pass"}]
        self.statuses: Counter[int] = Counter()
        for title, players in (("18Rhl", ("Ann", "Ben", "Cid")), ("1893", ("Ann", "Ben"))):
            g = new_game(client, title, players)
            self.add(g)
        if SEED.exists():
            r = client.post("/api/games/import", content=SEED.read_bytes())
            assert r.status_code == 200, r.text
            self.add(r.json())

    def add(self, g: dict[str, Any]) -> None:
        self.ids.append(g["id"])
        seats = [s["secret"] for s in g["seats"] if s["secret"]]
        self.secrets += [*seats, g["spectator"]]
        self.seats[g["id"]] = {s["id"]: s["secret"] for s in g["seats"] if s["secret"]}
        for secret in seats:
            r = self.client.get(f"/api/games/{g['id']}/legal", headers=bearer(secret))
            self.records += [e["action"] for e in r.json()["actions"][:20]]

    def check(self, response: httpx.Response) -> None:
        """``response`` is no failure (:func:`assert_no_failure`); counted by status."""
        self.statuses[response.status_code] += 1
        assert_no_failure(response)

    def check_memory(self, before: int) -> None:
        """The peak memory grew by less than :data:`FUZZ_MEMORY` since ``before`` and the
        store holds no more live games than its cache size; prints the requests sent
        since the last check by status and the growth (seen with ``pytest -s``)."""
        grown = peak_memory() - before
        print(f"fuzz: {sum(self.statuses.values())} requests, by status "
              f"{dict(sorted(self.statuses.items()))}, peak memory +{grown / 2**20:.1f} MiB, "
              f"{self.store.live_count} live games")
        self.statuses.clear()
        assert grown < FUZZ_MEMORY
        assert self.store.live_count <= self.store.cache_size

    def check_replays(self) -> None:
        """Every stored game replays (from the database, by a new store) to the state
        the app holds, and its export replays to the same position."""
        fresh = GameStore(self.store.engine)
        for gid in self.store.game_ids(active=False):
            with self.store.locked(gid) as live, fresh.locked(gid) as rebuilt:
                assert state_view(rebuilt, None, 0) == state_view(live, None, 0), gid
                assert to_export(rebuilt.game) == to_export(live.game), gid
                export = self.store.export(gid)
                again = replay(parse_export(export))
                assert to_export(again)["actions"] == to_export(live.game)["actions"]
                assert [p.cash for p in again.players] == [p.cash for p in live.game.players]


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzzed]:
    db = tmp_path_factory.mktemp("fuzz") / "games.sqlite3"
    # a webhook the fuzz happens to set is kept, never sent (no address is reached)
    posted: list[str] = []
    app = create_app(f"sqlite:///{db}", inline_bots=True, resume_bots=False,
                     limits=Limits(action_burst=10**9, chat_burst=10**9),
                     notifier=Notifier(post=lambda url, _body: posted.append(url)))
    with TestClient(app, raise_server_exceptions=False) as c:
        yield Fuzzed(c)


def assert_no_failure(r: httpx.Response) -> None:
    assert r.status_code < 500, (r.request.method, r.request.url, r.status_code, r.text)
    assert "Traceback" not in r.text
    if r.status_code >= 400 and r.request.method != "HEAD" and \
            r.headers.get("content-type", "").startswith("application/json"):
        one_line_error(r)


SEGMENT = st.text(min_size=0, max_size=40)
HEADER_TEXT = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7e), max_size=70)
ENDPOINTS = ["", "/legal", "/actions", "/routes", "/routes/preview", "/undo", "/export", "/map.svg",
             "/panels.svg", "/events", "/chat", "/note", "/alerts"]


@st.composite
def requests(draw: st.DrawFn, fz: Fuzzed) -> tuple[str, str, dict[str, str], bytes | None]:
    """A request: method, URL, headers, body (``None``: none)."""
    method = draw(st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"]))
    real = draw(st.integers(0, 4)) == 0  # a real game's id, one time in five
    endpoint = draw(st.sampled_from(ENDPOINTS))
    gid = draw(st.sampled_from(fz.ids)) if real else quote(draw(SEGMENT), safe="")
    if endpoint == "/events" and gid in fz.ids:
        endpoint = "/export"  # a real stream would not end
    url = draw(st.sampled_from([
        f"/api/games/{gid}{endpoint}", f"/g/{gid}", f"/static/{gid}", f"/{gid}",
        "/api/games", "/api/games/import", f"/api/games/{gid}{endpoint}/{gid}"]))
    query = draw(st.integers(0, 2))
    if query == 1:
        url += "?" + quote(draw(SEGMENT), safe="=&")
    elif query == 2:  # a position of the history: a number (of any size or sign) or not
        at = draw(st.integers(-3, 60).map(str) | st.integers().map(str) | SEGMENT)
        url += "?at=" + quote(at, safe="")
    headers: dict[str, str] = {}
    auth = draw(st.integers(0, 3))
    if auth == 1:
        headers["Authorization"] = "Bearer " + draw(st.sampled_from(fz.secrets))
    elif auth == 2:
        headers["Authorization"] = draw(HEADER_TEXT)
    elif auth == 3:
        headers["Authorization"] = "Bearer " + draw(HEADER_TEXT)
    body = draw(st.none() | st.binary(max_size=200) | st.builds(orjson.dumps, json_values))
    return method, url, headers, body


def test_fuzz_paths_headers_and_methods(fuzzed: Fuzzed) -> None:
    @settings(max_examples=FUZZ_EXAMPLES, suppress_health_check=[HealthCheck.too_slow])
    @given(requests(fuzzed))
    def run(request: tuple[str, str, dict[str, str], bytes | None]) -> None:
        method, url, headers, body = request
        fuzzed.check(fuzzed.client.request(method, url, headers=headers, content=body))

    before = peak_memory()
    run()
    fuzzed.check_memory(before)
    fuzzed.check_replays()


JSON_LEAF = (st.none() | st.booleans() | st.integers(-2**70, 2**70)
             | st.floats(allow_nan=False) | st.text(max_size=12))
FIELDS = ["type", "entity", "entity_type", "price", "corporation", "company", "shares",
          "hex", "tile", "rotation", "city", "train", "routes", "nodes", "connections",
          "percent", "share_price", "bundle", "id", "created_at", "auto_actions",
          "message", "from", "to", "slot", "exchange", "variant", "revenue", "kind"]
JSON_ANY = st.recursive(JSON_LEAF, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
    st.sampled_from(FIELDS) | st.text(max_size=6), inner, max_size=4), max_leaves=20)


@dataclass
class Post:
    """A POST drawn without looking at the games (they move on during the fuzz): which
    game, secret, action record and ``last_action_id`` are chosen by numbers that
    :meth:`request` resolves against the game's position when the request is sent."""

    endpoint: str
    game: int
    who: int
    record: int
    changes: list[tuple[int, Any]]
    last: int
    body: Any

    def request(self, fz: Fuzzed) -> tuple[str, dict[str, str], Any]:
        """URL, headers and body: mostly a legal action record of the acting seat (or
        another), changed, dropped or added to, with the acting seat's secret (or
        another's) and the position's last action id (or another)."""
        gid = fz.ids[self.game % len(fz.ids)]
        with fz.store.locked(gid) as live:
            last = live.last_action_id
            acting = [] if live.game.is_terminal else live.game.acting_entities()
            now = [e["action"] for e in legal_view(live, acting[0])] if acting else []
        mine = [fz.seats[gid][acting[0]]] if acting else []
        secrets = mine * 12 + fz.secrets
        choices = now * 4 + fz.records
        record = dict(choices[self.record % len(choices)])
        for key, value in self.changes:
            name = (sorted(record) + FIELDS)[key % (len(record) + len(FIELDS))]
            if value is DROP:
                record.pop(name, None)
            else:
                record[name] = value
        last_id = [last, last, last, 0, -1, 2**40][self.last] if 0 <= self.last < 6 \
            else self.last
        body = fill(self.body, record, last_id)
        url = {"create": "/api/games", "import": "/api/games/import"}.get(
            self.endpoint, f"/api/games/{gid}/{self.endpoint}")
        return url, bearer(secrets[self.who % len(secrets)]), body


RECORD, LAST, DROP = object(), object(), object()
"""Placeholders in a drawn body: the action record, the last action id; a dropped field."""


def fill(body: Any, record: dict[str, Any], last_id: int) -> Any:
    """``body`` with the placeholders replaced."""
    if body is RECORD:
        return record
    if body is LAST:
        return last_id
    if isinstance(body, dict):
        return {k: fill(v, record, last_id) for k, v in body.items()}
    if isinstance(body, list):
        return [fill(v, record, last_id) for v in body]
    return body


ROUTES = st.fixed_dictionaries({
    "entity": st.sampled_from(["ADR", "RhE", "AGV", "x"]) | JSON_ANY,
    "routes": st.lists(st.fixed_dictionaries(
        {"train": st.sampled_from(["2-0", "3-1", "x"]) | JSON_LEAF,
         "stops": st.lists(st.sampled_from(["K2", "K4", "K6", "K2-0", "Z9-9"]) | JSON_LEAF,
                           max_size=4)}), max_size=3) | JSON_ANY,
    "last_action_id": st.just(LAST)})
CREATE = st.fixed_dictionaries({
    "title": st.sampled_from(["18Rhl", "1893", "18Chesapeake"]) | JSON_LEAF,
    "players": st.lists(st.text(max_size=5), max_size=7) | JSON_ANY},
    optional={"seed": JSON_LEAF, "optional_rules": JSON_ANY, "bots": JSON_ANY,
              "open_seats": JSON_ANY, "clock_minutes": JSON_LEAF, "description": JSON_LEAF})
IMPORT = st.fixed_dictionaries({
    "title": st.sampled_from(["18Rhl", "1893"]) | JSON_LEAF,
    "players": st.lists(st.fixed_dictionaries({"id": JSON_LEAF, "name": JSON_LEAF}),
                        max_size=5) | JSON_ANY,
    "actions": st.lists(st.just(RECORD), max_size=2) | JSON_ANY},
    optional={"settings": JSON_ANY, "id": JSON_LEAF})
BODIES = {
    "actions": st.sampled_from([{"action": RECORD, "last_action_id": LAST}, RECORD,
                                {"action": RECORD}]),
    "routes": ROUTES,
    "undo": st.sampled_from([{"last_action_id": LAST}, {}, RECORD]),
    "chat": st.fixed_dictionaries({"text": st.text(max_size=600) | JSON_ANY}) | JSON_ANY,
    "create": CREATE, "import": IMPORT}


@st.composite
def posts(draw: st.DrawFn) -> Post:
    """A :class:`Post` (actions most often; runs by stops, undos, new games, imports)."""
    endpoint = draw(st.sampled_from(["actions", "actions", "actions", "routes", "undo",
                                     "chat", "create", "import"]))
    return Post(endpoint, draw(st.integers(0, 7)), draw(st.integers(0, 63)),
                draw(st.integers(0, 2**16)),
                draw(st.lists(st.tuples(st.integers(0, 63), st.just(DROP) | JSON_ANY),
                              max_size=3)),
                draw(st.integers(0, 5) | st.integers()), draw(BODIES[endpoint]))


def test_fuzz_action_and_game_bodies(fuzzed: Fuzzed) -> None:
    @settings(max_examples=FUZZ_EXAMPLES, suppress_health_check=[HealthCheck.too_slow])
    @given(posts())
    def run(post: Post) -> None:
        url, headers, body = post.request(fuzzed)
        try:
            content = orjson.dumps(body)
        except (TypeError, orjson.JSONEncodeError):  # an integer past 64 bits
            content = json.dumps(body).encode()
        fuzzed.check(fuzzed.client.post(url, headers=headers, content=content))

    before = peak_memory()
    run()
    fuzzed.check_memory(before)
    fuzzed.check_replays()
