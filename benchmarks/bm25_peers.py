"""BM25 engines vs peers: Sounding, bm25s (numba), tantivy, PISA and Pyserini on the same documents
and judged test queries, measured side by side in one run.

    python benchmarks/bm25_peers.py                                   # scifact, nfcorpus, synthetic 0.05
    python benchmarks/bm25_peers.py --datasets synthetic --synthetic-scale 1.0 --repeats 3   # NQ size (synthetic)

Per corpus:
  1. indexing: each engine indexes the same Documents (read before the clock) in a fresh process:
     docs/s, index bytes on disk, that process's peak RSS; --index-repeats runs, engines interleaved;
  2. search speed: one process opens every engine's index (so all share the machine's state), runs
     per engine one untimed warm-up over all judged queries (batch, 1 thread) whose run is scored
     (nDCG@10 and R@100, BEIR convention: a hit whose docid equals its query id is dropped; raw
     nDCG@10 too), then --repeats rounds; in each round every mode — batch@1, batch@all,
     per-query@1, per-query@all — is timed once per engine, engines in rotating order, each pass
     after a 16-query warm-up of its mode. Query analysis is inside the timer; conversion of the
     engine's native hits into the Run dict is not (it is the harness's work, the same for all).
     Wall-clock QPS is the headline; QPS by process CPU time is kept too (less sensitive to other
     jobs on a shared machine). An engine slower than --slow-qps in its warm-up is timed on the
     first --slow-queries queries only (marked †);
  3. search peak RSS: per engine a fresh process opens the index, answers all queries (batch,
     1 thread, top-k) and reads its own VmHWM from /proc/self/status (index + engine + its native
     results; the harness's Run dicts are never built there).
Medians over rounds with min-max spread. Batch mode is compared with batch, per-query with
per-query. tantivy has no batch API (its batch rows are its per-query loop, marked *). Numbers
from the synthetic corpus are labelled synthetic.

Targets checked (Sounding vs peers): single-thread top-k QPS ≥ 2× bm25s and ≥ PISA (each mode);
indexing docs/s ≥ bm25s; search peak RSS ≤ bm25s.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
if (REPO / "src").is_dir():
    sys.path.insert(0, str(REPO / "src"))

DEFAULT_DATASETS = "scifact,nfcorpus,synthetic"
DEFAULT_ENGINES = "sounding,bm25s,tantivy,pisa,pyserini"
MODES = (("batch", 1), ("batch", "all"), ("per-query", 1), ("per-query", "all"))
WARMUP_QUERIES = 16


# ---------------------------------------------------------------------------------------------------
# process-local measurements
def proc_status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return -1


def mib(kib: int) -> float:
    return round(kib / 1024.0, 1)


def all_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover
        return os.cpu_count() or 1


def source_state() -> dict:
    """The commit measured, and whether the engine's own sources differ from it (others edit them too)."""
    import hashlib

    def git(*a):
        try:
            return subprocess.run(["git", *a], cwd=REPO, capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            return ""

    paths = ["src/sounding/index", "src/sounding/search", "src/sounding/analysis", "src/sounding/engines"]
    dirty = git("status", "--porcelain", "--", *paths).split("\n")
    diff = git("diff", "HEAD", "--", *paths)
    return {"commit": git("rev-parse", "HEAD").strip(), "modified": [x[3:] for x in dirty if x.strip()],
            "diff_sha256": hashlib.sha256(diff.encode()).hexdigest()[:16] if diff else None}


def machine() -> dict:
    cpu = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = 0
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal:"):
                mem = int(line.split()[1]) // 1024
    except OSError:
        pass
    try:
        load = os.getloadavg()
    except OSError:
        load = (0, 0, 0)
    return {"cpu": cpu, "cores": all_cores(), "memory_mib": mem, "python": platform.python_version(),
            "platform": platform.platform(), "loadavg_at_start": [round(x, 2) for x in load]}


# ---------------------------------------------------------------------------------------------------
# evaluation (BEIR convention)
def evaluate(qrels: dict, run: dict) -> dict:
    """nDCG@10 and R@100 over all judged queries (missing = 0), own hits dropped; raw nDCG too.

    pytrec_eval computes; sounding.eval.evaluate, when present, is run as a cross-check."""
    import pytrec_eval

    def score(r):
        ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.100"})
        per = ev.evaluate({q: h for q, h in r.items() if h})
        n = len(qrels)
        return (sum(per[q]["ndcg_cut_10"] for q in per if q in qrels) / n,
                sum(per[q]["recall_100"] for q in per if q in qrels) / n)

    conv = {q: {d: s for d, s in hits.items() if d != q} for q, hits in run.items()}
    ndcg, rec = score(conv)
    raw_ndcg, _ = score(run)
    out = {"nDCG@10": round(ndcg, 4), "R@100": round(rec, 4), "nDCG@10_raw": round(raw_ndcg, 4)}
    try:
        from sounding.eval import evaluate as s_eval

        mine = s_eval(qrels, run, ["nDCG@10", "R@100"], remove_self_hits=True)
        out["sounding_eval_agrees"] = bool(abs(mine["nDCG@10"] - ndcg) <= 5e-5 and abs(mine["R@100"] - rec) <= 5e-5)
    except Exception:  # noqa: BLE001 - absent or in progress elsewhere: pytrec_eval stands alone
        pass
    return out


# ---------------------------------------------------------------------------------------------------
# workers (fresh processes)
def _load_docs(corpus_path: str) -> list:
    from sounding.datasets import iter_corpus

    return list(iter_corpus(Path(corpus_path)))


def _children_cpu() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def worker_index(spec: dict) -> dict:
    from sounding.retrieval.engines import get_engine

    docs = _load_docs(spec["corpus"])
    eng = get_engine(spec["engine"])
    workdir = Path(spec["workdir"])
    if workdir.exists():
        shutil.rmtree(workdir)
    rss_before = proc_status_kib("VmRSS")
    c0, ch0 = time.process_time(), _children_cpu()
    stats = eng.index(docs, workdir)
    cpu = time.process_time() - c0 + _children_cpu() - ch0  # Pyserini indexes in a child JVM
    return {"seconds": stats.seconds, "cpu_seconds": cpu, "bytes": stats.bytes, "n_docs": stats.n_docs,
            "details": stats.details,
            "peak_rss_mib": mib(proc_status_kib("VmHWM")), "rss_with_docs_mib": mib(rss_before),
            "version": eng.version()}


def _queries(spec: dict):
    from sounding.datasets import load_dataset

    ds = load_dataset(spec["dataset"], data_dir=spec.get("data_dir"))
    items = list(ds.queries.items())
    if spec.get("max_queries"):
        items = items[: spec["max_queries"]]
    return items, {q: ds.qrels[q] for q, _ in items}


def _top10(run: dict) -> dict:
    return {q: [d for d, _ in sorted(h.items(), key=lambda x: (-x[1], x[0]))[:10]] for q, h in run.items()}


def worker_memory(spec: dict) -> dict:
    """One engine in a fresh process: open the index, answer all queries (batch, 1 thread), read VmHWM."""
    from sounding.retrieval.engines import get_engine

    items, _ = _queries(spec)
    eng = get_engine(spec["engine"])
    rss_start = proc_status_kib("VmRSS")
    eng.load(Path(spec["workdir"]))
    rss_loaded = proc_status_kib("VmRSS")
    native, secs = eng.search_native(items, k=spec["k"], k1=spec["k1"], b=spec["b"], threads=1, batch=True)
    peak = proc_status_kib("VmHWM")
    return {"search_peak_rss_mib": mib(peak), "rss_start_mib": mib(rss_start), "rss_after_load_mib": mib(rss_loaded),
            "rss_after_search_mib": mib(proc_status_kib("VmRSS")), "cold_search_s": secs}


def worker_timing(spec: dict) -> dict:
    """All engines in one process, so that they share the machine's (noisy) state as evenly as possible.

    Per engine an untimed warm-up over all queries (batch, 1 thread) whose run is scored; then
    `repeats` rounds; in each, every mode is timed once per engine, engines in rotating order, each
    pass after a short warm-up of its mode. Wall seconds and process CPU seconds are both kept."""
    from sounding.retrieval.engines import get_engine

    items, qrels = _queries(spec)
    k, k1, b = spec["k"], spec["k1"], spec["b"]
    out: dict = {"engines": {}, "n_queries": len(items)}
    engines = {}
    for name, workdir in spec["engines"].items():
        e = out["engines"][name] = {"timings": {}, "agreement": {}}
        try:
            eng = get_engine(name)
            t0 = time.perf_counter()
            eng.load(Path(workdir))
            e["load_s"] = time.perf_counter() - t0
            native, e["warmup_s"] = eng.search_native(items, k=k, k1=k1, b=b, threads=1, batch=True)
            t0 = time.perf_counter()
            run = eng.to_run(native, items)
            e["convert_s"] = time.perf_counter() - t0
            del native
            e["quality"] = evaluate(qrels, run)
            e["settings"] = dict(eng.last_settings)
            e["native_batch"] = eng.native_batch
            e["version"] = eng.version()
            e["timed_queries"] = len(items)
            if len(items) > spec["slow_queries"]:
                # speed probe after the warm-up (which may include JIT compilation): 50 queries
                probe = items[:50]
                _, secs = eng.search_native(probe, k=k, k1=k1, b=b, threads=1, batch=True)
                e["probe_qps"] = len(probe) / max(secs, 1e-9)
                if e["probe_qps"] < spec.get("slow_qps", 0):
                    e["timed_queries"] = spec["slow_queries"]  # a slow engine: timed on the first N queries only
            engines[name] = (eng, _top10(run))
            del run
        except Exception as exc:  # noqa: BLE001 - one engine failing must not stop the others
            e["error"] = f"{type(exc).__name__}: {exc}"
    threads_all = all_cores()
    modes = []
    for mode, th in MODES:
        th = threads_all if th == "all" else th
        if (mode, th) not in modes:
            modes.append((mode, th))
    names = list(engines)
    for r in range(spec["repeats"]):
        for mi, (mode, th) in enumerate(modes):
            shift = (r + mi) % max(1, len(names))
            for name in names[shift:] + names[:shift]:
                eng, top10 = engines[name]
                e = out["engines"][name]
                if "error" in e:
                    continue
                key, batch = f"{mode}@{th}", mode == "batch"
                timed = items[: e["timed_queries"]]
                try:
                    eng.search_native(items[:WARMUP_QUERIES], k=k, k1=k1, b=b, threads=th, batch=batch)
                    c0 = time.process_time()
                    native, secs = eng.search_native(timed, k=k, k1=k1, b=b, threads=th, batch=batch)
                    cpu = time.process_time() - c0
                except Exception as exc:  # noqa: BLE001
                    e["error"] = f"{key}: {type(exc).__name__}: {exc}"
                    continue
                t = e["timings"].setdefault(key, {"threads": th, "seconds": [], "cpu_seconds": []})
                t["seconds"].append(secs)
                t["cpu_seconds"].append(cpu)
                if r == 0:
                    same = _top10(eng.to_run(native, timed))
                    e["agreement"][key] = round(sum(same[q] == top10[q] for q in same) / max(1, len(timed)), 4)
                del native
            print(f"  round {r + 1} {mode}@{th} done", flush=True)
    return out


def run_worker(kind: str, spec: dict, log: Path, timeout: float | None = None) -> dict:
    """Run a worker in a fresh Python process; its result, or {"error": ...}."""
    spec_path = log.with_suffix(".spec.json")
    res_path = log.with_suffix(".result.json")
    spec_path.write_text(json.dumps(spec))
    if res_path.exists():
        res_path.unlink()
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", kind, str(spec_path), str(res_path)]
    env = dict(os.environ)
    env.setdefault("PYTHONHASHSEED", "0")
    env["TQDM_DISABLE"] = "1"
    with open(log, "a") as lf:
        try:
            proc = subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT, env=env, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"error": f"timed out after {timeout:.0f} s (log: {log})"}
    if proc.returncode != 0 or not res_path.exists():
        tail = log.read_text(errors="replace").strip().splitlines()[-3:]
        return {"error": f"exit {proc.returncode}: {' | '.join(tail)} (log: {log})"}
    return json.loads(res_path.read_text())


