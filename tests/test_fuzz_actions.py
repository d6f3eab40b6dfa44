"""Fuzzing: perturbed and random actions at real positions of the reference games.

At positions spread over the 18Rhl and 1893 end_bank games, hypothesis takes the
action the players made next and changes one field (who acts, a price, a share,
a hex, a tile, a rotation, a train, a company), or builds an action of another
kind from the game's own names.  An action whose fields are malformed (out of
range, of the wrong type, missing) is refused when built, with a one-line
:class:`rhineland.ActionError` naming the field.  Any other, the engine must either
apply with the invariants holding (money conserved, certificates summing to 100%,
no negative cash outside the rules) or refuse with :class:`rhineland.GameError`,
leaving the state exactly as it was.  Any other exception is a bug.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference import ReferenceGames, check_invariants, fingerprint, needs_shared, total_money
from rhineland import ActionError, GameError
from rhineland.engine.actions import (
    Action,
    Bid,
    BuyCompany,
    BuyShares,
    BuyTrain,
    DiscardTrain,
    Dividend,
    LayTile,
    Par,
    Pass,
    PlaceToken,
    SellCompany,
    SellShares,
    SpecialBuy,
)
from rhineland.engine.game import Game

GAMES = (("18Rhl", "end_bank"), ("1893", "end_bank"))
POSITIONS_PER_GAME = 16
KINDS: tuple[type[Action], ...] = (
    Pass, Bid, Par, BuyShares, SellShares, LayTile, PlaceToken, Dividend, BuyTrain,
    DiscardTrain, BuyCompany, SellCompany, SpecialBuy,
)


@dataclasses.dataclass(frozen=True)
class Position:
    """A game just before its recorded action ``next_action``."""

    title: str
    game: Game
    next_action: Action
    start_money: int


@functools.cache
def positions() -> tuple[Position, ...]:
    out: list[Position] = []
    for title, name in GAMES:
        ref = ReferenceGames(title)
        actions = [a for a in ref.export(name).actions
                   if a.type not in ("message", "undo", "redo")]
        step = max(1, len(actions) // POSITIONS_PER_GAME)
        start_money = total_money(ref.position(name, actions[0].id)) if actions else 0
        for k in range(1, len(actions) - 1, step):
            game = ref.position(name, actions[k - 1].id)
            out.append(Position(title, game, actions[k], start_money))
    return tuple(out)


@st.composite
def perturbed(draw: st.DrawFn) -> tuple[Position, type[Action], dict[str, Any]]:
    pos = draw(st.sampled_from(positions()))
    game = pos.game
    players = [p.id for p in game.players]
    companies = [*game.corporations, *game.minors]
    entities: list[int | str] = [*players, *companies]
    shares = [c.id for corp in game.corporations.values() for c in corp.certificates[:3]]
    hexes = sorted(game.board.tiles)
    tiles = sorted(game.board.manifest)
    trains = [t.id for t in game.state.trains][:40] or ["2-0"]
    privates = list(game.privates) or ["PWB"]
    money = st.integers(min_value=-20, max_value=1200)
    values: dict[str, st.SearchStrategy[Any]] = {
        "entity": st.sampled_from(entities),
        "price": money,
        "percent": st.sampled_from([0, 10, 20, 30, 50, 60]),
        "shares": st.lists(st.sampled_from(shares), min_size=0, max_size=3).map(tuple),
        "hex": st.sampled_from(hexes),
        "tile": st.sampled_from(tiles),
        "rotation": st.integers(min_value=-1, max_value=7),
        "city": st.sampled_from([f"{t}-0-0" for t in tiles[:10]] + ["X-0-0", ""]),
        "slot": st.integers(min_value=-1, max_value=3),
        "train": st.sampled_from(trains),
        "company": st.sampled_from(privates),
        "corporation": st.sampled_from(companies),
        "share_price": st.sampled_from(["70,2,1", "80,1,2", "100,0,4", "999,9,9", "x"]),
        "kind": st.sampled_from(["payout", "withhold", "half", "bogus"]),
        "description": st.sampled_from(["yes", "no", "bogus", ""]),
        "cost": money,
    }
    actor = pos.next_action
    kind: type[Action]
    if draw(st.booleans()):
        kind = type(actor)
        base = {f.name: getattr(actor, f.name) for f in dataclasses.fields(actor)
                if f.name not in ("extra", "key_order")}
    else:
        kind = draw(st.sampled_from(KINDS))
        base = {"entity": actor.entity, "entity_type": actor.entity_type}
    fields = [f.name for f in dataclasses.fields(kind) if f.name in values and f.name != "entity"]
    required = [f.name for f in dataclasses.fields(kind) if f.name in values
                and f.name not in base and f.default is dataclasses.MISSING]
    names = required + (draw(st.lists(st.sampled_from(fields), max_size=2)) if fields else [])
    changes = {name: draw(values[name]) for name in names}
    if draw(st.integers(min_value=0, max_value=4)) == 0:  # now and then, the wrong actor
        changes["entity"] = draw(values["entity"])
        changes["entity_type"] = (
            "player" if isinstance(changes["entity"], int)
            else "corporation" if changes["entity"] in game.corporations else "minor"
        )
    return pos, kind, {**base, "auto_actions": (), **changes}


@needs_shared
@settings(max_examples=250, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=perturbed())
def test_any_action_is_applied_cleanly_or_refused_with_the_state_unchanged(
    case: tuple[Position, type[Action], dict[str, Any]],
) -> None:
    pos, kind, fields = case
    try:
        action = kind(**fields)
    except ActionError as exc:  # refused when built: a field out of range or of a wrong type
        assert exc.field and "\n" not in str(exc), exc
        return
    game = copy.deepcopy(pos.game)
    before = fingerprint(game)
    try:
        game.process(action)
    except GameError as exc:
        assert str(exc), "a refusal must say why"
        assert fingerprint(game) == before, f"{action} was refused but changed the state"
        return
    check_invariants(game, pos.start_money)
