"""Actions: one declaration per action type, in the 18xx.games export shape, validated.

Every action has ``type``, ``entity`` (a player id or an entity symbol),
``entity_type`` (``"player"``, ``"corporation"``, ``"minor"``, ``"company"``)
and, once recorded, an ``id``.  Each class declares its fields with their types
and ranges (pydantic dataclasses): building an action by hand checks them and
raises :class:`~rhineland.errors.ActionError` naming the field, what was
expected and what was found (``Bid(entity=1, company="PWB", price=20.5)``:
``bid action: price: expected a whole amount of M (an integer >= 0), found 20.5``).

:func:`action_from_json` builds the right class from an export record with the
same declarations; given the game's :class:`Refs` it also checks every name the
action uses (players, corporations, minors, companies, certificates, trains,
hexes, tiles, cities, par cells) and that a route's ``hexes`` and ``nodes``
agree with its ``connections``.  :meth:`Action.to_json` writes an action back,
keeping the reference fields we do not model (``extra``) so that exports
round-trip unchanged.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import MISSING, field, fields
from dataclasses import dataclass as plain_dataclass
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    ClassVar,
    Literal,
    Required,
    TypeVar,
    cast,
    dataclass_transform,
)

import orjson
from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    PlainValidator,
    Strict,
    ValidationError,
    ValidationInfo,
    WrapValidator,
    model_validator,
    with_config,
)
from pydantic.dataclasses import dataclass
from pydantic_core import PydanticCustomError
from typing_extensions import TypedDict

from rhineland.errors import ActionError

if TYPE_CHECKING:
    from rhineland.engine.titledata import TitleData

BASE_KEYS = ("type", "entity", "entity_type", "id", "created_at", "user", "auto_actions")


# -- the names a game's actions may use ---------------------------------------------------
@plain_dataclass(frozen=True)
class Refs:
    """Everything an action of one game may name: its players and the title's
    corporations, minors, private companies, certificates, trains, hexes, tiles and
    par cells.  Passed to :func:`action_from_json` so that an export naming a hex or
    a company the game does not have is refused before any action is applied."""

    title: str
    players: frozenset[int]
    corporations: frozenset[str]
    minors: frozenset[str]
    companies: frozenset[str]
    shares: frozenset[str]
    trains: frozenset[str]
    variants: frozenset[str]
    hexes: frozenset[str]
    tiles: frozenset[str]
    preprinted: frozenset[str]
    share_prices: frozenset[str]

    @classmethod
    def of(cls, data: TitleData, player_ids: Iterable[int]) -> Refs:
        """The names of a game of ``data`` (a title with its optional rules) and these players."""
        return cls(
            title=data.title,
            players=frozenset(player_ids),
            corporations=frozenset(c.sym for c in data.corporations),
            minors=frozenset(m.sym for m in data.minors),
            companies=frozenset(p.sym for p in data.privates),
            shares=frozenset(
                f"{c.sym}_{i}" for c in data.corporations for i in range(len(c.shares))
            ),
            trains=frozenset(tid for t in data.trains for tid in t.ids),
            variants=frozenset(t.name for t in data.trains),
            hexes=frozenset(data.map.hexes),
            tiles=frozenset(data.tiles),
            preprinted=frozenset(h.preprinted_id for h in data.map.hexes.values()),
            share_prices=frozenset(
                c.id for row in data.market for c in row if c is not None
            ),
        )

    def describe(self, kind: str) -> str:
        """What a name of ``kind`` must be, for an error message (with the choices when
        there are few)."""
        what = _KINDS[kind]
        choices = sorted(getattr(self, kind), key=str)
        if len(choices) <= 16:
            return f"{what} of this {self.title} game ({', '.join(map(str, choices))})"
        return f"{what} of this {self.title} game"


_KINDS = {
    "players": "a player id",
    "corporations": "a corporation",
    "minors": "a minor",
    "companies": "a private company",
    "shares": "a certificate id SYM_i",
    "trains": "a train id",
    "variants": "a train type",
    "hexes": "a hex",
    "tiles": "a tile",
    "share_prices": "a stock market cell 'price,row,col'",
}


def _refs(info: ValidationInfo) -> Refs | None:
    ctx = info.context
    return ctx if isinstance(ctx, Refs) else None


_MISSING = object()


def _field_error(name: str, expected: str, found: Any = _MISSING) -> PydanticCustomError:
    """A validation error about field ``name`` raised by a check across fields
    (``found`` left out: the field is missing)."""
    return PydanticCustomError(
        "action_field", "{field}: expected {expected}",
        {"field": name, "expected": expected,
         "found": "nothing" if found is _MISSING else found_text(found)},
    )


def _known(kind: str) -> AfterValidator:
    """The value must be one of the game's names of ``kind`` (checked with :class:`Refs`)."""

    def check(value: Any, info: ValidationInfo) -> Any:
        refs = info.context
        if refs is None or value in getattr(refs, kind):
            return value
        assert isinstance(refs, Refs)
        raise _unknown_name(refs.describe(kind))

    return AfterValidator(check)