def _worker_main(kind: str, spec_path: str, res_path: str) -> int:
    spec = json.loads(Path(spec_path).read_text())
    res = {"index": worker_index, "memory": worker_memory, "timing": worker_timing}[kind](spec)
    Path(res_path).write_text(json.dumps(res))
    return 0


# ---------------------------------------------------------------------------------------------------
# orchestration
def summarize(values: list[float]) -> dict:
    values = [v for v in values if v is not None]
    if not values:
        return {}
    med = statistics.median(values)
    spread = (max(values) - min(values)) / med * 100 if med else 0.0
    return {"median": med, "min": min(values), "max": max(values), "n": len(values), "spread_pct": round(spread, 1),
            "values": [round(v, 4) for v in values]}


def prepare_corpus(name: str, args) -> dict:
    from sounding.datasets import load_dataset

    if name == "synthetic":
        import synthetic

        folder = Path(args.synthetic_dir) if args.synthetic_dir else \
            Path(args.work) / f"synthetic-{args.synthetic_scale:g}-seed{args.seed}"
        meta = folder / "synthetic.json"
        want = {"scale": args.synthetic_scale, "seed": args.seed, "generator_version": synthetic.GENERATOR_VERSION}
        have = json.loads(meta.read_text()) if meta.exists() else {}
        if any(have.get(key) != v for key, v in want.items()):
            print(f"generating synthetic corpus (scale {args.synthetic_scale:g}, seed {args.seed}) in {folder} ...",
                  flush=True)
            synthetic.generate(folder, args.synthetic_scale, args.seed)
            have = json.loads(meta.read_text())
        label = f"synthetic-{args.synthetic_scale:g}"
        ds = load_dataset(folder)
        return {"label": label, "dataset": str(folder), "data_dir": None, "corpus": str(ds.corpus_path),
                "synthetic": True, "n_queries": len(ds.queries), "n_docs": have["n_docs"], "synthetic_meta": have}
    ds = load_dataset(name, data_dir=args.data_dir)
    n_docs = ds.info.docs if ds.info is not None and ds.info.docs else sum(1 for _ in ds.corpus())
    return {"label": name, "dataset": name, "data_dir": args.data_dir, "corpus": str(ds.corpus_path),
            "synthetic": False, "n_queries": len(ds.queries), "n_docs": n_docs}


