"""Indexing speed of the Mr. TyDi languages whose chains are compiled, against a tree that analyses them in Python.

    python benchmarks/language_build.py --baseline-src OTHER_CHECKOUT [--langs ar,bn,fi,id,ja,ru,te]
        [--docs 100000] [--rounds 2] [--work bench-out/languages] [--json out.json]

Mr. TyDi's passage corpora are not here, so each language's corpus is SYNTHETIC (say so wherever its
numbers appear): `--docs` passages of that language's words, drawn from its Mr. TyDi v1.1 topics
(train, dev and test: real words of the script, as written) and from pseudo-words made of their
pieces (a prefix of one topic word and the rest of another), so that the vocabulary grows with the
corpus as Heaps' law has it (20 · tokens^0.6 distinct words). Words are drawn by a Zipf-Mandelbrot
law (s = 1, q = 2.7) over that vocabulary, the topics' words first in order of their frequency;
passages of ~70 words (Poisson; Mr. TyDi's passages are Wikipedia paragraphs), titles of 1-4 words,
a comma or full stop after some words. Japanese topics have no spaces: there a "word" is a whole
question or pieces of two, so its passages are longer. A seeded numpy generator: the same arguments give the same
corpus.jsonl.gz (gzip time 0). What is measured is analysis and indexing speed on the language's
script and morphology, never effectiveness.

Each language's corpus is indexed by the whole command, `sounding index CORPUS --analyzer A
--postings raw --memory 1`, in a fresh process (synthetic.bench_build: wall seconds, CPU seconds of
the process and its workers, peak PSS of the process tree), for this tree and the baseline's, the two
alternated round by round (which goes first alternates too), after a first build of each (round 0,
not counted: where a tree's compiled kernels are compiled or loaded), with the 1-minute load average at
the start of every build; then the two indexes' files are compared (large_build._same_index).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import sys
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import large_build  # noqa: E402
import synthetic  # noqa: E402
from tokenize_speed import _data_dir  # noqa: E402

# Mr. TyDi code: the analyzer (all compiled: analysis/compiled.py)
LANGUAGES = {"ar": "arabic", "bn": "bengali", "fi": "finnish", "id": "indonesian", "ja": "japanese", "ru": "russian",
             "te": "telugu"}
PASSAGE_WORDS = 70
HEAPS_K, HEAPS_BETA = 20.0, 0.6
ZIPF_S, ZIPF_Q = 1.0, 2.7


def topic_words(folder: Path, code: str) -> list[str]:
    """The words of the language's topics (every split here), most frequent first."""
    counts: Counter = Counter()
    for path in sorted((folder / code).glob(f"topics.mrtydi-v1.1-{code}.*.txt.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            for line in f:
                if "\t" in line:
                    counts.update(line.rstrip("\n").split("\t", 1)[1].split())
    return [w for w, _ in counts.most_common()]


def generate(words: list[str], out: Path, docs: int, seed: int) -> dict:
    """Write out/corpus.jsonl.gz (see the module's docstring); its numbers."""
    rng = np.random.default_rng(seed)
    lengths = np.maximum(1, rng.poisson(PASSAGE_WORDS, docs))
    title_lengths = rng.integers(1, 5, docs)
    tokens = int(lengths.sum() + title_lengths.sum())
    size = max(len(words), int(HEAPS_K * tokens ** HEAPS_BETA))
    vocab = list(words)
    a = rng.integers(0, len(words), size - len(words))
    b = rng.integers(0, len(words), size - len(words))
    cut = rng.random((size - len(words), 2))
    for i, j, (x, y) in zip(a.tolist(), b.tolist(), cut.tolist()):
        u, v = words[i], words[j]
        vocab.append(u[: 1 + int(x * len(u))] + v[int(y * len(v)):])
    p = 1.0 / (np.arange(1, size + 1) + ZIPF_Q) ** ZIPF_S
    drawn = rng.choice(size, tokens, p=p / p.sum())
    marks = rng.random(tokens)
    pieces = [vocab[r] + ("," if m < 0.06 else "." if m < 0.1 else "") for r, m in zip(drawn.tolist(), marks.tolist())]
    out.mkdir(parents=True, exist_ok=True)
    pos = 0
    with open(out / "corpus.jsonl.gz", "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
        for d in range(docs):
            t, n = int(title_lengths[d]), int(lengths[d])
            title = " ".join(pieces[pos : pos + t])
            text = " ".join(pieces[pos + t : pos + t + n])
            pos += t + n
            f.write((json.dumps({"_id": f"doc{d}", "title": title, "text": text}, ensure_ascii=False) + "\n").encode())
    return {"docs": docs, "tokens": tokens, "vocabulary": size, "topic_words": len(words)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline-src", required=True, help="a checkout whose src/ analyses these languages in Python")
    ap.add_argument("--langs", default=",".join(LANGUAGES))
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", help="folder holding mrtydi/ (default: $SOUNDING_DATA or ../shared/datasets)")
    ap.add_argument("--work", default="bench-out/languages")
    ap.add_argument("--json", help="also write the results to this file")
    a = ap.parse_args(argv)
    unknown = [c for c in a.langs.split(",") if c not in LANGUAGES]
    if unknown:
        ap.error(f"--langs: no compiled chain for {', '.join(unknown)} (choose from {', '.join(LANGUAGES)})")
    folder = _data_dir(a.data)  # the folder holding <code>/topics.*.gz
    work = Path(a.work)
    trees = [("this", None), ("baseline", str(Path(a.baseline_src).resolve() / "src"))]
    results = {"load_start": os.getloadavg()[0], "docs": a.docs, "rounds": a.rounds, "languages": []}
    print(f"load average at the start: {results['load_start']:.2f}", flush=True)
    for code in a.langs.split(","):
        name = LANGUAGES[code]
        corpus = work / f"synthetic-{code}-{a.docs}-seed{a.seed}"
        meta = corpus / "synthetic.json"
        if not meta.is_file():
            words = topic_words(folder, code)
            if not words:
                print(f"{code}: no topics in {folder / code}, skipped", flush=True)
                continue
            meta.parent.mkdir(parents=True, exist_ok=True)
            meta.write_text(json.dumps(generate(words, corpus, a.docs, a.seed)))
        shape = json.loads(meta.read_text())
        row = {"lang": code, "analyzer": name, **shape, "runs": [], "first_runs": []}
        for r in range(a.rounds + 1):  # round 0: each tree's first build, its kernels compiled (or loaded), apart
            for side, src in (trees if r % 2 == 0 else trees[::-1]):
                got = synthetic.bench_build(corpus / "corpus.jsonl.gz", work / "indexes" / code / side, "raw", 1.0,
                                            env=large_build._env(src), analyzer=name)
                got.update(side=side, round=r)
                row["runs" if r else "first_runs"].append(got)
                print(f"  {code} {side:8s} round {r}{' (first build)' if not r else ''}: {got['build_s']} s, CPU "
                      f"{got['build_cpu_s']} s, tree peak {got['build_peak_pss_gib']} GiB ({got['load_at_start']} at "
                      "the start)", flush=True)
        row["same_index"] = large_build._same_index(work / "indexes" / code / "this", work / "indexes" / code / "baseline")
        for side in ("this", "baseline"):
            runs = [x for x in row["runs"] if x["side"] == side]
            row[f"{side}_s"] = round(statistics.median(x["build_s"] for x in runs), 2)
            row[f"{side}_cpu_s"] = round(statistics.median(x["build_cpu_s"] for x in runs), 2)
            row[f"{side}_docs_per_cpu_s"] = round(a.docs / row[f"{side}_cpu_s"])
        shutil.rmtree(work / "indexes" / code, ignore_errors=True)
        results["languages"].append(row)
    results["load_end"] = os.getloadavg()[0]
    print(f"\nSYNTHETIC corpora of each language's Mr. TyDi topic words, {a.docs:,} passages; whole `sounding index`, "
          f"medians of {a.rounds} alternated rounds (load {results['load_start']:.2f} → {results['load_end']:.2f})\n")
    print("| lang | analyzer | tokens | vocabulary | baseline s (CPU s) | this s (CPU s) | docs/CPU-s baseline → this "
          "| × | same index |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for x in results["languages"]:
        print(f"| {x['lang']} | `{x['analyzer']}` | {x['tokens']:,} | {x['vocabulary']:,} | {x['baseline_s']} "
              f"({x['baseline_cpu_s']}) | {x['this_s']} ({x['this_cpu_s']}) | {x['baseline_docs_per_cpu_s']:,} → "
              f"{x['this_docs_per_cpu_s']:,} | {x['this_docs_per_cpu_s'] / x['baseline_docs_per_cpu_s']:.2f} "
              f"| {x['same_index']} |")
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
