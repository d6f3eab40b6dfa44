"""Games as stored action lists, with atomic actions.

:class:`GameStore` keeps every game in the database (:mod:`rhineland.web.db`) as its
setup and its export action records, and a live :class:`~rhineland.engine.game.Game`
per recently used game in memory (rebuilt by replaying the stored actions).  An action
is checked (the seat's secret, the last action id the sender saw, the action's fields,
the rules) and then stored in one transaction: it is stored and applied, or refused
with a :class:`WebError` and nothing changes.  The database is the truth: when a
commit fails the in-memory game is dropped and rebuilt from what is stored.
"""

from __future__ import annotations

import dataclasses
import re
import secrets
import threading
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from rhineland.api import new_game
from rhineland.bots import Bot, make_bot
from rhineland.engine.actions import Action, Refs, Undo, action_from_json
from rhineland.engine.game import Game
from rhineland.engine.legal import RouteChoice
from rhineland.errors import ExportError, GameError
from rhineland.io.export import (
    Export,
    ReplayError,
    game_from_export,
    parse_export,
    replay_iter,
    standing_positions,
    to_export,
)
from rhineland.routes.search import best_routes
from rhineland.routes.stops import run_from_stops
from rhineland.web.db import ActionRow, AlertRow, GameRow, MessageRow, NoteRow, secret_hash
from rhineland.web.notify import Turn, email_address, webhook_url


class WebError(Exception):
    """A refused request: ``status`` is the HTTP status (403 wrong seat, 404 no such
    game, 409 stale last action id, 422 illegal or malformed), the message one line."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFound(WebError):
    """No game with that id."""

    status = 404


class Forbidden(WebError):
    """The secret is no seat's, or its seat may not take this action now."""

    status = 403


class Stale(WebError):
    """The sender saw an older position (``last_action_id``) than the stored one."""

    status = 409


class Refused(WebError):
    """The action is malformed (the export validation's message) or illegal (the
    engine's message)."""

    status = 422


class TooMany(WebError):
    """The seat sent more actions than its rate allows; ``retry_after``: whole seconds
    until the next one is let through."""

    status = 429

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
"""The shape of a game id (made ones are 11 characters, ``secrets.token_urlsafe(8)``;
the column holds 32): anything else is no game's, refused before the database is read."""

SECRET = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""The shape of a seat or spectator secret (made ones are 24 characters,
``secrets.token_urlsafe(18)``): anything else opens no seat, refused unhashed."""


CHAT_CHARS = 500
"""The longest chat message, in characters."""

CHAT_LINES = 200
"""How many of a game's last chat messages are read."""


NOTE_CHARS = 2000
"""The longest private note, in characters."""

PREVIEW_BUDGET = 4000
"""The search nodes a route preview's best-route search may use (the anytime mode of
:func:`rhineland.routes.search.best_routes`: a request stays fast on a crowded map)."""


def plain_text(text: str, limit: int, what: str) -> str:
    """``text`` without spaces around it.  Raises :class:`Refused` for one over ``limit``
    characters (``what`` names it: ``"a message"``), or with a control character other
    than a line break or a tab."""
    text = text.strip()
    if len(text) > limit:
        raise Refused(f"text: {what} is at most {limit} characters, not {len(text)}")
    for ch in text:
        if ch not in "\n\t" and unicodedata.category(ch) in ("Cc", "Cs"):
            raise Refused(f"text: no control characters (found U+{ord(ch):04X})")
    return text


def chat_text(text: str) -> str:
    """A chat message as stored (:func:`plain_text`, at most :data:`CHAT_CHARS`
    characters); raises :class:`Refused` for an empty one too."""
    if not text.strip():
        raise Refused("text: a message needs some text")
    return plain_text(text, CHAT_CHARS, "a message")


def check_game_id(game_id: str) -> None:
    """Raise :class:`NotFound` for a game id of the wrong shape (:data:`GAME_ID`)."""
    if not GAME_ID.fullmatch(game_id):
        raise NotFound("no game: a game id is 1 to 32 letters, digits, '-' or '_'")


def well_formed(secret: str | None) -> bool:
    """Whether ``secret`` has a secret's shape (:data:`SECRET`; ``None``: no secret)."""
    return secret is None or SECRET.fullmatch(secret) is not None


