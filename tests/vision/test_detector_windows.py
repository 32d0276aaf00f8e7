"""The finder's look over overlapping windows of a wide shot (vision.boxes: photo_windows,
merge_windows; vision.finder.TileFinder.find), with a stand-in finder that only finds patches big enough
in its 320 px input, as the real one misses tiles about 10 px long."""
import cv2
import numpy as np
import pytest

from vision.boxes import half_turn, main_cluster, merge_windows, photo_windows, runs_down, unturn
from vision.detector import Detector
from vision.model_spec import DEFAULT_MODEL_DIR


class _SmallBlindFinder:
    """A stand-in finder session: one box (score 0.9) around each bright patch of what it is shown
    whose longer side is at least `min_side` pixels of its input; smaller patches go unseen."""

    def __init__(self, min_side: float = 14):
        self.min_side = min_side
        self.runs = 0
        self.across: list[bool] = []  # each run: whether what it found spread more across than down
        self.heights: list[float] = []  # each run: how far down its input what it found lies (0 top, 1 bottom)

    def run(self, _outputs, feed):
        self.runs += 1
        blob = next(iter(feed.values()))[0]
        mask = (blob.min(axis=0) > 0.9).astype(np.uint8)
        count, _, stats, _ = cv2.connectedComponentsWithStats(mask)
        rows = []
        for x, y, w, h, _area in stats[1:count]:
            if max(w, h) >= self.min_side:
                rows.append([x + w / 2, y + h / 2, w, h, 0.9])
        self.across.append(bool(len(rows) > 1 and np.std([r[0] for r in rows]) > np.std([r[1] for r in rows])))
        self.heights.append(float(np.mean([r[1] for r in rows]) / blob.shape[1]) if rows else -1.0)
        head = np.asarray(rows, np.float32).reshape(-1, 5).T
        return [head[None]]


@pytest.fixture
def finder(monkeypatch):
    if not (DEFAULT_MODEL_DIR / "model.json").is_file():
        pytest.skip("no shipped model in models/")
    found = Detector(DEFAULT_MODEL_DIR, threads=1).finder
    monkeypatch.setattr(found, "session", _SmallBlindFinder())
    monkeypatch.setattr(found, "mirror", True)
    monkeypatch.setattr(found, "zoom_below", 28)
    monkeypatch.setattr(found, "zoom_min_gain", 1.15)
    monkeypatch.setattr(found, "window_below", 14)
    monkeypatch.setattr(found, "window_grid", (3, 2))
    monkeypatch.setattr(found, "window_overlap", 0.25)
    monkeypatch.setattr(found, "window_mirror", False)
    monkeypatch.setattr(found, "turn_rows", True)
    return found


def test_windows_cover_the_photo_and_overlap():
    windows = photo_windows(1000, 750, (3, 2), 0.25)
    assert len(windows) == 6
    xs = sorted({(x1, x2) for x1, _, x2, _ in windows})
    ys = sorted({(y1, y2) for _, y1, _, y2 in windows})
    assert xs[0][0] == 0 and xs[-1][1] == 1000 and ys[0][0] == 0 and ys[-1][1] == 750
    assert len(xs) == 3 and len(ys) == 2  # three across the long side, two down the short one
    for (a1, a2), (b1, _b2) in zip(xs, xs[1:]):
        assert a2 - b1 == pytest.approx(0.25 * (a2 - a1), abs=1)  # neighbours share a quarter
    portrait = photo_windows(750, 1000, (3, 2), 0.25)
    assert len({(x1, x2) for x1, _, x2, _ in portrait}) == 2 and len({(y1, y2) for _, y1, _, y2 in portrait}) == 3



@pytest.mark.parametrize("width, height", [(1, 1), (2, 2), (3, 2), (1, 900), (7, 5)])
def test_a_photo_a_few_pixels_across_gets_windows_none_empty(width, height):
    windows = photo_windows(width, height, (3, 2), 0.25)
    assert windows and len(set(windows)) == len(windows)
    assert all(x2 > x1 and y2 > y1 for x1, y1, x2, y2 in windows)
    assert min(w[0] for w in windows) == 0 and max(w[2] for w in windows) == width
    assert min(w[1] for w in windows) == 0 and max(w[3] for w in windows) == height


@pytest.mark.parametrize("width, height", [(1, 1), (2, 2), (2, 900), (900, 2)])
def test_the_shipped_detector_finds_nothing_in_a_photo_a_few_pixels_across(width, height):
    # a 1 x 1 image once crashed the windowed look (an empty window: division by zero)
    detector = Detector(DEFAULT_MODEL_DIR)
    grey = np.full((height, width, 3), 128, np.uint8)
    assert detector.detect(grey).tiles == []
    found = detector.detect(grey, weak_floor=0.02, closer=True)
    assert (found.tiles, found.weak) == ([], [])

