"""Tile-lay and token legality against the reference engine's complete legal sets.

For every decision point of ``../shared/oracle/legal/*.legal.json`` the board is
rebuilt from the trace entry just before that action, the :class:`LayContext`
from the trace (phase, cash, president, private owners) plus the export's
earlier actions (which private abilities are spent, replayed with the live
undo/redo semantics), and our legal set must equal the oracle's ``lays`` /
``tokens`` exactly (rotations are absolute; the header keeps rotations that
draw the same track apart, and so do we).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from rhineland.board.board import Board
from rhineland.board.legality import (
    BoardRules,
    LayContext,
    PrivateState,
    check_tile_lay,
    check_token,
    legal_tile_lays,
    legal_tokens,
)
from rhineland.engine.titledata import TitleData
from rhineland.errors import GameError
from rhineland.io.trace import board_from_trace_state
from rhineland.titles import get_title
from rhineland.titles.g18rhl.board_rules import RhlBoardRules
from rhineland.titles.g1893.board_rules import CologneBoardRules

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
LEGAL_FILES = ("18Rhl_seed_opening", "18Rhl_end_bank", "1893_end_bank")
FIXTURES = {
    "18Rhl_seed_opening": "18Rhl/18Rhl_seed_opening.json",
    "18Rhl_end_bank": "18Rhl/18Rhl_end_bank.json",
    "1893_end_bank": "1893/1893_end_bank.json",
}
RULES: dict[str, type[BoardRules]] = {"18Rhl": RhlBoardRules, "1893": CologneBoardRules}


def _need_shared() -> None:
    if not (SHARED / "oracle" / "legal").is_dir():
        pytest.skip(f"shared oracle data not found at {SHARED}")


@cache
def _load(name: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    legal = json.loads((SHARED / "oracle" / "legal" / f"{name}.legal.json").read_text())
    trace = json.loads((SHARED / "oracle" / f"{name}.trace.json").read_text())
    fixture = json.loads((SHARED / "fixtures" / FIXTURES[name]).read_text())
    return legal, trace, fixture


@cache
def _rules(title: str, options: tuple[str, ...]) -> tuple[TitleData, BoardRules]:
    data = get_title(title, options).data
    return data, RULES[title](data)


def active_actions(actions: list[dict[str, Any]], upto: int) -> list[dict[str, Any]]:
    """Actions ``[0, upto)`` still in effect under live undo/redo semantics.

    An undo without ``action_id`` removes the latest still-active non-message
    action; with ``action_id`` N it keeps actions up to id N; a redo restores
    the batch the latest undo removed; any other action clears the redo stack.
    """
    active: list[dict[str, Any]] = []
    redo: list[list[dict[str, Any]]] = []
    for a in actions[:upto]:
        kind = a["type"]
        if kind == "undo":
            if "action_id" in a:
                keep = [x for x in active if x["id"] <= a["action_id"]]
                removed = [x for x in active if x["id"] > a["action_id"]]
                active = keep
            else:
                idx = max((i for i, x in enumerate(active) if x["type"] != "message"), default=None)
                removed = [] if idx is None else [active.pop(idx)]
            redo.append(removed)
        elif kind == "redo":
            if redo:
                active.extend(redo.pop())
        elif kind == "message":
            continue
        else:
            redo.clear()
            active.append(a)
    return active


def board_at(data: TitleData, rules: BoardRules, state: Mapping[str, Any]) -> Board:
    """The trace state's board plus the setup tokens of entities the trace does not list."""
    board = board_from_trace_state(data, state)
    listed = set(state.get("corporations", {})) | set(state.get("minors", {}))
    for hex_id, ci, sym in rules.setup_tokens():
        if sym not in listed and sym not in board.tokens_in(hex_id, ci):
            board.add_token(hex_id, ci, sym)
    return board


def context_at(name: str, point: Mapping[str, Any]) -> LayContext:
    """The :class:`LayContext` of one oracle decision point."""
    legal, trace, fixture = _load(name)
    title = legal["title"]
    data, rules = _rules(title, tuple(trace.get("optional_rules", ())))
    idx = point["index"]
    state = trace["initial"] if idx == 0 else trace["trace"][idx - 1]
    board = board_at(data, rules, state)
    entity = point["entity"]
    corps = state.get("corporations", {})
    minors = state.get("minors", {})
    if entity in corps:
        kind, rec = "corporation", corps[entity]
        president = rec.get("president")
        spec_tokens = data.corporation(entity).tokens
        left = rec.get("tokens_left", len(spec_tokens) - len(rec.get("tokens", [])))
    else:
        kind, rec = "minor", minors[entity]
        president = rec.get("owner")
        spec_tokens = next(m.tokens for m in data.minors if m.sym == entity)
        left = len(spec_tokens) - len(rec.get("tokens", []))
    next_price = spec_tokens[len(spec_tokens) - left] if left > 0 else None
    done = active_actions(fixture["actions"], idx)
    used: set[str] = set()
    for a in done:
        if a["type"] == "lay_tile":
            if a.get("entity_type") == "company":
                used.add(a["entity"])
            if a["hex"] == "E14":
                used.add("PWB")
    privates = {
        sym: PrivateState(
            sym,
            owner=c.get("owner") if c.get("owner") not in (None, "bank") else None,
            closed=bool(c.get("closed")),
            used=sym in used,
        )
        for sym, c in state.get("companies", {}).items()
    }
    phase = point["phase"]
    colors = next(p.tiles for p in data.phases if p.name == phase)
    return LayContext(
        board=board,
        data=data,
        rules=rules,
        entity=entity,
        entity_kind=kind,
        president=president,
        phase=phase,
        tile_colors=colors,
        cash=point["entity_cash"],
        privates=privates,
        next_token_price=next_price,
    )


