"""numpy's BLAS is held to one thread inside `one_blas_thread` and given back after, also when
blocks overlap in threads (vision.blas_threads)."""
from __future__ import annotations

import threading

import numpy as np  # noqa: F401  (BLAS loaded before the controller looks)
import pytest

from vision.blas_threads import one_blas_thread

threadpoolctl = pytest.importorskip("threadpoolctl")


def blas_threads() -> list[int]:
    return [lib["num_threads"] for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "blas"]


def test_blas_is_on_one_thread_inside_and_as_before_after():
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        if not before:
            pytest.skip("numpy has no BLAS library threadpoolctl knows")
        with one_blas_thread():
            assert blas_threads() == [1] * len(before)
            with one_blas_thread():
                assert blas_threads() == [1] * len(before)
            assert blas_threads() == [1] * len(before)  # an inner block leaving does not give it back
        assert blas_threads() == before


class FakeController:
    """Stands for threadpoolctl's controller: counts the limits set and given back."""

    def __init__(self):
        self.limits, self.restored = 0, 0

    def limit(self, limits, user_api):
        assert (limits, user_api) == (1, "blas")
        self.limits += 1
        controller = self

        class Limiter:
            def restore_original_limits(self):
                controller.restored += 1

        return Limiter()


def test_overlapping_blocks_in_threads_give_back_the_limit_once_the_last_leaves(monkeypatch):
    from vision import blas_threads

    fake = FakeController()
    monkeypatch.setattr(blas_threads._ONE, "controller", fake)
    inside, leave = threading.Event(), threading.Event()

    def other():
        with one_blas_thread():
            inside.set()
            leave.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    assert inside.wait(10)
    with one_blas_thread():
        pass
    assert (fake.limits, fake.restored) == (1, 0)  # the other thread is still inside: the limit stays
    leave.set()
    thread.join(10)
    assert (fake.limits, fake.restored) == (1, 1)
    with pytest.raises(RuntimeError), one_blas_thread():  # a block left by an error gives it back too
        raise RuntimeError
    assert (fake.limits, fake.restored) == (2, 2)
