"""Mr. TyDi helpers: the 11-language results table (castorini's hybrid is retrieval/fusion/castorini.py).

**Table.** `mrtydi_table(rows)` formats `sounding run` rows of the `mrtydi-<lang>` datasets as one
Markdown table per setting: MRR@100 (RR@100), R@100 (trec_eval recall.100) and Success@100 per
language, then the mean over the languages present, labelled with their codes, beside

* Pyserini/Anserini's current BM25 regression (`mrtydi-bm25`, docs/baselines.md 2b), and
* the Mr. TyDi paper's BM25 (default) row (`mrtydi-readme-bm25-default`, docs/baselines.md 2a: README
  @ 0ca1c66, which keeps paper Table 2's BM25 rows).

Both come from `sounding.experiment.baselines` when it is installed, else from the copy below (a test
checks that the two agree). Korean and Telugu differ between the two sources: Anserini moved ko from
CJKAnalyzer (bigrams; 0.2848, the paper's 0.285) to Nori's KoreanAnalyzer in 2026 (0.3040), and the
paper-era te run had no Telugu analyzer (0.343 vs 0.5283 now). A row whose analyzer is `korean-cjk`
is set beside the old CJK figure.
"""
from __future__ import annotations

from ..errors import SoundingError
from .baselines import published

MRTYDI_LANGS: tuple[str, ...] = ("ar", "bn", "en", "fi", "id", "ja", "ko", "ru", "sw", "te", "th")


PYSERINI_SOURCE = ("castorini/pyserini:pyserini/2cr/mrtydi.yaml (= Anserini mrtydi-v1.1-<lang> regressions), "
                   "docs/baselines.md 2b")
PAPER_SOURCE = "castorini/mr.tydi README @ 0ca1c66, BM25 (default) row = paper Table 2, docs/baselines.md 2a"


# -- published figures -------------------------------------------------------------------------------
def published_bm25(lang: str, *, korean_cjk: bool = False) -> dict[str, tuple[float, float] | None]:
    """{"pyserini": (RR@100, R@100), "paper": (MRR@100, R@100)} for the test split (None where absent)."""

    def pair(condition: str):
        e = published(f"mrtydi-{lang}", condition, "test")
        return (e["RR@100"], e["R@100"]) if e else None

    return {"pyserini": pair("mrtydi-bm25-cjk" if lang == "ko" and korean_cjk else "mrtydi-bm25"),
            "paper": pair("mrtydi-readme-bm25-default")}


# -- table -------------------------------------------------------------------------------------------
MEASURES = ("RR@100", "R@100", "Success@100")


def mrtydi_table(rows: list[dict], *, setting: str | None = None, digits: int = 4) -> str:
    """Markdown: per setting, one line per Mr. TyDi language and the mean over the languages present.

    `rows` are `sounding run` results rows (`dataset` = mrtydi-<lang>, `metrics`); other datasets are
    ignored, and `setting` keeps only that setting. Averages are plain means of the per-language means
    and name their languages; the published columns are averaged over the same languages, so the
    comparison is like for like even when only some languages were run.
    """
    picked = [r for r in rows if _lang(r) and (setting is None or r.get("setting") == setting)]
    if not picked:
        return "(no Mr. TyDi rows)\n"
    by_setting: dict[str, dict[str, dict]] = {}
    for r in picked:
        per_lang = by_setting.setdefault(str(r.get("setting", "")), {})
        lang = _lang(r)
        if lang in per_lang:
            raise SoundingError(f"two rows for {r['dataset']} under setting {r.get('setting')!r}")
        per_lang[lang] = r
    parts = [_one_table(name, per_lang, digits) for name, per_lang in by_setting.items()]
    notes = [
        "- MRR@100 = trec_eval recip_rank on the top 100; R@100 = trec_eval recall.100; Success@100 = share of "
        "queries with a relevant passage in the top 100. Means over every judged query (trec_eval -c).",
        f"- Pyserini BM25: {PYSERINI_SOURCE} (k1=0.9, b=0.4, 100 hits). Paper BM25 (3 d.p.): {PAPER_SOURCE}; "
        "its 'Recall@100' is scored with trec_eval recall.100.",
        "- † Korean and Telugu differ between the two: Anserini switched ko from CJKAnalyzer (0.2848, the "
        "paper's 0.285) to Nori's KoreanAnalyzer (0.3040) in 2026, and the paper-era te run lacked a Telugu "
        "analyzer (0.343 vs 0.5283).",
    ]
    return "\n\n".join(parts) + "\n\n" + "\n".join(notes) + "\n"


def _lang(row: dict) -> str | None:
    name = str(row.get("dataset", ""))
    if name.startswith("mrtydi-") and name[len("mrtydi-"):] in MRTYDI_LANGS:
        return name[len("mrtydi-"):]
    return None


def _one_table(setting: str, per_lang: dict[str, dict], digits: int) -> str:
    langs = [lang for lang in MRTYDI_LANGS if lang in per_lang]

    def fmt(v: float | None, d: int = digits) -> str:
        return "–" if v is None else f"{v:.{d}f}"

    head = ("| lang | MRR@100 | R@100 | Success@100 | Pyserini BM25 MRR@100 | Pyserini BM25 R@100 "
            "| paper BM25 MRR@100 | paper BM25 R@100 |")
    lines = [f"**{setting or 'Mr. TyDi'}**", "", head, "|" + "---|" * 8]
    cols: list[list[float | None]] = [[] for _ in range(7)]
    for lang in langs:
        row = per_lang[lang]
        m = row.get("metrics", {})
        pub = published_bm25(lang, korean_cjk="cjk" in str(row.get("analyzer") or ""))
        vals = [m.get(k) for k in MEASURES] + list(pub["pyserini"] or (None, None)) + list(pub["paper"] or (None, None))
        for c, v in zip(cols, vals):
            c.append(v)
        note = " †" if lang in ("ko", "te") else ""
        if lang == "ko" and "cjk" in str(row.get("analyzer") or ""):
            note += " (CJK)"
        cells = [fmt(v) for v in vals[:5]] + [fmt(v, 3) for v in vals[5:]]
        lines.append(f"| {lang}{note} | " + " | ".join(cells) + " |")
    means = [None if not c or any(v is None for v in c) else sum(c) / len(c) for c in cols]
    label = f"mean of {len(langs)} ({', '.join(langs)})"
    lines.append(f"| {label} | " + " | ".join(fmt(v) for v in means) + " |")
    return "\n".join(lines)


__all__ = ["MRTYDI_LANGS", "published_bm25", "mrtydi_table"]