def _pattern(regex: str, what: str) -> AfterValidator:
    """The string must match ``regex`` (a structural check, with or without :class:`Refs`)."""
    compiled = re.compile(regex)

    def check(value: str) -> str:
        if compiled.fullmatch(value) is None:
            raise PydanticCustomError("malformed", "{expected}", {"expected": what})
        return value

    return AfterValidator(check)


def _unknown_name(expected: str) -> PydanticCustomError:
    """The error for a well-formed id that names nothing in the game."""
    return PydanticCustomError("unknown_name", "{expected}", {"expected": expected})


def _tile_known(value: str, info: ValidationInfo) -> str:
    refs = _refs(info)
    if refs is not None and value.rpartition("-")[0] not in refs.tiles:
        raise _unknown_name(f"a tile id <tile>-<copy> naming a tile of {refs.title}")
    return value


def _city_known(value: str, info: ValidationInfo) -> str:
    refs = _refs(info)
    if refs is None:
        return value
    tile_id = value.rpartition("-")[0]
    if tile_id.rpartition("-")[0] in refs.tiles or tile_id in refs.preprinted:
        return value
    raise _unknown_name(f"a city id <tile id>-<city> on a tile or map hex of {refs.title}")


def _node_known(value: str, info: ValidationInfo) -> str:
    refs = _refs(info)
    if refs is not None and value.rpartition("-")[0] not in refs.hexes:
        raise _unknown_name(f"a node id <hex>-<part> on a hex of the {refs.title} map")
    return value


def _entity_value(value: Any) -> int | str:
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise PydanticCustomError(
        "entity_type", "{expected}", {"expected": "a player id (integer) or an entity symbol"}
    )


def _condition_value(value: Any) -> str | int:
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise PydanticCustomError(
        "condition_type", "{expected}", {"expected": "a condition name or a count"}
    )


# -- field types: each says what it accepts --------------------------------------------------
Int = Annotated[int, Strict()]
Text = Annotated[str, Strict()]
Flag = Annotated[bool, Strict()]
Money = Annotated[int, Strict(), Field(ge=0)]
Percent = Annotated[int, Strict(), Field(ge=1, le=100)]
Rotation = Annotated[int, Strict(), Field(ge=0, le=5)]
Slot = Annotated[int, Strict(), Field(ge=0)]
ActionId = Annotated[int, Strict(), Field(ge=1)]
UndoTarget = Annotated[int, Strict(), Field(ge=0)]
EntityId = Annotated[int | str, PlainValidator(_entity_value)]
EntityType = Literal["player", "corporation", "minor", "company"]
CorpSym = Annotated[str, Strict(), _known("corporations")]
CompanySym = Annotated[str, Strict(), _known("companies")]
MinorSym = Annotated[str, Strict(), _known("minors")]
ShareId = Annotated[str, Strict(), _pattern(r".+_\d+", "a certificate id SYM_i"),
                    _known("shares")]
TrainId = Annotated[str, Strict(), _pattern(r".+-\d+", "a train id <type>-<n>"),
                    _known("trains")]
HexId = Annotated[str, Strict(), _known("hexes")]
TileId = Annotated[str, Strict(), _pattern(r".+-\d+", "a tile id <tile>-<copy>"),
                   AfterValidator(_tile_known)]
CityId = Annotated[str, Strict(), _pattern(r".+-\d+-\d+", "a city id <tile id>-<city>"),
                   AfterValidator(_city_known)]
