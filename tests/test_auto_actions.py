"""The automatic actions the reference engine records in ``auto_actions``, made by our
rules: 18Rhl's RhE link check (``destination_connection``) after every track step while
RhE's bonus is pending.

The reference games are the judge: each is replayed with its recorded
``destination_connection`` records taken out, and the export we write must carry them
again, the same entity and result on the same actions (the reference refuses a game
without them: "Blocking step Check for Aachen-Düren-Köln connection cannot process
action buy_train").
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from reference import needs_shared
from rhineland.io.export import parse_export, read_json, replay, to_export
from rhineland.sim.selfplay import play
from test_oracle_replays import GAMES_18RHL, SHARED

DC = "destination_connection"


def _link_checks(actions: list[dict[str, Any]]) -> dict[int, list[tuple[Any, list[str]]]]:
    """Action id -> its recorded link checks (entity, corporations), in order."""
    out: dict[int, list[tuple[Any, list[str]]]] = {}
    for a in actions:
        checks = [(x["entity"], list(x["corporations"]))
                  for x in a.get("auto_actions") or [] if x["type"] == DC]
        if checks:
            out[a["id"]] = checks
    return out


def _without_link_checks(data: dict[str, Any]) -> dict[str, Any]:
    stripped = copy.deepcopy(data)
    for a in stripped["actions"]:
        autos = [x for x in a.get("auto_actions") or [] if x["type"] != DC]
        if autos:
            a["auto_actions"] = autos
        else:
            a.pop("auto_actions", None)
    return stripped


@needs_shared
@pytest.mark.parametrize("export,trace", [
    pytest.param(e, t, id=Path(e).stem) for e, t in GAMES_18RHL])
def test_link_checks_are_written_where_the_reference_records_them(export: str,
                                                                  trace: str) -> None:
    data = read_json(SHARED / "fixtures" / export)
    recorded = _link_checks(data["actions"])
    assert recorded or not any(a["type"] == "par" and a.get("corporation") == "RhE"
                               for a in data["actions"])
    # live: the undone actions are applied as they were made, and carry their checks too
    game = replay(parse_export(_without_link_checks(data)), live=True)
    written = _link_checks(to_export(game)["actions"])
    assert written == recorded


def test_a_game_played_here_carries_its_link_checks_and_replays() -> None:
    result = play("18Rhl", 200, players=4, max_actions=400)
    out = to_export(result.game)
    checks = _link_checks(out["actions"])
    assert checks, "RhE was parred and operated: its link is checked after track steps"
    corps = set(result.game.corporations)
    assert all(entity in corps and linked in ([], ["RhE"])
               for found in checks.values() for entity, linked in found)
    again = replay(parse_export(out))
    assert to_export(again)["actions"] == out["actions"]



def test_the_export_has_the_header_18xx_games_writes() -> None:
    """The header of a real 18xx.games export (the keys its "Import hotseat game" reads:
    title, players, min/max players, settings with the seed and optional rules), filled
    from the game; a finished game adds its result and end reason."""
    real = read_json(SHARED / "fixtures" / "18Rhl" / "18Rhl_end_bank.json")
    result = play("18Rhl", 200, players=4, max_actions=50)
    out = to_export(result.game)
    missing = set(real) - set(out) - {"id", "result", "loaded", "created_at", "updated_at",
                                      "finished_at", "game_end_reason"}
    assert missing == set()
    assert set(real["settings"]) <= set(out["settings"])
    assert (out["min_players"], out["max_players"], out["status"]) == (4, 4, "active")
    assert out["round"] in ("Stock Round", "Operating Round", "Auction Round")
    assert out["acting"] == result.game.acting_entities()
    assert to_export(replay(parse_export(out))) == out
