"""Lucene/Pyserini parity on the real BEIR sets (BEIR convention, top 1000, k1 0.9, b 0.4).

Expected values: Pyserini 2CR (castorini/pyserini pyserini/2cr/beir.yaml), reproduced by Pyserini on
these very files (docs/peers.md). With `lucene_norms` (Lucene's norms and arithmetic) and `anserini_ties`
(Anserini's tie handling and Pyserini's run-file rounding) the runs are Pyserini's and must match to
the 4th decimal, R@1000 included; exact real-valued BM25 must stay close (tolerances below).
"""
import pytest

from sounding.datasets import iter_corpus, load_dataset
from sounding.eval import evaluate
from sounding.index import build_index
from sounding.retrieval.search import Searcher

PUBLISHED = {  # dataset: {layout: (nDCG@10, R@100, R@1000)}
    "scifact": {"flat": (0.6789, 0.9253, 0.9767), "multifield": (0.6647, 0.9076, 0.9800)},
    "nfcorpus": {"flat": (0.3218, 0.2457, 0.3704), "multifield": (0.3254, 0.2500, 0.3718)},
    "arguana": {"flat": (0.3970, 0.9324, 0.9872), "multifield": (0.4142, 0.9431, 0.9893)},
}
ARGUANA_RAW_FLAT = 0.2999


@pytest.fixture(scope="module")
def searchers(shared_data, tmp_path_factory):
    out = {}
    for name in PUBLISHED:
        ds = load_dataset(name, data_dir=shared_data)
        path = tmp_path_factory.mktemp(name)
        build_index(iter_corpus(ds.corpus_path), path)
        out[name] = (ds, Searcher(path))
    return out


def scores(searchers, name, layout, lucene_norms):
    ds, s = searchers[name]
    # lucene_norms with Anserini's tie handling is Pyserini's pipeline; without, exact real-valued BM25
    run = s.search(ds.queries, layout=layout, k1=0.9, b=0.4, k=1000, threads=2, lucene_norms=lucene_norms,
                   anserini_ties=lucene_norms).to_run()
    m = evaluate(ds.qrels, run, ["nDCG@10", "R@100", "R@1000"], remove_self_hits=True)
    raw = evaluate(ds.qrels, run, ["nDCG@10"])["nDCG@10"]
    return m["nDCG@10"], m["R@100"], raw, m["R@1000"]


@pytest.mark.realdata
@pytest.mark.parametrize("name,layout", [(n, l) for n in PUBLISHED for l in ("flat", "multifield")])
def test_lucene_norms_match_pyserini_to_four_decimals(searchers, name, layout):
    ndcg, recall, raw, recall1000 = scores(searchers, name, layout, lucene_norms=True)
    assert (round(ndcg, 4), round(recall, 4), round(recall1000, 4)) == PUBLISHED[name][layout]
    if (name, layout) == ("arguana", "flat"):
        assert round(raw, 4) == ARGUANA_RAW_FLAT


@pytest.mark.realdata
@pytest.mark.parametrize("name,layout", [(n, l) for n in PUBLISHED for l in ("flat", "multifield")])
def test_exact_bm25_close_to_pyserini(searchers, name, layout):
    ndcg, recall, _, _ = scores(searchers, name, layout, lucene_norms=False)
    want_ndcg, want_recall, _ = PUBLISHED[name][layout]
    # ArguAna's documents are long (about 170 terms), where Lucene's 4-bit length quantisation
    # moves nDCG@10 by about 0.003 (measured: flat 0.4003 exact vs 0.3970 quantised); elsewhere
    # exact BM25 stays within 0.002 of Lucene's numbers (R@100 on ArguAna: 0.0021).
    tolerance = 0.004 if name == "arguana" else 0.002
    assert abs(ndcg - want_ndcg) <= tolerance and abs(recall - want_recall) <= tolerance