NodeId = Annotated[str, Strict(), _pattern(r".+-\d+", "a node id <hex>-<part>"),
                   AfterValidator(_node_known)]
SharePrice = Annotated[str, Strict(),
                       _pattern(r"\d+,\d+,\d+", "a stock market cell 'price,row,col'"),
                       _known("share_prices")]
Condition = Annotated[str | int, PlainValidator(_condition_value)]

# What a field holds, for error messages (by field name; the type's own message otherwise).
EXPECT: dict[str, str] = {
    "entity": "a player id (integer) or an entity symbol",
    "entity_type": "'player', 'corporation', 'minor' or 'company'",
    "id": "an action id (an integer >= 1)",
    "created_at": "a time stamp (an integer)",
    "user": "a user id (an integer)",
    "auto_actions": "a list of actions",
    "price": "a whole amount of M (an integer >= 0)",
    "cost": "a whole amount of M (an integer >= 0)",
    "revenue": "a whole amount of M (an integer >= 0)",
    "extra_revenue": "a whole amount of M (an integer)",
    "subsidy": "a whole amount of M (an integer)",
    "share_price": "a share price",
    "percent": "a percentage (an integer 1-100)",
    "rotation": "a rotation (an integer 0-5)",
    "slot": "a token slot (an integer >= 0)",
    "shares": "a non-empty list of certificate ids SYM_i",
    "company": "a private company symbol",
    "minor": "a minor symbol",
    "corporation": "a corporation symbol",
    "corporations": "a list of corporation symbols",
    "hex": "a hex id",
    "tile": "a tile id <tile>-<copy>",
    "city": "a city id <tile id>-<city>",
    "tokener": "a corporation or minor symbol",
    "train": "a train id <type>-<n>",
    "exchange": "a train id <type>-<n>",
    "variant": "a train type",
    "shell": "a string",
    "kind": "'payout', 'withhold' or 'half'",
    "description": "a string",
    "target": "a string (what is assigned)",
    "target_type": "a string (the kind of target)",
    "action_id": "an action id (an integer >= 0)",
    "message": "a string",
    "unconditional": "true or false",
    "indefinite": "true or false",
    "from_market": "true or false",
    "auto_pass_after": "true or false",
    "until_condition": "a condition name or a count",
    "reason": "a string",
    "original_type": "a string",
    "routes": "a list of routes",
    "connections": "a non-empty list of chains, each a non-empty list of hexes",
    "hexes": "a list of hexes",
    "nodes": "a list of node ids <hex>-<part>",
    "revenue_str": "a string",
    "halts": "an integer",
}
# What an item of a list field holds, by depth (``connections[0]``, ``connections[0][1]``).
ITEM_EXPECT: dict[str, tuple[str, ...]] = {
    "routes": ("a route (an object: train, connections, hexes, nodes, revenue)",),
    "connections": ("a chain (a non-empty list of hexes)", "a hex id"),
    "hexes": ("a hex id",),
    "nodes": ("a node id <hex>-<part>",),
    "shares": ("a certificate id SYM_i",),
    "corporations": ("a corporation symbol",),
    "auto_actions": ("an action (an object)",),
}


# -- run_routes: a route as the export records it ---------------------------------------------
@with_config(ConfigDict(extra="forbid"))
class RouteRecord(TypedDict, total=False):
    """One train's route in a ``run_routes`` action: the train, the chains of hexes it
    walks (node to node), the hexes and node ids of the stops, and what it earned."""

    train: Required[TrainId]
    connections: Required[Annotated[
        tuple[Annotated[tuple[HexId, ...], Field(min_length=1)], ...], Field(min_length=1)
    ]]
    hexes: tuple[HexId, ...]
    nodes: tuple[NodeId, ...]
    revenue: Money
    revenue_str: Text
    subsidy: Int
    halts: Int | None
    abilities: Any


def _route_agrees(route: RouteRecord) -> RouteRecord:
    """The export repeats a route: its ``hexes`` are the hexes its chains start and end
    in, and its ``nodes`` lie on those hexes."""
    ends = {h for chain in route["connections"] for h in (chain[0], chain[-1])}
    hexes = route.get("hexes")
    if hexes is not None and set(hexes) != ends:
        raise _field_error("hexes", f"the hexes the connections start and end in "
                           f"({', '.join(sorted(ends))})", list(hexes))
    nodes = route.get("nodes")
    if nodes is not None and {n.rpartition("-")[0] for n in nodes} != ends:
        raise _field_error("nodes", f"node ids on the hexes the connections start and end in "
                           f"({', '.join(sorted(ends))})", list(nodes))
    return route


