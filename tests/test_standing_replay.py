"""Loading an export as 18xx.games does: only the actions standing at the end are applied.

18xx.games (``Engine::Game::Base.filtered_actions``) drops every action an undo reverted
before it replays an export, so an undone action is never checked: an export whose
undone action the rules refuse still loads.  ``replay`` does the same (the others are
kept unapplied in ``game.actions``); ``replay(live=True)`` applies every action as it
was made and reverts the undone ones.  Both end in the same state.
"""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest

from reference import SHARED, needs_shared
from rhineland.errors import GameError
from rhineland.io.export import (
    ReplayError,
    parse_export,
    replay,
    replay_iter,
    standing_positions,
    to_export,
)
from rhineland.io.state_view import game_state

pytestmark = needs_shared

EXPORTS = sorted(p for p in (SHARED / "fixtures").rglob("*.json") if p.name != "manifest.json")
WITH_UNDOS = [p for p in EXPORTS
              if any(a.get("type") == "undo" for a in orjson.loads(p.read_bytes())["actions"])]
END_BANK = SHARED / "fixtures" / "18Rhl" / "18Rhl_end_bank.json"


def _undone_illegal_lay() -> dict[str, Any]:
    """The first 200 actions of 18Rhl_end_bank (GVE has just paid out in OR 6.1 and must
    buy a train), then a tile lay by GVE (illegal in its buy-train step) and an undo of it."""
    data = orjson.loads(END_BANK.read_bytes())
    data = copy.deepcopy(data)
    actions = data["actions"][:200]
    at = actions[-1]["created_at"]
    actions += [
        {"type": "lay_tile", "entity": "GVE", "entity_type": "corporation", "id": 201,
         "hex": "J7", "tile": "9-5", "rotation": 0, "created_at": at},
        {"type": "undo", "entity": actions[0]["entity"], "entity_type": "player",
         "id": 202, "created_at": at},
    ]
    data["actions"] = actions
    data.pop("result", None)
    data["status"] = "active"
    return data


@pytest.mark.parametrize("path", WITH_UNDOS, ids=lambda p: p.stem)
def test_a_load_applies_the_standing_actions_and_ends_as_the_live_replay(path: Any) -> None:
    export = parse_export(orjson.loads(path.read_bytes()))
    standing = standing_positions(export.actions)
    assert len(standing) < len(export.actions)  # the export undoes something
    loaded = replay(export)
    live = replay(export, live=True)
    assert game_state(loaded) == game_state(live)
    assert [a.id for a in loaded.actions] == [a.id for a in export.actions]
    if export.result:
        assert {str(k): v for k, v in loaded.result().items()} == export.result
    # the export written again is the one read: the unapplied actions are kept as written
    assert to_export(loaded)["actions"] == to_export(live)["actions"]


def test_an_undone_illegal_action_does_not_stop_a_load() -> None:
    data = _undone_illegal_lay()
    export = parse_export(data)
    # live, the lay is refused where it was made: GVE is in its buy-train step
    with pytest.raises(ReplayError) as err:
        replay(export, live=True)
    assert err.value.action_id == 201 and err.value.rule == "or.step"
    # loaded as 18xx.games loads it (its loader gives these player values)
    game = replay(export)
    assert {p.id: game.player_value(p) for p in game.players} == {
        13627: 1604, 579: 1588, 635: 1310}
    before = replay(parse_export({**data, "actions": data["actions"][:200]}))
    assert game_state(game) == game_state(before)
    assert [a.id for a in game.actions][-3:] == [200, 201, 202]


def test_the_yields_of_a_load_show_an_undone_action_unapplied() -> None:
    export = parse_export(_undone_illegal_lay())
    states = {action.id: game_state(g) for _, action, g in replay_iter(export, standing=True)}
    assert states[201] == states[200] == states[202]


def test_a_loaded_game_has_nothing_to_undo_from_before_the_load() -> None:
    game = replay(parse_export(_undone_illegal_lay()))
    state = game_state(game)
    with pytest.raises(GameError) as err:
        game.undo()
    assert err.value.rule == "undo.empty"
    assert game_state(game) == state
