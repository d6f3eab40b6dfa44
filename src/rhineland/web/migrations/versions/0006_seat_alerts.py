"""Your-turn alerts: a seat's webhook URL and e-mail address on its game (``alerts``).

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``alerts``."""
    op.create_table(
        "alerts",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("webhook", sa.String(500), nullable=True),
        sa.Column("email", sa.String(254), nullable=True),
        sa.Column("updated_at", sa.BigInteger(), nullable=False),
    )


def downgrade() -> None:
    """Drop ``alerts``."""
    op.drop_table("alerts")
