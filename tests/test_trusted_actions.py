"""Candidate actions built without validation (``rhineland.engine.actions.trusted``) are
the very actions the validating constructor makes from the same fields: every candidate
at the positions seeded random games of both titles reach (bounded by action count), and
the helper's own contract (defaults filled in, a missing field refused)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest

from play import random_positions
from rhineland.engine.actions import Action, BuyTrain, LayTile, Pass, RunRoutes, trusted
from rhineland.engine.legal.choices import AmountSpan, Deferred, Ladder, Listed, RouteChoice
from rhineland.engine.legal.generate import candidates
from rhineland.sim.selfplay import TITLE_PLAYERS

ACTIONS = 700


def _actions(game: Any, cands: list[Any]) -> list[Action]:
    out: list[Action] = []
    for c in cands:
        if isinstance(c, Ladder):
            out.extend(c.actions)
        elif isinstance(c, AmountSpan):
            out.append(c.action)
        elif isinstance(c, Listed | Deferred):
            if isinstance(c.choice, Action):
                out.append(c.choice)
            elif isinstance(c.choice, RouteChoice):  # the best run, as offered
                out.append(c.choice.best(game))
        else:
            out.append(c)
    return out


def _validated(action: Action) -> Action:
    return type(action)(**{f.name: getattr(action, f.name) for f in fields(action)})


@pytest.mark.parametrize("title", sorted(TITLE_PLAYERS))
def test_every_candidate_equals_the_validated_action(title: str) -> None:
    kinds: set[str] = set()
    for seed in (1, 6):
        for game in random_positions(title, seed, ACTIONS):
            for a in _actions(game, candidates(game)):
                v = _validated(a)
                assert v == a and list(vars(v).items()) == list(vars(a).items()), a
                if isinstance(a, RunRoutes):  # the route dicts' keys in order, sequences as tuples
                    assert [list(r.items()) for r in v.routes] == [
                        list(r.items()) for r in a.routes]
                kinds.add(a.type)
    # the kinds listed as trusted candidates are among those compared (over both games:
    # a random game's course moves with every change to the candidates it draws from)
    want = {"par", "buy_shares", "sell_shares", "lay_tile", "buy_train", "pass", "dividend",
            "place_token", "discard_train", "run_routes"}
    if title == "1893":
        want |= {"buy_company", "sell_company"}
    assert want <= kinds, sorted(want - kinds)


def test_trusted_fills_the_defaults_in_field_order_and_needs_the_required_fields() -> None:
    a = trusted(LayTile, entity="ADR", entity_type="corporation", hex="E8", tile="7-0",
                rotation=2)
    assert list(vars(a)) == [f.name for f in fields(LayTile)]
    assert a == LayTile(entity="ADR", entity_type="corporation", hex="E8", tile="7-0",
                        rotation=2)
    assert (a.id, a.auto_actions, a.extra) == (None, (), ())
    assert trusted(Pass, entity=3) == Pass(entity=3)
    with pytest.raises(TypeError, match="BuyTrain needs price"):
        trusted(BuyTrain, entity="ADR", entity_type="corporation", train="2-0")
