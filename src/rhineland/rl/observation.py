"""Observation encoding: a flat float32 vector of fixed length per title and player
count (the same with any optional rules), seen from one seat, and a dict view of the same numbers.

All information in these games is public, so every seat sees the same facts; the
vector is *seat-relative*: wherever the layout runs over the players, the observer
comes first, then the others in seat order after them (seat ``(me + i) % n``).
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

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from rhineland.api import new_game
from rhineland.engine.entities import IPO, MARKET
from rhineland.engine.game import Game
from rhineland.rl.actions import title_variants

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


_PERCENT = _percent


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

    One encoder serves one thread at a time (it fills one work vector, then copies it).

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
        self._board_cache: tuple[int, npt.NDArray[np.float32], npt.NDArray[np.float32],
                                 npt.NDArray[np.float32]] | None = None
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
        self._names = [s.name for s in self.layout]
        self._offset = {s.name: s.offset for s in self.layout}
        self._work = np.zeros(self.size, dtype=np.float32)
        self._work_views = dict(zip(self._names, self._views(self._work), strict=True))

    # -- views ---------------------------------------------------------------------------
    def as_dict(self, flat: npt.NDArray[np.float32]) -> dict[str, npt.NDArray[np.float32]]:
        """The dict view of a flat vector: each segment's name -> a reshaped view (no copy)."""
        return {s.name: flat[s.offset:s.offset + s.size].reshape(s.shape) for s in self.layout}

    def _views(self, flat: npt.NDArray[np.float32]) -> list[npt.NDArray[np.float32]]:
        return [flat[s.offset:s.offset + s.size].reshape(s.shape) for s in self.layout]

    def encode_dict(self, game: Game, seat: int) -> dict[str, npt.NDArray[np.float32]]:
        """:meth:`encode` as its dict view."""
        return self.as_dict(self.encode(game, seat))

    def _board_part(self, game: Game, v: dict[str, npt.NDArray[np.float32]]) -> None:
        """Fill the ``hexes``, ``hex_tile`` and ``tokens`` segments from the board: computed
        once per board version (a version is renewed on every tile and token change and
        unique across boards) and copied after that."""
        board = game.board
        cached = self._board_cache
        if cached is None or cached[0] != board.version:
            hexes = np.zeros_like(v["hexes"])
            hex_tile = np.zeros_like(v["hex_tile"])
            tokens = np.zeros_like(v["tokens"])
            hex_index = self._hex_index
            for hid, placed in board.tiles.items():
                hi = hex_index[hid]
                color = placed.tile.color
                hexes[hi, COLORS.index(color) if color in COLORS else len(COLORS)] = 1
                hexes[hi, -1] = placed.rotation / 5
                hex_tile[hi] = self._tile_index.get(placed.tile.name, 0) / len(self.tiles)
            nc = len(self.corps)
            for (hid, _), syms in board.tokens.items():
                hi = hex_index[hid]
                for s in syms:
                    if s in self._corp_index:
                        tokens[hi, self._corp_index[s]] += 1
                    elif s in self._minor_index:
                        tokens[hi, nc + self._minor_index[s]] += 1
            cached = self._board_cache = (board.version, hexes, hex_tile, tokens)
        v["hexes"][...] = cached[1]
        v["hex_tile"][...] = cached[2]
        v["tokens"][...] = cached[3]

    def encode(self, game: Game, seat: int) -> npt.NDArray[np.float32]:
        """The ``(size,)`` float32 vector of ``game`` seen from ``seat`` (0-based seat
        index of the observer).  Raises ``IndexError`` for a seat out of range."""
        n = self.num_players
        if not 0 <= seat < n:
            raise IndexError(f"seat {seat} out of range 0..{n - 1}")
        flat = self._work  # filled here, returned as a copy (its views made once)
        flat.fill(0)
        v = self._work_views
        st = game.state
        ids = [p.id for p in st.players]
        rel = {pid: (i - seat) % n for i, pid in enumerate(ids)}
        rnd = st.round
        current = None
        if rnd is not None:
            kind = rnd.kind
            v["round"][ROUND_KINDS.index(kind) if kind in ROUND_KINDS else -1] = 1
            if not st.finished:
                step = rnd.step_name(game)
                v["step"][STEPS.index(step) if step in STEPS else -1] = 1
                current = rnd.current_entity(game)
        v["phase"][min(st.phase, self.num_phases - 1)] = 1
        g = v["globals"]
        g[0] = st.bank.cash / 1000
        g[1] = st.or_count
        g[2] = float(st.finished)
        g[3] = float(st.bank.broken)
        if not game.is_terminal:
            for pid in game.acting_entities()[:1]:
                v["acting"][rel[pid]] = 1
            v["priority"][rel[game.title.trace_priority(game).id]] = 1
        players = v["players"]
        values = game.player_values()
        # counts and percentages summed per flat index (shares as float32, in certificate
        # order, as adding into the vector sums them), written once at the end
        adds: dict[int, float | np.float32] = {}
        off = self._offset
        nc = len(self.corps)
        train_index = self._train_index
        percent = _PERCENT
        for p in st.players:
            r = rel[p.id]
            players[r] = (p.cash / 1000, values[p.id] / 1000, float(p.bankrupt),
                          len(p.companies))
        cur_sym = getattr(current, "sym", None)
        nt = len(self.train_names)
        corporations, minors, privates = game.corporations, game.minors, game.privates
        corp_rows, presidents = v["corporations"], v["president"]
        for ci, sym in enumerate(self.corps):
            corp = corporations.get(sym)
            if corp is None:
                continue
            ipo = market = 0
            pres: object = None
            receivership = False
            for cert in corp.certificates:
                owner = cert.owner
                if owner == IPO:
                    ipo += cert.percent
                elif owner == MARKET:
                    market += cert.percent
                    receivership = receivership or cert.president
                elif owner in rel:
                    k = off["shares"] + rel[owner] * nc + ci  # type: ignore[index]
                    got = adds.get(k)
                    frac = percent(cert.percent)
                    adds[k] = frac if got is None else got + frac
                if cert.president:
                    pres = owner
            sp, par = corp.share_price, corp.par_price
            corp_rows[ci] = (
                float(par is not None), float(corp.floated), float(corp.closed),
                float(receivership), float(cur_sym == sym), corp.cash / 1000,
                sp.price / 100 if sp else 0.0, par.price / 100 if par else 0.0,
                ipo / 100, market / 100, corp.tokens_left, len(corp.trains),
                float(corp.operated))
            if isinstance(pres, int) and pres in rel:
                presidents[ci, rel[pres]] = 1
            row = off["corp_trains"] + ci * nt
            for t in corp.trains:
                k = row + train_index[t.name]
                adds[k] = adds.get(k, 0) + 1
        for mi, sym in enumerate(self.minors):
            minor = minors.get(sym)
            if minor is None:
                continue
            v["minors"][mi] = (float(minor.owner is not None), float(minor.floated),
                               float(minor.closed), float(cur_sym == sym), minor.cash / 1000)
            if minor.owner in rel:
                v["minor_owner"][mi, rel[minor.owner]] = 1
            row = off["minor_trains"] + mi * nt
            for t in minor.trains:
                k = row + train_index[t.name]
                adds[k] = adds.get(k, 0) + 1
        private_rows = v["privates"]
        for qi, sym in enumerate(self.privates):
            priv = privates.get(sym)
            if priv is None:
                continue
            holder = priv.owner
            if isinstance(holder, int) and holder in rel:
                private_rows[qi, rel[holder]] = 1
            elif isinstance(holder, str) and (holder in self._corp_index
                                              or holder in self._minor_index):
                private_rows[qi, n] = 1
            else:
                private_rows[qi, n + 1] = 1
            if priv.closed:  # (zero otherwise, as filled)
                private_rows[qi, n + 2] = 1
        depot = off["depot"]
        for t in game.depot_trains():
            k = depot + train_index[t.name] * 2
            adds[k] = adds.get(k, 0) + 1
        for t in game.discarded_trains():
            k = depot + train_index[t.name] * 2 + 1
            adds[k] = adds.get(k, 0) + 1
        if adds:
            flat[list(adds)] = list(adds.values())
        self._board_part(game, v)
        return flat.copy()
