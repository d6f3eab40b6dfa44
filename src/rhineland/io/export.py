"""Reading and writing 18xx.games export JSON.

An export holds ``title``, ``players`` (``id``, ``name``), ``settings``
(``seed``, ``optional_rules``), ``actions`` and, for finished games,
``result`` (player id -> score).  :func:`load_export` parses and validates
everything before any action is applied (raising
:class:`~rhineland.errors.ExportError` with a one-line message, or its subclass
:class:`~rhineland.errors.ActionError` naming the action and the field);
:func:`game_from_export` builds the :class:`~rhineland.engine.game.Game`;
:func:`replay` runs every action with full checks (``trust_routes``: a run the route
rules reject is applied with its recorded revenue, as 18xx.games does, and listed
by :func:`trusted_runs`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Required

import orjson
from pydantic import ConfigDict, Strict, TypeAdapter, ValidationError, with_config
from typing_extensions import TypedDict

from rhineland.engine.actions import (
    Action,
    Refs,
    Undo,
    action_from_json,
    describe_action,
    found_text,
)
from rhineland.engine.game import Game
from rhineland.engine.leniency import REPLAY_LENIENCIES, TRUST_ROUTES, TrustedRun
from rhineland.engine.ruleset import EXPORT_KEY, REFERENCE, RULE_SETS
from rhineland.errors import ActionError, ExportError, GameError
from rhineland.titles import get_title


@dataclass
class Export:
    """A parsed export: title, players ``(id, name)``, seed, optional rules, actions,
    and the rule set (:mod:`rhineland.engine.ruleset`)."""

    title: str
    players: list[tuple[int, str]]
    seed: int
    optional_rules: list[str]
    actions: list[Action]
    result: dict[str, int] | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    rules: str = REFERENCE
    """The rule set (``settings.rhineland_rules``; absent in 18xx.games exports:
    ``reference``)."""


_BOM = b"\xef\xbb\xbf"


def read_bytes(path: str | Path) -> bytes:
    """The bytes of ``path`` (``"-"``: standard input); raises ``ExportError`` (one line)."""
    if str(path) == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise ExportError(f"cannot read {path}: {exc.strerror}", "input.file") from None


def parse_json(data: bytes, name: str = "the input") -> Any:
    """Parse JSON text (UTF-8, a leading byte order mark allowed); raises ``ExportError``
    naming the line and column of the first bad byte or character."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ExportError(
            f"{name} is not valid UTF-8: byte 0x{data[exc.start]:02x} at line {line}, "
            f"column {column} (byte {exc.start})", "input.encoding",
        ) from None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise ExportError(f"{name} is not valid JSON: {exc}", "input.json") from None


def read_json(path: str | Path) -> Any:
    """Read and parse a JSON file (``"-"``: standard input); raises ``ExportError``
    (one line) when it is missing, not UTF-8 or malformed."""
    return parse_json(read_bytes(path), "standard input" if str(path) == "-" else str(path))


@with_config(ConfigDict(extra="allow"))
class _PlayerRecord(TypedDict):
    id: Annotated[int, Strict()]
    name: Annotated[str, Strict()]


@with_config(ConfigDict(extra="allow"))
class _Settings(TypedDict, total=False):
    seed: Annotated[int, Strict()] | None
    optional_rules: list[Annotated[str, Strict()]] | None
    rhineland_rules: Annotated[str, Strict()] | None


@with_config(ConfigDict(extra="allow"))
class _Header(TypedDict, total=False):
    """The parts of an export besides its actions, as 18xx.games writes them."""

    title: Required[Annotated[str, Strict()]]
    players: Required[list[_PlayerRecord]]
    settings: _Settings | None
    actions: Required[list[Any]]
    result: Any


_HEADER = TypeAdapter(_Header)
_HEADER_EXPECT = {
    "title": "a title name",
    "players": "a list of players, each with an integer 'id' and a 'name'",
    "id": "a player id (an integer)",
    "name": "a player name (a string)",
    "settings": "an object (seed, optional_rules)",
    "seed": "an integer",
    "optional_rules": "a list of optional rule names",
    EXPORT_KEY: f"a rule set name ({', '.join(RULE_SETS)})",
    "actions": "a list of actions",
}


def _header_error(exc: ValidationError) -> ExportError:
    err = exc.errors(include_url=False)[0]
    loc = tuple(err["loc"])
    name = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
    last = next((p for p in reversed(loc) if isinstance(p, str)), "")
    if err["type"] == "missing":
        return ExportError(f"export: {name}: expected {_HEADER_EXPECT.get(last, 'a value')}, "
                           f"found nothing", "input.export")
    if loc and loc[-1] == last and last in _HEADER_EXPECT:
        expected = _HEADER_EXPECT[last]
    else:
        expected = err["msg"].removeprefix("Input should be ")
    return ExportError(f"export: {name or 'export'}: expected {expected}, "
                       f"found {found_text(err.get('input'))}", "input.export")