def test_a_tile_cut_by_a_window_edge_is_kept_whole_from_its_neighbour():
    windows = [(0, 0, 600, 400), (400, 0, 1000, 400)]
    # the tile spans x 580..620: the left window sees it cut at its right edge (580..600)
    left = np.array([[100, 50, 140, 100], [580, 50, 600, 100]], np.float32)
    right = np.array([[580, 50, 620, 100], [800, 50, 840, 100]], np.float32)
    boxes, scores = merge_windows([left, right], [np.array([0.9, 0.95]), np.array([0.8, 0.9])], windows, 1000, 400)
    assert sorted(map(tuple, boxes.tolist())) == [(100, 50, 140, 100), (580, 50, 620, 100), (800, 50, 840, 100)]
    assert scores.tolist() == pytest.approx([0.9, 0.8, 0.9])


def test_neighbouring_tiles_of_one_window_are_never_merged():
    windows = [(0, 0, 1000, 400)]
    boxes, _ = merge_windows([np.array([[0, 0, 40, 50], [20, 0, 60, 50]], np.float32)], [np.array([0.9, 0.9])],
                             windows, 1000, 400)
    assert len(boxes) == 2


def test_the_windows_find_small_tiles_the_whole_photo_misses_in_photo_pixels(finder):
    photo = np.zeros((750, 1000, 3), np.uint8)
    tiles = [(620 + 30 * i, 480, 644 + 30 * i, 512) for i in range(3)]  # 32 px tall: 10 px at the 320 px scale
    for x1, y1, x2, y2 in tiles:
        photo[y1:y2, x1:x2] = 255
    finder.window_below = 0  # the whole photo alone: it finds nothing
    boxes, _ = finder.find_tiles(photo)
    assert len(boxes) == 0
    finder.window_below = 14
    finder.session.runs = 0
    boxes, scores = finder.find_tiles(photo)
    assert len(boxes) == 3
    found = sorted(boxes.tolist())
    for box, tile in zip(found, tiles):
        np.testing.assert_allclose(box, tile, atol=3)
    # the photo and its mirror image, 6 windows, then the zoom on the region found (2 views)
    assert finder.session.runs == 2 + 6 + 2
    assert scores == pytest.approx([0.9] * 3)
    finder.window_mirror = True  # each window with its mirror image too: the same tiles
    finder.session.runs = 0
    mirrored, _ = finder.find_tiles(photo)
    np.testing.assert_allclose(sorted(mirrored.tolist()), found, atol=1)
    assert finder.session.runs == 2 + 12 + 2


def test_a_photo_showing_a_whole_hand_pays_no_window(finder):
    photo = np.zeros((750, 1000, 3), np.uint8)
    for i in range(14):
        photo[300:400, 40 + 66 * i:100 + 66 * i] = 255  # 14 tiles, 32 px tall at the 320 px scale
    boxes, _ = finder.find_tiles(photo)
    assert len(boxes) == 14
    assert finder.session.runs == 2  # the photo and its mirror image only


def test_the_zoom_is_skipped_when_it_would_not_enlarge_the_tiles(finder):
    # 14 tiles 19 px tall at the 320 px scale (under zoom_below): across the whole photo the
    # region around them is the photo, and a zoomed look would see them no larger
    photo = np.zeros((750, 1000, 3), np.uint8)
    for i in range(14):
        photo[300:360, 40 + 66 * i:90 + 66 * i] = 255
    boxes, _ = finder.find_tiles(photo)
    assert len(boxes) == 14
    assert finder.session.runs == 2  # the photo and its mirror image only
    # the same tiles closer together, over half the photo's width: the zoom enlarges them, and follows
    photo[:] = 0
    for i in range(14):
        photo[300:360, 250 + 36 * i:280 + 36 * i] = 255
    finder.session.runs = 0
    boxes, _ = finder.find_tiles(photo)
    assert len(boxes) == 14
    assert finder.session.runs == 2 + 2
    finder.zoom_min_gain = 2.0  # asked for a larger gain than that region gives: no zoom
    finder.session.runs = 0
    assert len(finder.find_tiles(photo)[0]) == 14 and finder.session.runs == 2


def test_a_photo_showing_several_big_tiles_pays_no_window(finder):
    photo = np.zeros((750, 1000, 3), np.uint8)
    for i in range(5):
        photo[300:420, 100 + 100 * i:190 + 100 * i] = 255  # 5 tiles 38 px tall at the 320 px scale
    boxes, _ = finder.find_tiles(photo)
    assert len(boxes) == 5
    assert finder.session.runs == 2
    photo[300:420, 500:590] = 0  # 4 big tiles: too few to trust (a tiny hand read as one tile)
    finder.session.runs = 0
    boxes, _ = finder.find_tiles(photo)
    assert len(boxes) == 4
    assert finder.session.runs == 2 + 6  # the windows find no more: the whole photo's 4 stay


