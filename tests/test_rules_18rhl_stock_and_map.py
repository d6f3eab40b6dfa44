"""18Rhl stock and map rules without a dedicated test elsewhere, with real values.

Certificate limit, the sold-out price rise, the presidency change, the Ratingen
(E12) tile block of the Ratingen variant, the Rhine as a track barrier, and the
Ratingen variant's route bonus.  Positions are built through the public API
(a new game or a reference game of ``../shared`` replayed to an action id), as
in ``tests/test_rules_18rhl.py``; the route case follows
``tests/test_routes_rules.py`` (a hand-laid board priced by ``run_revenue``).

Rule sources: the seed rules summary ``../shared/seeds/000_6fd6a8960caf0c99.txt``
("Summary", "Stock round", "Map", "Game-specific mechanics"), the reference facts
``../shared/reference/18Rhl.facts.json`` (``optional_rules.ratingen_variant``)
and the title data ``src/rhineland/titles/g18rhl/data`` (``game.json``
``players``/``cert_limit``, ``market.json``, ``options.json``).
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from play import label, play_packet_4p, price, step
from reference import ReferenceGames, needs_shared
from rhineland import GameError
from rhineland.board.board import Board
from rhineland.board.legality import legal_tile_lays
from rhineland.board.upgrades import geometry
from rhineland.engine.actions import BuyShares, LayTile, Par, Pass
from rhineland.engine.entities import IPO, MARKET
from rhineland.engine.game import Game
from rhineland.io.state_view import game_state
from rhineland.routes import RouteContext, run_revenue
from rhineland.titles import get_title
from rhineland.titles.g18rhl.board_rules import RhlBoardRules
from rhineland.titles.g18rhl.revenue import RhlRevenue
from test_routes_rules import lay

REF = ReferenceGames("18Rhl")
position = REF.position
fixture_action = REF.action

PLAYERS = {n: [(i, f"P{i}") for i in range(1, n + 1)] for n in (3, 4, 5, 6)}


# -- helpers ---------------------------------------------------------------------------


def new_game(n: int = 4, options: tuple[str, ...] = ()) -> Game:
    return Game(get_title("18Rhl", options), PLAYERS[n], seed=1)


def snapshot(game: Game) -> dict[str, Any]:
    return copy.deepcopy(game_state(game))


def held_certificates(game: Game, pid: int) -> int:
    """Certificates counting toward the limit: shares, plus privates (18Rhl's
    ``cert_limit_includes_privates: true`` in ``game.json``)."""
    shares = sum(
        1 for c in game.corporations.values() for cert in c.certificates if cert.owner == pid
    )
    return shares + len(game.player(pid).companies)


def percents(game: Game, sym: str) -> dict[Any, int]:
    """Owner -> percent of ``sym`` (players, IPO/treasury, market), zero entries left out."""
    out: dict[Any, int] = {}
    for cert in game.corporation(sym).certificates:
        out[cert.owner] = out.get(cert.owner, 0) + cert.percent
    return out


def pass_until_round_changes(game: Game) -> None:
    """Everyone passes (players in a stock round, companies in an operating round)."""
    start = label(game)
    while label(game) == start:
        entity = game.round.current_entity(game)
        if label(game).startswith("SR"):
            game.process(Pass(entity=entity.id))
        else:
            game.process(Pass(entity=entity.sym, entity_type="corporation"))


# -- 1. certificate limit ------------------------------------------------------------------


@pytest.mark.parametrize(("players", "limit"), [(3, 20), (4, 15), (5, 12), (6, 10)])
def test_certificate_limit_by_player_count(players: int, limit: int) -> None:
    """Seed 000, Summary: "Certificate limit per player: 3 players - 20; 4 players - 15;
    5 players - 12; 6 players - 10" (``game.json`` ``cert_limit``)."""
    game = new_game(players)
    assert game.title.cert_limit(game) == limit


