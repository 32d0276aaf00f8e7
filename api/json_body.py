"""Strict reading of a JSON request body: only finite numbers, bounded nesting.

Python's json module takes `NaN`, `Infinity` and numbers such as `1e400` (read as inf), which
then poison whatever stores them and fail the JSON answer, and it raises RecursionError (not
ValueError) on deep nesting. `read_json_body` refuses all of these with a `JsonBodyError`,
which a route turns into its 400.
"""
from __future__ import annotations

import json
import math

from starlette.requests import Request

MAX_DEPTH = 32  # arrays and objects inside each other; a request of ours needs a handful


class JsonBodyError(ValueError):
    """The body is not strict JSON; the message says why, for people."""


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonBodyError(f"the number {text[:40]} is too large")
    return value


def _no_constant(name: str) -> float:
    raise JsonBodyError(f"{name} is not a JSON number")


def _depth_at_most(value: object, limit: int) -> bool:
    """Whether `value` nests arrays and objects no deeper than `limit` (no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > limit:
            return False
        stack.extend((child, depth + 1) for child in children)
    return True


def parse_json(data: bytes | str, max_depth: int = MAX_DEPTH) -> object:
    """The JSON value of `data`; JsonBodyError when it is not JSON, holds NaN/Infinity or a
    number too large for a float, or nests deeper than `max_depth`."""
    try:
        value = json.loads(data, parse_float=_finite_float, parse_constant=_no_constant)
    except JsonBodyError:
        raise
    except RecursionError:
        raise JsonBodyError(f"the JSON nests deeper than {max_depth} levels") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, an int of too many digits
        raise JsonBodyError(f"not JSON ({exc})") from None
    if not _depth_at_most(value, max_depth):
        raise JsonBodyError(f"the JSON nests deeper than {max_depth} levels")
    return value


async def read_json_body(request: Request, max_depth: int = MAX_DEPTH) -> object:
    """The request's body as strict JSON (see parse_json)."""
    return parse_json(await request.body(), max_depth)
