"""Pyserini (Lucene through Anserini), flat layout: one `contents` field = title + " " + text,
Lucene's English analyzer (Porter stemmer, Lucene stop words), BM25 k1/b set per search.

Needs Java ≥ 21 with the jdk.incubator.vector module. JAVA_HOME is taken from the environment, or
else the first JDK ≥ 21 found in /usr/lib/jvm (Temurin 25 on these machines). Importing
`pyserini.search.lucene` builds an OpenAI client that fails on an empty key, so a placeholder
OPENAI_API_KEY is set in this process only (never used: nothing here calls OpenAI).
Indexing runs `python -m pyserini.index.lucene` (JsonCollection) in a subprocess, as Pyserini's
documentation does; its time includes writing the JSON input and the JVM start.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Sequence

from .engine import Engine, IndexStats, Run, dir_bytes, flat_text, package_version, per_query

JVM_ROOT = Path("/usr/lib/jvm")
PLACEHOLDER_KEY = "sk-placeholder-not-used"


def _java_major(java_home: Path) -> int:
    release = java_home / "release"
    if release.is_file():
        m = re.search(r'JAVA_VERSION="(\d+)', release.read_text(errors="replace"))
        if m:
            return int(m.group(1))
    m = re.search(r"(\d+)", java_home.name)
    return int(m.group(1)) if m else 0


def find_java_home() -> Path | None:
    """JAVA_HOME if it is ≥ 21, else the newest JDK ≥ 21 under /usr/lib/jvm, else None."""
    env = os.environ.get("JAVA_HOME")
    if env and (Path(env) / "bin" / "java").exists() and _java_major(Path(env)) >= 21:
        return Path(env)
    if JVM_ROOT.is_dir():
        cands = [p for p in JVM_ROOT.iterdir() if (p / "bin" / "java").exists() and not p.is_symlink()]
        cands = [p for p in cands if _java_major(p) >= 21]
        if cands:
            return max(cands, key=_java_major)
    return None


def _prepare_env(env: dict | None = None) -> dict:
    env = os.environ if env is None else env
    home = find_java_home()
    if home is not None:
        env["JAVA_HOME"] = str(home)
        env["PATH"] = f"{home / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("OPENAI_API_KEY", PLACEHOLDER_KEY)
    return env


class PyseriniEngine(Engine):
    name = "pyserini"
    requirement = ("pip install torch==2.13.0 (CPU) then pip install --no-deps pyserini==1.6.0 and its import-time "
                   "needs (pyjnius, transformers, scikit-learn, openai, tiktoken, sentencepiece, onnxruntime); "
                   "Java >= 21 (set JAVA_HOME)")
    modules = ("pyserini", "jnius")
    native_batch = True  # LuceneSearcher.batch_search

    def __init__(self, index_threads: int = 1) -> None:
        super().__init__()
        self.index_threads = index_threads
        self._searcher = None
        self._bm25 = None

    @classmethod
    def available(cls) -> bool:
        return super().available() and find_java_home() is not None

    @classmethod
    def version(cls) -> str:
        home = find_java_home()
        java = f"Java {_java_major(home)}" if home else "no Java >= 21"
        return f"pyserini {package_version('pyserini')} ({java})"

    def index(self, docs: Sequence, workdir: Path) -> IndexStats:
        self.require()
        workdir = self._prepare_workdir(workdir)
        src, path = workdir / "json", workdir / "index"
        for p in (src, path):
            if p.exists():
                shutil.rmtree(p)
        src.mkdir()
        docs = list(docs)
        start = time.perf_counter()
        with open(src / "docs.jsonl", "w", encoding="utf-8") as f:
            for d in docs:
                f.write(json.dumps({"id": d.id, "contents": flat_text(d)}) + "\n")
        cmd = [sys.executable, "-m", "pyserini.index.lucene", "-collection", "JsonCollection",
               "-generator", "DefaultLuceneDocumentGenerator", "-threads", str(self.index_threads),
               "-input", str(src), "-index", str(path)]
        proc = subprocess.run(cmd, env=_prepare_env(dict(os.environ)), capture_output=True, text=True)
        seconds = time.perf_counter() - start
        shutil.rmtree(src)
        if proc.returncode != 0:
            from ...errors import SoundingError

            raise SoundingError(f"pyserini indexing failed: {proc.stderr.strip().splitlines()[-1:]}")
        self.load(workdir)
        return IndexStats(seconds, dir_bytes(path), len(docs),
                          {"analyzer": "Lucene English (default)", "threads": self.index_threads,
                           "note": "includes JVM start and writing the JsonCollection input"})

    def load(self, workdir: Path) -> None:
        self.require()
        _prepare_env()
        from pyserini.search.lucene import LuceneSearcher

        self.workdir = Path(workdir)
        self._searcher = LuceneSearcher(str(self.workdir / "index"))
        self._bm25 = None

    def search_native(self, items, *, k, k1, b, threads, batch):
        s = self._searcher
        if self._bm25 != (k1, b):
            s.set_bm25(k1, b)
            self._bm25 = (k1, b)
        self.last_settings = dict(k1=k1, b=b, k=k, layout="flat", analyzer="Lucene English")
        if batch:
            start = time.perf_counter()
            hits = s.batch_search([t for _, t in items], [q for q, _ in items], k=k, threads=threads)
            return [hits.get(q, []) for q, _ in items], time.perf_counter() - start
        return per_query(lambda _q, t: s.search(t, k=k), items, threads)

    def to_run(self, native, items) -> Run:
        return {q: {h.docid: float(h.score) for h in hs} for (q, _), hs in zip(items, native)}

    def close(self) -> None:
        if self._searcher is not None:
            try:
                self._searcher.close()
            except Exception:  # noqa: BLE001 - best effort
                pass
        self._searcher = None
