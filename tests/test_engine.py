"""BM25 engine: scores against a brute-force reference, layouts, Lucene norms, determinism, bad input."""
import math
import os
import signal
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sounding.analysis import get_analyzer
from sounding.datasets import Document
from sounding.errors import DataError, SoundingError
from sounding.index import FORMAT_VERSION, Index, build_index
from sounding.retrieval.search import Searcher
from sounding.retrieval.search.similarity import decode_norm, encode_norm

WORDS = ["alpha", "beta", "gamma", "delta", "cell", "cells", "protein", "the", "of", "virus", "tumor", "gene"]


def docs_from(texts):
    return [Document(f"d{i:03d}", t, x, i + 1) for i, (t, x) in enumerate(texts)]


def reference_scores(docs, query, *, layout, k1, b, title_weight=None):
    """Straight from docs/definitions.md's definitions, in float64, one document at a time."""
    analyze = get_analyzer()
    fields = {
        "title": [Counter(analyze(d.title)) for d in docs],
        "text": [Counter(analyze(d.text)) for d in docs],
    }
    fields["flat"] = [a + c for a, c in zip(fields["title"], fields["text"])]

    def field_score(f, i, term, count):
        col = fields[f]
        n_docs = sum(1 for c in col if sum(c.values()) > 0)
        df = sum(1 for c in col if term in c)
        tf = col[i][term]
        if not tf:  # (also covers a field no document has)
            return 0.0
        avg = sum(sum(c.values()) for c in col) / n_docs
        idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
        return count * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * sum(col[i].values()) / avg))

    q = Counter(analyze(query))
    out = {}
    for i, d in enumerate(docs):
        if layout == "flat":
            s = sum(field_score("flat", i, t, c) for t, c in q.items())
        elif layout == "multifield":
            s = sum(field_score(f, i, t, c) for f in ("title", "text") for t, c in q.items())
        elif layout == "multifield-max":
            s = max(sum(field_score(f, i, t, c) for t, c in q.items()) for f in ("title", "text"))
        else:  # bm25f
            w = {"title": 3.0 if title_weight is None else title_weight, "text": 1.0}
            s = 0.0
            n_flat = sum(1 for c in fields["flat"] if sum(c.values()) > 0)
            for t, c in q.items():
                df = sum(1 for x in fields["flat"] if t in x)
                if not df:
                    continue
                idf = math.log(1 + (n_flat - df + 0.5) / (df + 0.5))
                x = 0.0
                for f in ("title", "text"):
                    col = fields[f]
                    nf = sum(1 for cc in col if sum(cc.values()) > 0)
                    if not col[i][t]:
                        continue
                    avg = sum(sum(cc.values()) for cc in col) / nf
                    x += w[f] * col[i][t] / (1 - b + b * sum(col[i].values()) / avg)
                s += c * idf * x * (k1 + 1) / (x + k1)
        if s > 0:
            out[d.id] = s
    return out


def ranked(scores, k):
    """trec_eval order on float32-rounded scores: score desc, then docid desc."""
    return sorted(((np.float32(s), d) for d, s in scores.items()), key=lambda x: (-x[0], tuple(-c for c in x[1].encode())))[:k]


text_st = st.lists(st.sampled_from(WORDS), min_size=0, max_size=12).map(" ".join)


@settings(max_examples=40, deadline=None)
@given(
    texts=st.lists(st.tuples(text_st, text_st), min_size=1, max_size=25),
    query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join),
    layout=st.sampled_from(["flat", "multifield", "multifield-max", "bm25f"]),
    params=st.sampled_from([(0.9, 0.4), (1.2, 0.75)]),
    k=st.sampled_from([1, 3, 1000]),
)
def test_scores_and_order_match_reference(tmp_path_factory, texts, query, layout, params, k):
    docs = docs_from(texts)
    path = tmp_path_factory.mktemp("ix")
    build_index(docs, path)
    res = Searcher(path).search({"q": query}, layout=layout, k1=params[0], b=params[1], k=k)
    got = res.hits(0)
    want = reference_scores(docs, query, layout=layout, k1=params[0], b=params[1])
    assert len(got) == min(k, len(want))
    for (docid, score) in got:
        assert score == pytest.approx(want[docid], rel=2e-6)
    # same order as trec_eval would give on these scores (ties by docid descending)
    assert [d for d, _ in got] == [d for _, d in ranked({d: s for d, s in got}, k)]
    # and the cut keeps the best documents
    if got:
        worst_kept = got[-1][1]
        assert all(np.float32(s) <= np.float32(worst_kept) * (1 + 1e-6) for d, s in want.items() if d not in dict(got))


