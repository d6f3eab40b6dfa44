"""Alembic's environment: migrations run on the connection :func:`rhineland.web.db.migrate`
hands over (no alembic.ini; the URL is the server's ``--db``)."""

from __future__ import annotations

from alembic import context

from rhineland.web.db import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata,
                  render_as_batch=True, compare_type=True)
with context.begin_transaction():
    context.run_migrations()
