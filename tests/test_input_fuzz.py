"""Structure-aware fuzzing of real exports: one field of one action changed at a time.

Hypothesis picks a recorded action of the 18Rhl or 1893 end_bank export (a few of each
kind), one of its fields (its own fields, the common ones, a route's fields, an
auto-action's fields, fields it could have but does not) and one change: a value of a
wrong type, null, the field removed, a value out of range, a name the game does not
have, or a duplicate (of the action's id, of a list item, of the whole action).  The
export up to that action is then read as the ``rhineland replay`` command and the
Python API read it:

* refused: exit status 2 with one ``error:`` line naming the action and the field
  (with ``--json``, the JSON error object), never a traceback.  Wrong types,
  negative amounts and unknown names must always be refused there;
* accepted: the changed action, processed at the position where it was played,
  either applies or is refused with :class:`rhineland.GameError`, the state unchanged.

The work is bounded by count (``max_examples``), never by time.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
import re
from dataclasses import dataclass
from typing import Any

import orjson
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference import SHARED, fingerprint, needs_shared
from rhineland import ExportError, GameError
from rhineland.cli.main import cli
from rhineland.engine.actions import ACTION_TYPES, BASE_KEYS
from rhineland.engine.game import Game
from rhineland.io.export import game_from_export, parse_export, undo_targets

EXPORTS = (
    SHARED / "fixtures" / "18Rhl" / "18Rhl_end_bank.json",
    SHARED / "fixtures" / "1893" / "1893_end_bank.json",
)
PER_KIND = 3  # recorded actions of each kind per export (the first two and the last)
CHANGES = ("wrong_type", "null", "missing", "out_of_range", "unknown_name", "duplicate")
# fields whose every value of another JSON type is refused at the boundary
ANY_TYPE = frozenset({"abilities", "until_condition"})
# integer fields where a negative value is out of range
UNSIGNED = frozenset({"price", "cost", "percent", "rotation", "slot", "revenue", "id",
                      "action_id", "share_price"})
# fields that name something of the game (a player, company, hex, tile, train ...)
NAMES = frozenset({"entity", "company", "corporation", "minor", "hex", "tile", "city", "train",
                   "exchange", "shares", "tokener", "share_price", "corporations",
                   "connections", "hexes", "nodes"})


@dataclass(frozen=True)
class Source:
    """An export and, for each sampled action, the game just before it."""

    name: str
    data: dict[str, Any]
    positions: dict[int, Game]  # position in "actions" -> the game before that action


@functools.cache
def sources() -> tuple[Source, ...]:
    out = []
    for path in EXPORTS:
        data = orjson.loads(path.read_bytes())
        by_kind: dict[str, list[int]] = {}
        for i, record in enumerate(data["actions"]):
            by_kind.setdefault(record["type"], []).append(i)
        sample = {i for found in by_kind.values()
                  for i in {*found[: PER_KIND - 1], found[-1]}}
        export = parse_export(data)
        game = game_from_export(export)
        targets = undo_targets(export.actions)
        positions: dict[int, Game] = {}
        for i, action in enumerate(export.actions[: max(sample) + 1]):
            if i in sample:
                positions[i] = copy.deepcopy(game)
            game.process(action, atomic=False, history=i in targets)
        out.append(Source(path.stem, data, positions))
    return tuple(out)


def paths_of(record: dict[str, Any]) -> list[tuple[str | int, ...]]:
    """The fields one change may touch: the record's own and declared ones, a route's,
    an auto-action's."""
    cls = ACTION_TYPES[record["type"]]
    names = {*record, *(f.name for f in dataclasses.fields(cls))} - {"extra", "key_order"}
    out: list[tuple[str | int, ...]] = [(n,) for n in sorted(names)]
    routes = record.get("routes")
    if routes:
        out += [("routes", 0, k) for k in sorted(routes[0])]
    autos = record.get("auto_actions")
    if autos:
        out += [("auto_actions", 0, k) for k in sorted(autos[0]) if k != "type"]
    return out


def other_type(value: Any, pick: int) -> Any:
    """A value of another JSON type than ``value``."""
    pools: list[Any] = ["12", 1.5, True, [], {}, 7, None]
    choices = [v for v in pools if v is not None and type(v) is not type(value)
               and not (isinstance(value, int) and isinstance(v, bool))]
    if isinstance(value, bool):
        choices = ["yes", 1, []]
    return choices[pick % len(choices)]


