"""The migration scripts, oldest first (``0001_...``)."""
