"""A BM25 setting's made lists are kept beside the index (search/setting_cache.py): a later Searcher maps
them instead of making them, the run files are byte for byte those of a search without the cache, and a
file that is damaged, of another setting or not writable is not used (never an error)."""
import numpy as np
import pytest

from sounding.datasets import Document
from sounding.index import build_index
from sounding.search import Searcher, setting_cache
from sounding.search.stream import search_to_run

WORDS = [f"w{i:03d}" for i in range(300)]
LAYOUTS = [("flat", False), ("flat", True), ("multifield", False), ("multifield-max", False),
           ("multifield-max", True), ("bm25f", False)]


@pytest.fixture()
def index(tmp_path):
    rng = np.random.default_rng(11)
    p = 1.0 / np.arange(1, len(WORDS) + 1)
    p /= p.sum()
    docs = [Document(f"d{i:05d}", " ".join(rng.choice(WORDS, 3, p=p)),
                     " ".join(rng.choice(WORDS, int(rng.integers(5, 60)), p=p)), i + 1) for i in range(3000)]
    root = tmp_path / "ix"
    build_index(docs, root, workers=1)
    return root


def _queries(seed: int, n: int) -> dict[str, str]:
    rng = np.random.default_rng(seed)
    return {f"q{seed}-{i:03d}": " ".join(rng.choice(WORDS, int(rng.integers(1, 5)))) for i in range(n)}


def _run(root, queries, path, *, cache=True, threads=1, **options) -> tuple[bytes, Searcher]:
    s = Searcher(root)
    s.setting_cache = cache
    search_to_run(s, queries, path, k=50, threads=threads, batch=16, **options)
    return path.read_bytes(), s


def _files(root):
    return sorted((Searcher(root).index.folder / setting_cache.FOLDER).glob("*" + setting_cache.SUFFIX))


@pytest.mark.parametrize("layout,lucene", LAYOUTS)
def test_a_mapped_setting_gives_the_same_run(index, tmp_path, layout, lucene):
    opts = dict(layout=layout, lucene_norms=lucene)
    first, queries = _queries(1, 40), _queries(2, 60)
    want, _ = _run(index, queries, tmp_path / "plain.run", cache=False, **opts)
    assert not _files(index)  # the cache off: nothing written
    _run(index, first, tmp_path / "first.run", **opts)  # makes the lists of `first` and saves them
    assert len(_files(index)) == 1
    s = Searcher(index)
    s.search([], **opts)
    mapped = int(s._settings.value["filled"].sum())
    assert mapped > 0  # the lists `first` read, mapped before any query
    got, s2 = _run(index, queries, tmp_path / "mapped.run", threads=2, **opts)  # some lists mapped, others made
    assert got == want
    assert int(s2._settings.value["filled"].sum()) > mapped
    assert not s2._settings.value["made_here"]  # saved, with the new lists
    again, s3 = _run(index, queries, tmp_path / "again.run", **opts)  # every list mapped: nothing made, nothing saved
    assert again == want and not s3.save_setting()


def test_another_setting_does_not_use_the_file(index, tmp_path):
    q = _queries(3, 30)
    _run(index, q, tmp_path / "a.run", k1=1.2, b=0.75)
    s = Searcher(index)
    s.search([], k1=0.9, b=0.4)
    assert not s._settings.value["filled"].any()
    s.search([], k1=1.2, b=0.75)
    assert s._settings.value["filled"].any()


@pytest.mark.parametrize("where", ["head", "maxima", "impacts"])
def test_a_damaged_file_is_not_used(index, tmp_path, where):
    q = _queries(4, 40)
    want, _ = _run(index, q, tmp_path / "plain.run", cache=False)
    _run(index, q, tmp_path / "first.run")
    (path,) = _files(index)
    raw = bytearray(path.read_bytes())
    import json

    head = json.loads(bytes(raw[: setting_cache.PAGE]).rstrip(b"\0"))
    at = {"head": 10, "maxima": head["sections"]["maxima"] + 4 * int(np.argmax(np.frombuffer(
        bytes(raw[head["sections"]["maxima"]:head["sections"]["ranges"]]), np.float32))),
          "impacts": head["sections"]["impacts"] + 4 * int(np.frombuffer(
              bytes(raw[head["sections"]["ranges"]:head["sections"]["ranges"] + 16]), np.int64)[0])}[where]
    raw[at] ^= 0x40
    path.write_bytes(bytes(raw))
    s = Searcher(index)
    s.search([])
    assert not s._settings.value["filled"].any()  # not mapped: made again
    got, _ = _run(index, q, tmp_path / "again.run")
    assert got == want


def test_an_unwritable_cache_folder_searches_as_before(index, tmp_path):
    q = _queries(5, 20)
    folder = Searcher(index).index.folder
    (folder / setting_cache.FOLDER).write_text("not a folder")  # mkdir fails, as in a read-only index
    got, s = _run(index, q, tmp_path / "a.run")
    assert s._settings.value["made_here"] and not s.save_setting()
    want, _ = _run(index, q, tmp_path / "b.run", cache=False)
    assert got == want


def test_a_full_disk_is_not_an_error(index, tmp_path, monkeypatch):
    q = _queries(6, 20)

    def full(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(setting_cache.os, "ftruncate", full)
    got, s = _run(index, q, tmp_path / "a.run")
    assert not _files(index) and not list((s.index.folder / setting_cache.FOLDER).glob(".*"))  # no temp file left
    want, _ = _run(index, q, tmp_path / "b.run", cache=False)
    assert got == want


def test_made_ranges_join_near_lists(monkeypatch):
    monkeypatch.setattr(setting_cache, "GAP", 1024)
    starts = np.array([5000, 0, 100, 3000, 7, 1060], np.int64)
    ends = np.array([5001, 50, 100, 3010, 40, 1070], np.int64)  # one empty list
    got = setting_cache.made_ranges(starts, ends)
    assert got.tolist() == [[0, 1070], [3000, 3010], [5000, 5001]]
    assert setting_cache.made_ranges(np.zeros(0, np.int64), np.zeros(0, np.int64)).shape == (0, 2)


def test_settings_made_by_other_code_are_removed_on_save(index, tmp_path, monkeypatch):
    _run(index, _queries(7, 20), tmp_path / "a.run")
    (old,) = _files(index)
    monkeypatch.setattr(setting_cache, "arithmetic_source", lambda: "other code")
    s = Searcher(index)
    s.search([])
    assert not s._settings.value["filled"].any()  # made by other code: not mapped
    _run(index, _queries(7, 20), tmp_path / "b.run")
    (new,) = _files(index)
    assert new != old and not old.exists()