def lay_key(lay: Mapping[str, Any]) -> tuple[str, str, int, int, str]:
    return (lay["hex"], lay["tile"], lay["rotation"], lay["cost"], lay.get("special") or "")


@pytest.mark.parametrize("name", LEGAL_FILES)
def test_track_points(name: str) -> None:
    """Every track decision point: our legal lays equal the reference's, costs included."""
    _need_shared()
    legal, _, _ = _load(name)
    bad = []
    points = [p for p in legal["points"] if p["kind"] == "track"]
    for p in points:
        ctx = context_at(name, p)
        ours = {(x.hex, x.tile, x.rotation, x.cost, x.special) for x in legal_tile_lays(ctx)}
        ref = {lay_key(x) for x in p["lays"]}
        if ours != ref:
            bad.append((p["index"], sorted(ours - ref)[:5], sorted(ref - ours)[:5]))
    assert not bad, f"{len(bad)}/{len(points)} track points differ: {bad[:5]}"


@pytest.mark.parametrize("name", LEGAL_FILES)
def test_token_points(name: str) -> None:
    """Every token decision point: our legal tokens equal the reference's, prices included."""
    _need_shared()
    legal, _, _ = _load(name)
    bad = []
    points = [p for p in legal["points"] if p["kind"] == "token"]
    for p in points:
        ctx = context_at(name, p)
        ours = {(t.hex, t.city, t.price) for t in legal_tokens(ctx)}
        ref = {(t["hex"], t["city"], t["price"]) for t in p["tokens"]}
        if ours != ref:
            bad.append((p["index"], sorted(ours - ref), sorted(ref - ours)))
    assert not bad, f"{len(bad)}/{len(points)} token points differ: {bad[:5]}"


REFUSAL_RULES = {
    "Must use new track": "track.restriction",
    "cannot spend": "track.cash",
    "is blocked by": "track.hex",
}


@pytest.mark.parametrize("name", LEGAL_FILES)
def test_checks_agree_with_sets(name: str) -> None:
    """check_tile_lay/check_token accept the legal moves (cost/price included) and refuse
    the reference's refusals for the same rule; lays it accepts but never offers (phase
    colours, fixed rotations, private lays outside the offer) are refused too.
    """
    _need_shared()
    legal, _, _ = _load(name)
    for p in legal["points"]:
        ctx = context_at(name, p)
        if p["kind"] == "track":
            for lay in p["lays"][::7]:
                cost = check_tile_lay(
                    ctx, lay["hex"], lay["tile"], lay["rotation"], lay.get("special")
                )
                assert cost == lay["cost"]
            for lay in p.get("offered_but_refused", [])[::5]:
                rule = next(r for k, r in REFUSAL_RULES.items() if k in lay["refused"])
                with pytest.raises(GameError) as err:
                    check_tile_lay(
                        ctx, lay["hex"], lay["tile"], lay["rotation"], lay.get("special")
                    )
                assert err.value.rule == rule, (p["index"], lay, str(err.value))
            for lay in p.get("accepted_not_offered", [])[::9]:
                with pytest.raises(GameError):
                    check_tile_lay(
                        ctx, lay["hex"], lay["tile"], lay["rotation"], lay.get("special")
                    )
        else:
            for t in p["tokens"]:
                assert check_token(ctx, t["hex"], t["city"]) == t["price"]
            for t in p.get("available_hex_but_refused", []):
                with pytest.raises(GameError) as terr:
                    check_token(ctx, t["hex"], t["city"])
                assert terr.value.rule == "token.place"


def test_active_actions_undo_redo() -> None:
    """Undo removes the last action (or back to an id), redo restores, a new action clears."""
    acts = [
        {"type": "lay_tile", "id": 1},
        {"type": "pass", "id": 2},
        {"type": "undo", "id": 3},
        {"type": "redo", "id": 4},
        {"type": "pass", "id": 5},
        {"type": "undo", "id": 6, "action_id": 1},
        {"type": "pass", "id": 7},
        {"type": "redo", "id": 8},
    ]
    assert [a["id"] for a in active_actions(acts, 3)] == [1]
    assert [a["id"] for a in active_actions(acts, 4)] == [1, 2]
    assert [a["id"] for a in active_actions(acts, 6)] == [1]
    assert [a["id"] for a in active_actions(acts, 8)] == [1, 7]