def bench_corpus(c: dict, engines: list[str], args, logdir: Path) -> dict:
    label = c["label"]
    res = {"corpus": c, "engines": {name: {"index_runs": [], "memory_runs": []} for name in engines}}
    work = Path(args.work) / "indexes" / label
    n_q = min(c["n_queries"], args.max_queries or c["n_queries"])
    print(f"\n== {label}: {c['n_docs']:,} docs, {n_q:,} judged queries"
          f"{' (SYNTHETIC)' if c['synthetic'] else ''}", flush=True)
    E = res["engines"]
    # 1. indexing: a fresh process per engine and run, engines interleaved
    for r in range(args.index_repeats):
        for name in engines:
            e = E[name]
            if "error" in e:
                continue
            spec = {"engine": name, "corpus": c["corpus"], "workdir": str(work / name)}
            out = run_worker("index", spec, logdir / f"{label}.{name}.index.log", args.timeout)
            if "error" in out:
                e["error"] = f"indexing: {out['error']}"
                print(f"  {name:9s} index FAILED: {out['error']}", flush=True)
                continue
            e["index_runs"].append(out)
            print(f"  {name:9s} index run {r + 1}: {out['n_docs'] / out['seconds']:,.0f} docs/s "
                  f"({out['seconds']:.2f} s), {out['bytes'] / 2**20:.1f} MiB, peak {out['peak_rss_mib']:.0f} MiB",
                  flush=True)
    ok = [n for n in engines if "error" not in E[n]]
    base = {"dataset": c["dataset"], "data_dir": c["data_dir"], "k": args.k, "k1": args.k1, "b": args.b,
            "max_queries": args.max_queries}
    # 2. timing: all engines in one process, interleaved
    ok = [n for n in ok if "error" not in E[n]]
    if ok:
        spec = dict(base, engines={n: str(work / n) for n in ok}, repeats=args.repeats,
                    slow_qps=args.slow_qps, slow_queries=args.slow_queries)
        print(f"  timing {', '.join(ok)}: {args.repeats} rounds x {len(MODES)} modes ...", flush=True)
        out = run_worker("timing", spec, logdir / f"{label}.timing.log", args.timeout * max(1, len(ok)))
        if "error" in out:
            for n in ok:
                E[n]["error"] = f"timing: {out['error']}"
        else:
            for n, t in out["engines"].items():
                E[n]["timing"] = t
                if "error" in t:
                    E[n]["error"] = f"search: {t['error']}"
                    print(f"  {n:9s} search FAILED: {t['error']}", flush=True)
                    continue
                nq = t.get("timed_queries") or n_q
                qps = ", ".join(f"{m} {statistics.median(nq / x for x in v['seconds']):,.0f}"
                                for m, v in t.get("timings", {}).items())
                print(f"  {n:9s} QPS (median) {qps}; nDCG@10 {t.get('quality', {}).get('nDCG@10')}", flush=True)
    ok = [n for n in ok if "error" not in E[n]]
    # 3. search peak RSS: a fresh process per engine
    for r in range(args.rss_repeats):
        for name in ok:
            tq = E[name].get("timing", {}).get("timed_queries")
            mspec = dict(base, engine=name, workdir=str(work / name))
            if tq and tq < n_q:
                mspec["max_queries"] = tq  # a slow engine: the same subset as its timing
            out = run_worker("memory", mspec,
                             logdir / f"{label}.{name}.memory.log", args.timeout)
            if "error" in out:
                E[name]["error"] = f"memory probe: {out['error']}"
                print(f"  {name:9s} memory probe FAILED: {out['error']}", flush=True)
                continue
            E[name]["memory_runs"].append(out)
            print(f"  {name:9s} search peak RSS {out['search_peak_rss_mib']:,.0f} MiB "
                  f"(after load {out['rss_after_load_mib']:,.0f} MiB)", flush=True)
    # summaries
    for name, e in E.items():
        n_items = e.get("timing", {}).get("timed_queries") or n_q
        runs = e["index_runs"]
        if runs:
            e["index"] = {"seconds": summarize([x["seconds"] for x in runs]),
                          "docs_per_s": summarize([x["n_docs"] / x["seconds"] for x in runs]),
                          "docs_per_cpu_s": summarize([x["n_docs"] / x["cpu_seconds"] for x in runs
                                                       if x.get("cpu_seconds")]),
                          "bytes": runs[-1]["bytes"], "peak_rss_mib": summarize([x["peak_rss_mib"] for x in runs]),
                          "details": runs[-1]["details"]}
            e["version"] = runs[-1]["version"]
        if e["memory_runs"]:
            e["search_peak_rss_mib"] = summarize([x["search_peak_rss_mib"] for x in e["memory_runs"]])
        t = e.get("timing")
        if t and t.get("timings"):
            e["search"] = {m: summarize([n_items / s for s in v["seconds"]]) for m, v in t["timings"].items()}
            e["search_cpu"] = {m: summarize([n_items / s for s in v["cpu_seconds"] if s > 0])
                               for m, v in t["timings"].items()}
            for key in ("quality", "agreement", "settings", "native_batch", "convert_s", "load_s", "warmup_s"):
                if key in t:
                    e[key] = t[key]
    res["ratios"], res["targets"] = ratios_and_targets(E)
    if not args.keep_indexes:
        shutil.rmtree(work, ignore_errors=True)
    return res


