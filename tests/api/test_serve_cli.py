"""`fanshot serve`: arguments, and a clear message for bad settings."""
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
