"""Run files written from arrays (runfile.RunWriter, Results.write_run, search_to_run, `sounding search`)
are byte for byte those of write_run(results.to_run()), for every layout and option."""
import gzip
import math
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from sounding.cli import main
from sounding.datasets import Document
from sounding.errors import SoundingError
from sounding.eval import read_run
from sounding.eval.runfile import (RunWriter, _digits9, _put_score, _value9, docid_byte_rank, sorted_rows,
                                   write_results)
from sounding.eval.trec import write_run
from sounding.index import build_index
from sounding.search import Results, Searcher
from sounding.search.stream import search_to_run

WORDS = ["alpha", "beta", "gamma", "delta", "cell", "protein", "virus", "tumor", "gene", "the"]


@pytest.fixture(scope="module")
def tie_index(tmp_path_factory):
    """Few words, short documents: many exactly tied scores. Some ids are non-ASCII, one equals a qid."""
    rng = np.random.default_rng(7)
    ids = [f"d{i:04d}" if i % 97 else f"dé{i}" for i in range(1200)]
    ids[5] = "q3"
    docs = [Document(d, " ".join(rng.choice(WORDS, 2)), " ".join(rng.choice(WORDS, int(rng.integers(1, 30)))), i + 1)
            for i, d in enumerate(ids)]
    path = tmp_path_factory.mktemp("runfile") / "ix"
    build_index(docs, path)
    queries = [(f"q{i}", " ".join(rng.choice(WORDS, int(rng.integers(1, 4))))) for i in range(60)]
    queries.append(("q-empty", "zzz"))
    return path, queries


def _same_bytes(results, tmp_path, **kw):
    write_run(results.to_run(remove_self_hits=kw.get("remove_self_hits", False)), tmp_path / "a.run",
              tag=kw.get("tag", "sounding"))
    results.write_run(tmp_path / "b.run", **kw)
    a, b = (tmp_path / "a.run").read_bytes(), (tmp_path / "b.run").read_bytes()
    assert a == b
    return a


@pytest.mark.parametrize("layout", ["flat", "multifield", "multifield-max", "bm25f"])
def test_results_write_run_is_write_run_byte_for_byte(tie_index, tmp_path, layout):
    path, queries = tie_index
    s = Searcher(path)
    for lucene in (False, True):
        if lucene and layout == "bm25f":
            continue
        for ties in (False, True):
            for threads in (1, 2):
                res = s.search(queries, layout=layout, lucene_norms=lucene, anserini_ties=ties, threads=threads, k=1000)
                for self_hits in (False, True):
                    text = _same_bytes(res, tmp_path, remove_self_hits=self_hits, tag="t1")
                    assert text.count(b"\n") == sum(len(h) for h in res.to_run(remove_self_hits=self_hits).values())
                    if self_hits:
                        assert b"\nq3 Q0 q3 " not in text


def test_search_to_run_streams_the_same_bytes(tie_index, tmp_path):
    path, queries = tie_index
    s = Searcher(path)
    for opts in ({}, {"anserini_ties": True, "lucene_norms": True}, {"layout": "bm25f", "threads": 2}):
        whole = s.search(queries, k=50, **opts)
        expected = whole.to_run(remove_self_hits=True)
        write_run(expected, tmp_path / "a.run", tag="x")
        for batch in (1, 7, 1000):
            stats = search_to_run(s, queries[::-1], tmp_path / "b.run", tag="x", remove_self_hits=True, batch=batch,
                                  k=50, **opts)
            assert (tmp_path / "b.run").read_bytes() == (tmp_path / "a.run").read_bytes()
            assert stats.lines == sum(map(len, expected.values())) and stats.queries == len(queries)
            assert sorted(stats.settings["empty_queries"]) == sorted(whole.settings["empty_queries"])
            assert "q-empty" in stats.empty_queries
        search_to_run(s, queries, tmp_path / "b.run.gz", tag="x", remove_self_hits=True, k=50, batch=7, **opts)
        write_run(expected, tmp_path / "a.run.gz", tag="x")
        assert (tmp_path / "b.run.gz").read_bytes() == (tmp_path / "a.run.gz").read_bytes()  # gzip bytes too
        assert gzip.decompress((tmp_path / "b.run.gz").read_bytes()) == (tmp_path / "a.run").read_bytes()
        assert read_run(tmp_path / "b.run.gz") == read_run(tmp_path / "a.run")


