"""Small tiles named from a sharper decode (vision.photo.read_photo, Detector._crop_source):
when the finder's tiles in the photo as read are smaller than the classifier's input, the
classifier's crops are cut from the same photo decoded again at the next direct JPEG scale; the
finder does not run again and an ordinary photo is decoded once. The shipped model's classifier,
with a stand-in finder that returns the boxes of the white tiles drawn in the photo."""
import io

import numpy as np
import pytest
from PIL import Image, ImageDraw

import vision.decode
from vision.analyze import WEAK_FLOOR, detect_hand
from vision.detector import Detector
from vision.finder import FoundTiles
from vision.model_spec import DEFAULT_MODEL_DIR
from vision.photo import read_photo

PHOTO_W, PHOTO_H = 4000, 3000


def _photo(tiles: list[list[float]]) -> bytes:
    """A dark 4000 x 3000 JPEG with a white rectangle at each box (photo pixels)."""
    image = Image.new("RGB", (PHOTO_W, PHOTO_H), (20, 60, 30))
    draw = ImageDraw.Draw(image)
    for x1, y1, x2, y2 in tiles:
        draw.rectangle([x1, y1, x2 - 1, y2 - 1], fill=(250, 250, 250))
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=90)
    return buffer.getvalue()


def _row(tile_w: float, tile_h: float, count: int = 14) -> list[list[float]]:
    """A row of `count` tiles of tile_w x tile_h photo pixels, a gap of a tenth between them."""
    return [[400 + i * tile_w * 1.1, 1200, 400 + i * tile_w * 1.1 + tile_w, 1200 + tile_h] for i in range(count)]


@pytest.fixture
def detector(monkeypatch):
    if not (DEFAULT_MODEL_DIR / "model.json").is_file():
        pytest.skip("no shipped model in models/")
    found = Detector(DEFAULT_MODEL_DIR, threads=1)
    found.finder_runs, found.classified = 0, []
    found.tiles = found.weak = np.zeros((0, 4), np.float32)  # photo pixels, set by each test

    def find_tiles(rgb, floor, closer=False, upside_down=False):  # the photo's boxes in pixels of the image it is shown
        found.finder_runs += 1
        scale = rgb.shape[1] / PHOTO_W
        tiles, weak = found.tiles * scale, found.weak * scale
        kept = (tiles, np.full(len(tiles), 0.9, np.float32))
        return FoundTiles(kept, None if floor is None else (weak, np.full(len(weak), 0.3, np.float32)))

    classify = found.classifier.classify

    def recording_classify(rgb, boxes):
        found.classified.append((rgb.shape, np.array(boxes), [float(rgb[int(y1):int(y2), int(x1):int(x2)].mean())
                                                             for x1, y1, x2, y2 in boxes]))
        return classify(rgb, boxes)

    monkeypatch.setattr(found.finder, "find", find_tiles)
    monkeypatch.setattr(found.classifier, "classify", recording_classify)
    return found


def _read(detector, data, **options):
    """A photo's bytes read by read_photo and detected with the photo given: (image, tiles)."""
    photo = read_photo(data, **options)
    return photo.image, detector.detect(photo.image, photo=photo).tiles


@pytest.fixture
def decodes(monkeypatch):
    """The long sides vision.decode.decode_image is asked for."""
    asked = []
    decode = vision.decode.decode_image

    def counting(data, **options):
        asked.append(options.get("max_side"))
        return decode(data, **options)

    monkeypatch.setattr(vision.decode, "decode_image", counting)
    return asked


def test_small_tiles_are_classified_from_the_next_direct_scale_without_a_second_finder_run(detector, decodes):
    detector.tiles = np.asarray(_row(120, 160), np.float32)  # 30 x 40 px at 1000: under the crop's 64
    rgb, found = _read(detector, _photo(detector.tiles.tolist()))
    assert rgb.shape == (750, 1000, 3) and decodes == [1000, 2000] and detector.finder_runs == 1
    [(shape, boxes, brightness)] = detector.classified
    assert shape == (1500, 2000, 3)
    assert np.allclose(boxes, detector.tiles / 2)  # the finder's boxes, scaled to the sharper image
    assert min(brightness) > 200  # the crops are the tiles, not the table
    assert len(found) == 14  # boxes in pixels of the image returned
    assert np.allclose([d["box"] for d in found], detector.tiles / 4, atol=0.05)


