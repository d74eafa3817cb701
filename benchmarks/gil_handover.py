"""What two client threads can gain from one short search call each, on this machine and this Python.

    python benchmarks/gil_handover.py [--index IDX --dataset scifact] [--json]

A query searched through `Searcher.search` holds the GIL for its Python part (the call, its arguments,
the results) and lets it go for the compiled kernel. A thread coming back from the kernel while the other
holds the GIL sleeps until it is let go, and CPython (3.11: a mutex and a condition variable, no spinning)
wakes it through the kernel's scheduler. When that wake-up costs more than the kernel itself, two threads
queue on the GIL instead of searching side by side. This script measures the three things that decide it,
with the 1-minute load average beside each figure:

1. `handover`: a round trip between two Python threads over two locks (two wake-ups), in µs;
2. `call_scaling`: a compiled function without the GIL, 20 array arguments (as a search kernel takes),
   called in a loop from one thread and from two: the gain of two threads by the length of one call,
   letting the GIL go plainly and taking part in the turn as the search kernels do (kernels/handover.py).
   Nothing but the loop and the call holds the GIL, so this bounds what any one-query-a-call path with
   calls of that length (a query's Python part included) can gain from a second client thread here;
3. with `--index` (a Sounding index) and `--dataset` (its queries): Sounding's top-10 query, one
   `Searcher.search` call a query from one client thread and from two (`per-query`), against the same
   kernel called for all queries inside one compiled loop a thread (`kernel-loop`: no GIL hand-over).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path

import numba as nb
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from sounding.retrieval.search.kernels import handover as turns  # noqa: E402


def handover(n: int = 20_000) -> float:
    a, b = threading.Lock(), threading.Lock()
    a.acquire()
    b.acquire()

    def pong():
        for _ in range(n):
            a.acquire()
            b.release()

    t = threading.Thread(target=pong)
    t.start()
    start = time.perf_counter()
    for _ in range(n):
        a.release()
        b.acquire()
    seconds = time.perf_counter() - start
    t.join()
    return 1e6 * seconds / n


def _work_py(n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19):
    s = 0.0
    for i in range(n):
        s += (i * 0.5) ** 0.5
    a0[0] = s
    return s


_work = nb.njit(nogil=True)(_work_py)
_work_gil = nb.njit(_work_py)


@nb.njit(nogil=True)
def _work_turn(n, turn, me, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18,
               a19):
    """_work without the GIL, taking part in the turn as a search kernel does (kernels/handover.py)."""
    turns.give_up(turn, me)
    s = _work_gil(n, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19)
    turns.wait_for(turn, me)
    return s


def _threads(fn, per_thread: list) -> float:
    """Calls a second: `fn(item)` for every item of each thread's list, the threads started together."""
    ts = [threading.Thread(target=lambda items: [fn(x) for x in items], args=(items,)) for items in per_thread]
    start = time.perf_counter()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return sum(map(len, per_thread)) / (time.perf_counter() - start)


