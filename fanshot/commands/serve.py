"""`fanshot serve`: the web service (API and phone page) with uvicorn."""
from __future__ import annotations

import argparse
import sys

from fanshot.args import port_number


def register(subparsers: argparse._SubParsersAction) -> None:
    serve = subparsers.add_parser("serve", help="start the web service (API under /api/v1, phone page at /)",
                                  description="Start the Fanshot web service. Limits come from FANSHOT_* "
                                              "environment variables (see api/settings.py).")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=port_number, default=8000, help="port to listen on (default 8000)")
    serve.add_argument("--model-dir", default=None, help="detector model folder (default: the shipped models/)")
    serve.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    serve.set_defaults(func=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    from api.access import access_note
    from api.app import create_app
    from api.errors import ApiError
    from api.logs import configure_logging
    from api.serving import run_server
    from api.settings import settings_for_command

    configure_logging(args.log_level)
    settings = settings_for_command("fanshot serve", args.model_dir)
    app = create_app(settings)
    try:  # serve scoring without the model if it is absent
        app.state.inference.check_model()
    except ApiError as exc:
        print(f"fanshot serve: warning: {exc.message}; photo routes answer 503 until a model is there",
              file=sys.stderr)
    app.state.pool.start()  # the worker processes load the model now, so the first photo is not slow
    print(f"Fanshot on http://{args.host}:{args.port}/  (API docs at /docs)", file=sys.stderr)
    note = access_note(args.host, settings.token)
    if note:
        print(f"fanshot serve: {note}", file=sys.stderr)
    run_server(app, args.host, args.port, settings, args.log_level)
    return 0
