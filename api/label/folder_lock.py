"""The lock of one labelling folder: a change to an image's labels (the sidecar, then the label
file) is made by one thread of one process at a time, whichever replica of the service, or
`fanshot label`, makes it. Threads here queue on a lock of this process; processes on an flock of
`.fanshot/lock` in the folder (on a network file system, Linux's NFS client takes it as a lock on
the server). A folder where the lock file cannot be made (read-only) is locked for this process
only: nothing can be written there anyway."""
from __future__ import annotations

import errno
import fcntl
import os
import threading
from pathlib import Path
from types import TracebackType

from api.label.errors import LabelError

LOCK_NAME = "lock"


class FolderLock:
    """`with lock:` holds the folder; reentrant within a thread."""

    def __init__(self, sidecar_dir: Path):
        self.path = sidecar_dir / LOCK_NAME
        self._threads = threading.RLock()
        self._depth = 0  # changed only by the thread holding _threads
        self._fd: int | None = None

    def __enter__(self) -> FolderLock:
        self._threads.acquire()
        try:
            if self._depth == 0:
                self._fd = self._lock_file()
            self._depth += 1
        except BaseException:
            self._threads.release()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._depth -= 1
        try:
            if self._depth == 0 and self._fd is not None:
                os.close(self._fd)  # closing the only descriptor of the file releases the flock
                self._fd = None
        finally:
            self._threads.release()

    def _lock_file(self) -> int | None:
        folder = self.path.parent
        if folder.is_symlink():
            raise LabelError("outside_folder", f"{folder.name} must be a folder, not a link", 403)
        try:
            folder.mkdir(exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
        except OSError as exc:
            if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
                return None  # a read-only folder: no change can be written, none to keep apart
            raise
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(fd)
            raise
        return fd
