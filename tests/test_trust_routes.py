"""``replay(export, trust_routes=True)`` / ``rhineland replay --trust-routes``: a run the
route rules reject is applied with its recorded revenue, as 18xx.games replays it, and
reported; the strict default refuses it with the rule.

Every case alters one recorded run of the real game ``18Rhl_end_bank`` in memory.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from reference import SHARED, needs_shared, total_money
from rhineland.cli.main import cli
from rhineland.engine.actions import Redo, Undo
from rhineland.engine.leniency import REPLAY_LENIENCIES, TRUST_ROUTES, TrustedRun
from rhineland.io.export import (
    Export,
    ReplayError,
    game_from_export,
    parse_export,
    read_json,
    replay,
    trusted_runs,
    undo_targets,
)

pytestmark = needs_shared

END_BANK = SHARED / "fixtures" / "18Rhl" / "18Rhl_end_bank.json"


def altered(action_id: int, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """The end_bank export (JSON) with ``change`` applied to action ``action_id``."""
    data = copy.deepcopy(read_json(END_BANK))
    change(next(a for a in data["actions"] if a["id"] == action_id))
    return dict(data)


def drop_g6(action: dict[str, Any]) -> None:
    """Action 145 (RhE): its 3-train's route K6-K4-K2-J3-G6 loses its last hex, G6, so
    it ends at the town J3."""
    route = action["routes"][1]
    assert route["train"] == "3-0" and route["revenue"] == 80
    route["connections"] = [c for c in route["connections"] if "G6" not in c]
    route["hexes"] = [h for h in route["hexes"] if h != "G6"]
    route["nodes"] = [n for n in route["nodes"] if not n.startswith("G6")]


def add_unreachable_stop(action: dict[str, Any]) -> None:
    """Action 128 (DEE): its 2-train's route F9-F13 gets a stop B9 no track reaches."""
    route = action["routes"][0]
    assert route["train"] == "2-3" and route["revenue"] == 70
    route["connections"].append(["B9"])
    route["hexes"].append("B9")
    route["nodes"].append("B9-0")


def raise_revenue(action: dict[str, Any]) -> None:
    """Action 101 (DEE): its 2-train's route F9-F13 records 90M instead of 60M."""
    route = action["routes"][0]
    assert route["train"] == "2-3" and route["revenue"] == 60
    route["revenue"] = 90


def strict_refusal(export: Export, until: int) -> ReplayError:
    with pytest.raises(ReplayError) as info:
        replay(export, until=until)
    return info.value


def test_the_default_replay_trusts_no_route() -> None:
    assert TRUST_ROUTES not in REPLAY_LENIENCIES
    export = parse_export(read_json(END_BANK))
    assert TRUST_ROUTES not in game_from_export(export).leniencies
    assert TRUST_ROUTES in game_from_export(export, trust_routes=True).leniencies


def test_a_route_ending_at_a_town_is_refused_and_trusted_for_the_whole_game() -> None:
    data = altered(145, drop_g6)
    export = parse_export(data)
    err = strict_refusal(export, 145)
    assert err.action_id == 145 and err.rule == "route.town_end"
    assert "J3-0" in err.reason

    game = replay(export, trust_routes=True)
    assert trusted_runs(game) == [TrustedRun(
        rule="route.town_end", action_id=145,
        message="train 3-0: a route may not start or end at a town (J3-0)",
        entity="RhE", train="3-0", recorded=80, ours=None, revenue=130,
    )]
    assert game.leniencies_used == trusted_runs(game)
    # the recorded revenue is what the reference ran: the game ends as it did there
    assert game.finished
    assert {str(p.id): game.player_value(p) for p in game.players} == data["result"]


def test_an_unreachable_stop_is_refused_and_trusted() -> None:
    export = parse_export(altered(128, add_unreachable_stop))
    err = strict_refusal(export, 128)
    assert err.rule == "route.track"
    assert "no track on the board runs node to node through B9" in err.reason

    game = replay(export, until=130, trust_routes=True)
    (run,) = trusted_runs(game)
    assert (run.action_id, run.entity, run.train, run.rule) == (128, "DEE", "2-3", "route.track")
    assert (run.recorded, run.ours, run.revenue) == (70, None, 70)
    assert str(run) == (
        "action 128: DEE train 2-3 recorded 70M, the rules reject its route: train 2-3: "
        "no track on the board runs node to node through B9 [route.track]; run applied "
        "at its recorded 70M (leniency route)")


def test_a_changed_revenue_is_refused_and_the_recorded_one_paid_out() -> None:
    export = parse_export(altered(101, raise_revenue))
    err = strict_refusal(export, 101)
    assert err.rule == "route.revenue"
    assert err.reason == ("train 2-3 of DEE: the route earns 60M, not the "
                          "recorded 90M [route.revenue]")

    honest = replay(parse_export(read_json(END_BANK)), until=102)  # 101 run, 102 payout
    trusted = replay(export, until=101, trust_routes=True)
    assert trusted.round.revenue == 90  # type: ignore[attr-defined]
    (run,) = trusted_runs(trusted)
    assert (run.recorded, run.ours, run.revenue, run.rule) == (90, 60, 90, "route.revenue")

    trusted = replay(export, until=102, trust_routes=True)  # the payout follows: 3M per 10%
    dee = trusted.corporations["DEE"]
    paid = 0
    for p, q in zip(trusted.players, honest.players, strict=True):
        held = sum(c.percent for c in dee.certificates if c.owner == p.id)
        assert p.cash - q.cash == 30 * held // 100
        paid += p.cash - q.cash
    assert paid > 0
    paid += dee.cash - honest.corporations["DEE"].cash
    assert honest.bank.cash - trusted.bank.cash == paid
    assert total_money(trusted) == total_money(honest)