def _keep_recorded(value: Any, handler: Callable[[Any], Any]) -> Any:
    """Validate the routes, then keep them as recorded (key order included; lists as
    tuples) so that an export writes back unchanged."""
    handler(value)
    return tuple(
        {k: (tuple(tuple(c) for c in v) if k == "connections" else
             tuple(v) if isinstance(v, list) else v) for k, v in route.items()}
        for route in value
    )


Routes = Annotated[
    tuple[Annotated[RouteRecord, AfterValidator(_route_agrees)], ...],
    WrapValidator(_keep_recorded),
]


# -- the actions -------------------------------------------------------------------------------
_A = TypeVar("_A")
CONFIG = ConfigDict(extra="forbid")


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(field,))
def _declare(cls: type[_A]) -> type[_A]:
    """An action class: a frozen, keyword-only pydantic dataclass whose constructor
    raises :class:`ActionError` (one line) for a malformed field."""
    declared: Any = dataclass(frozen=True, kw_only=True, config=CONFIG)(cls)
    init = declared.__init__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        try:
            init(self, *args, **kwargs)
        except ValidationError as exc:
            raise _action_error(declared, exc, kwargs, None) from None

    __init__.__doc__ = init.__doc__
    declared.__init__ = __init__
    return declared  # type: ignore[no-any-return]


_DEFAULTS: dict[type, tuple[dict[str, Any], tuple[str, ...]]] = {}
"""Per action class: every field by name with its default (``_MISSING``: none), in field
order, and the names of the fields without a default."""


def trusted(cls: type[_A], **values: Any) -> _A:
    """An action of ``cls`` the engine builds from its own state (the legal-action
    generator's candidates, thousands per game): ``values`` are of the declared field types
    already, so the constructor's validation is skipped; the action equals the one the
    constructor makes (tests/test_trusted_actions.py).  A missing field without default
    raises ``TypeError``; a name that is no field is ignored."""
    spec = _DEFAULTS.get(cls)
    if spec is None:
        spec = _DEFAULTS[cls] = _trusted_spec(cls)
    template, required = spec
    state = template.copy()  # the fields in order, the defaults in place
    state.update(values)
    for name in required:
        if state[name] is _MISSING:
            raise TypeError(f"{cls.__name__} needs {name}")
    if len(state) != len(template):  # names that are no field: left out
        state = {name: state[name] for name in template}
    new = object.__new__(cls)
    _set_dict(new, "__dict__", state)  # the fresh dict itself (a frozen dataclass)
    return new


_set_dict = object.__setattr__


def _trusted_spec(cls: type) -> tuple[dict[str, Any], tuple[str, ...]]:
    """:func:`trusted`'s table for ``cls``: its fields with their defaults, and those
    without one."""
    template = {f.name: _MISSING if f.default is MISSING else f.default
                for f in fields(cast(Any, cls))}
    return template, tuple(name for name, default in template.items() if default is _MISSING)


