"""Observation encoding: a flat float32 vector of fixed length per title and player
count (the same with any optional rules), seen from one seat, and a dict view of the same numbers.

All information in these games is public, so every seat sees the same facts; the
vector is *seat-relative*: wherever the layout runs over the players, the observer
comes first, then the others in seat order after them (seat ``(me + i) % n``).  Seats
are the table's (``Game.seats``, the order the players were given in): they stay the
same all game, while the order of ``game.players`` turns with the priority deal.
Amounts are in M / 1000, share prices in M / 100, percentages / 100; flags are 0/1;
counts are plain.

Layout (segments in this order; ``ObservationEncoder.layout`` gives each name, shape
and offset; ``P`` players, ``C`` corporations, ``m`` minors, ``Q`` private companies,
``T`` train types, ``H`` map hexes, ``R`` round kinds, ``S`` steps, ``F`` phases):

=================  ============  ===================================================
segment            shape         contents
=================  ============  ===================================================
``round``          (R + 1,)      round kind one-hot (Auction, Draft, Stock,
                                 Operating, Merger; last: another kind)
``step``           (S + 1,)      current step one-hot (see ``STEPS``; last: another)
``phase``          (F,)          phase one-hot
``globals``        (4,)          bank cash, operating rounds in the set, game over,
                                 bank broken
``acting``         (P,)          the seat that decides now (one-hot)
``priority``       (P,)          the seat with priority deal
``players``        (P, 4)        cash, value, bankrupt, private companies held
``shares``         (P, C)        percent of each corporation held by each seat
``corporations``   (C, 13)       IPOed, floated, closed, in receivership, operating
                                 now, treasury, share price, par price, IPO percent,
                                 market percent, tokens left, trains, has operated
``president``      (C, P)        the president's seat (one-hot; zeros if none)
``corp_trains``    (C, T)        trains of each type held
``minors``         (m, 5)        owned, floated, closed, operating now, treasury
``minor_owner``    (m, P)        the owner's seat
``minor_trains``   (m, T)        trains of each type held
``privates``       (Q, P + 3)    owner: a seat, a corporation or minor, none/bank;
                                 closed
``depot``          (T, 2)        trains of each type in the depot, discarded ones
``hexes``          (H, 7)        tile colour one-hot (white, yellow, green, brown,
                                 gray or other), rotation / 5
``hex_tile``       (H,)          tile index in the manifest (sorted names) + 1, / count
                                 (0: still the preprinted tile)
``tokens``         (H, C + m)    tokens of each corporation and minor on the hex
=================  ============  ===================================================
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from operator import attrgetter
from struct import Struct

import numpy as np
import numpy.typing as npt

from rhineland.api import new_game
from rhineland.board.board import PlacedTile
from rhineland.engine.entities import IPO, MARKET, Corporation, Holder
from rhineland.engine.game import Game
from rhineland.engine.rules_stock import StockRules
from rhineland.engine.titledata import CorporationSpec
from rhineland.rl.actions import title_variants

_CORP_ROW = Struct("13f")
"""A corporation's row of the ``corporations`` segment, written at once (``pack_into``:
each value rounded to a C float, as an ``array("f")`` item assignment rounds it)."""

_PLAYER_ROW = Struct("4f")
"""A player's row of the ``players`` segment, written at once."""

ROUND_KINDS = ("Auction", "Draft", "Stock", "Operating", "Merger")
STEPS = ("waterfall_auction", "company_pending_par", "buy_sell_par_shares", "track",
         "token", "special_token", "route", "dividend", "buy_train", "discard_train")
COLORS = ("white", "yellow", "green", "brown", "gray")


def _percent(pct: int, _memo: dict[int, np.float32] = {}) -> np.float32:  # noqa: B006
    """``pct`` / 100 as float32 (memoised: few values)."""
    got = _memo.get(pct)
    if got is None:
        got = _memo[pct] = np.float32(pct / 100)
    return got


