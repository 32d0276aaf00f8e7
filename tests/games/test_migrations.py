"""The migrations make the tables the models describe, on both databases (a model changed without
its migration would work in no test that builds tables from the migrations, and fail in service)."""
from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from api.storage.models import Base


def test_the_migrated_tables_are_the_models(store):
    with store.engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert differences == []
