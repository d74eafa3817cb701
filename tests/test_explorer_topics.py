"""What the run explorer shows of a dataset (sounding.report.explorer.topics): the words marked are those
whose analysed terms are query terms, at the right characters; snippets hold the best window; ids that need
JSON escapes are found; a large query set is sampled evenly."""
from __future__ import annotations

import json
from pathlib import Path

from sounding.report.explorer import topics as T

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / "tests" / "fixtures" / "tiny-beir"


def test_marks_are_the_words_the_index_matches(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    long_text = "Filler words here. " * 40 + "Viruses replicate in host cells, (replication!) fast. " + "More filler. " * 40
    docs = [{"_id": "a", "title": "Replicating viruses", "text": long_text},
            {"_id": 'we"ird', "title": "Cells", "text": "cell cells CELL"},
            {"_id": "unused", "title": "x", "text": "y"}]
    corpus.write_text("".join(json.dumps(d) + "\n" for d in docs))
    queries = {"q1": "how do viruses replicate", "q2": "cells"}
    qrels = {"q1": {"a": 1}, "q2": {'we"ird': 2}}
    got = T.build_topics(queries, qrels, corpus, "english-lucene", [{"q1": ["a"], "q2": ['we"ird', "a"]}])
    terms = got["terms"]
    assert set(got["docs"]) == {"a", 'we"ird'}  # the escaped id found, the unused document never parsed
    title, title_marks, snippet, marks = got["docs"]["a"]

    def words(text, spans):
        return [(text[a:z], sorted(terms[i] for i in ids)) for a, z, *ids in spans]

    assert words(title, title_marks) == [("Replicating", ["replic"]), ("viruses", ["virus"])]
    shown = words(snippet, marks)
    # the window with the most matches of q1 and q2: the sentence in the middle, punctuation left unmarked
    assert ("replicate", ["replic"]) in shown and ("replication", ["replic"]) in shown and ("cells", ["cell"]) in shown
    assert snippet.startswith("… ") and snippet.endswith(" …") and len(snippet) <= T.SNIPPET + 4
    assert got["queries"]["q2"] == ["cells", [terms.index("cell")]]
    assert words(*got["docs"]['we"ird'][2:]) == [("cell", ["cell"]), ("cells", ["cell"]), ("CELL", ["cell"])]


def test_a_large_query_set_is_sampled_evenly():
    qids = [f"q{i:05d}" for i in range(T.MAX_QUERIES * 3 + 1)]
    kept = T.explored(qids)
    assert len(kept) == T.MAX_QUERIES and kept[0] == qids[0] and kept == sorted(kept)
    assert T.explored(qids[:10]) == qids[:10]


def test_topics_files_round_trip_and_reject_other_formats(tmp_path):
    from sounding.datasets import load_dataset

    ds = load_dataset(str(TINY))
    path = T.write_topics(tmp_path, ds, "english-lucene", [{"q1": ["d1", "d5"]}], key="k")
    data = T.read_topics(tmp_path, ds.name)
    assert data["key"] == "k" and set(data["docs"]) >= {"d1", "d5"} and path == T.topics_path(tmp_path, ds.name)
    path.write_text(json.dumps({"format": 99}))
    assert T.read_topics(tmp_path, ds.name) is None
    path.write_text("{")
    assert T.read_topics(tmp_path, ds.name) is None
