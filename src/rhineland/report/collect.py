"""What a game report shows, gathered in one replay of an export.

:func:`collect` replays the export (every rule checked, or runs trusted as recorded)
and records, per round, each corporation's share price and each player's net worth
(M); after each operating round, the drawn map; for every standing run, the revenue
ran against the best (:func:`rhineland.routes.compare.compare_run`); the events of the
game (phase changes, trains bought from the depot, trains rusting, companies formed or
closed, bankruptcies) by round; and the final scores.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rhineland.engine.actions import RunRoutes
from rhineland.io.export import Export, game_from_export, standing_positions, undo_targets
from rhineland.render import render_svg
from rhineland.routes.compare import RunComparison, compare_run

if TYPE_CHECKING:
    from rhineland.engine.game import Game


@dataclass
class RoundPoint:
    """The state at the end of a round: its ``label`` (``"SR 3"``, ``"OR 3.1"``), share
    price per corporation symbol and net worth per player name (M)."""

    label: str
    prices: dict[str, int]
    worth: dict[str, int]


@dataclass
class Event:
    """Something that happened: the ``round`` label, the action id and a sentence."""

    round: str
    action_id: int
    text: str


@dataclass
class ReportData:
    """Everything :mod:`rhineland.report.html` draws (see the module docstring)."""

    title: str
    players: list[str]
    rounds: list[RoundPoint] = field(default_factory=list)
    maps: list[tuple[str, str]] = field(default_factory=list)  # (OR label, SVG document)
    runs: list[RunComparison] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    final_map: str = ""
    scores: list[tuple[str, int]] = field(default_factory=list)
    finished: bool = False
    end_reason: str | None = None
    colors: dict[str, str] = field(default_factory=dict)


def _label(game: Game) -> str:
    rnd = game.state.round
    return rnd.label if rnd is not None else "end"


def _snapshot(game: Game) -> dict[str, object]:
    held = {t.id: (c.sym, t.rusted) for c in game.corporations.values() for t in c.trains}
    held.update({t.id: (m.sym, t.rusted) for m in game.minors.values() for t in m.trains})
    return {
        "phase": game.phase.name,
        "depot": {t.id for t in game.depot_trains()},
        "held": held,
        "bankrupt": {p.name for p in game.players if p.bankrupt},
        "floated": {c.sym for c in game.corporations.values() if c.floated},
        "closed": {c.sym for c in game.corporations.values() if c.closed}
        | {m.sym for m in game.minors.values() if m.closed},
    }


def _events(game: Game, before: dict[str, object], after: dict[str, object],
            label: str, action_id: int) -> list[Event]:
    out: list[str] = []
    if before["phase"] != after["phase"]:
        out.append(f"phase {after['phase']} begins")
    bought = sorted(before["depot"] - after["depot"])  # type: ignore[operator]
    held_after: dict[str, tuple[str, bool]] = after["held"]  # type: ignore[assignment]
    for train in bought:
        owner = held_after.get(train, ("?", False))[0]
        out.append(f"{owner} buys train {train} from the depot")
    held_before: dict[str, tuple[str, bool]] = before["held"]  # type: ignore[assignment]
    gone = [t for t in held_before if t not in held_after and game.train(t).rusted]
    if gone:
        out.append("trains rust: " + ", ".join(f"{t} ({held_before[t][0]})" for t in gone))
    for name in sorted(after["bankrupt"] - before["bankrupt"]):  # type: ignore[operator]
        out.append(f"{name} goes bankrupt")
    for sym in sorted(after["floated"] - before["floated"]):  # type: ignore[operator]
        spec = game.corporations[sym].spec
        out.append(f"{sym} {'is formed' if not spec.floatable else 'floats'}")
    for sym in sorted(after["closed"] - before["closed"]):  # type: ignore[operator]
        out.append(f"{sym} closes")
    return [Event(label, action_id, text) for text in out]


def collect(export: Export, *, trust_routes: bool = False, best: bool = True) -> ReportData:
    """Replay ``export`` once and gather the report's data (see the module docstring).

    ``best``: compare every run with the best routes.  Raises ``GameError`` (through
    :meth:`Game.process`) at the first illegal action.
    """
    from rhineland.render.style import colors_of

    game = game_from_export(export, trust_routes=trust_routes)
    package = type(game.title).package
    data = ReportData(export.title, [p.name for p in game.players])
    for sym in [*game.corporations, *game.minors]:
        data.colors[sym] = colors_of(package, sym)[0]
    targets = undo_targets(export.actions)
    standing = standing_positions(export.actions)
    label = _label(game)
    snap = _snapshot(game)
    for i, action in enumerate(export.actions):
        if best and isinstance(action, RunRoutes) and i in standing:
            cmp = compare_run(game, action)
            if cmp is not None:
                data.runs.append(cmp)
        game.process(action, atomic=False, history=i in targets)
        now = _snapshot(game)
        if i in standing:
            data.events += _events(game, snap, now, label, int(action.id or 0))
        snap = now
        new_label = _label(game)
        if new_label != label:
            _end_of_round(game, data, label)
            label = new_label
    if not data.rounds or data.rounds[-1].label != label:
        _end_of_round(game, data, label)
    data.final_map = render_svg(game)
    scores = game.result() if game.state.finished else {p.id: game.player_value(p)
                                                         for p in game.players}
    names = {p.id: p.name for p in game.players}
    data.scores = sorted(((names[pid], v) for pid, v in scores.items()), key=lambda x: -x[1])
    data.finished = game.state.finished
    data.end_reason = game.state.game_end_reason
    return data


def _end_of_round(game: Game, data: ReportData, label: str) -> None:
    """Record the round ``label`` just ended; a round recorded before (an undo went back
    into it) replaces its earlier record and every later one."""
    seen = [k for k, r in enumerate(data.rounds) if r.label == label]
    if seen:
        gone = {r.label for r in data.rounds[seen[0]:]}
        del data.rounds[seen[0]:]
        data.maps = [(lbl, svg) for lbl, svg in data.maps if lbl not in gone]
    prices = {c.sym: c.share_price.price for c in game.corporations.values()
              if c.share_price is not None and not c.closed}
    worth = {p.name: game.player_value(p) for p in game.players}
    data.rounds.append(RoundPoint(label, prices, worth))
    if label.startswith("OR"):
        data.maps.append((label, render_svg(game, r=38.0)))