@_declare
class Action:
    """Base of all actions.

    ``auto_actions`` are the follow-up actions the server recorded inside this
    one (programmed passes, the 18Rhl ``destination_connection`` check ...).
    ``PASSTHROUGH`` names the reference's fields of this type that we keep (in
    ``extra``) without modelling them.
    """

    TYPE: ClassVar[str] = ""
    PASSTHROUGH: ClassVar[frozenset[str]] = frozenset()
    entity: EntityId
    entity_type: EntityType = "player"
    id: ActionId | None = None
    created_at: Int | None = None
    user: Int | None = None
    auto_actions: tuple[Action, ...] = ()
    extra: tuple[tuple[str, Any], ...] = field(default=(), compare=False)
    key_order: tuple[str, ...] = field(default=(), compare=False, repr=False)

    @model_validator(mode="after")
    def _entity_exists(self, info: ValidationInfo) -> Action:
        player = self.entity_type == "player"
        if player != isinstance(self.entity, int):
            raise _field_error(
                "entity", f"{'a player id (integer)' if player else 'an entity symbol'} "
                f"for entity_type {self.entity_type!r}", self.entity)
        refs = _refs(info)
        if refs is not None:
            table = {"player": "players", "corporation": "corporations", "minor": "minors",
                     "company": "companies"}[self.entity_type]
            if self.entity not in getattr(refs, table):
                raise _field_error("entity", refs.describe(table), self.entity)
        return self

    @property
    def type(self) -> str:
        """The export's action type (e.g. ``"buy_shares"``): the class's ``TYPE``."""
        return self.TYPE

    @classmethod
    def _own_fields(cls) -> list[str]:
        base = {f.name for f in fields(Action)}
        return [f.name for f in fields(cls) if f.name not in base]

    def to_json(self) -> dict[str, Any]:
        """The export record of this action."""
        out: dict[str, Any] = {"type": self.TYPE, "entity": self.entity,
                               "entity_type": self.entity_type}
        if self.id is not None:
            out["id"] = self.id
        if self.created_at is not None:
            out["created_at"] = self.created_at
        if self.user is not None:
            out["user"] = self.user
        if self.auto_actions:
            out["auto_actions"] = [a.to_json() for a in self.auto_actions]
        defaults = {f.name: f.default for f in fields(self)}
        for name in self._own_fields():
            value = getattr(self, name)
            if value is None and defaults.get(name) is None:
                continue
            out[name] = _thaw(value)
        for k, v in self.extra:
            out[k] = v
        if self.key_order:
            # an action read from an export writes back exactly the keys it had, in order
            base = {k: out[k] for k in ("type", "entity", "entity_type") if k in out}
            ordered = {k: out.get(k, base.get(k)) for k in self.key_order}
            if self.auto_actions and "auto_actions" not in ordered:
                ordered["auto_actions"] = out["auto_actions"]  # made by the rules
            for name in self._own_fields():
                changed = getattr(self, name) != defaults.get(name)
                if name not in ordered and name in out and changed:
                    ordered[name] = out[name]
            return ordered
        return out


def with_auto_actions(action: _A, autos: tuple[Action, ...]) -> _A:
    """A copy of ``action`` carrying ``autos`` as its ``auto_actions`` (actions are frozen)."""
    new = object.__new__(type(action))
    new.__dict__.update(action.__dict__)
    object.__setattr__(new, "auto_actions", autos)
    return new


def _freeze(value: Any) -> Any:
    """Lists become tuples (recursively); dicts stay dicts with frozen values."""
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return {k: _freeze(v) for k, v in value.items()}
    return value


def _thaw(value: Any) -> Any:
    """Inverse of :func:`_freeze`: tuples back to lists."""
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    if isinstance(value, dict):
        return {k: _thaw(v) for k, v in value.items()}
    return value


@_declare
class Pass(Action):
    """Pass: end the current step (or the stock round turn, the auction turn)."""

    TYPE: ClassVar[str] = "pass"


@_declare
class Bid(Action):
    """Bid ``price`` M on private ``company`` (buying the cheapest item is a bid at its
    price), or on a ``minor`` or ``corporation``: exactly one of the three."""

    TYPE: ClassVar[str] = "bid"
    company: CompanySym | None = None
    minor: MinorSym | None = None
    corporation: CorpSym | None = None
    price: Money

    @model_validator(mode="after")
    def _one_item(self) -> Bid:
        named = [n for n in ("company", "minor", "corporation") if getattr(self, n) is not None]
        if len(named) != 1:
            raise _field_error("company", "one of company, minor or corporation (what is bid on)",
                               *([{n: getattr(self, n) for n in named}] if named else []))
        return self


@_declare
class Par(Action):
    """Start ``corporation`` at par cell ``share_price`` = ``"price,row,col"``."""

    TYPE: ClassVar[str] = "par"
    PASSTHROUGH: ClassVar[frozenset[str]] = frozenset({
        "slot", "purchase_for_type", "purchase_for", "borrow_from_type", "borrow_from",
    })
    corporation: CorpSym
    share_price: SharePrice


