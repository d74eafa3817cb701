"""Scale-out benchmark: one process vs N shards on a local Ray instance, on the synthetic NQ-shaped corpus.

    python benchmarks/scale.py                                  # scale 0.05 (134k docs), 4 shards, Ray on 2 CPUs
    python benchmarks/scale.py --scale 1.0 --num-cpus 16 --work /data/scale   # full NQ size, 2.68 M docs (see docs/scale.md)
    python benchmarks/scale.py --data /path/to/beir/nq          # a real BEIR folder instead of the synthetic corpus

Measures, for the same corpus and queries:
  * indexing: one process (`build_index`, in a fresh subprocess) vs N shards as Ray tasks
    (`build_shards_ray`, each task streaming the corpus and keeping its own documents): wall time, the
    corpus parse time, the Ray start-up, task times, the commit (merged statistics) time;
  * memory: VmHWM (peak resident set) of the one-process build, of every Ray worker that built shards,
    of the one-process searcher and of every shard actor;
  * search: queries per second at k = 1000 and k = 10: one process (`Searcher`, 1 thread), the shards
    in one process (`ShardedSearcher`), the shards on Ray actors (`RayShardedSearcher`), with the
    shards' own search time and the merge time; and a byte comparison of the run files.
  * optionally (--encode-docs N) the Ray Data encoding pipeline's own overhead, with a trivial
    numpy encoder (model throughput is measured elsewhere: docs/models.md).

Writes WORK/scale-results.json and prints a Markdown summary. The corpus comes from
benchmarks/synthetic.py (deterministic); without that file, a simpler built-in generator is used.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


from sounding.scale.shards import peak_rss_kb as vmhwm_kb  # noqa: E402  (VmHWM of a process, kB)


# -- corpus ---------------------------------------------------------------------------------------
def make_corpus(scale: float, work: Path, seed: int = 0) -> Path:
    out = work / f"synthetic-{scale:g}"
    meta = out / "synthetic.json"
    if meta.is_file() and json.loads(meta.read_text()).get("scale") == scale:
        return out
    gen = HERE / "synthetic.py"
    if gen.is_file():
        subprocess.run([sys.executable, str(gen), "--scale", str(scale), "--out", str(out), "--seed", str(seed)],
                       check=True)
    else:
        _fallback_corpus(out, scale, seed)
    return out


def _fallback_corpus(out: Path, scale: float, seed: int) -> None:
    """Zipfian pseudo-words, ~79 words per document, ~9 words per query (NQ's averages)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n_docs = max(100, round(2_681_468 * scale))
    vocab = np.array([f"t{i:x}" for i in range(max(1000, int(40 * n_docs ** 0.6)))])
    p = 1.0 / np.arange(1, len(vocab) + 1) ** 1.07
    p /= p.sum()
    out.mkdir(parents=True, exist_ok=True)
    with gzip.open(out / "corpus.jsonl.gz", "wt", encoding="utf-8", compresslevel=1) as f:
        for i in range(n_docs):
            words = vocab[rng.choice(len(vocab), size=rng.integers(40, 120), p=p)]
            f.write(json.dumps({"_id": f"doc{i}", "title": " ".join(words[:3]), "text": " ".join(words[3:])}) + "\n")
    with open(out / "queries.jsonl", "w") as f:
        for i in range(min(3452, max(1, n_docs // 20))):
            f.write(json.dumps({"_id": f"test{i}", "text": " ".join(vocab[rng.choice(len(vocab), 9, p=p)])}) + "\n")
    (out / "synthetic.json").write_text(json.dumps({"scale": scale, "n_docs": n_docs, "generator": "fallback"}))


# -- subprocess workers (fresh processes, so VmHWM means this step only) ---------------------------
def worker_single_index(corpus: str, out: str) -> dict:
    from sounding.datasets import iter_corpus
    from sounding.index import build_index

    t = time.perf_counter()
    n = sum(1 for _ in iter_corpus(corpus))
    parse = time.perf_counter() - t
    before = vmhwm_kb()
    t, cpu = time.perf_counter(), time.process_time()
    r = build_index(iter_corpus(corpus), out, workers=1)  # one process: the analysis stays in it
    return {"docs": r.n_docs, "terms": r.n_terms, "bytes": r.bytes, "seconds": time.perf_counter() - t,
            "cpu_seconds": time.process_time() - cpu, "parse_seconds": parse, "parse_docs": n,
            "vmhwm_kb": vmhwm_kb(), "vmhwm_before_build_kb": before}


def worker_single_search(index: str, queries: str, run_dir: str, ks: list[int]) -> dict:
    from sounding.datasets import load_queries
    from sounding.eval import write_run
    from sounding.retrieval.search import Searcher

    q = load_queries(queries)
    t = time.perf_counter()
    s = Searcher(index)
    out = {"open_seconds": time.perf_counter() - t}
    for k in ks:
        s.search(dict(list(q.items())[:5]), k=k)  # kernels compiled / loaded outside the timing
        cpu = time.process_time()
        r = s.search(q, k=k, threads=1)
        cpu = time.process_time() - cpu
        write_run(r.to_run(), Path(run_dir) / f"single-k{k}.run")
        out[f"k{k}"] = {"seconds": r.seconds, "cpu_seconds": cpu, "qps": r.queries_per_second}
    out["vmhwm_kb"] = vmhwm_kb()
    return out


def run_worker(*args: str) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--worker", *args], check=True, capture_output=True, text=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


# -- main benchmark ---------------------------------------------------------------------------------
def bench(args) -> dict:
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    data = Path(args.data) if args.data else make_corpus(args.scale, work, args.seed)
    corpus, queries = str(data / "corpus.jsonl.gz"), str(data / "queries.jsonl")
    ks = [1000, 10]
    res: dict = {"corpus": str(data), "shards": args.shards, "num_cpus": args.num_cpus, "cpu_count": os.cpu_count(),
                 "loadavg_start": os.getloadavg()}
    if (data / "synthetic.json").is_file():
        res["synthetic"] = json.loads((data / "synthetic.json").read_text())

    print("[1/5] one process: build_index", flush=True)
    single_ix = work / "single"
    res["single_index"] = run_worker("single-index", corpus, str(single_ix))
    print(f"      {res['single_index']['seconds']:.1f} s, VmHWM {res['single_index']['vmhwm_kb'] / 1e3:.0f} MB", flush=True)

    print("[2/5] one process: search", flush=True)
    runs = work / "runs"
    runs.mkdir(exist_ok=True)
    res["single_search"] = run_worker("single-search", str(single_ix), queries, str(runs), *map(str, ks))

    from sounding.datasets import load_queries
    from sounding.eval import write_run
    from sounding.scale import CorpusFile, ShardedSearcher
    from sounding.scale.ray_backend import RayShardedSearcher, build_shards_ray

    q = load_queries(queries)
    import ray

    print(f"[3/5] Ray (num_cpus={args.num_cpus}): {args.shards} shard tasks", flush=True)
    t = time.perf_counter()
    ray.init(num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False)
    res["ray_init_seconds"] = time.perf_counter() - t
    try:
        sharded = work / f"sharded-{args.shards}"
        t = time.perf_counter()
        shard_set = build_shards_ray(CorpusFile(corpus), sharded, args.shards)
        wall = time.perf_counter() - t
        tasks = shard_set.build["tasks"]
        res["ray_index"] = {"seconds": wall, "task_seconds": [x["seconds"] for x in tasks],
                            "task_cpu_seconds": [x["cpu_seconds"] for x in tasks],
                            "commit_seconds": shard_set.build["commit_seconds"],
                            "workers": len({x["pid"] for x in tasks}),
                            "worker_vmhwm_kb": _per_worker(tasks),
                            "shard_docs": [s.n_docs for s in shard_set.shards],
                            "shard_terms": [s.n_terms for s in shard_set.shards],
                            "shard_bytes": [s.bytes for s in shard_set.shards]}
        print(f"      {wall:.1f} s wall; tasks {[round(x, 1) for x in res['ray_index']['task_seconds']]} s", flush=True)

        print("[4/5] shards in one process: ShardedSearcher", flush=True)
        local = ShardedSearcher(sharded)
        res["sharded_local_search"] = {}
        for k in ks:
            local.search(dict(list(q.items())[:5]), k=k)
            r = local.search(q, k=k)
            res["sharded_local_search"][f"k{k}"] = {"seconds": r.seconds, "qps": r.queries_per_second,
                                                    "shard_seconds": r.shard_seconds,
                                                    "shard_cpu_seconds": r.shard_cpu_seconds,
                                                    "merge_seconds": r.merge_seconds}
        del local

        print("[5/5] shards on Ray actors: RayShardedSearcher", flush=True)
        t = time.perf_counter()
        searcher = RayShardedSearcher(sharded)
        res["ray_search"] = {"actor_start_seconds": time.perf_counter() - t}
        identical = {}
        for k in ks:
            searcher.search(dict(list(q.items())[:5]), k=k)  # warm-up: kernels loaded in every actor
            r = searcher.search(q, k=k)
            write_run(r.to_run(), runs / f"ray-k{k}.run")
            identical[f"k{k}"] = (runs / f"ray-k{k}.run").read_bytes() == (runs / f"single-k{k}.run").read_bytes()
            res["ray_search"][f"k{k}"] = {"seconds": r.seconds, "qps": r.queries_per_second,
                                          "shard_seconds": r.shard_seconds, "shard_cpu_seconds": r.shard_cpu_seconds,
                                          "merge_seconds": r.merge_seconds}
        res["ray_search"]["actor_vmhwm_kb"] = searcher.peak_rss_kb()
        res["run_files_identical"] = identical
        searcher.close()

        if args.encode_docs:
            res["encode"] = bench_encode(corpus, work, args.encode_docs)
    finally:
        ray.shutdown()
    res["loadavg_end"] = os.getloadavg()
    return res


def _per_worker(tasks: list[dict]) -> list[int]:
    peak: dict[int, int] = {}
    for t in tasks:
        peak[t["pid"]] = max(peak.get(t["pid"], 0), t["worker_peak_rss_kb"])
    return sorted(peak.values(), reverse=True)


def _hash_encode(texts):
    import numpy as np

    out = np.zeros((len(texts), 64), np.float32)
    for i, t in enumerate(texts):
        for w in t.split():
            out[i, sum(w.encode()) % 64] += 1.0
    return out


def _hash_encode_kind(texts, kind):
    return _hash_encode(texts)


def bench_encode(corpus: str, work: Path, n: int) -> dict:
    """Pipeline overhead of encode_corpus_ray vs encode_corpus with an almost free encoder (both
    write the same `sounding.dense` vector store)."""
    from itertools import islice

    from sounding.datasets import iter_corpus
    from sounding.retrieval.dense.encoders import CallableEncoder
    from sounding.retrieval.dense.vectors import encode_corpus
    from sounding.scale.ray_backend import encode_corpus_ray

    docs = list(islice(iter_corpus(corpus), n))
    enc = CallableEncoder(_hash_encode_kind, 64, name="trivial")
    t = time.perf_counter()
    encode_corpus(docs, enc, work / "vec-local")
    local = time.perf_counter() - t
    t = time.perf_counter()
    rep = encode_corpus_ray(docs, enc, work / "vec-ray")
    ray_s = time.perf_counter() - t
    return {"docs": n, "local_seconds": local, "ray_seconds": ray_s, "ray_actors": rep.backend["actors"],
            "local_texts_per_s": n / local, "ray_texts_per_s": n / ray_s}


def summary(res: dict) -> str:
    si, ri = res["single_index"], res["ray_index"]
    def mb(kb):
        return f"{kb / 1024:.0f} MB"

    lines = [
        f"corpus: {res['corpus']} ({si['docs']:,} docs); {res['shards']} shards; Ray num_cpus={res['num_cpus']}; "
        f"load average {res['loadavg_start'][0]:.1f} → {res['loadavg_end'][0]:.1f} on {res['cpu_count']} cores",
        "",
        "| indexing | wall s | docs/s (wall) | CPU s | docs per CPU-s | peak memory (VmHWM) |",
        "|---|---|---|---|---|---|",
        f"| 1 process | {si['seconds']:.1f} | {si['docs'] / si['seconds']:,.0f} | {si['cpu_seconds']:.1f} | "
        f"{si['docs'] / si['cpu_seconds']:,.0f} | {mb(si['vmhwm_kb'])} |",
        f"| {res['shards']} shards on Ray ({ri['workers']} workers) | {ri['seconds']:.1f} (+{res['ray_init_seconds']:.1f} Ray start) | "
        f"{si['docs'] / ri['seconds']:,.0f} | {sum(ri['task_cpu_seconds']):.1f} | {si['docs'] / sum(ri['task_cpu_seconds']):,.0f} | "
        f"per worker: {', '.join(mb(x) for x in ri['worker_vmhwm_kb'])} |",
        "",
        f"corpus parse alone: {si['parse_seconds']:.1f} s (each shard task parses the whole stream); "
        f"shard task times: {', '.join(f'{x:.1f}' for x in ri['task_seconds'])} s wall, "
        f"{', '.join(f'{x:.1f}' for x in ri['task_cpu_seconds'])} s CPU; commit (merged statistics): {ri['commit_seconds']:.1f} s",
        "",
        "| search | k | QPS | CPU s (sum over shards) | shard wall s (each) | merge s |",
        "|---|---|---|---|---|---|",
    ]
    for k in ("k1000", "k10"):
        ss = res["single_search"][k]
        lines.append(f"| 1 process, 1 thread | {k[1:]} | {ss['qps']:,.0f} | {ss['cpu_seconds']:.2f} | | |")
        for name, r in ((f"{res['shards']} shards, one process", res["sharded_local_search"][k]),
                        (f"{res['shards']} shards on Ray", res["ray_search"][k])):
            lines.append(f"| {name} | {k[1:]} | {r['qps']:,.0f} | {sum(r['shard_cpu_seconds']):.2f} | "
                         f"{', '.join(f'{x:.2f}' for x in r['shard_seconds'])} | {r['merge_seconds']:.2f} |")
    lines += ["", f"search memory: 1 process {mb(res['single_search']['vmhwm_kb'])}; shard actors "
              f"{', '.join(mb(x) for x in res['ray_search']['actor_vmhwm_kb'])}",
              f"run files byte-identical (1 process vs Ray shards): {res['run_files_identical']}"]
    if "encode" in res:
        e = res["encode"]
        lines.append(f"encoding pipeline overhead ({e['docs']:,} docs, trivial encoder): local {e['local_texts_per_s']:,.0f} "
                     f"texts/s, Ray Data ({e['ray_actors']} actors) {e['ray_texts_per_s']:,.0f} texts/s")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=float, default=0.05, help="synthetic corpus size as a fraction of NQ (2,681,468 docs)")
    ap.add_argument("--data", help="a BEIR-layout folder (corpus.jsonl.gz, queries.jsonl) instead of the synthetic corpus")
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local Ray instance")
    ap.add_argument("--encode-docs", type=int, default=0, help="also time the Ray Data encoding pipeline on N docs")
    ap.add_argument("--work", default=str(Path(tempfile.gettempdir()) / "sounding-scale-bench"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        kind, *rest = args.worker
        if kind == "single-index":
            out = worker_single_index(*rest)
        else:
            out = worker_single_search(rest[0], rest[1], rest[2], [int(k) for k in rest[3:]])
        print(json.dumps(out))
        return 0
    res = bench(args)
    path = Path(args.work) / "scale-results.json"
    path.write_text(json.dumps(res, indent=1))
    print()
    print(summary(res))
    print(f"\n→ {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