# (game, players, limit, player, position where the player holds limit - 1, their buy,
#  position where they hold the limit, a certificate on sale, its price, their cash)
CERT_LIMIT_CASES = [
    ("g04", 3, 20, 1002, 282, 283, 285, "ADR_6", 60, 73),
    ("g01", 4, 15, 1001, 287, 288, 335, "CME_4", 100, 323),
    ("g06", 5, 12, 1001, 262, 263, 267, "ADR_4", 50, 82),
    ("g03", 6, 10, 1006, 499, 500, 502, "ADR_5", 55, 94),
]


@needs_shared
@pytest.mark.parametrize(
    ("name", "players", "limit", "pid", "below_at", "buy_id", "full_at", "cert", "cost",
     "cash"),
    CERT_LIMIT_CASES,
    ids=[f"{c[0]}-{c[1]}p-{c[2]}" for c in CERT_LIMIT_CASES],
)
def test_player_at_the_certificate_limit_cannot_buy_one_below_can(
    name: str, players: int, limit: int, pid: int, below_at: int, buy_id: int,
    full_at: int, cert: str, cost: int, cash: int,
) -> None:
    """Certificate limit (seed 000, Summary; privates count, ``game.json``): a player one
    below the limit buys a share (the reference game's own buy) and reaches the limit;
    later, at the limit, with cash for an IPO share on sale, the buy is refused and the
    state is unchanged."""
    game = position(name, below_at)
    assert len(game.players) == players and game.title.cert_limit(game) == limit
    assert game.round.current_entity(game).id == pid
    assert held_certificates(game, pid) == limit - 1
    game.process(fixture_action(name, buy_id))
    assert held_certificates(game, pid) == limit

    game = position(name, full_at)
    assert game.round.current_entity(game).id == pid
    assert held_certificates(game, pid) == limit
    assert game.round.cert_count(game, game.player(pid)) == limit
    corp = game.corporation(cert.split("_")[0])
    assert next(c for c in corp.certificates if c.id == cert).owner == IPO
    assert corp.share_price is not None and corp.share_price.price == cost
    assert game.player(pid).cash == cash >= cost
    before = snapshot(game)
    with pytest.raises(GameError, match=f"more than {limit} certificates"):
        game.process(BuyShares(entity=pid, shares=(cert,), percent=10))
    assert snapshot(game) == before
    assert held_certificates(game, pid) == limit


# -- 2. sold-out company rises at the end of the stock round ---------------------------------


def sr2_with_adr_parred_at_60() -> Game:
    """Seed packet; SR 1: P1 pars ADR at 60M (3,0), P2-P4 buy one share each (ADR floats,
    incremental: 300M); newly floated: 65M (2,0).  OR 1: nobody runs, ADR drops back to
    60M (3,0) and RhE (30% in the market) from 75M (1,1) to 70M (1,0)."""
    game = new_game()
    play_packet_4p(game)
    game.process(Par(entity=1, corporation="ADR", share_price="60,3,0"))
    for pid, share in ((2, "ADR_1"), (3, "ADR_2"), (4, "ADR_3")):
        game.process(BuyShares(entity=pid, shares=(share,), percent=10))
    pass_until_round_changes(game)
    assert label(game) == "OR 1.1" and price(game, "ADR") == (65, 2, 0)
    pass_until_round_changes(game)
    assert label(game) == "SR 2"
    assert price(game, "ADR") == (60, 3, 0) and price(game, "RhE") == (70, 1, 0)
    assert game.corporation("ADR").cash == 300
    return game