@_declare
class BuyShares(Action):
    """Buy certificates ``shares`` (ids ``"SYM_i"``) totalling ``percent``."""

    TYPE: ClassVar[str] = "buy_shares"
    PASSTHROUGH: ClassVar[frozenset[str]] = frozenset({
        "swap", "purchase_for_type", "purchase_for", "borrow_from_type", "borrow_from",
        "total_price", "discounter",
    })
    shares: Annotated[tuple[ShareId, ...], Field(min_length=1)]
    percent: Percent
    share_price: Money | None = None


@_declare
class SellShares(Action):
    """Sell certificates ``shares`` totalling ``percent`` to the market."""

    TYPE: ClassVar[str] = "sell_shares"
    PASSTHROUGH: ClassVar[frozenset[str]] = frozenset({"share_price", "swap"})
    shares: Annotated[tuple[ShareId, ...], Field(min_length=1)]
    percent: Percent


@_declare
class LayTile(Action):
    """Lay tile copy ``tile`` on ``hex`` with ``rotation``."""

    TYPE: ClassVar[str] = "lay_tile"
    PASSTHROUGH: ClassVar[frozenset[str]] = frozenset({"combo_entities"})
    hex: HexId
    tile: TileId
    rotation: Rotation


@_declare
class PlaceToken(Action):
    """Place a station token in ``city`` (``"<tile id>-<part>"``), slot ``slot``."""

    TYPE: ClassVar[str] = "place_token"
    PASSTHROUGH: ClassVar[frozenset[str]] = frozenset({"token_type", "cost"})
    city: CityId
    slot: Slot
    tokener: Text | None = None

    @model_validator(mode="after")
    def _tokener_exists(self, info: ValidationInfo) -> PlaceToken:
        refs = _refs(info)
        if refs is not None and self.tokener is not None and (
            self.tokener not in refs.corporations and self.tokener not in refs.minors
        ):
            raise _field_error("tokener", f"a corporation or minor of this {refs.title} game",
                               self.tokener)
        return self


@_declare
class RunRoutes(Action):
    """Run trains: ``routes`` as recorded (train, connections, hexes, nodes, revenue)."""

    TYPE: ClassVar[str] = "run_routes"
    routes: Routes
    extra_revenue: Int = 0
    subsidy: Int = 0


@_declare
class Dividend(Action):
    """Distribute the run's revenue: ``kind`` ``"payout"``, ``"withhold"`` or ``"half"``."""

    TYPE: ClassVar[str] = "dividend"
    kind: Literal["payout", "withhold", "half"]


@_declare
class BuyTrain(Action):
    """Buy ``train`` for ``price`` M (``variant`` set when bought from the depot)."""

    TYPE: ClassVar[str] = "buy_train"
    PASSTHROUGH: ClassVar[frozenset[str]] = frozenset({"slots", "extra_due", "warranties"})
    train: TrainId
    price: Money
    variant: Annotated[str, Strict(), _known("variants")] | None = None
    exchange: TrainId | None = None
    shell: Text | None = None


@_declare
class DiscardTrain(Action):
    """Discard ``train`` (over the train limit)."""

    TYPE: ClassVar[str] = "discard_train"
    train: TrainId


@_declare
class BuyCompany(Action):
    """Buy private company / bond ``company`` for ``price`` M."""

    TYPE: ClassVar[str] = "buy_company"
    company: CompanySym
    price: Money


@_declare
class SellCompany(Action):
    """Sell private company / bond ``company`` for ``price`` M."""

    TYPE: ClassVar[str] = "sell_company"
    company: CompanySym
    price: Money


@_declare
class SpecialBuy(Action):
    """A title-specific buy (1893: merger votes, FdSD exchange): ``description`` says which."""

    TYPE: ClassVar[str] = "special_buy"
    description: Text
    cost: Money = 0


@_declare
class Assign(Action):
    """Assign ``target`` (of ``target_type``: a company, corporation, minor or hex)."""

    TYPE: ClassVar[str] = "assign"
    target: Text
    target_type: Text

    @model_validator(mode="after")
    def _target_exists(self, info: ValidationInfo) -> Assign:
        refs = _refs(info)
        table = {"company": "companies", "corporation": "corporations", "minor": "minors",
                 "hex": "hexes"}.get(self.target_type)
        if refs is not None and table is not None and self.target not in getattr(refs, table):
            raise _field_error("target", refs.describe(table), self.target)
        return self