def test_search_to_run_formats_beside_a_slow_writer_the_same_bytes(tie_index, tmp_path, monkeypatch):
    """When the writer still formats the batch before, the searching thread formats the next one into the
    spare buffer and the writer writes the two in order: same bytes (gzip too, and with fallback queries)."""
    path, queries = tie_index
    s = Searcher(path)
    real_write, spare_calls = RunWriter.write, []
    real_format = RunWriter.format

    def slow_write(self, *a, **kw):  # the writer's own batches: slow, so the searching thread formats some
        time.sleep(0.03)
        return real_write(self, *a, **kw)

    def counted_format(self, *a, spare=False, **kw):
        if spare:
            spare_calls.append(threading.current_thread().name)
        return real_format(self, *a, spare=spare, **kw)

    monkeypatch.setattr(RunWriter, "write", slow_write)
    monkeypatch.setattr(RunWriter, "format", counted_format)
    for name, opts in (("b.run", {}), ("b.run.gz", {"anserini_ties": True, "lucene_norms": True})):
        expected = s.search(queries, k=50, **opts).to_run(remove_self_hits=True)
        write_run(expected, tmp_path / ("a" + name[1:]), tag="x")
        spare_calls.clear()
        stats = search_to_run(s, queries, tmp_path / name, tag="x", remove_self_hits=True, batch=3, k=50, **opts)
        assert (tmp_path / name).read_bytes() == (tmp_path / ("a" + name[1:])).read_bytes()
        assert stats.lines == sum(map(len, expected.values()))
        assert spare_calls and set(spare_calls) == {threading.main_thread().name}
    with RunWriter(tmp_path / "c.run", s.index.docids, s.rank) as w:  # emission checks the qid order
        res = s.search(queries[:4], k=5)
        later, earlier = w.format(res.qids[2:], res.docs[2:], res.scores[2:], res.counts[2:]), \
            w.format(res.qids[:2], res.docs[:2], res.scores[:2], res.counts[:2], spare=True)
        w.emit(later)
        with pytest.raises(ValueError, match="increasing qid order"):
            w.emit(earlier)


def test_cli_search_writes_the_same_run(tie_index, tmp_path):
    path, queries = tie_index
    qfile = tmp_path / "q.tsv"
    qfile.write_text("".join(f"{q}\t{t}\n" for q, t in queries))
    for extra in ([], ["--anserini-ties", "--lucene-norms", "--remove-self-hits"], ["--layout", "multifield", "--threads", "2"]):
        run = tmp_path / "cli.run.gz"
        assert main(["search", str(path), "-q", str(qfile), "--run", str(run), "--hits", "100", *extra]) == 0
        res = Searcher(path).search(queries, k=100, layout=extra[1] if extra[:1] == ["--layout"] else "flat",
                                    anserini_ties="--anserini-ties" in extra, lucene_norms="--lucene-norms" in extra)
        write_run(res.to_run(remove_self_hits="--remove-self-hits" in extra), tmp_path / "a.run")
        assert gzip.decompress(run.read_bytes()) == (tmp_path / "a.run").read_bytes()