@dataclass
class Live:
    """A game in memory: the engine's game, its stored setup, who sent each action
    (``senders[i]``: the player id whose seat sent ``game.actions[i]``, ``None`` for an
    imported one), the bots by player id, when the game was created (Unix seconds),
    its chess clock (seconds of thinking time per player, ``None``: no clock) and the
    round of every position (``rounds[i]``: the label of the round after the first ``i``
    actions, :func:`round_label`; ``n_actions + 1`` of them).  The
    seats' and the spectator's secrets are known by their SHA-256 only
    (:func:`~rhineland.web.db.secret_hash`)."""

    id: str
    game: Game
    players: list[dict[str, Any]]
    secret_hashes: dict[int, str]
    spectator_hash: str
    bot_names: dict[int, str]
    description: str
    senders: list[int | None]
    created_at: int = 0
    clock: int | None = None
    bots: dict[int, Bot] = field(default_factory=dict)
    rounds: list[str] = field(default_factory=list)
    best: dict[tuple[int, str], dict[str, Any]] = field(default_factory=dict)
    """The best routes found (:meth:`GameStore.preview_stops`) by (last action id,
    entity), for the position now only."""

    @property
    def n_actions(self) -> int:
        """How many actions are stored (undo and messages included)."""
        return len(self.game.actions)

    @property
    def last_action_id(self) -> int:
        """The id of the last stored action (0 before the first)."""
        return (self.game.actions[-1].id or 0) if self.game.actions else 0

    def seat_of(self, secret: str | None) -> int | None:
        """The player id whose seat ``secret`` opens; ``None`` for the spectator link.
        Raises :class:`Forbidden` for any other secret."""
        if secret is not None and well_formed(secret):
            digest = secret_hash(secret)
            if secrets.compare_digest(digest, self.spectator_hash):
                return None
            for pid, h in self.secret_hashes.items():
                if secrets.compare_digest(digest, h):
                    return pid
        raise Forbidden("the secret opens no seat of this game (use your seat's invite link)")


    def undo_position(self, pid: int) -> int:
        """The position in ``game.actions`` of seat ``pid``'s last standing action, which
        it may undo (with the bots' actions after it).  Raises :class:`Refused` when the
        seat has no standing action or a person (or an import) acted after it."""
        standing = sorted(standing_positions(self.game.actions))
        mine = [i for i in standing if self.senders[i] == pid]
        if not mine:
            raise Refused("nothing of yours to undo")
        pos = mine[-1]
        for i in standing:
            sender = self.senders[i]
            if i > pos and sender not in self.bot_names:
                who = self.game.player(sender).name if sender is not None else "an import"
                raise Refused(f"{who} acted after your last action: it cannot be undone")
        return pos

    def bot_for(self, pid: int) -> Bot | None:
        """The bot playing seat ``pid`` (built on first use), ``None`` for a person."""
        name = self.bot_names.get(pid)
        if name is None:
            return None
        if pid not in self.bots:
            self.bots[pid] = make_bot(name, self.game.seed + pid)
        return self.bots[pid]


@dataclass(frozen=True)
class Created:
    """A new game's id, its seats ``[{"id", "name", "secret", "bot"}]`` and the
    spectator secret: the only time the secrets are in the clear (the database keeps
    their hashes, and the open seats' secrets for the lobby)."""

    id: str
    seats: list[dict[str, Any]]
    spectator: str


def _now() -> int:
    return int(time.time())


def _new_id() -> str:
    return secrets.token_urlsafe(8)


def _secret() -> str:
    return secrets.token_urlsafe(18)