def _title(name: str, rules: list[str]) -> Any:
    """The title with these optional rules; ``ExportError`` naming the first rule it lacks."""
    try:
        return get_title(name, rules)
    except GameError:
        pass
    for i, rule in enumerate(rules):
        try:
            get_title(name, [rule])
        except GameError as exc:
            known = str(exc).partition("(known: ")[2].partition(")")[0]
            raise ExportError(
                f"export: settings.optional_rules[{i}]: expected an optional rule of {name} "
                f"({known}), found {found_text(rule)}", "input.optional_rules",
            ) from None
    raise AssertionError("unreachable")  # pragma: no cover


def parse_export(data: Any) -> Export:
    """Validate an export (its shape, title, players, settings and every action) and
    build its actions.

    The actions are checked in order and the first malformed one stops the parse
    with an :class:`~rhineland.errors.ActionError` naming it, the field, what was
    expected and what was found: a wrong type, a value out of range, a name the
    game does not have, an id not above the one before, an undo of an id the export
    does not have before it.  Nothing is applied: the rules are :func:`replay`'s.
    """
    if not isinstance(data, dict):
        raise ExportError(f"an export must be a JSON object, found {found_text(data)}",
                          "input.export")
    try:
        header = _HEADER.validate_python(data)
    except ValidationError as exc:
        raise _header_error(exc) from None
    settings = header.get("settings") or {}
    rules = list(settings.get("optional_rules") or [])
    rule_set = str(settings.get(EXPORT_KEY) or REFERENCE)
    if rule_set not in RULE_SETS:
        raise ExportError(
            f"export: settings.{EXPORT_KEY}: expected a rule set name "
            f"({', '.join(RULE_SETS)}), found {found_text(rule_set)}", "input.rules")
    title = _title(header["title"], rules)
    players = [(p["id"], p["name"]) for p in header["players"]]
    counts = sorted(title.data.players)
    if len(players) not in title.data.players:
        raise ExportError(
            f"export: players: expected {counts[0]} to {counts[-1]} players for "
            f"{header['title']}, found {len(players)}", "input.players")
    seen_players: set[int] = set()
    for i, (pid, _) in enumerate(players):
        if pid in seen_players:
            raise ExportError(f"export: players[{i}].id: expected a player id not used "
                              f"before, found {pid}", "input.players")
        seen_players.add(pid)
    refs = Refs.of(title.data, seen_players)
    actions = _parse_actions(header["actions"], refs)
    result = data.get("result")
    return Export(
        title=header["title"],
        players=players,
        seed=settings.get("seed") or 0,
        optional_rules=rules,
        actions=actions,
        result=result if isinstance(result, dict) else None,
        raw=data,
        rules=rule_set,
    )


def _parse_actions(records: list[Any], refs: Refs) -> list[Action]:
    """Build every action in order, stopping at the first malformed one; ids must
    increase and an undo must name an earlier action."""
    actions: list[Action] = []
    ids: set[int] = set()
    last = 0
    for i, record in enumerate(records):
        action = action_from_json(record, refs, index=i)
        if action.id is None or action.id <= last:
            where = describe_action(record, i)
            raise ActionError(
                where, "id", f"an action id greater than {last} (ids increase)",
                "nothing" if action.id is None else str(action.id),
                action_id=action.id, action_type=action.type)
        if isinstance(action, Undo) and action.action_id is not None and (
            action.action_id not in ids and action.action_id != 0
        ):
            raise ActionError(
                describe_action(record, i), "action_id", "the id of an earlier action",
                str(action.action_id),
                action_id=action.id, action_type=action.type)
        last = action.id
        ids.add(last)
        actions.append(action)
    return actions


def load_export(path: str | Path) -> Export:
    """Read and parse an export file (``"-"``: standard input; see :func:`parse_export`)."""
    return parse_export(read_json(path))


def game_from_export(export: Export, *, keep_history: bool = False,
                     lenient: bool = True, trust_routes: bool = False) -> Game:
    """A fresh game with the export's title, players, seed, optional rules and rule set.

    With ``lenient`` (the default for a replay) the game accepts the actions the
    reference engine accepted beyond its own interface, each under a named
    leniency it records (:data:`~rhineland.engine.leniency.REPLAY_LENIENCIES`);
    with ``trust_routes`` also the leniency
    :data:`~rhineland.engine.leniency.TRUST_ROUTES`: a run the route rules reject
    is applied with its recorded revenue (see :func:`replay`).
    """
    title = get_title(export.title, export.optional_rules, export.rules)
    game = Game(title, export.players, export.seed, keep_history=keep_history)
    allowed: set[str] = set(REPLAY_LENIENCIES) if lenient else set()
    if trust_routes:
        allowed.add(TRUST_ROUTES)
    game.leniencies = frozenset(allowed)
    return game


def trusted_runs(game: Game) -> list[TrustedRun]:
    """The runs the route rules reject that ``game`` applied with their recorded
    revenue (a replay with ``trust_routes``), in the order they were processed
    (an undone run included; a redone one once)."""
    return [u for u in game.leniencies_used if isinstance(u, TrustedRun)]