def test_the_sharper_decode_is_one_direct_scale_up_however_small_the_tiles(detector, decodes):
    detector.tiles = np.asarray(_row(60, 80), np.float32)  # 20 px long at 1000, 40 at 2000
    data = _photo(detector.tiles.tolist())
    _read(detector, data)
    assert decodes == [1000, 2000] and detector.classified[0][0] == (1500, 2000, 3)
    _read(detector, data, first_side=1001)  # first read at 1/2: the full photo next
    assert decodes == [1000, 2000, 2000, 4000] and detector.classified[1][0] == (PHOTO_H, PHOTO_W, 3)
    assert min(detector.classified[0][2] + detector.classified[1][2]) > 200


def test_an_ordinary_photo_is_decoded_once_and_classified_from_it(detector, decodes):
    detector.tiles = np.asarray(_row(240, 320, count=12), np.float32)  # 80 px long at 1000
    rgb, found = _read(detector, _photo(detector.tiles.tolist()))
    assert decodes == [1000] and [c[0] for c in detector.classified] == [rgb.shape] and len(found) == 12


def test_weak_boxes_are_classified_from_the_sharper_decode_too(detector, decodes):
    detector.tiles = np.asarray(_row(120, 160, count=13), np.float32)
    detector.weak = np.asarray([[3000, 2400, 3120, 2560]], np.float32)  # a faint 14th tile, away from the row
    photo = read_photo(_photo(detector.tiles.tolist() + detector.weak.tolist()))
    found = detect_hand(detector, photo.image, photo=photo)
    [(shape, boxes, brightness)] = detector.classified
    assert shape == (1500, 2000, 3) and len(boxes) == 14 and min(brightness) > 200
    assert len(found.weak) == 1 and len(found.tiles) + len(found.weak) == 14
    assert WEAK_FLOOR < detector.finder.conf


def test_a_photo_read_whole_or_an_image_given_directly_is_classified_as_it_is(detector, decodes):
    detector.tiles = np.asarray(_row(120, 160), np.float32)
    data = _photo(detector.tiles.tolist())
    rgb = vision.decode.decode_image(data, max_side=1000)
    detector.detect(rgb)  # no photo bytes to decode again
    assert detector.classified[-1][0] == rgb.shape
    _read(detector, data, first_side=4000)  # already the full photo: nothing sharper
    assert decodes == [1000, 4000] and detector.classified[-1][0] == (PHOTO_H, PHOTO_W, 3)


def _wide_shot(path, factor: int) -> bytes:
    """A committed test photo pasted `factor` times smaller into a 4000 x 3000 table photo (JPEG)."""
    scene = Image.open(path).convert("RGB")
    table = Image.new("RGB", (PHOTO_W, PHOTO_H), (30, 80, 50))
    small = scene.resize((PHOTO_W // factor, PHOTO_W * scene.height // scene.width // factor))
    table.paste(small, (PHOTO_W // 3, PHOTO_H // 3))
    buffer = io.BytesIO()
    table.save(buffer, "JPEG", quality=92)
    return buffer.getvalue()


def test_photos_read_at_once_on_two_threads_each_get_their_own_sharper_crops():
    """The photo a read is for reaches the classifier as the detector's argument: reading a wide
    shot (small tiles, decoded again) and ordinary photos on two threads at once gives each the
    tiles it gets when read alone."""
    from concurrent.futures import ThreadPoolExecutor
    from pathlib import Path

    if not (DEFAULT_MODEL_DIR / "model.json").is_file():
        pytest.skip("no shipped model in models/")
    detector = Detector(DEFAULT_MODEL_DIR, threads=1)
    folder = Path(__file__).resolve().parents[1] / "data" / "detector"
    paths = sorted(folder.glob("*.jpg"))[:2]
    photos = [_wide_shot(p, 3) for p in paths] + [p.read_bytes() for p in paths]

    def tiles(data):
        rgb, found = _read(detector, data)
        return rgb.shape, [(d["tile"], [round(v, 1) for v in d["box"]]) for d in found]

    alone = [tiles(data) for data in photos]
    with ThreadPoolExecutor(2) as pool:
        together = list(pool.map(tiles, photos * 2))
    assert together == alone * 2
    assert any(found for _, found in alone[:2])  # the wide shots' tiles are found (and so renamed)
