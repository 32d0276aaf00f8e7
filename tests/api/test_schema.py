"""Schemathesis against our own OpenAPI schema, in process (ASGI): every documented operation
is called with generated requests (valid and invalid) and every answer must match the schema:
a declared status, the declared content type and body shape, never a 5xx."""
import tempfile
import warnings
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
schemathesis = pytest.importorskip("schemathesis")

from schema_checks import validate  # noqa: E402

from api.app import create_app  # noqa: E402
from api.settings import Settings  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    app = create_app(Settings(max_upload_bytes=256 * 1024, max_pixels=4_000_000,
                              data_dir=Path(tempfile.mkdtemp(prefix="fanshot-schema-"))))  # the games' database

# The labelling routes (api/routes/label.py, api/routes/labelstudio.py, off unless a label folder is
# configured) are left to their own tests; this run covers the service's own operations.
schema = schemathesis.openapi.from_asgi("/openapi.json", app).exclude(path_regex=r"^/(api/v1/label|labelstudio)\b")


@schema.parametrize()
@hypothesis.settings(max_examples=30, deadline=None, derandomize=True,
                     suppress_health_check=list(hypothesis.HealthCheck))
def test_api_conforms_to_its_schema(case):
    validate(case)
