"""The real data in ../shared/datasets: counts equal PINS.tsv COUNTS rows and the registry.

Skips (with the reason) when the shared data is absent.
"""
import pytest

from sounding.cli import main
from sounding.datasets import check_counts, count, get_info, load_dataset, load_qrels

LANGS = ["ar", "bn", "en", "fi", "id", "ja", "ko", "ru", "sw", "te", "th"]


@pytest.fixture(scope="module")
def pins(shared_data):
    rows = {}
    for line in (shared_data / "PINS.tsv").read_text().splitlines():
        parts = line.split("\t")
        if len(parts) >= 4 and parts[1] == "COUNTS":
            rows[parts[0]] = dict(kv.split("=", 1) for kv in parts[3].split(";"))
    return rows


@pytest.mark.realdata
@pytest.mark.parametrize("name", ["scifact", "nfcorpus", "arguana"])
def test_beir_counts_match_pins_and_registry(name, beir_dir, pins):
    root = beir_dir(name)
    pin, info = pins[f"beir/{name}"], get_info(name)
    found = count(root, info)
    assert found["docs"] == int(pin["docs"]) == info.docs
    assert found["test_queries"] == int(pin["judged_test_queries"]) == info.test_queries
    assert found["test_qrels"] == int(pin["test_qrels_lines"]) == info.test_qrels
    assert check_counts(root, info) == []
    ds = load_dataset(root)
    assert len(ds.queries) == info.test_queries and ds.name == name and ds.corpus_path is not None


@pytest.mark.realdata
@pytest.mark.parametrize("name", ["scifact", "arguana"])
def test_crlf_qrels_parse(name, beir_dir):
    path = beir_dir(name) / "qrels" / "test.tsv"
    assert b"\r\n" in path.read_bytes()[:200]  # the file really is CRLF
    qrels = load_qrels(path)
    assert all("\r" not in q and all("\r" not in d for d in docs) for q, docs in qrels.items())
    assert {g for docs in qrels.values() for g in docs.values()} == {1}


@pytest.mark.realdata
@pytest.mark.parametrize("lang", LANGS)
def test_every_mrtydi_language_loads_with_pinned_counts(lang, shared_data, pins):
    root = shared_data / "mrtydi" / lang
    if not root.is_dir():
        pytest.skip(f"Mr. TyDi {lang} not in {shared_data}")
    pin, info = pins[f"mrtydi/{lang}"], get_info(f"mrtydi-{lang}")
    test, dev = load_dataset(root), load_dataset(root, split="dev")
    assert test.language == lang and test.name == f"mrtydi-{lang}"
    assert len(test.queries) == int(pin["judged_test_queries"]) == info.test_queries
    assert sum(len(d) for d in test.qrels.values()) <= int(pin["test_qrels_lines"])
    assert len(dev.queries) == int(pin["dev_judged_queries"]) == info.splits["dev"].queries
    found = count(root, info)
    assert found["test_qrels"] == int(pin["test_qrels_lines"]) == info.test_qrels
    assert found["dev_qrels"] == int(pin["dev_qrels_lines"]) == info.splits["dev"].qrels
    assert check_counts(root, info) == []


@pytest.mark.realdata
def test_shared_layout_through_data_dir_and_cli(shared_data, capsys):
    ds = load_dataset("mrtydi-sw", data_dir=shared_data)
    assert ds.root == shared_data / "mrtydi" / "sw"
    assert main(["check-data", "mrtydi-te", "--data-dir", str(shared_data)]) == 0
    out = capsys.readouterr().out
    assert "test queries" in out and "MISMATCH" not in out
