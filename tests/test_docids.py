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
