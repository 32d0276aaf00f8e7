"""Two processes (two replicas of the service, or `fanshot label` beside one) saving the same
image's labels at once: every change is kept (in the label file or the undo history) and the
sidecar describes the label file, because the folder's lock (api/label/folder_lock.py) keeps
their changes apart."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from PIL import Image

from api.label.sidecar import label_sha
from api.label.store import LabelStore

REPO = Path(__file__).resolve().parents[2]
SAVES = 25  # each process
EDITOR = """
import sys, time
from pathlib import Path
from api.label.store import LabelStore
folder, who, saves = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
store = LabelStore(folder)
go = Path(folder).parent / "go"
while not go.exists():
    time.sleep(0.005)
for i in range(saves):  # a box of its own in every change: (who, i) is read back from x1, y1
    store.save("a.jpg", [{"tile": "W1", "box": [10 + 5 * i, 10 + 80 * who, 40 + 5 * i, 60 + 80 * who],
                          "score": None}])
"""


def test_two_processes_saving_one_image_keep_every_change_and_a_true_sidecar(tmp_path):
    folder = tmp_path / "labels"
    folder.mkdir()
    buffer = io.BytesIO()
    Image.new("RGB", (200, 200), (90, 120, 160)).save(buffer, format="JPEG")
    (folder / "a.jpg").write_bytes(buffer.getvalue())
    store = LabelStore(folder)
    store.save("a.jpg", [{"tile": "B1", "box": [150, 150, 190, 190], "score": None}])
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    editors = [subprocess.Popen([sys.executable, "-c", EDITOR, str(folder), str(who), str(SAVES)], cwd=REPO, env=env,
                                stderr=subprocess.PIPE, text=True) for who in (0, 1)]
    time.sleep(1.0)  # both import and wait for the start
    (tmp_path / "go").touch()
    errors = [editor.communicate(timeout=120)[1] for editor in editors]
    assert [editor.returncode for editor in editors] == [0, 0], errors

    text = (folder / "a.txt").read_text()
    sidecar = json.loads((folder / ".fanshot" / "a.jpg.json").read_text())
    assert sidecar["label_sha"] == label_sha(text)  # the sidecar is the label file's
    versions = [step["text"] for step in sidecar["history"]] + [text]
    assert len(versions) == 1 + 2 * SAVES  # the first version and every save, in order of saving
    assert len(set(versions)) == len(versions)
    state = store.load("a.jpg")
    assert state["undo"] == 2 * SAVES and state["reviewed"]
    for _ in range(2 * SAVES):  # undo walks back through every change of both
        state = store.undo("a.jpg")
    assert [box["tile"] for box in state["boxes"]] == ["B1"]
