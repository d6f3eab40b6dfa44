"""Your-turn alerts over the API, on SQLite and PostgreSQL: a seat sets a webhook URL and
an e-mail address; when another seat or a bot moves and it becomes that seat's turn, a
local HTTP server in the test gets exactly one POST of the documented JSON and a local
SMTP server (aiosmtpd) exactly one mail; the seat that just moved, a finished game and
the other seats get nothing; malformed URLs and addresses get a one-line 422 and store
nothing; a failing webhook or mail server leaves the action untouched."""

from __future__ import annotations

import email
import email.policy
import json
import threading
from collections.abc import Iterator
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from rhineland.web import create_app
from rhineland.web.limits import Limits
from rhineland.web.notify import Notifier, Smtp, Turn, email_address, post_json, webhook_url
from webdb import db_url, pg_cluster  # noqa: F401 (fixtures)
from webserver import free_port

FINISHED = (Path(__file__).parent / "data" / "differential"
            / "18Rhl_even12012_end_last_action_entity.json")
"""A finished 18Rhl game (its last action ends it)."""

WAIT = 20.0
"""Seconds the tests wait for the notifier's threads at most (they end long before)."""


class Hooks:
    """A local HTTP server that keeps every POST: ``(path, JSON body)``; a path under
    ``/fail`` answers 500."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, Any]] = []
        hooks = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                hooks.posts.append((self.path, json.loads(body)))
                self.send_response(500 if self.path.startswith("/fail") else 204)
                self.end_headers()

            def log_message(self, *_args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)


class Sink:
    """aiosmtpd's handler: keeps every message with its envelope recipients."""

    def __init__(self) -> None:
        self.mails: list[tuple[list[str], EmailMessage]] = []

    async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:
        msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        self.mails.append((list(envelope.rcpt_tos), msg))
        return "250 OK"


@pytest.fixture
def hooks() -> Iterator[Hooks]:
    h = Hooks()
    h.thread.start()
    yield h
    h.server.shutdown()
    h.server.server_close()


@pytest.fixture
def sink() -> Iterator[tuple[Sink, int]]:
    handler = Sink()
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    yield handler, port
    controller.stop()


@pytest.fixture
def notifier(sink: tuple[Sink, int]) -> Iterator[Notifier]:
    n = Notifier(smtp=Smtp("127.0.0.1", "turns@rhineland.example", port=sink[1]),
                 public_url="https://games.example.org/", timeout=10, private_ok=True)
    yield n
    n.shutdown()


@pytest.fixture
def client(db_url: str, notifier: Notifier) -> Iterator[TestClient]:  # noqa: F811
    with TestClient(create_app(db_url, inline_bots=True, resume_bots=False,
                               notifier=notifier, limits=Limits(chat_burst=1000))) as c:
        yield c


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def error(r: Any) -> str:
    body = r.json()
    assert list(body) == ["error"] and "\n" not in body["error"], r.text
    return str(body["error"])


def new(client: TestClient, **extra: Any) -> tuple[str, list[str]]:
    """A game of Ann, Ben (people) and Cid (a random bot): its id and the two secrets."""
    r = client.post("/api/games", json={"title": "18Rhl", "players": ["Ann", "Ben", "Cid"],
                                        "seed": 1, "bots": {"3": "random"}, **extra})
    assert r.status_code == 200, r.text
    g = r.json()
    return g["id"], [s["secret"] for s in g["seats"][:2]]


def set_alerts(client: TestClient, gid: str, secret: str, **body: Any) -> Any:
    return client.put(f"/api/games/{gid}/alerts", headers=bearer(secret), json=body)


def pass_turn(client: TestClient, gid: str, secret: str) -> dict[str, Any]:
    acts = client.get(f"/api/games/{gid}/legal", headers=bearer(secret)).json()
    pas = next(e["action"] for e in acts["actions"] if e["action"]["type"] == "pass")
    r = client.post(f"/api/games/{gid}/actions", headers=bearer(secret),
                    json={"action": pas, "last_action_id": acts["last_action_id"]})
    assert r.status_code == 200, r.text
    return dict(r.json())


def settle(notifier: Notifier) -> None:
    assert notifier.wait_idle(WAIT), "the notifier did not finish"