def test_ties_break_by_docid_descending(tmp_path):
    docs = [Document(i, "", "virus gene", n) for n, i in enumerate(["a", "c", "b", "ab"], 1)]
    build_index(docs, tmp_path / "ix")
    hits = Searcher(tmp_path / "ix").search({"q": "virus"}, k=10).hits(0)
    assert [d for d, _ in hits] == ["c", "b", "ab", "a"]
    assert len({s for _, s in hits}) == 1


def test_repeated_query_term_counts_per_occurrence(tmp_path):
    docs = docs_from([("", "virus gene cell"), ("", "gene gene tumor"), ("", "protein")])
    build_index(docs, tmp_path / "ix")
    s = Searcher(tmp_path / "ix")
    once = dict(s.search({"q": "virus"}).hits(0))
    twice = dict(s.search({"q": "virus virus"}).hits(0))
    assert twice["d000"] == pytest.approx(2 * once["d000"], rel=1e-6)


def test_lucene_small_float_norms():
    # SmallFloat.intToByte4/byte4ToInt: lengths below 24 are exact, then 4 significant bits
    assert list(decode_norm(encode_norm(np.arange(24)))) == list(range(24))
    assert encode_norm(np.array([100]))[0] == 57 and decode_norm(np.array([57]))[0] == 96
    table = decode_norm(np.arange(256))
    assert np.all(np.diff(table) > 0)  # monotone
    x = np.arange(1, 5000)
    assert np.all(decode_norm(encode_norm(x)) <= x)  # truncates, never rounds up


def test_search_is_deterministic_across_threads_and_builds(tmp_path):
    rng = np.random.default_rng(7)
    texts = [(" ".join(rng.choice(WORDS, 3)), " ".join(rng.choice(WORDS, 30))) for _ in range(400)]
    docs = docs_from(texts)
    build_index(docs, tmp_path / "a")
    build_index(docs, tmp_path / "b")
    fa, fb = Index(tmp_path / "a").folder, Index(tmp_path / "b").folder
    for name in sorted(p.name for p in fa.iterdir()):
        assert (fa / name).read_bytes() == (fb / name).read_bytes(), name
    queries = {f"q{i}": " ".join(rng.choice(WORDS, 4)) for i in range(60)}
    from sounding.eval import write_run

    s = Searcher(tmp_path / "a")
    for layout in ("flat", "multifield", "multifield-max", "bm25f"):
        one = write_run(s.search(queries, layout=layout, threads=1).to_run(), tmp_path / f"{layout}1.trec").read_bytes()
        two = write_run(s.search(queries, layout=layout, threads=2).to_run(), tmp_path / f"{layout}2.trec").read_bytes()
        assert one == two and one


def test_stop_word_only_query_gives_empty_result(tmp_path):
    build_index(docs_from([("the title", "a virus of the cell")]), tmp_path / "ix")
    res = Searcher(tmp_path / "ix").search({"q1": "the of and", "q2": ""})
    assert res.to_run() == {"q1": {}, "q2": {}}


def test_own_hits_removed_on_request(tmp_path):
    docs = [Document("q1", "", "virus gene", 1), Document("x", "", "virus", 2)]
    build_index(docs, tmp_path / "ix")
    res = Searcher(tmp_path / "ix").search({"q1": "virus gene"})
    assert "q1" in res.to_run()["q1"] and "q1" not in res.to_run(remove_self_hits=True)["q1"]


def test_duplicate_document_id_names_id_and_line(tmp_path):
    docs = [Document("a", "", "virus", 1), Document("b", "", "gene", 2), Document("a", "", "cell", 3)]
    with pytest.raises(DataError, match=r"corpus.jsonl:3: duplicate document id 'a' \(first on line 1\)"):
        build_index(docs, tmp_path / "ix", source="corpus.jsonl")
    assert not (tmp_path / "ix" / "CURRENT").exists()
    assert not list((tmp_path / "ix").glob("gen-*"))  # nothing half-built left behind


def test_empty_documents_and_missing_titles_are_indexed_and_counted(tmp_path):
    docs = [Document("a", "", "virus", 1), Document("b", "", "", 2), Document("c", "Title", "the", 3)]
    report = build_index(docs, tmp_path / "ix")
    assert (report.n_docs, report.empty_docs, report.docs_without_title) == (3, 1, 2)
    ix = Index(tmp_path / "ix")
    assert ix.docids == ["a", "b", "c"]
    assert ix.manifest.field_stats["flat"].doc_count == 2  # Lucene's docCount: docs that have the field


