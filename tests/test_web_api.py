"""The web API (httpx through FastAPI's TestClient), over SQLite and PostgreSQL: every
endpoint, and every refusal with its message (wrong seat secret, stale action id, an
illegal action with the engine's message, malformed JSON with the export validation's
message)."""

from __future__ import annotations

import glob
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from reference import SHARED, needs_shared
from rhineland import new_game
from rhineland.engine.actions import Refs, action_from_json
from rhineland.errors import ExportError, GameError
from rhineland.io.export import parse_export, parse_json, replay, to_export
from rhineland.web import create_app
from webdb import db_url, pg_cluster  # noqa: F401 (fixtures)

SEED = SHARED / "fixtures" / "18Rhl" / "18Rhl_seed_opening.json"


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:  # noqa: F811
    with TestClient(create_app(db_url, inline_bots=True)) as c:
        yield c


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def new(client: TestClient, players: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    body = {"title": "18Rhl", "players": players or ["Ann", "Ben", "Cid"], "seed": 1, **extra}
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    return dict(r.json())


def legal(client: TestClient, gid: str, secret: str) -> dict[str, Any]:
    r = client.get(f"/api/games/{gid}/legal", headers=bearer(secret))
    assert r.status_code == 200, r.text
    return dict(r.json())


def act(client: TestClient, gid: str, secret: str, action: dict[str, Any],
        last: int) -> Any:
    return client.post(f"/api/games/{gid}/actions", headers=bearer(secret),
                       json={"action": action, "last_action_id": last})


def test_create_and_read_a_game(client: TestClient) -> None:
    g = new(client)
    assert [s["name"] for s in g["seats"]] == ["Ann", "Ben", "Cid"]
    assert [s["id"] for s in g["seats"]] == [1, 2, 3]
    secrets = [s["secret"] for s in g["seats"]] + [g["spectator"]]
    assert len(set(secrets)) == 4 and all(len(s) >= 20 for s in secrets)
    assert g["seats"][0]["url"] == f"/g/{g['id']}#{g['seats'][0]['secret']}"
    st = client.get(f"/api/games/{g['id']}").json()
    # 18Rhl for 3 players: 600M each (bank 9000M less what the players got)
    assert st["title"] == "18Rhl" and st["last_action_id"] == 0 and st["acting"] == [1]
    assert [p["cash"] for p in st["players"]] == [600, 600, 600]
    assert st["bank"] == 9000 - 3 * 600
    assert st["round"] == "Auction 1" and not st["finished"] and st["result"] is None
    assert st["status"] == ("Private auction · buy the cheapest private or bid on another · "
                            "Ann to act")  # in words: no step name
    lobby = client.get("/api/games").json()
    assert [x["id"] for x in lobby] == [g["id"]]
    assert lobby[0]["players"][1] == {"id": 2, "name": "Ben", "bot": None, "url": None}
    # an open seat's invite link is in the lobby (the demo game's)
    g2 = new(client, bots={"2": "random", "3": "random"}, open_seats=[1])
    lobby = {x["id"]: x for x in client.get("/api/games").json()}
    assert lobby[g2["id"]]["players"][0]["url"] == g2["seats"][0]["url"]
    assert lobby[g2["id"]]["players"][1]["url"] is None
    r = client.post("/api/games", json={"title": "18Rhl", "players": ["a", "b", "c"],
                                        "bots": {"2": "random"}, "open_seats": [2]})
    assert r.status_code == 422 and r.json()["error"] == (
        "open_seats: expected seats of people (1..3, no bot), found [2]")


def test_create_refusals(client: TestClient) -> None:
    r = client.post("/api/games", json={"title": "1830", "players": ["a", "b", "c"]})
    assert r.status_code == 422 and "1830" in r.json()["error"]
    r = client.post("/api/games", json={"title": "18Rhl", "players": ["a", "b"]})
    assert r.status_code == 422
    assert r.json()["error"] == "18Rhl is for 3, 4, 5, 6 players, not 2 [setup.player_count]"
    r = client.post("/api/games", json={"title": "18Rhl", "players": ["a", "A", "b"]})
    assert r.status_code == 422 and r.json()["error"] == "players: the names must differ"
    r = client.post("/api/games", json={"title": "18Rhl", "players": ["a", "b", "c"],
                                        "bots": {"4": "random"}})
    assert r.json()["error"] == "bots: no seat 4 (seats 1..3)"
    r = client.post("/api/games", json={"title": "18Rhl", "players": ["a", "b", "c"],
                                        "bots": {"2": "genius"}})
    assert r.status_code == 422 and r.json()["error"].startswith("bots: seat 2: unknown bot")
    r = client.post("/api/games", json={"title": "18Rhl"})
    assert r.status_code == 422 and r.json()["error"] == "body.players: Field required"


def test_legal_actions_by_seat(client: TestClient) -> None:
    g = new(client)
    gid, (ann, ben, _cid) = g["id"], [s["secret"] for s in g["seats"]]
    mine = legal(client, gid, ann)
    assert mine["seat"] == 1 and mine["last_action_id"] == 0
    types = {e["action"]["type"] for e in mine["actions"]}
    assert types == {"bid", "pass"}
    assert all(e["action"]["entity"] == 1 for e in mine["actions"])
    bids = {e["action"]["company"]: e for e in mine["actions"] if e["action"]["type"] == "bid"}
    # the cheapest private (PWB, 20M) is bought at its price; the others take bids from
    # 5M above their value up to Ann's 600M
    assert "amount" not in bids["PWB"] and bids["PWB"]["action"]["price"] == 20
    assert bids["KEO"]["amount"] == {"field": "price", "min": 35, "max": 600, "step": 1}
    assert bids["RhE"]["amount"]["min"] == 145  # 140M only as the cheapest item left
    assert legal(client, gid, ben)["actions"] == []  # not Ben's turn
    for headers in ({}, bearer("not-a-secret")):
        r = client.get(f"/api/games/{gid}/legal", headers=headers)
        assert r.status_code == 403
        assert r.json()["error"].startswith("the secret opens no seat of this game")
    r = client.get(f"/api/games/{gid}/legal", headers=bearer(g["spectator"]))
    assert r.status_code == 403 and "spectator" in r.json()["error"]
    assert client.get("/api/games/nope/legal", headers=bearer(ann)).status_code == 404


def test_an_action_and_its_refusals(client: TestClient) -> None:
    g = new(client)
    gid, (ann, ben, _cid) = g["id"], [s["secret"] for s in g["seats"]]
    first = legal(client, gid, ann)["actions"]
    pas = next(e["action"] for e in first if e["action"]["type"] == "pass")
    # wrong seat: Ben's secret while Ann is to act; a secret of no seat; the spectator
    r = act(client, gid, ben, {**pas, "entity": 2}, 0)
    assert r.status_code == 403 and r.json()["error"] == "not your turn: Ann to act"
    r = act(client, gid, "bad", pas, 0)
    assert r.status_code == 403
    r = act(client, gid, g["spectator"], pas, 0)
    assert r.status_code == 403 and "acts for nobody" in r.json()["error"]
    r = act(client, gid, ann, {**pas, "entity": 2}, 0)  # Ann acting as Ben
    assert r.status_code == 403 and r.json()["error"] == "your seat is player 1, not 2"
    # the action itself
    r = act(client, gid, ann, pas, 0)
    assert r.status_code == 200, r.text
    st = r.json()
    assert st["last_action_id"] == 1 and st["acting"] == [2]
    # the same again from a page that saw action 0: stale, never applied twice
    r = act(client, gid, ann, pas, 0)
    assert r.status_code == 409
    assert r.json()["error"] == ("stale position: the game is at action 1, not 0; "
                                 "reload and try again")
    assert client.get(f"/api/games/{gid}").json()["last_action_id"] == 1
    export = client.get(f"/api/games/{gid}/export").json()
    assert [(a["id"], a["type"], a["entity"]) for a in export["actions"]] == [(1, "pass", 1)]


def test_illegal_action_shows_the_engine_message(client: TestClient) -> None:
    g = new(client)
    gid, ann = g["id"], g["seats"][0]["secret"]
    bid = next(e for e in legal(client, gid, ann)["actions"] if e["action"]["type"] == "bid")
    too_much = {**bid["action"], "price": 5000}  # more than Ann's 600M
    game = new_game("18Rhl", ["Ann", "Ben", "Cid"], seed=1)
    refs = Refs.of(game.data, [1, 2, 3])
    with pytest.raises(GameError) as engine:
        game.process(action_from_json({**too_much, "id": 1}, refs))
    r = act(client, gid, ann, too_much, 0)
    assert r.status_code == 422
    assert r.json()["error"] == str(engine.value) and "5000" in r.json()["error"]
    assert client.get(f"/api/games/{gid}").json()["last_action_id"] == 0  # nothing stored


def test_malformed_requests_show_the_validation_message(client: TestClient) -> None:
    g = new(client)
    gid, ann = g["id"], g["seats"][0]["secret"]
    url = f"/api/games/{gid}/actions"
    raw = b'{"action": {"type": "pass"}, "last_action_id": 0'
    r = client.post(url, headers={**bearer(ann), "Content-Type": "application/json"},
                    content=raw)
    assert r.status_code == 422
    with pytest.raises(ExportError) as parsed:
        parse_json(raw, "the request body")
    assert r.json()["error"] == str(parsed.value)
    assert r.json()["error"].startswith("the request body is not valid JSON: ")
    lay = {"type": "lay_tile", "entity": "ADR", "entity_type": "corporation",
           "hex": "K4", "tile": "4-0", "rotation": 99}
    r = act(client, gid, ann, lay, 0)
    assert r.status_code == 422
    assert r.json()["error"] == ("action 1 (lay_tile): rotation: expected a rotation "
                                 "(an integer 0-5), found 99")
    r = act(client, gid, ann, {"type": "fly", "entity": 1}, 0)
    assert r.status_code == 422
    assert r.json()["error"].startswith("action 1 (fly): type: expected one of the action types")
    assert r.json()["error"].endswith("found unknown action type 'fly'")
    r = client.post(url, headers=bearer(ann), json={"action": {"type": "pass"}})
    assert r.status_code == 422 and r.json()["error"] == "last_action_id: Field required"


@needs_shared
def test_import_export_round_trip(client: TestClient) -> None:
    data = json.loads(SEED.read_text())
    r = client.post("/api/games/import", content=SEED.read_bytes())
    assert r.status_code == 200, r.text
    gid = r.json()["id"]
    st = client.get(f"/api/games/{gid}").json()
    assert st["last_action_id"] == 42 and st["acting"] == [4]  # as the export says
    export = client.get(f"/api/games/{gid}/export").json()
    assert export["actions"] == data["actions"]
    assert export["players"] == data["players"] and export["settings"]["seed"] == 1
    # the export replays to the same position
    game = replay(parse_export(export))
    assert to_export(game)["actions"] == export["actions"]
    assert {p.name: p.cash for p in game.players} == {
        p["name"]: p["cash"] for p in st["players"]}
    # the game goes on: P4 (seat 4) acts next
    p4 = r.json()["seats"][3]["secret"]
    nxt = legal(client, gid, p4)["actions"]
    assert nxt and all(e["action"]["entity"] == 4 for e in nxt)


@needs_shared
def test_import_refusals_show_the_validation_message(client: TestClient) -> None:
    data = json.loads(SEED.read_text())
    data["actions"][24]["rotation"] = 99  # action 25: the K4 tile lay
    r = client.post("/api/games/import", json=data)
    assert r.status_code == 422
    with pytest.raises(ExportError) as parsed:
        parse_export(data)
    assert r.json()["error"] == str(parsed.value) == (
        "action 25 (lay_tile): rotation: expected a rotation (an integer 0-5), found 99")
    r = client.post("/api/games/import", content=b"{\"title\": ")
    assert r.status_code == 422 and r.json()["error"].startswith("the export is not valid JSON")
    data = json.loads(SEED.read_text())
    data["actions"][0]["price"] = 5000  # a bid Ann (P1, 450M) cannot pay
    r = client.post("/api/games/import", json=data)
    assert r.status_code == 422 and r.json()["error"].startswith("action 1: ")
    assert client.get("/api/games").json() == []  # nothing was stored


def test_bots_play_their_seats_until_a_person_is_to_act(client: TestClient) -> None:
    g = new(client, bots={"2": "random", "3": "greedy"})
    gid, ann = g["id"], g["seats"][0]["secret"]
    assert g["seats"][1]["secret"] is None and g["seats"][1]["bot"] == "random"
    last = 0
    for _ in range(12):
        acts = legal(client, gid, ann)
        assert acts["actions"], "Ann is to act after the bots"
        bid = [e for e in acts["actions"] if e["action"]["type"] == "bid"]
        choice = (bid or acts["actions"])[0]
        action = dict(choice["action"])
        if "amount" in choice:
            action[choice["amount"]["field"]] = choice["amount"]["min"]
        r = act(client, gid, ann, action, acts["last_action_id"])
        assert r.status_code == 200, r.text
        st = r.json()
        assert st["finished"] or st["acting"] == [1]
        assert st["last_action_id"] > last
        last = st["last_action_id"]
    export = client.get(f"/api/games/{gid}/export").json()
    entities = [a["entity"] for a in export["actions"] if a["entity_type"] == "player"]
    assert {2, 3} <= set(entities)  # both bots acted
    # what is stored replays to what is served
    game = replay(parse_export(export))
    assert to_export(game)["actions"] == export["actions"]


def test_undo_of_ones_own_last_action(client: TestClient) -> None:
    g = new(client, bots={"3": "random"})
    gid, (ann, ben, _) = g["id"], [s["secret"] for s in g["seats"]]
    r = client.post(f"/api/games/{gid}/undo", headers=bearer(ann), json={"last_action_id": 0})
    assert r.status_code == 422 and r.json()["error"] == "nothing of yours to undo"
    before = legal(client, gid, ann)["actions"]
    pas = next(e["action"] for e in before if e["action"]["type"] == "pass")
    assert act(client, gid, ann, pas, 0).status_code == 200
    st = client.get(f"/api/games/{gid}", headers=bearer(ann)).json()
    assert st["acting"] == [2] and st["can_undo"]
    r = client.post(f"/api/games/{gid}/undo", headers=bearer(ben), json={"last_action_id": 1})
    assert r.status_code == 422 and r.json()["error"] == "nothing of yours to undo"
    r = client.post(f"/api/games/{gid}/undo", headers=bearer(ann), json={"last_action_id": 0})
    assert r.status_code == 409
    r = client.post(f"/api/games/{gid}/undo", headers=bearer(ann), json={"last_action_id": 1})
    assert r.status_code == 200, r.text
    st = r.json()
    assert st["last_action_id"] == 2 and st["acting"] == [1]
    assert legal(client, gid, ann)["actions"] == before
    export = client.get(f"/api/games/{gid}/export").json()
    assert [(a["type"], a.get("action_id")) for a in export["actions"]] == [
        ("pass", None), ("undo", 0)]
    # Ann passes, Ben passes (a person): Ann may not undo across Ben's action
    assert act(client, gid, ann, pas, 2).status_code == 200
    bpass = next(e["action"] for e in legal(client, gid, ben)["actions"]
                 if e["action"]["type"] == "pass")
    r = act(client, gid, ben, bpass, 3)
    assert r.status_code == 200
    last = r.json()["last_action_id"]
    assert last == 5  # the bot (Cid) passed too
    assert client.get(f"/api/games/{gid}", headers=bearer(ann)).json()["can_undo"] is False
    assert client.get(f"/api/games/{gid}", headers=bearer(ben)).json()["can_undo"] is True
    r = client.post(f"/api/games/{gid}/undo", headers=bearer(ann),
                    json={"last_action_id": last})
    assert r.status_code == 422
    assert r.json()["error"] == "Ben acted after your last action: it cannot be undone"
    # Ben may: his pass and the bot's after it go
    r = client.post(f"/api/games/{gid}/undo", headers=bearer(ben),
                    json={"last_action_id": last})
    assert r.status_code == 200 and r.json()["acting"] == [2]


def test_games_survive_a_restart(db_url: str) -> None:  # noqa: F811
    with TestClient(create_app(db_url, inline_bots=True)) as c:
        g = new(c)
        gid, ann = g["id"], g["seats"][0]["secret"]
        pas = next(e["action"] for e in legal(c, gid, ann)["actions"]
                   if e["action"]["type"] == "pass")
        assert act(c, gid, ann, pas, 0).status_code == 200
        before = c.get(f"/api/games/{gid}").json()
    with TestClient(create_app(db_url, inline_bots=True)) as c:
        assert c.get(f"/api/games/{gid}").json() == before
        ben = g["seats"][1]["secret"]
        assert legal(c, gid, ben)["last_action_id"] == 1


def test_two_servers_on_one_database_never_store_an_action_twice(db_url: str) -> None:  # noqa: F811
    a = TestClient(create_app(db_url, inline_bots=True))
    b = TestClient(create_app(db_url, inline_bots=True))
    with a, b:
        g = new(a)
        gid, (ann, ben, _) = g["id"], [s["secret"] for s in g["seats"]]
        pas = next(e["action"] for e in legal(b, gid, ann)["actions"]
                   if e["action"]["type"] == "pass")  # b has the game in memory now
        assert act(a, gid, ann, pas, 0).status_code == 200
        # b's memory still says action 0; the database says 1: b refuses, stores nothing
        r = act(b, gid, ann, pas, 0)
        assert r.status_code == 409
        assert r.json()["error"] == ("stale position: the game is at action 1, not 0; "
                                     "reload and try again")
        # b reloaded from the database and goes on
        st = b.get(f"/api/games/{gid}").json()
        assert st["last_action_id"] == 1 and st["acting"] == [2]
        bpass = next(e["action"] for e in legal(b, gid, ben)["actions"]
                     if e["action"]["type"] == "pass")
        assert act(b, gid, ben, bpass, 1).status_code == 200
        export = a.get(f"/api/games/{gid}/export").json()
    assert [a["id"] for a in export["actions"]] == [1, 2]


def test_drawings_and_openapi(client: TestClient) -> None:
    g = new(client)
    r = client.get(f"/api/games/{g['id']}/map.svg")
    assert r.status_code == 200 and r.headers["content-type"] == "image/svg+xml"
    assert r.text.count('class="hex"') > 50 and 'data-hex="K4"' in r.text
    r = client.get(f"/api/games/{g['id']}/panels.svg")
    assert 'class="player" data-player="1"' in r.text
    spec = client.get("/openapi.json").json()
    paths = spec["paths"]
    for path in ("/api/games", "/api/games/{game_id}", "/api/games/{game_id}/legal",
                 "/api/games/{game_id}/actions", "/api/games/{game_id}/export",
                 "/api/games/{game_id}/undo", "/api/games/{game_id}/events"):
        assert path in paths
    body = paths["/api/games/{game_id}/actions"]["post"]["requestBody"]
    assert body["content"]["application/json"]["schema"]["required"] == [
        "action", "last_action_id"]
    page = client.get(f"/g/{g['id']}")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]


