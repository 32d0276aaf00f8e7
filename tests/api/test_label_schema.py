"""Schemathesis against the labelling routes of the OpenAPI schema, with a configured folder:
generated requests (valid and invalid) must get a declared status and never a 5xx."""
import atexit
import io
import shutil
import tempfile
import warnings
from pathlib import Path

import pytest
from PIL import Image

hypothesis = pytest.importorskip("hypothesis")
schemathesis = pytest.importorskip("schemathesis")

from schema_checks import validate  # noqa: E402

from api.app import create_app  # noqa: E402
from api.label.state import configure_labelling  # noqa: E402
from vision.detections import Detections  # noqa: E402


class FakeDetector:
    def detect(self, rgb, **_):
        return Detections([{"tile": "B5", "box": [2, 2, 20, 30], "score": 0.5}])


def _folder() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="fanshot-label-schema-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), (200, 200, 190)).save(buffer, format="JPEG")
    (folder / "a.jpg").write_bytes(buffer.getvalue())
    return folder


with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    app = create_app()
configure_labelling(app, _folder(), detector=FakeDetector())
schema = schemathesis.openapi.from_asgi("/openapi.json", app).include(path_regex=r"^/(api/v1/label|labelstudio)\b")


@schema.parametrize()
@hypothesis.settings(max_examples=12, deadline=None, derandomize=True,
                     suppress_health_check=list(hypothesis.HealthCheck))
def test_label_routes_conform_to_their_schema(case):
    validate(case)