class GameStore:
    """Every game of one database, with atomic actions.

    ``on_change(game_id, last_action_id)`` runs after each stored action (the
    events hub).  ``now()`` gives the time in Unix seconds (actions' ``created_at``, the
    chess clocks).  ``cache`` bounds the games kept live in memory.  All methods are
    thread-safe; the actions of one game are serialised by a per-game lock, and two
    processes sharing a database exclude each other through the guarded
    ``n_actions`` update (the loser gets :class:`Stale`).  ``admit(game_id, player_id)``
    runs before a seat's action or undo is looked at (the rate limit: it raises
    :class:`TooMany`); ``admit_chat(game_id, player_id)`` before a chat message, a note
    or the alerts are written, and ``on_chat(game_id, message_id)`` runs after a message
    is stored.  ``on_turn(game_id, player_ids, last_action_id)`` runs after a stored
    action made it the turn of people who did not decide before (not the seat that
    acted, no bot, nothing once the game is over): :mod:`rhineland.web.notify`.
    """

    def __init__(self, engine: Engine, *, cache: int = 256,
                 on_change: Callable[[str, int], None] | None = None,
                 now: Callable[[], int] = _now,
                 admit: Callable[[str, int], None] | None = None,
                 admit_chat: Callable[[str, int], None] | None = None,
                 on_chat: Callable[[str, int], None] | None = None,
                 on_turn: Callable[[str, list[int], int], None] | None = None) -> None:
        self.engine = engine
        self.now = now
        self.cache_size = cache
        self.on_change = on_change
        self.admit = admit
        self.admit_chat = admit_chat
        self.on_chat = on_chat
        self.on_turn = on_turn
        self._live: OrderedDict[str, Live] = OrderedDict()
        self._locks: dict[str, threading.RLock] = {}
        self._guard = threading.Lock()

    @property
    def live_count(self) -> int:
        """How many games are held in memory now (at most :attr:`cache_size`)."""
        return len(self._live)

    # -- locking and loading -------------------------------------------------------------
    @contextmanager
    def locked(self, game_id: str) -> Iterator[Live]:
        """The live game ``game_id`` with its lock held (raises :class:`NotFound`, for an
        id of the wrong shape before the database is read)."""
        check_game_id(game_id)
        with self._guard:
            lock = self._locks.setdefault(game_id, threading.RLock())
        with lock:
            try:
                live = self._load(game_id)
            except NotFound:
                with self._guard:
                    self._locks.pop(game_id, None)  # no lock kept for an unknown id
                raise
            yield live

    def _load(self, game_id: str) -> Live:
        with self._guard:
            live = self._live.get(game_id)
            if live is not None:
                self._live.move_to_end(game_id)
        if live is not None:
            with Session(self.engine) as s:
                stored = s.scalar(select(GameRow.n_actions).where(GameRow.id == game_id))
            if stored == live.n_actions:
                return live
            self._drop(game_id)  # another server stored actions since: replay them
        with Session(self.engine) as s:
            row = s.get(GameRow, game_id)
            if row is None:
                raise NotFound(f"no game {game_id!r}")
            acts = s.scalars(select(ActionRow).where(ActionRow.game_id == game_id)
                             .order_by(ActionRow.seq)).all()
            records = [a.data for a in acts]
            senders = [a.seat for a in acts]
            live_setup = (row.title, row.players, row.seed, row.optional_rules,
                          row.secret_hashes, row.spectator_hash, row.bots, row.description)
            created_at, clock = row.created_at, row.clock
        title, players, seed, rules, hashes, spectator, bots, description = live_setup
        export = parse_export({"title": title, "players": players,
                               "settings": {"seed": seed, "optional_rules": rules},
                               "actions": records})
        rounds: list[str] = []
        game = _replayed(export, rounds)
        live = Live(game_id, game, players, {int(k): v for k, v in hashes.items()}, spectator,
                    {int(k): v for k, v in bots.items()}, description, senders, created_at,
                    clock, rounds=rounds)
        with self._guard:
            self._live[game_id] = live
            while len(self._live) > self.cache_size:
                self._live.popitem(last=False)
        return live

    def _drop(self, game_id: str) -> None:
        with self._guard:
            self._live.pop(game_id, None)

    # -- creating ----------------------------------------------------------------------------
    def create(self, title: str, players: Sequence[str], *, seed: int = 0,
               optional_rules: Sequence[str] = (), bots: Mapping[int, str] | None = None,
               description: str = "", open_seats: Sequence[int] = (),
               clock: int | None = None) -> Created:
        """A new game of ``title`` for ``players`` (names in seat order, player ids 1, 2,
        ...) with ``bots`` (player id -> bot name) in some seats.  Raises
        :class:`Refused` for an unknown title, a player count or optional rule the title
        does not have, a bot name or seat that does not exist.  ``open_seats``: seat
        numbers whose invite links the lobby shows; ``clock``: the chess clock, seconds of
        thinking time per player (shown, not enforced)."""
        names = [str(n).strip() for n in players]
        if any(not n for n in names):
            raise Refused("players: every player needs a name")
        if len({n.lower() for n in names}) != len(names):
            raise Refused("players: the names must differ")
        try:
            game = new_game(title, names, seed=seed, optional_rules=optional_rules)
        except (ExportError, GameError) as exc:
            raise Refused(str(exc)) from None
        bot_names = self._check_bots(bots or {}, len(names))
        opened = sorted({int(s) for s in open_seats})
        if any(not 1 <= s <= len(names) or s in bot_names for s in opened):
            raise Refused(f"open_seats: expected seats of people (1..{len(names)}, no bot), "
                          f"found {opened}")
        if clock is not None and clock <= 0:
            raise Refused(f"clock: expected a positive number of seconds, found {clock}")
        return self._insert(game, bot_names, description, [], opened, clock)

    @staticmethod
    def _check_bots(bots: Mapping[int, str], n: int) -> dict[int, str]:
        out: dict[int, str] = {}
        for seat, name in bots.items():
            if not 1 <= int(seat) <= n:
                raise Refused(f"bots: no seat {seat} (seats 1..{n})")
            try:
                make_bot(name)
            except ValueError as exc:
                raise Refused(f"bots: seat {seat}: {exc}") from None
            out[int(seat)] = name
        return out

    def import_export(self, data: Any, *, bots: Mapping[int, str] | None = None,
                      description: str = "") -> Created:
        """A new game from an 18xx.games export (to continue or watch).  Raises
        :class:`Refused` with the export validation's one-line message for a malformed
        export, or naming the first illegal action."""
        try:
            export = parse_export(data)
            game = _replayed(export)
        except ReplayError as exc:
            raise Refused(f"action {exc.action_id}: {exc.reason}") from None
        except ExportError as exc:
            raise Refused(str(exc)) from None
        by_seat = {i + 1: pid for i, (pid, _) in enumerate(game.seats)}
        bot_names = {by_seat[s]: n for s, n in
                     self._check_bots(bots or {}, len(game.seats)).items()}
        desc = description or str(data.get("description") or "")
        return self._insert(game, bot_names, desc, [None] * len(game.actions))

    def _insert(self, game: Game, bots: dict[int, str], description: str,
                senders: list[int | None], open_seats: Sequence[int] = (),
                clock: int | None = None) -> Created:
        gid = _new_id()
        players = [{"id": pid, "name": name} for pid, name in game.seats]
        secs = {pid: _secret() for pid, _ in game.seats}
        spectator = _secret()
        now = self.now()
        with Session(self.engine) as s, s.begin():
            s.add(GameRow(id=gid, title=game.data.title, players=players, seed=game.seed,
                          optional_rules=list(game.title.optional_rules),
                          secret_hashes={str(k): secret_hash(v) for k, v in secs.items()},
                          bots={str(k): v for k, v in bots.items()},
                          spectator_hash=secret_hash(spectator),
                          open_secrets={str(k): secs[k] for k in open_seats}, clock=clock,
                          description=description, n_actions=len(game.actions),
                          last_action_id=(game.actions[-1].id or 0) if game.actions else 0,
                          status=_status(game), created_at=now, updated_at=now))
            s.flush()
            for i, a in enumerate(game.actions):
                s.add(ActionRow(game_id=gid, seq=i, action_id=a.id or 0, seat=senders[i],
                                data=a.to_json()))
        seats = [{"id": pid, "name": name, "secret": secs[pid], "bot": bots.get(pid)}
                 for pid, name in game.seats]
        return Created(gid, seats, spectator)

    # -- reading -----------------------------------------------------------------------------
    def lobby(self, limit: int = 100) -> list[dict[str, Any]]:
        """The most recently active games, newest first: id, title, description, players
        (with ``bot``, and ``url``, the invite link of an open seat), status, last action
        id and times (Unix seconds)."""
        with Session(self.engine) as s:
            rows = s.scalars(select(GameRow).order_by(GameRow.updated_at.desc(),
                                                      GameRow.created_at.desc())
                             .limit(limit)).all()
            return [{"id": r.id, "title": r.title, "description": r.description,
                     "players": [{**p, "bot": r.bots.get(str(p["id"])),
                                  "url": (f"/g/{r.id}#{r.open_secrets[str(p['id'])]}"
                                          if str(p["id"]) in r.open_secrets else None)}
                                 for p in r.players],
                     "status": r.status, "last_action_id": r.last_action_id,
                     "created_at": r.created_at, "updated_at": r.updated_at} for r in rows]

    def export(self, game_id: str) -> dict[str, Any]:
        """The game as an 18xx.games export (``result`` once finished)."""
        with self.locked(game_id) as live:
            out = to_export(live.game)
            out["id"] = game_id
            if live.description:
                out["description"] = live.description
            return out

    # -- the chat ----------------------------------------------------------------------------
    def chat(self, game_id: str, secret: str | None, text: str) -> dict[str, Any]:
        """Store ``text`` (:func:`chat_text`) as a chat message of the seat ``secret``
        opens and return it as :meth:`messages` does.  Raises :class:`Forbidden` (the
        spectator link, no seat's secret), :class:`TooMany` (``admit_chat``),
        :class:`Refused` (the text)."""
        with self._seat_write(game_id, secret, "it writes nothing in the chat") as (live, pid):
            row = MessageRow(game_id=game_id, seat=pid, text=chat_text(text),
                             at=live.n_actions, created_at=self.now())
            with Session(self.engine, expire_on_commit=False) as s, s.begin():
                s.add(row)
            names = {p["id"]: p["name"] for p in live.players}
        if self.on_chat is not None:
            self.on_chat(game_id, row.id)
        return _message(row, names)

    def messages(self, game_id: str, limit: int = CHAT_LINES) -> list[dict[str, Any]]:
        """The last ``limit`` chat messages of the game, oldest first: ``{"id", "seat"
        (player id), "name", "text", "at" (the number of actions then), "created_at"}``.
        Raises :class:`NotFound`."""
        check_game_id(game_id)
        with Session(self.engine) as s:
            game = s.get(GameRow, game_id)
            if game is None:
                raise NotFound(f"no game {game_id!r}")
            names = {p["id"]: p["name"] for p in game.players}
            rows = s.scalars(select(MessageRow).where(MessageRow.game_id == game_id)
                             .order_by(MessageRow.id.desc()).limit(limit)).all()
            return [_message(r, names) for r in reversed(rows)]

    def note(self, game_id: str, secret: str | None) -> dict[str, Any]:
        """The private note of the seat ``secret`` opens: ``{"seat", "text",
        "updated_at"}`` (``""`` and ``None`` before one is written).  Raises
        :class:`Forbidden` for the spectator link or no seat's secret."""
        with self.locked(game_id) as live:
            pid = self._own_seat(live, secret, "it has no private note")
            with Session(self.engine) as s:
                row = s.get(NoteRow, (game_id, pid))
                return {"seat": pid, "text": row.text if row else "",
                        "updated_at": row.updated_at if row else None}

    def save_note(self, game_id: str, secret: str | None, text: str) -> dict[str, Any]:
        """Keep ``text`` (:func:`plain_text`, at most :data:`NOTE_CHARS` characters;
        ``""`` clears it) as the private note of the seat ``secret`` opens and return it
        as :meth:`note` does.  Raises :class:`Forbidden`, :class:`TooMany` (the chat's
        rate, ``admit_chat``) and :class:`Refused` (the text)."""
        with self._seat_write(game_id, secret, "it has no private note") as (_live, pid):
            kept = plain_text(text, NOTE_CHARS, "a note")
            now = self.now()
            self._keep(NoteRow, game_id, pid, text=kept, updated_at=now)
            return {"seat": pid, "text": kept, "updated_at": now}

    # -- your-turn alerts --------------------------------------------------------------------
    def alerts(self, game_id: str, secret: str | None) -> dict[str, Any]:
        """Where the seat ``secret`` opens is told that it is its turn: ``{"seat",
        "webhook", "email", "updated_at"}`` (``None`` where not set).  Raises
        :class:`Forbidden` for the spectator link or no seat's secret."""
        with self.locked(game_id) as live:
            return self._alerts_of(game_id, self._own_seat(live, secret, "it gets no alerts"))

    def _alerts_of(self, game_id: str, pid: int) -> dict[str, Any]:
        with Session(self.engine) as s:
            row = s.get(AlertRow, (game_id, pid))
            return {"seat": pid, "webhook": row.webhook if row else None,
                    "email": row.email if row else None,
                    "updated_at": row.updated_at if row else None}

    def save_alerts(self, game_id: str, secret: str | None,
                    changes: Mapping[str, str | None], *, mail: bool = True) -> dict[str, Any]:
        """Set the seat's ``"webhook"`` (:func:`~rhineland.web.notify.webhook_url`)
        and ``"email"`` (:func:`~rhineland.web.notify.email_address`) given in
        ``changes`` (``None`` or ``""`` clears one; one not given stays) and return them
        as :meth:`alerts` does.  Raises :class:`Forbidden`, :class:`TooMany` (the chat's
        rate) and :class:`Refused` (a malformed URL or address, an address when not
        ``mail``, the server sending none: nothing is stored)."""
        with self._seat_write(game_id, secret, "it gets no alerts") as (_live, pid):
            checks = {"webhook": webhook_url, "email": email_address}
            try:
                kept = {k: checks[k](v) for k, v in changes.items() if k in checks}
            except ValueError as exc:
                raise Refused(str(exc)) from None
            if kept.get("email") and not mail:
                raise Refused("email: this server sends no mail (no SMTP server is "
                              "configured); set a webhook instead")
            current = self._alerts_of(game_id, pid)
            values = {"webhook": current["webhook"], "email": current["email"], **kept,
                      "updated_at": self.now()}
            self._keep(AlertRow, game_id, pid, **values)
            return {"seat": pid, **values}

    def turns(self, game_id: str, seats: Sequence[int], last_action_id: int) -> list[Turn]:
        """The :class:`~rhineland.web.notify.Turn` of each of ``seats`` (player ids)
        with a webhook or an address set, at ``last_action_id`` (for the notifier)."""
        with Session(self.engine) as s:
            game = s.get(GameRow, game_id)
            if game is None:
                return []
            names = {p["id"]: p["name"] for p in game.players}
            rows = s.scalars(select(AlertRow).where(AlertRow.game_id == game_id,
                                                    AlertRow.seat.in_(list(seats)))).all()
            return [Turn(game_id, game.title, r.seat, names.get(r.seat, str(r.seat)),
                         last_action_id, r.webhook, r.email)
                    for r in sorted(rows, key=lambda r: r.seat) if r.webhook or r.email]

    # -- writes of a seat's own ----------------------------------------------------------------
    @contextmanager
    def _seat_write(self, game_id: str, secret: str | None,
                    watcher: str) -> Iterator[tuple[Live, int]]:
        """The live game (locked) and the seat (player id) ``secret`` opens, once the
        seat's rate (``admit_chat``) lets it write.  Raises :class:`Forbidden` (the
        spectator link: "the spectator link watches: ``watcher``"; no seat's secret) and
        :class:`TooMany`."""
        with self.locked(game_id) as live:
            pid = self._own_seat(live, secret, watcher)
            if self.admit_chat is not None:
                self.admit_chat(game_id, pid)
            yield live, pid

    @staticmethod
    def _own_seat(live: Live, secret: str | None, watcher: str) -> int:
        pid = live.seat_of(secret)
        if pid is None:
            raise Forbidden(f"the spectator link watches: {watcher}")
        return pid

    def _keep(self, model: type[NoteRow] | type[AlertRow], game_id: str, seat: int,
              **values: Any) -> None:
        """Insert or update the row of ``model`` for ``(game_id, seat)``."""
        for _ in range(2):  # another server may write the first row at once
            try:
                with Session(self.engine) as s, s.begin():
                    row = s.get(model, (game_id, seat))
                    if row is None:
                        s.add(model(game_id=game_id, seat=seat, **values))
                    else:
                        for key, value in values.items():
                            setattr(row, key, value)
                return
            except IntegrityError:
                continue

    # -- acting ------------------------------------------------------------------------------
    def act(self, game_id: str, secret: str | None, record: Any,
            last_action_id: int) -> Live:
        """Apply the export action ``record`` for the seat ``secret`` opens, if the game is
        still at ``last_action_id``; store it and return the live game.

        Raises :class:`Forbidden` (no seat's secret, the spectator's, not this seat's
        turn or entity), :class:`Stale` (the game moved on since ``last_action_id``),
        :class:`Refused` (malformed: the export validation's message; illegal: the
        engine's message).  A refused action changes nothing.
        """
        with self.locked(game_id) as live:
            pid = self._acting_seat(live, secret, last_action_id)
            self._act_as(live, pid, record)
            return live

    def _act_as(self, live: Live, pid: int, record: Any) -> None:
        if live.game.is_terminal:
            raise Refused("the game is over")
        action = self._parse(live, record)
        self._check_turn(live, pid, action)
        self._apply(live, action, pid)

    def run_stops(self, game_id: str, secret: str | None, entity: str,
                  routes: Sequence[Mapping[str, Any]], last_action_id: int) -> Live:
        """Run ``entity``'s trains on ``routes`` given by their stops (``[{"train",
        "stops": [hex or "<hex>-<part>"]}]``, :func:`rhineland.routes.stops.run_from_stops`)
        for the seat ``secret`` opens.  Raises as :meth:`act` does; :class:`Refused` with
        the engine's message when the stops make no run the rules accept."""
        with self.locked(game_id) as live:
            pid = self._acting_seat(live, secret, last_action_id)
            try:
                record = run_from_stops(live.game, entity, routes)
            except GameError as exc:
                raise Refused(str(exc)) from None
            self._act_as(live, pid, record)
            return live

    def preview_stops(self, game_id: str, secret: str | None, entity: str,
                      routes: Sequence[Mapping[str, Any]], last_action_id: int) -> dict[str, Any]:
        """What :meth:`run_stops` would do with the same arguments, with nothing applied
        or stored: ``{"legal": True, "routes": [{"train", "nodes", "connections",
        "revenue"}], "revenue"}`` (the revenue the engine pays, M) or ``{"legal": False,
        "error": the engine's one-line message}``, and ``"best"`` (the best routes found
        within :data:`PREVIEW_BUDGET` search nodes: ``{"revenue", "routes"}``).  Raises
        as :meth:`run_stops` does for the seat, the turn, the rate and a stale id."""
        with self.locked(game_id) as live:
            pid = self._acting_seat(live, secret, last_action_id)
            game = live.game
            choice = next((c for c in game.legal_actions()
                           if isinstance(c, RouteChoice) and c.entity == entity), None)
            if choice is not None and (pid not in game.acting_entities() or not
                                       game.decides_for(pid, choice.entity_type, entity)):
                raise Forbidden(f"{entity} is not yours to run")
            out: dict[str, Any] = {"legal": False, "error": None, "routes": [], "revenue": None}
            try:
                record = run_from_stops(game, entity, routes)
                action = self._parse(live, record)
                self._check_turn(live, pid, action)
                game.copy().process(action)
            except (GameError, Refused) as exc:
                out["error"] = exc.message if isinstance(exc, Refused) else str(exc)
            else:
                out.update(legal=True, routes=record["routes"],
                           revenue=sum(int(r["revenue"]) for r in record["routes"]))
            out["best"] = self.best_of(live, entity)
            return out

    @staticmethod
    def best_of(live: Live, entity: str) -> dict[str, Any] | None:
        """The best routes of ``entity`` now within :data:`PREVIEW_BUDGET` search nodes
        (kept per position), ``None`` when it runs no trains now."""
        key = (live.last_action_id, entity)
        if key not in live.best:
            if not any(isinstance(c, RouteChoice) and c.entity == entity
                       for c in live.game.legal_actions()):
                return None
            found = best_routes(live.game, entity, budget_nodes=PREVIEW_BUDGET)
            live.best.clear()  # only the position now
            live.best[key] = {"revenue": found.revenue, "routes": [
                {"train": r.train, "nodes": list(r.spec.nodes),
                 "connections": [list(c) for c in r.spec.connections],
                 "revenue": r.result.revenue} for r in found.routes]}
        return live.best[key]

    def _acting_seat(self, live: Live, secret: str | None, last_action_id: int) -> int:
        """The seat (player id) ``secret`` opens, if the position is still
        ``last_action_id`` and the seat's rate allows (``admit``).  Raises
        :class:`Forbidden` (the spectator link, or no seat's secret), :class:`TooMany`
        and :class:`Stale`."""
        pid = live.seat_of(secret)
        if pid is None:
            raise Forbidden("the spectator link watches: it acts for nobody")
        if self.admit is not None:
            self.admit(live.id, pid)
        self._check_fresh(live, last_action_id)
        return pid

    def _check_fresh(self, live: Live, last_action_id: int) -> None:
        if last_action_id != live.last_action_id:
            raise Stale(f"stale position: the game is at action {live.last_action_id}, "
                        f"not {last_action_id}; reload and try again")

    def _parse(self, live: Live, record: Any) -> Action:
        if not isinstance(record, dict):
            raise Refused(f"action: expected a JSON object, found {type(record).__name__}")
        data = {k: v for k, v in record.items() if k not in ("id", "created_at", "user")}
        data["id"] = live.last_action_id + 1
        data["created_at"] = self.now()
        refs = Refs.of(live.game.data, (pid for pid, _ in live.game.seats))
        try:
            return action_from_json(data, refs)
        except ExportError as exc:
            raise Refused(str(exc)) from None

    @staticmethod
    def _check_turn(live: Live, pid: int, action: Action) -> None:
        game = live.game
        acting = game.acting_entities()
        if pid not in acting:
            names = ", ".join(game.player(p).name for p in acting) or "nobody"
            raise Forbidden(f"not your turn: {names} to act")
        if game.decides_for(pid, action.entity_type, action.entity):
            return
        if action.entity_type == "player":
            raise Forbidden(f"your seat is player {pid}, not {action.entity}")
        raise Forbidden(f"{action.entity} is not yours to run")

    def _apply(self, live: Live, action: Action, pid: int | None) -> None:
        """Process ``action`` (raising :class:`Refused` for an illegal one), then store it;
        a failed commit drops the live game (the stored actions stay the truth)."""
        game = live.game
        n = live.n_actions
        before = self._deciding(live)
        try:
            game.process(action)
        except GameError as exc:
            raise Refused(str(exc)) from None
        except Exception as exc:  # an engine fault: the action is refused, the game reloaded
            self._drop(live.id)
            raise Refused(f"the engine failed on this action ({type(exc).__name__}: "
                          f"{str(exc).splitlines()[0] if str(exc) else ''}); nothing was "
                          "stored") from None
        stored = game.actions[-1]
        try:
            self._store(live.id, n, stored, pid, game)
        except BaseException:
            self._drop(live.id)
            raise
        live.senders.append(pid)
        live.rounds.append(round_label(game))
        self._changed(live, before, pid)

    def _store(self, game_id: str, n: int, action: Action, pid: int | None, game: Game) -> None:
        try:
            with Session(self.engine) as s, s.begin():
                res = s.execute(
                    update(GameRow).where(GameRow.id == game_id, GameRow.n_actions == n)
                    .values(n_actions=n + 1, last_action_id=action.id or 0,
                            status=_status(game), updated_at=self.now()))
                if res.rowcount != 1:  # type: ignore[attr-defined]
                    raise Stale("another server stored an action of this game first; "
                                "reload and try again")
                s.add(ActionRow(game_id=game_id, seq=n, action_id=action.id or 0, seat=pid,
                                data=action.to_json()))
        except IntegrityError:
            raise Stale("another server stored an action of this game first; "
                        "reload and try again") from None

    def _deciding(self, live: Live) -> set[int] | None:
        """The player ids who decide now (``None`` when nobody hears of turns)."""
        if self.on_turn is None:
            return None
        game = live.game
        return set() if game.is_terminal else set(game.acting_entities())

    def _changed(self, live: Live, before: set[int] | None, pid: int | None) -> None:
        """Tell ``on_change`` of the stored action (sent by ``pid``), and ``on_turn`` of
        the people who decide now and did not ``before`` it."""
        if self.on_change is not None:
            self.on_change(live.id, live.last_action_id)
        now = self._deciding(live)
        if self.on_turn is None or before is None or not now:
            return
        fresh = sorted(p for p in now - before if p != pid and p not in live.bot_names)
        if fresh:
            self.on_turn(live.id, fresh, live.last_action_id)

    def undo(self, game_id: str, secret: str | None, last_action_id: int) -> Live:
        """Undo the last action of the seat ``secret`` opens, with the bots' actions
        after it (only bots may have acted since).  Raises :class:`Forbidden`,
        :class:`Stale` as :meth:`act` does, :class:`Refused` when there is nothing of
        this seat's to undo or another person acted after it."""
        with self.locked(game_id) as live:
            pid = self._acting_seat(live, secret, last_action_id)
            game = live.game
            deciding = self._deciding(live)
            pos = live.undo_position(pid)
            before = (game.actions[pos - 1].id or 0) if pos > 0 else 0
            undo = Undo(entity=pid, entity_type="player", id=live.last_action_id + 1,
                        created_at=self.now(), action_id=before)
            records = [a.to_json() for a in game.actions] + [undo.to_json()]
            rounds: list[str] = []
            try:
                rebuilt = _replayed(parse_export({
                    "title": game.data.title, "players": live.players,
                    "settings": {"seed": game.seed,
                                 "optional_rules": list(game.title.optional_rules)},
                    "actions": records}), rounds)
            except (ExportError, GameError) as exc:
                raise Refused(f"cannot undo: {exc}") from None
            self._store(game_id, live.n_actions, rebuilt.actions[-1], pid, rebuilt)
            live.game = rebuilt
            live.rounds = rounds
            live.senders.append(pid)
            live.bots.clear()
            self._changed(live, deciding, pid)
            return live

    def bot_step(self, game_id: str) -> bool:
        """Let the bot whose seat decides now play one action; ``False`` when a person
        (or nobody: the game is over) is to act."""
        with self.locked(game_id) as live:
            game = live.game
            if game.is_terminal:
                return False
            acting = game.acting_entities()
            if not acting:
                return False
            pid = acting[0]
            bot = live.bot_for(pid)
            if bot is None:
                return False
            action = bot.choose(game, pid)
            action = dataclasses.replace(action, id=live.last_action_id + 1, created_at=self.now())
            self._apply(live, action, pid)
            return True

    def bots_to_act(self, game_id: str) -> bool:
        """Whether a bot seat decides now in game ``game_id``."""
        with self.locked(game_id) as live:
            game = live.game
            acting = [] if game.is_terminal else game.acting_entities()
            return bool(acting) and acting[0] in live.bot_names

    def game_ids(self, *, active: bool = True) -> list[str]:
        """The ids of every stored game (``active``: of those not finished)."""
        with Session(self.engine) as s:
            q = select(GameRow.id)
            if active:
                q = q.where(GameRow.status == "active")
            return list(s.scalars(q).all())


def _message(row: MessageRow, names: Mapping[int, str]) -> dict[str, Any]:
    return {"id": row.id, "seat": row.seat, "name": names.get(row.seat, str(row.seat)),
            "text": row.text, "at": row.at, "created_at": row.created_at}


def _status(game: Game) -> str:
    return "finished" if game.is_terminal else "active"


def round_label(game: Game) -> str:
    """The label of the round ``game`` is in (``"SR 1"``, ``"OR 2.1"``; ``""`` when
    there is none)."""
    return game.round.label if game.state.round is not None else ""


def _replayed(export: Export, rounds: list[str] | None = None) -> Game:
    """The game of ``export`` with every action replayed (the reference's leniencies
    allowed for what was recorded, none for what comes next); ``rounds`` gets the round
    label of every position (:attr:`Live.rounds`).  Raises ``ReplayError``."""
    game = game_from_export(export)
    if rounds is not None:
        rounds.append(round_label(game))
    for _ in replay_iter(export, game):
        if rounds is not None:
            rounds.append(round_label(game))
    game.leniencies = frozenset()
    return game