def test_concurrent_actions_on_two_servers_store_exactly_one(db_url: str) -> None:  # noqa: F811
    from concurrent.futures import ThreadPoolExecutor

    apps = [TestClient(create_app(db_url, inline_bots=True)) for _ in range(2)]
    with apps[0], apps[1]:
        g = new(apps[0])
        gid, (ann, ben, cid) = g["id"], [s["secret"] for s in g["seats"]]
        seats = [ann, ben, cid]
        for turn in range(6):  # six rounds of eight racing posts of the same pass
            secret = seats[turn % 3]
            pas = next(e["action"] for e in legal(apps[turn % 2], gid, secret)["actions"]
                       if e["action"]["type"] == "pass")
            with ThreadPoolExecutor(8) as pool:
                codes = sorted(pool.map(
                    lambda i, s=secret, p=pas, t=turn: act(apps[i % 2], gid, s, p, t)
                    .status_code, range(8)))
            assert codes == [200] + [409] * 7
        export = apps[1].get(f"/api/games/{gid}/export").json()
    assert [a["id"] for a in export["actions"]] == [1, 2, 3, 4, 5, 6]
    assert [a["entity"] for a in export["actions"]] == [1, 2, 3, 1, 2, 3]


def test_events_reach_every_open_stream(db_url: str) -> None:  # noqa: F811
    from webserver import live_server, next_event

    with live_server(db_url) as base, httpx.Client(base_url=base, timeout=10) as c:
        g = c.post("/api/games", json={"title": "1893", "players": ["Ann", "Ben"]}).json()
        gid, (ann, ben) = g["id"], [s["secret"] for s in g["seats"]]
        with c.stream("GET", f"/api/games/{gid}/events") as one, \
                c.stream("GET", f"/api/games/{gid}/events") as two:
            assert one.headers["content-type"].startswith("text/event-stream")
            streams = [one.iter_lines(), two.iter_lines()]

            assert [next_event(s) for s in streams] == [("action", {"last_action_id": 0})] * 2
            for turn, secret in enumerate([ann, ben, ann]):
                acts = c.get(f"/api/games/{gid}/legal", headers=bearer(secret)).json()
                choice = acts["actions"][0]
                action = dict(choice["action"])
                if "amount" in choice:
                    action[choice["amount"]["field"]] = choice["amount"]["min"]
                r = c.post(f"/api/games/{gid}/actions", headers=bearer(secret),
                           json={"action": action, "last_action_id": turn})
                assert r.status_code == 200, r.text
                want = ("action", {"last_action_id": turn + 1})
                assert [next_event(s) for s in streams] == [want, want]


