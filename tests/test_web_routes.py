"""``POST /api/games/{id}/routes/preview``: the revenue the engine pays for routes given
by their stops, or its refusal, and the best routes found, on real positions (the worked
example's first run, a run on two-city hexes of a reference game); nothing is stored."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient

from reference import SHARED, needs_shared
from rhineland.io.export import parse_export, replay
from rhineland.routes.search import best_routes
from rhineland.web.store import PREVIEW_BUDGET
from test_web_api import bearer, client  # noqa: F401 (a fixture)
from webdb import db_url, pg_cluster  # noqa: F401 (fixtures)

SEED = SHARED / "fixtures" / "18Rhl" / "18Rhl_seed_opening.json"
TWO_CITIES = SHARED / "fixtures" / "released" / "18Rhl" / "18Rhl_g05.json"
"""A reference game whose BME runs from a two-city hex (F13) to another (G12)."""

pytestmark = needs_shared


def up_to_first_run(path: Any, entity: str) -> tuple[dict[str, Any], int]:
    """The export ``path`` up to (not with) ``entity``'s first run, and how many actions
    it keeps."""
    data = json.loads(path.read_text())
    at = next(i for i, a in enumerate(data["actions"])
              if a["type"] == "run_routes" and a["entity"] == entity)
    data["actions"] = data["actions"][:at]
    return data, at


def best_of(data: dict[str, Any], entity: str) -> dict[str, Any]:
    """The engine's best-route search on the export's last position, as the preview
    answers it."""
    found = best_routes(replay(parse_export(data)), entity, budget_nodes=PREVIEW_BUDGET)
    return {"revenue": found.revenue, "routes": [
        {"train": r.train, "nodes": list(r.spec.nodes),
         "connections": [list(c) for c in r.spec.connections], "revenue": r.result.revenue}
        for r in found.routes]}


def test_the_preview_pays_what_the_run_pays_and_stores_nothing(client: TestClient) -> None:  # noqa: F811
    """ADR's first run of the worked example: Aachen - town - Düren previewed at 50M (the
    best is the same run), a route without a token refused with the engine's message, the
    wrong seat, the spectator, a stale id refused as ``/routes`` refuses them; nothing is
    stored, and the run then sent pays the previewed 50M."""
    data, at = up_to_first_run(SEED, "ADR")
    g = client.post("/api/games/import", json=data).json()
    gid, p1, p2 = g["id"], g["seats"][0]["secret"], g["seats"][1]["secret"]
    before = client.get(f"/api/games/{gid}/export").json()

    def preview(stops: list[str], headers: dict[str, str] | None = None,
                last: int = at) -> Any:
        return client.post(f"/api/games/{gid}/routes/preview",
                           headers=bearer(p1) if headers is None else headers, json={
                               "entity": "ADR", "routes": [{"train": "2-0", "stops": stops}],
                               "last_action_id": last})

    best = best_of(data, "ADR")
    assert best["revenue"] == 50
    r = preview(["K2", "K4-0", "K6"])
    assert r.status_code == 200, r.text
    assert r.json() == {"legal": True, "error": None, "revenue": 50, "best": best, "routes": [
        {"train": "2-0", "connections": [["K2", "K4"], ["K4", "K6"]],
         "nodes": ["K2-0", "K4-0", "K6-0"], "revenue": 50}]}
    r = preview(["K4", "K6"])
    assert r.status_code == 200 and r.json() == {
        "legal": False, "routes": [], "revenue": None, "best": best,
        "error": "train 2-0: the route (K4-0, K6-0) has no city with a ADR token "
                 "[route.token]"}
    assert preview(["K2", "K6"]).json()["error"] == (
        "train 2-0: no track runs from K2 to K6 without passing another town or city "
        "(click every stop in order) [route.track]")
    refusals = [
        (bearer(p2), at, 403, "ADR is not yours to run"),
        (bearer(g["spectator"]), at, 403, "the spectator link watches: it acts for nobody"),
        (bearer("no-such-secret"), at, 403,
         "the secret opens no seat of this game (use your seat's invite link)"),
        (bearer("not a secret!"), at, 403, "the secret opens no seat of this game: it is "
                                           "not of a secret's shape (use your seat's invite "
                                           "link)"),
        ({}, at, 403, "the secret opens no seat of this game (use your seat's invite link)"),
        (bearer(p1), at - 1, 409, f"stale position: the game is at action {at}, not "
                                  f"{at - 1}; reload and try again"),
    ]
    for headers, last, status, message in refusals:
        r = preview(["K2", "K4", "K6"], headers, last)
        assert (r.status_code, r.json()) == (status, {"error": message})
    r = client.post(f"/api/games/{gid}/routes/preview", headers=bearer(p1), content=b"{")
    assert r.status_code == 422 and "the request body" in r.json()["error"]
    r = client.post(f"/api/games/{gid}/routes/preview", headers=bearer(p1),
                    json={"entity": "ADR", "routes": "K2", "last_action_id": at})
    assert (r.status_code, r.json()["error"]) == (422, "routes: Input should be a valid list")
    assert client.get(f"/api/games/{gid}/export").json() == before  # nothing stored
    assert client.get(f"/api/games/{gid}").json()["last_action_id"] == at
    r = client.post(f"/api/games/{gid}/routes", headers=bearer(p1), json={
        "entity": "ADR", "routes": [{"train": "2-0", "stops": ["K2", "K4-0", "K6"]}],
        "last_action_id": at})
    assert r.status_code == 200, r.text
    stored = client.get(f"/api/games/{gid}/export").json()["actions"][-1]
    assert [x["revenue"] for x in stored["routes"]] == [50]


def test_the_preview_on_two_city_hexes(client: TestClient) -> None:  # noqa: F811
    """BME's first run in a reference game, from F13 (two cities) to G12 (two cities):
    the city named by its node is the one run to; the best routes are the engine's search
    on that position; a stop on a two-city hex named by the hex alone is the one the
    track from the stop before joins."""
    data, at = up_to_first_run(TWO_CITIES, "BME")
    g = client.post("/api/games/import", json=data).json()
    gid = g["id"]
    seat = next(s for s in g["seats"]
                if client.get(f"/api/games/{gid}/legal", headers=bearer(s["secret"]))
                .json()["actions"])

    def preview(stops: list[str]) -> dict[str, Any]:
        r = client.post(f"/api/games/{gid}/routes/preview", headers=bearer(seat["secret"]),
                        json={"entity": "BME", "routes": [{"train": "2-4", "stops": stops}],
                              "last_action_id": at})
        assert r.status_code == 200, r.text
        return dict(r.json())

    best = best_of(data, "BME")
    assert best["revenue"] == 50 and best["routes"][0]["nodes"] == ["F13-1", "G12-0"]
    shown = preview(["F13-1", "G12-0"])
    assert (shown["legal"], shown["revenue"], shown["best"]) == (True, 50, best)
    assert shown["routes"][0]["nodes"] == ["F13-1", "G12-0"]
    wrong = preview(["F13-0", "G12-0"])
    assert wrong["legal"] is False and "[route." in wrong["error"]
    # the map with the best routes drawn (the page's while the seat runs trains)
    r = client.get(f"/api/games/{gid}/map.svg?best=BME")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert r.text.count('class="route"') == 1 and 'data-train="2-4"' in r.text
    assert 'data-node="F13-1"' in r.text and 'data-node="G12-0"' in r.text
    r = client.get(f"/api/games/{gid}/map.svg?best=ADR")
    assert (r.status_code, r.json()) == (422, {"error": "ADR does not run trains now"})
