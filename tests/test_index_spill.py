"""Bounded-memory indexing: postings beyond the budget go to sorted runs on disk, merged at the end;
the index is the same, byte for byte, whatever the budget and the number of analysis workers."""
import filecmp
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import sounding.index.doctable as doctable
import sounding.index.chunks as chunks
import sounding.index.merge as merge
import sounding.index.writer as writer
from sounding.cli import main
from sounding.datasets import Document
from sounding.errors import DataError
from sounding.index import Index, build_index
from sounding.index.format import live_generation
from sounding.retrieval.search import Searcher


def _docs(n=3000, seed=0):
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(2500)]
    return [Document(f"d{i:05d}", " ".join(rng.choice(words) for _ in range(rng.randint(0, 4))),
                     " ".join(rng.choice(words) for _ in range(rng.randint(0, 50)))
                     + (" often" * 70_000 if i == 11 else ""), i + 1)  # one tf beyond uint16
            for i in range(n)]


def _same_index(a: Path, b: Path) -> None:
    ga, gb = live_generation(a), live_generation(b)
    names = sorted(p.name for p in ga.iterdir())
    assert names == sorted(p.name for p in gb.iterdir())
    for name in names:
        assert filecmp.cmp(ga / name, gb / name, shallow=False), name


def _digest(index: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(live_generation(index).iterdir()):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def _mixed_docs(n=1500, seed=3):
    """Ids out of byte order (non-ASCII among them), empty titles and texts, one tf beyond uint16."""
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(900)] + ["café", "naïve", "x" * 30]
    return [Document(f"d{rng.randint(0, 10**9)}" if i % 7 else f"D{i}\u00e9", " ".join(rng.choice(words) for _ in range(rng.randint(0, 4))),
                     " ".join(rng.choice(words) for _ in range(rng.randint(0, 40))) + (" often" * 70_000 if i == 11 else ""), i + 1)
            for i in range(n)]


# sha256 over the generation's file names and bytes, as the in-memory writer (before the per-document
# state was streamed to disk) wrote them for _mixed_docs(): the index format is the same whatever the build
# (format 3: the same files as format 2's but manifest.json, which carries its version and its own digest)
GOLDEN = {
    "raw": "dbf632a7cb985123e55ebd5870b126f862eb61c80881ce108f023b48238a9adc",
    "packed": "5a3ed87b2adcb37d85e3c753786407fb965b56ce2df1ba7de84a70b0891180be",
    "positions": "195f5950fbd7047d787de43b323e7083273d697490b8e16945c076b4e8206f29",
}


@pytest.mark.parametrize("options", ["raw", "packed", "positions"])
def test_index_bytes_are_the_in_memory_writers(tmp_path, monkeypatch, options):
    kw = {"raw": {}, "packed": {"postings": "packed"}, "positions": {"positions": True}}[options]
    monkeypatch.setattr(doctable, "ID_RUN", 200)  # many runs of ids, merged
    monkeypatch.setattr(doctable, "BLOCK", 64)
    monkeypatch.setattr(chunks, "ANALYZER_DOCS", 700)  # fresh analyzers on the way
    build_index(_mixed_docs(), tmp_path / "spilled", workers=1, memory=30_000, **kw)
    assert _digest(tmp_path / "spilled") == GOLDEN[options]


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("positions", [False, True])
def test_tiny_budget_spills_many_runs_and_gives_the_same_bytes(tmp_path, monkeypatch, workers, positions):
    docs = _docs()
    build_index(docs, tmp_path / "memory", workers=1, positions=positions)
    runs = []  # per run written: does it hold positions?
    spill = merge.spill
    monkeypatch.setattr(writer, "spill", lambda held, run, rank: runs.append((spill(held, run, rank) / "flat-pos.npy").is_file()) or run)
    monkeypatch.setattr(merge, "MERGE_POSTINGS", 5_000)  # many merge steps too
    build_index(docs, tmp_path / "spilled", workers=workers, memory=50_000, positions=positions)
    assert len(runs) >= 5 and set(runs) == {positions}  # one run per 500-document chunk here
    _same_index(tmp_path / "memory", tmp_path / "spilled")
    assert not list(live_generation(tmp_path / "spilled").glob("run-*"))  # runs are gone once merged
    q = {"a": "w1 w2 often", "b": "w17"}
    assert Searcher(tmp_path / "spilled").search(q).to_run() == Searcher(tmp_path / "memory").search(q).to_run()


