"""The "Your systems against BM25" section: each user system beside the BM25 reference row."""
from __future__ import annotations

from ..blocks import Cell, Para, Section, Table, num_cell, pvalue, setting_cell, signed4, text_cell
from ..result_table import MAIN, ResultTable, as_number
from .common import ALPHA, PERMUTATIONS, user_rows


def section(res: ResultTable) -> Section:
    """Each user system (row arm "user": a retriever or a run file) beside the BM25 reference row, its
    published figure and the paired test of row["vs_bm25"]; then per dataset, the published figures of
    other systems beside this run's."""
    from ...eval.significance import holm

    s = Section("user", "Your systems against BM25")
    s.blocks.append(Para(
        f"Each system you brought (a retriever or a run file) beside Sounding's BM25 reference row (flat, "
        f"Anserini k1=0.9 b=0.4) and that row's published figure. Δ = system − BM25 on per-query {MAIN} "
        f"(BEIR convention); paired t-test and paired randomization test ({PERMUTATIONS:,} sign flips, "
        f"seeded), the randomization p Holm-corrected across the systems compared on a dataset; 95% bootstrap "
        f"interval; wins/ties/losses count queries. Verdict: Holm-corrected randomization p < {ALPHA}. "
        f"judged@10 beside it: a system that retrieves many never-judged documents may be understated."))
    body = []
    for d in res.datasets:
        rows = [r for r in user_rows(res) if r["dataset"] == d]
        tests = [r.get("vs_bm25") if isinstance(r.get("vs_bm25"), dict) else None for r in rows]
        adjusted = iter(holm([t["rand_pvalue"] for t in tests if t]) if any(tests) else [])
        for r, t in zip(rows, tests):
            body.append(_user_line(res, r, t, next(adjusted) if t else None))
    head = ["dataset", "system", MAIN, f"BM25 {MAIN}", "BM25 published", f"Δ {MAIN}", "95% CI",
            "wins/ties/losses", "p t-test", "p randomization", "p rand. (Holm)", "verdict", "judged@10",
            "BM25 judged@10"]
    s.blocks.append(Table(head, body))
    # each system's source once, under the table (a column of them would push the table past the window)
    sources = dict.fromkeys(f"{r['setting']}: {r.get('kind', '?')} {r.get('source') or '?'}" for r in user_rows(res))
    s.blocks.extend(Para(text, "note") for text in sources)
    for d in res.datasets:
        s.blocks.extend(_user_published_table(res, d))
    return s


def _user_line(res: ResultTable, r: dict, t: dict | None, p_holm: float | None) -> list[Cell]:
    d, st = r["dataset"], r["setting"]
    ref = t["reference"] if t else "sounding.bm25.flat.anserini"
    ref_row = res.row(d, ref) or {}
    attrs = dict(dataset=d, setting=st, measure=MAIN)
    system = setting_cell(res, d, st)
    system.title = f"{r.get('kind', '?')}: {r.get('source') or '?'}"
    line = [text_cell(d), system,
            num_cell(res.metric(d, st, MAIN), "user-run", **attrs),
            num_cell(res.metric(d, ref, MAIN), "user-reference", dataset=d, setting=ref, measure=MAIN),
            num_cell(as_number((ref_row.get("published") or {}).get(MAIN)), "user-published", dataset=d,
                     setting=ref, measure=MAIN)]
    if t is None:
        line += [text_cell("no BM25 reference row to test against")] + [text_cell(None)] * 6
    else:
        verdict = ("better" if t["diff"] > 0 else "worse") if p_holm < ALPHA else "n.s."
        line += [num_cell(t["diff"], "user-diff", signed4, **attrs),
                 text_cell(f"[{t['ci_low']:+.4f}, {t['ci_high']:+.4f}]", numeric=True, nowrap=True),
                 text_cell(f"{t['wins']}/{t['ties']}/{t['losses']}", numeric=True),
                 num_cell(t["t_pvalue"], "user-p-t", pvalue, **attrs),
                 num_cell(t["rand_pvalue"], "user-p-rand", pvalue, **attrs),
                 num_cell(p_holm, "user-p-rand-holm", pvalue, **attrs),
                 Cell(verdict, classes=(f"verdict-{verdict.replace('.', '')}",), strong=verdict != "n.s.")]
    line += [num_cell(res.metric(d, st, "judged@10"), "user-run", dataset=d, setting=st, measure="judged@10"),
             num_cell(res.metric(d, ref, "judged@10"), "user-reference", dataset=d, setting=ref,
                      measure="judged@10")]
    return line


def _user_published_table(res: ResultTable, dataset: str) -> list:
    """This run's rows of `dataset` and the published figures of other systems on it, best first."""
    rows = [r for r in user_rows(res) if r["dataset"] == dataset]
    published = next((r.get("published_beside") for r in rows if isinstance(r.get("published_beside"), list)), [])
    entries = [(res.metric(dataset, st, MAIN), st, "this run", st) for st in res.settings
               if res.metric(dataset, st, MAIN) is not None]
    entries += [(as_number(p.get(MAIN)), str(p.get("title") or p.get("condition")), "published",
                 str(p.get("condition") or "")) for p in published if isinstance(p, dict)]
    entries = sorted((e for e in entries if e[0] is not None), key=lambda e: -e[0])
    if not published:
        return [Para(f"{dataset}: no published figures of other systems on this dataset.", "note")]
    body = [[text_cell(name), text_cell(kind),
             num_cell(v, "user-leaderboard", dataset=dataset, setting=key, measure=MAIN)]
            for v, name, kind, key in entries]
    return [Table(["system", "", MAIN], body, f"{dataset} — this run beside published {MAIN} figures")]
