"""The chess clock: seconds of thinking time per player (``games.clock``, may be null).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``games.clock``."""
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("clock", sa.Integer(), nullable=True))


def downgrade() -> None:
    """Drop ``games.clock``."""
    with op.batch_alter_table("games") as batch:
        batch.drop_column("clock")
