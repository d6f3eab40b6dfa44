"""A title's static facts, loaded from its data files into frozen objects.

Each title package holds ``data/*.json`` in the project's own schema
(``docs/data-schema.md``).  :func:`load_title_data` reads them once, applies the
JSON merge patches (RFC 7386) of the chosen optional rules from
``options.json``, and returns a :class:`TitleData`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib import resources
from typing import Any

import orjson

from rhineland.board.mapspec import MapSpec
from rhineland.board.tiles import Tile
from rhineland.errors import GameError


class Static:
    """Mixin for immutable title facts: copies (undo snapshots) share the object."""

    __slots__ = ()

    def __copy__(self) -> Static:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Static:
        return self


@dataclass(frozen=True, slots=True)
class DistanceRule(Static):
    """How far a train runs: ``pay`` counted stops and ``visit`` visits of these node kinds."""

    nodes: tuple[str, ...]
    pay: int
    visit: int


@dataclass(frozen=True)
class TrainSpec(Static):
    """A train type: name, copies in the depot, price (M), distance, rusting and events."""

    name: str
    count: int
    price: int
    distance: tuple[DistanceRule, ...]
    rusts_on: str | None = None
    available_on: str | None = None
    discount: Mapping[str, int] | None = None
    events: tuple[str, ...] = ()

    @property
    def ids(self) -> list[str]:
        """Export ids ``"<name>-<index>"`` in depot order."""
        return [f"{self.name}-{i}" for i in range(self.count)]

    @property
    def city_stops(self) -> int:
        """Counted stops for cities and offboards."""
        for d in self.distance:
            if "city" in d.nodes:
                return d.pay
        return 0


@dataclass(frozen=True)
class PhaseSpec(Static):
    """A phase: started by the first train named ``on``; train limits, tile colours, ORs per set."""

    name: str
    on: str
    train_limit: int | Mapping[str, int]
    tiles: tuple[str, ...]
    status: tuple[str, ...]
    operating_rounds: int

    def limit_for(self, kind: str) -> int:
        """Train limit for ``kind`` (``"corporation"`` or ``"minor"``)."""
        if isinstance(self.train_limit, int):
            return self.train_limit
        return self.train_limit[kind]


@dataclass(frozen=True)
class CorporationSpec(Static):
    """A corporation: token prices (M), home hex(es), float %, certificates (percent each)."""

    sym: str
    name: str
    tokens: tuple[int, ...]
    home: tuple[str, ...]
    home_city: int | None
    float_percent: int
    max_ownership_percent: int
    shares: tuple[int, ...]
    reserved_shares: tuple[int, ...] = ()
    floatable: bool = True
    float_excludes_market: bool = False
    abilities: tuple[Mapping[str, Any], ...] = ()

    @property
    def share_ids(self) -> list[str]:
        """Export ids of the certificates, ``"<sym>_<index>"``; index 0 is the president's."""
        return [f"{self.sym}_{i}" for i in range(len(self.shares))]

    @property
    def president_percent(self) -> int:
        """Percent of the president's certificate (index 0)."""
        return self.shares[0]

    @property
    def double_certs(self) -> tuple[bool, ...]:
        """Per certificate: a non-president certificate of twice the smallest share."""
        single = min(self.shares)
        return tuple(i > 0 and pct == 2 * single for i, pct in enumerate(self.shares))