def call_scaling(calls: int = 20_000) -> list[dict]:
    """By the length of one call: the gain of two threads when the call lets the GIL go (`two_threads_gain`)
    and when it also takes part in the turn (`with_turn_gain`); no Python but the loop and the call, so no
    per-query path with the same kernel and more Python around it gains more."""
    arrays = [np.zeros(4) for _ in range(20)]
    own = [[a.copy() for a in arrays] for _ in range(2)]  # each thread its own arrays, as single.py's threads
    turn = turns.TURN
    out = []
    for n in (0, 500, 2_000, 5_000, 10_000, 20_000, 50_000):
        _work(n, *arrays)
        one = statistics.median(_threads(lambda _: _work(n, *arrays), [range(calls)]) for _ in range(3))
        two = statistics.median(_threads(lambda _: _work(n, *arrays), [range(calls // 2)] * 2) for _ in range(3))
        marks = [turns.mark() for _ in own]
        _work_turn(n, turn, marks[0], *own[0])

        def one_thread(items, me=marks[0], mine=own[0]):
            for _ in items:
                _work_turn(n, turn, me, *mine)

        def per_thread(i):
            me, mine = marks[i], own[i]
            return lambda items: [_work_turn(n, turn, me, *mine) for _ in items]

        solo = statistics.median(_loops([one_thread], calls) for _ in range(3))
        pair = statistics.median(_loops([per_thread(0), per_thread(1)], calls // 2) for _ in range(3))
        out.append({"call_us": round(1e6 / one, 1), "two_threads_gain": round(two / one, 2),
                    "turn_call_us": round(1e6 / solo, 1), "with_turn_gain": round(pair / solo, 2)})
    return out


def _loops(loops: list, calls: int) -> float:
    """Calls a second: each loop run over `calls` items in its own thread, the threads started together."""
    ts = [threading.Thread(target=loop, args=(range(calls),)) for loop in loops]
    start = time.perf_counter()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return len(loops) * calls / (time.perf_counter() - start)


def searcher_scaling(index: str, dataset: str, rounds: int = 3) -> dict:
    from sounding.datasets import load_dataset
    from sounding.retrieval.search import BM25Params, Searcher
    from sounding.retrieval.search import single

    queries = list(load_dataset(dataset).queries.items())
    s = Searcher(index)
    params = BM25Params(layout="flat", k=10)
    for q, t in queries:
        s.search([(q, t)], params)
    plan = s.single._plan
    clauses = [plan.texts[t][:3] for _, t in queries]
    kernel = nb.njit(nogil=True)(single.search_one_gil.py_func)

    @nb.njit(nogil=True)
    def loop(ptr, fields, terms, weights, reps, offsets, docs, tfs, impacts, imp_base, lucene, maxima, max_base,
             prune, lookup_ratio, rank, rank_to_doc, rank_bits, k, wacc, wtouched, wbits, sel, tmp, hist):
        found = 0
        for _ in range(reps):
            for q in range(ptr.shape[0] - 1):
                a, z = ptr[q], ptr[q + 1]
                found += kernel(fields[a:z], terms[a:z], weights[a:z], offsets, docs, tfs, impacts, imp_base, lucene,
                                maxima, max_base, prune, lookup_ratio, rank, rank_to_doc, rank_bits, k, wacc, wtouched,
                                wbits, sel, tmp, hist)[2][0]
        return found

    ptr = np.concatenate([[0], np.cumsum([len(c[0]) for c in clauses])]).astype(np.int64)
    flat = [np.concatenate([c[i] for c in clauses]) for i in range(3)]
    reps = 20

    def in_loop(_):
        buf = s._scratch().window(plan.k)
        loop(ptr, *flat, reps, *plan.args, buf["wacc"], buf["wtouched"], buf["wbits"], buf["sel"], buf["tmp"], buf["hist"])

    def per_query(item):
        s.search([item], params)

    in_loop(None)
    out = {}
    for name, fn, items, scale in (("kernel-loop", in_loop, [None], reps * len(queries)),
                                   ("per-query", per_query, queries * 10, 1)):
        one = statistics.median(_threads(fn, [items]) * scale for _ in range(rounds))
        two = statistics.median(_threads(fn, [items[i::2] for i in range(2)] if len(items) > 1 else [items, items])
                                * scale for _ in range(rounds))
        out[name] = {"qps_1": round(one), "qps_2": round(two), "two_threads_gain": round(two / one, 2)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", help="a Sounding index (e.g. `sounding index scifact --out idx/scifact`)")
    ap.add_argument("--dataset", help="the dataset whose queries to search (e.g. scifact)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    res = {"python": sys.version.split()[0], "load_start": os.getloadavg()[0]}
    res["handover_round_trip_us"] = round(statistics.median(handover() for _ in range(3)), 1)
    print(f"GIL hand-over: a round trip between two threads {res['handover_round_trip_us']} µs "
          f"(load {os.getloadavg()[0]:.2f})", flush=True)
    res["call_scaling"] = call_scaling()
    for row in res["call_scaling"]:
        print(f"nogil call of {row['call_us']:>5} µs: two threads give {row['two_threads_gain']}× one; "
              f"with the turn ({row['turn_call_us']} µs a call alone) {row['with_turn_gain']}× "
              f"(load {os.getloadavg()[0]:.2f})", flush=True)
    if a.index and a.dataset:
        res["searcher"] = searcher_scaling(a.index, a.dataset)
        for name, row in res["searcher"].items():
            print(f"{a.dataset} top 10, {name}: 1 thread {row['qps_1']:,} q/s, 2 threads {row['qps_2']:,} q/s "
                  f"({row['two_threads_gain']}×; load {os.getloadavg()[0]:.2f})", flush=True)
    if a.json:
        print(json.dumps(res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
