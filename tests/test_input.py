"""Robust input: every malformed export or action is one line with the documented exit status.

Each case a new user tried on edited copies of the reference exports (issue 8) is a
test with the message it must give: exit status 2 and ``error: action <id> (<type>):
<field>: expected ..., found ...`` for a malformed field, before any action is applied;
the command line's own conveniences (``python -m rhineland``, ``-h``, ``-`` for
standard input, ``--json`` errors, letter case of ``--entity``); and the same checks
for actions built by hand in Python.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from reference import SHARED, needs_shared
from rhineland import ActionError, ExportError, GameError
from rhineland.cli.main import cli
from rhineland.engine.actions import (
    Bid,
    BuyShares,
    LayTile,
    Par,
    PlaceToken,
    RunRoutes,
    Undo,
    action_from_json,
)
from rhineland.engine.game import Game
from rhineland.io import export as export_module
from rhineland.io.export import parse_export
from rhineland.titles import get_title

RHL = SHARED / "fixtures" / "18Rhl" / "18Rhl_end_bank.json"
SEED = SHARED / "fixtures" / "18Rhl" / "18Rhl_seed_opening.json"
# 18Rhl end_bank, by position in "actions": the first of each kind (id = position + 1)
BID, PAR, BUY_SHARES, UNDO, LAY_TILE, RUN_ROUTES, PLACE_TOKEN = 0, 13, 14, 15, 31, 52, 61

pytestmark = needs_shared


def base() -> dict[str, Any]:
    return copy.deepcopy(_BASE) if _BASE else json.loads(RHL.read_text())


_BASE: dict[str, Any] = json.loads(RHL.read_text()) if RHL.exists() else {}


def run(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def replay_data(data: Any, *extra: str) -> tuple[int, str, str]:
    """``rhineland replay -`` with ``data`` (JSON-encoded unless bytes) on standard input."""
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return run("replay", "-", *extra, stdin=raw)


def one_error(data: Any) -> str:
    """The export is refused with exit status 2 and this one line (without ``error: ``)."""
    code, out, err = replay_data(data)
    assert code == 2, (code, out, err)
    assert out == "" and err.count("\n") == 1 and err.startswith("error: "), err
    return err.removeprefix("error: ").rstrip("\n")


def changed(index: int, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    data = base()
    change(data["actions"][index])
    return data


def set_field(index: int, name: str, value: Any) -> dict[str, Any]:
    return changed(index, lambda a: a.__setitem__(name, value))


def drop_field(index: int, name: str) -> dict[str, Any]:
    return changed(index, lambda a: a.pop(name))


PRICE = "price: expected a whole amount of M (an integer >= 0)"
SHARES = "shares: expected a non-empty list of certificate ids SYM_i"
ROTATION = "rotation: expected a rotation (an integer 0-5)"
ROUTES = "routes: expected a list of routes"


# -- fields that crashed with a traceback ------------------------------------------------------
def test_bid_price_as_a_numeric_string() -> None:
    assert one_error(set_field(BID, "price", "20")) == f'action 1 (bid): {PRICE}, found "20"'


def test_bid_price_as_text() -> None:
    assert one_error(set_field(BID, "price", "abc")) == f'action 1 (bid): {PRICE}, found "abc"'


def test_seed_as_text() -> None:
    data = base()
    data["settings"]["seed"] = "abc"
    assert one_error(data) == 'export: settings.seed: expected an integer, found "abc"'


def test_unknown_optional_rule() -> None:
    data = base()
    data["settings"]["optional_rules"] = ["optional_2_train", "bogus"]
    assert one_error(data) == (
        "export: settings.optional_rules[1]: expected an optional rule of 18Rhl "
        "(lower_starting_capital, optional_2_train, promotion_tiles, ratingen_variant), "
        'found "bogus"'
    )


def test_buy_shares_shares_null() -> None:
    assert one_error(set_field(BUY_SHARES, "shares", None)) == (
        f"action 15 (buy_shares): {SHARES}, found null")


def test_buy_shares_shares_a_number() -> None:
    assert one_error(set_field(BUY_SHARES, "shares", 5)) == (
        f"action 15 (buy_shares): {SHARES}, found 5")


def test_lay_tile_rotation_null() -> None:
    assert one_error(set_field(LAY_TILE, "rotation", None)) == (
        f"action 32 (lay_tile): {ROTATION}, found null")


def test_lay_tile_rotation_text() -> None:
    assert one_error(set_field(LAY_TILE, "rotation", "x")) == (
        f'action 32 (lay_tile): {ROTATION}, found "x"')


def test_lay_tile_tile_null() -> None:
    assert one_error(set_field(LAY_TILE, "tile", None)) == (
        "action 32 (lay_tile): tile: expected a tile id <tile>-<copy>, found null")


def test_place_token_city_null() -> None:
    assert one_error(set_field(PLACE_TOKEN, "city", None)) == (
        "action 62 (place_token): city: expected a city id <tile id>-<city>, found null")


@pytest.mark.parametrize(("routes", "shown"), [(None, "null"), ("x", '"x"')])
def test_run_routes_routes_not_a_list(routes: Any, shown: str) -> None:
    assert one_error(set_field(RUN_ROUTES, "routes", routes)) == (
        f"action 53 (run_routes): {ROUTES}, found {shown}")


def test_run_routes_route_not_an_object() -> None:
    assert one_error(set_field(RUN_ROUTES, "routes", [1])) == (
        "action 53 (run_routes): routes[0]: expected a route (an object: train, connections, "
        "hexes, nodes, revenue), found 1")


def test_run_routes_connections_null() -> None:
    data = changed(RUN_ROUTES, lambda a: a["routes"][0].__setitem__("connections", None))
    assert one_error(data) == (
        "action 53 (run_routes): routes[0].connections: expected a non-empty list of chains, "
        "each a non-empty list of hexes, found null")


def test_undo_action_id_text() -> None:
    assert one_error(set_field(UNDO, "action_id", "x")) == (
        'action 16 (undo): action_id: expected an action id (an integer >= 0), found "x"')


def test_undo_of_an_action_the_export_does_not_have_before_it() -> None:
    assert one_error(set_field(UNDO, "action_id", 99)) == (
        "action 16 (undo): action_id: expected the id of an earlier action, found 99")


# -- values that were accepted without complaint -----------------------------------------------
def test_bid_price_with_a_fraction() -> None:
    assert one_error(set_field(BID, "price", 20.5)) == f"action 1 (bid): {PRICE}, found 20.5"


def test_duplicate_action_id() -> None:
    assert one_error(set_field(3, "id", 3)) == (
        "action 3 (bid): id: expected an action id greater than 3 (ids increase), found 3")


def test_action_id_as_a_string() -> None:
    assert one_error(set_field(3, "id", "4")) == (
        'action #4 (bid): id: expected an action id (an integer >= 1), found "4"')


def test_missing_action_id() -> None:
    assert one_error(drop_field(3, "id")) == (
        "action #4 (bid): id: expected an action id greater than 3 (ids increase), found nothing")


def test_lay_tile_rotation_out_of_range() -> None:
    assert one_error(set_field(LAY_TILE, "rotation", 99)) == (
        f"action 32 (lay_tile): {ROTATION}, found 99")


def test_unknown_entity_type() -> None:
    assert one_error(set_field(BID, "entity_type", "alien")) == (
        "action 1 (bid): entity_type: expected 'player', 'corporation', 'minor' or 'company', "
        'found "alien"')


def test_unknown_entity() -> None:
    assert one_error(set_field(LAY_TILE, "entity", "XYZ")) == (
        "action 32 (lay_tile): entity: expected a corporation of this 18Rhl game "
        '(ADR, BME, CCE, CME, DEE, GVE, KEG, RhE), found "XYZ"')


def test_place_token_with_a_hex_field() -> None:
    assert one_error(set_field(PLACE_TOKEN, "hex", "Q99")) == (
        "action 62 (place_token): hex: expected no such field (place_token has city, slot, "
        "tokener, cost, token_type besides type, entity, entity_type, id, created_at, user, "
        'auto_actions), found "Q99"')


def test_lay_tile_on_a_hex_not_on_the_map() -> None:
    assert one_error(set_field(LAY_TILE, "hex", "Q99")) == (
        'action 32 (lay_tile): hex: expected a hex of this 18Rhl game, found "Q99"')


def test_run_routes_hexes_disagree_with_connections() -> None:
    data = changed(RUN_ROUTES, lambda a: a["routes"][0].__setitem__("hexes", ["K6", "J9"]))
    assert one_error(data) == (
        "action 53 (run_routes): routes[0].hexes: expected the hexes the connections start "
        'and end in (I10, K6), found ["K6","J9"]')


def test_run_routes_nodes_disagree_with_connections() -> None:
    data = changed(RUN_ROUTES, lambda a: a["routes"][0].__setitem__("nodes", ["I10-0", "K8-0"]))
    assert one_error(data) == (
        "action 53 (run_routes): routes[0].nodes: expected node ids on the hexes the "
        'connections start and end in (I10, K6), found ["I10-0","K8-0"]')


def test_buy_train_of_a_type_the_title_does_not_have() -> None:
    assert one_error(set_field(32, "variant", "9")) == (
        'action 33 (buy_train): variant: expected a train type of this 18Rhl game '
        '(2, 3, 4, 5, 6, 8), found "9"')


def test_documented_error_example_is_what_the_command_prints() -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text()
    shown = next(line.strip() for line in doc.splitlines()
                 if line.strip().startswith("error: action 32 (lay_tile)"))
    assert "error: " + one_error(set_field(LAY_TILE, "rotation", 99)) == shown


# -- unclear messages and exit statuses --------------------------------------------------------
@pytest.mark.parametrize("count", [0, 1, 12])
def test_player_count_the_title_does_not_allow(count: int) -> None:
    data = base()
    data["players"] = [{"id": i + 1, "name": f"P{i + 1}"} for i in range(count)]
    assert one_error(data) == (
        f"export: players: expected 3 to 6 players for 18Rhl, found {count}")


def test_par_without_a_corporation() -> None:
    assert one_error(drop_field(PAR, "corporation")) == (
        "action 14 (par): corporation: expected a corporation symbol, found nothing")


def test_bid_without_a_price() -> None:
    assert one_error(drop_field(BID, "price")) == f"action 1 (bid): {PRICE}, found nothing"


def test_bid_on_nothing() -> None:
    assert one_error(drop_field(BID, "company")) == (
        "action 1 (bid): company: expected one of company, minor or corporation "
        "(what is bid on), found nothing")


def test_reference_fields_we_do_not_model_are_kept() -> None:
    """A field the reference writes for this action type but rhineland does not model
    (here a lay's ``combo_entities``) is accepted and written back unchanged."""
    data = set_field(LAY_TILE, "combo_entities", ["PWB"])
    action = parse_export(data).actions[LAY_TILE]
    assert action.to_json() == data["actions"][LAY_TILE]


def test_bad_auto_action_names_the_outer_action() -> None:
    data = changed(LAY_TILE, lambda a: a["auto_actions"][0].__setitem__("corporations", ["XX"]))
    assert one_error(data) == (
        "action 32 (lay_tile): auto_actions[0] (destination_connection): corporations[0]: "
        "expected a corporation of this 18Rhl game (ADR, BME, CCE, CME, DEE, GVE, KEG, RhE), "
        'found "XX"')


def test_unknown_action_type_lists_the_types() -> None:
    message = one_error(set_field(BID, "type", "fly"))
    assert message.startswith("action 1 (fly): type: expected one of the action types (pass, ")
    assert message.endswith("found unknown action type 'fly'")


def test_utf8_byte_order_mark_is_accepted() -> None:
    code, out, _ = replay_data(b"\xef\xbb\xbf" + SEED.read_bytes())
    assert code == 0 and out.startswith("18Rhl: 42 actions replayed")


def test_invalid_utf8_names_its_line_and_column() -> None:
    raw = SEED.read_bytes()
    at = raw.index(b'"name"', raw.index(b'"players"')) + len(b'"name": "')
    bad = raw[:at] + b"\xff" + raw[at:]
    line = bad.count(b"\n", 0, at) + 1
    column = at - bad.rfind(b"\n", 0, at)
    assert one_error(bad) == (
        f"standard input is not valid UTF-8: byte 0xff at line {line}, column {column} "
        f"(byte {at})")


def test_a_large_bad_file_fails_at_its_first_bad_action(monkeypatch: pytest.MonkeyPatch) -> None:
    """The actions are built in order and the first malformed one stops the parse: the
    200,000 after it are never built."""
    data = base()
    data["actions"] = data["actions"][:5]
    data["actions"][4]["price"] = -5
    data["actions"].extend({"type": "pass", "id": 6 + i} for i in range(200_000))
    built: list[Any] = []
    real = export_module.action_from_json

    def counting(record: Any, *args: Any, **kwargs: Any) -> Any:
        built.append(record)
        return real(record, *args, **kwargs)

    monkeypatch.setattr(export_module, "action_from_json", counting)
    with pytest.raises(ActionError, match=r"^action 5 \(bid\): price: .* found -5$"):
        parse_export(data)
    assert len(built) == 5


def test_malformed_action_is_found_before_any_action_is_applied() -> None:
    """Action 1 is illegal (a bid below the price) and action 40 malformed: the export
    is refused for action 40 with status 2, nothing replayed."""
    data = base()
    data["actions"][0]["price"] = 5
    data["actions"][39]["entity_type"] = "alien"
    assert one_error(data).startswith("action 40 (")


def test_illegal_action_is_status_1() -> None:
    data = json.loads(SEED.read_text())
    data["actions"][0]["price"] = 5  # PWB costs 20M
    code, out, err = replay_data(data)
    assert (code, out) == (1, "")
    assert err.startswith("error: illegal action 1: ") and err.count("\n") == 1


# -- the command line ----------------------------------------------------------------------------
def test_bare_command_prints_help() -> None:
    code, out, err = run()
    assert (code, err) == (0, "")
    assert out.startswith("Usage: ") and "replay" in out and "routes" in out


@pytest.mark.parametrize("args", [["-h"], ["--help"], ["replay", "-h"], ["routes", "-h"]])
def test_dash_h_is_help(args: list[str]) -> None:
    code, out, _ = run(*args)
    assert code == 0 and out.startswith("Usage: ")


def test_python_dash_m_rhineland() -> None:
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-m", "rhineland", "replay", "-", "--until", "9"],
        input=SEED.read_bytes(), capture_output=True, check=False,
        env={"PYTHONPATH": str(root / "src")}, cwd=root,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().startswith("18Rhl: 9 actions replayed (last id 9)")


def test_dash_reads_standard_input() -> None:
    code, out, _ = run("replay", "-", "--json", stdin=SEED.read_bytes())
    assert code == 0 and json.loads(out)["last_action_id"] == 42


def test_entity_symbol_in_any_letter_case() -> None:
    code, out, _ = run("routes", str(RHL), "--before", "425", "--entity", "gve", "--json")
    assert code == 0 and json.loads(out)["entity"] == "GVE"


def test_unknown_entity_option_is_a_bad_argument() -> None:
    code, _, err = run("routes", str(RHL), "--before", "425", "--entity", "XYZ")
    assert code == 2
    assert err == ("error: --entity: no company 'XYZ' in this 18Rhl game "
                   "(companies: ADR, BME, CME, DEE, KEG, GVE, CCE, RhE)\n")


def test_json_errors_are_json_objects() -> None:
    code, _, err = replay_data(set_field(LAY_TILE, "rotation", 99), "--json")
    assert code == 2
    assert json.loads(err) == {"error": {
        "kind": "bad_input", "action_id": 32, "rule": "input.action",
        "message": f"action 32 (lay_tile): {ROTATION}, found 99"}}
    data = json.loads(SEED.read_text())
    data["actions"][0]["price"] = 5
    code, _, err = replay_data(data, "--json")
    error = json.loads(err)["error"]
    assert code == 1
    assert (error["kind"], error["action_id"], error["rule"]) == (
        "illegal_action", 1, "auction.buy_price")
    assert error["message"].startswith("illegal action 1: ")
    code, _, err = run("replay", str(SEED), "--json", "--until", "999")
    assert (code, json.loads(err)) == (2, {"error": {
        "kind": "bad_argument", "action_id": None, "rule": "argument.action_id",
        "message": "the export has no action 999"}})
    code, _, err = run("replay", str(SEED), "--json", "--until", "x")
    assert code == 2 and json.loads(err)["error"]["kind"] == "bad_argument"
    code, _, err = run("routes", str(RHL), "--before", "425", "--entity", "XYZ", "--json")
    assert code == 2 and json.loads(err)["error"]["rule"] == "argument.entity"


def test_unreadable_file_is_status_2(tmp_path: Path) -> None:
    code, _, err = run("replay", str(tmp_path / "missing.json"))
    assert code == 2 and err.startswith("error: cannot read ") and err.count("\n") == 1


# -- the same checks for actions built by hand ---------------------------------------------------
def test_hand_built_action_with_a_fraction_of_a_mark() -> None:
    with pytest.raises(ActionError) as info:
        Bid(entity=1, company="PWB", price=20.5)  # type: ignore[arg-type]
    assert str(info.value) == f"bid action: {PRICE}, found 20.5"
    assert (info.value.field, info.value.found) == ("price", "20.5")


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: LayTile(entity="ADR", entity_type="corporation", hex="J9", tile="9-0",
                         rotation=6),
         f"lay_tile action: {ROTATION}, found 6"),
        (lambda: BuyShares(entity=1, shares=("ADR_1",), percent=0),
         "buy_shares action: percent: expected a percentage (an integer 1-100), found 0"),
        (lambda: Par(entity=1, corporation="ADR", share_price="70"),
         "par action: share_price: expected a stock market cell 'price,row,col', found \"70\""),
        (lambda: PlaceToken(entity="ADR", entity_type="corporation", city="K6", slot=0),
         "place_token action: city: expected a city id <tile id>-<city>, found \"K6\""),
        (lambda: Undo(entity="1"),
         "undo action: entity: expected a player id (integer) for entity_type 'player', "
         "found \"1\""),
        (lambda: RunRoutes(entity="RhE", entity_type="corporation",
                           routes=({"train": "2-0", "connections": [["I10", "K6"]],
                                    "hexes": ["I10", "J9"]},)),
         "run_routes action: routes[0].hexes: expected the hexes the connections start and "
         'end in (I10, K6), found ["I10","J9"]'),
    ],
)
def test_hand_built_actions_are_checked(build: Callable[[], object], message: str) -> None:
    with pytest.raises(ActionError) as info:
        build()
    assert str(info.value) == message


