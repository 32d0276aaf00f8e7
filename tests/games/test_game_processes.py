"""Two processes recording into one game at once, each retrying on a stale sheet as a phone does:
every hand of both is kept, on SQLite (file locks, busy timeout) and on PostgreSQL (row locks)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HANDS_EACH = 6
PHONE = """
import sys
from pathlib import Path
from api.storage.entries import HandEntry
from api.storage.errors import GameError
from api.storage.store import GameStore
data_dir, url, code, seat = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
store = GameStore.open(Path(data_dir), url)
conflicts = 0
for _ in range({hands}):
    while True:
        sheet = store.sheet(code)
        try:
            store.record(code, sheet["version"], HandEntry("win", winner=seat, total=8))
            break
        except GameError as exc:
            assert exc.code == "stale_version", exc.code
            conflicts += 1
print(conflicts)
""".replace("{hands}", str(HANDS_EACH))


def test_two_processes_recording_at_once_keep_every_hand(store, database):
    data_dir, url = database
    code = store.create()["code"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    phones = [subprocess.Popen([sys.executable, "-c", PHONE, str(data_dir), url, code, str(seat)], env=env, cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for seat in (0, 1)]
    results = [phone.communicate(timeout=120) for phone in phones]
    assert [phone.returncode for phone in phones] == [0, 0], [err for _, err in results]
    sheet = store.sheet(code)
    winners = [h["winner"] for h in sheet["hands"]]
    assert sorted(winners) == [0] * HANDS_EACH + [1] * HANDS_EACH
    assert [h["number"] for h in sheet["hands"]] == list(range(1, 2 * HANDS_EACH + 1))
    assert sheet["version"] == 2 * HANDS_EACH
