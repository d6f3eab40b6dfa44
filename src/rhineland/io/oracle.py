"""Comparing our replay with an oracle trace (``*.trace.json``), field by field.

Each trace entry is the reference state after one export action; we compare
every field present in the entry (action metadata excepted) with
:func:`rhineland.io.state_view.game_state` after the same action.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rhineland.engine.leniency import LeniencyUse
from rhineland.errors import GameError
from rhineland.io.export import game_from_export, load_export, read_json, undo_targets
from rhineland.io.state_view import game_state

META = {"action_id", "type", "entity", "kept", "reverts", "auto_actions", "route_revenue"}


@dataclass
class Difference:
    """One differing field after an action."""

    action_id: int | None
    action_type: str
    path: str
    ours: Any
    theirs: Any


@dataclass
class Report:
    """``matched`` of ``total`` actions equal; ``diffs`` in action order; ``trusted``:
    the actions accepted under a leniency (with ``trust_routes``, the runs the route
    rules reject)."""

    matched: int = 0
    total: int = 0
    diffs: list[Difference] = field(default_factory=list)
    error: str | None = None
    trusted: list[LeniencyUse] = field(default_factory=list)


KEYED_SECTIONS = frozenset({"players", "corporations", "minors", "companies", "tiles"})
"""Sections keyed by entity: an entry we have that the trace lacks is a difference too."""


def first_difference(ours: Any, theirs: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """The first differing ``(path, ours, theirs)`` between two JSON values, or None.

    Every field of ``theirs`` is compared (action metadata at the top level
    excepted); in the keyed sections an extra entry of ours also differs.
    """
    if isinstance(theirs, dict):
        if not isinstance(ours, dict):
            return (path, ours, theirs)
        for k, v in theirs.items():
            if not path and k in META:
                continue
            sub = f"{path}.{k}" if path else k
            if k not in ours:
                return (sub, None, v)
            d = first_difference(ours[k], v, sub)
            if d:
                return d
        if path in KEYED_SECTIONS:
            extra = sorted(set(ours) - set(theirs))
            if extra:
                return (f"{path}.{extra[0]}", ours[extra[0]], None)
        return None
    if isinstance(theirs, list):
        if not isinstance(ours, list) or len(ours) != len(theirs):
            return (path, ours, theirs)
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            d = first_difference(a, b, f"{path}[{i}]")
            if d:
                return d
        return None
    if ours != theirs:
        return (path, ours, theirs)
    return None


def compare_with_trace(export_path: str | Path, trace_path: str | Path,
                       stop_at_first: bool = True, *, trust_routes: bool = False) -> Report:
    """Replay the export and compare the state after every action with the trace
    (``trust_routes``: a run the route rules reject is applied with its recorded
    revenue, as :func:`~rhineland.io.export.replay` does with it)."""
    export = load_export(export_path)
    trace = read_json(trace_path)
    entries = trace["trace"]
    report = Report(total=len(entries))
    game = game_from_export(export, trust_routes=trust_routes)
    report.trusted = game.leniencies_used  # filled as the replay goes
    targets = undo_targets(export.actions)
    init = first_difference(game_state(game), trace["initial"])
    if init:
        report.diffs.append(Difference(None, "initial", *init))
        if stop_at_first:
            return report
    for i, (action, entry) in enumerate(zip(export.actions, entries, strict=False)):
        try:
            game.process(action, atomic=False, history=i in targets)
        except GameError as exc:
            report.error = f"action {action.id}: {exc}"
            report.diffs.append(Difference(action.id, action.type, "(error)", str(exc), None))
            return report
        d = first_difference(game_state(game), entry)
        if d is None:
            report.matched += 1
        else:
            report.diffs.append(Difference(action.id, action.type, *d))
            if stop_at_first:
                return report
    return report
