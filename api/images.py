"""The last few annotated images, in memory, served at /api/v1/images/{id}.jpg."""
from __future__ import annotations

import secrets
import threading
from collections import OrderedDict


class ImageStore:
    """A least-recently-used store of JPEG bytes under unguessable ids."""

    def __init__(self, size: int):
        self.size = size
        self._items: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, jpeg: bytes) -> str:
        image_id = secrets.token_urlsafe(16)
        with self._lock:
            self._items[image_id] = jpeg
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return image_id

    def get(self, image_id: str) -> bytes | None:
        with self._lock:
            jpeg = self._items.get(image_id)
            if jpeg is not None:
                self._items.move_to_end(image_id)
            return jpeg

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