def test_the_seat_whose_turn_it_becomes_gets_one_post_and_one_mail(
        client: TestClient, notifier: Notifier, hooks: Hooks,
        sink: tuple[Sink, int]) -> None:
    mails = sink[0].mails
    gid, (ann, ben) = new(client)
    r = set_alerts(client, gid, ann, webhook=f"{hooks.base}/ann?x=1", email="ann@example.org")
    assert r.status_code == 200, r.text
    assert {k: v for k, v in r.json().items() if k != "updated_at"} == {
        "seat": 1, "webhook": f"{hooks.base}/ann?x=1", "email": "ann@example.org",
        "mail": True}
    assert set_alerts(client, gid, ben, webhook=f"{hooks.base}/ben").status_code == 200
    assert set_alerts(client, gid, ben, email="ben@example.org").status_code == 200
    got = client.get(f"/api/games/{gid}/alerts", headers=bearer(ben)).json()
    assert (got["webhook"], got["email"]) == (f"{hooks.base}/ben", "ben@example.org")

    # Ann passes: Ben's turn; Ben hears of it once, Ann (who moved) not at all
    assert pass_turn(client, gid, ann)["acting"] == [2]
    settle(notifier)
    assert hooks.posts == [("/ben", {
        "event": "your_turn", "game_id": gid, "title": "18Rhl", "seat": 2, "name": "Ben",
        "last_action_id": 1, "path": f"/g/{gid}",
        "url": f"https://games.example.org/g/{gid}"})]
    assert [rcpt for rcpt, _ in mails] == [["ben@example.org"]]
    msg = mails[0][1]
    assert msg["Subject"] == f"Your turn: 18Rhl ({gid})"
    assert (msg["From"], msg["To"]) == ("turns@rhineland.example", "ben@example.org")
    body = msg.get_content()
    assert body.startswith(f"Ben, it is your turn in 18Rhl (game {gid}, seat 2, after "
                           "action 1).")
    assert f"https://games.example.org/g/{gid}#..." in body

    # Ben passes, the bot (Cid) moves: Ann's turn, after action 3
    assert pass_turn(client, gid, ben)["acting"] == [1]
    settle(notifier)
    assert hooks.posts[1:] == [("/ann?x=1", {
        "event": "your_turn", "game_id": gid, "title": "18Rhl", "seat": 1, "name": "Ann",
        "last_action_id": 3, "path": f"/g/{gid}",
        "url": f"https://games.example.org/g/{gid}"})]
    assert [rcpt for rcpt, _ in mails] == [["ben@example.org"], ["ann@example.org"]]
    assert "Ann, it is your turn in 18Rhl" in mails[1][1].get_content()

    # cleared: nothing more for Ben; a chat message or a note is no turn change
    r = set_alerts(client, gid, ben, webhook="", email=None)
    assert (r.json()["webhook"], r.json()["email"]) == (None, None)
    client.post(f"/api/games/{gid}/chat", headers=bearer(ann), json={"text": "hi"})
    pass_turn(client, gid, ann)
    settle(notifier)
    assert len(hooks.posts) == 2 and len(mails) == 2
    assert list(notifier.failures) == []


def test_undo_and_the_mover_get_nothing(client: TestClient, notifier: Notifier,
                                        hooks: Hooks) -> None:
    gid, (ann, ben) = new(client)
    for secret, name in ((ann, "ann"), (ben, "ben")):
        assert set_alerts(client, gid, secret, webhook=f"{hooks.base}/{name}").status_code == 200
    pass_turn(client, gid, ann)
    settle(notifier)
    assert [p for p, _ in hooks.posts] == ["/ben"]
    # Ann undoes her pass: her turn again, by her own hand: nobody is told
    r = client.post(f"/api/games/{gid}/undo", headers=bearer(ann), json={"last_action_id": 1})
    assert r.status_code == 200, r.text
    assert r.json()["acting"] == [1]
    settle(notifier)
    assert [p for p, _ in hooks.posts] == ["/ben"]