_OWNER = attrgetter("owner")


@dataclass(frozen=True, slots=True)
class _Holdings:
    """What a corporation's certificates tell, computed from their ``owners`` (in
    certificate order; a certificate's percent and president flag are fixed by the
    corporation's ``spec``: the certificates are made from ``spec.shares``): percent in
    the IPO and in the market, receivership (the president's certificate in the
    market), the president's certificate's owner, and each other owner's percent and
    fraction (percent / 100 as float32, summed in certificate order), in the order of
    their first certificate."""

    spec: CorporationSpec
    owners: list[Holder]
    ipo: int
    market: int
    receivership: bool
    president: Holder | None
    held: tuple[tuple[Holder, int, float], ...]

    @classmethod
    def of(cls, corp: Corporation, owners: list[Holder]) -> _Holdings:
        """The holdings of ``corp`` now (``owners``: its certificates' owners)."""
        ipo = market = 0
        receivership = False
        president: Holder | None = None
        held: dict[Holder, np.float32] = {}
        percents: dict[Holder, int] = {}
        for cert in corp.certificates:
            owner = cert.owner
            if owner == IPO:
                ipo += cert.percent
            elif owner == MARKET:
                market += cert.percent
                receivership = receivership or cert.president
            else:
                got = held.get(owner)
                frac = _percent(cert.percent)
                held[owner] = frac if got is None else got + frac
                percents[owner] = percents.get(owner, 0) + cert.percent
            if cert.president:
                president = owner
        return cls(corp.spec, owners, ipo, market, receivership, president,
                   tuple((o, percents[o], float(f)) for o, f in held.items()))


@dataclass(frozen=True, slots=True)
class _BoardPart:
    """The encoder's last board: its ``version``, the vector ``template`` with its
    segments (zeros elsewhere), and the placed tiles and tokens it was made from."""

    version: int
    template: array[float]
    tiles: dict[str, PlacedTile]
    tokens: dict[tuple[str, int], tuple[str, ...]]


def _values(game: Game, priced: list[tuple[_Holdings, int]], every: bool) -> dict[int, int]:
    """Each player's value (M) by player id, as ``game.player_values()`` gives it, from
    the holdings of the corporations whose certificates count (``priced``: holdings and
    share price of each corporation with a share price, not closed; ``every``: whether
    every corporation of the game was looked at): cash, plus per corporation price *
    percent held // 10, plus the title's ``value_extra``
    (:meth:`~rhineland.engine.rules_stock.StockRules.player_values`).  A title with its
    own ``player_values`` (or ``every`` false) is asked instead."""
    title = game.title
    if not every or type(title).player_values is not StockRules.player_values:
        return game.player_values()
    players = game.state.players
    totals = {p.id: p.cash for p in players}
    for held, price in priced:
        for owner, pct, _ in held.held:
            if owner in totals:
                totals[owner] += price * pct // 10  # type: ignore[index]
    for p in players:
        totals[p.id] += title.value_extra(game, p)
    return totals


@dataclass(frozen=True)
class Segment:
    """One named part of the flat vector: ``shape``, first index ``offset`` and ``size``
    (number of floats)."""

    name: str
    shape: tuple[int, ...]
    offset: int
    size: int = field(init=False)

    def __post_init__(self) -> None:
        size = 1
        for d in self.shape:
            size *= d
        object.__setattr__(self, "size", size)


