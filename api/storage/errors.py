"""The one error of the games package: an HTTP status, a stable code, a message and its values."""
from __future__ import annotations

from typing import Any


class GameError(Exception):
    """A request the game cannot take: the API answers it as `{"error": {code, message, params}}`
    with `status`; `fanshot game` prints the code and the message."""

    def __init__(self, status: int, code: str, message: str, params: dict[str, Any] | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.params = params
