"""The engine's own legal sets equal the reference's at every decision point.

``tests/test_legality.py`` checks the board rules on boards rebuilt from the
traces; here the games are replayed through :class:`Game` and, just before each
track or token action of ``../shared/oracle/legal/*.legal.json``, the legal
tile lays and token placements the engine offers (``Game.legal_tile_lays`` /
``Game.legal_tokens``) must equal the oracle's sets.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rhineland.io.export import game_from_export, load_export, undo_targets

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CASES = {
    "18Rhl_seed_opening": "18Rhl/18Rhl_seed_opening.json",
    "18Rhl_end_bank": "18Rhl/18Rhl_end_bank.json",
    "1893_end_bank": "1893/1893_end_bank.json",
}


def _lay_key(lay: Any) -> tuple[str, str, int, int, str]:
    if isinstance(lay, dict):
        return (lay["hex"], lay["tile"], lay["rotation"], lay["cost"], lay.get("special", ""))
    return (lay.hex, lay.tile, lay.rotation, lay.cost, lay.special)


@pytest.mark.parametrize("name", sorted(CASES))
def test_engine_legal_sets_equal_the_reference(name: str) -> None:
    legal_path = SHARED / "oracle" / "legal" / f"{name}.legal.json"
    if not legal_path.exists():
        pytest.skip(f"oracle legal sets not found at {legal_path}")
    points = {p["index"]: p for p in json.loads(legal_path.read_text())["points"]}
    export = load_export(SHARED / "fixtures" / CASES[name])
    game = game_from_export(export)
    targets = undo_targets(export.actions)
    checked = 0
    for i, action in enumerate(export.actions):
        point = points.get(i)
        if point is not None:
            current = game.round.current_entity(game)
            assert current.sym == point["entity"], f"action {action.id}: whose turn"
            if point["kind"] == "track":
                ours = sorted(_lay_key(lay) for lay in game.legal_tile_lays())
                theirs = sorted(_lay_key(lay) for lay in point["lays"])
            else:
                ours = sorted((t.hex, t.city, t.price) for t in game.legal_tokens())
                theirs = sorted((t["hex"], t["city"], t["price"]) for t in point["tokens"])
            assert ours == theirs, f"{name} before action {action.id} ({point['kind']})"
            checked += 1
        game.process(action, atomic=False, history=i in targets)
    assert checked == len(points)
