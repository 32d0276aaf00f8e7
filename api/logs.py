"""Log lines that stay one line each: control characters in a message (a request path may hold a
percent-encoded line break) are written as escapes, so a client cannot forge log lines. Used by
`fanshot serve` and `fanshot label` for every logger, and by the access log itself."""
from __future__ import annotations

import logging
import re
import sys
from typing import Any

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape_controls(text: str) -> str:
    """`text` with every control character (line breaks included) written as an escape."""
    return _CONTROL.sub(lambda m: _NAMED.get(m.group(), f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256
                                               else f"\\u{ord(m.group()):04x}"), text)


class OneLineFormatter(logging.Formatter):
    """A formatter whose messages cannot break the line; a traceback's lines are indented and
    escaped the same way, so none of them can pass for a line of its own."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = escape_controls(record.message)
        return super().formatMessage(record)

    def formatException(self, ei: Any) -> str:
        return "\n".join("    " + escape_controls(line) for line in super().formatException(ei).splitlines())

    def formatStack(self, stack_info: str) -> str:
        return "\n".join("    " + escape_controls(line) for line in stack_info.splitlines())


class _StderrHandler(logging.StreamHandler):
    """A handler that writes to whatever sys.stderr is when it writes (not the stream it was made
    with: a closed one after a redirection, as pytest's capture leaves behind)."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:
        pass


def configure_logging(level: str = "info") -> None:
    """Every logger (uvicorn's too) to stderr through OneLineFormatter, at `level`."""
    handler = _StderrHandler()
    handler.setFormatter(OneLineFormatter(LOG_FORMAT))
    logging.basicConfig(level=level.upper(), handlers=[handler], force=True)