class ReplayError(GameError):
    """An action of an export is illegal: carries the action id and the rule broken."""

    def __init__(self, action_id: int | None, reason: str, rule: str = "") -> None:
        super().__init__(f"action {action_id}: {reason}")
        self.rule = rule
        self.action_id = action_id
        self.reason = reason


def to_export(game: Game, *, title: str | None = None) -> dict[str, Any]:
    """The game as an 18xx.games export: title, players, settings, every action processed,
    and the header fields 18xx.games writes (``user``, ``min_players``/``max_players``,
    ``status``, ``turn``, ``round``, ``acting``), so that its "Import hotseat game"
    takes it as one of its own.

    Loading it with :func:`parse_export` and replaying gives the same state.
    ``result`` (player id -> score) is included once the game is finished.  A game
    played by another rule set than ``reference`` names it in ``settings`` under
    :data:`~rhineland.engine.ruleset.EXPORT_KEY` (``"rhineland_rules"``), a key
    18xx.games never writes.
    """
    settings: dict[str, Any] = {"seed": game.seed, "is_async": True, "unlisted": True,
                                "auto_routing": False, "player_order": None,
                                "optional_rules": list(game.title.optional_rules)}
    if game.title.rules != REFERENCE:
        settings[EXPORT_KEY] = game.title.rules
    st = game.state
    out: dict[str, Any] = {
        "description": "",
        "user": {"id": 0, "name": "You"},
        "players": [{"id": pid, "name": name} for pid, name in game.seats],
        "min_players": len(game.seats),
        "max_players": len(game.seats),
        "title": title or game.data.title,
        "settings": settings,
        "user_settings": None,
        "status": "finished" if game.finished else "active",
        "turn": st.turn,
        "round": f"{st.round.kind} Round" if st.round is not None else None,
        "acting": game.acting_entities(),
        "actions": [a.to_json() for a in game.actions],
    }
    if game.finished:
        out["result"] = {str(p.id): game.player_value(p) for p in game.players}
        out["game_end_reason"] = st.game_end_reason
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
    raise ExportError(f"the export has no action {action_id}", "argument.action_id")


def replay_iter(
    export: Export, game: Game | None = None, until: int | None = None, *,
    trust_routes: bool = False, standing: bool = False,
) -> Iterator[tuple[int, Action, Game]]:
    """Replay the export, yielding ``(index, action, game)`` after each action.

    Undone actions are applied live and then reverted, as on the server; with
    ``standing`` the export is loaded as 18xx.games loads one: only the actions that
    stand at the end (or at ``until``: :func:`standing_positions`) are checked and
    applied, and the others (undone actions, undos, redos) are kept in
    ``game.actions`` unapplied (:meth:`~rhineland.engine.game.Game.record`), so their
    yields show the state unchanged.  Raises :class:`ReplayError` at the first
    illegal action applied and :class:`ExportError` when ``until`` is not an action
    id of the export.  ``trust_routes``: see :func:`replay` (for a new game; a given
    ``game`` keeps its own leniencies).
    """
    actions = export.actions
    last = len(actions) - 1 if until is None else action_index(export, until)
    if game is None:
        game = game_from_export(export, trust_routes=trust_routes)
    if standing:
        applied = standing_positions(actions[: last + 1])
        targets: set[int] = set()
    else:
        applied = set(range(last + 1))
        targets = undo_targets(actions)
    for i in range(last + 1):
        action = actions[i]
        if i in applied:
            try:
                game.process(action, atomic=False, history=i in targets)
            except GameError as exc:
                raise ReplayError(action.id, str(exc), exc.rule) from None
        else:
            game.record(action)
        yield i, action, game


def replay(export: Export, until: int | None = None,
           on_action: Callable[[int, Action, Game], None] | None = None, *,
           trust_routes: bool = False, live: bool = False) -> Game:
    """Replay every action (or up to id ``until``) and return the game.

    The export is loaded as 18xx.games loads one: the actions standing at the end
    are applied in order, and those an undo reverted are kept unapplied
    (:func:`replay_iter` with ``standing``); with ``live`` every action is applied as
    it was made and the undone ones are reverted (the same final state; an undone
    action is then checked too).  Every rule is checked: a run whose routes the
    rules reject (a route's track, token, stops, distance, or its recorded revenue)
    stops the replay with a :class:`ReplayError` naming the rule.  With
    ``trust_routes`` the replay is 18xx.games': such a run is applied with the
    revenue each train records (the dividend follows from it as recorded) and listed
    by :func:`trusted_runs` (``game.leniencies_used``) with the rule, the message,
    and the train's recorded revenue against the rules' where its route is legal.
    Other actions the rules refuse but the reference engine accepted are accepted
    under a named leniency; ``game.leniencies_used`` lists each of them.
    ``on_action(index, action, game)`` runs after each action (with ``live``, the
    position as it was when the next action was made).
    """
    game = game_from_export(export, trust_routes=trust_routes)
    for i, action, g in replay_iter(export, game, until, standing=not live):
        if on_action is not None:
            on_action(i, action, g)
    return game
