"""The ``rhineland`` command: replay summaries, ``--json``, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from reference import needs_shared
from rhineland.cli.main import cli

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
SEED = SHARED / "fixtures" / "18Rhl" / "18Rhl_seed_opening.json"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def seed_file() -> Path:
    if not SEED.exists():
        pytest.skip(f"reference games not found at {SHARED}")
    return SEED


def test_replay_json_values_equal_export_result(seed_file: Path) -> None:
    code, out, _ = run("replay", str(seed_file), "--json")
    assert code == 0
    state = json.loads(out)
    expected = json.loads(seed_file.read_text())["result"]
    assert {str(p["id"]): p["value"] for p in state["players"]} == expected
    assert state["title"] == "18Rhl"
    assert state["finished"] is False
    assert state["last_action_id"] == 42
    assert {c["sym"] for c in state["corporations"]} == {"ADR", "RhE"}


def test_replay_until_stops_after_that_action(seed_file: Path) -> None:
    code, out, _ = run("replay", str(seed_file), "--json", "--until", "9")
    assert code == 0
    state = json.loads(out)
    assert state["last_action_id"] == 9
    p1 = next(p for p in state["players"] if p["id"] == 1)
    assert p1["cash"] == 270  # P1 parred ADR at 80M: 430M - 160M


def test_replay_summary(seed_file: Path) -> None:
    code, out, _ = run("replay", str(seed_file))
    assert code == 0
    assert "42 actions replayed" in out


def test_truncated_json_is_a_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"title": "18Rhl", "players": [')
    code, out, err = run("replay", str(bad))
    assert code == 2
    assert err.count("\n") == 1 and "not valid JSON" in err
    assert "Traceback" not in err + out


def test_unknown_title_is_a_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"title": "1830", "players": [], "actions": []}))
    code, _, err = run("replay", str(bad))
    assert code == 2
    assert "unknown title '1830'" in err


def test_unknown_action_type_is_a_one_line_error(tmp_path: Path, seed_file: Path) -> None:
    data = json.loads(seed_file.read_text())
    data["actions"][3]["type"] = "fly"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    code, _, err = run("replay", str(bad))
    assert code == 2
    assert "unknown action type 'fly'" in err
    assert err.startswith(f"error: action {data['actions'][3]['id']} (fly): type: ")
    assert err.count("\n") == 1
    # --json names the action's id, as for any other malformed field
    code, _, err = run("replay", str(bad), "--json")
    assert code == 2
    error = json.loads(err)["error"]
    assert (error["kind"], error["rule"]) == ("bad_input", "input.action")
    assert error["action_id"] == data["actions"][3]["id"]


def test_illegal_action_names_the_action(tmp_path: Path, seed_file: Path) -> None:
    data = json.loads(seed_file.read_text())
    data["actions"][0]["price"] = 5  # PWB costs 20M
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    code, _, err = run("replay", str(bad))
    assert code == 1
    assert "action 1" in err and "20M" in err


def test_usage_errors_are_one_line(seed_file: Path) -> None:
    code, _, err = run("replay", str(seed_file), "--until", "abc")
    assert code == 2
    assert err.strip().splitlines() == [
        "error: Invalid value for '--until': 'abc' is not a valid integer."
    ]
    code, _, err = run("bogus")
    assert (code, err.strip()) == (2, "error: No such command 'bogus'.")


@pytest.mark.parametrize("until", ["0", "43", "99999"])
def test_replay_until_an_unknown_action_id_is_an_error(seed_file: Path, until: str) -> None:
    code, out, err = run("replay", str(seed_file), "--until", until)
    assert code == 2
    assert out == ""
    assert err.strip() == f"error: the export has no action {until}"


@needs_shared
def test_summary_leaves_out_runs_undone_later() -> None:
    """18Rhl end_bank: GVE's run at #191 in OR 6.1 is undone by #194-#197 and run again
    at #199.  Stopped at #197, the summary shows RhE's run only; the header counts the
    197 actions replayed."""
    game_file = str(SHARED / "fixtures" / "18Rhl" / "18Rhl_end_bank.json")
    code, out, _ = run("replay", game_file, "--until", "197")
    assert code == 0
    assert out.splitlines()[0] == "18Rhl: 197 actions replayed (last id 197)"
    assert "  OR 6.1: RhE 230M payout" in out.splitlines()
    code, out, _ = run("replay", game_file, "--until", "1")
    assert out.splitlines()[0] == "18Rhl: 1 action replayed (last id 1)"


@needs_shared
@pytest.mark.parametrize("page", ["README.md", "docs/python-api.md"])
def test_readme_python_example_runs(page: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first Python block of the README and of the API page, run as written from the
    project root."""
    root = Path(__file__).resolve().parents[1]
    text = (root / page).read_text()
    start = text.index("```python\n") + len("```python\n")
    code = text[start : text.index("```", start)]
    monkeypatch.chdir(root)
    namespace: dict[str, object] = {}
    exec(compile(code, page, "exec"), namespace)
    assert namespace["best"].revenue == 760  # type: ignore[attr-defined]


@needs_shared
def test_summary_of_a_finished_game_shows_the_broken_bank_and_scores() -> None:
    """1893 end_bank ends when the bank breaks; the bank is 2,545M short at the end."""
    code, out, _ = run("replay", str(SHARED / "fixtures" / "1893" / "1893_end_bank.json"))
    assert code == 0
    lines = out.splitlines()
    assert "state: OR 7.2, phase 6, bank broken (-2545M), finished (bank)" in lines
    assert lines[lines.index("scores:") + 1].split()[:2] == ["Player", "3"]


@needs_shared
def test_replay_reports_the_actions_accepted_under_a_leniency() -> None:
    game_file = str(SHARED / "fixtures" / "generated" / "18Rhl" / "18Rhl_g03.json")
    code, out, _ = run("replay", game_file, "--until", "5")
    assert code == 0
    lines = out.splitlines()
    i = lines.index("accepted under a leniency (the reference engine's, not the rules): 2 actions")
    assert lines[i + 1] == ("  action 2: the cheapest item PWB is bought at its price 20M, not 30M "
                            "(accepted under leniency auction.buy_price)")
    code, out, _ = run("replay", game_file, "--until", "5", "--json")
    assert [u["action_id"] for u in json.loads(out)["leniencies"]] == [2, 3]
    code, out, _ = run("replay", str(SEED))
    assert "leniency" not in out