def test_migrations_build_exactly_the_models_tables(db_url: str) -> None:  # noqa: F811
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlalchemy import text

    from rhineland.web.db import Base, open_engine

    engine = open_engine(db_url)
    open_engine(db_url)  # a second start migrates nothing
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).all() == [
            ("0006",)]
        ctx = MigrationContext.configure(conn, opts={"compare_type": True})
        assert compare_metadata(ctx, Base.metadata) == []


def test_chess_clock(db_url: str) -> None:  # noqa: F811
    clock = [1000]
    with TestClient(create_app(db_url, inline_bots=True, now=lambda: clock[0])) as c:
        g = new(c, clock_minutes=10)
        gid, secrets = g["id"], [s["secret"] for s in g["seats"]]
        assert c.get(f"/api/games/{new(c)['id']}").json()["clock"] is None  # no clock
        for pid, at in ((1, 1090), (2, 1100)):
            clock[0] = at
            acts = legal(c, gid, secrets[pid - 1])
            pas = next(e["action"] for e in acts["actions"] if e["action"]["type"] == "pass")
            assert act(c, gid, secrets[pid - 1], pas, acts["last_action_id"]).status_code == 200
        clock[0] = 1700  # Cid has thought for 600 s: his 10 minutes are used up
        st = c.get(f"/api/games/{gid}").json()
        assert st["clock"] == {"limit": 600, "used": {"1": 90, "2": 10, "3": 600},
                               "left": {"1": 510, "2": 590, "3": 0}, "running": 3,
                               "out_of_time": []}
        clock[0] = 1701
        st = c.get(f"/api/games/{gid}").json()
        assert st["clock"]["out_of_time"] == [3] and st["clock"]["left"]["3"] == -1
        export = c.get(f"/api/games/{gid}/export").json()
        assert [a["created_at"] for a in export["actions"]] == [1090, 1100]
        r = c.post("/api/games", json={"title": "18Rhl", "players": ["a", "b", "c"],
                                       "clock_minutes": 0})
        assert r.json()["error"] == "clock: expected a positive number of seconds, found 0"


