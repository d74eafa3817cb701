"""Published baselines as data: spot values against docs/baselines.md, sources, and the row → condition mapping."""
import re
from pathlib import Path

import pytest

from sounding.errors import SoundingError
from sounding.eval import parse_measure
from sounding.experiment.baselines import all_baselines, baseline_for_row, conditions, published

BASELINES_MD = Path(__file__).resolve().parents[1] / "docs" / "baselines.md"


@pytest.mark.parametrize("dataset, condition, split, measure, value", [
    ("scifact", "bm25-flat", None, "nDCG@10", 0.6789),
    ("scifact", "bm25-flat", None, "R@100", 0.9253),
    ("scifact", "bm25-flat", None, "R@1000", 0.9767),
    ("arguana", "bm25-multifield", None, "nDCG@10", 0.4142),
    ("nfcorpus", "bm25-multifield", None, "R@100", 0.2500),
    ("cqadupstack-wordpress", "bm25-flat", None, "R@1000", 0.7552),
    ("fiqa", "bm25-multifield", None, "nDCG@10", 0.2361),
    ("arguana", "splade-pp-ed", None, "nDCG@10", 0.5265),
    ("trec-covid", "contriever", None, "R@100", 0.0368),
    ("quora", "contriever-msmarco", None, "nDCG@10", 0.8648),
    ("nfcorpus", "bge-base-en-v1.5.faiss", None, "R@100", 0.3368),
    ("arguana", "bge-base-en-v1.5.lucene-flat", None, "nDCG@10", 0.6375),
    ("mrtydi-sw", "mrtydi-bm25", "test", "RR@100", 0.3893),
    ("mrtydi-sw", "mrtydi-bm25", None, "R@100", 0.7642),
    ("mrtydi-te", "mrtydi-bm25", "dev", "RR@100", 0.4269),
    ("mrtydi-th", "mrtydi-bm25", "train", "R@100", 0.8529),
    ("mrtydi-ko", "mrtydi-bm25", "test", "RR@100", 0.3040),
    ("mrtydi-ko", "mrtydi-bm25-cjk", "test", "RR@100", 0.2848),
    ("mrtydi-ko", "mrtydi-bm25-cjk", "train", "R@100", 0.6178),
    ("mrtydi-sw", "mrtydi-bm25-aca", None, "RR@100", 0.4257),
    ("mrtydi-te", "mrtydi-readme-bm25-default", None, "RR@100", 0.343),
    ("mrtydi-ko", "mrtydi-readme-bm25-tuned", None, "R@100", 0.797),
    ("mrtydi-sw", "mrtydi-readme-hybrid", None, "RR@100", 0.415),
    ("mrtydi-en", "mrtydi-readme-mdpr-nq", None, "R@100", 0.678),
    ("mrtydi-ar", "mrtydi-mdpr-tied-pft-msmarco", None, "RR@100", 0.4414),
    ("miracl-yo", "miracl-bm25", "dev", "nDCG@10", 0.4059),
    ("miracl-ko", "miracl-bm25-cjk", None, "R@100", 0.7831),
    ("scifact", "mteb-bge-small-en-v1.5", None, "nDCG@10", 0.71273),
    ("arguana", "mteb-e5-small-v2", None, "R@100", 0.9239),
    ("miracl-te", "mteb-multilingual-e5-small", "dev", "nDCG@10", 0.8131),
    ("mrtydi-ko", "mteb-multilingual-e5-small", "test", "RR@100", 0.5428),
])
def test_spot_values_from_baselines_md(dataset, condition, split, measure, value):
    entry = published(dataset, condition, split)
    assert entry is not None and entry[measure] == value
    assert entry["verified"] is True and entry["dataset"] == dataset and entry["condition"] == condition


def test_every_entry_has_source_split_and_measures_in_our_notation():
    entries = all_baselines(include_unverified=True)
    assert len(entries) > 250
    for e in entries:
        assert e["source"].strip() and e["title"].strip() and e["split"] in ("test", "dev", "train")
        for m in e["measures"]:
            assert str(parse_measure(m)) == m and isinstance(e[m], float)
    for name, meta in conditions().items():
        assert meta["source"].strip(), name


def test_table_sizes():
    flat = [e for e in all_baselines() if e["condition"] == "bm25-flat"]
    assert len(flat) == 29 and all(e["measures"] == ["nDCG@10", "R@100", "R@1000"] for e in flat)
    assert len([e for e in all_baselines() if e["condition"] == "bm25-multifield"]) == 29
    mrtydi = [e for e in all_baselines() if e["condition"] == "mrtydi-bm25"]
    assert len(mrtydi) == 33 and {e["split"] for e in mrtydi} == {"test", "dev", "train"}
    assert len([e for e in all_baselines() if e["condition"] == "miracl-bm25"]) == 18