@pytest.mark.parametrize(
    ("shares", "sold_out", "after"),
    [
        (("ADR_4", "ADR_5", "ADR_6", "ADR_7", "ADR_8"), True, (65, 2, 0)),
        (("ADR_4", "ADR_5", "ADR_6", "ADR_7"), False, (60, 3, 0)),
    ],
    ids=["sold-out", "one-left-in-ipo"],
)
def test_sold_out_company_moves_up_one_row_at_the_end_of_the_stock_round(
    shares: tuple[str, ...], sold_out: bool, after: tuple[int, int, int],
) -> None:
    """Seed 000, Stock round: "Sold-out company: up one row" (``game.json``
    ``sold_out_increase``).  SR 2: the players buy ADR's IPO shares at 60M (3,0) (each
    pays the treasury, incremental); with all 100% in players' hands ADR rises one row to
    65M (2,0) (``market.json`` row 2, column 0); with one share left in the IPO it stays.
    RhE, with 30% in the market, does not move in either case."""
    game = sr2_with_adr_parred_at_60()
    order = [p.id for p in game.players]
    for i, share in enumerate(shares):
        pid = order[i % len(order)]
        assert game.round.current_entity(game).id == pid
        game.process(BuyShares(entity=pid, shares=(share,), percent=10))
    adr = game.corporation("ADR")
    assert adr.cash == 300 + 60 * len(shares)
    assert adr.percent_of(MARKET) == 0
    assert (adr.percent_of(IPO) == 0) is sold_out
    assert sum(v for k, v in percents(game, "ADR").items() if isinstance(k, int)) == (
        100 if sold_out else 90)
    pass_until_round_changes(game)
    assert label(game) == "OR 2.1"
    assert price(game, "ADR") == after
    assert price(game, "RhE") == (70, 1, 0)


# -- 3. presidency ----------------------------------------------------------------------------


def test_presidency_changes_only_when_another_player_holds_strictly_more() -> None:
    """Presidency (1830 baseline, seed 000 "Comparison with 1830"): P1 pars ADR (ADR_0,
    20%).  P2 buys to 10%, then 20%: a tie, P1 stays president.  P2 buys a third share
    (30% > 20%): P2 becomes president and swaps two 10% certificates for ADR_0; the
    holdings still sum to 100% and nobody's percentage changed in the swap."""
    game = new_game()
    play_packet_4p(game)
    game.process(Par(entity=1, corporation="ADR", share_price="60,3,0"))
    expected_president = [1, 1, 2]
    for share, pres in zip(("ADR_1", "ADR_2", "ADR_3"), expected_president, strict=True):
        game.process(BuyShares(entity=2, shares=(share,), percent=10))
        adr = game.corporation("ADR")
        assert adr.president == pres, share
        assert adr.certificates[0].president and adr.certificates[0].owner == pres
        for pid in (3, 4, 1):
            game.process(Pass(entity=pid))
    adr = game.corporation("ADR")
    assert percents(game, "ADR") == {1: 20, 2: 30, IPO: 50}
    assert sum(percents(game, "ADR").values()) == 100
    owners = {c.id: (c.owner, c.percent) for c in adr.certificates if c.owner != IPO}
    assert owners == {"ADR_0": (2, 20), "ADR_1": (1, 10), "ADR_2": (1, 10), "ADR_3": (2, 10)}


@needs_shared
def test_presidency_passes_on_a_buy_to_30_percent_in_a_reference_game() -> None:
    """Presidency: g03 action 494 (6 players): 1004 is DEE's president with 20%, 1006
    also holds 20% (a tie kept 1004).  1006 buys DEE_7 to 30% and takes the president's
    certificate; 1004 keeps 20% in 10% certificates.  The trace agrees."""
    game = position("g03", 493)
    dee = game.corporation("DEE")
    assert dee.president == 1004
    assert (dee.percent_of(1004), dee.percent_of(1006)) == (20, 20)
    game.process(fixture_action("g03", 494))
    dee = game.corporation("DEE")
    assert dee.president == 1006 and dee.certificates[0].owner == 1006
    assert (dee.percent_of(1004), dee.percent_of(1006)) == (20, 30)
    assert all(c.percent == 10 for c in dee.certificates if c.owner == 1004)
    assert sum(percents(game, "DEE").values()) == 100
    assert REF.trace_entry("g03", 494)["corporations"]["DEE"]["president"] == "1006"


# -- 4. map: Ratingen (E12) in the Ratingen variant, the Rhine ---------------------------------