def test_a_database_of_the_first_schema_is_migrated_with_its_games(db_url: str) -> None:  # noqa: F811
    from sqlalchemy import create_engine, text

    from rhineland.web.db import database_url, migrate

    old = create_engine(database_url(db_url))
    migrate(old, "0001")  # the schema before the chess clock
    with old.begin() as conn:
        conn.execute(text(
            "INSERT INTO games (id, title, players, seed, optional_rules, secrets, bots, "
            "spectator, open_seats, description, n_actions, last_action_id, status, "
            "created_at, updated_at) VALUES ('old1', '1893', "
            "'[{\"id\": 1, \"name\": \"Ann\"}, {\"id\": 2, \"name\": \"Ben\"}]', 0, '[]', "
            "'{\"1\": \"s1\", \"2\": \"s2\"}', '{}', 'spec', '[2]', '', 0, 0, 'active', 5, 5)"))
    old.dispose()
    with TestClient(create_app(db_url, inline_bots=True)) as c:
        st = c.get("/api/games/old1", headers=bearer("s1")).json()
        assert st["seat"] == 1 and st["acting"] == [1] and st["clock"] is None
        assert legal(c, "old1", "s1")["actions"]
        assert c.get("/api/games/old1", headers=bearer("spec")).json()["seat"] is None
        # the open seat's link is still in the lobby; the other secrets are hashed
        lobby = {g["id"]: g for g in c.get("/api/games").json()}
        assert [p["url"] for p in lobby["old1"]["players"]] == [None, "/g/old1#s2"]
    with create_engine(database_url(db_url)).connect() as conn:
        row = conn.execute(text("SELECT secret_hashes, spectator_hash, open_secrets "
                                "FROM games WHERE id = 'old1'")).one()
    hashes, spectator, opened = (json.loads(v) if isinstance(v, str) and i != 1 else v
                                 for i, v in enumerate(row))
    assert hashes == {"1": hashlib.sha256(b"s1").hexdigest(),
                      "2": hashlib.sha256(b"s2").hexdigest()}
    assert spectator == hashlib.sha256(b"spec").hexdigest() and opened == {"2": "s2"}