def unknown_name(value: Any) -> Any:
    """A name shaped like ``value`` that the game does not have."""
    if isinstance(value, list):
        return [unknown_name(value[0]), *value[1:]] if value else ["Q99"]
    if isinstance(value, int) and not isinstance(value, bool):
        return 999_999
    if not isinstance(value, str):
        return "Q99"
    if re.fullmatch(r"\d+,\d+,\d+", value):
        return "1,99,99"
    if "_" in value:
        return "QQ_" + value.rpartition("_")[2]
    if "-" in value:
        return "Q99-" + value.split("-", 1)[1]
    return "Q99"


@st.composite
def mutations(draw: st.DrawFn) -> tuple[Source, int, tuple[str | int, ...], str, Any]:
    source = draw(st.sampled_from(sources()))
    index = draw(st.sampled_from(sorted(source.positions)))
    record = source.data["actions"][index]
    path = draw(st.sampled_from(paths_of(record)))
    change = draw(st.sampled_from(CHANGES))
    pick = draw(st.integers(min_value=0, max_value=6))
    return source, index, path, change, pick


def apply(source: Source, index: int, path: tuple[str | int, ...], change: str,
          pick: int) -> tuple[list[Any], str, bool]:
    """The export's actions up to ``index`` with the change made, the field an error must
    name, and whether the change must be refused at the boundary."""
    actions = source.data["actions"][: index + 1]
    record = copy.deepcopy(actions[index])
    actions[index] = record
    *outer, last = path
    holder: Any = record
    for part in outer:
        holder = holder[part]
    present = last in holder
    value = holder.get(last)
    field = str(last)
    must_refuse = False
    if change == "missing":
        holder.pop(last, None)
    elif change == "null":
        holder[last] = None
    elif change == "wrong_type":
        holder[last] = other_type(value, pick)
        must_refuse = present and field not in ANY_TYPE
    elif change == "out_of_range":
        if isinstance(value, int) and not isinstance(value, bool):
            holder[last] = -1 - pick
            must_refuse = field in UNSIGNED
        elif isinstance(value, str):
            holder[last] = ""
        elif isinstance(value, list):
            holder[last] = []
        else:
            holder[last] = -1
    elif change == "unknown_name":
        holder[last] = unknown_name(value)
        must_refuse = present and field in NAMES and value not in (None, [], "")
    elif change == "duplicate":
        if field == "id" and len(path) == 1 and index > 0:
            holder[last] = actions[index - 1]["id"]
            must_refuse = True
        elif isinstance(value, list) and value:
            holder[last] = [*value, value[0]]
        else:
            actions.append(copy.deepcopy(record))  # the same action twice: the same id
            field, must_refuse = "id", True
    return actions, field, must_refuse


@needs_shared
@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=mutations(), as_json=st.booleans())
def test_a_changed_field_is_refused_in_one_line_or_played_by_the_rules(
    case: tuple[Source, int, tuple[str | int, ...], str, int], as_json: bool,
) -> None:
    source, index, path, change, pick = case
    actions, field, must_refuse = apply(source, index, path, change, pick)
    data = {**source.data, "actions": actions}
    try:
        export = parse_export(data)
    except ExportError as exc:
        result = CliRunner().invoke(cli, ["replay", "-", *(["--json"] if as_json else [])],
                                    input=orjson.dumps(data))
        assert isinstance(result.exception, SystemExit), result.exception
        assert result.exit_code == 2 and result.stdout == ""
        err = result.stderr
        assert err.count("\n") == 1, err
        message = (json.loads(err)["error"]["message"] if as_json
                   else err.removeprefix("error: ").rstrip("\n"))
        assert as_json or err.startswith("error: ")
        assert message == str(exc)
        assert re.match(r"action (\d+|#\d+)", message), message
        assert field in message, (field, message)
        return
    assert not must_refuse, f"{change} of {path} was accepted"
    game = copy.deepcopy(source.positions[index])
    before = fingerprint(game)
    try:
        game.process(export.actions[index])
    except GameError as exc:
        assert str(exc) and "\n" not in str(exc)
        assert fingerprint(game) == before, f"{change} of {path}: refused but changed the state"


def test_every_action_kind_of_the_exports_is_sampled() -> None:
    if not EXPORTS[0].exists():
        return
    kinds = {s.data["actions"][i]["type"] for s in sources() for i in s.positions}
    assert {"bid", "par", "buy_shares", "sell_shares", "lay_tile", "place_token", "run_routes",
            "dividend", "buy_train", "undo", "pass", "buy_company", "sell_company",
            "special_buy", "program_share_pass", "program_buy_shares"} <= kinds
    assert set(BASE_KEYS) <= {
        p[0] for s in sources() for i in s.positions
        for p in paths_of(s.data["actions"][i])}