def _med(e: dict, *path):
    x = e
    for p in path:
        if not isinstance(x, dict) or p not in x:
            return None
        x = x[p]
    return x.get("median") if isinstance(x, dict) else x


def ratios_and_targets(engines: dict) -> tuple[dict, list]:
    s = engines.get("sounding", {})
    ratios: dict = {}
    for peer, e in engines.items():
        if peer == "sounding" or "search" not in e or "search" not in s:
            continue
        r = {}
        for m in s["search"]:
            a, b = _med(s, "search", m), _med(e, "search", m)
            if a and b:
                r[f"qps {m}"] = round(a / b, 3)
        for m in s.get("search_cpu", {}):
            a, b = _med(s, "search_cpu", m), _med(e, "search_cpu", m)
            if m.endswith("@1") and a and b:
                r[f"cpu-qps {m}"] = round(a / b, 3)
        a, b = _med(s, "index", "docs_per_s"), _med(e, "index", "docs_per_s")
        if a and b:
            r["index docs/s"] = round(a / b, 3)
        a, b = _med(s, "index", "docs_per_cpu_s"), _med(e, "index", "docs_per_cpu_s")
        if a and b:
            r["index docs/cpu-s"] = round(a / b, 3)
        a, b = _med(s, "search_peak_rss_mib"), _med(e, "search_peak_rss_mib")
        if a and b:
            r["search peak RSS"] = round(a / b, 3)
        a, b = s.get("index", {}).get("bytes"), e.get("index", {}).get("bytes")
        if a and b:
            r["index bytes"] = round(a / b, 3)
        a, b = s.get("quality", {}).get("nDCG@10"), e.get("quality", {}).get("nDCG@10")
        if a is not None and b is not None:
            r["nDCG@10 difference"] = round(a - b, 4)
        ratios[peer] = r

    targets = []

    def target(what: str, ours, theirs, factor: float, higher_better: bool, unit: str, cpu=None):
        if ours is None or theirs is None:
            targets.append({"target": what, "status": "not measured"})
            return
        goal = theirs * factor
        met = ours >= goal if higher_better else ours <= goal
        if met:
            note = "met"
        elif higher_better:
            note = f"missed: {ours:,.1f} {unit} vs goal {goal:,.1f} (needs ×{goal / ours:.2f}, {100 * (goal - ours) / goal:.0f}% short)"
        else:
            note = f"missed: {ours:,.1f} {unit} vs goal ≤ {goal:,.1f} ({100 * (ours - goal) / goal:.0f}% over)"
        t = {"target": what, "sounding": round(ours, 2), "goal": round(goal, 2),
             "status": "met" if met else "missed", "note": note}
        if cpu and cpu[0] and cpu[1]:  # the same target by CPU seconds: less sensitive to other jobs
            cmet = cpu[0] >= cpu[1] * factor
            t["by_cpu_time"] = {"sounding": round(cpu[0], 2), "goal": round(cpu[1] * factor, 2),
                                "status": "met" if cmet else "missed"}
            t["note"] += f"; by CPU time: {'met' if cmet else 'missed'} ({cpu[0]:,.0f} vs {cpu[1] * factor:,.0f})"
        targets.append(t)

    for m in ("batch@1", "per-query@1"):
        for peer, factor, what in (("bm25s", 2.0, "2× bm25s"), ("pisa", 1.0, "PISA")):
            p = engines.get(peer, {})
            target(f"QPS {m} ≥ {what}", _med(s, "search", m), _med(p, "search", m), factor, True, "QPS",
                   cpu=(_med(s, "search_cpu", m), _med(p, "search_cpu", m)))
    target("indexing docs/s ≥ bm25s", _med(s, "index", "docs_per_s"), _med(engines.get("bm25s", {}), "index", "docs_per_s"),
           1.0, True, "docs/s", cpu=(_med(s, "index", "docs_per_cpu_s"),
                                     _med(engines.get("bm25s", {}), "index", "docs_per_cpu_s")))
    target("search peak RSS ≤ bm25s", _med(s, "search_peak_rss_mib"), _med(engines.get("bm25s", {}), "search_peak_rss_mib"),
           1.0, False, "MiB")
    return ratios, targets