def test_the_windows_are_kept_only_when_they_find_more_small_tiles(finder):
    photo = np.zeros((750, 1000, 3), np.uint8)
    photo[200:500, 300:520] = 255  # one big patch the whole photo sees: windows cut it, find no more
    boxes, _ = finder.find_tiles(photo)
    assert len(boxes) == 1
    np.testing.assert_allclose(boxes[0], [300, 200, 520, 500], atol=4)


def test_the_main_cluster_is_the_largest_chain_of_near_boxes():
    row = [[100 + 30 * i, 100, 124 + 30 * i, 132] for i in range(5)]  # gaps of 6 px
    stray = [[600, 500, 624, 532], [700, 40, 724, 72]]
    meld = [[100, 150, 124, 182], [130, 150, 154, 182]]  # 18 px below the row: same group
    boxes = np.array(row + stray + meld, np.float32)
    assert main_cluster(boxes, link=30).tolist() == [0, 1, 2, 3, 4, 7, 8]
    assert main_cluster(boxes, link=5).tolist() == [0]  # no links: single boxes, the first wins
    assert main_cluster(np.zeros((0, 4)), link=30).tolist() == []


def test_the_zoom_looks_around_the_hand_when_strays_lie_far_from_it(finder):
    photo = np.zeros((750, 1000, 3), np.uint8)
    tiles = [(20 + 30 * i, 330, 44 + 30 * i, 362) for i in range(14)]  # 14 small tiles in a row ...
    for x1, y1, x2, y2 in tiles:
        photo[y1:y2, x1:x2] = 255
    photo[20:52, 950:974] = 255  # ... and a stray far away, in a corner
    photo[700:732, 960:984] = 255
    finder.window_below = 20
    finder.session.runs = 0
    boxes, _ = finder.find_tiles(photo)
    # all of them around: more than 60% of the photo, so the zoom looks at the hand's group only ...
    assert finder.session.runs == 2 + 6 + 2
    assert len(boxes) == 16
    np.testing.assert_allclose(sorted(boxes.tolist())[:14], tiles, atol=3)
    # ... and the strays the windows found away from it stay (the zoom does not look at them again)
    np.testing.assert_allclose(sorted(boxes.tolist())[14:], [(950, 20, 974, 52), (960, 700, 984, 732)], atol=3)


def test_boxes_found_in_a_turned_image_map_back_onto_it():
    image = np.zeros((60, 100), np.uint8)
    image[10:25, 70:90] = 1  # x 70..90, y 10..25
    turned = np.rot90(image, k=-1)
    ys, xs = np.nonzero(turned)
    found = np.array([[xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]], np.float32)
    assert unturn(found, image.shape[0]).tolist() == [[70, 10, 90, 25]]


def test_boxes_found_in_an_image_turned_half_a_turn_map_back_onto_it():
    image = np.zeros((60, 100), np.uint8)
    image[10:25, 70:90] = 1
    turned = image[::-1, ::-1]
    ys, xs = np.nonzero(turned)
    found = np.array([[xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]], np.float32)
    assert half_turn(found, 100, 60).tolist() == [[70, 10, 90, 25]]


def test_the_upside_down_look_finds_the_tiles_in_the_turned_photo_and_gives_them_back_in_the_photos_pixels(finder):
    tiles = [(100 + 110 * i, 100, 200 + 110 * i, 230) for i in range(6)]  # a row in the photo's top half
    photo = _column(np.zeros((750, 1000, 3), np.uint8), tiles)
    boxes, _ = finder.find(photo, None, upside_down=True).tiles
    assert min(finder.session.heights) > 0.5  # the finder saw the row in the bottom half: the photo turned
    np.testing.assert_allclose(sorted(boxes.tolist()), tiles, atol=3)
    finder.session.heights = []
    boxes, _ = finder.find(photo, None).tiles
    assert max(finder.session.heights) < 0.5
    np.testing.assert_allclose(sorted(boxes.tolist()), tiles, atol=3)


@pytest.mark.parametrize("degrees, down", [(0, False), (30, False), (60, True), (90, True), (120, True), (160, False)])
def test_a_hand_runs_down_the_photo_when_its_tiles_spread_more_down_than_across(degrees, down):
    theta = np.deg2rad(degrees)
    centres = [(500 + 40 * k * np.cos(theta), 500 + 40 * k * np.sin(theta)) for k in range(-7, 7)]
    boxes = np.array([[x - 15, y - 20, x + 15, y + 20] for x, y in centres], np.float32)
    assert runs_down(boxes) is down
    assert runs_down(boxes[:1]) is False  # one tile has no direction