@needs_shared
def test_ratingen_e12_is_blocked_by_the_angertalbahn_until_its_own_lay() -> None:
    """Ratingen variant (``options.json``: private No. 1 is the Angertalbahn, ATB, which
    blocks E12; reference facts ``optional_rules.ratingen_variant``: E12 takes no
    normal first tile, label R).  g04 (Ratingen variant), action 248, phase 3: BME
    (president 1003; ATB is 1001's) reaches E12 from F13 (edge 5), but no lay on E12 is
    offered and ``LayTile`` there is refused with nothing changed.  Even with the ATB
    closed no normal lay is offered (the R label).  Action 388: CME (1001's) uses the ATB
    to lay town tile 2 there, which closes the ATB; from then E12 is an ordinary hex: at
    action 405 BME is offered exactly the 87 upgrade and lays it (action 406)."""
    game = position("g04", 248)
    bme = game.corporation("BME")
    assert (step(game), game.round.current_entity(game).sym, game.phase.name) == (
        "track", "BME", "3")
    atb = game.private("ATB")
    assert (atb.owner, atb.closed, bme.president) == (1001, False, 1003)
    ctx = game.title.lay_context(game, game.round, bme)
    assert ctx.connectivity().hexes["E12"] == frozenset({5})
    assert [lay for lay in game.legal_tile_lays() if lay.hex == "E12"] == []
    before = snapshot(game)
    with pytest.raises(GameError, match="E12 is blocked by ATB"):
        game.process(LayTile(entity="BME", entity_type="corporation", hex="E12", tile="2-1",
                             rotation=4))
    assert snapshot(game) == before
    privates = dict(ctx.privates)
    privates["ATB"] = dataclasses.replace(privates["ATB"], closed=True)
    unblocked = dataclasses.replace(ctx, privates=privates)
    assert [lay for lay in legal_tile_lays(unblocked) if lay.hex == "E12"] == []

    game = position("g04", 387)
    assert game.round.current_entity(game).sym == "CME"
    e12 = {(lay.tile, lay.rotation, lay.special) for lay in game.legal_tile_lays()
           if lay.hex == "E12"}
    assert ("2", 4, "ATB") in e12 and all(s == "ATB" for _, _, s in e12)
    game.process(fixture_action("g04", 388))  # ATB lays 2-0, rotation 4
    assert game.private("ATB").closed
    assert game.board.tile_at("E12").tile.name == "2"

    game = position("g04", 405)
    assert game.round.current_entity(game).sym == "BME" and game.private("ATB").closed
    e12_lays = [(lay.tile, lay.rotation, lay.cost, lay.special)
                for lay in game.legal_tile_lays() if lay.hex == "E12"]
    assert e12_lays == [("87", 4, 0, "")]
    cash = game.corporation("BME").cash
    game.process(fixture_action("g04", 406))
    assert game.board.tile_at("E12").tile.name == "87"
    assert game.corporation("BME").cash == cash == 504


def test_ratingen_takes_no_tile_in_phase_2_even_from_the_angertalbahn() -> None:
    """Ratingen variant (module docs of ``g18rhl/board_rules.py``; reference facts: "engine
    refuses any tile here at game start"): in phase 2 E12 takes no tile, not even the
    ATB's special lay (which skips the label check); from phase 3 that lay may put the
    double-town tiles 1/2/55/56/69 there.  Without the variant E12 is a plain hex."""
    data = get_title("18Rhl", ("ratingen_variant",)).data
    rules = RhlBoardRules(data)
    e12 = data.map.hexes["E12"].tile
    towns = ("1", "2", "55", "56", "69")
    for name in towns:
        new = data.tiles[name]
        assert not rules.upgrades_to("E12", e12, new, special=True, phase="2"), name
        assert rules.upgrades_to("E12", e12, new, special=True, phase="3"), name
        assert not rules.upgrades_to("E12", e12, new, phase="3"), name  # label R
    base = get_title("18Rhl").data
    base_rules = RhlBoardRules(base)
    assert all(
        base_rules.upgrades_to("E12", base.map.hexes["E12"].tile, base.tiles[n], phase="2")
        for n in towns
    )


