"""Alembic migrations of the web database (run by :func:`rhineland.web.db.open_engine`)."""