# ---------------------------------------------------------------------------------------------------
# report
def fmt_range(summary: dict | None, fmt: str = "{:,.0f}") -> str:
    if not summary:
        return "–"
    return f"{fmt.format(summary['median'])} ({fmt.format(summary['min'])}–{fmt.format(summary['max'])})"


def table(results: dict) -> str:
    lines = []
    for label, res in results["corpora"].items():
        c = res["corpus"]
        syn = " — SYNTHETIC (NQ-shaped)" if c["synthetic"] else ""
        lines.append(f"\n### {label}{syn}: {c['n_docs']:,} docs, "
                     f"{min(c['n_queries'], results['settings']['max_queries'] or c['n_queries']):,} queries, "
                     f"top-{results['settings']['k']}, k1={results['settings']['k1']} b={results['settings']['b']}\n")
        modes = []
        for e in res["engines"].values():
            for m in e.get("search", {}):
                if m not in modes:
                    modes.append(m)
        head = (["engine", "nDCG@10", "index docs/s", "index MiB", "index peak MiB"] + [f"QPS {m}" for m in modes]
                + ["search peak MiB"])
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "---|" * len(head))
        for name, e in res["engines"].items():
            if "error" in e or "search" not in e:
                why = e.get("error", "not installed")
                lines.append(f"| {name} | {why[:120]} |" + " |" * (len(head) - 2))
                continue
            q = e.get("quality", {})
            k1b = e.get("settings", {})
            nd = f"{q.get('nDCG@10', float('nan')):.4f}"
            if abs(k1b.get("k1", 0) - results["settings"]["k1"]) > 1e-9:
                nd += f" (k1={k1b['k1']}, b={k1b['b']})"
            cells = [name, nd, fmt_range(e["index"]["docs_per_s"]), f"{e['index']['bytes'] / 2**20:,.1f}",
                     f"{e['index']['peak_rss_mib']['median']:,.0f}"]
            dagger = "†" if e.get("timing", {}).get("timed_queries", 0) < min(c["n_queries"], results["settings"]["max_queries"] or c["n_queries"]) else ""
            for m in modes:
                star = "*" if m.startswith("batch") and not e.get("native_batch", True) else ""
                cells.append(fmt_range(e["search"].get(m)) + star + dagger)
            cells.append(fmt_range(e["search_peak_rss_mib"]))
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("\nmedian (min–max) over rounds; index peak = the indexing process (documents in memory "
                     "included, the same for all); * no batch API: its per-query loop; "
                     f"† slow engine: timed on the first {results['settings']['slow_queries']} queries.")
        if res["ratios"]:
            lines.append("\nSounding / peer (median ratios; > 1 = Sounding higher):\n")
            keys = []
            for r in res["ratios"].values():
                keys += [k for k in r if k not in keys]
            lines.append("| peer | " + " | ".join(keys) + " |")
            lines.append("|" + "---|" * (len(keys) + 1))
            for peer, r in res["ratios"].items():
                lines.append(f"| {peer} | " + " | ".join(str(r.get(k, "–")) for k in keys) + " |")
        lines.append("\nTargets:")
        for t in res["targets"]:
            lines.append(f"- {t['target']}: {t.get('note', t['status'])}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        return _worker_main(*argv[1:4])
    if argv[:1] == ["--render"]:  # print the tables of saved results: --render FILE.json
        print(table(json.loads(Path(argv[1]).read_text())))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--datasets", default=DEFAULT_DATASETS, help=f"comma list (default {DEFAULT_DATASETS})")
    ap.add_argument("--engines", default=DEFAULT_ENGINES, help=f"comma list (default {DEFAULT_ENGINES}: those installed)")
    ap.add_argument("--synthetic-scale", type=float, default=0.05, help="× NQ's 2,681,468 docs (default 0.05)")
    ap.add_argument("--synthetic-dir", default=None, help="reuse/generate the synthetic corpus here")
    ap.add_argument("--seed", type=int, default=0, help="synthetic corpus seed")
    ap.add_argument("--data-dir", default=os.environ.get("SOUNDING_DATA", str(REPO.parent / "shared" / "datasets")))
    ap.add_argument("--repeats", type=int, default=3, help="search rounds per engine (median, spread)")
    ap.add_argument("--index-repeats", type=int, default=3, help="indexing runs per engine")
    ap.add_argument("--rss-repeats", type=int, default=1, help="search peak RSS probes per engine")
    ap.add_argument("--k", type=int, default=1000)
    ap.add_argument("--k1", type=float, default=0.9)
    ap.add_argument("--b", type=float, default=0.4)
    ap.add_argument("--max-queries", type=int, default=None, help="only the first N judged queries (all engines)")
    ap.add_argument("--slow-qps", type=float, default=50.0,
                    help="an engine whose warm-up runs below this many QPS is timed on --slow-queries queries")
    ap.add_argument("--slow-queries", type=int, default=300)
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per worker process")
    ap.add_argument("--work", default=str(REPO / "bench-out" / "work"), help="indexes, logs, synthetic corpora")
    ap.add_argument("--keep-indexes", action="store_true")
    ap.add_argument("--out", default=str(REPO / "bench-out" / "bm25_peers.json"))
    args = ap.parse_args(argv)
    if min(args.repeats, args.index_repeats, args.rss_repeats) < 1:
        ap.error("--repeats, --index-repeats and --rss-repeats must be at least 1")

    from sounding.retrieval.engines import ENGINES

    wanted = [e.strip() for e in args.engines.split(",") if e.strip()]
    unknown = [e for e in wanted if e not in ENGINES]
    if unknown:
        ap.error(f"unknown engine(s): {', '.join(unknown)}; choose from {', '.join(ENGINES)}")
    if "sounding" in wanted:
        wanted = ["sounding"] + [e for e in wanted if e != "sounding"]
    installed = [e for e in wanted if ENGINES[e].available()]
    versions = {e: (ENGINES[e].version() if e in installed else "not installed") for e in wanted}
    Path(args.work).mkdir(parents=True, exist_ok=True)
    logdir = Path(args.work) / "logs"
    logdir.mkdir(exist_ok=True)
    results = {
        "benchmark": "bm25_peers", "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.executable).name, "benchmarks/bm25_peers.py"] + argv),
        "machine": machine(), "versions": versions, "source": source_state(),
        "settings": {"k": args.k, "k1": args.k1, "b": args.b, "repeats": args.repeats,
                     "index_repeats": args.index_repeats, "threads_all": all_cores(), "max_queries": args.max_queries,
                     "slow_qps": args.slow_qps, "slow_queries": args.slow_queries,
                     "modes": [f"{m}@{all_cores() if t == 'all' else t}" for m, t in MODES]},
        "corpora": {},
    }
    print(f"machine: {results['machine']['cpu']}, {results['machine']['cores']} cores; "
          f"load {results['machine']['loadavg_at_start']}")
    print("engines: " + ", ".join(f"{e} {v}" for e, v in versions.items()))
    src = results["source"]
    print(f"source: {src['commit'][:10]}" + (f", modified: {', '.join(src['modified'])}" if src["modified"] else ", clean"))
    t0 = time.perf_counter()
    for name in [d.strip() for d in args.datasets.split(",") if d.strip()]:
        c = prepare_corpus(name, args)
        res = bench_corpus(c, installed, args, logdir)
        for e in wanted:
            if e not in installed:
                res["engines"][e] = {"error": f"not installed ({ENGINES[e].requirement})"}
        results["corpora"][c["label"]] = res
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(results, indent=1, default=str))
    results["seconds"] = round(time.perf_counter() - t0, 1)
    try:
        results["machine"]["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    Path(args.out).write_text(json.dumps(results, indent=1, default=str))
    print(table(results))
    print("\nJSON summary (full results in " + args.out + "):")
    print(json.dumps({label: {"ratios": r["ratios"], "targets": r["targets"]}
                      for label, r in results["corpora"].items()}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
