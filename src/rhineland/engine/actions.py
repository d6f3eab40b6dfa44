"""Actions: one small typed class per action type, in the 18xx.games export shape.

Every action has ``type``, ``entity`` (a player id or an entity symbol),
``entity_type`` (``"player"``, ``"corporation"``, ``"minor"``, ``"company"``)
and, once recorded, an ``id``.  :func:`action_from_json` builds the right class
from an export record and :meth:`Action.to_json` writes it back, keeping any
field we do not model (``extra``) so that exports round-trip unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from rhineland.errors import ExportError

BASE_KEYS = ("type", "entity", "entity_type", "id", "created_at", "user", "auto_actions")
_BASE_KEY_SET = frozenset(BASE_KEYS)
_OWN_FIELDS: dict[type, tuple[str, ...]] = {}


@dataclass(frozen=True)
class Action:
    """Base of all actions.

    ``auto_actions`` are the follow-up actions the server recorded inside this
    one (programmed passes, the 18Rhl ``destination_connection`` check ...).
    """

    TYPE: ClassVar[str] = ""
    entity: int | str
    entity_type: str = "player"
    id: int | None = None
    created_at: int | None = None
    user: int | None = None
    auto_actions: tuple[Action, ...] = ()
    extra: tuple[tuple[str, Any], ...] = field(default=(), compare=False)
    key_order: tuple[str, ...] = field(default=(), compare=False, repr=False)

    @property
    def type(self) -> str:
        """The export's action type (e.g. ``"buy_shares"``): the class's ``TYPE``."""
        return self.TYPE

    @classmethod
    def _own_fields(cls) -> tuple[str, ...]:
        """The fields of this action type beyond the base ones (computed once per class)."""
        got = _OWN_FIELDS.get(cls)
        if got is None:
            base = {f.name for f in fields(Action)}
            got = tuple(f.name for f in fields(cls) if f.name not in base)
            _OWN_FIELDS[cls] = got
        return got

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Action:
        """Build from an export record (raises :class:`ExportError` when a field is missing)."""
        kwargs: dict[str, Any] = {}
        own = cls._own_fields()
        for name in own:
            if name in data:
                value = data[name]
                if isinstance(value, list):
                    value = _freeze(value)
                kwargs[name] = value
        extra = tuple(
            (k, v) for k, v in data.items() if k not in _BASE_KEY_SET and k not in own
        )
        try:
            return cls(
                entity=data["entity"],
                entity_type=data.get("entity_type", "player"),
                id=data.get("id"),
                created_at=data.get("created_at"),
                user=data.get("user"),
                auto_actions=tuple(action_from_json(a) for a in data.get("auto_actions", ())),
                extra=extra,
                key_order=tuple(data),
                **kwargs,
            )
        except TypeError as exc:
            raise ExportError(f"action {data.get('id')} ({cls.TYPE}): {exc}") from None

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
            for name in self._own_fields():
                changed = getattr(self, name) != defaults.get(name)
                if name not in ordered and name in out and changed:
                    ordered[name] = out[name]
            return ordered
        return out


def _freeze(value: Any) -> Any:
    """Lists become tuples (recursively); dicts stay dicts with frozen values."""
    if isinstance(value, list):
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


# The route records of run_routes stay plain dicts (their shape is documented in
# the reference id conventions); they are kept as a tuple of dicts.


@dataclass(frozen=True)
class Pass(Action):
    """Pass: end the current step (or the stock round turn, the auction turn)."""

    TYPE: ClassVar[str] = "pass"


@dataclass(frozen=True)
class Bid(Action):
    """Bid ``price`` M on private ``company`` (buying the cheapest item is a bid at its price)."""

    TYPE: ClassVar[str] = "bid"
    company: str | None = None
    minor: str | None = None
    corporation: str | None = None
    price: int = 0


@dataclass(frozen=True)
class Par(Action):
    """Start ``corporation`` at par cell ``share_price`` = ``"price,row,col"``."""

    TYPE: ClassVar[str] = "par"
    corporation: str = ""
    share_price: str = ""


@dataclass(frozen=True)
class BuyShares(Action):
    """Buy certificates ``shares`` (ids ``"SYM_i"``) totalling ``percent``."""

    TYPE: ClassVar[str] = "buy_shares"
    shares: tuple[str, ...] = ()
    percent: int = 0
    share_price: int | None = None


@dataclass(frozen=True)
class SellShares(Action):
    """Sell certificates ``shares`` totalling ``percent`` to the market."""

    TYPE: ClassVar[str] = "sell_shares"
    shares: tuple[str, ...] = ()
    percent: int = 0


@dataclass(frozen=True)
class LayTile(Action):
    """Lay tile copy ``tile`` on ``hex`` with ``rotation``."""

    TYPE: ClassVar[str] = "lay_tile"
    hex: str = ""
    tile: str = ""
    rotation: int = 0


@dataclass(frozen=True)
class PlaceToken(Action):
    """Place a station token in ``city`` (``"<tile id>-<part>"``), slot ``slot``."""

    TYPE: ClassVar[str] = "place_token"
    city: str = ""
    slot: int = 0
    tokener: str | None = None


@dataclass(frozen=True)
class RunRoutes(Action):
    """Run trains: ``routes`` as recorded (train, connections, hexes, nodes, revenue)."""

    TYPE: ClassVar[str] = "run_routes"
    routes: tuple[Any, ...] = ()
    extra_revenue: int = 0
    subsidy: int = 0


@dataclass(frozen=True)
class Dividend(Action):
    """Distribute the run's revenue: ``kind`` ``"payout"``, ``"withhold"`` or ``"half"``."""

    TYPE: ClassVar[str] = "dividend"
    kind: str = ""


