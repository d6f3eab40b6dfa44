"""Reading and writing 18xx.games export JSON.

An export holds ``title``, ``players`` (``id``, ``name``), ``settings``
(``seed``, ``optional_rules``), ``actions`` and, for finished games,
``result`` (player id -> score).  :func:`load_export` parses and validates
the shape (raising :class:`~rhineland.errors.ExportError` with a one-line
message); :func:`game_from_export` builds the :class:`~rhineland.engine.game.Game`;
:func:`replay` runs every action with full checks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from rhineland.engine.actions import Action, Undo, action_from_json
from rhineland.engine.game import Game
from rhineland.engine.leniency import REPLAY_LENIENCIES
from rhineland.errors import ExportError, GameError
from rhineland.titles import get_title


@dataclass
class Export:
    """A parsed export: title, players ``(id, name)``, seed, optional rules, actions."""

    title: str
    players: list[tuple[int, str]]
    seed: int
    optional_rules: list[str]
    actions: list[Action]
    result: dict[str, int] | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


def read_json(path: str | Path) -> Any:
    """Parse a JSON file; raises ``ExportError`` (one line) when missing or malformed."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ExportError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise ExportError(f"{path} is not valid JSON: {exc}") from None


def parse_export(data: Any) -> Export:
    """Validate an export's shape and build its actions."""
    if not isinstance(data, dict):
        raise ExportError("an export must be a JSON object")
    for key in ("title", "players", "actions"):
        if key not in data:
            raise ExportError(f"the export has no {key!r}")
    if not isinstance(data["players"], list) or not isinstance(data["actions"], list):
        raise ExportError("'players' and 'actions' must be lists")
    settings = data.get("settings") or {}
    get_title(str(data["title"]), settings.get("optional_rules") or [])  # unknown title check
    try:
        players = [(int(p["id"]), str(p["name"])) for p in data["players"]]
    except (KeyError, TypeError, ValueError):
        raise ExportError("each player needs an 'id' and a 'name'") from None
    actions = [action_from_json(a) for a in data["actions"]]
    result = data.get("result")
    return Export(
        title=str(data["title"]),
        players=players,
        seed=int(settings.get("seed") or 0),
        optional_rules=list(settings.get("optional_rules") or []),
        actions=actions,
        result=result if isinstance(result, dict) else None,
        raw=data,
    )


def load_export(path: str | Path) -> Export:
    """Read and parse an export file (see :func:`parse_export`)."""
    return parse_export(read_json(path))


def game_from_export(export: Export, *, keep_history: bool = False,
                     lenient: bool = True) -> Game:
    """A fresh game with the export's title, players, seed and optional rules.

    With ``lenient`` (the default for a replay) the game accepts the actions the
    reference engine accepted beyond its own interface, each under a named
    leniency it records (:mod:`rhineland.engine.leniency`).
    """
    title = get_title(export.title, export.optional_rules)
    game = Game(title, export.players, export.seed, keep_history=keep_history)
    if lenient:
        game.leniencies = REPLAY_LENIENCIES
    return game


class ReplayError(GameError):
    """An action of an export is illegal: carries the action id."""

    def __init__(self, action_id: int | None, reason: str) -> None:
        super().__init__(f"action {action_id}: {reason}")
        self.action_id = action_id
        self.reason = reason


def to_export(game: Game, *, title: str | None = None) -> dict[str, Any]:
    """The game as an 18xx.games export: title, players, settings, every action processed.

    Loading it with :func:`parse_export` and replaying gives the same state.
    ``result`` (player id -> score) is included once the game is finished.
    """
    out: dict[str, Any] = {
        "title": title or game.data.title,
        "players": [{"id": pid, "name": name} for pid, name in game.seats],
        "settings": {"seed": game.seed, "optional_rules": list(game.title.optional_rules)},
        "actions": [a.to_json() for a in game.actions],
        "status": "finished" if game.finished else "active",
    }
    if game.finished:
        out["result"] = {str(p.id): game.player_value(p) for p in game.players}
    return out


def write_export(game: Game, path: str | Path) -> None:
    """Write :func:`to_export` of ``game`` to ``path`` as JSON."""
    Path(path).write_bytes(orjson.dumps(to_export(game), option=orjson.OPT_INDENT_2))


def _undo_walk(actions: list[Action]) -> tuple[set[int], list[int]]:
    """Walk the undo/redo log: (positions ever reverted, positions still standing)."""
    targets: set[int] = set()
    live: list[int] = []  # positions of live game actions
    batches: list[list[int]] = []
    for i, a in enumerate(actions):
        if isinstance(a, Undo):
            batch: list[int] = []
            if a.action_id is None:
                if live:
                    batch.append(live.pop())
            else:
                while live and (actions[live[-1]].id or 0) > a.action_id:
                    batch.insert(0, live.pop())
            targets.update(batch)
            batches.append(batch)
        elif a.type == "redo":
            if batches:
                live.extend(batches.pop())
        elif a.type != "message":
            live.append(i)
            batches.clear()  # a new action ends any redo
    return targets, live


def undo_targets(actions: list[Action]) -> set[int]:
    """Positions of the actions a later undo (or redo) of the export reverts.

    Replays keep an undo snapshot before these actions only, which keeps a
    replay fast; a redo re-applies from the snapshots of the batch it restores.
    """
    return _undo_walk(actions)[0]


def standing_positions(actions: list[Action]) -> set[int]:
    """Positions of the game actions in ``actions`` that stand at its end: every
    action except messages, undos and redos, and those an undo reverted (and no
    redo restored).  Pass a prefix of an export's actions for a position mid-game."""
    return set(_undo_walk(actions)[1])


def action_index(export: Export, action_id: int) -> int:
    """Position of the action with id ``action_id`` in the export.

    Raises :class:`ExportError` when the export has no such action.
    """
    for i, a in enumerate(export.actions):
        if a.id == action_id:
            return i
    raise ExportError(f"the export has no action {action_id}")


def replay_iter(
    export: Export, game: Game | None = None, until: int | None = None
) -> Iterator[tuple[int, Action, Game]]:
    """Replay the export, yielding ``(index, action, game)`` after each action.

    Undone actions are applied live and then reverted, as on the server.
    Raises :class:`ReplayError` at the first illegal action and
    :class:`ExportError` when ``until`` is not an action id of the export.
    """
    if until is not None:
        action_index(export, until)
    if game is None:
        game = game_from_export(export)
    targets = undo_targets(export.actions)
    for i, action in enumerate(export.actions):
        try:
            game.process(action, atomic=False, history=i in targets)
        except GameError as exc:
            raise ReplayError(action.id, str(exc)) from None
        yield i, action, game
        if until is not None and action.id == until:
            return


def replay(export: Export, until: int | None = None,
           on_action: Callable[[int, Action, Game], None] | None = None) -> Game:
    """Replay every action (or up to id ``until``) and return the game.

    Actions the rules refuse but the reference engine accepted are accepted under
    a named leniency; ``game.leniencies_used`` lists each of them.
    """
    game: Game | None = None
    for i, action, g in replay_iter(export, until=until):
        game = g
        if on_action is not None:
            on_action(i, action, g)
    if game is None:
        game = game_from_export(export)
    return game