def test_damaged_and_newer_indexes_give_clear_errors(tmp_path):
    build_index(docs_from([("", "virus gene")]), tmp_path / "ix")
    gen = Index(tmp_path / "ix").folder
    manifest = (gen / "manifest.json").read_text()
    (gen / "manifest.json").write_text(manifest.replace(f'"version": {FORMAT_VERSION}', '"version": 99'))
    with pytest.raises(SoundingError, match="newer than this Sounding"):
        Index(tmp_path / "ix")
    (gen / "manifest.json").write_text(manifest)
    data = bytearray((gen / "docs.npy").read_bytes())
    data[-1] ^= 0xFF
    (gen / "docs.npy").write_bytes(bytes(data))
    with pytest.raises(SoundingError, match="checksum of docs.npy"):
        Index(tmp_path / "ix")
    with pytest.raises(SoundingError, match="no such index"):
        Index(tmp_path / "nothing")


def test_killed_build_leaves_previous_index_usable(tmp_path):
    ix = tmp_path / "ix"
    build_index(docs_from([("", "virus gene"), ("", "cell")]), ix)
    before = Searcher(ix).search({"q": "virus"}).to_run()
    script = textwrap.dedent(f"""
        import os, signal
        from sounding.datasets import Document
        from sounding.index import build_index
        def docs():
            for i in range(10**9):
                if i == 30_000:
                    os.kill(os.getpid(), signal.SIGKILL)   # die mid-build, after a chunk was written
                yield Document(f"n{{i}}", "", "protein tumor " * 3, i + 1)
        build_index(docs(), {str(ix)!r})
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=300)
    assert proc.returncode == -signal.SIGKILL
    assert list(ix.glob("gen-*.partial-*"))  # the dead build's leftovers...
    assert Searcher(ix).search({"q": "virus"}).to_run() == before  # ...do not touch the live index
    build_index(docs_from([("", "tumor")]), ix)  # the next build cleans up and commits
    assert not list(ix.glob("gen-*.partial-*"))
    assert Searcher(ix).search({"q": "tumor"}).to_run()["q"] == {"d000": pytest.approx(0.2876821, rel=1e-5)}


def test_cli_index_and_search_bad_input(tmp_path, capsys):
    from sounding.cli import main

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_bytes(b'{"_id": "a", "title": "", "text": "virus"}\n{"_id": "b", "text": "bad \xff byte"}\n')
    assert main(["index", str(corpus), "--out", str(tmp_path / "ix")]) == 2
    err = capsys.readouterr().err
    assert "corpus.jsonl:2" in err and "Traceback" not in err
    corpus.write_text('{"_id": "a", "title": "T", "text": "virus gene"}\n{"_id": "b", "text": "gene"}\n')
    assert main(["index", str(corpus), "--out", str(tmp_path / "ix")]) == 0
    q = tmp_path / "q.tsv"
    q.write_text("q1\tvirus\nq2\tthe\n")
    assert main(["search", str(tmp_path / "ix"), "--queries", str(q), "--run", str(tmp_path / "r.trec")]) == 0
    lines = (tmp_path / "r.trec").read_text().splitlines()
    assert lines[0].split()[:4] == ["q1", "Q0", "a", "1"] and len(lines) == 1
    assert main(["search", str(tmp_path / "nope"), "--queries", str(q), "--run", str(tmp_path / "r2.trec")]) == 2
    assert "no such index" in capsys.readouterr().err


def test_index_bytes_do_not_depend_on_analysis_workers(tmp_path):
    # in a fresh process: this one may run other tests' threads, which keep the writer from forking
    script = textwrap.dedent(f"""
        import numpy as np
        from sounding.datasets import Document
        from sounding.index import build_index, chunks
        rng = np.random.default_rng(11)
        words = {WORDS!r}
        n = 4 * chunks.CHUNK_DOCS + 317  # several chunks, the last one partial
        docs = [Document(f"w{{i}}", " ".join(rng.choice(words, 2)), " ".join(rng.choice(words, 20)), i + 1)
                for i in range(n)]
        for workers in (1, 2):
            build_index(docs, {str(tmp_path)!r} + f"/w{{workers}}", positions=True, workers=workers)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    f1, f2 = Index(tmp_path / "w1").folder, Index(tmp_path / "w2").folder
    names = sorted(p.name for p in f1.iterdir())
    assert names == sorted(p.name for p in f2.iterdir()) and "positions.npy" in names
    for name in names:
        assert (f1 / name).read_bytes() == (f2 / name).read_bytes(), name
