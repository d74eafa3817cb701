"""BM25 engines vs peers: Sounding, bm25s (numba), tantivy, PISA and Pyserini on the same documents
and judged test queries, measured side by side in one run.

    python benchmarks/bm25_peers.py                                   # scifact, nfcorpus, synthetic 0.05
    python benchmarks/bm25_peers.py --datasets scifact,nfcorpus,synthetic-0.05,synthetic-1 --k 10,1000 \
        --baseline-src ../base --large-build 1.0       # issue 34's figures, one command (see benchmarks/README.md)

Per corpus:
  1. indexing: each engine indexes the same Documents (read before the clock) in a fresh process, after
     indexing WARMUP_DOCS of them elsewhere (imports, compilation, a JVM's start: reported apart):
     docs/s, docs per CPU second, index bytes on disk, that process's peak RSS, the load average;
     --index-repeats runs, engines interleaved;
  2. search speed, per --k: one process opens every engine's index, runs per engine one untimed warm-up
     over all judged queries (batch, 1 thread) whose run is scored (nDCG@10 and R@100, BEIR convention: a
     hit whose docid equals its query id is dropped; raw nDCG@10 too) and one per query (1 thread: every
     timed mode then meets texts seen before; its rate is printed apart as `first sight`), then --repeats
     rounds; in each
     round every mode — batch@1, batch@all, per-query@1, per-query@all (concurrent client threads) — is
     timed once per engine, engines in rotating order, each after a 16-query warm-up of its mode and a full
     garbage collection, a pass over the queries repeated until 0.25 s have gone by (their mean),
     the load average taken at each. Query analysis is inside the timer; conversion of the engine's
     native hits into the Run dict is not. Wall-clock QPS is the headline; QPS by process CPU time is
     kept too. An engine slower than --slow-qps in its warm-up is timed on the first --slow-queries
     queries only (marked †). With --baseline-src, Sounding from that checkout is timed too, in processes
     of its own alternated with the others round by round;
  3. search peak RSS: per engine a fresh process opens the index, answers all queries (batch, 1 thread,
     top-k) and reads its own VmHWM.
--large-build SCALE adds benchmarks/large_build.py: the synthetic corpus at SCALE built with packed
postings and its whole `sounding search`. Medians over rounds with min-max spread; targets in
peers_report.py. Numbers from the synthetic corpus are labelled synthetic.
"""
from __future__ import annotations

import argparse
import gc
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
from peers_report import evaluate, ratios_and_targets, summarize, table  # noqa: E402
if (REPO / "src").is_dir():
    sys.path.insert(0, str(REPO / "src"))

DEFAULT_DATASETS = "scifact,nfcorpus,synthetic"
DEFAULT_ENGINES = "sounding,bm25s,tantivy,pisa,pyserini"
MODES = (("batch", 1), ("batch", "all"), ("per-query", 1), ("per-query", "all"))
WARMUP_QUERIES = 16
MIN_PASS_S = 0.25  # a timed pass is repeated until this long (the figure: their mean)
WARMUP_DOCS = 200  # documents an engine indexes first, untimed (compile time, reported apart)
BASELINE = "sounding-base"  # Sounding from another source tree (--baseline-src): its figures beside today's


def engine_name(name: str) -> str:
    """The engine a benchmark name runs (the baseline is Sounding's engine, from another source tree)."""
    return "sounding" if name == BASELINE else name


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

    paths = ["src/sounding/index", "src/sounding/retrieval/search", "src/sounding/analysis", "src/sounding/retrieval/engines"]
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
# workers (fresh processes)
def _load_docs(corpus_path: str) -> list:
    from sounding.datasets import iter_corpus

    return list(iter_corpus(Path(corpus_path)))


def _children_cpu() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _engine_getter():
    """`get_engine` of the Sounding on the path: today's, or a baseline checkout's from before the retrieval
    layer (its engines at the package's top level)."""
    try:
        from sounding.retrieval.engines import get_engine
    except ImportError:
        from sounding.engines import get_engine
    return get_engine


