"""Bounded-memory indexing: postings beyond the budget go to sorted runs on disk, merged at the end;
the index is the same, byte for byte, whatever the budget and the number of analysis workers."""
import filecmp
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import sounding.index.writer as writer
from sounding.cli import main
from sounding.datasets import Document
from sounding.index import Index, build_index
from sounding.index.format import live_generation
from sounding.search import Searcher


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


@pytest.mark.parametrize("workers", [1, 2])
def test_tiny_budget_spills_many_runs_and_gives_the_same_bytes(tmp_path, monkeypatch, workers):
    docs = _docs()
    build_index(docs, tmp_path / "memory", workers=1)
    runs = []
    spill = writer._spill
    monkeypatch.setattr(writer, "_spill", lambda chunks, run: runs.append(run) or spill(chunks, run))
    monkeypatch.setattr(writer, "MERGE_POSTINGS", 5_000)  # many merge steps too
    build_index(docs, tmp_path / "spilled", workers=workers, memory=50_000)
    assert len(runs) >= 5  # one per 500-document chunk here
    _same_index(tmp_path / "memory", tmp_path / "spilled")
    assert not list(live_generation(tmp_path / "spilled").glob("run-*"))  # runs are gone once merged
    q = {"a": "w1 w2 often", "b": "w17"}
    assert Searcher(tmp_path / "spilled").search(q).to_run() == Searcher(tmp_path / "memory").search(q).to_run()


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