def test_unverified_values_are_display_only():
    assert published("scifact", "beir-paper-bm25") is None  # [U]/[P]: never an oracle by default
    shown = published("scifact", "beir-paper-bm25", include_unverified=True)
    assert shown["nDCG@10"] == 0.665 and shown["verified"] is False
    assert all(e["verified"] for e in all_baselines())
    assert any(not e["verified"] for e in all_baselines(include_unverified=True))


def test_notes_flag_doubtful_values():
    assert "inconsistent" in published("mrtydi-ko", "mrtydi-readme-bm25-tuned")["note"]
    assert "external" in published("quora", "mteb-e5-small-v2")["note"]
    assert published("scifact", "bm25-flat")["note"] is None


def test_unknown_condition_and_missing_dataset():
    with pytest.raises(SoundingError, match="unknown baseline condition"):
        published("scifact", "bm25-flatt")
    assert published("msmarco", "bm25-flat") is None
    assert published("mrtydi-sw", "mrtydi-bm25", "validation") is None


def _row(**kw):
    return {"dataset": "scifact", "engine": "sounding", "arm": "bm25", "layout": "flat", "params": "anserini",
            "k1": 0.9, "b": 0.4, "lucene_norms": False, **kw}


def test_baseline_for_row_maps_anserini_bm25_only():
    assert baseline_for_row(_row())["condition"] == "bm25-flat"
    assert baseline_for_row(_row(lucene_norms=True))["nDCG@10"] == 0.6789
    assert baseline_for_row(_row(engine="pyserini", layout="multifield", dataset="arguana"))["nDCG@10"] == 0.4142
    assert baseline_for_row(_row(params="lucene", k1=1.2, b=0.75)) is None
    assert baseline_for_row(_row(layout="bm25f")) is None
    assert baseline_for_row(_row(layout="multifield-max")) is None
    assert baseline_for_row(_row(engine="bm25s")) is None
    assert baseline_for_row(_row(arm="dense")) is None
    assert baseline_for_row(_row(dataset="no-such-set")) is None


def test_baseline_for_row_mrtydi_and_miracl():
    assert baseline_for_row(_row(dataset="mrtydi-sw"))["RR@100"] == 0.3893
    assert baseline_for_row(_row(dataset="mrtydi-sw", split="dev"))["RR@100"] == 0.2693
    assert baseline_for_row(_row(dataset="mrtydi-sw", layout="multifield")) is None
    assert baseline_for_row(_row(dataset="mrtydi-ko"))["RR@100"] == 0.3040
    assert baseline_for_row(_row(dataset="mrtydi-ko", analyzer="korean-cjk"))["RR@100"] == 0.2848
    assert baseline_for_row(_row(dataset="miracl-sw"))["nDCG@10"] == 0.3826


def _md_table(heading: str) -> list[list[str]]:
    text = BASELINES_MD.read_text()
    lines = text[text.index(heading):].splitlines()[1:]
    rows = [ln for ln in lines[: next(i for i, ln in enumerate(lines) if ln.startswith("#"))] if ln.startswith("|")]
    return [[c.strip() for c in ln.strip("|").split("|")] for ln in rows[2:]]


def test_all_bm25_tables_match_baselines_md():
    """Every value of tables 1a (29 × 6) and 2b (11 × 6) equals the markdown, digit for digit."""
    for row in _md_table("### 1a."):
        flat, mf = published(row[0], "bm25-flat"), published(row[0], "bm25-multifield")
        assert [flat["nDCG@10"], flat["R@100"], flat["R@1000"], mf["nDCG@10"], mf["R@100"], mf["R@1000"]] == \
            [float(v) for v in row[1:7]], row[0]
    for row in _md_table("### 2b."):
        got = []
        for split in ("test", "dev", "train"):
            e = published(f"mrtydi-{row[0]}", "mrtydi-bm25", split)
            got += [e["RR@100"], e["R@100"]]
        assert got == [float(v) for v in row[2:8]], row[0]
    for row in _md_table("### 1b."):
        for cond, cell in zip(("splade-pp-ed", "contriever", "contriever-msmarco", "bge-base-en-v1.5.faiss"), row[1:]):
            e = published(row[0], cond)
            assert [e["nDCG@10"], e["R@100"]] == [float(v) for v in re.split(r"\s*/\s*", cell)], (row[0], cond)