def test_nothing_is_sent_when_the_game_ends(client: TestClient, notifier: Notifier,
                                            hooks: Hooks, sink: tuple[Sink, int]) -> None:
    data = json.loads(FINISHED.read_text())
    last = data["actions"].pop()
    g = client.post("/api/games/import", json=data).json()
    gid, secrets = g["id"], [s["secret"] for s in g["seats"]]
    for i, secret in enumerate(secrets, 1):
        r = set_alerts(client, gid, secret, webhook=f"{hooks.base}/p{i}",
                       email=f"p{i}@example.org")
        assert r.status_code == 200, r.text
    state = client.get(f"/api/games/{gid}").json()
    mover = secrets[state["acting"][0] - 1]
    r = client.post(f"/api/games/{gid}/actions", headers=bearer(mover),
                    json={"action": last, "last_action_id": state["last_action_id"]})
    assert r.status_code == 200, r.text
    assert client.get(f"/api/games/{gid}/export").json()["status"] == "finished"
    settle(notifier)
    assert hooks.posts == [] and sink[0].mails == []


BAD_URLS = [
    ("ftp://example.org/x", "webhook: expected an http:// or https:// URL"),
    ("javascript:alert(1)", "webhook: expected an http:// or https:// URL"),
    ("example.org/hook", "webhook: expected an http:// or https:// URL"),
    ("http://", "webhook: expected a host name or address, found ''"),
    ("http://exa_mple.org/", "webhook: expected a host name or address"),
    ("http://user:pw@example.org/", "webhook: no user or password in the URL"),
    ("http://example.org/a b", "webhook: no spaces, control or non-ASCII characters"),
    ("http://example.org/\r\nX: y", "webhook: no spaces, control or non-ASCII"),
    ("http://exämple.org/", "webhook: no spaces, control or non-ASCII characters"),
    ("http://example.org/#top", "webhook: no fragment (#...) in the URL"),
    ("http://example.org:99999/", "webhook: not a port"),
    ("http://example.org:x/", "webhook: not a port"),
    ("https://example.org/" + "a" * 481, "webhook: a URL is at most 500 characters, not 501"),
]
BAD_ADDRESSES = [
    ("ann", "email: expected an address like name@example.org"),
    ("ann@", "email: expected an address like name@example.org"),
    ("ann@localhost", "email: expected an address like name@example.org"),
    ("ann@example.org\r\nBcc: eve@example.org", "email: expected an address like"),
    ("Ann <ann@example.org>", "email: expected an address like name@example.org"),
    ("ann..b@example.org", "email: expected an address like name@example.org"),
    ("a" * 65 + "@example.org", "email: expected an address like name@example.org"),
    ("a@" + "b" * 250 + ".org", "email: an address is at most 254 characters, not 256"),
]


def test_bad_urls_and_addresses_are_refused_and_nothing_is_stored(
        client: TestClient) -> None:
    gid, (ann, _ben) = new(client)
    good = {"webhook": "https://hooks.example.org/turn", "email": "ann.b+18xx@example.org"}
    assert set_alerts(client, gid, ann, **good).status_code == 200
    for field, cases in (("webhook", BAD_URLS), ("email", BAD_ADDRESSES)):
        for value, message in cases:
            r = set_alerts(client, gid, ann, **{field: value})
            assert r.status_code == 422, (value, r.text)
            assert error(r).startswith(message), (value, error(r))
    for value in (5, ["x"], {"a": 1}):
        r = set_alerts(client, gid, ann, webhook=value)
        assert r.status_code == 422 and error(r).startswith("webhook: "), r.text
    # one bad field refuses the other, good one too
    r = set_alerts(client, gid, ann, webhook="https://other.example.org/", email="bad")
    assert r.status_code == 422
    got = client.get(f"/api/games/{gid}/alerts", headers=bearer(ann)).json()
    assert {k: got[k] for k in good} == good
    spec = client.get("/openapi.json").json()["paths"]["/api/games/{game_id}/alerts"]
    assert set(spec) == {"get", "put"}
    assert set(spec["put"]["requestBody"]["content"]["application/json"]["schema"][
        "properties"]) == {"webhook", "email"}
    # the spectator link and no secret: no alerts of theirs
    spectator = client.post("/api/games", json={"title": "1893", "players": ["A", "B"]}).json()
    sgid, watch = spectator["id"], spectator["spectator"]
    r = set_alerts(client, sgid, watch, **good)
    assert r.status_code == 403 and error(r) == "the spectator link watches: it gets no alerts"
    assert client.get(f"/api/games/{sgid}/alerts", headers=bearer(watch)).status_code == 403
    assert client.get(f"/api/games/{sgid}/alerts").status_code == 403


