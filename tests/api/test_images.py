"""Annotated images: an LRU store of the last N, served as JPEG by id."""
from api.images import ImageStore


def test_the_store_keeps_the_last_n_and_a_read_counts_as_use():
    store = ImageStore(size=2)
    a, b = store.put(b"a"), store.put(b"b")
    assert store.get(a) == b"a"  # a is now the most recently used
    c = store.put(b"c")           # so b goes
    assert (store.get(a), store.get(b), store.get(c)) == (b"a", None, b"c")
    assert len(store) == 2


def test_ids_are_long_random_and_url_safe():
    store = ImageStore(size=10)
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
