"""The run explorer as a page of its own, for two run files (`sounding diff --html`): the explorer of
report.html, with the comparison's figures above it."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..blocks import Explorer, Para, Section
from ..charts import colours
from ..html import render_html
from ..result_table import ResultTable
from .payload import build, encode
from .topics import build_topics


def diff_page(diff, names: tuple[str, str], dataset: str, queries: Mapping[str, str], qrels, corpus: Path | None,
              analyzer: str) -> str:
    """The page for a `RunDiff` (sounding.eval.diff) of runs named `names`; `queries` and `corpus` (None
    without a dataset: documents are then shown by id only) give the texts."""
    a, b = names
    topics = build_topics(queries, qrels, corpus, analyzer, diff.rankings)
    rows = [{"dataset": dataset, "setting": n, "engine": "run", "metrics": {diff.measure: mean}}
            for n, mean in ((a, diff.comparison.mean_a), (b, diff.comparison.mean_b))]
    per_query = {(dataset, a): {q.qid: q.a for q in diff.queries}, (dataset, b): {q.qid: q.b for q in diff.queries}}
    lists = {(dataset, a): diff.rankings[0], (dataset, b): diff.rankings[1]}
    data = build(ResultTable(rows), per_query, lists, {dataset: topics}, {dataset: (a, b)}, colours([a, b]),
                 measure=diff.measure, depth=diff.depth)
    c = diff.comparison
    s = Section("per-query", f"{a} against {b}")
    s.blocks.append(Para(
        f"{c.n} judged queries of {dataset}. {diff.measure}: A {c.mean_a:.4f}, B {c.mean_b:.4f}, A − B "
        f"{c.diff:+.4f} (95% bootstrap interval [{c.ci_low:+.4f}, {c.ci_high:+.4f}]); A wins {c.wins}, ties "
        f"{c.ties}, loses {c.losses}; paired t-test p {c.t_pvalue:.4f}, randomization p {c.rand_pvalue:.4f} "
        f"({c.permutations:,} sign flips). RBO (p = {diff.p}) and KTU of the two top {diff.depth} lists as "
        f"repro_eval defines them (Sounding's docs/definitions.md)."))
    if not corpus:
        s.blocks.append(Para("No dataset was named, so documents are shown by id, without titles or snippets "
                             "(give a dataset instead of a qrels file to see them).", "note"))
    s.blocks.append(Explorer(encode(data)))
    return render_html([s], {}, title=f"Sounding diff — {a} vs {b}", heading="Sounding diff")
