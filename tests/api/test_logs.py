"""api.logs: one log line per message, whatever the message or its exception holds."""
import logging

from api.logs import OneLineFormatter, escape_controls


def _record(message: str, *args, exc_info=None) -> logging.LogRecord:
    return logging.LogRecord("fanshot.api", logging.ERROR, __file__, 1, message, args, exc_info)


def test_control_characters_become_escapes():
    assert escape_controls("a\nb\rc\td\x00e\x1bf\x7fg\x85h\u2028i") == "a\\nb\\rc\\td\\x00e\\x1bf\\x7fg\\x85h\\u2028i"
    assert escape_controls("plain 汉字 text") == "plain 汉字 text"


def test_a_message_and_its_arguments_stay_on_one_line():
    text = OneLineFormatter("%(levelname)s %(message)s").format(_record("upload %s failed", "x\nERROR forged"))
    assert text == "ERROR upload x\\nERROR forged failed"


def test_a_traceback_is_indented_so_no_line_passes_for_a_log_line():
    try:
        raise ValueError("bad name\nERROR forged line")
    except ValueError:
        import sys

        record = _record("unhandled", exc_info=sys.exc_info())
    lines = OneLineFormatter("%(levelname)s %(message)s").format(record).splitlines()
    assert lines[0] == "ERROR unhandled"
    assert all(line.startswith("    ") for line in lines[1:])
    assert lines[-2:] == ["    ValueError: bad name", "    ERROR forged line"]