def test_a_server_without_smtp_refuses_an_address(db_url: str) -> None:  # noqa: F811
    with TestClient(create_app(db_url, inline_bots=True, resume_bots=False)) as c:
        gid, (ann, _ben) = new(c)
        r = set_alerts(c, gid, ann, email="ann@example.org")
        assert r.status_code == 422
        assert error(r) == ("email: this server sends no mail (no SMTP server is "
                            "configured); set a webhook instead")
        got = c.get(f"/api/games/{gid}/alerts", headers=bearer(ann)).json()
        assert (got["email"], got["mail"]) == (None, False)
        assert set_alerts(c, gid, ann, email="").status_code == 200  # clearing is fine


def test_failing_webhooks_and_mail_leave_the_game_alone(db_url: str, hooks: Hooks,  # noqa: F811
                                                        ) -> None:
    closed = free_port()  # nobody listens there
    n = Notifier(smtp=Smtp("127.0.0.1", "turns@rhineland.example", port=closed),
                 timeout=10, private_ok=True)
    try:
        with TestClient(create_app(db_url, inline_bots=True, resume_bots=False,
                                   notifier=n)) as c:
            gid, (ann, ben) = new(c)
            assert set_alerts(c, gid, ben, webhook=f"{hooks.base}/fail",
                              email="ben@example.org").status_code == 200
            assert set_alerts(c, gid, ann,
                              webhook=f"http://127.0.0.1:{closed}/x").status_code == 200
            assert pass_turn(c, gid, ann)["acting"] == [2]  # a 500 and no mail server
            settle(n)
            assert pass_turn(c, gid, ben)["acting"] == [1]  # a refused connection
            settle(n)
            assert [p for p, _ in hooks.posts] == ["/fail"]
            failures = list(n.failures)
            assert len(failures) == 3, failures
            assert failures[0].startswith(f"{gid}: seat 2: webhook failed: HTTPError: "
                                          "HTTP Error 500")
            assert failures[1].startswith(f"{gid}: seat 2: mail failed: ")
            assert failures[2].startswith(f"{gid}: seat 1: webhook failed: URLError")
            assert c.get(f"/api/games/{gid}").json()["last_action_id"] == 3
    finally:
        n.shutdown()


def test_webhooks_to_the_servers_own_network_are_refused_by_default(hooks: Hooks) -> None:
    with pytest.raises(OSError, match=r"127\.0\.0\.1 is at 127\.0\.0\.1, not a global address"):
        post_json(f"{hooks.base}/x", b"{}", 5)
    with pytest.raises(OSError, match="not a global address"):
        post_json("http://[::1]:9/x", b"{}", 5)
    post_json(f"{hooks.base}/ok", b'{"a": 1}', 5, private_ok=True)
    assert hooks.posts == [("/ok", {"a": 1})]
    n = Notifier()
    try:
        n.send(Turn("g1", "1893", 1, "Ann", 7, webhook=f"{hooks.base}/x"))
        assert hooks.posts == [("/ok", {"a": 1})]
        assert list(n.failures) == ["g1: seat 1: webhook failed: OSError: 127.0.0.1 is at "
                                    "127.0.0.1, not a global address"]
    finally:
        n.shutdown()


def test_the_checks_keep_good_values() -> None:
    for url in ("http://example.org", "https://a.b.example.org:8443/p/q?x=1&y=%20",
                "http://10.0.0.5:8080/hook", "http://[2001:db8::1]/h", "HTTPS://EXAMPLE.ORG/"):
        assert webhook_url(f"  {url} ") == url
    for addr in ("ann@example.org", "a.b+c@mail.example.co.uk", "x_y-z@sub-1.example.io"):
        assert email_address(addr) == addr
    assert webhook_url("") is None and webhook_url(None) is None
    assert email_address("  ") is None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80), st.sampled_from(["", "http://", "https://h.example.org/",
                                              "mailto:", "a@b."]))
def test_the_checks_answer_any_text_in_one_line(text: str, prefix: str) -> None:
    for check in (webhook_url, email_address):
        try:
            kept = check(prefix + text)
        except ValueError as exc:
            assert "\n" not in str(exc) and str(exc).split(":")[0] in ("webhook", "email")
        else:
            assert kept is None or (kept == kept.strip() and kept.isascii()
                                    and kept.isprintable() and " " not in kept)
