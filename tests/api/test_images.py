"""Annotated images: the last N (for a while) in the service's database, served as JPEG by id."""
import time

from api.storage.images import DatabaseImageStore
from api.storage.store import GameStore


def image_store(tmp_path, size: int, ttl_seconds: int = 3600) -> DatabaseImageStore:
    engine = GameStore.open(tmp_path).engine
    return DatabaseImageStore(lambda: engine, size, ttl_seconds)


def test_the_store_keeps_the_last_n(tmp_path):
    store = image_store(tmp_path, size=2)
    a, b = store.put(b"a"), store.put(b"b")
    c = store.put(b"c")  # a, the oldest, goes
    assert (store.get(a), store.get(b), store.get(c)) == (None, b"b", b"c")
    assert len(store) == 2


def test_an_image_expires(tmp_path):
    store = image_store(tmp_path, size=10, ttl_seconds=1)
    image_id = store.put(b"a")
    assert store.get(image_id) == b"a"
    time.sleep(1.1)
    assert store.get(image_id) is None
    store.put(b"b")  # the expired one is dropped on the next put
    assert len(store) == 1


def test_images_outlive_the_app_and_are_shared_by_every_worker(make_client, tmp_path):
    first = make_client(data_dir=tmp_path / "shared")
    image_id = first.app.state.images.put(b"\xff\xd8shared")
    second = make_client(data_dir=tmp_path / "shared")  # another worker, or the service restarted
    assert second.get(f"/api/v1/images/{image_id}.jpg").content == b"\xff\xd8shared"


def test_ids_are_long_random_and_url_safe(tmp_path):
    store = image_store(tmp_path, size=10)
    ids = {store.put(b"x") for _ in range(10)}
    assert len(ids) == 10
    assert all(len(i) >= 20 and i.replace("-", "").replace("_", "").isalnum() for i in ids)


def test_the_route_serves_a_stored_jpeg(client):
    image_id = client.app.state.images.put(b"\xff\xd8jpeg bytes")
    response = client.get(f"/api/v1/images/{image_id}.jpg")
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/jpeg"
    assert response.content == b"\xff\xd8jpeg bytes"


def test_an_unknown_or_evicted_image_is_a_json_404(make_client):
    client = make_client(image_store_size=1)
    first = client.app.state.images.put(b"1")
    client.app.state.images.put(b"2")
    for image_id in (first, "no-such-image"):
        response = client.get(f"/api/v1/images/{image_id}.jpg")
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "image_not_found"


def test_an_id_with_odd_characters_is_a_422(client):
    response = client.get("/api/v1/images/a.b.jpg")
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_request"