def _column(photo, tiles):
    for x1, y1, x2, y2 in tiles:
        photo[y1:y2, x1:x2] = 255
    return photo


def test_a_hand_running_down_the_photo_is_read_turned(finder):
    # 8 tiles down a portrait photo, big enough at the 320 px scale for no zoom (32 px)
    tiles = [(300, 60 + 110 * i, 400, 135 + 110 * i) for i in range(8)]
    photo = _column(np.zeros((1000, 750, 3), np.uint8), tiles)
    boxes, _ = finder.find_tiles(photo)
    # the photo, then the photo turned a quarter turn (the turn decided on these plain views), then
    # the turned photo's mirror image: rows across
    assert finder.session.runs == 3 and finder.session.across == [False, True, True]
    np.testing.assert_allclose(sorted(boxes.tolist(), key=lambda b: b[1]), tiles, atol=3)
    finder.turn_rows = False
    finder.session.runs = 0
    unturned, _ = finder.find_tiles(photo)
    assert finder.session.runs == 2
    np.testing.assert_allclose(sorted(unturned.tolist(), key=lambda b: b[1]), tiles, atol=3)


def test_a_small_hand_running_down_the_photo_is_zoomed_on_turned(finder):
    # 14 tiles down two thirds of a portrait photo, 16 px at the 320 px scale: the zoom follows,
    # on the turned photo
    tiles = [(350, 150 + 46 * i, 400, 190 + 46 * i) for i in range(14)]
    photo = _column(np.zeros((1000, 750, 3), np.uint8), tiles)
    boxes, _ = finder.find_tiles(photo)
    assert finder.session.runs == 5 and finder.session.across == [False, True, True, True, True]
    assert len(boxes) == 14
    np.testing.assert_allclose(sorted(boxes.tolist(), key=lambda b: b[1]), tiles, atol=3)


class _SurerOfColumns(_SmallBlindFinder):
    """... scoring the patches 0.9 when they spread down its input, 0.5 when across."""

    def run(self, outputs, feed):
        [head] = super().run(outputs, feed)
        head[:, 4] = 0.5 if self.across[-1] else 0.9
        return [head]


def test_a_hand_running_down_stays_as_it_is_when_the_finder_is_surer_of_it_so(finder, monkeypatch):
    monkeypatch.setattr(finder, "session", _SurerOfColumns())
    tiles = [(300, 60 + 110 * i, 400, 135 + 110 * i) for i in range(8)]
    boxes, scores = finder.find_tiles(_column(np.zeros((1000, 750, 3), np.uint8), tiles))
    assert finder.session.runs == 3  # it looked at the turned photo (plain view only) ...
    assert finder.session.across == [False, True, False]  # ... then at the photo's mirror image
    assert scores == pytest.approx([0.9] * 8)  # ... and kept the first look
    np.testing.assert_allclose(sorted(boxes.tolist(), key=lambda b: b[1]), tiles, atol=3)


def test_a_hand_across_the_photo_is_not_turned(finder):
    tiles = [(40 + 66 * i, 300, 100 + 66 * i, 400) for i in range(14)]
    _column(photo := np.zeros((750, 1000, 3), np.uint8), tiles)
    boxes, _ = finder.find_tiles(photo)
    assert finder.session.runs == 2 and finder.session.across == [True, True]
    assert len(boxes) == 14


def test_a_closer_look_zooms_whatever_it_gains(finder):
    # the 14 tiles across the whole photo of the test above: the plain look skips the zoom, the
    # closer one (vision.analyze.read_hand's second look at a doubtful reading) takes it
    photo = np.zeros((750, 1000, 3), np.uint8)
    for i in range(14):
        photo[300:360, 40 + 66 * i:90 + 66 * i] = 255
    boxes, _ = finder.find(photo, None, closer=True).tiles
    assert len(boxes) == 14
    assert finder.session.runs == 2 + 2


def _closer_differs_after_its_look(finder, photo) -> bool:
    """Whether the finder's look at `photo` says a closer look could find otherwise."""
    return finder.find(photo, None).closer_differs


def test_a_closer_look_differs_only_where_the_zoom_was_left_out_for_its_gain(finder):
    # 14 small tiles across the whole photo: the zoom is left out for its gain, a closer look differs
    small = np.zeros((750, 1000, 3), np.uint8)
    for i in range(14):
        small[300:360, 40 + 66 * i:90 + 66 * i] = 255
    assert _closer_differs_after_its_look(finder, small)
    # tiles already large in the finder's input: no zoom at all, the closer look would be the same
    large = _column(np.zeros((750, 1000, 3), np.uint8), [(40 + 66 * i, 300, 100 + 66 * i, 400) for i in range(14)])
    assert not _closer_differs_after_its_look(finder, large)