def test_repeated_id_across_runs_of_ids_names_the_earliest_repeat(tmp_path, monkeypatch):
    monkeypatch.setattr(doctable, "ID_RUN", 100)
    docs = [Document(f"d{i}", "", f"w{i % 13}", 10 + i) for i in range(1000)]
    docs[700] = Document("d5", "", "w1", 710)  # repeats d5 (line 15), in another run of ids
    docs[900] = Document("d650", "", "w1", 910)  # a later repeat
    docs[820] = Document("d811", "", "w1", 830)  # within one run, but after the first repeat
    with pytest.raises(DataError, match=r"c.jsonl:710: duplicate document id 'd5' \(first on line 15\)"):
        build_index(docs, tmp_path / "ix", source="c.jsonl", workers=1)
    assert not list((tmp_path / "ix").glob("gen-*"))


def test_build_memory_does_not_grow_with_the_documents(tmp_path, monkeypatch):
    """Python's allocations (numpy's included) peak at the same height for 4x the documents, given a fixed
    vocabulary: nothing is held per document (the in-memory writer grew by ~400 B a document)."""
    import tracemalloc

    monkeypatch.setattr(doctable, "ID_RUN", 1000)
    monkeypatch.setattr(doctable, "BLOCK", 1024)  # the merge of id runs reads ahead ~1,024 ids in all, however many runs
    monkeypatch.setattr(chunks, "ANALYZER_DOCS", 2000)
    words = [f"w{i}" for i in range(3000)]

    def docs(n):
        rng = random.Random(0)
        for i in range(n):
            yield Document(f"doc-{i:07d}", " ".join(rng.choices(words, k=3)), " ".join(rng.choices(words, k=30)), i + 1)

    build_index(docs(2000), tmp_path / "warm", workers=1, memory=1_000_000)  # compiled kernels, imports: not measured
    peaks = []
    for n in (4000, 16000):
        tracemalloc.start()
        try:
            build_index(docs(n), tmp_path / f"ix{n}", workers=1, memory=1_000_000)  # a few runs
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    assert Index(tmp_path / "ix16000").n_docs == 16000
    assert peaks[1] - peaks[0] < 400_000, peaks  # 12,000 more documents: < 35 B each


def test_budget_is_checked_and_the_cli_flag(tmp_path, capsys):
    from sounding.errors import SoundingError

    with pytest.raises(SoundingError, match="memory budget"):
        build_index(_docs(10), tmp_path / "ix", memory=0)
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"_id": d.id, "title": d.title, "text": d.text}) + "\n" for d in _docs(300)))
    assert main(["index", str(corpus), "--out", str(tmp_path / "a"), "--memory", "0.00002"]) == 0
    assert main(["index", str(corpus), "--out", str(tmp_path / "b")]) == 0
    _same_index(tmp_path / "a", tmp_path / "b")
    assert main(["index", str(corpus), "--out", str(tmp_path / "c"), "--memory", "-1"]) == 2
    assert "--memory (GiB) must be" in capsys.readouterr().err


def test_kill_during_spill_or_merge_keeps_the_previous_index(tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"_id": f"d{i}", "title": "t", "text": f"alpha w{i} beta w{i % 97} " * 30}) + "\n"
                              for i in range(40_000)))
    small = tmp_path / "s.jsonl"
    small.write_text('{"_id": "x", "title": "t", "text": "alpha"}\n')
    assert main(["index", str(small), "--out", str(tmp_path / "ix")]) == 0
    for delay in (3, 6):  # mid-build: spilling runs, or merging them
        p = subprocess.Popen([sys.executable, "-m", "sounding", "index", str(corpus), "--out", str(tmp_path / "ix"),
                              "--workers", "1", "--memory", "0.002"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(delay)
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        n = Index(tmp_path / "ix").n_docs
        assert n in (1, 40_000)  # the old generation, or (if the build won the race) the new one whole
    assert main(["index", str(small), "--out", str(tmp_path / "ix")]) == 0
    left = [p for p in (tmp_path / "ix").rglob("*") if "partial" in p.name or p.name.startswith("run-")]
    assert not left