@dataclass(frozen=True)
class MinorSpec(Static):
    """A minor company (1893): one home token."""

    sym: str
    name: str
    tokens: tuple[int, ...]
    home: str
    home_city: int
    abilities: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class PrivateSpec(Static):
    """A private company: face value and income (M) and its abilities (raw records).

    ``initial_owner`` is ``"bank"`` where the bank holds the company at the start
    (1893), else ``None`` (sold in the initial auction, 18Rhl).
    """

    sym: str
    name: str
    value: int
    revenue: int
    abilities: tuple[Mapping[str, Any], ...] = ()
    initial_owner: str | None = None

    @property
    def min_price(self) -> int:
        """Least price (M) when a corporation buys it from a player: half the value, rounded up."""
        return -(-self.value // 2)

    @property
    def max_price(self) -> int:
        """Greatest price (M) in such a purchase: twice the value."""
        return 2 * self.value

    def ability(self, kind: str) -> Mapping[str, Any] | None:
        """The company's first ability of type ``kind`` (e.g. ``"blocks_hexes"``,
        ``"teleport"``), or ``None``."""
        for a in self.abilities:
            if a.get("type") == kind:
                return a
        return None


@dataclass(frozen=True)
class MarketCell(Static):
    """A stock market cell: price (M), position and types (``"par"``, ...)."""

    price: int
    row: int
    col: int
    types: tuple[str, ...] = ()

    @property
    def is_par(self) -> bool:
        """Whether this is a par cell (one of its types starts with ``"par"``)."""
        return any(t.startswith("par") for t in self.types)

    @property
    def id(self) -> str:
        """Export id ``"<price>,<row>,<col>"`` (a par action's ``share_price``)."""
        return f"{self.price},{self.row},{self.col}"


@dataclass(frozen=True)
class TitleData(Static):
    """Everything static about one title with one set of optional rules."""

    title: str
    optional_rules: tuple[str, ...]
    bank: int
    players: Mapping[int, tuple[int, int]]  # player count -> (starting cash M, cert limit)
    layout: str
    rng: tuple[int, int, int]
    rules: Mapping[str, Any]
    constants: Mapping[str, Any]
    variable_icons: Mapping[str, Any] | None
    market: tuple[tuple[MarketCell | None, ...], ...]
    market_movement: str
    trains: tuple[TrainSpec, ...]
    phases: tuple[PhaseSpec, ...]
    corporations: tuple[CorporationSpec, ...]
    minors: tuple[MinorSpec, ...]
    privates: tuple[PrivateSpec, ...]
    tiles: Mapping[str, Tile]
    map: MapSpec

    def train(self, name: str) -> TrainSpec:
        """The train type ``name``; raises ``KeyError`` when the title has none."""
        for t in self.trains:
            if t.name == name:
                return t
        raise KeyError(name)

    def corporation(self, sym: str) -> CorporationSpec:
        """The corporation spec ``sym``; raises ``KeyError`` when unknown."""
        for c in self.corporations:
            if c.sym == sym:
                return c
        raise KeyError(sym)

    def private(self, sym: str) -> PrivateSpec:
        """The private company spec ``sym``; raises ``KeyError`` when unknown."""
        for p in self.privates:
            if p.sym == sym:
                return p
        raise KeyError(sym)

    @cached_property
    def par_cells(self) -> tuple[MarketCell, ...]:
        """Every par cell of the market, row by row (computed once)."""
        return tuple(c for row in self.market for c in row if c is not None and c.is_par)


FILES = ("game", "market", "trains", "entities", "tiles", "map")


def merge_patch(target: Any, patch: Any) -> Any:
    """Apply a JSON merge patch (RFC 7386) to ``target`` and return the result."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


def _read(package: str, name: str) -> Any:
    return orjson.loads(resources.files(package).joinpath("data", f"{name}.json").read_bytes())


def optional_rules_of(package: str) -> tuple[str, ...]:
    """The optional rules a title package's data defines (``options.json``), sorted."""
    return tuple(sorted(_read(package, "options")))


@lru_cache(maxsize=32)
def load_title_data(title: str, package: str, optional_rules: tuple[str, ...] = ()) -> TitleData:
    """Load ``package``'s data files with ``optional_rules`` applied.

    Raises :class:`GameError` for an optional rule the title does not have.
    """
    raw = {name: _read(package, name) for name in FILES}
    options = _read(package, "options")
    for opt in optional_rules:
        if opt not in options:
            raise GameError(
                f"{title} has no optional rule {opt!r} (known: {', '.join(sorted(options))})",
                "setup.optional_rules",
            )
        for fname, patch in options[opt].items():
            key = fname.removesuffix(".json")
            raw[key] = merge_patch(raw[key], patch)
    game = raw["game"]
    market = tuple(
        tuple(
            None if cell is None else _cell(cell, r, c) for c, cell in enumerate(row)
        )
        for r, row in enumerate(raw["market"]["rows"])
    )
    trains = tuple(
        TrainSpec(
            name=t["name"],
            count=t["count"],
            price=t["price"],
            distance=_distance(t["distance"]),
            rusts_on=t.get("rusts_on"),
            available_on=t.get("available_on"),
            discount=t.get("discount"),
            events=tuple(t.get("events", ())),
        )
        for t in _records(raw["trains"]["trains"], "name")
    )
    phases = tuple(
        PhaseSpec(
            name=p["name"],
            on=p["on"],
            train_limit=p["train_limit"],
            tiles=tuple(p["tiles"]),
            status=tuple(p["status"]),
            operating_rounds=p["operating_rounds"],
        )
        for p in raw["trains"]["phases"]
    )
    ent = raw["entities"]
    corporations = tuple(
        CorporationSpec(
            sym=c["sym"],
            name=c["name"],
            tokens=tuple(c["tokens"]),
            home=(
                tuple(c["home"])
                if isinstance(c["home"], list)
                else ((c["home"],) if c["home"] else ())
            ),
            home_city=c.get("home_city"),
            float_percent=c["float_percent"],
            max_ownership_percent=c["max_ownership_percent"],
            shares=tuple(c["shares"]),
            reserved_shares=tuple(c.get("reserved_shares", ())),
            floatable=c.get("floatable", True),
            float_excludes_market=c.get("float_excludes_market", False),
            abilities=tuple(c.get("abilities", ())),
        )
        for c in _records(ent["corporations"], "sym")
    )
    minors = tuple(
        MinorSpec(
            m["sym"], m["name"], tuple(m["tokens"]), m["home"], m.get("home_city", 0),
            tuple(m.get("abilities", ())),
        )
        for m in _records(ent["minors"], "sym")
    )
    privates = tuple(
        PrivateSpec(
            p["sym"], p["name"], p["value"], p["revenue"], tuple(p.get("abilities", ())),
            p.get("initial_owner"),
        )
        for p in sorted(_records(ent["privates"], "sym"), key=lambda r: r.get("position", 0))
    )
    tiles = {name: Tile.from_data(name, t) for name, t in raw["tiles"].items()}
    rng = game["rng"]
    return TitleData(
        title=title,
        optional_rules=optional_rules,
        bank=game["bank"],
        players={int(n): (v["cash"], v["cert_limit"]) for n, v in game["players"].items()},
        layout=game["layout"],
        rng=(rng["a"], rng["c"], rng["m"]),
        rules=game["rules"],
        constants=game["constants"],
        variable_icons=game.get("variable_icons"),
        market=market,
        market_movement=raw["market"]["movement"],
        trains=trains,
        phases=phases,
        corporations=corporations,
        minors=minors,
        privates=privates,
        tiles=tiles,
        map=MapSpec.from_data(game["layout"], raw["map"]),
    )


def _records(table: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """Records stored by name (``{"ADR": {...}}``) as dicts with the name under ``key``."""
    return [{key: name, **rec} for name, rec in table.items()]


def _cell(cell: str, row: int, col: int) -> MarketCell:
    price, _, types = cell.partition(":")
    return MarketCell(int(price), row, col, tuple(t for t in types.split(",") if t))


def _distance(d: Any) -> tuple[DistanceRule, ...]:
    if isinstance(d, int):
        return (DistanceRule(("city", "offboard", "town"), d, d),)
    return tuple(DistanceRule(tuple(x["nodes"]), x["pay"], x["visit"]) for x in d)
