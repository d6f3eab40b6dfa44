"""Route rules on hand-built positions, with real tiles and values from the title data.

Each position is laid on an empty board with :func:`lay` (any tile on any
hex: tile-lay legality is not the subject here) and run through
:func:`rhineland.routes.run_revenue`.  Routes are written as hex walks with
``*`` marking the hexes where the route stops; :func:`route` turns that into
export-style ``connections`` chains (a hex starred twice in a row is a
single-hex chain, e.g. 18Rhl's ferry inside a green Rhine metropolis).

Where the oracle (reference engine traces) and the task statement differ, the
test follows the oracle and its docstring says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest

from reference import SHARED, needs_shared
from rhineland.board.board import Board
from rhineland.board.hexgrid import opposite
from rhineland.board.tiles import Node, Tile
from rhineland.engine.titledata import TitleData
from rhineland.errors import GameError
from rhineland.io.export import game_from_export, load_export, undo_targets
from rhineland.routes import (
    RevenueNode,
    Route,
    RouteContext,
    RouteResult,
    RouteSpec,
    run_revenue,
    track_graph,
)
from rhineland.routes.graph import TrackGraph, build_track_graph
from rhineland.routes.rules import RevenueRules
from rhineland.titles import get_title
from rhineland.titles.g18rhl.revenue import (
    RhlRevenue,
    carried_icons,
    established_links,
    variable_icons,
)
from rhineland.titles.g1893.revenue import CologneRevenue

RHL = get_title("18Rhl").data
TRACK = "7|8|9"
TOWN = "3|4|58"
RHL_RULES = RhlRevenue.for_data(RHL)


# -- helpers -------------------------------------------------------------------
def lay(board: Board, walk: Sequence[str], tiles: Mapping[str, str | tuple[str, int]]) -> None:
    """Lay ``tiles`` (hex -> tile name, or (name, rotation)) along the hex ``walk``.

    A name may list alternatives (``"7|8|9"``); without a rotation, the first
    tile and rotation joining the sides the walk enters and leaves by is used.
    """
    hexes = [h for i, h in enumerate(walk) if i == 0 or walk[i - 1] != h]
    spec = board.spec
    sides: dict[str, set[int]] = {}
    for i, h in enumerate(hexes):
        for j in (i - 1, i + 1):
            if 0 <= j < len(hexes):
                edge = next(e for e, n in spec.hexes[h].neighbors.items() if n == hexes[j])
                sides.setdefault(h, set()).add(edge)
    for h, want in sides.items():
        if h not in tiles:
            continue
        choice = tiles[h]
        if isinstance(choice, tuple):
            name, rotation = choice
        else:
            fits = [
                (n, r)
                for n in choice.split("|")
                for r in range(6)
                if _joins(board.manifest[n], r, want)
            ]
            assert fits, f"no tile of {choice} joins sides {sorted(want)} of {h}"
            name, rotation = fits[0]
        board.place_tile(h, board.supply[name][0], rotation)


def _joins(tile: Tile, rotation: int, sides: set[int]) -> bool:
    """Some node, or one edge-to-edge path, of the rotated tile touches all ``sides``."""
    paths = tile.rotated_paths(rotation)
    if any(sides <= set(p.edges()) for p in paths if len(p.edges()) == 2):
        return True
    return any(
        sides <= {e for p in paths if f"p{n.part}" in (p.a, p.b) for e in p.edges()}
        for n in tile.nodes
    )


def route(train: str, walk: str) -> dict[str, Any]:
    """Export-style route from a walk like ``"K2* K4* K6*"`` (``*`` = the route stops).

    A hex starred twice in a row (``"I10* I10*"``) is a single-hex chain: two
    nodes of one hex joined directly (18Rhl's ferry).
    """
    steps = walk.split()
    assert steps[0].endswith("*"), "a route starts at a stop"
    chains: list[list[str]] = []
    current = [steps[0].rstrip("*")]
    for step in steps[1:]:
        h, stop = step.rstrip("*"), step.endswith("*")
        if len(current) == 1 and current[0] == h:
            assert stop, f"{h}: a hex repeats only as two stops"
            chains.append([h])
            continue
        current.append(h)
        if stop:
            chains.append(current)
            current = [h]
    return {"train": train, "connections": chains}


def ctx_for(
    board: Board,
    entity: str,
    phase: str,
    trains: Sequence[str],
    data: TitleData = RHL,
    rules: RevenueRules = RHL_RULES,
    **kw: Any,
) -> RouteContext:
    return RouteContext(
        board=board, data=data, entity=entity, phase=phase, trains=tuple(trains), rules=rules, **kw
    )


def run(ctx: RouteContext, *routes: dict[str, Any]) -> list[RouteResult]:
    return run_revenue(ctx, list(routes))


def rule_of(excinfo: pytest.ExceptionInfo[GameError]) -> str:
    return excinfo.value.rule


# -- the seed's worked example -------------------------------------------------
def aachen_dueren() -> Board:
    """Seed 000's example: Aachen (K2) - town (K4) - Düren (K6), ADR home in Aachen."""
    b = Board(RHL.map, RHL.tiles)
    lay(b, ["K2", "K4", "K6"], {"K4": "4"})
    b.add_token("K2", 0, "ADR")
    return b


def test_seed_example_two_train_aachen_dueren_pays_50() -> None:
    """Aachen 20 + town 10 + Düren 20 = 50M; the town does not count toward distance."""
    (res,) = run(ctx_for(aachen_dueren(), "ADR", "2", ["2-0"]), route("2-0", "K2* K4* K6*"))
    assert res.revenue == 50
    assert res.visits == ("K2-0", "K4-0", "K6-0")
    assert res.distance == 3 and res.bonuses == ()


def test_route_needs_token_of_the_entity() -> None:
    with pytest.raises(GameError) as e:
        run(ctx_for(aachen_dueren(), "BME", "2", ["2-0"]), route("2-0", "K2* K4* K6*"))
    assert rule_of(e) == "route.token" and "BME" in str(e.value)


def test_route_may_not_end_at_a_town_in_18rhl() -> None:
    with pytest.raises(GameError) as e:
        run(ctx_for(aachen_dueren(), "ADR", "2", ["2-0"]), route("2-0", "K2* K4*"))
    assert rule_of(e) == "route.town_end" and "K4-0" in str(e.value)


def test_train_must_belong_to_entity_and_run_once() -> None:
    ctx = ctx_for(aachen_dueren(), "ADR", "2", ["2-0"])
    with pytest.raises(GameError) as e:
        run(ctx, route("2-1", "K2* K4* K6*"))
    assert rule_of(e) == "route.train"
    with pytest.raises(GameError) as e:
        run(ctx, route("2-0", "K2* K4* K6*"), route("2-0", "K2* K4* K6*"))
    assert rule_of(e) == "route.train"


def test_two_trains_may_not_share_track() -> None:
    ctx = ctx_for(aachen_dueren(), "ADR", "2", ["2-0", "2-1"])
    with pytest.raises(GameError) as e:
        run(ctx, route("2-0", "K2* K4* K6*"), route("2-1", "K2* K4* K6*"))
    assert rule_of(e) == "route.overlap" and "K2" in str(e.value)


def test_chain_without_track_is_rejected() -> None:
    with pytest.raises(GameError) as e:
        run(ctx_for(aachen_dueren(), "ADR", "2", ["2-0"]), route("2-0", "K2* J3 K6*"))
    assert rule_of(e) == "route.track"


def test_distance_limits_cities_but_not_towns() -> None:
    """A 2-train may not visit three cities; towns are free (distance ``town: 99``)."""
    b = aachen_dueren()
    lay(b, ["K6", "K8", "K10"], {"K8": "9", "K10": "57"})
    with pytest.raises(GameError) as e:
        run(ctx_for(b, "ADR", "2", ["2-0"]), route("2-0", "K2* K4* K6* K8 K10*"))
    assert rule_of(e) == "route.distance" and "3" in str(e.value)
    (res,) = run(ctx_for(b, "ADR", "2", ["3-0"]), route("3-0", "K2* K4* K6* K8 K10*"))
    assert res.revenue == 20 + 10 + 20 + 20


def graph_content(g: TrackGraph) -> tuple[Any, ...]:
    """Everything a track graph holds, every node walked (on a copy: ``g`` stays as lazy
    as it was)."""
    g = replace(g, walked=list(g.walked))
    return (g.nodes, g.by_name, g.by_hex, g.node_ids, list(g.out), dict(g.by_hexes), list(g.reach))


def test_graph_is_cached_by_board_version() -> None:
    b = aachen_dueren()
    g = track_graph(b)
    assert track_graph(b) is g
    k2 = g.by_name["K2-0"].id
    b.add_token("K6", 0, "RhE")  # tokens do not change the track
    assert track_graph(b).out[k2] is g.out[k2]
    lay(b, ["K6", "K8"], {"K8": "9"})
    assert track_graph(b) is not g
    clone = b.clone()
    assert track_graph(clone) is track_graph(b)


def test_graph_walks_a_node_when_its_segments_are_asked_for() -> None:
    """A new graph holds the nodes only; a chain lookup walks the nodes of its first hex."""
    b = aachen_dueren()
    g = track_graph(b)
    assert all(w is None for w in g.walked)
    (seg,) = g.by_hexes[("K4", "K6")]
    assert (g.nodes[seg.a].name, g.nodes[seg.b].name) == ("K4-0", "K6-0")
    assert [n.name for n in g.nodes if g.walked[n.id] is not None] == ["K4-0"]
    assert ("K6", "K8") not in g.by_hexes and g.by_hexes.get(("K2",)) is None
    assert sorted(g.by_hexes) == [("K2", "K4"), ("K4", "K2"), ("K4", "K6"), ("K6", "K4")]


def test_graph_update_walks_again_only_where_the_track_changed() -> None:
    """A tile lay re-walks the nodes whose walks reach the changed hex; the others keep
    their segments (renumbered when a new node moves the ids); the result always
    equals a graph built from scratch."""
    b = aachen_dueren()
    g0 = track_graph(b)
    assert g0.reach[g0.by_name["K6-0"].id] == {"K4", "K6", "K8"}  # K8: tried, no track yet
    list(g0.out)  # every node walked
    lay(b, ["K6", "K8", "K10"], {"K8": "9", "K10": "57"})
    g1 = track_graph(b)
    assert graph_content(g1) == graph_content(build_track_graph(b))
    # to walk again: Düren and K10 (their walks enter K8/K10), and L9/L11, whose walks
    # tried to enter K10 (no track there before)
    unwalked = [n.name for n in g1.nodes if g1.walked[n.id] is None]
    assert unwalked == ["K6-0", "K10-0", "L9-0", "L11-0"]
    out = {n.name: [(g1.nodes[s.a].name, g1.nodes[s.b].name, s.hexes) for s in g1.out[n.id]]
           for n in g1.nodes if g1.out[n.id]}
    assert out["K6-0"] == [("K6-0", "K4-0", ("K6", "K4")), ("K6-0", "K10-0", ("K6", "K8", "K10"))]
    assert out["K10-0"] == [("K10-0", "K6-0", ("K10", "K8", "K6"))]
    # Aachen's and the town's walks never reach K8: their segment lists are kept as they are
    for name in ("K2-0", "K4-0"):
        assert g1.out[g1.by_name[name].id] is g0.out[g0.by_name[name].id]
    # a town on B5 (early in map order) adds a node: every later id moves up by one
    b.place_tile("B5", b.supply["3"][0], 0)
    g2 = track_graph(b)
    assert graph_content(g2) == graph_content(build_track_graph(b))
    assert g2.by_name["B5-0"].id == 3
    assert (g1.by_name["K2-0"].id, g2.by_name["K2-0"].id) == (55, 56)
    assert g2.walked[56] is not None  # kept, renumbered
    (seg,) = g2.out[56]
    assert (seg.a, seg.b, seg.hexes) == (56, 57, ("K2", "K4"))


@needs_shared
@pytest.mark.parametrize("title", ["18Rhl", "1893"])
def test_graph_updates_equal_fresh_builds_over_a_whole_game(title: str) -> None:
    """After every action of a real game (tile lays, upgrades that move tokens and add
    nodes, undos) the updated track graph, walked as far as the game asked, equals one
    built from scratch."""
    export = load_export(SHARED / "fixtures" / title / f"{title}_end_bank.json")
    game = game_from_export(export)
    targets = undo_targets(export.actions)
    kept = 0
    for i, action in enumerate(export.actions):
        before = track_graph(game.board)
        game.process(action, atomic=False, history=i in targets)
        graph = track_graph(game.board)
        assert graph_content(graph) == graph_content(build_track_graph(game.board)), action.id
        kept += graph.tiles != before.tiles and any(
            a is not None and a is b for a in graph.walked for b in before.walked
        )
    assert kept > 40  # most lays keep some walks


# -- 1: Rheingold-Express --------------------------------------------------------
RGE_WALK = "L13* K12* J11 I10* I8 I6* H7 G6* F7 F9* E10 D11* D9* D7* E6* D5 C4* B3 A4*"
RGE_TILES: dict[str, str | tuple[str, int]] = {
    "K12": TOWN,  # town
    "J11": TRACK,
    "I10": "928",  # brown Köln, 50
    "I8": TRACK,
    "I6": TOWN,  # town
    "H7": TRACK,
    "G6": "938",  # green OO, 30
    "F7": TRACK,
    "F9": "927",  # brown Düsseldorf, 50
    "E10": TRACK,
    "D11": "15",  # green city, 30
    "D9": "929",  # brown Duisburg, 50
    "D7": "947",  # brown Moers, 30, coal
    "E6": "201",  # Krefeld, 30
    "D5": TRACK,
    "C4": TOWN,  # town
}


def rheingold_board() -> Board:
    b = Board(RHL.map, RHL.tiles)
    walk = [s.rstrip("*") for s in RGE_WALK.split()]
    lay(b, walk, RGE_TILES)
    b.add_token("I10", 0, "CCE")
    return b


def test_rheingold_express_doubles_metropolis_between_rge_ends() -> None:
    """Phase 8: L13 - Köln - Düsseldorf - Duisburg - four 30M cities - A4, three towns.

    Best 8 stops: 60 + 60 + 3 x 50 + 3 x 30 = 360; both ends RGE so each
    metropolis pays double (+150): 510M.  Towns pay nothing; no Montan although
    Moers (coal) and a steel works in Krefeld are on the route.
    """
    ctx = ctx_for(rheingold_board(), "CCE", "8", ["8-0"], hex_icons={"E6": frozenset({"S"})})
    (res,) = run(ctx, route("8-0", RGE_WALK))
    assert res.revenue == 510
    assert res.base == 360
    assert [(b.name, b.amount) for b in res.bonuses] == [("rheingold", 150)]
    assert len(res.stops) == 8
    assert not any(s.startswith(("K12", "I6", "C4")) for s in res.stops)


def test_rheingold_express_ending_at_a_city_does_not_double() -> None:
    """Same track, ending in Moers: 60 + 3 x 50 + 3 x 30 = 300M, nothing doubled."""
    ctx = ctx_for(rheingold_board(), "CCE", "8", ["8-0"])
    walk = RGE_WALK.split(" D7*")[0] + " D7*"
    (res,) = run(ctx, route("8-0", walk))
    assert res.revenue == 300 and res.bonuses == ()


def test_rheingold_express_must_touch_an_rge_hex() -> None:
    ctx = ctx_for(rheingold_board(), "CCE", "8", ["8-0"])
    with pytest.raises(GameError) as e:
        run(ctx, route("8-0", "I10* I8 I6* H7 G6* F7 F9*"))
    assert rule_of(e) == "route.rge"


def test_rheingold_express_may_run_basel_to_frankfurt() -> None:
    """The Basel/Frankfurt pair rule is not the Rheingold-Express's (reference: the pair
    checks are for the other trains): L11 - Bonn - Köln - L13 in phase 8 pays 70 + 20 +
    50 + 60, and Köln doubles between the two RGE ends: 250M.  A 6-train may not."""
    from rhineland.routes.search import search_routes

    b = Board(RHL.map, RHL.tiles)
    walk = "L11* K10* J9 I10* I12* J13 K12* L13*"
    lay(b, [s.rstrip("*") for s in walk.split()],
        {"K10": "57", "J9": TRACK, "I10": "928", "I12": TOWN, "J13": TRACK, "K12": TOWN})
    b.add_token("I10", 0, "CCE")
    (res,) = run(ctx_for(b, "CCE", "8", ["8-0"]), route("8-0", walk))
    assert res.revenue == 250 and res.bonus("rheingold") == 50
    assert search_routes(ctx_for(b, "CCE", "8", ["8-0"])).revenue == 250
    with pytest.raises(GameError) as e:
        run(ctx_for(b, "CCE", "8", ["6-0"]), route("6-0", walk))
    assert rule_of(e) == "route.offboard_pair"


def test_other_trains_get_montan_on_the_same_track() -> None:
    """A 6-train from Moers (coal) to Krefeld (steel) in phase 8: +40M Montan."""
    ctx = ctx_for(rheingold_board(), "CCE", "8", ["6-0"], hex_icons={"E6": frozenset({"S"})})
    b = ctx.board
    b.add_token("D7", 0, "CCE")
    (res,) = run(ctx, route("6-0", "D9* D7* E6*"))
    assert res.revenue == 50 + 30 + 30 + 40
    assert res.bonus("montan") == 40


# -- 2: Eastern Ruhr, Montan, Eisern Rhein ----------------------------------------
RUHR_WALK = "G2* G4 F5* F7 E8* D7* D9* E10 E12* D13* D15*"
RUHR_TILES: dict[str, str | tuple[str, int]] = {
    "G4": TRACK,
    "F5": TOWN,
    "F7": TRACK,
    "E8": TOWN,
    "D7": "947",  # Moers, coal
    "D9": "929",
    "E10": TRACK,
    "E12": TOWN,
    "D13": ("934", 0),  # Essen: exits 0, 2, 3, 4 -> two Eastern Ruhr links
}


def ruhr_board() -> Board:
    b = Board(RHL.map, RHL.tiles)
    lay(b, [s.rstrip("*") for s in RUHR_WALK.split()], RUHR_TILES)
    b.place_tile("E14", b.supply["9"][0], 0)  # exit 3 towards D15: the third link
    b.add_token("D7", 0, "KEG")
    return b


def test_three_eastern_ruhr_links_are_read_from_the_board() -> None:
    ctx = ctx_for(ruhr_board(), "KEG", "5", ["5-0"])
    assert established_links(ctx) == 3


def test_roermond_moers_d15_steel_side_earns_all_three_bonuses() -> None:
    """Phase 5, 5-train G2 - Moers (coal) - Duisburg - Essen - D15 (steel side).

    Base: Roermond 20 + Moers 30 + Duisburg 50 + Essen 40 + D15 10 + three
    towns 30 = 180; + 40 Montan (brown phase) + 30 (3 links) + 80 Eisern Rhein.
    """
    ctx = ctx_for(ruhr_board(), "KEG", "5", ["5-0"])
    (res,) = run(ctx, route("5-0", RUHR_WALK))
    assert res.visits[-1] == "D15-1"  # the city with the steel marker
    assert res.base == 180
    assert {b.name: b.amount for b in res.bonuses} == {
        "montan": 40,
        "eastern_ruhr": 30,
        "eisern_rhein": 80,
    }
    assert res.revenue == 330


def test_montan_is_20_before_phase_5() -> None:
    ctx = ctx_for(ruhr_board(), "KEG", "4", ["4-0"])
    (res,) = run(ctx, route("4-0", "D7* D9* E10 E12* D13* D15*"))
    assert res.bonus("montan") == 20


def test_eastern_ruhr_links_can_come_from_the_engine() -> None:
    ctx = ctx_for(ruhr_board(), "KEG", "5", ["5-0"], eastern_ruhr_links=4)
    (res,) = run(ctx, route("5-0", RUHR_WALK))
    assert res.bonus("eastern_ruhr") == 40


def test_rheingold_express_may_not_run_roermond_to_eastern_ruhr() -> None:
    """Task statement: an 8-train on this track earns none of the bonuses.

    Oracle (reference engine): the route is illegal for an 8-train, which must
    start or end at an RGE hex and may visit no other offboard (Roermond, D15).
    """
    ctx = ctx_for(ruhr_board(), "KEG", "8", ["8-0"])
    with pytest.raises(GameError) as e:
        run(ctx, route("8-0", RUHR_WALK))
    assert rule_of(e) == "route.rge"


def test_route_may_not_run_from_c14_to_d15() -> None:
    b = ruhr_board()  # Essen's tile has exits 3 (C14) and 4 (D15)
    b.add_token("D13", 0, "BME")
    with pytest.raises(GameError) as e:
        run(ctx_for(b, "BME", "5", ["5-0"]), route("5-0", "C14* D13* D15*"))
    assert rule_of(e) == "route.offboard_pair"


def test_double_montan_with_two_coal_and_two_steel() -> None:
    """Two coal (Moers, D15's coal side... here a variable coal icon) and two steel: +80M."""
    b = ruhr_board()
    ctx = ctx_for(
        b,
        "KEG",
        "5",
        ["5-0"],
        hex_icons={"D9": frozenset({"K", "S"}), "D13": frozenset({"S"})},
    )
    (res,) = run(ctx, route("5-0", "D7* D9* E10 E12* D13* D15*"))
    assert res.bonus("montan") == 80


def game_route(name: str, action_id: int) -> list[RouteResult]:
    """The revenue of the run ``action_id`` of the generated2 18Rhl game ``name``, in the
    position before it (the reference recorded its revenue)."""
    from reference import ReferenceGames

    games = ReferenceGames("18Rhl")
    game = games.position(f"generated2/{name}", action_id - 1)
    action = games.action(f"generated2/{name}", action_id)
    ctx = game.title.route_context(game, game.corporation(action.entity))
    return run_revenue(ctx, list(action.routes))


@needs_shared
@pytest.mark.parametrize(
    ("name", "action_id", "revenue"), [("g401", 658, 350), ("g419", 614, 330)]
)
def test_siegerland_is_one_steel_like_any_steel_works(
    name: str, action_id: int, revenue: int
) -> None:
    """Siegerland (J15) counts one steel by its icon; two coal (Moers and the variable
    mine) with J15 as the only steel is a single Montan, +40M in phase 8 (reference
    revenue_str "+ Montan (=+40M)" on KEG's runs generated2 g401 #658, g419 #614)."""
    (res,) = game_route(name, action_id)
    assert "J15-0" in res.visits
    assert res.bonus("montan") == 40
    assert res.revenue == revenue


@needs_shared
def test_949_town_then_city_is_a_ferry_pair_the_town_pays_less_10() -> None:
    """Gray Duisburg 949 (promotion tiles): a town joined to the city inside D9.  Visited
    one right after the other they are a ferry pair like a green metropolis's two cities:
    the second is no stop, the first pays 10M less.  generated2 g404 #557: CCE's 6-train
    runs D11 - D9 town (20) - D9 city (60) - C10: D9 pays 20 - 10M, 440M in all (reference
    revenue_str "D11-D9[Tr]-C10", 440M); the 6 cities are A4, D7, E6, F9, D11, B15.
    Run the other way the city is the first D9 visit: 7 cities, too many for a 6-train."""
    (res,) = game_route("g404", 557)
    i = res.visits.index("D9-1")
    assert res.visits[i : i + 2] == ("D9-1", "D9-0")
    assert "D9-1" in res.stops and "D9-0" not in res.stops
    assert res.bonus("trajekt") == -10 and res.bonus("montan") == 40
    assert res.revenue == 440
    from reference import ReferenceGames

    games = ReferenceGames("18Rhl")
    game = games.position("generated2/g404", 556)
    (rec,) = games.action("generated2/g404", 557).routes
    back = {"train": rec["train"], "connections": [c[::-1] for c in rec["connections"][::-1]]}
    with pytest.raises(GameError) as e:
        run_revenue(game.title.route_context(game, game.corporation("CCE")), [back])
    assert rule_of(e) == "route.distance"


# -- 3: green Rhine metropolis -------------------------------------------------------
FERRY_TILES: dict[str, str | tuple[str, int]] = {
    "K8": "8",
    "J9": "9",
    "I10": ("X923", 0),  # west city p0 (2 slots: edges 0, 1, 2), east city p1 (edge 3)
    "H11": "9",
    "G12": "938",
}
FERRY_WALK = "K6* K8 J9 I10* I10* H11 G12*"


def ferry_board() -> Board:
    b = Board(RHL.map, RHL.tiles)
    lay(b, [s.rstrip("*") for s in FERRY_WALK.split()], FERRY_TILES)
    b.add_token("I10", 0, "RhE")
    return b


def test_ferry_counts_the_metropolis_once_less_10() -> None:
    """K6 20 + Köln 40 - 10 (the ferry fee) + G12 30 = 80M; the east city, reached by
    the ferry, is no stop: it costs no distance and pays nothing (reference
    revenue_str "I10[Tr]")."""
    ctx = ctx_for(ferry_board(), "RhE", "3", ["3-0"])
    (res,) = run(ctx, route("3-0", FERRY_WALK))
    assert res.visits == ("K6-0", "I10-0", "I10-1", "G12-0")
    assert res.stops == ("K6-0", "I10-0", "G12-0")
    assert res.revenue == 20 + 40 + 30 - 10
    assert res.bonus("trajekt") == -10
    assert res.distance == 3


def test_entering_a_green_metropolis_twice_without_the_ferry_is_illegal() -> None:
    """West Köln, round through Düsseldorf (ferry there is fine), back into east Köln."""
    b = Board(RHL.map, RHL.tiles)
    loop = "K6* K8 J9 I10* H9* G8 F9* F9* G10* H11 I10*"
    tiles = dict(FERRY_TILES, H9=TOWN, G8=TRACK, F9=("X922", 0), G10=TOWN, H11=TRACK)
    del tiles["G12"]
    lay(b, [s.rstrip("*") for s in loop.split()], tiles)
    b.add_token("I10", 0, "RhE")
    ctx = ctx_for(b, "RhE", "5", ["6-0"])
    with pytest.raises(GameError) as e:
        run(ctx, route("6-0", loop))
    assert rule_of(e) == "route.trajekt" and "I10" in str(e.value)
    (res,) = run(ctx, route("6-0", "K6* K8 J9 I10* H9* G8 F9* F9*"))
    assert res.bonus("trajekt") == -10  # the Düsseldorf ferry alone is legal


def test_full_green_metropolis_blocks_companies_without_a_token_there() -> None:
    b = ferry_board()
    b.add_token("I10", 0, "CCE")
    b.add_token("I10", 1, "CME")
    b.add_token("K6", 0, "DEE")
    with pytest.raises(GameError) as e:
        run(ctx_for(b, "DEE", "3", ["3-0"]), route("3-0", FERRY_WALK))
    assert rule_of(e) == "route.blocked" and "I10" in str(e.value)
    (res,) = run(ctx_for(b, "RhE", "3", ["3-0"]), route("3-0", FERRY_WALK))
    assert res.revenue == 80


def test_green_metropolis_with_two_tokens_blocks_nobody() -> None:
    """The east city (1 slot) is full, but with 2 of 3 hex slots taken nothing blocks."""
    b = ferry_board()
    b.add_token("I10", 1, "CME")
    b.add_token("K6", 0, "DEE")
    (res,) = run(ctx_for(b, "DEE", "3", ["3-0"]), route("3-0", FERRY_WALK))
    assert res.revenue == 80


def test_a_metropolis_alone_is_not_a_route() -> None:
    ctx = ctx_for(ferry_board(), "RhE", "3", ["3-0"])
    with pytest.raises(GameError) as e:
        run(ctx, route("3-0", "I10* I10*"))
    assert rule_of(e) == "route.stops"


def test_blocked_city_may_end_a_route_but_not_be_passed() -> None:
    """Düren (1 slot) holds RhE's token: ADR may run to it, not through it."""
    b = aachen_dueren()
    lay(b, ["K6", "K8", "K10"], {"K8": TRACK, "K10": "57"})
    b.add_token("K6", 0, "RhE")
    ctx = ctx_for(b, "ADR", "3", ["3-0"])
    (res,) = run(ctx, route("3-0", "K2* K4* K6*"))
    assert res.revenue == 50
    with pytest.raises(GameError) as e:
        run(ctx, route("3-0", "K2* K4* K6* K8 K10*"))
    assert rule_of(e) == "route.blocked" and "K6-0" in str(e.value) and "RhE" in str(e.value)


def test_rheingold_express_may_end_at_a_town() -> None:
    """Oracle (18Rhl_g08, action 394): an 8-train route may end at a town; others may not."""
    ctx = ctx_for(rheingold_board(), "CCE", "8", ["8-0", "6-0"])
    (res,) = run(ctx, route("8-0", RGE_WALK.split(" B3")[0]))
    assert res.visits[-1] == "C4-0" and res.bonuses == ()
    ctx.board.add_token("D9", 0, "CCE")
    with pytest.raises(GameError) as e:
        run(ctx, route("6-0", "D9* D7* E6* D5 C4*"))
    assert rule_of(e) == "route.town_end"


def test_out_tokened_offboard_may_not_end_a_route() -> None:
    """Boxtel (C2) holding KEG's token is closed to ADR (18Rhl out-tokened offboards)."""
    b = Board(RHL.map, RHL.tiles)
    lay(b, ["C2", "C4", "D5", "E6"], {"C4": TOWN, "D5": TRACK, "E6": "201"})
    b.add_token("E6", 0, "ADR")
    b.add_token("C2", 0, "KEG")
    with pytest.raises(GameError) as e:
        run(ctx_for(b, "ADR", "3", ["3-0"]), route("3-0", "E6* D5 C4* C2*"))
    assert rule_of(e) == "route.out_tokened"
    b.add_token("E6", 0, "KEG")
    (res,) = run(ctx_for(b, "KEG", "3", ["3-0"]), route("3-0", "E6* D5 C4* C2*"))
    assert res.revenue == 30 + 10 + 10


def test_terminal_nodes() -> None:
    """Offboards are termini; Venlo (E2), a red city on through track, is not."""
    g = track_graph(Board(RHL.map, RHL.tiles))
    assert g.by_name["L13-0"].terminal and g.by_name["C14-0"].terminal
    assert not g.by_name["E2-0"].terminal


# -- 18Rhl icons -----------------------------------------------------------------------
def test_variable_icons_follow_the_reference_draws() -> None:
    """Reference facts: seed 23692664 draws placement 5 (C12 coal, E6 steel); seed 1 draws 7."""
    assert variable_icons(RHL, 23692664) == {"C12": {"K"}, "E6": {"S"}}
    assert variable_icons(RHL, 1) == {"J3": {"K"}, "D13": {"S"}}


def test_sticky_icons_survive_an_upgrade() -> None:
    assert carried_icons(RHL.tiles["947"]) == {"K"}
    assert carried_icons(RHL.tiles["X921"]) == frozenset()
    assert carried_icons(RHL.tiles["15"]) == frozenset()


# -- 1893 ------------------------------------------------------------------------------
COLOGNE = get_title("1893").data
COLOGNE_RULES = CologneRevenue.for_data(COLOGNE)


def test_1893_towns_count_toward_distance_and_may_end_a_route() -> None:
    b = Board(COLOGNE.map, COLOGNE.tiles)
    b.add_token("P7", 0, "KSZ")
    lay(b, ["P7", "Q8"], {"Q8": "3"})
    ctx = ctx_for(b, "KSZ", "2", ["2-0"], data=COLOGNE, rules=COLOGNE_RULES)
    (res,) = run(ctx, route("2-0", "P7* Q8*"))
    assert res.revenue == 20 + 10 and res.distance == 2


def test_1893_neutral_token_in_h5_never_blocks() -> None:
    b = Board(COLOGNE.map, COLOGNE.tiles)
    graph = track_graph(b)
    h5 = graph.by_name["H5-0"]
    assert COLOGNE_RULES.occupants(ctx_for(b, "DE", "2", [], COLOGNE, COLOGNE_RULES), h5) == ("N",)
    assert not COLOGNE_RULES.city_blocks(
        ctx_for(b, "DE", "2", [], COLOGNE, COLOGNE_RULES), graph, h5
    )


def test_1893_hgk_home_token_in_j5_blocks_others_before_hgk_places_it() -> None:
    b = Board(COLOGNE.map, COLOGNE.tiles)
    graph = track_graph(b)
    j5 = graph.by_name["J5-0"]
    ctx = ctx_for(b, "DE", "2", [], COLOGNE, COLOGNE_RULES)
    assert COLOGNE_RULES.occupants(ctx, j5) == ("HGK",)
    assert COLOGNE_RULES.city_blocks(ctx, graph, j5)


def test_route_spec_from_export() -> None:
    spec = RouteSpec.from_export(
        {"train": "2-0", "connections": [["K2", "K4"], ["K4", "K6"]], "nodes": ["K2-0"]}
    )
    assert spec.train == "2-0"
    assert spec.connections == (("K2", "K4"), ("K4", "K6"))
    assert spec.nodes == ("K2-0",)
    bare = RouteSpec.from_export({"train": "3-1", "connections": [["K2", "K4"]]})
    assert (bare.train, bare.nodes) == ("3-1", ())


def test_opposite_edges() -> None:
    assert [opposite(e) for e in range(6)] == [3, 4, 5, 0, 1, 2]


# -- distance rules on synthetic visits --------------------------------------------------
def _visits(kinds: str) -> tuple[RevenueNode, ...]:
    """Fake visits: ``"cctc"`` = city, city, town, city (hexes X1, X2, ...)."""
    kind = {"c": "city", "t": "town", "o": "offboard"}
    return tuple(
        RevenueNode(i, f"X{i}", 0, Node(0, kind[k], 10, slots=1), 0, False, "green", f"X{i}-0")
        for i, k in enumerate(kinds)
    )


@pytest.mark.parametrize(
    ("train", "kinds", "legal"),
    [
        ("2", "ct", True),
        ("2", "ctc", False),  # 1893: every stop counts
        ("6", "cccttt", True),
        ("8+x", "cccccccc" + "ttttt", True),  # 8 cities/offboards, any towns
        ("8+x", "ccccccccc", False),
        ("8+x", "occcccco" + "t" * 12, True),
    ],
)
def test_1893_distance(train: str, kinds: str, legal: bool) -> None:
    ctx = ctx_for(Board(COLOGNE.map, COLOGNE.tiles), "DE", "8+x", [], COLOGNE, COLOGNE_RULES)
    visits = _visits(kinds)
    r = Route(f"{train}-0", COLOGNE.train(train), (), visits)
    if legal:
        COLOGNE_RULES.check_distance(ctx, r, [1] * len(visits))
    else:
        with pytest.raises(GameError) as e:
            COLOGNE_RULES.check_distance(ctx, r, [1] * len(visits))
        assert rule_of(e) == "route.distance"


def test_18rhl_eight_train_pays_best_eight_and_no_towns() -> None:
    ctx = ctx_for(Board(RHL.map, RHL.tiles), "ADR", "8", [])
    visits = _visits("c" * 10 + "tt")
    r = Route("8-0", RHL.train("8"), (), visits)
    RHL_RULES.check_distance(ctx, r, [1] * len(visits))  # visit 99
    values = [10, 50, 20, 30, 40, 60, 70, 80, 90, 15, 10, 10]
    stops = RHL_RULES.paying_stops(ctx, r, values, [1] * 12, frozenset())
    assert [values[i] for i in stops] == [50, 20, 30, 40, 60, 70, 80, 90]
    assert RHL_RULES.stop_value(ctx, r, visits[-1]) == 0  # towns pay nothing to the 8


def test_rheingold_express_doubles_between_rge_ends_even_when_they_do_not_pay() -> None:
    """The doubling depends on the route's ends only (both RGE hexes); the 8 paying stops
    are the best by what each pays, doubling included: the two metropolises (2 x 50M)
    and six 70M cities, not the 60M ends (reference: RGE stops ranked after doubling)."""
    ctx = ctx_for(Board(RHL.map, RHL.tiles), "ADR", "8", [])
    visits = _visits("o" + "c" * 10 + "o")
    ends = (
        RevenueNode(0, "A4", 0, Node(0, "offboard"), None, True, "red", "A4-0"),
        RevenueNode(11, "L13", 0, Node(0, "offboard"), None, True, "red", "L13-0"),
    )
    metro = [
        RevenueNode(i, h, 0, Node(0, "city", slots=3), 0, False, "brown", f"{h}-0")
        for i, h in ((1, "I10"), (2, "F9"))
    ]
    visits = (ends[0], *metro, *visits[3:11], ends[1])
    r = Route("8-0", RHL.train("8"), (), visits)
    values = [60, 50, 50] + [70] * 8 + [60]
    stops = RHL_RULES.paying_stops(ctx, r, values, [1] * 12, frozenset())
    # ranked by pay: 100, 100, then six 70s = 620 (eight 70s: 560; the ends kept: 600)
    assert stops == (1, 2, 3, 4, 5, 6, 7, 8)
    assert RHL_RULES.rheingold_doubles(r)
