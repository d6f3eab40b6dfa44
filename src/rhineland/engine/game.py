"""The game: state, ``process(action)``, undo/redo, the log, and the title's hooks.

A :class:`Game` is created from a title, the players and the settings of an
18xx.games export (seed, optional rules).  Every action goes through
:meth:`Game.process`: the current round checks it (raising
:class:`~rhineland.errors.GameError` with the rule and the values) and applies
it; on any error the state is restored exactly as it was.  Undo and redo use
snapshots of the mutable state (:meth:`Game.snapshot`), never a replay.

Money is in Mark (M), integers.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from rhineland.board.board import Board
from rhineland.engine.actions import (
    Action,
    DestinationConnection,
    Message,
    ProgramBuyShares,
    ProgramDisable,
    ProgramSharePass,
    Redo,
    Undo,
    with_auto_actions,
)
from rhineland.engine.entities import (
    IPO,
    MARKET,
    Bank,
    Certificate,
    Corporation,
    Holder,
    Minor,
    Player,
    Private,
    Train,
)
from rhineland.engine.legal.choices import with_amount
from rhineland.engine.leniency import LeniencyUse
from rhineland.engine.market import StockMarket
from rhineland.engine.rng import GameRandom
from rhineland.engine.state import State
from rhineland.engine.title import Title
from rhineland.engine.titledata import PhaseSpec
from rhineland.errors import GameError

if TYPE_CHECKING:
    from rhineland.board.legality import Lay, LayContext, TokenSpot
    from rhineland.engine.legal import Choice
    from rhineland.engine.rounds.base import Round


_T = TypeVar("_T")
_UNSET: Any = object()  # no answer kept yet (Game.remembered)

_OWN_CHECK: dict[type, bool] = {}

_NOT_CHECKED = (ProgramSharePass, ProgramBuyShares, ProgramDisable, DestinationConnection)
"""Actions :meth:`Game._apply` handles before the round (no round check tells of them)."""


def _checks_own_process(cls: type) -> bool:
    """Whether round class ``cls`` takes its ``check`` from the class it takes its
    ``process`` from (a subclass overriding ``process`` alone does not check as its
    base's ``check`` says)."""
    got = _OWN_CHECK.get(cls)
    if got is None:
        def owner(name: str) -> type:
            return next(k for k in cls.__mro__ if name in k.__dict__)

        got = _OWN_CHECK[cls] = owner("check") is owner("process")
    return got


_ROUND_CHECKS: dict[tuple[type[Title], type], bool] = {}


def _round_checks(title_cls: type[Title], round_cls: type) -> bool:
    """Whether the round's ``check`` is the first of the checks :meth:`Game.process`
    makes for a title of ``title_cls`` in a round of ``round_cls``: the title has no
    hook before the round's checks (``before_action``), and the round takes its
    ``check`` from the class it takes its ``process`` from (:func:`_checks_own_process`).
    One answer per pair of classes."""
    got = _ROUND_CHECKS.get((title_cls, round_cls))
    if got is None:
        got = _ROUND_CHECKS[title_cls, round_cls] = (
            title_cls.before_action is Title.before_action
            and _checks_own_process(round_cls))
    return got


class Game:
    """One game of an 18xx title.

    ``players`` are ``(id, name)`` pairs in seat order (export ids), ``seed`` the
    export's ``settings.seed``.  Raises :class:`GameError` for a player count
    the title does not allow.
    """

    def __init__(
        self,
        title: Title,
        players: Sequence[tuple[int, str]],
        seed: int = 0,
        *,
        keep_history: bool = True,
    ) -> None:
        self.title = title
        self.data = title.data
        self.seed = seed
        self.market = StockMarket(self.data.market)
        self.log: list[str] = []
        self._log_marks: list[tuple[int, str]] = []  # (first log line, round label)
        self._log_round: object = None  # the round of the last line logged
        self.actions: list[Action] = []
        self.keep_history = keep_history
        self.seats: list[tuple[int, str]] = [(int(pid), str(name)) for pid, name in players]
        self._undo_stack: list[tuple[tuple[State[Round], int], Action]] = []  # (snapshot, action)
        self._redo_stack: list[list[Action]] = []
        self.leniencies: frozenset[str] = frozenset()
        self.leniencies_used: list[LeniencyUse] = []
        self._action_id: int | None = None
        self._autos: list[Action] | None = None  # noted by record_auto while processing
        self._legal_cache: tuple[tuple[int, int, bool], list[Any]] | None = None
        self._id_top: tuple[int, int] = (0, 0)  # (actions looked at, highest id among them)
        self._train_at: dict[str, int] = {}
        """Where :meth:`train` last found each train id in the state's trains (their
        order is the data's, kept by clones): looked at first, then checked."""
        self.position_memo: dict[Hashable, Any] | None = None
        """Answers that hold for the position as it stands, kept while a legal-action
        trial asks :meth:`check` and while the generator lists the position's candidates
        (the state untouched both times: :class:`~rhineland.engine.legal.Trial` and
        ``legal_actions`` set it and take it away); ``None`` otherwise (:meth:`remembered`)."""
        n = len(players)
        if n not in self.data.players:
            allowed = ", ".join(str(k) for k in sorted(self.data.players))
            raise GameError(
                f"{self.data.title} is for {allowed} players, not {n}", "setup.player_count"
            )
        cash, _ = self.data.players[n]
        bank = Bank(self.data.bank - cash * n)
        plist = [Player(pid, name, cash) for pid, name in players]
        corps = {}
        for spec in self.data.corporations:
            certs = [
                Certificate(spec.sym, i, pct, i == 0, IPO, i in spec.reserved_shares)
                for i, pct in enumerate(spec.shares)
            ]
            corps[spec.sym] = Corporation(spec, certs)
        minors = {m.sym: Minor(m) for m in self.data.minors}
        privates = {p.sym: Private(p) for p in self.data.privates}
        trains = [Train(tid, t) for t in self.data.trains for tid in t.ids]
        board = Board(self.data.map, self.data.tiles)
        self.state: State[Round] = State(bank, plist, corps, minors, privates, trains, board)
        self.state.title_state = title.new_title_state()
        self.rng = GameRandom(seed, self.data.rng)
        title.setup(self)
        self.state.round = title.first_round(self)
        self.state.round.start(self)

    # -- convenient views ------------------------------------------------------
    @property
    def players(self) -> list[Player]:
        """All players in the current seat/priority order, bankrupt ones included
        (see :meth:`seat_order`)."""
        return self.state.players

    @property
    def corporations(self) -> dict[str, Corporation]:
        """Every corporation of the title by symbol, started or not."""
        return self.state.corporations

    @property
    def minors(self) -> dict[str, Minor]:
        """Minor companies by symbol (1893; empty in 18Rhl)."""
        return self.state.minors

    @property
    def privates(self) -> dict[str, Private]:
        """Private companies by symbol."""
        return self.state.privates

    @property
    def bank(self) -> Bank:
        """The bank (cash in M, broken flag)."""
        return self.state.bank

    @property
    def board(self) -> Board:
        """The mutable board: tiles on hexes, tokens in cities, the tile supply."""
        return self.state.board

    @property
    def round(self) -> Round:
        """The current round (auction, draft, SR, OR or merger round)."""
        assert self.state.round is not None
        return self.state.round

    @property
    def phase(self) -> PhaseSpec:
        """The current phase (name, train limits, tile colours, ORs per set)."""
        return self.data.phases[self.state.phase]

    @property
    def finished(self) -> bool:
        """Whether the game has ended."""
        return self.state.finished

    def player(self, pid: int) -> Player:
        """The player with export id ``pid``; raises ``GameError`` when unknown."""
        for p in self.state.players:
            if p.id == pid:
                return p
        raise GameError(f"no player with id {pid}", "entity.player")

    def corporation(self, sym: str) -> Corporation:
        """The corporation ``sym``; raises ``GameError`` (``"entity.corporation"``) when unknown."""
        try:
            return self.state.corporations[sym]
        except KeyError:
            raise GameError(f"no corporation {sym!r}", "entity.corporation") from None

    def private(self, sym: str) -> Private:
        """The private company ``sym``; raises ``GameError`` (``"entity.company"``) when unknown."""
        try:
            return self.state.privates[sym]
        except KeyError:
            raise GameError(f"no private company {sym!r}", "entity.company") from None

    def seat_order(self) -> list[Player]:
        """Players in the current seat/priority order, bankrupt ones excluded."""
        return [p for p in self.state.players if not p.bankrupt]

    def next_player(self, player: Player) -> Player:
        """The player after ``player`` in the current order (skipping bankrupt players)."""
        order = self.state.players
        i = order.index(player)
        for k in range(1, len(order) + 1):
            nxt = order[(i + k) % len(order)]
            if not nxt.bankrupt:
                return nxt
        return player

    # -- money -----------------------------------------------------------------
    def pay(self, payer: Any, payee: Any, amount: int) -> None:
        """Move ``amount`` M between cash holders (bank, players, corporations, minors).

        The bank may go negative once broken; when it cannot pay in full the
        bank breaks (the game end check happens in the rounds).
        """
        if amount == 0:
            return
        payer.cash -= amount
        payee.cash += amount
        if payer is self.state.bank and self.state.bank.cash < 0:
            self.state.bank.broken = True

    def add_log(self, line: str) -> None:
        """Append a human-readable line to the game log (noting the round it is written
        in: :meth:`log_rounds`)."""
        rnd = self.state.round
        if rnd is not self._log_round:
            self._log_round = rnd
            label = rnd.label if rnd is not None else ""
            marks = self._log_marks
            if not marks or marks[-1][1] != label:
                marks.append((len(self.log), label))
        self.log.append(line)

    def truncate_log(self, length: int) -> None:
        """Drop the log lines after the first ``length`` (an undo, a refused action, a
        trial)."""
        del self.log[length:]
        marks = self._log_marks
        while marks and marks[-1][0] >= length:
            marks.pop()
        self._log_round = None

    def log_rounds(self) -> list[str]:
        """The label of the round each line of :attr:`log` was written in (``"SR 1"``,
        ``"OR 2.1"``, ``"MR 3.1"``, ...; ``""`` before the first round), line by line
        (every line is logged by :meth:`add_log`, which marks the first one at 0)."""
        out: list[str] = []
        marks = self._log_marks
        for k, (start, label) in enumerate(marks):
            end = marks[k + 1][0] if k + 1 < len(marks) else len(self.log)
            out.extend([label] * (end - start))
        return out

    # -- shares ----------------------------------------------------------------
    def holder_name(self, holder: Holder) -> str:
        """A certificate holder's name for the log: the player's name for a player id,
        else the holder itself (``IPO``, ``MARKET`` or a symbol)."""
        if isinstance(holder, int):
            return self.player(holder).name
        return holder

    def player_value(self, player: Player) -> int:
        """Score (M): cash + certificates at market value (+ title extras)."""
        return self.title.player_value(self, player)

    def player_values(self) -> dict[int, int]:
        """:meth:`player_value` of every player, by player id (one pass; for observations)."""
        return self.title.player_values(self)

    # -- phases and trains -------------------------------------------------------
    def depot_trains(self) -> list[Train]:
        """Trains still in the depot, in order."""
        return [t for t in self.state.trains if t.owner is None and not t.rusted]

    def to_open_market(self, train: Train) -> None:
        """Put ``train`` in the open market (discarded or traded in), at the end of it."""
        train.owner = MARKET
        order = self.state.discard_order
        if train.id in order:
            order.remove(train.id)
        order.append(train.id)

    def discarded_trains(self) -> list[Train]:
        """Trains in the open market, in the order they were discarded."""
        order = self.state.discard_order
        if not order:
            return []  # none discarded yet (most calls: no table of the trains needed)
        # the market's trains by id (a train leaves the market by a purchase or rusting;
        # its id stays in the order)
        market = {t.id: t for t in self.state.trains if t.owner == MARKET and not t.rusted}
        return [market[i] for i in order if i in market]

    def train(self, train_id: str) -> Train:
        """The train with export id ``train_id``; raises ``GameError`` (``"train.id"``)
        when unknown.  The legal listing's trials ask often: the train is looked for where
        it was last found first."""
        trains = self.state.trains
        i = self._train_at.get(train_id)
        if i is not None and i < len(trains) and trains[i].id == train_id:
            return trains[i]
        for i, t in enumerate(trains):
            if t.id == train_id:
                self._train_at[train_id] = i
                return t
        raise GameError(f"no train {train_id!r}", "train.id")

    # -- processing --------------------------------------------------------------
    def process(self, action: Action, *, atomic: bool = True,
                history: bool | None = None) -> None:
        """Check and apply one action, then its recorded ``auto_actions``.

        Raises :class:`GameError` when the action is illegal; with ``atomic``
        (the default) the state is then exactly as before the call.  With
        ``history`` (default: the game's ``keep_history``) the state before the
        action is kept so that an undo can return to it.  Every
        processed action (undo, redo and messages included) is recorded in
        :attr:`actions`, as an export keeps it.
        """
        if action.id is None:  # a copy with the id (its fields are valid already)
            action = with_amount(action, "id", self._last_action_id() + 1)
        if isinstance(action, Undo):
            self._undo(action.action_id)
        elif isinstance(action, Redo):
            self._redo()
        elif not isinstance(action, Message):
            keep = self.keep_history if history is None else history
            self._action_id = action.id
            action = self._process_game_action(action, atomic, keep)
            self._redo_stack.clear()
        self.actions.append(action)

    def record(self, action: Action) -> None:
        """Keep ``action`` in :attr:`actions` without checking or applying it: a loaded
        export's action that a later undo reverts (no redo restoring it), and its undo
        and redo markers.  18xx.games loads an export by applying only the standing
        actions (``Engine::Game::Base.filtered_actions``); the others stay in the log
        as written.  What was kept for undo is dropped (it no longer matches the log):
        :meth:`undo` then has nothing to return to."""
        self._undo_stack.clear()
        self._redo_stack.clear()
        self.actions.append(action)

    def _last_action_id(self) -> int:
        """The highest id among :attr:`actions` (0 if none), kept up to date as actions are
        appended (only the new ones are looked at)."""
        n = len(self.actions)
        seen, top = self._id_top
        if seen > n:
            seen, top = 0, 0
        for a in self.actions[seen:]:
            top = max(top, a.id or 0)
        self._id_top = (n, top)
        return top

    def _process_game_action(self, action: Action, atomic: bool, keep: bool) -> Action:
        """Apply ``action`` and its recorded ``auto_actions``; return it as recorded: with
        the automatic actions the rules made (:meth:`record_auto`) when it carries none."""
        snapshot = self.snapshot() if (atomic or keep) else None
        used = len(self.leniencies_used)
        autos: list[Action] = []
        self._autos = autos
        try:
            self._apply(action)
            for auto in action.auto_actions:
                self._apply_auto(auto)
        except Exception:
            if snapshot is not None:
                self.restore(snapshot)
            del self.leniencies_used[used:]  # a refused action used no leniency
            raise
        finally:
            self._autos = None
        if autos and not action.auto_actions:
            action = with_auto_actions(action, tuple(autos))
        if snapshot is not None and keep:
            self._undo_stack.append((snapshot, action))
        return action

    def record_auto(self, action: Action) -> None:
        """Note an automatic action the reference engine writes into the ``auto_actions``
        of the action being processed (18Rhl's RhE link check, ``destination_connection``),
        so that the export carries it and 18xx.games loads the game.  Its effect is the
        caller's to apply; outside :meth:`process` nothing is noted.  An action that ends
        the game carries it too (18Rhl: the link check of the last operating turn after
        the bank broke; the reference ends the game only once it has run)."""
        if self._autos is not None:
            self._autos.append(action)

    def check(self, action: Action) -> bool:
        """The checks :meth:`process` makes first, made on the state as it is (left
        untouched) under the rules (no leniency): raises ``GameError`` when they refuse
        ``action``; returns True when they are the whole of the rules for it (then
        :meth:`process` accepts it), False when only processing it tells (the round's
        :meth:`~rhineland.engine.rounds.base.Round.check`).  For the legal-action
        trials (:class:`~rhineland.engine.legal.Trial`)."""
        self._check_open(action)
        if isinstance(action, _NOT_CHECKED):
            return False
        rnd = self.round
        if not _round_checks(type(self.title), type(rnd)):
            return False
        saved = self.leniencies
        if not saved:  # no leniency to set aside (the legal listing's trials)
            return rnd.check(self, action)
        self.leniencies = frozenset()
        try:
            return rnd.check(self, action)
        finally:
            self.leniencies = saved

    def remembered(self, key: Hashable, compute: Callable[[], _T]) -> _T:
        """``compute()``, kept under ``key`` while the legal-action trials of one position
        ask :meth:`check`, and while its candidates are listed (:attr:`position_memo`):
        a rule every candidate asks (e.g. a
        stock-round player's certificate count, whether they must sell) is worked out
        once per position.  ``key`` must name everything the answer depends on besides
        the position (e.g. the player).  Outside those checks: ``compute()`` each time."""
        memo = self.position_memo
        if memo is None:
            return compute()
        got = memo.get(key, _UNSET)
        if got is _UNSET:
            got = memo[key] = compute()
        return got  # type: ignore[no-any-return]

    def _check_open(self, action: Action) -> None:
        """``GameError`` (``"game.finished"``) once the game is over."""
        if self.state.finished:
            raise GameError(f"the game is over; {action.type} is not possible", "game.finished")

    def _apply_auto(self, auto: Action) -> None:
        """An automatic action recorded with the action just applied.  A link check
        (``destination_connection``) is the check our rules made inside that action, so
        it is compared with theirs even when that action ended the game."""
        if isinstance(auto, DestinationConnection):
            self.title.check_destination_connection(self, auto)
            return
        self._apply(auto)

    def _apply(self, action: Action) -> None:
        self._check_open(action)
        if isinstance(action, ProgramSharePass | ProgramBuyShares | ProgramDisable):
            # Programmed actions only set up the server's automation; their
            # effects are the auto_actions recorded with later actions.
            return
        if isinstance(action, DestinationConnection):
            self.title.check_destination_connection(self, action)
            return
        self.title.before_action(self, action)
        self.round.process(self, action)
        self.title.after_action(self, action)
        self.end_if_all_bankrupt()

    def end_if_all_bankrupt(self) -> bool:
        """End the game when every player is bankrupt: no one is left to act (the
        reference leaves this case undefined; its bankruptcy end is one player or all
        but one, and 18Rhl's end check has no bankruptcy at all).  Returns whether
        the game is over for that reason."""
        st = self.state
        if not st.finished and all(p.bankrupt for p in st.players):
            st.finished = True
            st.game_end_reason = "bankrupt"
            st.ended_mid_round = True
        return st.finished and st.game_end_reason == "bankrupt"

    def use_leniency(self, use: LeniencyUse) -> None:
        """Record an action accepted under a leniency (``use.rule`` is refused by the
        rules; the leniency is one of :attr:`leniencies`) and log it.  An action
        processed again (a redo) is recorded once."""
        if any(u == use for u in self.leniencies_used):
            return
        self.leniencies_used.append(use)
        self.add_log(str(use))

    def snapshot(self) -> tuple[State[Round], int]:
        """The mutable state now and the log length (for undo or look-ahead)."""
        return (self.state.clone(), len(self.log))

    def restore(self, snap: tuple[State[Round], int]) -> None:
        """Return to a :meth:`snapshot` (the snapshot stays reusable).

        The live entity objects (players, corporations, minors, privates, trains,
        certificates, bank, board) are kept and given their snapshot values, so
        references a caller holds stay valid after a failed action.
        """
        state, log_len = snap
        self.state.assign(state.clone())
        self.truncate_log(log_len)

    def undo(self, action_id: int | None = None) -> None:
        """Undo the last game action, or every game action after id ``action_id``.

        The undo is recorded as an ``undo`` action (exports keep it).  Raises
        :class:`GameError` when there is nothing to undo (``keep_history`` off, or
        no action yet).
        """
        self.process(Undo(entity=self._acting_id(), action_id=action_id))

    def redo(self) -> None:
        """Re-apply the batch removed by the latest undo (recorded as a ``redo`` action)."""
        self.process(Redo(entity=self._acting_id()))

    def _acting_id(self) -> int:
        ids = self.round.acting_player_ids(self) if self.state.round is not None else []
        return ids[0] if ids else self.seats[0][0]

    def _undo(self, action_id: int | None = None) -> None:
        if not self._undo_stack:
            raise GameError("nothing to undo", "undo.empty")
        batch: list[Action] = []
        while self._undo_stack:
            (state, log_len), action = self._undo_stack[-1]
            if action_id is not None and (action.id or 0) <= action_id:
                break
            self._undo_stack.pop()
            batch.insert(0, action)
            self.state.assign(state)
            self.truncate_log(log_len)
            if action_id is None:
                break
        self._redo_stack.append(batch)

    def _redo(self) -> None:
        if not self._redo_stack:
            raise GameError("nothing to redo", "redo.empty")
        batch = self._redo_stack.pop()
        for action in batch:
            self._process_game_action(action, True, True)

    # -- legal moves (for players, bots and tests) ----------------------------------
    def legal_tile_lays(self) -> list[Lay]:
        """Every legal tile lay of the operating entity now (its private companies'
        special lays included, marked ``special``); [] outside a track step."""
        from rhineland.board.legality import legal_tile_lays
        from rhineland.engine.rounds.operating import OperatingRound

        rnd = self.state.round
        if not isinstance(rnd, OperatingRound) or rnd.step_name(self) != "track":
            return []
        return legal_tile_lays(self.title.lay_context(self, rnd, rnd.current_entity(self)))

    def tile_lay_options(self) -> tuple[LayContext | None, list[Lay]]:
        """:meth:`legal_tile_lays` before the track restriction, with the lay context to
        check it by (:func:`rhineland.board.legality.passes_restriction`); ``(None, [])``
        outside a track step."""
        from rhineland.board.legality import tile_lay_options
        from rhineland.engine.rounds.operating import OperatingRound

        rnd = self.state.round
        if not isinstance(rnd, OperatingRound) or rnd.step_name(self) != "track":
            return None, []
        ctx = self.title.lay_context(self, rnd, rnd.current_entity(self))
        return ctx, tile_lay_options(ctx)

    def legal_tokens(self) -> list[TokenSpot]:
        """Every legal token placement of the operating entity now; [] outside a token step."""
        from rhineland.board.legality import legal_tokens
        from rhineland.engine.rounds.operating import OperatingRound

        rnd = self.state.round
        if not isinstance(rnd, OperatingRound) or rnd.step_name(self) != "token":
            return []
        return legal_tokens(self.title.lay_context(self, rnd, rnd.current_entity(self)))

    def legal_actions(self, expand: bool = False) -> list[Choice]:
        """Every legal action of every entity that may act now, processable as-is.

        Amounts (bids, company and train prices) come as
        :class:`~rhineland.engine.legal.AmountRange` and running trains as a
        :class:`~rhineland.engine.legal.RouteChoice`; with ``expand`` every range is
        listed as plain actions and a route choice as its best routes (searched
        then).  ``[]`` once the game is over.  The list follows the rules: an action
        is in it exactly when :meth:`process` accepts it (no leniency).
        """
        from rhineland.engine.legal import generate

        key = (len(self.actions), len(self.log), expand)
        if self._legal_cache is not None and self._legal_cache[0] == key:
            return list(self._legal_cache[1])
        choices: list[Any] = generate.legal_actions(self)
        if expand:
            choices = generate.expand(self, choices)
        self._legal_cache = (key, choices)
        return list(choices)

    def is_legal(self, action: Action) -> bool:
        """Whether :meth:`process` accepts ``action`` now under the rules (it is tried
        and undone: the state is unchanged)."""
        from rhineland.engine.legal import Trial

        if self.state.finished:
            return False
        return Trial(self).accepts(action)

    def acting_entities(self) -> list[int]:
        """Ids of the players who decide now (the president of an operating company,
        every player for a company in receivership; all players once the game is over)."""
        st = self.state
        if st.finished and not st.ended_mid_round:
            return [p.id for p in st.players if not p.bankrupt]
        return self.round.acting_player_ids(self) if st.round is not None else []

    @property
    def is_terminal(self) -> bool:
        """Whether the game has ended (no action is legal any more)."""
        return self.state.finished

    def result(self) -> dict[int, int]:
        """Each player's score (M) by player id: cash, shares at market value and the
        title's extras (the export's ``result``); meaningful once :attr:`is_terminal`."""
        return {p.id: self.player_value(p) for p in self.state.players}

    def copy(self, *, history: bool = False) -> Game:
        """An independent copy of the game now (state, log, recorded actions).

        Cheap: the title data is shared and the state cloned.  Without ``history``
        the copy cannot undo what came before the copy; with it, the undo/redo
        history is copied too (one state clone per undoable action).
        """
        new = object.__new__(Game)
        new.__dict__.update(self.__dict__)
        new.state = self.state.clone()
        new.log = list(self.log)
        new._log_marks = list(self._log_marks)
        new.actions = list(self.actions)
        new.leniencies_used = list(self.leniencies_used)
        new._legal_cache = None
        new._autos = None
        new.position_memo = None
        if history:
            new._undo_stack = [((st.clone(), n), a) for (st, n), a in self._undo_stack]
            new._redo_stack = [list(b) for b in self._redo_stack]
        else:
            new._undo_stack = []
            new._redo_stack = []
        return new

    def lenient(self, message: str, rule: str) -> None:
        """An action the rules refuse with ``message`` [``rule``]: raise ``GameError``,
        unless ``rule`` is one of :attr:`leniencies` (an export replay's), then record
        its use in :attr:`leniencies_used` and accept it."""
        if rule not in self.leniencies:
            raise GameError(message, rule)
        self.use_leniency(LeniencyUse(rule, self._action_id, message))

    # -- helpers used by rounds --------------------------------------------------
    def decides_for(self, player_id: int, entity_type: str, entity: int | str) -> bool:
        """Whether player ``player_id`` decides for the entity an action names
        (``entity_type``, ``entity``: a player id or a symbol; :meth:`entity_owner_ids`);
        an entity the game does not have is left to the rules to refuse (True)."""
        if entity_type == "player":
            return entity == player_id
        tables: dict[str, Mapping[str, Any]] = {
            "corporation": self.corporations, "minor": self.minors, "company": self.privates}
        found = tables.get(entity_type, {}).get(str(entity))
        return found is None or player_id in self.entity_owner_ids(found)

    def entity_owner_ids(self, entity: Any) -> list[int]:
        """Player ids who decide for ``entity`` (a player, corporation, minor or private)."""
        if isinstance(entity, Player):
            return [entity.id]
        if isinstance(entity, Corporation):
            pres = entity.president
            if pres is None and entity.receivership:
                return self.title.entity_acting_ids(self, entity)
            return [pres] if pres is not None else []
        if isinstance(entity, Minor):
            return [entity.owner] if entity.owner is not None else []
        if isinstance(entity, Private):
            return [entity.owner] if isinstance(entity.owner, int) else []
        return []
