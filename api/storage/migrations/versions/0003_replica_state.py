"""What used to be kept in one process: wrong-token tries, and values such as Label Studio's connection.

Revision ID: 0003
Revises: 0002
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "wrong_token_tries",
        sa.Column("address", sa.String(64), primary_key=True),
        sa.Column("window_start", sa.Float, nullable=False),
        sa.Column("count", sa.Integer, nullable=False),
    )
    op.create_index("ix_wrong_token_tries_window_start", "wrong_token_tries", ["window_start"])
    op.create_table(
        "service_values",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("value", sa.JSON, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("service_values")
    op.drop_index("ix_wrong_token_tries_window_start", "wrong_token_tries")
    op.drop_table("wrong_token_tries")
