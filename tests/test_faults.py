"""Faults a user or the machine can cause: bad parameters, OS errors on outputs, two writers at
once, kill -9 mid-write, untrusted data. Each case asserts the exit code, a one-line message with
no traceback, and that the previous good state is intact with no temp files left over."""
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import pytest

from sounding.cli import main
from sounding.datasets import Document
from sounding.errors import SoundingError
from sounding.index import Index, build_index
from sounding.io import writer_lock
from sounding.retrieval.search import Searcher

WORDS = "alpha beta gamma delta cell protein virus tumor gene kinase receptor membrane".split()


def _docs(n=60):
    return [Document(f"d{i:03d}", WORDS[i % 7], " ".join(WORDS[(i * j) % len(WORDS)] for j in range(1, 2 + i % 9)), i + 1)
            for i in range(n)]


def _queries(path: Path, extra: dict | None = None) -> Path:
    qs = {"q1": "alpha cell", "q2": "virus gene kinase", "q3": "membrane", **(extra or {})}
    path.write_text("".join(f"{q}\t{t}\n" for q, t in qs.items()))
    return path


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("faults")
    build_index(_docs(), root / "ix", workers=1)
    return root / "ix", _queries(root / "q.tsv")


def run_cli(*args, env=None, timeout=120):
    """The CLI in a fresh process, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "sounding", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def one_line_error(stderr: str, *needles: str) -> None:
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    text = " ".join(lines)
    assert "Traceback" not in stderr, stderr
    assert text.startswith("error:"), stderr
    for n in needles:
        assert n in text, (n, stderr)


def no_temp_files(root: Path) -> None:
    left = [p for p in root.rglob("*") if ".tmp" in p.name or ".partial-" in p.name or "probe" in p.name]
    assert not left, left


# -- bad parameters: refused before any kernel runs, at the API and in the CLI ------------------------------------
BAD = [("--k1", "-1", "k1 must be ≥ 0"), ("--b", "-0.5", "b must be in [0, 1]"), ("--k1", "inf", "k1 must be a finite"),
       ("--b", "2", "b must be in [0, 1]"), ("--k1", "nan", "k1 must be a finite"), ("--hits", "0", "at least 1"),
       ("--threads", "0", "threads must be at least 1"), ("--proximity", "nan", "proximity weight")]


@pytest.mark.parametrize("flag,value,message", BAD)
def test_bad_search_parameters_one_line_and_no_run_file(tiny, tmp_path, capsys, flag, value, message):
    ix, q = tiny
    run = tmp_path / "r.trec"
    assert main(["search", str(ix), "-q", str(q), "--run", str(run), flag, value]) == 2
    one_line_error(capsys.readouterr().err, message)
    assert not run.exists()


def test_bad_parameters_in_fresh_processes_at_two_threads(tiny, tmp_path):
    """The cases that hung or crashed the kernels: exit 2 within seconds, no crash signal."""
    ix, q = tiny
    for flag, value, message in BAD[:4]:
        t0 = time.monotonic()
        r = run_cli("search", ix, "-q", q, "--run", tmp_path / "r.trec", "--threads", "2", flag, value, timeout=60)
        assert r.returncode == 2 and time.monotonic() - t0 < 60, (flag, value, r)
        one_line_error(r.stderr, message)


def test_bad_parameters_at_the_api(tiny):
    ix, _ = tiny
    s = Searcher(ix)
    for kw in ({"k1": -1}, {"b": -0.5}, {"k1": float("inf")}, {"b": 2}, {"k": 0}, {"threads": 0}, {"k1": "0.9"},
               {"title_weight": -1, "layout": "multifield"}, {"proximity": float("nan")}, {"k": 2.5}):
        with pytest.raises(SoundingError):
            s.search({"q": "alpha"}, **kw)


def test_huge_hits_capped_at_the_collection_and_said_once(tiny, tmp_path, capsys):
    ix, q = tiny
    run = tmp_path / "r.trec"
    assert main(["search", str(ix), "-q", str(q), "--run", str(run), "--hits", "10000000"]) == 0
    err = capsys.readouterr().err
    assert err.count("10,000,000 hits asked for") == 1 and "60 documents" in err
    per_q = {}
    for line in run.read_text().splitlines():
        per_q[line.split()[0]] = per_q.get(line.split()[0], 0) + 1
    assert max(per_q.values()) <= 60
    assert Searcher(ix).search({"q": "alpha"}, k=10**9).docs.shape[1] == 60


def test_sounding_run_with_huge_hits_finishes_and_says_so(tmp_path):
    ds = mini_dataset(tmp_path / "ds", n_docs=40)
    r = run_cli("run", ds, "--out", tmp_path / "out", "--layouts", "flat", "--params", "anserini", "--hits",
                  "10000000", "--threads", "2", timeout=300)
    assert r.returncode == 0, r.stderr
    assert "10,000,000 hits asked for, but it has 40 documents" in r.stdout + r.stderr
    rows = json.loads((tmp_path / "out" / "results.json").read_text())
    run = (tmp_path / "out" / rows[0]["run_file"]).read_text().splitlines()
    assert len(rows) == 2 and max(int(line.split()[3]) for line in run) <= 40


def test_queries_that_analyse_to_nothing_are_counted(tiny, tmp_path, capsys):
    ix, _ = tiny
    q = _queries(tmp_path / "q.tsv", {"q4": "the of and", "q5": "😀🎉", "q6": "zzzunknown"})
    assert main(["search", str(ix), "-q", str(q), "--run", str(tmp_path / "r.trec")]) == 0
    err = capsys.readouterr().err
    assert "3 of 6 queries analyse to no indexed term" in err and "q4" in err
    res = Searcher(ix).search({"a": "the", "b": "alpha"})
    assert res.settings["empty_queries"] == ["a"]


# -- OS errors on outputs: one line naming the path, before the work ------------------------------------------------
def test_run_file_under_a_regular_file(tiny, tmp_path, capsys):
    ix, q = tiny
    (tmp_path / "file").write_text("x")
    assert main(["search", str(ix), "-q", str(q), "--run", str(tmp_path / "file" / "r.trec")]) == 2
    one_line_error(capsys.readouterr().err, str(tmp_path / "file"), "is a file, not a folder")


def test_index_and_run_out_under_a_regular_file(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"_id": d.id, "title": d.title, "text": d.text}) + "\n" for d in _docs(5)))
    assert main(["index", str(corpus), "--out", str(tmp_path / "file" / "ix")]) == 2
    one_line_error(capsys.readouterr().err, "is a file, not a folder")
    assert main(["run", str(corpus), "--out", str(tmp_path / "file" / "out")]) == 2
    one_line_error(capsys.readouterr().err, "is a file, not a folder")


def _mount_tmpfs(where: Path, size: str, *extra: str) -> None:
    where.mkdir(parents=True, exist_ok=True)
    opts = ",".join((f"size={size}",) + extra)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(where)], capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"cannot mount a small file system here ({r.stderr.strip() or 'mount failed'}); "
                    f"the disk-full and read-only cases need root and mount")


@pytest.fixture
def small_fs(tmp_path):
    mounted = []

    def make(size="4m", *extra):
        where = tmp_path / f"fs{len(mounted)}"
        _mount_tmpfs(where, size, *extra)
        mounted.append(where)
        return where

    yield make
    for m in mounted:
        subprocess.run(["umount", "-l", str(m)], capture_output=True)


def test_read_only_place(tiny, small_fs, capsys):
    ix, q = tiny
    ro = small_fs("1m", "ro")
    assert main(["search", str(ix), "-q", str(q), "--run", str(ro / "r.trec")]) == 2
    one_line_error(capsys.readouterr().err, str(ro), "Read-only file system")
    assert main(["index", str(ix.parent / "none.jsonl"), "--out", str(ro / "ix")]) == 2  # input checked first
    capsys.readouterr()


def test_index_into_a_read_only_place(small_fs, tmp_path, capsys):
    ro = small_fs("1m", "ro")
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"_id": d.id, "title": d.title, "text": d.text}) + "\n" for d in _docs(5)))
    assert main(["index", str(corpus), "--out", str(ro / "ix")]) == 2
    one_line_error(capsys.readouterr().err, str(ro / "ix"), "Read-only file system")


def test_disk_full_during_a_build_keeps_the_previous_index(small_fs, capsys):
    fs = small_fs("3m")
    build_index(_docs(20), fs / "ix", workers=1)
    before = Searcher(fs / "ix").search({"q": "alpha cell"}).to_run()
    filler = fs / "filler"
    free = shutil.disk_usage(fs).free
    filler.write_bytes(b"\0" * max(0, free - 64 * 1024))  # leave 64 KiB
    big = [Document(f"n{i:05d}", "t", " ".join(f"w{i}x{j}" for j in range(30)), i + 1) for i in range(3000)]
    with pytest.raises(SoundingError) as e:
        build_index(big, fs / "ix", workers=1)
    msg = str(e.value)
    assert "\n" not in msg and "No space left on device" in msg and str(fs / "ix") in msg
    assert Searcher(fs / "ix").search({"q": "alpha cell"}).to_run() == before  # the old generation is live
    no_temp_files(fs / "ix")


def test_disk_full_refused_before_the_build(small_fs, tmp_path, capsys):
    fs = small_fs("1m")
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"_id": f"d{i}", "title": "t", "text": "alpha beta " * 50}) + "\n"
                              for i in range(3000)))
    assert main(["index", str(corpus), "--out", str(fs / "ix")]) == 2
    one_line_error(capsys.readouterr().err, "not enough free space", str(fs / "ix"))


def test_disk_full_during_sounding_run_in_a_fresh_process(small_fs, tmp_path):
    fs = small_fs("2m")
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"_id": d.id, "title": d.title, "text": d.text}) + "\n" for d in _docs(60)))
    qrels_dir = tmp_path / "ds"
    (qrels_dir / "qrels").mkdir(parents=True)
    shutil.copy(corpus, qrels_dir / "corpus.jsonl")
    (qrels_dir / "queries.jsonl").write_text("".join(json.dumps({"_id": f"q{i}", "text": WORDS[i % 12]}) + "\n"
                                                     for i in range(40)))
    (qrels_dir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"q{i}\td{i:03d}\t1\n" for i in range(40)))
    (fs / "filler").write_bytes(b"\0" * (shutil.disk_usage(fs).free - 300 * 1024))
    r = run_cli("run", qrels_dir, "--out", fs / "out", "--layouts", "flat,multifield,bm25f", "--threads", "1")
    assert r.returncode == 2, r
    one_line_error(r.stderr, "No space left on device")
    no_temp_files(fs / "out")


def test_index_check_finds_a_damaged_file(tiny, tmp_path, capsys):
    ix, _ = tiny
    assert main(["index", str(ix), "--check"]) == 0
    assert "intact" in capsys.readouterr().err
    bad = tmp_path / "bad"
    shutil.copytree(ix, bad)
    gen = next(p for p in bad.iterdir() if p.name.startswith("gen-"))
    data = bytearray((gen / "docs.npy").read_bytes())
    data[-1] ^= 1
    (gen / "docs.npy").write_bytes(bytes(data))
    assert main(["index", str(bad), "--check"]) == 2
    one_line_error(capsys.readouterr().err, "damaged index", "docs.npy")


def test_opening_checks_a_generation_once_then_when_a_file_changes(tiny, tmp_path, capsys):
    ix, _ = tiny
    copy = tmp_path / "copy"
    shutil.copytree(ix, copy)
    Index(copy)  # full check, then the stamp
    gen = next(p for p in copy.iterdir() if p.name.startswith("gen-"))
    assert (copy / f".verified-{gen.name}").is_file()
    tfs = gen / "tfs.npy"
    st = tfs.stat()
    data = bytearray(tfs.read_bytes())
    data[-1] ^= 1
    tfs.write_bytes(bytes(data))
    with pytest.raises(SoundingError, match="checksum of tfs.npy"):
        Index(copy)  # a changed file is checked again
    os.utime(tfs, ns=(st.st_atime_ns, st.st_mtime_ns))  # the same size and time: only --check reads it
    Index(copy)
    assert main(["index", str(copy), "--check"]) == 2
    one_line_error(capsys.readouterr().err, "damaged index", "tfs.npy")


# -- one writer at a time ---------------------------------------------------------------------------------------
def test_second_index_writer_fails_in_one_line(tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"_id": d.id, "title": d.title, "text": d.text}) + "\n" for d in _docs(5)))
    with writer_lock(tmp_path / "ix"):
        r = run_cli("index", corpus, "--out", tmp_path / "ix")
    assert r.returncode == 2
    one_line_error(r.stderr, "another sounding process is writing", f"(pid {os.getpid()})")
    assert run_cli("index", corpus, "--out", tmp_path / "ix").returncode == 0  # the lock went with its holder
    no_temp_files(tmp_path / "ix")


def test_second_run_writer_fails_in_one_line(tmp_path):
    ds = mini_dataset(tmp_path / "ds")
    with writer_lock(tmp_path / "out"):
        r = run_cli("run", ds, "--out", tmp_path / "out", "--layouts", "flat")
    assert r.returncode == 2
    one_line_error(r.stderr, "another sounding process is writing the experiment folder")


def test_two_concurrent_index_builds_race(tmp_path):
    """Started together on one folder: each ends cleanly (built, or refused in one line), the index is whole."""
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"_id": f"d{i}", "title": "t", "text": f"alpha w{i} " * 20}) + "\n"
                              for i in range(4000)))
    cmd = [sys.executable, "-m", "sounding", "index", str(corpus), "--out", str(tmp_path / "ix"), "--workers", "1"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    codes = [p.returncode for p in procs]
    assert 0 in codes and set(codes) <= {0, 2}, (codes, outs)
    for (_, err), code in zip(outs, codes):
        assert "Traceback" not in err
        if code == 2:
            one_line_error(err, "another sounding process is writing")
    assert Index(tmp_path / "ix").n_docs == 4000
    no_temp_files(tmp_path / "ix")


# -- kill -9 mid-write: the previous state survives, the next writer cleans up ------------------------------------
def _kill_after(cmd, seconds: float, env=None, when=None) -> bool:
    """Run `sounding CMD` and kill -9 it after `seconds`, or as soon as `when()` holds (mid-write);
    False if it finished first."""
    p = subprocess.Popen([sys.executable, "-m", "sounding", *map(str, cmd)], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env={**os.environ, **(env or {})}, start_new_session=True)
    deadline = time.monotonic() + (120 if when else seconds)
    while time.monotonic() < deadline and p.poll() is None and not (when and when()):
        time.sleep(0.01)
    killed = p.poll() is None
    if killed:
        os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    return killed


def test_kill_during_index_keeps_the_old_index_and_next_build_cleans(tmp_path):
    small = tmp_path / "small.jsonl"
    small.write_text("".join(json.dumps({"_id": d.id, "title": d.title, "text": d.text}) + "\n" for d in _docs(10)))
    big = tmp_path / "big.jsonl"
    big.write_text("".join(json.dumps({"_id": f"d{i}", "title": "t", "text": f"alpha w{i} beta " * 40}) + "\n"
                           for i in range(60000)))
    assert run_cli("index", small, "--out", tmp_path / "ix").returncode == 0
    mid_build = lambda: any(p.name.startswith("gen-") and ".partial-" in p.name for p in (tmp_path / "ix").iterdir())
    assert _kill_after(["index", big, "--out", tmp_path / "ix", "--workers", "1"], 0, when=mid_build)
    assert Index(tmp_path / "ix").n_docs == 10  # the committed generation is untouched
    assert run_cli("index", small, "--out", tmp_path / "ix").returncode == 0
    no_temp_files(tmp_path / "ix")


def test_readers_never_block_and_see_a_whole_generation(tmp_path):
    """While another process rebuilds the index, readers open and search the committed generation."""
    small = tmp_path / "small.jsonl"
    small.write_text("".join(json.dumps({"_id": d.id, "title": d.title, "text": d.text}) + "\n" for d in _docs(10)))
    big = tmp_path / "big.jsonl"
    big.write_text("".join(json.dumps({"_id": f"d{i}", "title": "t", "text": f"alpha w{i} beta " * 40}) + "\n"
                           for i in range(40000)))
    assert run_cli("index", small, "--out", tmp_path / "ix").returncode == 0
    before = Searcher(tmp_path / "ix").search({"q": "alpha"}).to_run()
    p = subprocess.Popen([sys.executable, "-m", "sounding", "index", str(big), "--out", str(tmp_path / "ix"),
                          "--workers", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen = set()
    while p.poll() is None:
        t0 = time.monotonic()
        ix = Index(tmp_path / "ix")
        assert ix.n_docs in (10, 40000) and time.monotonic() - t0 < 5
        if ix.n_docs == 10:
            assert Searcher(ix).search({"q": "alpha"}).to_run() == before
        seen.add(ix.n_docs)
        time.sleep(0.2)
    assert p.returncode == 0, p.stderr.read()
    assert 10 in seen and Index(tmp_path / "ix").n_docs == 40000


def mini_dataset(root: Path, n_docs=300) -> Path:
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text("".join(
        json.dumps({"_id": f"d{i}", "title": WORDS[i % 12], "text": " ".join(WORDS[(i * j) % 12] for j in range(9))})
        + "\n" for i in range(n_docs)))
    (root / "queries.jsonl").write_text("".join(json.dumps({"_id": f"q{i}", "text": f"{WORDS[i % 12]} {WORDS[(i + 3) % 12]}"})
                                                + "\n" for i in range(50)))
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(f"q{i}\td{i}\t1\n" for i in range(50)))
    return root


def test_kill_during_run_then_rerun_is_complete_and_clean(tmp_path):
    ds = mini_dataset(tmp_path / "ds")
    args = ["run", ds, "--out", tmp_path / "out", "--threads", "1"]
    rows = tmp_path / "out" / "rows"
    assert _kill_after(args, 0, when=lambda: rows.is_dir() and any(rows.rglob("*.json")))  # mid-grid
    r = run_cli(*args)
    assert r.returncode == 0, r.stderr
    rows = json.loads((tmp_path / "out" / "results.json").read_text())
    assert len(rows) == 14 and all(r["metrics"]["nDCG@10"] >= 0 for r in rows)
    no_temp_files(tmp_path / "out")
    clean = run_cli("run", ds, "--out", tmp_path / "clean", "--threads", "1")
    assert clean.returncode == 0
    (label,) = [p.name for p in (tmp_path / "clean" / "runs").iterdir()]  # ds-<identity>: the same in both
    for name in sorted(p.name for p in (tmp_path / "clean" / "runs" / label).iterdir()):
        assert (tmp_path / "out" / "runs" / label / name).read_bytes() == \
            (tmp_path / "clean" / "runs" / label / name).read_bytes()


def test_kill_during_fetch_from_leaves_no_dataset_and_no_temp(tmp_path, shared_data):
    """Killed at any moment, an import leaves the cache without the dataset or with all of it; the
    work folder of a killed import is removed by the next one."""
    src = shared_data / "beir" / "nfcorpus"
    archive = tmp_path / "nfcorpus.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for p in src.rglob("*"):
            if p.is_file():
                z.write(p, f"nfcorpus/{p.relative_to(src)}")
    home = tmp_path / "home"
    env = {"SOUNDING_HOME": str(home)}
    _kill_after(["fetch", "nfcorpus", "--from", archive, "--unverified-data"], 0.4, env=env)
    target = home / "beir" / "nfcorpus"
    assert not target.exists() or (target / "corpus.jsonl.gz").is_file()
    shutil.rmtree(target, ignore_errors=True)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = home / "beir" / f".nfcorpus.tmp-{dead.pid}"  # what a kill -9 mid-import leaves
    (stale / "payload").mkdir(parents=True)
    (stale / "payload" / "corpus.jsonl.gz").write_bytes(b"half")
    r = run_cli("fetch", "nfcorpus", "--from", archive, "--unverified-data", env=env)
    assert r.returncode == 0, r.stderr
    assert (target / "corpus.jsonl.gz").read_bytes() == (src / "corpus.jsonl.gz").read_bytes()
    assert not [p for p in (home / "beir").iterdir() if ".tmp-" in p.name]


# -- untrusted data -----------------------------------------------------------------------------------------------
def test_missing_sounding_data_folder_is_named(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SOUNDING_DATA", str(tmp_path / "nowhere"))
    monkeypatch.setenv("SOUNDING_HOME", str(tmp_path / "home"))
    assert main(["run", "scifact", "--out", str(tmp_path / "o")]) == 2
    one_line_error(capsys.readouterr().err, f"SOUNDING_DATA names {tmp_path / 'nowhere'}, which is not a folder")


def test_wrong_dataset_under_a_registry_name_is_refused(tmp_path, capsys, monkeypatch, shared_data):
    fake = tmp_path / "data" / "beir" / "scifact"
    shutil.copytree(shared_data / "beir" / "nfcorpus", fake)
    monkeypatch.setenv("SOUNDING_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("SOUNDING_HOME", str(tmp_path / "home"))
    out = tmp_path / "o"
    assert main(["run", "scifact", "--out", str(out), "--layouts", "flat", "--params", "anserini"]) == 2
    one_line_error(capsys.readouterr().err, "does not hold the registry's scifact", "docs: expected 5,183, found 3,633",
                    "--unverified-data")
    assert not (out / "results.json").exists()
    assert main(["run", "scifact", "--out", str(out), "--layouts", "flat", "--params", "anserini",
                 "--unverified-data"]) == 0
    assert "warning: scifact: UNVERIFIED data" in capsys.readouterr().out  # the report's warning, once
    rows = json.loads((out / "results.json").read_text())
    assert all(r["unverified_data"] for r in rows)
    assert "UNVERIFIED data" in (out / "report.md").read_text()


def test_from_zip_with_the_wrong_checksum_is_refused(tmp_path, capsys, shared_data):
    src = shared_data / "beir" / "scifact"
    archive = tmp_path / "scifact.zip"
    with zipfile.ZipFile(archive, "w") as z:  # the same counts, not the published archive
        for p in src.rglob("*"):
            if p.is_file():
                z.write(p, f"scifact/{p.relative_to(src)}")
    home = tmp_path / "home"
    assert main(["fetch", "scifact", "--from", str(archive), "--cache-dir", str(home)]) == 2
    one_line_error(capsys.readouterr().err, "is not the registry's scifact archive", "md5 expected 5f7d1de6")
    assert not (home / "beir" / "scifact").exists()
    assert main(["fetch", "scifact", "--from", str(archive), "--cache-dir", str(home), "--unverified-data"]) == 0
    manifest = json.loads(next((home / "beir" / "scifact").glob(".sounding*")).read_text()) \
        if list((home / "beir" / "scifact").glob(".sounding*")) else None
    assert manifest is None or "unverified" in manifest["verified"]


# -- every parameter, valid or not, with bounds-checked kernels ---------------------------------------------------
BOUNDS_SCRIPT = textwrap.dedent("""
    import math, sys, time
    from hypothesis import given, settings, strategies as st, HealthCheck
    from sounding.errors import SoundingError
    from sounding import Searcher

    s = Searcher(sys.argv[1])
    for layout in ["flat", "multifield", "multifield-max", "bm25f"]:  # compile every kernel first: the time
        for lucene in [False, True][: 1 if layout == "bm25f" else 2]:  # limit below is for a search, not numba
            for ties in [False, True]:
                s.search({"q": "gene cell"}, k=5, layout=layout, lucene_norms=lucene, anserini_ties=ties)
    num = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 5), st.sampled_from([0, 1, 0.5]))
    seen = {"valid": 0, "invalid": 0}

    @settings(max_examples=int(sys.argv[2]), deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(k1=num, b=num, k=st.one_of(st.integers(-3, 200), st.just(10**9)), threads=st.integers(-1, 3),
           layout=st.sampled_from(["flat", "multifield", "multifield-max", "bm25f"]),
           lucene=st.booleans(), ties=st.booleans(), tw=st.one_of(st.none(), num),
           q=st.lists(st.sampled_from("alpha cell virus gene the zz membrane kinase".split()), max_size=6))
    def check(k1, b, k, threads, layout, lucene, ties, tw, q):
        if lucene and layout == "bm25f":
            lucene = False
        t0 = time.monotonic()
        try:
            r = s.search({"q": " ".join(q), "p": "alpha alpha gene"}, k1=k1, b=b, k=k, threads=threads, layout=layout,
                         lucene_norms=lucene, anserini_ties=ties, title_weight=tw)
        except SoundingError:
            seen["invalid"] += 1
        else:
            seen["valid"] += 1
            assert all(0 <= n <= min(k, 60) for n in r.counts)
            assert all(math.isfinite(x) for x in r.scores.ravel())
        assert time.monotonic() - t0 < 20

    check()
    print("checked", seen["valid"], seen["invalid"])
""")


def test_search_api_fuzzed_with_bounds_checked_kernels(tiny, tmp_path):
    """Random valid and invalid parameters on a tiny index, kernels compiled with numba's boundscheck:
    no crash, no hang (the whole run is under a time limit), invalid ones refused with SoundingError."""
    ix, _ = tiny
    script = tmp_path / "fuzz.py"
    script.write_text(BOUNDS_SCRIPT)
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    r = subprocess.run([sys.executable, str(script), str(ix), "150"], capture_output=True, text=True, timeout=900,
                       env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    valid, invalid = map(int, r.stdout.split()[-2:])
    assert valid > 10 and invalid > 10
