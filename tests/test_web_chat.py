"""The chat of a game over the API, on SQLite and PostgreSQL: the seats write, everyone
reads; the text is kept as written (markup too: the page shows it as text), bounded in
length, without control characters, at a bounded rate per seat (429 on a driven
clock); it is stored with the game (a restart keeps it; the game's actions do not
change) and every open event stream hears of each message (``event: chat``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from rhineland.web import create_app
from rhineland.web.limits import Limits
from rhineland.web.store import CHAT_CHARS, GameStore
from webdb import db_url, pg_cluster  # noqa: F401 (fixtures)


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:  # noqa: F811
    # refused messages count against the rate as well: a burst for the refusals here
    with TestClient(create_app(db_url, inline_bots=True, resume_bots=False,
                               limits=Limits(chat_burst=1000))) as c:
        yield c


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def new(client: TestClient) -> dict[str, Any]:
    r = client.post("/api/games", json={"title": "18Rhl", "players": ["Ann", "Ben", "Cid"],
                                        "seed": 1, "bots": {"3": "random"}})
    assert r.status_code == 200, r.text
    return dict(r.json())


def error(r: Any) -> str:
    body = r.json()
    assert list(body) == ["error"] and "\n" not in body["error"], r.text
    return str(body["error"])


def write(client: TestClient, gid: str, secret: str, text: Any) -> Any:
    return client.post(f"/api/games/{gid}/chat", headers=bearer(secret), json={"text": text})


def test_seats_write_and_everyone_reads(client: TestClient) -> None:
    g = new(client)
    gid, (ann, ben) = g["id"], [s["secret"] for s in g["seats"][:2]]
    assert client.get(f"/api/games/{gid}/chat").json() == {"messages": []}
    r = write(client, gid, ann, "  good luck, <b>all</b>  ")
    assert r.status_code == 200, r.text
    first = r.json()
    assert {k: first[k] for k in ("seat", "name", "text", "at")} == {
        "seat": 1, "name": "Ann", "text": "good luck, <b>all</b>", "at": 0}
    assert isinstance(first["id"], int) and isinstance(first["created_at"], int)
    pas = next(e["action"] for e in client.get(f"/api/games/{gid}/legal", headers=bearer(ann))
               .json()["actions"] if e["action"]["type"] == "pass")
    assert client.post(f"/api/games/{gid}/actions", headers=bearer(ann),
                       json={"action": pas, "last_action_id": 0}).status_code == 200
    second = write(client, gid, ben, "two lines\nand a\ttab").json()
    assert second["at"] == 1 and second["id"] > first["id"]
    for headers in ({}, bearer(g["spectator"]), bearer(ben)):  # everyone reads the same
        got = client.get(f"/api/games/{gid}/chat", headers=headers).json()["messages"]
        assert got == [first, second]
    # the spectator, no secret, another's secret, a secret of the wrong shape: refused
    r = write(client, gid, g["spectator"], "hi")
    assert r.status_code == 403 and error(r) == ("the spectator link watches: it writes "
                                                 "nothing in the chat")
    r = client.post(f"/api/games/{gid}/chat", json={"text": "hi"})
    assert r.status_code == 403 and error(r).startswith("the secret opens no seat")
    assert write(client, gid, "not-a-secret", "hi").status_code == 403
    assert write(client, gid, "a.b", "hi").status_code == 403
    other = new(client)
    assert write(client, gid, other["seats"][0]["secret"], "hi").status_code == 403
    # no such game
    for gid_bad, code in (("nope", 404), ("a.b", 404)):
        assert client.get(f"/api/games/{gid_bad}/chat").status_code == code
        assert write(client, gid_bad, ann, "hi").status_code == code
    assert error(client.get("/api/games/nope/chat")) == "no game 'nope'"
    # the chat changes nothing of the game
    assert client.get(f"/api/games/{gid}").json()["last_action_id"] == 1
    assert len(client.get(f"/api/games/{gid}/export").json()["actions"]) == 1
    assert client.get(f"/api/games/{other['id']}/chat").json() == {"messages": []}
    store: GameStore = client.app.state.store  # type: ignore[attr-defined]
    assert store.messages(gid, limit=1) == [second]  # the newest


def test_what_a_message_may_be(client: TestClient) -> None:
    g = new(client)
    gid, ann = g["id"], g["seats"][0]["secret"]
    refusals = {
        "": "text: a message needs some text",
        " \n\t ": "text: a message needs some text",
        "x" * (CHAT_CHARS + 1): f"text: a message is at most {CHAT_CHARS} characters, "
                                f"not {CHAT_CHARS + 1}",
        "a\x00b": "text: no control characters (found U+0000)",
        "bell\x07": "text: no control characters (found U+0007)",
        "esc\x1b[31m": "text: no control characters (found U+001B)",
        "next\x85line": "text: no control characters (found U+0085)",
    }
    for text, message in refusals.items():
        r = write(client, gid, ann, text)
        assert r.status_code == 422 and error(r) == message, repr(text)
    for body, message in (({"text": 5}, "text: Input should be a valid string"),
                          ({}, "text: Field required"),
                          ({"text": ["a"]}, "text: Input should be a valid string")):
        r = client.post(f"/api/games/{gid}/chat", headers=bearer(ann), json=body)
        assert r.status_code == 422 and error(r) == message
    r = client.post(f"/api/games/{gid}/chat", headers=bearer(ann), content=b"{")
    assert r.status_code == 422 and error(r).startswith("the request body")
    assert client.get(f"/api/games/{gid}/chat").json() == {"messages": []}
    # the longest, after its spaces; any script; a line break
    for text in (" " + "é" * CHAT_CHARS + " ", "ケルン 🚂 Köln", "<script>x</script>", "a\nb"):
        r = write(client, gid, ann, text)
        assert r.status_code == 200 and r.json()["text"] == text.strip()
    got = [m["text"] for m in client.get(f"/api/games/{gid}/chat").json()["messages"]]
    assert got == ["é" * CHAT_CHARS, "ケルン 🚂 Köln", "<script>x</script>", "a\nb"]


def test_a_seats_messages_are_rate_limited(db_url: str) -> None:  # noqa: F811
    now = [1000.0]
    limits = Limits(chat_burst=2, chat_rate=0.5, clock=lambda: now[0])
    with TestClient(create_app(db_url, inline_bots=True, resume_bots=False,
                               limits=limits)) as c:
        g = new(c)
        gid, (ann, ben) = g["id"], [s["secret"] for s in g["seats"][:2]]
        assert [write(c, gid, ann, f"m{i}").status_code for i in range(2)] == [200, 200]
        r = write(c, gid, ann, "m2")
        assert r.status_code == 429 and r.headers["retry-after"] == "2"
        assert error(r) == ("too many messages from this seat: at most 2 at once, then "
                            "0.5 a second; try again in 2 s")
        assert write(c, gid, "", "x").status_code == 403  # no seat: not counted
        assert write(c, gid, ben, "mine").status_code == 200  # a bucket per seat
        pas = next(e["action"] for e in c.get(f"/api/games/{gid}/legal", headers=bearer(ann))
                   .json()["actions"] if e["action"]["type"] == "pass")
        assert c.post(f"/api/games/{gid}/actions", headers=bearer(ann),  # acting is apart
                      json={"action": pas, "last_action_id": 0}).status_code == 200
        now[0] += 2.0
        assert write(c, gid, ann, "m3").status_code == 200
        texts = [m["text"] for m in c.get(f"/api/games/{gid}/chat").json()["messages"]]
        assert texts == ["m0", "m1", "mine", "m3"]


def test_the_chat_is_kept_with_the_game(db_url: str) -> None:  # noqa: F811
    from sqlalchemy import create_engine, text

    from rhineland.web.db import database_url

    with TestClient(create_app(db_url, inline_bots=True, resume_bots=False)) as c:
        g = new(c)
        gid, ann = g["id"], g["seats"][0]["secret"]
        sent = write(c, gid, ann, "still here?").json()
        state = c.get(f"/api/games/{gid}").json()
    with TestClient(create_app(db_url, inline_bots=True, resume_bots=False)) as c:
        assert c.get(f"/api/games/{gid}/chat").json() == {"messages": [sent]}
        assert c.get(f"/api/games/{gid}").json() == state
    with create_engine(database_url(db_url)).connect() as conn:
        rows = conn.execute(text("SELECT game_id, seat, text, at FROM messages")).all()
    assert [tuple(r) for r in rows] == [(gid, 1, "still here?", 0)]


def test_every_stream_hears_of_each_message(db_url: str) -> None:  # noqa: F811
    from webserver import live_server, next_event

    with live_server(db_url, resume_bots=False) as base, \
            httpx.Client(base_url=base, timeout=10) as c:
        g = c.post("/api/games", json={"title": "1893", "players": ["Ann", "Ben"]}).json()
        gid, (ann, ben) = g["id"], [s["secret"] for s in g["seats"]]
        with c.stream("GET", f"/api/games/{gid}/events") as one, \
                c.stream("GET", f"/api/games/{gid}/events") as two:
            streams = [one.iter_lines(), two.iter_lines()]
            assert [next_event(s) for s in streams] == [("action", {"last_action_id": 0})] * 2
            for secret in (ann, ben, ann):
                r = c.post(f"/api/games/{gid}/chat", headers=bearer(secret),
                           json={"text": "hello"})
                assert r.status_code == 200, r.text
                want = ("chat", {"id": r.json()["id"]})
                assert [next_event(s) for s in streams] == [want, want]


def test_a_seats_private_note(db_url: str) -> None:  # noqa: F811
    """Each seat keeps a note only it reads; it survives a restart; the spectator has
    none; its length and characters are bounded as the chat's."""
    from rhineland.web.store import NOTE_CHARS

    with TestClient(create_app(db_url, inline_bots=True, resume_bots=False,
                               limits=Limits(chat_burst=1000))) as c:
        g = new(c)
        gid, (ann, ben) = g["id"], [s["secret"] for s in g["seats"][:2]]
        url = f"/api/games/{gid}/note"
        assert c.get(url, headers=bearer(ann)).json() == {"seat": 1, "text": "",
                                                          "updated_at": None}
        r = c.put(url, headers=bearer(ann), json={"text": " Ben wants RhE <b>!</b>\n "})
        assert r.status_code == 200 and r.json()["text"] == "Ben wants RhE <b>!</b>"
        assert c.put(url, headers=bearer(ben), json={"text": "mine"}).status_code == 200
        assert c.get(url, headers=bearer(ann)).json()["text"] == "Ben wants RhE <b>!</b>"
        assert c.get(url, headers=bearer(ben)).json()["text"] == "mine"
        r = c.put(url, headers=bearer(ann), json={"text": "x" * (NOTE_CHARS + 1)})
        assert r.status_code == 422 and error(r) == (
            f"text: a note is at most {NOTE_CHARS} characters, not {NOTE_CHARS + 1}")
        r = c.put(url, headers=bearer(ann), json={"text": "a\x00"})
        assert r.status_code == 422 and error(r) == "text: no control characters (found U+0000)"
        for headers in (bearer(g["spectator"]), {}):
            for r in (c.get(url, headers=headers),
                      c.put(url, headers=headers, json={"text": "x"})):
                assert r.status_code == 403, r.text
        r = c.get(url, headers=bearer(g["spectator"]))
        assert error(r) == "the spectator link watches: it has no private note"
        assert c.get("/api/games/nope/note", headers=bearer(ann)).status_code == 404
        assert c.get(f"/api/games/{gid}/chat").json() == {"messages": []}  # not the chat
        assert c.put(url, headers=bearer(ben), json={"text": ""}).json()["text"] == ""
    with TestClient(create_app(db_url, inline_bots=True, resume_bots=False)) as c:
        got = c.get(url, headers=bearer(ann)).json()
        assert got["text"] == "Ben wants RhE <b>!</b>" and isinstance(got["updated_at"], int)
        assert c.get(url, headers=bearer(ben)).json()["text"] == ""
