"""Access to the reference games in ``../shared`` for the tests.

``ReferenceGames("18Rhl")`` finds a title's exports and oracle traces by short
name (``"end_bank"``, ``"seed_opening"``, ``"g00"`` for the generated games,
``"generated2/g401"`` or ``"released/g02"`` for the later batches)
and replays an export to a chosen action.  Tests that use them carry the
``needs_shared`` mark, so they skip with a message when ``../shared`` is absent.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import pytest

from rhineland.engine.actions import Action
from rhineland.engine.game import Game
from rhineland.io.export import Export, load_export, read_json, replay
from rhineland.io.state_view import game_state
from rhineland.sim.invariants import (  # noqa: F401 (re-exported for the tests)
    invariant_errors,
    total_money,
)

SHARED = Path(__file__).resolve().parents[1].parent / "shared"

needs_shared = pytest.mark.skipif(
    not SHARED.is_dir(), reason=f"reference games not found at {SHARED}"
)


class ReferenceGames:
    """One title's reference games: exports, traces, positions."""

    def __init__(self, title: str) -> None:
        self.title = title

    def fixture_path(self, name: str) -> Path:
        if "/" in name:  # "generated2/g401", "released/g02": a batch folder and a game
            folder, short = name.split("/")
            return SHARED / "fixtures" / folder / self.title / f"{self.title}_{short}.json"
        if name.startswith("g"):
            return SHARED / "fixtures" / "generated" / self.title / f"{self.title}_{name}.json"
        return SHARED / "fixtures" / self.title / f"{self.title}_{name}.json"

    def trace_path(self, name: str) -> Path:
        if "/" in name:
            folder, short = name.split("/")
            return SHARED / "oracle" / folder / f"{self.title}_{short}.trace.json"
        if name.startswith("g"):
            return SHARED / "oracle" / "generated" / f"{self.title}_{name}.trace.json"
        return SHARED / "oracle" / f"{self.title}_{name}.trace.json"

    @functools.cache  # noqa: B019  (a handful of module-level instances)
    def export(self, name: str) -> Export:
        return load_export(self.fixture_path(name))

    @functools.cache  # noqa: B019
    def trace(self, name: str) -> dict[int, dict[str, Any]]:
        return {e["action_id"]: e for e in read_json(self.trace_path(name))["trace"]}

    def position(self, name: str, until: int) -> Game:
        """Game ``name`` replayed up to action ``until`` included."""
        game = replay(self.export(name), until=until)
        assert game.actions[-1].id == until
        return game

    def action(self, name: str, action_id: int) -> Action:
        return next(a for a in self.export(name).actions if a.id == action_id)

    def trace_entry(self, name: str, action_id: int) -> dict[str, Any]:
        return self.trace(name)[action_id]


def check_invariants(game: Game, start_money: int) -> None:
    """Money conserved, each corporation's certificates sum to 100%, and no negative cash
    except an 18Rhl treasury in receivership (its debt) and a broken bank
    (:func:`rhineland.sim.invariants.invariant_errors`)."""
    errors = invariant_errors(game, start_money)
    assert not errors, "; ".join(errors)


def fingerprint(game: Game) -> Any:
    """Everything a caller can see: the trace-shaped state, every cash amount, the log,
    and whose turn it is in which step."""
    rnd = game.state.round
    current = rnd.current_entity(game) if rnd is not None else None
    return (
        copy.deepcopy(game_state(game)),
        [(p.id, p.cash, list(p.companies)) for p in game.players],
        {s: (c.cash, [t.id for t in c.trains], list(c.tokens))
         for s, c in game.corporations.items()},
        game.bank.cash,
        len(game.log),
        len(game.actions),
        rnd.label if rnd is not None else None,
        rnd.step_name(game) if rnd is not None else None,
        getattr(current, "id", getattr(current, "sym", None)),
    )
