"""benchmarks/synthetic.py: the NQ-shaped synthetic corpus is deterministic, well-formed and meaningful."""
import gzip
import hashlib
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import synthetic  # noqa: E402

from sounding.analysis import get_analyzer  # noqa: E402
from sounding.datasets import iter_corpus, load_dataset  # noqa: E402

SCALE = 0.001  # 2,681 documents, 134 queries


def _digests(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("synthetic")
    stats = synthetic.generate(out, SCALE, seed=7)
    return out, stats


def test_same_arguments_give_identical_bytes(corpus, tmp_path):
    out, _ = corpus
    synthetic.generate(tmp_path / "again", SCALE, seed=7)
    assert _digests(tmp_path / "again") == _digests(out)
    assert set(_digests(out)) == {"corpus.jsonl.gz", "queries.jsonl", "qrels/test.tsv", "synthetic.json"}


def test_another_seed_differs(corpus, tmp_path):
    out, _ = corpus
    synthetic.generate(tmp_path / "other", SCALE, seed=8)
    assert _digests(tmp_path / "other")["corpus.jsonl.gz"] != _digests(out)["corpus.jsonl.gz"]


def test_counts(corpus):
    out, stats = corpus
    n_docs = round(synthetic.NQ_DOCS * SCALE)
    assert stats["n_docs"] == n_docs == sum(1 for _ in iter_corpus(out / "corpus.jsonl.gz"))
    assert stats["n_queries"] == min(synthetic.NQ_QUERIES, n_docs // 20) == 134
    ds = load_dataset(out)
    assert len(ds.queries) == stats["n_queries"]
    assert sum(len(v) for v in ds.qrels.values()) == stats["n_qrels"]
    assert 1.0 <= stats["relevant_per_query"] <= 1.5          # NQ: 1.2
    assert 70 <= stats["words_per_doc"] <= 90                 # NQ: 78.88 (BEIR)
    assert 7 <= stats["words_per_query"] <= 12                # NQ: 9.16
    assert json.loads((out / "synthetic.json").read_text())["synthetic"] is True
    assert synthetic.n_queries_for(synthetic.NQ_DOCS) == 3452 and synthetic.n_docs_for(1.0) == 2_681_468


def test_qrels_docids_exist_and_share_terms_with_their_query(corpus):
    out, _ = corpus
    ds = load_dataset(out)
    docs = {d.id: d for d in iter_corpus(ds.corpus_path)}
    analyze = get_analyzer("english-lucene")
    for qid, rels in ds.qrels.items():
        q_terms = set(analyze(ds.queries[qid]))
        for docid in rels:
            assert docid in docs, f"{qid}: relevant {docid} is not in the corpus"
            d = docs[docid]
            assert q_terms & set(analyze(d.title + " " + d.text)), f"{qid} shares no term with {docid}"


def test_documents_are_beir_json_lines(corpus):
    out, _ = corpus
    with gzip.open(out / "corpus.jsonl.gz", "rt", encoding="utf-8") as f:
        first = json.loads(f.readline())
    assert set(first) == {"_id", "title", "text"} and first["_id"] == "doc0"
    assert first["title"] and first["text"].endswith(".")
    assert (out / "qrels" / "test.tsv").read_text().startswith("query-id\tcorpus-id\tscore\n")


def test_pseudo_words_are_never_stop_words():
    words = synthetic._pseudo_words(20_000, synthetic._rng(0, 1))
    assert len(set(words)) == len(words) == 20_000
    forms = {w + s for w in words for s in synthetic.SUFFIXES}
    stops = set(synthetic.EXCLUDE)
    for name in ("english-lucene", "english-snowball"):
        stops |= set(getattr(get_analyzer(name), "stop_words", ()))
    try:
        from bm25s.stopwords import STOPWORDS_EN

        stops |= set(STOPWORDS_EN)
    except ImportError:
        pass
    assert not forms & stops


def test_language_corpus_is_deterministic_and_of_the_language(tmp_path):
    import language_build

    words = ["Москва", "столица", "России", "и", "река", "Волга", "книги", "1812", "города", "Когда"]
    a = language_build.generate(words, tmp_path / "a", docs=300, seed=3)
    b = language_build.generate(words, tmp_path / "b", docs=300, seed=3)
    assert a == b and _digests(tmp_path / "a") == _digests(tmp_path / "b")
    assert a["vocabulary"] == int(language_build.HEAPS_K * a["tokens"] ** language_build.HEAPS_BETA)
    docs = list(iter_corpus(tmp_path / "a" / "corpus.jsonl.gz"))
    assert [d.id for d in docs] == [f"doc{i}" for i in range(300)]
    text = " ".join(d.title + " " + d.text for d in docs)
    assert sum(len(d.title.split()) + len(d.text.split()) for d in docs) == a["tokens"]
    assert set(text) <= set("".join(words) + " ,.")  # pseudo-words are pieces of the language's words
    language_build.generate(words, tmp_path / "c", docs=300, seed=4)
    assert _digests(tmp_path / "c") != _digests(tmp_path / "a")
