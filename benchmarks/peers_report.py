"""Figures and targets of benchmarks/bm25_peers.py: medians, Sounding/peer ratios, the targets met or
missed (with by how much), and the Markdown tables it prints (`--render FILE.json` prints them again)."""
from __future__ import annotations

import statistics


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


def summarize(values: list[float]) -> dict:
    values = [v for v in values if v is not None]
    if not values:
        return {}
    med = statistics.median(values)
    spread = (max(values) - min(values)) / med * 100 if med else 0.0
    return {"median": med, "min": min(values), "max": max(values), "n": len(values), "spread_pct": round(spread, 1),
            "values": [round(v, 4) for v in values]}


def _med(e: dict, *path):
    x = e
    for p in path:
        if not isinstance(x, dict) or p not in x:
            return None
        x = x[p]
    return x.get("median") if isinstance(x, dict) else x


def ratios_and_targets(engines: dict, k: int) -> tuple[dict, list]:
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

    bm25s, tantivy = engines.get("bm25s", {}), engines.get("tantivy", {})
    if k <= 100:  # interactive search (issue 34): top 10, one thread
        target(f"QPS batch@1 ≥ 2× bm25s (top {k})", _med(s, "search", "batch@1"), _med(bm25s, "search", "batch@1"), 2.0,
               True, "QPS", cpu=(_med(s, "search_cpu", "batch@1"), _med(bm25s, "search_cpu", "batch@1")))
        goal = [(v, f) for v, f in ((_med(bm25s, "search", "per-query@1"), 2.0),
                                   (_med(tantivy, "search", "per-query@1"), 1.0)) if v]
        peer, factor = max(goal, key=lambda x: x[0] * x[1]) if goal else (None, 1.0)
        target(f"QPS per-query@1 ≥ max(2× bm25s, tantivy) (top {k})", _med(s, "search", "per-query@1"), peer,
               factor, True, "QPS")
        threads = [m for m in s.get("search", {}) if m.startswith("per-query@") and m != "per-query@1"]
        for m in threads:  # concurrent clients: the per-query path must not hold the GIL
            target(f"QPS {m} ≥ 1.6× per-query@1 (top {k})", _med(s, "search", m), _med(s, "search", "per-query@1"),
                   1.6, True, "QPS")
    for m in ("batch@1", "per-query@1"):  # the earlier round's targets (2× bm25s: above, at top 10)
        for peer, factor, what in ((("bm25s", 2.0, "2× bm25s"),) if k > 100 else ()) + (("pisa", 1.0, "PISA"),):
            p = engines.get(peer, {})
            target(f"QPS {m} ≥ {what} (top {k})", _med(s, "search", m), _med(p, "search", m), factor, True, "QPS",
                   cpu=(_med(s, "search_cpu", m), _med(p, "search_cpu", m)))
    target("index docs/CPU-s ≥ tantivy (compile time apart)", _med(s, "index", "docs_per_cpu_s"),
           _med(tantivy, "index", "docs_per_cpu_s"), 1.0, True, "docs/CPU-s")
    target("indexing docs/s ≥ bm25s", _med(s, "index", "docs_per_s"), _med(bm25s, "index", "docs_per_s"),
           1.0, True, "docs/s", cpu=(_med(s, "index", "docs_per_cpu_s"), _med(bm25s, "index", "docs_per_cpu_s")))
    target("search peak RSS ≤ bm25s", _med(s, "search_peak_rss_mib"), _med(bm25s, "search_peak_rss_mib"),
           1.0, False, "MiB")
    base = engines.get("sounding-base", {})
    if base:  # today against the baseline source tree: no slower
        for m in s.get("search", {}):
            target(f"QPS {m} ≥ the baseline's (top {k})", _med(s, "search", m), _med(base, "search", m), 1.0, True,
                   "QPS", cpu=(_med(s, "search_cpu", m), _med(base, "search_cpu", m)))
    return ratios, targets


# ---------------------------------------------------------------------------------------------------
# report
def fmt_range(summary: dict | None, fmt: str = "{:,.0f}") -> str:
    if not summary:
        return "–"
    return f"{fmt.format(summary['median'])} ({fmt.format(summary['min'])}–{fmt.format(summary['max'])})"


