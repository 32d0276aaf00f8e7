"""Alembic's environment: run on the connection that `database.migrate` hands over."""
from __future__ import annotations

from alembic import context

from api.storage.models import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    if connection.dialect.name == "postgresql":  # one process migrates at a time; the others wait
        connection.exec_driver_sql("SELECT pg_advisory_xact_lock(4201034)")
    context.run_migrations()
