"""The shapes of legal actions: plain actions, amount ranges and the run-routes choice.

``legal_actions()`` lists concrete :class:`~rhineland.engine.actions.Action`
objects, except where a decision is an amount (a bid, a company or train
price): an :class:`AmountRange` then stands for every value from ``min`` to
``max`` by ``step``; and where a decision is a set of routes: a
:class:`RouteChoice` offers the best routes and accepts any valid route set.

:func:`choice_key` reduces an action to what decides it (type, entity and
parameters; e.g. a tile's name rather than which copy of it, a train's type rather
than which of one owner's identical trains), so a recorded action can be
compared with a listed one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rhineland.engine.actions import (
    Action,
    BuyShares,
    BuyTrain,
    EntityType,
    LayTile,
    RunRoutes,
    SellShares,
    trusted,
)
from rhineland.engine.entities import MARKET
from rhineland.errors import GameError

if TYPE_CHECKING:
    from rhineland.engine.view import GameView


def with_amount(action: Action, field: str, value: int) -> Action:
    """``action`` with ``field`` set to ``value`` (a copy; actions are frozen)."""
    new = object.__new__(type(action))
    new.__dict__.update(action.__dict__)
    object.__setattr__(new, field, value)
    return new


@dataclass(frozen=True)
class AmountRange:
    """Every action equal to ``action`` but for its ``field`` (an amount in M), which
    runs from ``min`` to ``max`` by ``step``.  ``action`` holds ``min`` in ``field``."""

    action: Action
    field: str
    min: int
    max: int
    step: int = 1

    @property
    def type(self) -> str:
        """The action type of the range's actions (e.g. ``"bid"``)."""
        return self.action.type

    @property
    def entity(self) -> int | str:
        """The acting entity of the range's actions."""
        return self.action.entity

    def values(self) -> range:
        """The amounts (M) in the range."""
        return range(self.min, self.max + 1, self.step)

    def actions(self) -> Iterator[Action]:
        """One plain action per amount."""
        for v in self.values():
            yield with_amount(self.action, self.field, v)

    def at(self, value: int) -> Action:
        """The action with amount ``value`` (no check that it lies in the range)."""
        return with_amount(self.action, self.field, value)

    def contains(self, action: Action) -> bool:
        """Whether ``action`` is one of the range's actions."""
        if type(action) is not type(self.action):
            return False
        value = getattr(action, self.field)
        if not isinstance(value, int) or value not in self.values():
            return False
        return _fields(with_amount(action, self.field, self.min)) == _fields(self.action)


@dataclass(frozen=True)
class RouteChoice:
    """Run ``entity``'s trains: :meth:`best` gives the best routes as a ``run_routes``
    action (searched on demand); any valid route set is accepted (:meth:`contains`)."""

    entity: str
    entity_type: EntityType

    @property
    def type(self) -> str:
        """``"run_routes"``."""
        return RunRoutes.TYPE

    def best(self, game: GameView, budget_nodes: int | None = None) -> RunRoutes:
        """The best routes (:func:`rhineland.routes.search.best_routes`) as an action.

        ``budget_nodes``: search in the anytime mode (the best run found within about
        that many search nodes: a legal run, not always the most valuable); ``None``:
        the exact best."""
        from rhineland.routes.search import best_routes

        found = best_routes(game, self.entity, budget_nodes=budget_nodes)
        # the route dicts as the validating constructor keeps them (sequences as tuples;
        # tests/test_trusted_actions.py): the search's own routes need no validation
        routes = tuple({"train": r.train, "connections": r.spec.connections,
                        "nodes": r.spec.nodes, "revenue": r.result.revenue}
                       for r in found.routes)
        return trusted(RunRoutes, entity=self.entity, entity_type=self.entity_type,
                       routes=routes)

    def contains(self, action: Action, game: GameView) -> bool:
        """Whether ``action`` runs this entity's trains on routes the rules accept."""
        return (isinstance(action, RunRoutes) and action.entity == self.entity
                and game.is_legal(action))


Choice = Action | AmountRange | RouteChoice
"""One entry of ``legal_actions()``."""


@dataclass(frozen=True)
class AmountSpan:
    """A candidate amount decision: ``action``'s ``field`` somewhere in ``lo..hi`` by
    ``step``; the rules' checks narrow it to an :class:`AmountRange` (``hints``: amounts
    likely legal, where the search starts)."""

    action: Action
    field: str
    lo: int
    hi: int
    step: int = 1
    hints: tuple[int, ...] = ()
    whole: frozenset[str] = frozenset()
    """Rules that refuse the decision whatever the amount (e.g. the step does not take it
    now): refused by one of them at one amount, it is refused at every amount."""
    bounds: Callable[[], tuple[int, int]] | None = None
    """The least and most amount the rules' amount checks accept now, where the rules
    state them (e.g. :meth:`~rhineland.engine.rules_trains.TrainRules.other_train_price_bounds`):
    the span is then narrowed by one trial instead of a search (the other checks refuse
    every amount or none)."""
    same_as: Hashable = None
    """With ``bounds``: spans of one position with the same key (not ``None``) pass the
    checks that do not look at the amount alike, except those ``gate`` states: once
    one of them is found legal, another is legal exactly where its ``gate()`` holds
    (its range then its own ``bounds``), untried.  E.g. a company's trains of one
    type from different sellers: only the seller's own rule (``train_sellable_to``)
    tells them apart."""
    gate: Callable[[], bool] | None = None


