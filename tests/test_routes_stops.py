"""Routes given by their stops (rhineland.routes.stops), on the worked example of the
18Rhl seed just before ADR's first run (OR 2): Aachen (K2), the town K4, Düren (K6)."""

from __future__ import annotations

import json

import pytest

from reference import SHARED, needs_shared
from rhineland.engine.game import Game
from rhineland.errors import GameError
from rhineland.io.export import load_export, replay
from rhineland.routes.graph import track_graph
from rhineland.routes.stops import route_from_stops, run_from_stops

SEED = SHARED / "fixtures" / "18Rhl" / "18Rhl_seed_opening.json"


def _before_the_run() -> Game:
    actions = json.loads(SEED.read_text())["actions"]
    at = next(a["id"] for a in actions if a["type"] == "run_routes")
    return replay(load_export(SEED), until=at - 1)


@needs_shared
def test_stops_become_the_recorded_route() -> None:
    game = _before_the_run()
    graph = track_graph(game.board)
    by_hex, units = route_from_stops(graph, "2-0", ["K2", "K4", "K6"])
    by_node, _ = route_from_stops(graph, "2-0", ["K2-0", "K4-0", "K6-0"])
    recorded = next(a for a in json.loads(SEED.read_text())["actions"]
                    if a["type"] == "run_routes")["routes"][0]
    assert by_hex == by_node == {"train": "2-0", "connections": recorded["connections"],
                                 "nodes": recorded["nodes"]}
    assert units  # the track the route uses
    backwards, _ = route_from_stops(graph, "2-0", ["K6", "K4", "K2"])
    assert backwards["connections"] == [["K6", "K4"], ["K4", "K2"]]
    run = run_from_stops(game, "ADR", [{"train": "2-0", "stops": ["K2", "K4", "K6"]}])
    assert run == {"type": "run_routes", "entity": "ADR", "entity_type": "corporation",
                   "routes": [{**by_hex, "revenue": 50}]}


@needs_shared
def test_stops_that_make_no_route() -> None:
    game = _before_the_run()
    graph = track_graph(game.board)
    cases = [
        (["K2", "K6"], "no track runs from K2 to K6 without passing another town"),
        (["K2"], "a route needs at least two stops"),
        (["K2", "A1"], "A1 is no town, city or offboard on the map"),
    ]
    for stops, message in cases:
        with pytest.raises(GameError, match=message):
            route_from_stops(graph, "2-0", stops)
    with pytest.raises(GameError, match="RhE does not run trains now"):
        run_from_stops(game, "RhE", [{"train": "2-0", "stops": ["K2", "K4", "K6"]}])
    with pytest.raises(GameError, match="has no city with a ADR token"):
        run_from_stops(game, "ADR", [{"train": "2-0", "stops": ["K4", "K6"]}])
    with pytest.raises(GameError, match=r"routes\[0\]: expected"):
        run_from_stops(game, "ADR", [{"train": "2-0", "stops": "K2 K4"}])
