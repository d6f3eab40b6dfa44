"""The checks ``process`` makes first (``Game.check``), which the legal-action trials ask
without copying the state, agree with applying the action to a copy
(``Trial.applied``): at every 3rd position of random games of both titles (both 18Rhl
rule sets), every candidate decision (plain actions, each rung of a ladder, amount
spans at their ends and hints) is refused by the check with the very rule the applied
action is refused by, accepted by it only when the applied action is accepted, and
the check leaves the state untouched."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

import pytest

from rhineland import Game, new_game
from rhineland.engine.actions import Action
from rhineland.engine.legal.choices import AmountSpan, Deferred, Ladder, Listed, with_amount
from rhineland.engine.legal.generate import candidates
from rhineland.engine.legal.trial import Trial
from rhineland.errors import GameError
from rhineland.sim.selfplay import choose, random_setup

EVERY = 3
ACTIONS = 500


def _positions(title: str, seed: int, rules: str) -> Iterator[Game]:
    rng = random.Random(seed)
    n, opts = random_setup(title, rng)
    game = new_game(title, [f"P{i + 1}" for i in range(n)], seed=seed, optional_rules=opts,
                    rules=rules)
    game.keep_history = False
    for count in range(ACTIONS):
        if game.is_terminal:
            return
        if count % EVERY == 0:
            yield game
        game.process(choose(game, rng), atomic=False)


def _actions(game: Game) -> list[Action]:
    out: list[Action] = []
    for c in candidates(game):
        if isinstance(c, Listed | Deferred):
            if isinstance(c.choice, Action):
                out.append(c.choice)
        elif isinstance(c, Ladder):
            out.extend(c.actions)
        elif isinstance(c, AmountSpan):
            for v in dict.fromkeys([c.lo, c.hi, *c.hints]):
                if c.lo <= v <= c.hi:
                    out.append(with_amount(c.action, c.field, v))
        else:
            out.append(c)
    return out


def _dump(value: Any, seen: set[int]) -> Any:
    """Every value reachable from ``value`` (entities, rounds, title state), as plain data."""
    if isinstance(value, int | str | float | bool | None):
        return value
    if isinstance(value, list | tuple):
        return [_dump(v, seen) for v in value]
    if isinstance(value, dict):
        return sorted((repr(k), _dump(v, seen)) for k, v in value.items())
    if isinstance(value, set | frozenset):
        return sorted(repr(v) for v in value)
    if id(value) in seen or (dataclasses.is_dataclass(value)
                             and value.__dataclass_params__.frozen):  # type: ignore[attr-defined]
        return repr(type(value))
    seen.add(id(value))
    slots = getattr(type(value), "__slots__", ())
    fields = {s: getattr(value, s) for s in slots if hasattr(value, s)}
    fields.update(getattr(value, "__dict__", {}))
    return [type(value).__name__, _dump(fields, seen)]


def _fingerprint(game: Game) -> Any:
    st = game.state
    parts = {k: v for k, v in vars(st).items() if k != "board"}
    return _dump(parts, set()), st.board.version, len(game.log)


CASES = [("18Rhl", 2, "reference"), ("18Rhl", 5, "seed"), ("1893", 2, "reference"),
         ("1893", 6, "reference")]


@pytest.mark.parametrize(("title", "seed", "rules"), CASES)
def test_check_agrees_with_the_applied_action(title: str, seed: int, rules: str) -> None:
    decided = refused = 0
    for game in _positions(title, seed, rules):
        trial = Trial(game)
        for action in _actions(game):
            before = _fingerprint(game)
            try:
                complete = game.check(action)
                error: GameError | None = None
            except GameError as exc:
                complete, error = False, exc
            assert _fingerprint(game) == before, action
            applied = trial.applied(action)
            if error is not None:
                assert applied is not None and applied.rule == error.rule, (action, error)
                refused += 1
            elif complete:
                assert applied is None, (action, applied)
                decided += 1
    assert decided > 50 and refused > 20, (decided, refused)


def test_stock_round_legal_actions_copy_no_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """In 18Rhl's stock rounds every decision (pass, buy, sell, par) is decided by the
    checks alone: listing the legal actions copies no state."""
    from rhineland.engine.game import State

    copies = [0]
    clone = State.clone

    def counting(self: State) -> State:
        copies[0] += 1
        return clone(self)

    listed = 0
    for game in _positions("18Rhl", 4, "reference"):
        if game.round.step_name(game) != "buy_sell_par_shares":
            continue
        monkeypatch.setattr(State, "clone", counting)
        choices = game.legal_actions()
        monkeypatch.setattr(State, "clone", clone)
        listed += len(choices)
    assert listed > 100
    assert copies[0] == 0