def test_the_database_holds_no_plain_secret(db_url: str) -> None:  # noqa: F811
    """Only the SHA-256 of a seat's or the spectator's secret is stored (an open seat's
    secret excepted: the lobby shows it to anyone); the secrets still open their seats."""
    from sqlalchemy import create_engine, text

    from rhineland.web.db import database_url

    with TestClient(create_app(db_url, inline_bots=True)) as c:
        g = new(c, players=["Ann", "Ben", "Cid", "Dan"], bots={"4": "random"}, open_seats=[3])
        gid, (ann, ben, cid) = g["id"], [s["secret"] for s in g["seats"][:3]]
        spectator = g["spectator"]
        assert act(c, gid, ann, next(e["action"] for e in legal(c, gid, ann)["actions"]
                                     if e["action"]["type"] == "pass"), 0).status_code == 200
        for secret, seat in ((ann, 1), (ben, 2), (cid, 3), (spectator, None)):
            assert c.get(f"/api/games/{gid}", headers=bearer(secret)).json()["seat"] == seat
        assert legal(c, gid, ben)["actions"]  # Ben is to act
        r = c.get(f"/api/games/{gid}/legal", headers=bearer(hashlib.sha256(
            ben.encode()).hexdigest()))
        assert r.status_code == 403  # the stored hash opens nothing
    with create_engine(database_url(db_url)).connect() as conn:
        dump = repr([conn.execute(text(f"SELECT * FROM {t}")).all()
                     for t in ("games", "actions")])
    for secret in (ann, ben, spectator):
        assert secret not in dump
        assert hashlib.sha256(secret.encode()).hexdigest() in dump
    assert cid in dump  # the open seat's secret, public in the lobby
    if db_url.startswith("sqlite"):  # nor in the file's bytes, its journal included
        path = db_url.removeprefix("sqlite:///")
        raw = b"".join(Path(f).read_bytes() for f in glob.glob(path + "*"))
        assert hashlib.sha256(ann.encode()).hexdigest().encode() in raw
        assert not any(s.encode() in raw for s in (ann, ben, spectator))


