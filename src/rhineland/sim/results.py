"""A tournament's results file: one JSON line per finished game, appended as each game
ends, so that a long run stopped half-way keeps its games and resumes where it stopped.

A line holds the game's spec (title, seed, bots by seat, optional rules, rule set,
action cap) and its outcome (finished, end reason, actions, rounds, scores by seat
in M, wall seconds).  A game is the same game when its :func:`spec_key` is equal.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from rhineland.sim.batch import GameOutcome, GameSpec

SpecKey = tuple[str, int, tuple[str, ...], tuple[str, ...], str, int]
"""Title, seed, bots by seat, optional rules, rule set, action cap."""


def spec_key(spec: GameSpec) -> SpecKey:
    """What makes two specs the same game (the folders and checks aside)."""
    return (spec.title, spec.seed, tuple(spec.bots), tuple(spec.optional_rules), spec.rules,
            spec.max_actions)


def outcome_record(outcome: GameOutcome) -> dict[str, object]:
    """The JSON record of ``outcome`` (see the module docstring)."""
    s = outcome.spec
    return {"title": s.title, "seed": s.seed, "bots": list(s.bots),
            "optional_rules": list(s.optional_rules), "rules": s.rules,
            "max_actions": s.max_actions, "finished": outcome.finished,
            "end_reason": outcome.end_reason, "actions": outcome.actions,
            "rounds": outcome.rounds, "scores": list(outcome.scores),
            "seconds": round(outcome.seconds, 3)}


def outcome_of(record: dict[str, object]) -> GameOutcome:
    """The :class:`GameOutcome` of a record of :func:`outcome_record`; raises
    ``ValueError`` (with the field) when a field is missing or of the wrong type."""
    try:
        spec = GameSpec(str(record["title"]), _int(record["seed"]),
                        tuple(str(b) for b in _list(record["bots"])),
                        tuple(str(r) for r in _list(record["optional_rules"])),
                        _int(record["max_actions"]), str(record["rules"]))
        end = record["end_reason"]
        return GameOutcome(spec, finished=bool(record["finished"]),
                           end_reason=None if end is None else str(end),
                           actions=_int(record["actions"]), rounds=_int(record["rounds"]),
                           scores=[_int(v) for v in _list(record["scores"])],
                           seconds=float(str(record["seconds"])))
    except KeyError as exc:
        raise ValueError(f"a result line lacks {exc.args[0]!r}") from exc


def _int(v: object) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"expected an integer, not {v!r}")
    return v


def _list(v: object) -> list[object]:
    if not isinstance(v, list):
        raise ValueError(f"expected a list, not {v!r}")
    return v


def load_results(path: Path) -> list[GameOutcome]:
    """The outcomes recorded in ``path`` (none when it does not exist); raises
    ``ValueError`` naming the line of a bad record."""
    if not path.exists():
        return []
    out: list[GameOutcome] = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = orjson.loads(line)
            if not isinstance(rec, dict):
                raise ValueError("not a JSON object")
            out.append(outcome_of(rec))
        except (orjson.JSONDecodeError, ValueError) as exc:
            raise ValueError(f"{path}:{n}: {exc}") from exc
    return out


def append_result(path: Path, outcome: GameOutcome) -> None:
    """Append ``outcome``'s record to ``path`` as one line (flushed at once)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as f:
        f.write(orjson.dumps(outcome_record(outcome)) + b"\n")
