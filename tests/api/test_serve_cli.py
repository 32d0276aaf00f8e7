"""`fanshot serve`: arguments, and a clear message for bad settings."""
import pytest

from fanshot.cli import build_parser, main


def test_serve_takes_host_port_and_model_dir():
    args = build_parser().parse_args(["serve", "--host", "0.0.0.0", "--port", "9001", "--model-dir", "m"])
    assert (args.host, args.port, args.model_dir) == ("0.0.0.0", 9001, "m")
    assert args.func.__name__ == "run_serve"


def test_serve_defaults_to_loopback_8000():
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port) == ("127.0.0.1", 8000)


def test_a_bad_setting_is_a_message_and_exit_2(monkeypatch, capsys):
    monkeypatch.setenv("FANSHOT_MAX_PIXELS", "many")
    assert main(["serve", "--port", "1"]) == 2
    assert "FANSHOT_MAX_PIXELS must be an integer" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["serve"], ["label", "."]])
@pytest.mark.parametrize("port, message", [("99999", "must be 1-65535, not 99999"), ("0", "must be 1-65535, not 0"),
                                           ("http", "not a port number: 'http'")])
def test_a_port_outside_1_to_65535_is_refused_before_anything_starts(command, port, message, capsys):
    # 99999 was taken: the service listened on another port than the one it printed
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args([*command, "--port", port])
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


def test_the_highest_port_is_taken():
    assert build_parser().parse_args(["serve", "--port", "65535"]).port == 65535
