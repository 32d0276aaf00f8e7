"""Alembic migrations of the games tables, applied by `database.migrate` when the store opens."""