def _loads(values) -> str:
    values = [v for v in values or [] if v is not None]
    return f"{min(values):.1f}–{max(values):.1f}" if values else "–"


def table(results: dict) -> str:
    """Per corpus: indexing (compile time apart) and, per k, search speed, ratios and targets; then the
    large build. The load average beside every figure."""
    lines = []
    settings = results["settings"]
    for label, res in results["corpora"].items():
        c = res["corpus"]
        n_q = min(c["n_queries"], settings["max_queries"] or c["n_queries"])
        syn = " — SYNTHETIC (NQ-shaped)" if c["synthetic"] else ""
        lines.append(f"\n### {label}{syn}: {c['n_docs']:,} docs, {n_q:,} queries, k1={settings['k1']} b={settings['b']}\n")
        first = next(iter(res["by_k"].values()))
        lines.append("| engine | index docs/s | index docs/CPU-s | compile/warm-up s (apart) | index MiB | index peak MiB | load |")
        lines.append("|---|---|---|---|---|---|---|")
        for name, e in first["engines"].items():
            ix = e.get("index")
            if not ix:
                lines.append(f"| {name} | {e.get('error', 'not installed')[:120]} | | | | | |")
                continue
            lines.append(f"| {name} | {fmt_range(ix['docs_per_s'])} | {fmt_range(ix['docs_per_cpu_s'])} | "
                         f"{fmt_range(ix.get('warmup_seconds'), '{:.2f}')} | {ix['bytes'] / 2**20:,.1f} | "
                         f"{ix['peak_rss_mib']['median']:,.0f} | {_loads(ix.get('load'))} |")
        for k, by_k in res["by_k"].items():
            lines += _search_table(by_k, k, c, n_q, settings)
    if results.get("large_build"):
        from large_build import report

        lines.append(report(results["large_build"]))
    return "\n".join(lines)


def _search_table(res: dict, k: str, c: dict, n_q: int, settings: dict) -> list[str]:
    lines = [f"\n**{c['label']}, top {k}**\n"]
    modes = []
    for e in res["engines"].values():
        modes += [m for m in e.get("search", {}) if m not in modes]
    head = ["engine", "nDCG@10"] + [f"QPS {m}" for m in modes] + ["load", "search peak MiB"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    for name, e in res["engines"].items():
        if "error" in e or "search" not in e:
            lines.append(f"| {name} | {e.get('error', 'not installed')[:120]} |" + " |" * (len(head) - 2))
            continue
        q, k1b = e.get("quality", {}), e.get("settings", {})
        nd = f"{q.get('nDCG@10', float('nan')):.4f}"
        if abs(k1b.get("k1", 0) - settings["k1"]) > 1e-9:
            nd += f" (k1={k1b['k1']}, b={k1b['b']})"
        cells = [name, nd]
        dagger = "†" if e.get("timing", {}).get("timed_queries", 0) < n_q else ""
        for m in modes:
            star = "*" if m.startswith("batch") and not e.get("native_batch", True) else ""
            cells.append(fmt_range(e["search"].get(m)) + star + dagger)
        cells.append(_loads([x for v in e.get("search_load", {}).values() for x in v]))
        cells.append(fmt_range(e.get("search_peak_rss_mib")))
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("\nmedian (min–max) over rounds; load: the 1-minute load average at each timed pass; index peak = "
                 "the indexing process (documents in memory included, the same for all); * no batch API: its "
                 f"per-query loop; † slow engine: timed on the first {settings['slow_queries']} queries.")
    if res["ratios"]:
        lines.append("\nSounding / peer (median ratios; > 1 = Sounding higher):\n")
        keys = []
        for r in res["ratios"].values():
            keys += [x for x in r if x not in keys]
        lines.append("| peer | " + " | ".join(keys) + " |")
        lines.append("|" + "---|" * (len(keys) + 1))
        for peer, r in res["ratios"].items():
            lines.append(f"| {peer} | " + " | ".join(str(r.get(x, "–")) for x in keys) + " |")
    lines.append("\nTargets:")
    for t in res["targets"]:
        lines.append(f"- {t['target']}: {t.get('note', t['status'])}")
    return lines