@_declare
class Bankrupt(Action):
    """Declare bankruptcy."""

    TYPE: ClassVar[str] = "bankrupt"


@_declare
class TakeLoan(Action):
    """A president takes a bank loan of ``amount`` M for the train their company must
    buy (18Rhl's ``seed`` rule set: deducted doubled from their final value).  Not an
    18xx.games action of 18Rhl: only games of the ``seed`` rule set hold it."""

    TYPE: ClassVar[str] = "take_loan"
    amount: Annotated[int, Strict(), Field(ge=1)]


@_declare
class Undo(Action):
    """Undo the last action (or back to ``action_id``)."""

    TYPE: ClassVar[str] = "undo"
    action_id: UndoTarget | None = None


@_declare
class Redo(Action):
    """Redo the last undone batch."""

    TYPE: ClassVar[str] = "redo"


@_declare
class Message(Action):
    """A chat message (no effect on the game)."""

    TYPE: ClassVar[str] = "message"
    message: Text


@_declare
class ProgramSharePass(Action):
    """Program: pass in stock rounds automatically."""

    TYPE: ClassVar[str] = "program_share_pass"
    unconditional: Flag = False
    indefinite: Flag = False


@_declare
class ProgramBuyShares(Action):
    """Program: buy shares of ``corporation`` until ``until_condition``."""

    TYPE: ClassVar[str] = "program_buy_shares"
    corporation: CorpSym
    until_condition: Condition | None = None
    from_market: Flag = False
    auto_pass_after: Flag = False


@_declare
class ProgramDisable(Action):
    """Programmed actions switched off (``reason``)."""

    TYPE: ClassVar[str] = "program_disable"
    reason: Text | None = None
    original_type: Text | None = None


@_declare
class DestinationConnection(Action):
    """18Rhl: record of the RhE Köln–Düren–Aachen link check (``corporations`` linked)."""

    TYPE: ClassVar[str] = "destination_connection"
    corporations: tuple[CorpSym, ...]


ACTION_TYPES: dict[str, type[Action]] = {
    cls.TYPE: cls
    for cls in (
        Pass, Bid, Par, BuyShares, SellShares, LayTile, PlaceToken, RunRoutes, Dividend,
        BuyTrain, DiscardTrain, BuyCompany, SellCompany, SpecialBuy, Assign, Bankrupt,
        TakeLoan, Undo,
        Redo, Message, ProgramSharePass, ProgramBuyShares, ProgramDisable, DestinationConnection,
    )
}

PROGRAM_TYPES = frozenset({"program_share_pass", "program_buy_shares", "program_disable"})
_NOT_KEYS = frozenset({"extra", "key_order"})


# -- reading an export record ------------------------------------------------------------------
def found_text(value: Any) -> str:
    """A value as an error message shows it: JSON, shortened."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def describe_action(data: Any, index: int | None = None) -> str:
    """How an error names an export record: ``action 12 (lay_tile)``, or by its
    position when its id is unusable, ``action #7 (lay_tile)`` (counting from 1)."""
    kind = data.get("type") if isinstance(data, dict) else None
    aid = data.get("id") if isinstance(data, dict) else None
    tail = f" ({kind})" if isinstance(kind, str) else ""
    if isinstance(aid, int) and not isinstance(aid, bool) and aid >= 1:
        return f"action {aid}{tail}"
    if index is not None:
        return f"action #{index + 1}{tail}"
    return f"{kind} action" if isinstance(kind, str) else "action"