class ObservationEncoder:
    """Encodes a game of ``title`` with ``num_players`` players as seen from one seat
    (see the module docstring for the layout).  ``size`` is the vector's length.

    :meth:`encode` returns a new vector each call; the encoder keeps the last board's
    segments (:meth:`_template`) and the last holdings of each corporation's
    certificates (:class:`_Holdings`).

    Raises ``GameError`` / ``ExportError`` for an unknown title or player count."""

    def __init__(self, title: str, num_players: int) -> None:
        game = new_game(title, [f"P{i + 1}" for i in range(num_players)])
        datas = title_variants(title, game.title.package)
        self.title = title
        self.num_players = n = num_players

        def union(items: Iterator[str]) -> list[str]:
            return list(dict.fromkeys(items))

        self.corps = union(c.sym for d in datas for c in d.corporations)
        self.minors = union(m.sym for d in datas for m in d.minors)
        self.privates = union(p.sym for d in datas for p in d.privates)
        self.train_names = union(t.name for d in datas for t in d.trains)
        self.hexes = union(h for d in datas for h in d.map.hexes)
        self.tiles = sorted(union(t for d in datas for t in d.tiles))
        self._tile_index = {t: i + 1 for i, t in enumerate(self.tiles)}
        self._hex_index = {h: i for i, h in enumerate(self.hexes)}
        self._corp_index = {s: i for i, s in enumerate(self.corps)}
        self._minor_index = {s: i for i, s in enumerate(self.minors)}
        self._train_index = {t: i for i, t in enumerate(self.train_names)}
        self._holdings: dict[str, _Holdings] = {}  # the last of each corporation
        self.num_phases = max(len(d.phases) for d in datas)
        c, m, q, t, h = (len(self.corps), len(self.minors), len(self.privates),
                         len(self.train_names), len(self.hexes))
        shapes: list[tuple[str, tuple[int, ...]]] = [
            ("round", (len(ROUND_KINDS) + 1,)),
            ("step", (len(STEPS) + 1,)),
            ("phase", (self.num_phases,)),
            ("globals", (4,)),
            ("acting", (n,)),
            ("priority", (n,)),
            ("players", (n, 4)),
            ("shares", (n, c)),
            ("corporations", (c, 13)),
            ("president", (c, n)),
            ("corp_trains", (c, t)),
            ("minors", (m, 5)),
            ("minor_owner", (m, n)),
            ("minor_trains", (m, t)),
            ("privates", (q, n + 3)),
            ("depot", (t, 2)),
            ("hexes", (h, len(COLORS) + 2)),
            ("hex_tile", (h,)),
            ("tokens", (h, c + m)),
        ]
        self.layout: list[Segment] = []
        offset = 0
        for name, shape in shapes:
            seg = Segment(name, shape, offset)
            self.layout.append(seg)
            offset += seg.size
        self.size = offset
        self._offset = {s.name: s.offset for s in self.layout}
        # flat indices for encode(): each segment's first one, the rows of each company
        # (its row in the segment, its trains' row) and of each private company
        self._at = at = dict(self._offset)
        self._round_at = {k: at["round"] + i for i, k in enumerate(ROUND_KINDS)}
        self._step_at: dict[str | None, int] = {k: at["step"] + i for i, k in enumerate(STEPS)}
        self._color_col = {c: i for i, c in enumerate(COLORS)}
        self._board = _BoardPart(0, array("f", bytes(4 * self.size)), {}, {})  # no board
        self._corp_rows = [(ci, sym, at["corporations"] + 13 * ci, at["corp_trains"] + t * ci)
                           for ci, sym in enumerate(self.corps)]
        self._minor_rows = [(mi, sym, at["minors"] + 5 * mi, at["minor_trains"] + t * mi)
                            for mi, sym in enumerate(self.minors)]
        self._private_rows = [(sym, at["privates"] + (n + 3) * qi)
                              for qi, sym in enumerate(self.privates)]
        self._company_syms = frozenset(self.corps) | frozenset(self.minors)

    # -- views ---------------------------------------------------------------------------
    def as_dict(self, flat: npt.NDArray[np.float32]) -> dict[str, npt.NDArray[np.float32]]:
        """The dict view of a flat vector: each segment's name -> a reshaped view (no copy)."""
        return {s.name: flat[s.offset:s.offset + s.size].reshape(s.shape) for s in self.layout}

    def encode_dict(self, game: Game, seat: int) -> dict[str, npt.NDArray[np.float32]]:
        """:meth:`encode` as its dict view."""
        return self.as_dict(self.encode(game, seat))

    def _template(self, game: Game) -> array[float]:
        """The vector with the board's segments (``hexes``, ``hex_tile`` and ``tokens``,
        the last ones) filled and zeros before them, as an ``array("f")`` to copy: kept
        per board version (a version is renewed on every tile and token change and
        unique across boards).  A new version's is the last one with the hexes whose
        tile changed written again (a placed tile is immutable and replaced on a change:
        compared by identity) and, when the tokens changed, the tokens segment."""
        board = game.board
        last = self._board
        if last.version == board.version:
            return last.template
        template = array("f", last.template)
        at, hex_index = self._at, self._hex_index
        width = len(COLORS) + 2
        hexes, hex_tile = at["hexes"], at["hex_tile"]
        color_col, tile_index, ntiles = self._color_col, self._tile_index, len(self.tiles)
        blank = array("f", bytes(4 * width))
        old_tiles, tiles = last.tiles, board.tiles
        kept = 0
        for hid, placed in tiles.items():
            old = old_tiles.get(hid)
            if old is not None:
                kept += 1
                if old is placed:
                    continue
            hi = hex_index[hid]
            k = hexes + hi * width
            template[k:k + width] = blank
            tile = placed.tile
            template[k + color_col.get(tile.color, len(COLORS))] = 1
            template[k + width - 1] = placed.rotation / 5
            template[hex_tile + hi] = tile_index.get(tile.name, 0) / ntiles
        if kept < len(old_tiles):  # hexes gone from the board: blank
            for hid in old_tiles.keys() - tiles.keys():
                hi = hex_index[hid]
                k = hexes + hi * width
                template[k:k + width] = blank
                template[hex_tile + hi] = 0
        tokens = board.tokens
        if tokens != last.tokens:
            start = at["tokens"]
            template[start:] = array("f", bytes(4 * (self.size - start)))
            nc, ncm = len(self.corps), len(self.corps) + len(self.minors)
            corp_index, minor_index = self._corp_index, self._minor_index
            for (hid, _), syms in tokens.items():
                row = start + hex_index[hid] * ncm
                for s in syms:
                    if s in corp_index:
                        template[row + corp_index[s]] += 1
                    elif s in minor_index:
                        template[row + nc + minor_index[s]] += 1
        self._board = _BoardPart(board.version, template, dict(tiles), dict(tokens))
        return template

    def encode(self, game: Game, seat: int) -> npt.NDArray[np.float32]:
        """The ``(size,)`` float32 vector of ``game`` seen from ``seat`` (0-based index of
        the observer in ``game.seats``).  Raises ``IndexError`` for a seat out of range.

        The vector is written into a copy of :meth:`_template` (an ``array("f")``: a C
        float each, the same float32 rounding as numpy's), element by element and a
        corporation's or player's row at once (:data:`_CORP_ROW`, :data:`_PLAYER_ROW`),
        and returned as a numpy view of it.  A corporation's certificates are read through
        their holdings (:class:`_Holdings`, the last ones kept while the owners and spec
        are the same), which also give the players' values (:func:`_values`)."""
        n = self.num_players
        if not 0 <= seat < n:
            raise IndexError(f"seat {seat} out of range 0..{n - 1}")
        at = self._at
        h = array("f", self._template(game))
        st = game.state
        players = st.players
        # seats are the table's (``game.seats``): fixed for the game, while the
        # priority order of ``game.players`` turns
        rel = {pid: (i - seat) % n for i, (pid, _) in enumerate(game.seats)}
        rnd = st.round
        current = None
        if rnd is not None:
            h[self._round_at.get(rnd.kind, at["step"] - 1)] = 1
            if not st.finished:
                h[self._step_at.get(rnd.step_name(game), at["phase"] - 1)] = 1
                current = rnd.current_entity(game)
        h[at["phase"] + min(st.phase, self.num_phases - 1)] = 1
        g = at["globals"]
        bank = st.bank
        h[g] = bank.cash / 1000
        h[g + 1] = st.or_count
        h[g + 2] = st.finished
        h[g + 3] = bank.broken
        if not st.finished:
            for pid in game.acting_entities()[:1]:
                h[at["acting"] + rel[pid]] = 1
            h[at["priority"] + rel[game.title.trace_priority(game).id]] = 1
        cur_sym = getattr(current, "sym", None)
        train_index = self._train_index
        holdings, owner_of = self._holdings, _OWNER
        nc = len(self.corps)
        shares, pres_at = at["shares"], at["president"]
        corporations = game.corporations
        corp_row = _CORP_ROW.pack_into
        priced: list[tuple[_Holdings, int]] = []  # (holdings, share price) of valued ones
        seen = 0  # corporations of the game looked at
        for ci, sym, row, trains_row in self._corp_rows:
            corp = corporations.get(sym)
            if corp is None:
                continue
            seen += 1
            owners = list(map(owner_of, corp.certificates))
            held = holdings.get(sym)
            if held is None or held.owners != owners or held.spec is not corp.spec:
                held = holdings[sym] = _Holdings.of(corp, owners)
            for owner, _, frac in held.held:
                if owner in rel:
                    h[shares + rel[owner] * nc + ci] = frac  # type: ignore[index]
            pres = held.president
            if isinstance(pres, int) and pres in rel:
                h[pres_at + ci * n + rel[pres]] = 1
            sp, par = corp.share_price, corp.par_price
            closed = corp.closed
            if sp is not None and not closed:
                priced.append((held, sp.price))
            trains = corp.trains
            corp_row(h, 4 * row, par is not None, corp.floated, closed, held.receivership,
                     cur_sym == sym, corp.cash / 1000, 0 if sp is None else sp.price / 100,
                     0 if par is None else par.price / 100, held.ipo / 100,
                     held.market / 100, corp.tokens_left, len(trains), corp.operated)
            for t in trains:
                h[trains_row + train_index[t.name]] += 1
        values = _values(game, priced, seen == len(corporations))
        base = at["players"]
        player_row = _PLAYER_ROW.pack_into
        for p in players:
            player_row(h, 4 * (base + 4 * rel[p.id]), p.cash / 1000, values[p.id] / 1000,
                       p.bankrupt, len(p.companies))
        minors = game.minors
        owner_at = at["minor_owner"]
        for mi, sym, row, trains_row in self._minor_rows:
            minor = minors.get(sym)
            if minor is None:
                continue
            h[row] = minor.owner is not None
            h[row + 1] = minor.floated
            h[row + 2] = minor.closed
            h[row + 3] = cur_sym == sym
            h[row + 4] = minor.cash / 1000
            if minor.owner in rel:
                h[owner_at + mi * n + rel[minor.owner]] = 1
            for t in minor.trains:
                h[trains_row + train_index[t.name]] += 1
        privates, companies = game.privates, self._company_syms
        for sym, row in self._private_rows:
            priv = privates.get(sym)
            if priv is None:
                continue
            holder = priv.owner
            if isinstance(holder, int):
                h[row + rel.get(holder, n + 1)] = 1
            else:
                h[row + (n if holder in companies else n + 1)] = 1
            if priv.closed:
                h[row + n + 2] = 1
        depot = at["depot"]
        discarded = st.discard_order
        for t in st.trains:  # (most trains are held: the cheapest tests first)
            held_by = t.owner
            if held_by is None:
                if not t.rusted:
                    h[depot + 2 * train_index[t.name]] += 1
            elif discarded and held_by == MARKET and not t.rusted and t.id in discarded:
                h[depot + 2 * train_index[t.name] + 1] += 1
        return np.frombuffer(h, dtype=np.float32)
