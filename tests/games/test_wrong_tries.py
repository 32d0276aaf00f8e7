"""The wrong-token count (api/storage/tries.py) on both databases: windows, the bound on addresses,
and two processes counting one address at once (as two replicas do) losing no try."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from api.storage.tries import DatabaseTries

ROOT = Path(__file__).resolve().parents[2]
COUNTER = """
import sys
from pathlib import Path
from api.storage.store import GameStore
from api.storage.tries import DatabaseTries
data_dir, url, tries = sys.argv[1], sys.argv[2], int(sys.argv[3])
engine = GameStore.open(Path(data_dir), url).engine
counter = DatabaseTries(lambda: engine, limit=1000, window=600, max_addresses=100)
for _ in range(tries):
    counter.add("192.0.2.9")
"""


def test_the_wait_ends_with_the_window_and_the_addresses_stay_bounded(store):
    now = [1000.0]
    tries = DatabaseTries(lambda: store.engine, limit=3, window=60, max_addresses=2, clock=lambda: now[0])
    for _ in range(3):
        assert tries.wait("a") == 0
        tries.add("a")
    assert tries.wait("a") == 60
    now[0] += 45
    assert tries.wait("a") == 15 and tries.wait("b") == 0
    now[0] += 15
    assert tries.wait("a") == 0
    tries.add("a")  # a new window, one wrong try in it
    assert tries.wait("a") == 0
    for address in ("b", "c", "d"):  # room for two: the longest remembered go first
        now[0] += 1
        for _ in range(3):
            tries.add(address)
    assert tries.wait("b") == 0 and tries.wait("c") == 59 and tries.wait("d") == 60


def test_a_long_address_is_counted_by_its_hash(store):
    tries = DatabaseTries(lambda: store.engine, limit=2, window=60, max_addresses=10)
    long_one = "x" * 300
    tries.add(long_one)
    tries.add(long_one)
    assert tries.wait(long_one) > 0 and tries.wait("x" * 299) == 0


def test_two_processes_counting_one_address_lose_no_try(store, database):
    data_dir, url = database
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    counters = [subprocess.Popen([sys.executable, "-c", COUNTER, str(data_dir), url, "20"], env=env, cwd=ROOT,
                                 stderr=subprocess.PIPE, text=True) for _ in range(2)]
    errors = [counter.communicate(timeout=120)[1] for counter in counters]
    assert [counter.returncode for counter in counters] == [0, 0], errors
    tries = DatabaseTries(lambda: store.engine, limit=40, window=600, max_addresses=100)
    assert tries.wait("192.0.2.9") > 0  # 40 counted: the limit reached
    assert DatabaseTries(lambda: store.engine, limit=41, window=600, max_addresses=100).wait("192.0.2.9") == 0