def test_track_may_not_cross_the_rhine_outside_the_crossing_points() -> None:
    """Seed 000, Map: "The Rhine can only be crossed at Köln, Düsseldorf, Duisburg and C8"
    (impassable blue borders in ``map.json``).  OR 1.1 of the seed game: RhE (Köln I10)
    may lay on J9, whose edge 4 (to J11, across the Rhine) is a Rhine border: every
    offered J9 lay leaves by edge 3 (to Köln) and none by edge 4; tile 7 at rotation 3
    (exits 3 and 4) is refused with nothing changed, while rotation 2 (exits 2 and 3) is
    offered."""
    game = new_game()
    play_packet_4p(game)
    pass_until_round_changes(game)
    assert (label(game), game.round.current_entity(game).sym, step(game)) == (
        "OR 1.1", "RhE", "track")
    spec = game.board.spec.hexes["J9"]
    assert spec.neighbors[4] == "J11" and spec.neighbors[3] == "I10"
    lays = [lay for lay in game.legal_tile_lays() if lay.hex == "J9"]
    exits = {(lay.tile, lay.rotation): sorted(geometry(game.data.tiles[lay.tile],
                                                         lay.rotation).exits) for lay in lays}
    assert exits == {("7", 2): [2, 3], ("8", 1): [1, 3], ("8", 3): [3, 5], ("9", 0): [0, 3],
                     ("9", 3): [0, 3]}
    assert all(4 not in e and 3 in e for e in exits.values())
    before = snapshot(game)
    with pytest.raises(GameError, match="not a legal rotation"):
        game.process(LayTile(entity="RhE", entity_type="corporation", hex="J9", tile="7-0",
                             rotation=3))
    assert snapshot(game) == before
    game.process(LayTile(entity="RhE", entity_type="corporation", hex="J9", tile="7-0",
                         rotation=2))
    assert game.board.tile_at("J9").tile.name == "7"


# -- 5. Ratingen variant route bonus -----------------------------------------------------------


RATINGEN = get_title("18Rhl", ("ratingen_variant",)).data
BASE = get_title("18Rhl").data


def essen_ratingen_elberfeld(data: Any) -> Board:
    """Essen D13 (934, rotation 0: exit 0 to E12) - Ratingen E12 (a double-town tile
    joining edges 3 and 5) - F13 (preprinted city 30M, track from edge 2); BME's token
    in F13."""
    board = Board(data.map, data.tiles)
    lay(board, ["D13", "E12", "F13"], {"D13": ("934", 0), "E12": "1|2|55|56"})
    board.add_token("F13", 0, "BME")
    return board


@pytest.mark.parametrize(
    ("data", "steel", "revenue", "bonuses"),
    [
        (RATINGEN, True, 110, {"ratingen": 30}),
        (RATINGEN, False, 80, {}),
        (BASE, True, 80, {}),
    ],
    ids=["variant-with-steel", "variant-no-steel", "no-variant"],
)
def test_ratingen_bonus_for_a_route_through_ratingen_with_steel(
    data: Any, steel: bool, revenue: int, bonuses: dict[str, int],
) -> None:
    """Ratingen variant (``g18rhl/revenue.py`` module docs, from the reference engine): a
    non-8 route with a stop in Ratingen (E12) and a steel works earns +30M.  Phase 3,
    3-train F13 (30M, a steel works there when ``steel``) - Ratingen town (10M) - Essen
    (40M): 80M; +30M only in the variant and only with steel (no coal: no Montan)."""
    board = essen_ratingen_elberfeld(data)
    icons = {"F13": frozenset({"S"})} if steel else {}
    ctx = RouteContext(board=board, data=data, entity="BME", phase="3", trains=("3-0",),
                       rules=RhlRevenue.for_data(data), hex_icons=icons)
    (res,) = run_revenue(ctx, [{"train": "3-0", "connections": [["F13", "E12"],
                                                               ["E12", "D13"]]}])
    assert res.base == 80
    assert {b.name: b.amount for b in res.bonuses} == bonuses
    assert res.revenue == revenue
    assert [v.split("-")[0] for v in res.visits] == ["F13", "E12", "D13"]