def worker_index(spec: dict) -> dict:
    get_engine = _engine_getter()

    docs = _load_docs(spec["corpus"])
    workdir = Path(spec["workdir"])
    # compile time apart: the engine first indexes a few documents elsewhere (imports, numba's cache or
    # JIT, a JVM's start), untimed in the figures and reported beside them
    warm = workdir.with_name(workdir.name + "-warmup")
    for folder in (workdir, warm):
        if folder.exists():
            shutil.rmtree(folder)
    t0, c0, ch0 = time.perf_counter(), time.process_time(), _children_cpu()
    eng = get_engine(engine_name(spec["engine"]))
    eng.index(docs[:WARMUP_DOCS], warm)
    eng.close()
    warm_s, warm_cpu = time.perf_counter() - t0, time.process_time() - c0 + _children_cpu() - ch0
    shutil.rmtree(warm, ignore_errors=True)
    eng = get_engine(engine_name(spec["engine"]))
    rss_before = proc_status_kib("VmRSS")
    load = os.getloadavg()[0]
    c0, ch0 = time.process_time(), _children_cpu()
    stats = eng.index(docs, workdir)
    cpu = time.process_time() - c0 + _children_cpu() - ch0  # Pyserini indexes in a child JVM
    return {"seconds": stats.seconds, "cpu_seconds": cpu, "bytes": stats.bytes, "n_docs": stats.n_docs,
            "warmup_seconds": warm_s, "warmup_cpu_seconds": warm_cpu, "load": round(load, 2),
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
    get_engine = _engine_getter()

    items, _ = _queries(spec)
    eng = get_engine(engine_name(spec["engine"]))
    rss_start = proc_status_kib("VmRSS")
    eng.load(Path(spec["workdir"]))
    rss_loaded = proc_status_kib("VmRSS")
    native, secs = eng.search_native(items, k=spec["k"], k1=spec["k1"], b=spec["b"], threads=1, batch=True)
    peak = proc_status_kib("VmHWM")
    return {"search_peak_rss_mib": mib(peak), "rss_start_mib": mib(rss_start), "rss_after_load_mib": mib(rss_loaded),
            "rss_after_search_mib": mib(proc_status_kib("VmRSS")), "cold_search_s": secs}


def worker_timing(spec: dict) -> dict:
    """All engines in one process, so that they share the machine's (noisy) state as evenly as possible.

    Per engine an untimed warm-up over all queries (batch, 1 thread) whose run is scored, and one per query
    (1 thread; its rate kept as `first_sight_qps`); then
    `repeats` rounds; in each, every mode is timed once per engine, engines in rotating order, each
    pass after a short warm-up of its mode. Wall seconds and process CPU seconds are both kept."""
    get_engine = _engine_getter()

    items, qrels = _queries(spec)
    k, k1, b = spec["k"], spec["k1"], spec["b"]
    out: dict = {"engines": {}, "n_queries": len(items)}
    engines = {}
    for name, workdir in spec["engines"].items():
        e = out["engines"][name] = {"timings": {}, "agreement": {}}
        try:
            eng = get_engine(engine_name(name))
            t0 = time.perf_counter()
            eng.load(Path(workdir))
            e["load_s"] = time.perf_counter() - t0
            native, e["warmup_s"] = eng.search_native(items, k=k, k1=k1, b=b, threads=1, batch=True)
            t0 = time.perf_counter()
            run = eng.to_run(native, items)
            e["convert_s"] = time.perf_counter() - t0
            del native
            e["quality"] = evaluate(qrels, run)
            # and one per query (1 thread), so that every timed mode meets query texts seen before, whichever
            # mode comes first in a process (Sounding's per-query path keeps each text's clauses): its rate is
            # kept apart as the first sight of every text
            eng.search_native(items[:1], k=k, k1=k1, b=b, threads=1, batch=False)  # the path's one-time set-up
            gc.collect()
            _, secs = eng.search_native(items, k=k, k1=k1, b=b, threads=1, batch=False)
            e["first_sight_qps"] = len(items) / max(secs, 1e-9)
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
                    gc.collect()  # not the garbage of the engines timed before
                    # Passes are repeated until MIN_PASS_S have gone by (the mean of them is the figure): a pass
                    # of a few ms on a small corpus, coming after another engine's or after idle time, ran at a
                    # third of the speed of the next (cold caches, a core waking up; measured on nfcorpus, top 10)
                    secs = cpu = 0.0
                    passes = 0
                    while passes == 0 or secs < MIN_PASS_S:
                        c0 = time.process_time()
                        native, took = eng.search_native(timed, k=k, k1=k1, b=b, threads=th, batch=batch)
                        cpu += time.process_time() - c0
                        secs += took
                        passes += 1
                    secs, cpu = secs / passes, cpu / passes
                except Exception as exc:  # noqa: BLE001
                    e["error"] = f"{key}: {type(exc).__name__}: {exc}"
                    continue
                t = e["timings"].setdefault(key, {"threads": th, "seconds": [], "cpu_seconds": [], "load": []})
                t["seconds"].append(secs)
                t["cpu_seconds"].append(cpu)
                t["load"].append(round(os.getloadavg()[0], 2))
                if r == 0:
                    same = _top10(eng.to_run(native, timed))
                    e["agreement"][key] = round(sum(same[q] == top10[q] for q in same) / max(1, len(timed)), 4)
                del native
            print(f"  round {r + 1} {mode}@{th} done (load {os.getloadavg()[0]:.2f})", flush=True)
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
    if spec.get("src"):  # the baseline's source tree first
        env["PYTHONPATH"] = os.pathsep.join([spec["src"]] + [p for p in [env.get("PYTHONPATH")] if p])
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
    if spec.get("src"):  # before this checkout's src, which the module put first
        sys.path.insert(0, spec["src"])
    res = {"index": worker_index, "memory": worker_memory, "timing": worker_timing}[kind](spec)
    Path(res_path).write_text(json.dumps(res))
    return 0


# ---------------------------------------------------------------------------------------------------
# orchestration
def prepare_corpus(name: str, args) -> dict:
    from sounding.datasets import load_dataset

    if name == "synthetic" or name.startswith("synthetic-"):
        import synthetic

        scale = args.synthetic_scale if name == "synthetic" else float(name.split("-", 1)[1])
        folder = Path(args.synthetic_dir) if args.synthetic_dir and name == "synthetic" else \
            Path(args.work) / f"synthetic-{scale:g}-seed{args.seed}"
        meta = folder / "synthetic.json"
        want = {"scale": scale, "seed": args.seed, "generator_version": synthetic.GENERATOR_VERSION}
        have = json.loads(meta.read_text()) if meta.exists() else {}
        if any(have.get(key) != v for key, v in want.items()):
            print(f"generating synthetic corpus (scale {scale:g}, seed {args.seed}) in {folder} ...", flush=True)
            synthetic.generate(folder, scale, args.seed)
            have = json.loads(meta.read_text())
        label = f"synthetic-{scale:g}"
        ds = load_dataset(folder)
        return {"label": label, "dataset": str(folder), "data_dir": None, "corpus": str(ds.corpus_path),
                "synthetic": True, "n_queries": len(ds.queries), "n_docs": have["n_docs"], "synthetic_meta": have}
    ds = load_dataset(name, data_dir=args.data_dir)
    n_docs = ds.info.docs if ds.info is not None and ds.info.docs else sum(1 for _ in ds.corpus())
    return {"label": name, "dataset": name, "data_dir": args.data_dir, "corpus": str(ds.corpus_path),
            "synthetic": False, "n_queries": len(ds.queries), "n_docs": n_docs}


def index_corpus(c: dict, engines: list[str], args, logdir: Path, work: Path) -> dict:
    """Step 1, indexing: a fresh process per engine and run, engines interleaved."""
    E = {name: {"index_runs": []} for name in engines}
    for r in range(args.index_repeats):
        for name in engines:
            e = E[name]
            if "error" in e:
                continue
            spec = {"engine": name, "corpus": c["corpus"], "workdir": str(work / name), "src": _src(name, args)}
            out = run_worker("index", spec, logdir / f"{c['label']}.{name}.index.log", args.timeout)
            if "error" in out:
                e["error"] = f"indexing: {out['error']}"
                print(f"  {name:13s} index FAILED: {out['error']}", flush=True)
                continue
            e["index_runs"].append(out)
            print(f"  {name:13s} index run {r + 1}: {out['n_docs'] / out['seconds']:,.0f} docs/s, "
                  f"{out['n_docs'] / out['cpu_seconds']:,.0f} docs/CPU-s ({out['seconds']:.2f} s; compile/warm-up "
                  f"apart: {out['warmup_seconds']:.2f} s), {out['bytes'] / 2**20:.1f} MiB, peak "
                  f"{out['peak_rss_mib']:.0f} MiB; load {out['load']:.2f}", flush=True)
    return E


def _src(name: str, args) -> str | None:
    return str(Path(args.baseline_src).resolve() / "src") if name == BASELINE else None


def time_corpus(c: dict, E: dict, ok: list[str], base: dict, args, logdir: Path, work: Path, n_q: int) -> None:
    """Step 2, search timing: every engine in one process, interleaved; the baseline (another source tree)
    in a process of its own, alternated with it round by round."""
    groups = [[n for n in ok if n != BASELINE]] + ([[BASELINE]] if BASELINE in ok else [])
    per_round = len(groups) > 1
    for r in range(args.repeats if per_round else 1):
        for names in groups:
            if not names:
                continue
            spec = dict(base, engines={n: str(work / n) for n in names}, repeats=1 if per_round else args.repeats,
                        slow_qps=args.slow_qps, slow_queries=args.slow_queries, src=_src(names[0], args))
            print(f"  timing {', '.join(names)} at top {base['k']}: {spec['repeats']} round(s) x {len(MODES)} modes"
                  f" (load {os.getloadavg()[0]:.2f}) ...", flush=True)
            out = run_worker("timing", spec, logdir / f"{c['label']}.k{base['k']}.timing.log",
                             args.timeout * max(1, len(names)))
            for n in names:
                if "error" in out:
                    E[n]["error"] = f"timing: {out['error']}"
                    continue
                t = out["engines"][n]
                if "error" in t:
                    E[n]["error"] = f"search: {t['error']}"
                    print(f"  {n:13s} search FAILED: {t['error']}", flush=True)
                    continue
                sight = t.pop("first_sight_qps", None)
                if "timing" not in E[n]:
                    E[n]["timing"] = t
                    t["first_sight_qps"] = [sight]
                else:  # the rounds of another process: appended
                    E[n]["timing"]["first_sight_qps"].append(sight)
                    for m, v in t["timings"].items():
                        for key in ("seconds", "cpu_seconds", "load"):
                            E[n]["timing"]["timings"][m][key] += v[key]
    for n in ok:
        t = E[n].get("timing")
        if t and "error" not in E[n]:
            nq = t.get("timed_queries") or n_q
            qps = ", ".join(f"{m} {statistics.median(nq / x for x in v['seconds']):,.0f} (load {min(v['load']):.1f}-"
                            f"{max(v['load']):.1f})" for m, v in t.get("timings", {}).items())
            sight = [x for x in t.get("first_sight_qps", []) if x]
            sight = f"; per-query@1 first sight of each text {statistics.median(sight):,.0f}" if sight else ""
            print(f"  {n:13s} QPS (median) {qps}{sight}; nDCG@10 {t.get('quality', {}).get('nDCG@10')}", flush=True)


def bench_corpus(c: dict, engines: list[str], args, logdir: Path) -> dict:
    """Every figure of one corpus: indexing, then per k search speed and search peak RSS."""
    label = c["label"]
    work = Path(args.work) / "indexes" / label
    n_q = min(c["n_queries"], args.max_queries or c["n_queries"])
    print(f"\n== {label}: {c['n_docs']:,} docs, {n_q:,} judged queries"
          f"{' (SYNTHETIC)' if c['synthetic'] else ''}", flush=True)
    indexed = index_corpus(c, engines, args, logdir, work)
    out = {"corpus": c, "by_k": {}}
    for k in args.ks:
        E = {name: dict(e, memory_runs=[]) for name, e in indexed.items()}
        ok = [n for n in engines if "error" not in E[n]]
        base = {"dataset": c["dataset"], "data_dir": c["data_dir"], "k": k, "k1": args.k1, "b": args.b,
                "max_queries": args.max_queries}
        time_corpus(c, E, ok, base, args, logdir, work, n_q)
        ok = [n for n in ok if "error" not in E[n]]
        # 3. search peak RSS: a fresh process per engine
        for r in range(args.rss_repeats):
            for name in ok:
                tq = E[name].get("timing", {}).get("timed_queries")
                mspec = dict(base, engine=name, workdir=str(work / name), src=_src(name, args))
                if tq and tq < n_q:
                    mspec["max_queries"] = tq  # a slow engine: the same subset as its timing
                res = run_worker("memory", mspec, logdir / f"{label}.{name}.memory.log", args.timeout)
                if "error" in res:
                    E[name]["error"] = f"memory probe: {res['error']}"
                    print(f"  {name:13s} memory probe FAILED: {res['error']}", flush=True)
                    continue
                E[name]["memory_runs"].append(res)
                print(f"  {name:13s} search peak RSS {res['search_peak_rss_mib']:,.0f} MiB "
                      f"(after load {res['rss_after_load_mib']:,.0f} MiB)", flush=True)
        _summarize(E, n_q)
        ratios, targets = ratios_and_targets(E, k)
        out["by_k"][str(k)] = {"engines": E, "ratios": ratios, "targets": targets}
    if not args.keep_indexes:
        shutil.rmtree(work, ignore_errors=True)
    return out


def _summarize(E: dict, n_q: int) -> None:
    for name, e in E.items():
        n_items = e.get("timing", {}).get("timed_queries") or n_q
        runs = e["index_runs"]
        if runs:
            e["index"] = {"seconds": summarize([x["seconds"] for x in runs]),
                          "docs_per_s": summarize([x["n_docs"] / x["seconds"] for x in runs]),
                          "docs_per_cpu_s": summarize([x["n_docs"] / x["cpu_seconds"] for x in runs
                                                       if x.get("cpu_seconds")]),
                          "warmup_seconds": summarize([x.get("warmup_seconds") for x in runs]),
                          "load": [x.get("load") for x in runs],
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
            e["search_load"] = {m: [min(v["load"]), max(v["load"])] for m, v in t["timings"].items() if v.get("load")}
            for key in ("quality", "agreement", "settings", "native_batch", "convert_s", "load_s", "warmup_s"):
                if key in t:
                    e[key] = t[key]


def _parser() -> argparse.ArgumentParser:
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
    ap.add_argument("--k", default="1000", help="hits per query; a comma list times each (e.g. 10,1000)")
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
    ap.add_argument("--baseline-src", default=None,
                    help=f"a Sounding checkout (e.g. a worktree of the commit before a change): its engine runs too, "
                         f"as {BASELINE!r}, its search timed in processes alternated with the others")
    ap.add_argument("--large-build", type=float, default=None, metavar="SCALE",
                    help="also the large build: the synthetic corpus at SCALE (1.0: NQ size) indexed with packed "
                         "postings as `sounding index` does, and its whole `sounding search` (benchmarks/large_build.py)")
    ap.add_argument("--large-repeats", type=int, default=2, help="large build and whole-search runs (alternated)")
    return ap


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        return _worker_main(*argv[1:4])
    if argv[:1] == ["--render"]:  # print the tables of saved results: --render FILE.json
        print(table(json.loads(Path(argv[1]).read_text())))
        return 0
    ap = _parser()
    args = ap.parse_args(argv)
    if min(args.repeats, args.index_repeats, args.rss_repeats, args.large_repeats) < 1:
        ap.error("--repeats, --index-repeats, --rss-repeats and --large-repeats must be at least 1")
    try:
        args.ks = [int(k) for k in args.k.split(",") if k.strip()]
    except ValueError:
        ap.error(f"--k: whole numbers, comma-separated (got {args.k!r})")
    if not args.ks or min(args.ks) < 1:
        ap.error("--k: at least one, each at least 1")
    if args.baseline_src and not (Path(args.baseline_src) / "src" / "sounding").is_dir():
        ap.error(f"--baseline-src {args.baseline_src}: no src/sounding there")

    from sounding.retrieval.engines import ENGINES

    wanted = [e.strip() for e in args.engines.split(",") if e.strip()]
    unknown = [e for e in wanted if e not in ENGINES]
    if unknown:
        ap.error(f"unknown engine(s): {', '.join(unknown)}; choose from {', '.join(ENGINES)}")
    if "sounding" in wanted:
        wanted = ["sounding"] + [e for e in wanted if e != "sounding"]
    installed = [e for e in wanted if ENGINES[e].available()]
    versions = {e: (ENGINES[e].version() if e in installed else "not installed") for e in wanted}
    if args.baseline_src and "sounding" in installed:
        installed.insert(1, BASELINE)
        versions[BASELINE] = str(Path(args.baseline_src).resolve())
    Path(args.work).mkdir(parents=True, exist_ok=True)
    logdir = Path(args.work) / "logs"
    logdir.mkdir(exist_ok=True)
    results = {
        "benchmark": "bm25_peers", "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.executable).name, "benchmarks/bm25_peers.py"] + argv),
        "machine": machine(), "versions": versions, "source": source_state(),
        "settings": {"k": args.ks, "k1": args.k1, "b": args.b, "repeats": args.repeats,
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
                for by_k in res["by_k"].values():
                    by_k["engines"][e] = {"error": f"not installed ({ENGINES[e].requirement})"}
        results["corpora"][c["label"]] = res
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(results, indent=1, default=str))
    if args.large_build:
        import large_build

        results["large_build"] = large_build.run(args.large_build, args, baseline_src=args.baseline_src)
        Path(args.out).write_text(json.dumps(results, indent=1, default=str))
    results["seconds"] = round(time.perf_counter() - t0, 1)
    try:
        results["machine"]["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    Path(args.out).write_text(json.dumps(results, indent=1, default=str))
    print(table(results))
    print("\nJSON summary (full results in " + args.out + "):")
    print(json.dumps({label: {f"top-{k}": {"ratios": r["ratios"], "targets": r["targets"]} for k, r in c["by_k"].items()}
                      for label, c in results["corpora"].items()}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
