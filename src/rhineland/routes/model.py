"""Plain data the route code takes and returns: context, route input, results.

The engine builds a :class:`RouteContext` for the operating entity, turns a
``run_routes`` action's routes into :class:`RouteSpec` (or passes the export
dicts straight to :func:`rhineland.routes.run_revenue`) and gets one
:class:`RouteResult` per train back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from rhineland.board.board import Board
from rhineland.engine.titledata import PhaseSpec, TitleData, TrainSpec
from rhineland.errors import GameError
from rhineland.routes.graph import RevenueNode, Segment


def train_name(train_id: str) -> str:
    """``"8+x-2"`` -> ``"8+x"``: the train type of an export train id."""
    name, sep, idx = train_id.rpartition("-")
    if not sep or not idx.isdigit():
        raise GameError(f"malformed train id {train_id!r}", "route.train")
    return name


@dataclass(frozen=True)
class RouteContext:
    """Everything route validation and revenue need, as plain fields.

    ``board``: the current board (tiles and tokens); ``data``: the title's
    static data (optional rules applied); ``entity``: symbol of the operating
    corporation/minor; ``phase``: current phase name (e.g. ``"5"``, ``"8+x"``);
    ``trains``: export ids of the entity's trains (e.g. ``("5-0", "3-2")``);
    ``rules``: the title's :class:`~rhineland.routes.rules.RevenueRules`
    (``None`` = the common rules; typed ``object`` here so that this data module
    does not depend on the rules that read it: :func:`rhineland.routes.engine.rules_of`
    checks and narrows it).

    Title state the engine maintains (ignored by titles that lack it):

    * ``hex_icons`` -- icons a hex carries beyond the current tile's own, e.g.
      18Rhl's variable coal ``"K"``/steel ``"S"`` icons drawn at setup
      (:func:`rhineland.titles.g18rhl.revenue.variable_icons`) and sticky icons
      kept from replaced tiles (:func:`...g18rhl.revenue.carried_icons`).
    * ``eastern_ruhr_links`` -- 18Rhl: number of established Eastern Ruhr links
      (0..4); ``None`` derives it from the board (the links are tile exits that
      upgrades keep, so the board is an exact record).
    """

    board: Board
    data: TitleData
    entity: str
    phase: str
    trains: tuple[str, ...]
    rules: object | None = None
    hex_icons: Mapping[str, frozenset[str]] = field(default_factory=dict)
    eastern_ruhr_links: int | None = None

    def key(self) -> tuple[object, ...]:
        """What the route rules read of this context, as a hashable key: the board's
        version now (renewed on every tile and token change, shared by clones of the same
        content), entity, phase, trains, the title data and rules by identity (a memo
        keeps the objects and checks them, so that an ``id`` is not reused), 18Rhl's
        icons and Eastern Ruhr links.  Contexts with one key and the same data and rules
        get the same route answers."""
        return (self.board.version, self.entity, self.phase, self.trains, id(self.data),
                id(self.rules), self._icons_key, self.eastern_ruhr_links)

    @cached_property
    def _icons_key(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """:attr:`hex_icons` as a sorted tuple (once per context: the fields are frozen)."""
        return tuple(sorted((h, tuple(sorted(v))) for h, v in self.hex_icons.items()))

    @cached_property
    def phase_spec(self) -> PhaseSpec:
        """The :class:`PhaseSpec` named :attr:`phase`; raises ``GameError`` if unknown
        (looked up once per context: the fields are frozen)."""
        for p in self.data.phases:
            if p.name == self.phase:
                return p
        raise GameError(f"{self.data.title} has no phase {self.phase!r}", "route.phase")

    @property
    def phase_color(self) -> str:
        """The newest tile colour of the phase: it selects offboard/city values."""
        return self.phase_spec.tiles[-1]

    def train_spec(self, train_id: str) -> TrainSpec:
        """The :class:`TrainSpec` of an export train id; ``GameError`` if unknown."""
        name = train_name(train_id)
        try:
            return self.data.train(name)
        except KeyError:
            raise GameError(
                f"{self.data.title} has no train type {name!r}", "route.train"
            ) from None


@dataclass(frozen=True)
class RouteSpec:
    """A route as an export gives it.

    ``train`` is the train id; ``connections`` one tuple of hex ids per chain
    (node to node, in walk order); ``nodes`` optional ``"<hex>-<part>"`` hints
    (used to choose between tracks that walk the same hexes).
    """

    train: str
    connections: tuple[tuple[str, ...], ...]
    nodes: tuple[str, ...] = ()

    @classmethod
    def from_export(cls, route: Mapping[str, Any]) -> RouteSpec:
        """From a ``run_routes`` route dict (``train``, ``connections``, ``nodes``)."""
        return cls(
            train=str(route["train"]),
            connections=tuple(tuple(str(h) for h in chain) for chain in route["connections"]),
            nodes=tuple(str(n) for n in route.get("nodes", ())),
        )

    @classmethod
    def coerce(cls, route: RouteSpec | Mapping[str, Any]) -> RouteSpec:
        """``route`` itself, or :meth:`from_export` of a dict."""
        return route if isinstance(route, RouteSpec) else cls.from_export(route)


@dataclass(frozen=True, slots=True)
class Route:
    """A route resolved to concrete track: segments in order, nodes visited in order.

    ``visits[i]`` and ``visits[i + 1]`` are the ends of ``segments[i]``.
    """

    train: str
    train_spec: TrainSpec
    segments: tuple[Segment, ...]
    visits: tuple[RevenueNode, ...]

    @property
    def units(self) -> frozenset[int]:
        """Track units used by the whole route."""
        out: set[int] = set()
        for s in self.segments:
            out |= s.units
        return frozenset(out)

    @property
    def hexes(self) -> tuple[str, ...]:
        """Every hex walked, in order (a hex where two segments meet listed once)."""
        out: list[str] = []
        for s in self.segments:
            for h in s.hexes:
                if not out or out[-1] != h:
                    out.append(h)
        return tuple(out)


@dataclass(frozen=True, slots=True)
class Bonus:
    """A revenue adjustment in M (negative for a penalty) with the rule's name."""

    name: str
    amount: int
    detail: str = ""

    def __deepcopy__(self, memo: dict[int, Any]) -> Bonus:
        return self  # immutable: a snapshot of the round shares it


@dataclass(frozen=True)
class RouteResult:
    """One train's run: ``revenue`` (M) = ``base`` + sum of ``bonuses``.

    ``visits``: nodes visited in route order (``"<hex>-<part>"``); ``stops``:
    the visits that pay; ``hexes``: hexes walked; ``distance``: counted stops.
    """

    train: str
    revenue: int
    base: int
    bonuses: tuple[Bonus, ...]
    visits: tuple[str, ...]
    stops: tuple[str, ...]
    hexes: tuple[str, ...]
    distance: int

    def bonus(self, name: str) -> int:
        """Sum of the bonuses called ``name`` (0 if none)."""
        return sum(b.amount for b in self.bonuses if b.name == name)

    def __deepcopy__(self, memo: dict[int, Any]) -> RouteResult:
        return self  # immutable (its fields too): a snapshot of the round shares it


RouteInput = RouteSpec | Mapping[str, Any]
"""What :func:`run_revenue` accepts per route."""
