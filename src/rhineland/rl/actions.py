"""A fixed integer action space per title and player count, with a legal-action mask.

:class:`ActionCodec` numbers every decision a game of one title with ``n`` players can
offer, once, from the title data with and without each optional rule
(``ActionCodec.size`` codes, ``0 .. size - 1``; the same for every optional-rule mix).  At a
position, :meth:`ActionCodec.legal` lists the legal actions with their codes
(:class:`LegalCodes`): each legal action has exactly one code, and a code decodes back
to an action equal to the listed one.

The legal actions are ``game.legal_actions()`` with two choices made concrete:

* an amount range (a bid, a price between companies, EVA's price in 1893) is offered
  at its lowest amount (price level 0) and at every multiple of the kind's unit above
  it up to its highest amount and the kind's cap (level ``k`` = ``k * unit`` M): bids
  in 5 M steps up to 600 M, train and company prices in 10 M steps up to 1,000 M.
  Amounts off that grid are not in the space.  An action with one fixed amount
  (1893's draft at face value, a forced-auction price) is price level 0;
* running trains is one code: the best routes (:func:`rhineland.best_routes`),
  searched when the code is decoded.

Code layout (the blocks in this order; ``ActionCodec.blocks`` gives each block's first
code and size, ``ActionCodec.describe(code)`` a code's slot):

======================  ================================================================
block                   slot (one code each)
======================  ================================================================
``pass``                pass
``bankrupt``            declare bankruptcy
``run_routes``          run the trains on the best routes
``dividend``            payout / withhold / half
``bid``                 (private, minor or corporation) x price level (5 M unit)
``par``                 corporation x stock market cell
``buy_shares``          buyer kind (player, company) x corporation x seller (IPO,
                        market, a player's seat, a corporation) x percent (5..100) x
                        president's certificate or not
``sell_shares``         corporation x percent (5..100) x certificates named (1..10) x
                        their percent above the percent sold (0..20, the president's
                        certificate swapped) x president's certificate among them
``lay_tile``            hex (not offboard or gray) x manifest tile x rotation
``lay_tile_private``    a private company's lay: private x hex x tile x rotation (the
                        hexes and tiles of its ability)
``place_token``         hex (any) x city index (0..3)
``buy_train_depot``     train type x own train traded in (none, or its id), fixed price
``buy_train_market``    discarded train (by id) x own train traded in
``buy_train_company``   selling company x train type x price level (10 M unit)
``discard_train``       train (by id)
``buy_company``         private company x price level (10 M unit)
``sell_company``        private company (at its fixed price)
``special_buy``         title option (1893's merger votes ``yes`` / ``no``)
``assign``              target (1893: FdSD pays RAG's par)
======================  ================================================================

The acting entity is not part of the code: it is the entity whose action it is at the
position (the player who decides, the company they operate, or a private company of
theirs).  Raises :class:`CodecError` when a legal action has no slot or two legal
actions share one (a gap in this table: the tests replay every reference game to
check there is none).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from rhineland.api import new_game
from rhineland.engine.actions import (
    Action,
    Assign,
    Bankrupt,
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
from rhineland.engine.entities import IPO, MARKET
from rhineland.engine.game import Game
from rhineland.engine.legal import AmountRange, RouteChoice, choice_key
from rhineland.engine.titledata import TitleData, optional_rules_of
from rhineland.errors import ExportError, GameError
from rhineland.titles import get_title

PERCENTS = tuple(range(5, 101, 5))
"""Percentages a share trade may have (5 % steps)."""
DIVIDEND_KINDS = ("payout", "withhold", "half")
MAX_CERTS = 10
"""Certificates one sale may name."""
EXCESS = (0, 5, 10, 15, 20)
"""Percent by which the certificates of a sale may exceed the percent sold (the
president's certificate swapped for shares)."""
MAX_CITIES = 4
"""City indices per hex a token slot may name (0..3)."""
SPECIAL_OPTIONS = ("yes", "no")
ASSIGN_TARGETS = ("FdSD",)


@dataclass(frozen=True)
class PriceGrid:
    """Price levels of one kind of amount: level 0 is a range's lowest amount, level
    ``k >= 1`` is ``k * unit`` M (offered when above the lowest and at most the highest
    amount); ``cap`` M is the highest level's amount."""

    unit: int
    cap: int

    @property
    def levels(self) -> int:
        """Number of levels (level 0 included)."""
        return self.cap // self.unit + 1

    def amounts(self, lo: int, hi: int) -> Iterator[tuple[int, int]]:
        """(level, amount in M) offered for a range ``lo..hi``: ``(0, lo)`` then each
        multiple of ``unit`` in ``(lo, min(hi, cap)]``."""
        yield 0, lo
        for k in self.levels_above(lo, hi):
            yield k, k * self.unit

    def levels_above(self, lo: int, hi: int) -> range:
        """The levels offered above level 0 for a range ``lo..hi`` (consecutive): those of
        the multiples of ``unit`` in ``(lo, min(hi, cap)]``."""
        return range(max(lo // self.unit + 1, 1), min(hi, self.cap) // self.unit + 1)


BID_GRID = PriceGrid(5, 600)
PRICE_GRID = PriceGrid(10, 1000)
_LEVELLED = frozenset({"bid", "buy_train_company", "buy_company"})
"""Blocks whose slots end in the price level, innermost: price level ``k``'s code is
level 0's + ``k``."""


class CodecError(Exception):
    """A legal action without a code, or two legal actions with one code (a gap in the
    code table of :class:`ActionCodec`)."""


@dataclass(slots=True)
class Levels:
    """The grid amounts of a range above its lowest, in a levelled block: the code
    ``base + k`` is price level ``k``, the amount ``k * unit`` M (:meth:`at`)."""

    range: AmountRange
    base: int
    unit: int

    def at(self, code: int) -> Action:
        """The range's action at ``code``'s amount."""
        return self.range.at((code - self.base) * self.unit)


@dataclass
class LegalCodes:
    """The legal actions at one position with their codes.

    ``codes`` lists the codes in the order of ``game.legal_actions()``; ``mask`` is a
    ``(size,)`` int8 array, 1 exactly at those codes.  :meth:`action` gives the action
    of a code (a run's best routes are searched on first use, a price level's action is
    made on first use).  ``by_code`` maps each legal code to its action, its route
    choice, ``(range, amount)`` for an amount of a range, or the :class:`Levels` of a
    range's grid amounts above its lowest (:meth:`action` makes those actions)."""

    game: Game
    codes: list[int]
    mask: npt.NDArray[np.int8]
    by_code: dict[int, Action | RouteChoice | tuple[AmountRange, int] | Levels]
    _routes: dict[int, Action] = field(default_factory=dict)

    def action(self, code: int) -> Action:
        """The legal action of ``code``; raises :class:`KeyError` for a code that is
        not legal here."""
        got = self.by_code[code]
        if isinstance(got, RouteChoice):
            if code not in self._routes:
                self._routes[code] = got.best(self.game)
            return self._routes[code]
        return _made(code, got)

    def choice(self, code: int) -> Action | RouteChoice:
        """The legal action of ``code``, a run as its route choice (no search)."""
        got = self.by_code[code]
        return got if isinstance(got, RouteChoice) else _made(code, got)

    def __contains__(self, code: object) -> bool:
        return code in self.by_code


def _made(code: int, got: Action | tuple[AmountRange, int] | Levels) -> Action:
    """``by_code``'s entry ``got`` of ``code`` (not a route choice) as its action."""
    if isinstance(got, tuple):
        return got[0].at(got[1])
    if isinstance(got, Levels):
        return got.at(code)
    return got


def _level_key(grid: PriceGrid, rng: AmountRange | None, price: int) -> int:
    if rng is None or price == rng.min:
        return 0  # a fixed amount (the only one offered) or a range's lowest
    if price % grid.unit or price > grid.cap:
        raise CodecError(f"amount {price} M is off the {grid.unit} M grid")
    return price // grid.unit


class ActionCodec:
    """The action space of ``title`` with ``num_players`` players (see the module
    docstring for the layout).  ``size`` is the number of codes; building one costs a
    few tens of milliseconds (reuse it).

    Raises ``GameError`` / ``ExportError`` for an unknown title or player count."""

    def __init__(self, title: str, num_players: int) -> None:
        game = new_game(title, [f"P{i + 1}" for i in range(num_players)])
        datas = title_variants(title, game.title.package)
        self.title = title
        self.num_players = num_players

        def union(items: Iterator[Hashable]) -> list[Any]:
            return list(dict.fromkeys(items))

        corps = union(c.sym for d in datas for c in d.corporations)
        minors = union(m.sym for d in datas for m in d.minors)
        privates = union(p.sym for d in datas for p in d.privates)
        train_names = union(t.name for d in datas for t in d.trains)
        train_ids = union(tid for d in datas for t in d.trains for tid in t.ids)
        all_hexes = union(h for d in datas for h in d.map.hexes)
        hexes = union(h for d in datas for h, spec in d.map.hexes.items()
                      if spec.tile.color not in ("gray", "red"))
        tiles = sorted(union(t for d in datas for t in d.tiles))
        cells = union(c.id for d in datas for row in d.market for c in row if c is not None)
        special_lays = union((p.sym, h, t, r) for d in datas for p in d.privates
                             for ab in p.abilities if ab.get("type") in ("tile_lay", "teleport")
                             for h in ab.get("hexes", ()) for t in ab.get("tiles", ())
                             for r in range(6))
        operators = corps + minors
        bid_targets = [("company", s) for s in privates] + [("minor", s) for s in minors] \
            + [("corporation", s) for s in corps]
        sellers: list[Hashable] = [IPO, MARKET, *(("seat", i) for i in range(num_players)),
                                   *corps]
        blocks: list[tuple[str, list[Hashable]]] = [
            ("pass", [()]),
            ("bankrupt", [()]),
            ("run_routes", [()]),
            ("dividend", list(DIVIDEND_KINDS)),
            ("bid", [(t, k) for t in bid_targets for k in range(BID_GRID.levels)]),
            ("par", [(c, cell) for c in corps for cell in cells]),
            ("buy_shares", [(b, c, s, p, pr) for b in ("player", "company") for c in corps
                            for s in sellers for p in PERCENTS for pr in (False, True)]),
            ("sell_shares", [(c, p, n, x, pr) for c in corps for p in PERCENTS
                             for n in range(1, MAX_CERTS + 1) for x in EXCESS
                             for pr in (False, True)]),
            ("lay_tile", [(h, t, r) for h in hexes for t in tiles for r in range(6)]),
            ("lay_tile_private", special_lays),
            ("place_token", [(h, i) for h in all_hexes for i in range(MAX_CITIES)]),
            ("buy_train_depot", [(t, x) for t in train_names for x in (None, *train_ids)]),
            ("buy_train_market", [(t, x) for t in train_ids for x in (None, *train_ids)]),
            ("buy_train_company", [(o, t, k) for o in operators for t in train_names
                                   for k in range(PRICE_GRID.levels)]),
            ("discard_train", list(train_ids)),
            ("buy_company", [(s, k) for s in privates for k in range(PRICE_GRID.levels)]),
            ("sell_company", list(privates)),
            ("special_buy", list(SPECIAL_OPTIONS)),
            ("assign", list(ASSIGN_TARGETS)),
        ]
        self.blocks: dict[str, tuple[int, int]] = {}
        self._index: dict[tuple[str, Hashable], int] = {}
        table: list[tuple[str, Hashable]] = []
        for name, slots in blocks:
            self.blocks[name] = (len(table), len(slots))
            for s in slots:
                key = (name, s)
                self._index[key] = len(table)
                table.append(key)
        # a tuple, not a list: a tuple of plain values is one the garbage collector stops
        # tracking, so its full collections do not look through the ~50,000 slots
        self._slots: tuple[tuple[str, Hashable], ...] = tuple(table)
        self.size = len(self._slots)

    # -- slots -------------------------------------------------------------------------
    def describe(self, code: int) -> tuple[str, Hashable]:
        """The slot of ``code``: (block name, the slot's parameters as in the table).
        Raises :class:`CodecError` for a code outside ``0..size - 1``."""
        if not 0 <= code < self.size:
            raise CodecError(f"code {code} is outside 0..{self.size - 1}")
        return self._slots[code]

    def _code(self, block: str, slot: Hashable) -> int:
        try:
            return self._index[(block, slot)]
        except KeyError:
            raise CodecError(f"no code for {block} {slot!r} in {self.title}") from None

    def code_of(self, game: Game, action: Action, rng: AmountRange | None = None) -> int:
        """The code of ``action`` at ``game``'s position (``rng``: the amount range it
        comes from, whose lowest amount is price level 0).  Raises :class:`CodecError`
        when the table has no slot for it."""
        # the most listed kinds first (no kind subclasses another)
        if type(action) is LayTile:
            return self._tile_code(action)
        if type(action) is BuyTrain:
            return self._train_code(game, action, rng)
        if isinstance(action, Pass):
            return self._code("pass", ())
        if isinstance(action, Bankrupt):
            return self._code("bankrupt", ())
        if isinstance(action, Dividend):
            return self._code("dividend", action.kind)
        if isinstance(action, Bid):
            target = (("company", action.company) if action.company is not None
                      else ("minor", action.minor) if action.minor is not None
                      else ("corporation", action.corporation))
            return self._code("bid", (target, _level_key(BID_GRID, rng, action.price)))
        if isinstance(action, Par):
            return self._code("par", (action.corporation, action.share_price))
        if isinstance(action, BuyShares | SellShares):
            certs = [_cert(game, s) for s in action.shares]
            total = sum(c[3] for c in certs)
            corp = certs[0][0]
            president = any(c[2] for c in certs)
            if isinstance(action, SellShares):
                return self._code("sell_shares", (corp, action.percent, len(certs),
                                                  total - action.percent, president))
            kind = "player" if action.entity_type == "player" else "company"
            seller = certs[0][1]
            if isinstance(seller, int):
                seller = ("seat", [p.id for p in game.players].index(seller))
            return self._code("buy_shares", (kind, corp, seller, action.percent, president))
        if isinstance(action, LayTile):
            return self._tile_code(action)
        if isinstance(action, PlaceToken):
            return self._code("place_token", _token_spot(game, action))
        if isinstance(action, BuyTrain):
            return self._train_code(game, action, rng)
        if isinstance(action, DiscardTrain):
            return self._code("discard_train", action.train)
        if isinstance(action, BuyCompany):
            return self._code("buy_company",
                              (action.company, _level_key(PRICE_GRID, rng, action.price)))
        if isinstance(action, SellCompany):
            return self._code("sell_company", action.company)
        if isinstance(action, SpecialBuy):
            return self._code("special_buy", action.description)
        if isinstance(action, Assign):
            return self._code("assign", action.target)
        raise CodecError(f"no code for a {action.type} action")

    def _tile_code(self, action: LayTile) -> int:
        name = action.tile.rpartition("-")[0] or action.tile
        if action.entity_type == "company":
            return self._code("lay_tile_private",
                              (action.entity, action.hex, name, action.rotation % 6))
        return self._code("lay_tile", (action.hex, name, action.rotation % 6))

    def _train_code(self, game: Game, action: BuyTrain, rng: AmountRange | None) -> int:
        train = game.train(action.train)
        exchange = action.exchange
        if train.owner is None:
            return self._code("buy_train_depot", (train.name, exchange))
        if train.owner == MARKET:
            return self._code("buy_train_market", (train.id, exchange))
        return self._code("buy_train_company",
                          (train.owner, train.name, _level_key(PRICE_GRID, rng, action.price)))

    # -- positions ---------------------------------------------------------------------
    def expand(self, game: Game) -> list[tuple[int, Action | RouteChoice]]:
        """(code, action) for every legal action at ``game``'s position, in the order
        of ``game.legal_actions()`` (a range as its grid amounts, the route choice as
        itself).  Raises :class:`CodecError` when a code is missing or repeated."""
        legal = self.legal(game)
        return [(code, legal.choice(code)) for code in legal.codes]

    def legal(self, game: Game) -> LegalCodes:
        """The legal actions at ``game``'s position with their codes and the mask.
        Raises :class:`CodecError` if two legal actions would share a code.

        An amount range's grid amounts above its lowest have the codes right after the
        lowest one's (the price level is the innermost part of those blocks' slots, and
        nothing else in the slot depends on the amount): their codes are counted, not
        looked up, and their actions made only when asked (:meth:`LegalCodes.action`)."""
        by_code: dict[int, Action | RouteChoice | tuple[AmountRange, int] | Levels] = {}
        codes: list[int] = []
        singles: list[int] = []  # the other codes (set in the mask by index)
        spans: list[range] = []  # the levelled codes (set in the mask by slices)
        for c in game.legal_actions():
            if isinstance(c, RouteChoice):
                code = self._code("run_routes", ())
                self._add(by_code, codes, code, c)
                singles.append(code)
            elif isinstance(c, AmountRange):
                grid = BID_GRID if c.type == "bid" else PRICE_GRID
                lo = c.min
                first = c.action  # it holds the lowest amount (made anew if not)
                if getattr(first, c.field) != lo:
                    first = c.at(lo)
                base = self.code_of(game, first, c)
                self._add(by_code, codes, base, (c, lo))
                singles.append(base)
                levels = grid.levels_above(lo, c.max)
                if self._slots[base][0] in _LEVELLED:
                    span = range(base + levels.start, base + levels.stop)
                    if not by_code.keys().isdisjoint(span):
                        for code in span:  # the first clash: _add raises
                            self._add(by_code, codes, code, (c, (code - base) * grid.unit))
                    by_code.update(dict.fromkeys(span, Levels(c, base, grid.unit)))
                    codes.extend(span)
                    spans.append(span)
                else:  # looked up one by one
                    for k in levels:
                        amount = k * grid.unit
                        code = self.code_of(game, c.at(amount), c)
                        self._add(by_code, codes, code, (c, amount))
                        singles.append(code)
            else:
                code = self.code_of(game, c)
                self._add(by_code, codes, code, c)
                singles.append(code)
        flags = bytearray(self.size)  # the mask's bytes, then viewed as int8
        for code in singles:
            flags[code] = 1
        for span in spans:
            flags[span.start:span.stop] = b"\x01" * len(span)
        mask = np.frombuffer(flags, dtype=np.int8)
        return LegalCodes(game, codes, mask, by_code)

    def _add(self, by_code: dict[int, Any], codes: list[int], code: int, what: Any) -> None:
        if code in by_code:
            def show(x: Any) -> Any:
                return x if isinstance(x, RouteChoice) else _made(code, x)
            raise CodecError(f"two legal actions share code {code} "
                             f"{self.describe(code)}: {show(by_code[code])!r} and "
                             f"{show(what)!r}")
        by_code[code] = what
        codes.append(code)

    def encode(self, game: Game, action: Action) -> int:
        """The code of ``action`` at ``game``'s position: the listed legal action that
        decides the same (:func:`~rhineland.engine.legal.choice_key`: type, entity and
        parameters; a recorded action's id and time do not matter; a run with any legal
        routes is the run code).  Raises :class:`CodecError` when ``action`` is not one
        of the listed legal actions (an amount off the grid included)."""
        legal = self.legal(game)
        key = choice_key(game, action)
        for code in legal.codes:
            a = legal.choice(code)
            if isinstance(a, RouteChoice):
                if a.contains(action, game):
                    return code
            elif choice_key(game, a) == key:
                return code
        raise CodecError(f"{action.type} is not a legal action with a code here")

    def decode(self, game: Game, code: int) -> Action:
        """The legal action of ``code`` at ``game``'s position.  Raises
        :class:`CodecError` when ``code`` is not legal there."""
        legal = self.legal(game)
        if code not in legal:
            raise CodecError(f"code {code} {self.describe(code)!r} is not legal here")
        return legal.action(code)

    def mask(self, game: Game) -> npt.NDArray[np.int8]:
        """The ``(size,)`` int8 legal-action mask at ``game``'s position."""
        return self.legal(game).mask


def title_variants(title: str, package: str) -> list[TitleData]:
    """The title's data without optional rules, with each one, and with all of them
    (those the title accepts): the code table covers every variant."""
    options = optional_rules_of(package)
    out: list[TitleData] = []
    for opts in [(), *((o,) for o in options), options]:
        try:
            out.append(get_title(title, opts).data)
        except (GameError, ExportError):
            continue
    return out


def _cert(game: Game, share_id: str) -> tuple[str, Hashable, bool, int]:
    sym, _, idx = share_id.rpartition("_")
    cert = game.corporation(sym).certificates[int(idx)]
    return sym, cert.owner, cert.president, cert.percent


def _token_spot(game: Game, action: PlaceToken) -> tuple[str, int]:
    tile_id, _, part = action.city.rpartition("-")
    for hex_id, placed in game.board.tiles.items():
        if placed.tile_id == tile_id:
            for i, city in enumerate(placed.tile.cities):
                if str(city.part) == part:
                    return hex_id, i
    raise CodecError(f"no city {action.city!r} on the board")