def test_an_engine_fault_refuses_the_action_and_stores_nothing(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    from rhineland.engine.game import Game

    g = new(client)
    gid, ann = g["id"], g["seats"][0]["secret"]
    pas = next(e["action"] for e in legal(client, gid, ann)["actions"]
               if e["action"]["type"] == "pass")
    real = Game.process

    def broken(self: Game, action: Any, **kw: Any) -> None:
        real(self, action, **kw)  # applied in memory, then the fault
        raise RuntimeError("boom")

    monkeypatch.setattr(Game, "process", broken)
    r = act(client, gid, ann, pas, 0)
    assert r.status_code == 422
    assert r.json()["error"] == ("the engine failed on this action (RuntimeError: boom); "
                                 "nothing was stored")
    monkeypatch.setattr(Game, "process", real)
    st = client.get(f"/api/games/{gid}").json()
    assert st["last_action_id"] == 0 and st["acting"] == [1]  # reloaded from the database
    assert act(client, gid, ann, pas, 0).status_code == 200
    assert client.get("/api/games/nope").status_code == 404
    assert "nope" not in client.app.state.store._locks  # type: ignore[attr-defined]


@needs_shared
def test_a_finished_game_shows_its_result(client: TestClient) -> None:
    path = SHARED / "fixtures" / "1893" / "1893_end_bank.json"
    data = json.loads(path.read_text())
    r = client.post("/api/games/import", content=path.read_bytes())
    assert r.status_code == 200, r.text
    gid, ann = r.json()["id"], r.json()["seats"][0]["secret"]
    st = client.get(f"/api/games/{gid}").json()
    assert st["finished"] and st["acting"] == [] and st["status"] == "game over: the bank is broken"
    assert st["result"] == {k: int(v) for k, v in data["result"].items()}
    export = client.get(f"/api/games/{gid}/export").json()
    assert export["result"] == st["result"] and export["status"] == "finished"
    assert legal(client, gid, ann)["actions"] == []
    r = act(client, gid, ann, {"type": "pass", "entity": 1, "entity_type": "player"},
            st["last_action_id"])
    assert r.status_code == 422 and r.json()["error"] == "the game is over"
    lobby = {g["id"]: g for g in client.get("/api/games").json()}
    assert lobby[gid]["status"] == "finished"


@needs_shared
def test_run_routes_given_by_their_stops(client: TestClient) -> None:
    """``POST /routes``: the worked example up to ADR's run in OR 2; the server finds the
    track between the stops, the engine refuses a run the rules forbid (its message) and
    accepts Aachen - town - Düren for 50M."""
    data = json.loads(SEED.read_text())
    at = next(i for i, a in enumerate(data["actions"]) if a["type"] == "run_routes")
    data["actions"] = data["actions"][:at]
    g = client.post("/api/games/import", json=data).json()
    gid, p1, p2 = g["id"], g["seats"][0]["secret"], g["seats"][1]["secret"]
    run = next(e for e in legal(client, gid, p1)["actions"] if e.get("routes"))
    assert run["trains"] == ["2-0"] and run["action"]["routes"][0]["nodes"] == [
        "K2-0", "K4-0", "K6-0"]

    def post(stops: list[str], secret: str = p1, last: int = at) -> Any:
        return client.post(f"/api/games/{gid}/routes", headers=bearer(secret), json={
            "entity": "ADR", "routes": [{"train": "2-0", "stops": stops}],
            "last_action_id": last})

    refusals = [
        (["K4", "K6"], "train 2-0: the route (K4-0, K6-0) has no city with a ADR token "
                       "[route.token]"),
        (["K2", "K4"], "train 2-0: a route may not start or end at a town (K4-0) "
                       "[route.town_end]"),
        (["K2", "K6"], "train 2-0: no track runs from K2 to K6 without passing another "
                       "town or city (click every stop in order) [route.track]"),
        (["K2"], "train 2-0: a route needs at least two stops [route.stops]"),
        (["K2", "Z99"], "Z99 is no town, city or offboard on the map [route.stops]"),
    ]
    for stops, message in refusals:
        r = post(stops)
        assert (r.status_code, r.json()["error"]) == (422, message)
    assert post(["K2", "K4", "K6"], secret=p2).status_code == 403
    assert post(["K2", "K4", "K6"], last=at - 1).status_code == 409
    assert client.get(f"/api/games/{gid}").json()["last_action_id"] == at  # nothing stored
    r = post(["K2", "K4-0", "K6"])
    assert r.status_code == 200, r.text
    stored = client.get(f"/api/games/{gid}/export").json()["actions"][-1]
    assert stored["routes"] == [{"train": "2-0", "connections": [["K2", "K4"], ["K4", "K6"]],
                                 "nodes": ["K2-0", "K4-0", "K6-0"], "revenue": 50}]
    r = post(["K2", "K4", "K6"], last=at + 1)
    assert (r.status_code, r.json()["error"]) == (
        422, "ADR does not run trains now [route.entity]")
