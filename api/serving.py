"""Running the app under uvicorn, as `fanshot serve` and `fanshot label` do: logging through
api.logs (one line per message), and a forwarded address (X-Forwarded-For) believed only from the
proxies the operator names in FANSHOT_TRUSTED_PROXIES; by default from none, loopback included
(uvicorn would trust 127.0.0.1, letting any local caller pick the address the wrong-token limit counts).
"""
from __future__ import annotations

from typing import Any

from .logs import configure_logging
from .settings import Settings


def run_server(app: Any, host: str, port: int, settings: Settings, log_level: str = "info") -> None:
    """Serve `app` with uvicorn until stopped, logging as `configure_logging` sets up (one access line
    per request, from api.middleware.AccessLogMiddleware)."""
    import uvicorn

    configure_logging(log_level)
    proxies = settings.proxy_list()
    uvicorn.run(app, host=host, port=port, log_level=log_level, access_log=False, log_config=None,
                proxy_headers=bool(proxies), forwarded_allow_ips=proxies or None)