@dataclass(frozen=True)
class BuyTrain(Action):
    """Buy ``train`` for ``price`` M (``variant`` set when bought from the depot)."""

    TYPE: ClassVar[str] = "buy_train"
    train: str = ""
    price: int = 0
    variant: str | None = None
    exchange: str | None = None
    shell: str | None = None


@dataclass(frozen=True)
class DiscardTrain(Action):
    """Discard ``train`` (over the train limit)."""

    TYPE: ClassVar[str] = "discard_train"
    train: str = ""


@dataclass(frozen=True)
class BuyCompany(Action):
    """Buy private company / bond ``company`` for ``price`` M."""

    TYPE: ClassVar[str] = "buy_company"
    company: str = ""
    price: int = 0


@dataclass(frozen=True)
class SellCompany(Action):
    """Sell private company / bond ``company`` for ``price`` M."""

    TYPE: ClassVar[str] = "sell_company"
    company: str = ""
    price: int = 0


@dataclass(frozen=True)
class SpecialBuy(Action):
    """A title-specific buy (1893: merger votes, FdSD exchange): ``description`` says which."""

    TYPE: ClassVar[str] = "special_buy"
    description: str = ""
    cost: int = 0


@dataclass(frozen=True)
class Assign(Action):
    """Assign ``target`` (of ``target_type``) to an ability."""

    TYPE: ClassVar[str] = "assign"
    target: str = ""
    target_type: str = ""


@dataclass(frozen=True)
class Bankrupt(Action):
    """Declare bankruptcy."""

    TYPE: ClassVar[str] = "bankrupt"


@dataclass(frozen=True)
class Undo(Action):
    """Undo the last action (or back to ``action_id``)."""

    TYPE: ClassVar[str] = "undo"
    action_id: int | None = None


@dataclass(frozen=True)
class Redo(Action):
    """Redo the last undone batch."""

    TYPE: ClassVar[str] = "redo"


@dataclass(frozen=True)
class Message(Action):
    """A chat message (no effect on the game)."""

    TYPE: ClassVar[str] = "message"
    message: str = ""


@dataclass(frozen=True)
class ProgramSharePass(Action):
    """Program: pass in stock rounds automatically."""

    TYPE: ClassVar[str] = "program_share_pass"
    unconditional: bool = False
    indefinite: bool = False


@dataclass(frozen=True)
class ProgramBuyShares(Action):
    """Program: buy shares of ``corporation`` until ``until_condition``."""

    TYPE: ClassVar[str] = "program_buy_shares"
    corporation: str = ""
    until_condition: Any = None
    from_market: bool = False
    auto_pass_after: bool = False


@dataclass(frozen=True)
class ProgramDisable(Action):
    """Programmed actions switched off (``reason``)."""

    TYPE: ClassVar[str] = "program_disable"
    reason: str | None = None
    original_type: str | None = None


@dataclass(frozen=True)
class DestinationConnection(Action):
    """18Rhl: record of the RhE Köln–Düren–Aachen link check (``corporations`` linked)."""

    TYPE: ClassVar[str] = "destination_connection"
    corporations: tuple[str, ...] = ()


ACTION_TYPES: dict[str, type[Action]] = {
    cls.TYPE: cls
    for cls in (
        Pass, Bid, Par, BuyShares, SellShares, LayTile, PlaceToken, RunRoutes, Dividend,
        BuyTrain, DiscardTrain, BuyCompany, SellCompany, SpecialBuy, Assign, Bankrupt, Undo,
        Redo, Message, ProgramSharePass, ProgramBuyShares, ProgramDisable, DestinationConnection,
    )
}

PROGRAM_TYPES = frozenset({"program_share_pass", "program_buy_shares", "program_disable"})


def action_from_json(data: Any) -> Action:
    """The typed action for one export record; raises :class:`ExportError` when unknown."""
    if not isinstance(data, dict):
        raise ExportError(f"an action must be a JSON object, got {type(data).__name__}")
    kind = data.get("type")
    cls = ACTION_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ExportError(f"unknown action type {kind!r} in action {data.get('id')}")
    if "entity" not in data:
        raise ExportError(f"action {data.get('id')} ({kind}) has no entity")
    return cls.from_json(data)