def _loc_text(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _action_error(cls: type[Action], exc: ValidationError, data: Mapping[str, Any],
                  where: str | None) -> ActionError:
    """The first error of a failed validation as one line naming the field."""
    err = exc.errors(include_url=False)[0]
    loc = tuple(err["loc"])
    ctx = err.get("ctx") or {}
    kind = err["type"]
    if kind == "action_field":
        name = _loc_text((*loc, ctx["field"]))
        expected, found = ctx["expected"], ctx["found"]
    else:
        name = _loc_text(loc)
        last = next((p for p in reversed(loc) if isinstance(p, str)), "")
        if kind in ("unexpected_keyword_argument", "extra_forbidden"):
            expected = f"no such field ({_fields_text(cls)})" if len(loc) == 1 else (
                "no such field (a route has train, connections, hexes, nodes, revenue, "
                "revenue_str, subsidy, halts, abilities)")
        elif kind in ("unknown_name", "malformed", "entity_type", "condition_type"):
            expected = ctx["expected"]
        elif kind == "literal_error":
            expected = str(ctx.get("expected", err["msg"]))
        elif kind == "missing" or loc[-1] == last:
            expected = EXPECT.get(last, "a value")
        else:
            depth = len(loc) - loc.index(last) - 1
            items = ITEM_EXPECT.get(last, ())
            expected = items[depth - 1] if depth <= len(items) else (
                err["msg"].removeprefix("Input should be "))
        found = "nothing" if kind == "missing" else found_text(err.get("input"))
    return ActionError(where or describe_action({"type": cls.TYPE, **data}), name or "action",
                       expected, found, action_id=_record_id(data), action_type=cls.TYPE)


def _record_id(data: Mapping[str, Any]) -> int | None:
    """The record's usable ``id`` (an integer >= 1), else None."""
    aid = data.get("id")
    return aid if isinstance(aid, int) and not isinstance(aid, bool) and aid >= 1 else None


def _fields_text(cls: type[Action]) -> str:
    base = {f.name for f in fields(Action)}
    own = [f.name for f in fields(cls) if f.name not in base]
    names = ", ".join([*own, *sorted(cls.PASSTHROUGH)]) or "no fields"
    return f"{cls.TYPE} has {names} besides {', '.join(BASE_KEYS)}"


def action_from_json(data: Any, refs: Refs | None = None, *, index: int | None = None,
                     where: str | Callable[[], str] | None = None) -> Action:
    """The typed action for one export record, every field checked.

    With ``refs`` every name the action uses must exist in that game.  Raises
    :class:`ActionError` (one line: the action, the field, what was expected and
    what was found) for an unknown type, a missing, unknown or malformed field.
    The error names the record ``action <id> (<type>)``, or ``action #<index + 1>``
    when its id is unusable, or as ``where`` says.
    """

    def name() -> str:
        if where is None:
            return describe_action(data, index)
        return where if isinstance(where, str) else where()

    if not isinstance(data, dict):
        raise ActionError(name(), "action", "a JSON object", found_text(data))
    kind = data.get("type")
    cls = ACTION_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ActionError(name(), "type", "one of the action types "
                          f"({', '.join(ACTION_TYPES)})",
                          "nothing" if "type" not in data else f"unknown action type {kind!r}"
                          if isinstance(kind, str) else found_text(kind),
                          action_id=_record_id(data), action_type=str(kind))
    passthrough = cls.PASSTHROUGH
    kwargs = {k: v for k, v in data.items() if k != "type" and k not in passthrough}
    if _NOT_KEYS & kwargs.keys():
        bad = min(_NOT_KEYS & kwargs.keys())
        raise ActionError(name(), bad, f"no field {bad!r} ({_fields_text(cls)})",
                          found_text(data[bad]), action_id=_record_id(data),
                          action_type=cls.TYPE)
    autos = kwargs.get("auto_actions")
    if autos is not None:
        if not isinstance(autos, list):
            raise ActionError(name(), "auto_actions", EXPECT["auto_actions"], found_text(autos),
                              action_id=_record_id(data), action_type=cls.TYPE)
        kwargs["auto_actions"] = tuple(
            action_from_json(a, refs, where=functools.partial(_auto_name, name, i, a))
            for i, a in enumerate(autos)
        )
    elif "auto_actions" in kwargs:
        del kwargs["auto_actions"]
    if passthrough:
        kwargs["extra"] = tuple((k, v) for k, v in data.items() if k in passthrough)
    kwargs["key_order"] = tuple(data)
    try:
        action: Action = cls.__pydantic_validator__.validate_python(  # type: ignore[attr-defined]
            kwargs, context=refs
        )
    except ValidationError as exc:
        raise _action_error(cls, exc, data, name()) from None
    return action


def _auto_name(outer: Callable[[], str], i: int, data: Any) -> str:
    kind = data.get("type") if isinstance(data, dict) else None
    return f"{outer()}: auto_actions[{i}]" + (f" ({kind})" if isinstance(kind, str) else "")
