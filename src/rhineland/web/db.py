"""The database: games, their actions and their chat (SQLAlchemy 2, SQLite or PostgreSQL).

A game row holds what a new game needs (title, players, seed, optional rules), the seat
secrets, the bots by seat and ``n_actions``, the number of its stored actions; each
action row holds one export action record (JSON) at its position ``seq`` (0, 1, ...).
The primary key ``(game_id, seq)`` and the guarded update of ``n_actions`` make two
writers of one game exclude each other: only one action is ever stored at a position.
A message row holds one line of a game's chat: the seat that wrote it, its text and when;
a note row a seat's private note on its game (read by that seat only); an alert row
where a seat wants to hear that it is its turn (a webhook URL, an e-mail address).
Seat secrets are stored as their SHA-256 only (:func:`secret_hash`): a secret is shown
once, when its game is made, and a copy of the database opens no seat.
The tables are made and kept up to date by the Alembic migrations in ``migrations/``
(a change to the models needs a new migration script; a test compares the two).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    ForeignKey,
    Integer,
    String,
    Text,
    create_engine,
    event,
)
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    """The declarative base of the web tables."""


class GameRow(Base):
    """One game: its setup, its seats and how many actions are stored.

    ``players``: ``[{"id", "name"}]`` in seat order; ``secret_hashes``: player id (as
    a string) -> the SHA-256 (hex) of the seat's secret; ``bots``: player id (as a
    string) -> bot name; ``spectator_hash``: the SHA-256 of the spectator link's secret;
    ``open_secrets``: player id (as a string) -> the secret of an open seat, whose invite
    link the lobby shows to anyone (the only secrets stored in the clear: they are
    public); ``clock``: the chess
    clock, seconds of thinking time per player (``None``: no clock); ``created_at`` /
    ``updated_at``: Unix seconds.
    """

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    title: Mapped[str] = mapped_column(String(32))
    players: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(BigInteger)
    optional_rules: Mapped[list[str]] = mapped_column(JSON)
    secret_hashes: Mapped[dict[str, str]] = mapped_column(JSON)
    bots: Mapped[dict[str, str]] = mapped_column(JSON)
    spectator_hash: Mapped[str] = mapped_column(String(64))
    open_secrets: Mapped[dict[str, str]] = mapped_column(JSON, default=dict)
    clock: Mapped[int | None] = mapped_column(Integer, nullable=True)
    description: Mapped[str] = mapped_column(Text, default="")
    n_actions: Mapped[int] = mapped_column(Integer, default=0)
    last_action_id: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16), default="active")
    created_at: Mapped[int] = mapped_column(BigInteger)
    updated_at: Mapped[int] = mapped_column(BigInteger)


class ActionRow(Base):
    """One stored action: export record ``data`` at position ``seq`` of game ``game_id``;
    ``seat``: the player id whose seat sent it (``None`` for an imported action)."""

    __tablename__ = "actions"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    action_id: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    data: Mapped[dict[str, Any]] = mapped_column(JSON)


class MessageRow(Base):
    """One chat message of game ``game_id``: ``id`` numbers the messages of the whole
    database in the order they were written; ``seat``: the player id that wrote it;
    ``text``: as written (plain text, at most :data:`~rhineland.web.store.CHAT_CHARS`
    characters); ``at``: how many actions the game had then; ``created_at``: Unix
    seconds."""

    __tablename__ = "messages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    at: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[int] = mapped_column(BigInteger)


class NoteRow(Base):
    """The private note of seat ``seat`` (a player id) on game ``game_id``, which only
    that seat reads: ``text`` (plain text, at most
    :data:`~rhineland.web.store.NOTE_CHARS` characters), ``updated_at`` (Unix seconds)."""

    __tablename__ = "notes"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    text: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[int] = mapped_column(BigInteger)


class AlertRow(Base):
    """Where seat ``seat`` (a player id) of game ``game_id`` is told that it is its turn
    (:mod:`rhineland.web.notify`; read by that seat only): ``webhook`` (an http or https
    URL, at most :data:`~rhineland.web.notify.WEBHOOK_CHARS` characters) and ``email``
    (an address, at most :data:`~rhineland.web.notify.EMAIL_CHARS`), each ``None`` when
    not set; ``updated_at`` (Unix seconds)."""

    __tablename__ = "alerts"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    webhook: Mapped[str | None] = mapped_column(String(500), nullable=True)
    email: Mapped[str | None] = mapped_column(String(254), nullable=True)
    updated_at: Mapped[int] = mapped_column(BigInteger)


def secret_hash(secret: str) -> str:
    """The stored form of a seat or spectator secret: its SHA-256, 64 hex digits.  The
    secrets are 144 random bits (``secrets.token_urlsafe(18)``), so a plain hash without
    salt or stretching leaves nothing to guess."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def database_url(url: str) -> URL:
    """The SQLAlchemy URL for ``url``: ``postgresql://...`` uses psycopg 3; a plain
    path is an SQLite file.  Raises ``ValueError`` for a URL SQLAlchemy cannot read."""
    if "://" not in url:
        url = f"sqlite:///{url}"
    try:
        parsed = make_url(url)
    except Exception as exc:  # sqlalchemy.exc.ArgumentError
        raise ValueError(f"not a database URL: {url!r} ({exc})") from None
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def open_engine(url: str) -> Engine:
    """An engine for ``url`` with the tables created or migrated (:func:`migrate`).

    SQLite runs in WAL mode with ``synchronous=FULL`` (a committed action survives a
    crash of the process or the machine) and a busy timeout, so several threads and
    processes may share the file.
    """
    parsed = database_url(url)
    kwargs: dict[str, Any] = {}
    if parsed.get_backend_name() == "sqlite":
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
    else:
        kwargs["pool_pre_ping"] = True
        kwargs["pool_size"] = 8
        kwargs["max_overflow"] = 8
    engine = create_engine(parsed, **kwargs)
    if parsed.get_backend_name() == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    migrate(engine)
    return engine


MIGRATIONS = Path(__file__).parent / "migrations"
"""The Alembic migration scripts (``versions/``) and environment."""


def migrate(engine: Engine, revision: str = "head") -> None:
    """Bring the database's tables to ``revision`` (Alembic; a new database gets them
    all, an older one the migrations it lacks)."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=FULL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()
