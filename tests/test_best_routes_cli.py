"""``rhineland routes`` and ``rhineland replay --best-routes`` (issue 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rhineland.cli.main import cli

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
RHL = SHARED / "fixtures" / "18Rhl" / "18Rhl_end_bank.json"
COLOGNE = SHARED / "fixtures" / "1893" / "1893_end_bank.json"

pytestmark = pytest.mark.skipif(
    not (RHL.exists() and COLOGNE.exists()), reason=f"reference games not found at {SHARED}"
)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_routes_json_shape_and_bonuses() -> None:
    # 18Rhl action 425: ADR's 5-train; the best run takes the Montan bonus
    code, out, _ = run("routes", str(RHL), "--before", "425", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["entity"] == "ADR"
    assert data["revenue"] == 370
    assert data["proof"]["bound"] == 370
    (route,) = data["routes"]
    assert set(route) >= {"train", "hexes", "stops", "revenue", "bonuses"}
    assert route["train"] == "5-0"
    assert route["revenue"] == route["base"] + sum(b["amount"] for b in route["bonuses"])
    assert [b["name"] for b in route["bonuses"]] == ["montan"]
    assert route["hexes"][0] in route["stops"][0]


def test_routes_text_itemises_ferry_penalty() -> None:
    code, out, _ = run("routes", str(RHL), "--before", "191")
    assert code == 0
    assert out.startswith("OR 6.1 GVE: best 240M")
    assert "- trajekt 50M" in out
    assert "total 240M" in out


def test_routes_entity_option() -> None:
    code, out, _ = run("routes", str(RHL), "--before", "425", "--entity", "GVE", "--json")
    assert code == 0
    assert json.loads(out)["entity"] == "GVE"


def test_routes_errors_are_one_line() -> None:
    code, _, err = run("routes", str(RHL), "--before", "999999")
    assert code == 2 and err.startswith("error:") and err.count("\n") == 1
    code, _, err = run("routes", str(RHL), "--before", "425", "--entity", "NOPE")
    assert code == 2 and err.startswith("error: --entity: no company 'NOPE'")
    assert err.count("\n") == 1


def test_replay_best_routes_report() -> None:
    code, out, _ = run("replay", str(RHL), "--best-routes")
    assert code == 0
    lines = out.splitlines()
    assert "OR 8.1 ADR ran 290M, best 370M (action 425, -80M)" in lines
    assert "84 runs, 51 below the best" in lines  # 5 of the 89 runs were undone
    assert any(line.split()[:2] == ["ADR", "ran"] for line in lines)
    code, out, _ = run("replay", str(COLOGNE), "--best-routes", "--json")
    data = json.loads(out)
    assert len(data["runs"]) == 62
    assert all(r["best"] == r["ran"] for r in data["runs"])  # 1893 players ran the optimum


def test_best_routes_leaves_out_runs_undone_later() -> None:
    """18Rhl end_bank: GVE's run #191 is undone (#194-#197) and run again at #199, KEG's
    #454 undone (#456-#457) and run again at #458: only the standing runs count (84 of
    the 89 run_routes actions)."""
    code, out, _ = run("replay", str(RHL), "--best-routes", "--json")
    assert code == 0
    data = json.loads(out)
    actions = [r["action"] for r in data["runs"]]
    assert 191 not in actions and 454 not in actions
    assert 199 in actions and 458 in actions
    assert len(actions) == 84
    assert data["totals"]["GVE"]["ran"] == 3840
    assert data["totals"]["KEG"]["ran"] == 1970