def test_another_companys_train_is_refused_even_when_trusted() -> None:
    """18xx.games checks a stored run's trains: each the company's, run once."""
    def other_train(action: dict[str, Any]) -> None:
        action["routes"][0]["train"] = "2-0"  # RhE's

    export = parse_export(altered(101, other_train))
    for trust in (False, True):
        with pytest.raises(ReplayError) as info:
            replay(export, until=101, trust_routes=trust)
        assert info.value.rule == "route.train"


def test_a_rejected_route_without_a_recorded_revenue_is_refused_even_when_trusted() -> None:
    def no_revenue(action: dict[str, Any]) -> None:
        drop_g6(action)
        del action["routes"][1]["revenue"]

    export = parse_export(altered(145, no_revenue))
    with pytest.raises(ReplayError) as info:
        replay(export, until=145, trust_routes=True)
    assert info.value.rule == "route.town_end"


def test_a_trusted_run_undone_and_redone_is_listed_once() -> None:
    export = parse_export(altered(128, add_unreachable_stop))
    game = game_from_export(export, trust_routes=True)
    targets = undo_targets(export.actions)
    for i, action in enumerate(export.actions):
        game.process(action, atomic=False, history=i in targets or action.id == 128)
        if action.id == 128:
            break
    revenue = game.round.revenue  # type: ignore[attr-defined]
    game.process(Undo(entity=game.players[0].id))
    assert len(trusted_runs(game)) == 1  # the reference applied it, then it was undone
    game.process(Redo(entity=game.players[0].id))
    assert len(trusted_runs(game)) == 1
    assert game.round.revenue == revenue == 70  # type: ignore[attr-defined]


def test_a_legal_game_trusts_no_run() -> None:
    game = replay(parse_export(read_json(END_BANK)), trust_routes=True)
    assert game.finished and trusted_runs(game) == [] and game.leniencies_used == []


# -- the command line --------------------------------------------------------------------------
def run_cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_cli_refuses_the_run_and_trusts_it_with_the_option(tmp_path: Path) -> None:
    path = tmp_path / "altered.json"
    path.write_text(json.dumps(altered(145, drop_g6)))

    code, _, err = run_cli("replay", str(path))
    assert code == 1
    assert err.startswith("error: illegal action 145: train 3-0: a route may not start or "
                          "end at a town (J3-0) [route.town_end]")

    code, out, _ = run_cli("replay", str(path), "--trust-routes")
    assert code == 0
    lines = out.splitlines()
    at = lines.index("runs the route rules reject, applied with the recorded revenue "
                     "(--trust-routes): 1")
    assert lines[at + 1] == (
        "  action 145: RhE train 3-0 recorded 80M, the rules reject its route: train 3-0: "
        "a route may not start or end at a town (J3-0) [route.town_end]; run applied at "
        "its recorded 130M (leniency route)")
    doc = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text().splitlines()
    shown = doc.index("    " + lines[at])  # the example in docs/cli.md is this output
    assert doc[shown + 1] == "    " + lines[at + 1]

    code, out, _ = run_cli("replay", str(path), "--trust-routes", "--json")
    assert code == 0
    assert json.loads(out)["leniencies"] == [{
        "action_id": 145, "rule": "route.town_end",
        "message": "train 3-0: a route may not start or end at a town (J3-0)",
        "leniency": "route", "entity": "RhE", "train": "3-0", "recorded": 80, "ours": None,
        "revenue": 130, "standing": True,
    }]


def test_cli_trust_routes_on_a_legal_game_says_none() -> None:
    code, out, _ = run_cli("replay", str(END_BANK), "--trust-routes")
    assert code == 0
    assert ("runs the route rules reject, applied with the recorded revenue "
            "(--trust-routes): none") in out.splitlines()
    code, out, _ = run_cli("replay", str(END_BANK), "--json")
    assert json.loads(out)["leniencies"] == []


def test_cli_routes_and_best_routes_take_the_option(tmp_path: Path) -> None:
    path = tmp_path / "altered.json"
    path.write_text(json.dumps(altered(145, drop_g6)))
    assert run_cli("routes", str(path), "--before", "162")[0] == 1  # stops at action 145
    code, out, _ = run_cli("routes", str(path), "--before", "162", "--trust-routes", "--json")
    assert code == 0 and json.loads(out)["revenue"] == 150  # RhE's best at action 162

    code, out, _ = run_cli("replay", str(path), "--best-routes", "--trust-routes", "--json",
                           "--until", "146")
    assert code == 0
    (run,) = [r for r in json.loads(out)["runs"] if r["action"] == 145]
    assert (run["entity"], run["ran"]) == ("RhE", 130)  # what the run records