@dataclass(frozen=True)
class Listed:
    """A decision listed as legal by a module that lists exactly the legal ones (tile
    lays and tokens from the board legality rules, the run-routes choice): not tried."""

    choice: Choice


@dataclass(frozen=True)
class Deferred:
    """A decision listed by a module that lists exactly the legal ones once ``check``
    (its last, costly check) says yes: checked only when the decision is looked at (a
    tile lay and its track restriction)."""

    choice: Choice
    check: Callable[[], bool]


@dataclass(frozen=True)
class Ladder:
    """Candidate actions ordered by cost (e.g. one corporation's pars, cheapest cell
    first): once one is refused for a reason other than ``skip`` (a rule about that one
    action, e.g. a cell that is no par price for it), the costlier rest is refused too
    (money runs out the same way; the other rules do not depend on the cost)."""

    actions: tuple[Action, ...]
    skip: frozenset[str] = frozenset()


Candidate = Action | AmountSpan | Listed | Deferred | Ladder
"""What a generator proposes: an action to try, an amount span to narrow, a listed
decision (with a last check or without), or a ladder of actions by cost."""

_BASE = ("id", "created_at", "user", "auto_actions", "extra", "key_order")


_DECIDING: dict[type, tuple[str, ...]] = {}
"""Per action class: the names of its fields that decide (not :data:`_BASE`), in order."""


def _fields(action: Action) -> tuple[Any, ...]:
    """``action``'s deciding fields as (name, value) pairs, in field order."""
    names = _DECIDING.get(type(action))
    if names is None:
        names = _DECIDING[type(action)] = tuple(
            f.name for f in dataclasses.fields(action) if f.name not in _BASE)
    return tuple([(name, getattr(action, name)) for name in names])


def choice_key(game: GameView, action: Action) -> tuple[Any, ...]:
    """What decides ``action`` in ``game`` now: type, entity and parameters, with the
    interchangeable parts left out (which copy of a tile, which of the identical trains
    of one company, which of identical certificates, a token's slot, a depot train's
    variant label)."""
    if isinstance(action, LayTile):
        name = action.tile.rpartition("-")[0] or action.tile
        return (action.type, action.entity, action.hex, name, action.rotation % 6)
    if isinstance(action, BuyShares | SellShares):
        certs: list[tuple[str, str | None, int, bool]] = []
        for sid in action.shares:
            sym, _, idx = sid.rpartition("_")
            corp = game.corporations.get(sym)
            if corp is None or not idx.isdigit() or int(idx) >= len(corp.certificates):
                certs.append((sid, None, 0, False))
                continue
            c = corp.certificates[int(idx)]
            certs.append((sym, str(c.owner), c.percent, c.president))
        return (action.type, action.entity, action.percent, tuple(sorted(certs)))
    if isinstance(action, BuyTrain):
        try:
            train = game.train(action.train)
            what: Any = (train.name, str(train.owner))
            if train.owner is None or train.owner == MARKET:
                # the bank's trains are told apart: it sells those of a type in order
                what = (train.id, str(train.owner))
        except GameError:
            what = (action.train, None)
        exchange = None
        if action.exchange is not None:
            exchange = action.exchange
        return (action.type, action.entity, what, action.price, exchange)
    if action.type == "place_token":
        return (action.type, action.entity, getattr(action, "city", ""))
    return (action.type, action.entity, *_fields(action)[1:])


def find_choice(game: GameView, choices: list[Choice], action: Action) -> Choice | None:
    """The entry of ``choices`` (a ``legal_actions()`` list for ``game`` now) that
    offers ``action``, compared by :func:`choice_key`; ``None`` when none does.  A run
    matches the route choice of its entity when the rules accept its routes."""
    key = choice_key(game, action)
    for c in choices:
        if isinstance(c, RouteChoice):
            if c.contains(action, game):
                return c
        elif isinstance(c, AmountRange):
            if type(c.action) is not type(action):
                continue
            value = getattr(action, c.field)
            if (isinstance(value, int) and value in c.values()
                    and choice_key(game, with_amount(action, c.field, c.min))
                    == choice_key(game, c.action)):
                return c
        elif choice_key(game, c) == key:
            return c
    return None
