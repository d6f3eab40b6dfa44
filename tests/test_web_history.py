"""The history of a game over the API, on SQLite and PostgreSQL: the state and the
drawings at every past position (``?at=N``: the game after its first N actions) are the
replay's, nothing is written, the round starts let a page jump by rounds, and a bad
``at`` is a one-line 422 or 404; the per-process cache of replayed positions
(:class:`rhineland.web.history.History`) gives what a fresh replay gives, undos
included, in any order."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from reference import SHARED, needs_shared
from rhineland.engine.game import Game
from rhineland.io.export import parse_export, replay
from rhineland.web import create_app
from rhineland.web.history import History, setup_of
from webdb import db_url, pg_cluster  # noqa: F401 (fixtures)

SEED = SHARED / "fixtures" / "18Rhl" / "18Rhl_seed_opening.json"


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:  # noqa: F811
    with TestClient(create_app(db_url, inline_bots=True, resume_bots=False)) as c:
        yield c


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def seed_opening(until: int = 38) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SEED.read_text())
    data["actions"] = [a for a in data["actions"] if a["id"] <= until]
    return data


def error(r: Any) -> str:
    body = r.json()
    assert list(body) == ["error"] and "\n" not in body["error"], r.text
    return str(body["error"])


def figures(game: Game) -> dict[str, Any]:
    """What a position is made of, to compare two games."""
    return {"log": list(game.log), "cash": [p.cash for p in game.players],
            "corporations": {c.sym: (c.cash, c.share_price.price if c.share_price else None,
                                     [t.name for t in c.trains])
                             for c in game.corporations.values()},
            "tiles": {h: game.board.tile_at(h).tile_id for h in ("K2", "K4", "K6")
                      if game.board.tile_at(h) is not None},
            "round": game.round.label, "acting": game.acting_entities()}


@needs_shared
def test_every_past_position_is_the_replays_and_nothing_is_written(
        client: TestClient) -> None:
    data = seed_opening()
    g = client.post("/api/games/import", json=data).json()
    gid, ann = g["id"], g["seats"][0]["secret"]
    now = client.get(f"/api/games/{gid}").json()
    assert now["history"] is None and now["n_actions"] == 38
    export_before = client.get(f"/api/games/{gid}/export").json()
    lobby_before = client.get("/api/games").json()
    whole = parse_export(data)
    for at in (0, 1, 7, 24, 25, 37):
        st = client.get(f"/api/games/{gid}", params={"at": at}, headers=bearer(ann)).json()
        assert st["history"] == {"at": at, "of": 38, "last_action_id": 38}
        assert st["n_actions"] == at and st["seat"] == 1
        assert "can_undo" not in st  # a past position offers nothing
        then = replay(whole, until=data["actions"][at - 1]["id"]) if at else None
        if then is None:
            assert st["log"] == [] and [p["cash"] for p in st["players"]] == [450] * 4
            assert st["round"] == "Auction 1" and st["acting"] == [1]
        else:
            assert st["log"] == then.log[-len(st["log"]):] and len(then.log) >= len(st["log"])
            assert [p["cash"] for p in st["players"]] == [p.cash for p in then.players]
            assert st["acting"] == then.acting_entities()
            assert st["last_action_id"] == data["actions"][at - 1]["id"]
        assert st["rounds"] == now["rounds"]
    # the map before and after ADR's tile on K4 (action 25)
    before = client.get(f"/api/games/{gid}/map.svg", params={"at": 24})
    after = client.get(f"/api/games/{gid}/map.svg", params={"at": 25})
    assert before.status_code == after.status_code == 200
    assert before.headers["content-type"] == "image/svg+xml"
    assert 'data-tile="4-0"' not in before.text and 'data-tile="4-0"' in after.text
    assert client.get(f"/api/games/{gid}/map.svg").text == \
        client.get(f"/api/games/{gid}/map.svg", params={"at": 38}).text
    panels = client.get(f"/api/games/{gid}/panels.svg", params={"at": 0})
    assert panels.status_code == 200 and 'class="player" data-player="1"' in panels.text
    # the last position is now: the live state
    assert client.get(f"/api/games/{gid}", params={"at": 38}).json() == \
        client.get(f"/api/games/{gid}").json()
    # nothing was written, the game goes on from where it was
    assert client.get(f"/api/games/{gid}/export").json() == export_before
    assert client.get("/api/games").json() == lobby_before
    assert client.get(f"/api/games/{gid}").json() == now


@needs_shared
def test_round_starts_lead_to_each_round(client: TestClient) -> None:
    g = client.post("/api/games/import", json=seed_opening()).json()
    gid = g["id"]
    rounds = client.get(f"/api/games/{gid}").json()["rounds"]
    assert [r["heading"] for r in rounds] == ["Private auction", "SR 1", "OR 1.1", "SR 2",
                                              "OR 2.1"]
    assert rounds[0]["at"] == 0
    assert [r["at"] for r in rounds] == sorted(r["at"] for r in rounds)
    for r in rounds:
        st = client.get(f"/api/games/{gid}", params={"at": r["at"]}).json()
        assert st["round"] == r["round"]
        if r["at"]:  # the position before it is still the round before
            st = client.get(f"/api/games/{gid}", params={"at": r["at"] - 1}).json()
            assert st["round"] != r["round"]
    sr1 = next(r for r in rounds if r["round"] == "SR 1")
    st = client.get(f"/api/games/{gid}", params={"at": sr1["at"]}).json()
    assert st["status"].startswith("SR 1")
    assert [c["sym"] for c in st["corporations"]] == ["RhE"]  # parred in the auction


def test_bad_positions_are_refused_in_one_line(client: TestClient) -> None:
    g = client.post("/api/games", json={"title": "1893", "players": ["Ann", "Ben"]}).json()
    gid, ann = g["id"], g["seats"][0]["secret"]
    pas = next(e["action"] for e in client.get(f"/api/games/{gid}/legal",
                                               headers=bearer(ann)).json()["actions"]
               if e["action"]["type"] == "pass")
    assert client.post(f"/api/games/{gid}/actions", headers=bearer(ann),
                       json={"action": pas, "last_action_id": 0}).status_code == 200
    for path in ("", "/map.svg", "/panels.svg"):
        url = f"/api/games/{gid}{path}"
        r = client.get(url, params={"at": -1})
        assert r.status_code == 422
        assert error(r) == ("at: expected a position from 0 (the start) to the number of "
                            "actions, found -1")
        for past_end in (2, 10**30):
            r = client.get(url, params={"at": past_end})
            assert r.status_code == 404
            assert error(r) == f"no position {past_end}: the game has 1 actions (positions " \
                               "0 to 1)"
        for junk in ("x", "1.5", "", "1e3", "0x1", "１"):
            r = client.get(url, params={"at": junk})
            assert r.status_code == 422, junk
            assert error(r).startswith("query.at: "), junk
        assert client.get(url, params={"at": 0}).status_code == 200
        r = client.get(f"/api/games/nope{path}", params={"at": 0})
        assert r.status_code == 404 and error(r) == "no game 'nope'"


def test_undone_actions_in_the_history(client: TestClient) -> None:
    """A bid, its undo and another action: each position is the game as it was then
    (after the undo, the game before the bid)."""
    g = client.post("/api/games", json={"title": "18Rhl", "players": ["Ann", "Ben", "Cid"],
                                        "seed": 1}).json()
    gid, (ann, ben, _cid) = g["id"], [s["secret"] for s in g["seats"]]

    def do(secret: str, kind: str, last: int) -> None:
        acts = client.get(f"/api/games/{gid}/legal", headers=bearer(secret)).json()["actions"]
        action = next(e["action"] for e in acts if e["action"]["type"] == kind)
        r = client.post(f"/api/games/{gid}/actions", headers=bearer(secret),
                        json={"action": action, "last_action_id": last})
        assert r.status_code == 200, r.text

    do(ann, "bid", 0)  # Ann buys PWB
    assert client.post(f"/api/games/{gid}/undo", headers=bearer(ann),
                       json={"last_action_id": 1}).status_code == 200
    do(ann, "pass", 2)
    do(ben, "pass", 3)
    states = [client.get(f"/api/games/{gid}", params={"at": at}).json() for at in range(4)]
    cash = [[p["cash"] for p in st["players"]] for st in states]
    assert cash == [[600] * 3, [580, 600, 600], [600] * 3, [600] * 3]
    assert [st["acting"] for st in states] == [[1], [2], [1], [2]]
    assert states[2]["log"] == states[0]["log"]
    assert client.get(f"/api/games/{gid}").json()["acting"] == [3]


@needs_shared
def test_the_cache_of_positions_gives_a_fresh_replays_position() -> None:
    """Positions asked in any order, from checkpoints every 3 actions and from one
    another, with undos in the actions, are those of a replay from the start."""
    from rhineland.bots import make_bot

    live = replay(parse_export(seed_opening(30)))
    live.keep_history = True
    bot = make_bot("random", 1)

    def play() -> None:
        live.process(bot.choose(live, live.acting_entities()[0]))

    play()
    live.undo()  # 32: the game at 30 again
    play()
    play()
    live.undo(live.actions[-3].id)  # 35: both undone (action ids 33 and 34)
    play()  # 36
    actions = list(live.actions)
    assert len(actions) == 36
    history = History(size=8, checkpoint=3)
    for at in (36, 32, 31, 30, 35, 29, 34, 5, 6, 2, 17, 0, 33, 18):
        got = history.position("g", setup_of(live), actions, at).game
        fresh = History(checkpoint=1000).position("f", setup_of(live), actions, at).game
        assert figures(got) == figures(fresh), at
        assert len(got.actions) == at
    assert len(history) <= 8
    assert figures(history.position("g", setup_of(live), actions, 36).game) == figures(live)
