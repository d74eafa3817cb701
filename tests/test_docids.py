"""DocIds: document ids kept as docids.txt's bytes and decoded on access, same as a list of str."""
import pytest

from sounding.index.docids import DocIds


def test_docids_behave_like_the_list_of_lines():
    ids = ["a", "bb", "été", "x#1", "日本"]
    d = DocIds("\n".join(ids).encode("utf-8"))
    assert len(d) == 5 and list(d) == ids and d == ids
    assert [d[i] for i in range(5)] == ids and d[-1] == "日本" and d[1:3] == ["bb", "été"]
    assert "x#1" in d and "x" not in d
    with pytest.raises(IndexError):
        d[5]
    assert len(DocIds(b"")) == 0 and list(DocIds(b"")) == []


def test_docids_read_from_a_file_only_when_first_asked(tmp_path):
    path = tmp_path / "docids.txt"
    d = DocIds.read(path)  # no file yet: nothing read, nothing fails
    path.write_bytes("d1\nd2\nété".encode("utf-8"))
    assert len(d) == 3 and d[2] == "été" and list(d) == ["d1", "d2", "été"]
    path.unlink()
    assert d[0] == "d1"  # read once, kept
    missing = DocIds.read(tmp_path / "gone.txt")
    with pytest.raises(OSError) as e:
        len(missing)
    assert "gone.txt" in str(e.value)


def test_docids_read_by_many_threads_at_once_are_read_once(tmp_path, monkeypatch):
    from concurrent.futures import ThreadPoolExecutor
    from pathlib import Path

    path = tmp_path / "docids.txt"
    path.write_text("\n".join(f"doc{i}" for i in range(10_000)))
    reads = []
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: reads.append(self) or real(self))
    d = DocIds.read(path)
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda i: d[i * 1000], range(10)))
    assert got == [f"doc{i * 1000}" for i in range(10)] and len(reads) == 1
