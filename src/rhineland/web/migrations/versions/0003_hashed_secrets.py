"""Seat secrets stored hashed: ``games.secrets`` and ``games.spectator`` become
``secret_hashes`` and ``spectator_hash`` (SHA-256, :func:`rhineland.web.db.secret_hash`);
``open_seats`` becomes ``open_secrets``, the secrets of the open seats, which the lobby
shows to anyone.  Existing rows are converted: every invite link keeps working.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def secret_hash(secret: str) -> str:
    """SHA-256, hex: :func:`rhineland.web.db.secret_hash` as of this revision (a
    migration keeps its own copy, so a later change of the module cannot change it)."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def upgrade() -> None:
    """Add the hashed columns, fill them from the plain ones, drop the plain ones."""
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("secret_hashes", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("spectator_hash", sa.String(64), nullable=True))
        batch.add_column(sa.Column("open_secrets", sa.JSON(), nullable=True))
    games = sa.table("games", sa.column("id", sa.String()), sa.column("secrets", sa.JSON()),
                     sa.column("spectator", sa.String()), sa.column("open_seats", sa.JSON()),
                     sa.column("secret_hashes", sa.JSON()),
                     sa.column("spectator_hash", sa.String()),
                     sa.column("open_secrets", sa.JSON()))
    conn = op.get_bind()
    rows = conn.execute(sa.select(games.c.id, games.c.secrets, games.c.spectator,
                                  games.c.open_seats)).all()
    for gid, secs, spectator, open_seats in rows:
        secs = _json(secs) or {}
        opened = {int(s) for s in (_json(open_seats) or [])}
        conn.execute(games.update().where(games.c.id == gid).values(
            secret_hashes={k: secret_hash(v) for k, v in secs.items()},
            spectator_hash=secret_hash(str(spectator)),
            open_secrets={k: v for k, v in secs.items() if int(k) in opened}))
    with op.batch_alter_table("games") as batch:
        batch.alter_column("secret_hashes", existing_type=sa.JSON(), nullable=False)
        batch.alter_column("spectator_hash", existing_type=sa.String(64), nullable=False)
        batch.alter_column("open_secrets", existing_type=sa.JSON(), nullable=False)
        batch.drop_column("secrets")
        batch.drop_column("spectator")
        batch.drop_column("open_seats")


def downgrade() -> None:
    """Irreversible: a hash gives back no secret."""
    raise NotImplementedError("the plain seat secrets cannot be recovered from their hashes")