def test_search_to_run_prepares_the_next_batch_ahead(tie_index, tmp_path):
    path, queries = tie_index
    s = Searcher(path)
    calls = []
    analyse = s.queries.analyse_batch

    def counted(texts, typos, typo_factor):
        if texts:  # (the options are checked with no query first)
            calls.append(threading.current_thread().name)
        return analyse(texts, typos, typo_factor)

    s.queries.analyse_batch = counted
    for opts in ({}, {"typos": True, "threads": 2}, {"layout": "bm25f", "typos": True, "typo_factor": 0.25}):
        calls.clear()
        write_run(Searcher(path).search(queries, k=50, **opts).to_run(), tmp_path / "a.run", tag="x")
        search_to_run(s, queries, tmp_path / "b.run", tag="x", batch=7, k=50, **opts)
        assert (tmp_path / "b.run").read_bytes() == (tmp_path / "a.run").read_bytes()
        batches = -(-len(queries) // 7)
        assert len(calls) == batches  # once each: the search found the batch analysed ahead
        assert sum(name.startswith("sounding-prepare") for name in calls) == batches - 1
    calls.clear()
    s.analyse(queries[:5], typos=True, typo_factor=0.25)
    assert s.search(queries[:5], k=10, typos=True, typo_factor=0.25).qids == [q for q, _ in queries[:5]]
    s.search(queries[:5], k=10)  # without typos: other matches, analysed again
    assert len(calls) == 2
    with pytest.raises(SoundingError, match="typo factor"):
        s.analyse(queries[:5], typos=True, typo_factor=2.0)


def test_cli_search_process_ends_when_the_run_is_written(tie_index, tmp_path):
    """Run as the program, `sounding search` ends the process once its run and summary are out (no
    interpreter teardown: atexit handlers do not run); a failed command exits the ordinary way."""
    path, queries = tie_index
    qfile = tmp_path / "q.tsv"
    qfile.write_text("".join(f"{q}\t{t}\n" for q, t in queries))
    program = ("import atexit, sys; atexit.register(lambda: print('teardown', file=sys.stderr)); "
               "from sounding.cli import main; sys.argv[0] = 'sounding'; sys.exit(main())")

    def sounding(*args):
        return subprocess.run([sys.executable, "-c", program, *map(str, args)], capture_output=True, text=True,
                              timeout=300)

    r = sounding("search", path, "-q", qfile, "--run", tmp_path / "cli.run", "--hits", "100")
    assert r.returncode == 0, r.stderr
    assert "lines written" in r.stderr and "teardown" not in r.stderr
    write_run(Searcher(path).search(queries, k=100).to_run(), tmp_path / "a.run")
    assert (tmp_path / "cli.run").read_bytes() == (tmp_path / "a.run").read_bytes()
    r = sounding("search", path, "-q", qfile, "--run", tmp_path / "bad.run", "--k1", "-1")
    assert r.returncode == 2 and "error:" in r.stderr and "teardown" in r.stderr
    assert main(["search", str(path), "-q", str(qfile), "--run", str(tmp_path / "in.run")]) == 0  # in process: returns


def _results(qids, hits, k=None):
    """Results from {qid: [(docid, score)]}, ids numbered as given."""
    docids = sorted({d for h in hits for d, _ in h})
    num = {d: i for i, d in enumerate(docids)}
    k = k or max(1, max(map(len, hits)))
    docs = np.full((len(qids), k), -1, np.int64)
    scores = np.zeros((len(qids), k), np.float64)
    for r, h in enumerate(hits):
        for j, (d, s) in enumerate(h):
            docs[r, j], scores[r, j] = num[d], s
    rank = np.arange(len(docids))  # sorted ids: byte order of ASCII ids
    return Results(list(qids), docs, scores, np.array([len(h) for h in hits]), docids, rank=rank)


def test_two_formatting_threads_write_the_same_bytes(tie_index, tmp_path):
    # small batches: every second one formatted in a second thread into the spare buffer, written in order
    path, queries = tie_index
    res = Searcher(path).search(queries, layout="multifield-max", k=1000)
    write_run(res.to_run(remove_self_hits=True), tmp_path / "a.run", tag="t")
    for batch in (1, 7, 60, 1000):
        for threads in (1, 2):
            write_results(res, tmp_path / "b.run", tag="t", remove_self_hits=True, batch=batch, threads=threads)
            assert (tmp_path / "b.run").read_bytes() == (tmp_path / "a.run").read_bytes(), (batch, threads)


def test_a_bad_id_in_the_second_thread_is_one_line_and_loses_nothing(tmp_path):
    qids = [f"q{i}" for i in range(6)]
    hits = [[("a", 2.0), ("b", 1.0)] for _ in qids]
    hits[3] = [("a b", 1.0)]  # the second batch of two: formatted in the second thread
    (tmp_path / "b.run").write_text("previous run\n")
    with pytest.raises(SoundingError, match="whitespace"):
        write_results(_results(qids, hits), tmp_path / "b.run", batch=2, threads=2)
    assert (tmp_path / "b.run").read_text() == "previous run\n" and not list(tmp_path.glob(".*tmp"))


def test_scores_order_and_repeated_qids(tmp_path):
    # unsorted hits, scores equal once written (.9g), exact decimal ties, zero and negative scores,
    # a qid twice (the last one counts, as in a dict), qids out of order
    hits = [
        [("a", 1.0000000001), ("b", 1.0000000004), ("c", 2.5), ("d", 0.0), ("e", -3e-7)],
        [("a", 123456.0625), ("b", 1e22), ("c", 9.999999995e-5), ("d", 1e-30), ("e", -0.0)],
        [("c", 1.0)],
        [("a", 12.5), ("b", 12.5), ("c", 1e9 + 0.5)],
        [("éa", 3.0), ("a", 2.0), ("ü", 1.0)],  # ids starting with a non-ASCII byte: Python formats the query
    ]
    res = _results(["z", "m", "z", "b", "y"], hits)
    _same_bytes(res, tmp_path)
    _same_bytes(res, tmp_path, remove_self_hits=True)
    assert list(sorted_rows(["z", "m", "z", "b"])) == [3, 1, 2]


def test_bad_ids_and_scores_are_one_line_errors(tmp_path):
    cases = [(["q"], [[("a b", 1.0)]], "whitespace"), (["q"], [[("a\xa0b", 1.0)]], "whitespace"),
             (["q x"], [[("a", 1.0)]], "whitespace"), ([""], [[("a", 1.0)]], "empty"),
             (["q"], [[("a", math.inf)]], "not finite"), (["q"], [[("a", math.nan)]], "not finite"),
             # the kernel checks an id's first byte apart from the rest (gathered ahead): at the start too
             (["q"], [[("ok", 2.0), ("\x1cb", 1.0)]], "whitespace"), (["q"], [[("\xa0b", 1.0)]], "whitespace")]
    for qids, hits, why in cases:
        res = _results(qids, hits)
        with pytest.raises(SoundingError, match=why):
            write_run(res.to_run(), tmp_path / "a.run")
        with pytest.raises(SoundingError, match=why):
            res.write_run(tmp_path / "b.run")
        assert not (tmp_path / "b.run").exists() and not list(tmp_path.glob(".*tmp"))
    with pytest.raises(SoundingError, match="one word"):
        _results(["q"], [[("a", 1.0)]]).write_run(tmp_path / "b.run", tag="two words")


def test_run_writer_reads_the_ids_when_first_needed(tmp_path):
    res = _results(["a", "b"], [[("x", 1.0), ("y", 0.5)], [("y", 2.0)]])
    asked = []

    def ids():
        asked.append(threading.current_thread().name)
        return res.docids

    with RunWriter(tmp_path / "b.run", ids, docid_byte_rank(res)) as w:
        assert not asked
        w.write(res.qids, res.docs, res.scores, res.counts)
        w.write(["c"], res.docs[:1], res.scores[:1], res.counts[:1])
    assert asked == [threading.current_thread().name]  # once, by the first write's thread
    write_run({**res.to_run(), "c": res.to_run()["a"]}, tmp_path / "a.run")
    assert (tmp_path / "b.run").read_bytes() == (tmp_path / "a.run").read_bytes()


def test_run_writer_warm_up_writes_nothing(tmp_path):
    """`warm` loads the formatter (reported as set-up by search_to_run, not as writing): no line, no
    effect on the qid order, and the run's bytes are the same."""
    res = _results(["a", "b"], [[("x", 1.0), ("y", 0.5)], [("y", 2.0)]])
    with RunWriter(tmp_path / "warm.run", res.docids, docid_byte_rank(res)) as w:
        assert w.warm() >= 0.0 and w.lines == 0 and w.bytes == 0
        w.write(res.qids, res.docs, res.scores, res.counts)
    write_run(res.to_run(), tmp_path / "a.run")
    assert (tmp_path / "warm.run").read_bytes() == (tmp_path / "a.run").read_bytes()


def test_nine_digit_formatting_equals_python():
    rng = np.random.default_rng(0)
    values = [*(rng.random(20000).astype(np.float32) * 40), *((1 + rng.random(2000)) * 10.0 ** rng.integers(-12, 20, 2000)),
              *(np.float32(m) * np.float32(2.0**-k) for m in rng.integers(1, 2**24, 3000) for k in (4, 8, 12)),
              123456.0625, 8388607.5, 1e-5, 99999999.95, 999999999.5, 1.0, 1e-4, 123456789012.0]
    out, scratch = np.zeros(40, np.uint8), np.zeros(9, np.uint8)
    for v in map(float, values):
        n, e, ok = _digits9(v, 0)
        assert ok
        o = _put_score(out, 0, n, e, v < 0, False, False, scratch)
        assert out[:o].tobytes().decode() == f"{v:.9g}"
        assert _value9(n, e, v < 0) == float(f"{v:.9g}")
