"""The mutable state of a game: everything that changes, snapshotted for undo.

The state holds the current round without knowing the round classes: its round type is a
parameter (:class:`~rhineland.engine.game.Game` keeps a ``State[Round]``), so the modules
below the game read the state without importing the rounds.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from rhineland.board.board import Board
from rhineland.engine.entities import Bank, Certificate, Corporation, Minor, Player, Private, Train
from rhineland.engine.fastcopy import fast_deepcopy

R = TypeVar("R")
"""The round type (:class:`~rhineland.engine.rounds.base.Round` in a game)."""
_T = TypeVar("_T")


@dataclass
class State(Generic[R]):
    """Everything that changes during a game (snapshotted for undo).

    ``players`` is in seat/priority order (rotated by the rules); ``phase`` is an
    index into the title's phases; ``title_state`` is the title's own typed state
    (a dataclass from :meth:`~rhineland.engine.title.Title.new_title_state`, copied
    with the state); ``or_count`` is the number of ORs in the current set (fixed at the SR's end);
    ``fired_events`` holds the train types whose events have fired (once, at the first
    purchase of the type; a train of it bought again from the open market fires none).
    """

    bank: Bank
    players: list[Player]
    corporations: dict[str, Corporation]
    minors: dict[str, Minor]
    privates: dict[str, Private]
    trains: list[Train]
    board: Board
    round: R | None = None
    phase: int = 0
    turn: int = 1
    finished: bool = False
    end_trigger: tuple[str, str] | None = None
    game_end_reason: str | None = None
    ended_mid_round: bool = False
    log_len: int = 0
    market_order: int = 0
    cell_order: dict[str, int] = field(default_factory=dict)
    discard_order: list[str] = field(default_factory=list)
    title_state: Any = None
    or_count: int = 1
    fired_events: frozenset[str] = frozenset()

    def assign(self, other: State[R]) -> None:
        """Take ``other``'s values while keeping this state's entity objects."""
        trains = {t.id: t for t in self.trains}
        for t in other.trains:
            trains[t.id].__dict__.update(t.__dict__)

        def relink(obj: Any, new: Any) -> None:
            saved = obj.__dict__.get("certificates")
            obj.__dict__.update(new.__dict__)
            if saved is not None:
                for live, cert in zip(saved, new.certificates, strict=True):
                    live.__dict__.update(cert.__dict__)
                obj.certificates = saved
            if hasattr(obj, "trains"):
                obj.trains = [trains[t.id] for t in new.trains]

        players = {p.id: p for p in self.players}
        for p in other.players:
            relink(players[p.id], p)
        for table, new_table in ((self.corporations, other.corporations),
                                 (self.minors, other.minors), (self.privates, other.privates)):
            for sym, new in new_table.items():
                relink(table[sym], new)
        self.bank.__dict__.update(other.bank.__dict__)
        board = self.board
        for slot in board.__slots__:
            setattr(board, slot, getattr(other.board, slot))
        live_players = [players[p.id] for p in other.players]
        for f in dataclasses.fields(self):
            if f.name not in ("bank", "players", "corporations", "minors", "privates", "trains",
                              "board"):
                setattr(self, f.name, getattr(other, f.name))
        self.players = live_players
        self.trains = [trains[t.id] for t in other.trains]

    def clone(self) -> State[R]:
        """An independent copy sharing only the immutable title data (fast, for undo and
        for every legal-action trial: one loop per kind of entity, no helper calls, the
        state's own fields set directly rather than through its constructor)."""
        new = object.__new__
        trains: dict[str, Train] = {}
        for t in self.trains:
            dup = new(type(t))
            dup.__dict__ = t.__dict__.copy()
            trains[dup.id] = dup
        corps: dict[str, Corporation] = {}
        for sym, c in self.corporations.items():
            nc = new(type(c))
            d = nc.__dict__ = c.__dict__.copy()
            certs: list[Certificate] = []
            add = certs.append
            for cert in c.certificates:
                dup_cert = new(type(cert))
                dup_cert.__dict__ = cert.__dict__.copy()
                add(dup_cert)
            d["certificates"] = certs
            d["trains"] = [trains[t.id] for t in c.trains]
            d["tokens"] = list(c.tokens)
            d["count_offset"] = dict(c.count_offset)
            corps[sym] = nc
        minors: dict[str, Minor] = {}
        for sym, m in self.minors.items():
            nm = new(type(m))
            d = nm.__dict__ = m.__dict__.copy()
            d["trains"] = [trains[t.id] for t in m.trains]
            d["tokens"] = list(m.tokens)
            minors[sym] = nm
        players: list[Player] = []
        for p in self.players:
            np_ = new(type(p))
            d = np_.__dict__ = p.__dict__.copy()
            d["companies"] = list(p.companies)
            players.append(np_)
        privates: dict[str, Private] = {}
        for sym, pr in self.privates.items():
            npr = new(type(pr))
            npr.__dict__ = pr.__dict__.copy()
            privates[sym] = npr
        st = new(State)
        # every field: the mutable ones copied below, the others (ints, flags, tuples) shared
        d = st.__dict__ = self.__dict__.copy()
        d["bank"] = _dup(self.bank)
        d["players"] = players
        d["corporations"] = corps
        d["minors"] = minors
        d["privates"] = privates
        d["trains"] = list(trains.values())
        d["board"] = self.board.clone()
        d["round"] = fast_deepcopy(self.round)
        d["cell_order"] = dict(self.cell_order)
        d["discard_order"] = list(self.discard_order)
        d["title_state"] = fast_deepcopy(self.title_state)
        return st


def _dup(obj: _T) -> _T:
    """A shallow copy of a plain dataclass instance (faster than ``dataclasses.replace``)."""
    new = object.__new__(type(obj))
    new.__dict__ = obj.__dict__.copy()
    return new
