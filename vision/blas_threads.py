"""numpy's BLAS on one thread for a stretch of code (`one_blas_thread`): a tile-set profile's
similarity matmul (a few dozen crops against about a thousand examples) is 2 ms on one thread and
10-30 ms when OpenBLAS spreads it over cores that onnxruntime and the server's other workers are
using (measured on this 2-core machine at load 3-6). The detector runs each call on at most its own
`threads` cores; OpenBLAS's pool does not know that.

The limit is the process's (BLAS has one pool): calls overlapping in threads share it, and the
first one in sets it, the last one out puts back what was there before. (OpenBLAS 0.3.31 ignores
a count set from another thread once the main thread has set one: the server's inference workers
detect in their process's main thread.)"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class _OneThread:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.inside = 0
        self.limiter: Any = None
        self.controller: Any = None

    def enter(self) -> None:
        with self.lock:
            if self.inside == 0:
                if self.controller is None:  # after numpy is loaded: it finds the BLAS libraries loaded
                    import numpy  # noqa: F401
                    from threadpoolctl import ThreadpoolController

                    self.controller = ThreadpoolController()
                self.limiter = self.controller.limit(limits=1, user_api="blas")
            self.inside += 1

    def leave(self) -> None:
        with self.lock:
            self.inside -= 1
            if self.inside == 0 and self.limiter is not None:
                self.limiter.restore_original_limits()
                self.limiter = None


_ONE = _OneThread()


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """numpy's BLAS runs on one thread inside the block (every thread's, while any is inside)."""
    _ONE.enter()
    try:
        yield
    finally:
        _ONE.leave()
