"""The mutable entities of a game: bank, players, corporations, minors, privates, trains.

Certificates are owned by exactly one holder: a player id (``int``), the
corporation itself (``IPO`` — the IPO or, for incrementally capitalised
corporations, the treasury), or the market pool (``MARKET``).  Percentages are
derived from certificate ownership, never stored twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rhineland.engine.titledata import (
    CorporationSpec,
    MarketCell,
    MinorSpec,
    PrivateSpec,
    TrainSpec,
)

IPO = "ipo"
"""Holder of certificates still held by the corporation (IPO or treasury)."""
MARKET = "market"
"""Holder of certificates in the market pool (1893: the market display)."""

Holder = int | str
"""A certificate/company holder: a player id, ``IPO``, ``MARKET`` or a corporation symbol."""


@dataclass
class Bank:
    """The bank: ``cash`` in M; ``broken`` once it could not pay in full."""

    cash: int
    broken: bool = False


@dataclass
class Player:
    """A player: export id, name, cash (M), owned private symbols, bankruptcy flag."""

    id: int
    name: str
    cash: int = 0
    companies: list[str] = field(default_factory=list)
    bankrupt: bool = False

    def __repr__(self) -> str:
        return f"Player({self.id} {self.name!r} {self.cash}M)"


@dataclass
class Certificate:
    """One share certificate: id ``"<SYM>_<index>"``, percent, president flag, holder."""

    corporation: str
    index: int
    percent: int
    president: bool
    owner: Holder = IPO
    reserved: bool = False
    pool_seq: int = 0  # order of arrival in the market (which share is "first" there)

    @property
    def id(self) -> str:
        """The export share id ``"<SYM>_<index>"`` (index 0: the president's certificate)."""
        return f"{self.corporation}_{self.index}"

    @property
    def double(self) -> bool:
        """A non-president certificate of more than 10%."""
        return not self.president and self.percent > 10


@dataclass
class Train:
    """A train: export id ``"<name>-<index>"``, its spec, and the current holder symbol.

    ``owner`` is ``None`` while in the depot, ``MARKET`` in the open pool
    (discarded trains), otherwise the corporation/minor symbol.
    """

    id: str
    spec: TrainSpec
    owner: str | None = None
    rusted: bool = False
    operated: bool = False
    name: str = field(init=False, repr=False, compare=False)
    """The train type's name (the export id without its copy index): the spec's, kept
    as a plain attribute (read thousands of times a step)."""

    def __post_init__(self) -> None:
        self.name = self.spec.name


@dataclass
class Corporation:
    """A corporation's state.  Money in M.

    ``share_price`` is the current market cell (``None`` before par); ``tokens``
    are the placed station tokens as ``(hex, city index)``; ``capitalization`` is
    ``"full"`` or ``"incremental"`` (18Rhl floats before phase 5).  ``count_offset``
    holds, per holder, how far the share count the presidency goes by lies from the
    certificates held (see :meth:`counted_percent`).
    """

    spec: CorporationSpec
    certificates: list[Certificate]
    cash: int = 0
    par_price: MarketCell | None = None
    share_price: MarketCell | None = None
    floated: bool = False
    operated: bool = False
    closed: bool = False
    capitalization: str = "full"
    trains: list[Train] = field(default_factory=list)
    tokens: list[tuple[str, int]] = field(default_factory=list)
    tokens_used: int = 0
    can_buy_shares: bool = True
    count_offset: dict[Holder, int] = field(default_factory=dict)
    had_route: bool = False
    """Whether a route was found for it once (kept: see
    :meth:`~rhineland.engine.rules_operating.OperatingRules.has_route`)."""

    sym: str = field(init=False, repr=False, compare=False)
    """The corporation's symbol (from its spec), kept as a plain attribute."""

    def __post_init__(self) -> None:
        self.sym = self.spec.sym

    @property
    def ipoed(self) -> bool:
        """Whether the corporation has been started (parred: it has a par price)."""
        return self.par_price is not None

    @property
    def tokens_left(self) -> int:
        """Station tokens not yet placed (the charter's tokens less those used)."""
        return len(self.spec.tokens) - self.tokens_used

    @property
    def next_token_price(self) -> int:
        """Price (M) of the cheapest unused token; raises ``IndexError`` when none is left."""
        return self.spec.tokens[self.tokens_used]

    def percent_of(self, holder: Holder) -> int:
        """Percent of the corporation held by ``holder`` (player id, ``IPO`` or ``MARKET``)."""
        return sum([c.percent for c in self.certificates if c.owner == holder])

    def counted_percent(self, holder: Holder) -> int:
        """The percent of ``holder`` that counts for the presidency.

        It is the certificates held, except after a partial sale of the president's
        certificate handed the seller back a double certificate for the 10% they kept:
        the reference engine counts sales and purchases by their percent, not by the
        certificates that change hands in the presidency exchange, so from then on it
        counts the seller 10% short and the market 10% over (``count_offset``).
        """
        return self.percent_of(holder) + self.count_offset.get(holder, 0)

    def certs_of(self, holder: Holder) -> list[Certificate]:
        """The certificates of this corporation held by ``holder``, in certificate order."""
        return [c for c in self.certificates if c.owner == holder]

    @property
    def receivership(self) -> bool:
        """No player is president: the president's certificate lies in the market."""
        for c in self.certificates:  # the one president's certificate, nearly always first
            if c.president:
                return c.owner == MARKET
        return False

    @property
    def president(self) -> int | None:
        """Player id of the president (holder of the president's certificate), if any."""
        for c in self.certificates:
            if c.president:
                return c.owner if isinstance(c.owner, int) else None
        return None

    def __repr__(self) -> str:
        return f"Corporation({self.sym} {self.cash}M)"


@dataclass
class Minor:
    """A minor company (1893): owner, cash (M), trains, its single home token."""

    spec: MinorSpec
    owner: int | None = None
    cash: int = 0
    floated: bool = False
    operated: bool = False
    closed: bool = False
    trains: list[Train] = field(default_factory=list)
    tokens: list[tuple[str, int]] = field(default_factory=list)
    had_route: bool = False
    """Whether a route was found for it once (kept: see
    :meth:`~rhineland.engine.rules_operating.OperatingRules.has_route`)."""

    sym: str = field(init=False, repr=False, compare=False)
    """The minor's symbol (from its spec), kept as a plain attribute."""

    def __post_init__(self) -> None:
        self.sym = self.spec.sym


@dataclass
class Private:
    """A private company: holder (player id, corporation symbol, ``"bank"`` or ``None``)."""

    spec: PrivateSpec
    owner: int | str | None = None
    closed: bool = False
    ability_uses: int = 0

    sym: str = field(init=False, repr=False, compare=False)
    """The private company's symbol (from its spec), kept as a plain attribute."""

    def __post_init__(self) -> None:
        self.sym = self.spec.sym