def test_names_are_checked_against_a_game() -> None:
    """With the game's names, ``action_from_json`` refuses what the game does not have
    (a web server taking actions as JSON does the same as an export)."""
    from rhineland.engine.actions import Refs

    title = get_title("18Rhl")
    refs = Refs.of(title.data, [1, 2, 3])
    record = {"type": "lay_tile", "entity": "ADR", "entity_type": "corporation", "id": 7,
              "hex": "J9", "tile": "X9-0", "rotation": 0}
    assert action_from_json(record) == LayTile(entity="ADR", entity_type="corporation", id=7,
                                               hex="J9", tile="X9-0", rotation=0)
    with pytest.raises(ActionError, match=r"^action 7 \(lay_tile\): tile: expected a tile id "
                       r"<tile>-<copy> naming a tile of 18Rhl, found \"X9-0\"$"):
        action_from_json(record, refs)


def test_valid_hand_built_action_refused_by_the_rules_leaves_the_state() -> None:
    game = Game(get_title("18Rhl"), [(1, "Ann"), (2, "Ben"), (3, "Cid")], seed=1)
    with pytest.raises(GameError):
        game.process(Bid(entity=1, company="PWB", price=5))
    assert [p.cash for p in game.players] == [600, 600, 600]


def test_export_error_is_the_base_of_action_error() -> None:
    assert issubclass(ActionError, ExportError)
