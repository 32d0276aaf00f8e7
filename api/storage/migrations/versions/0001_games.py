"""Games, players, hands and hand photos.

Revision ID: 0001
Revises:
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("code", sa.String(16), nullable=False),
        sa.Column("rules", sa.String(40), nullable=False),
        sa.Column("first_dealer", sa.Integer, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("ended", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_games_code", "games", ["code"], unique=True)
    op.create_table(
        "players",
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
    )
    op.create_table(
        "hands",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("outcome", sa.String(12), nullable=False),
        sa.Column("winner", sa.Integer, nullable=True),
        sa.Column("discarder", sa.Integer, nullable=True),
        sa.Column("offender", sa.Integer, nullable=True),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("hand", sa.JSON, nullable=True),
        sa.Column("score", sa.JSON, nullable=True),
        sa.Column("has_photo", sa.Boolean, nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("game_id", "number", name="uq_hands_game_number"),
    )
    op.create_index("ix_hands_game_id", "hands", ["game_id"])
    op.create_table(
        "hand_photos",
        sa.Column("hand_id", sa.Integer, sa.ForeignKey("hands.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("jpeg", sa.LargeBinary, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("hand_photos")
    op.drop_index("ix_hands_game_id", "hands")
    op.drop_table("hands")
    op.drop_table("players")
    op.drop_index("ix_games_code", "games")
    op.drop_table("games")
