"""The settings grid of `sounding run`: which engine, arm, layout and BM25 parameters make a run."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from ..errors import SoundingError
from ..io import slug as model_slug
from ..search.layouts import KINDS, LAYOUTS
from ..search.params import PRESETS, BM25Params


@dataclass(frozen=True)
class Setting:
    engine: str = "sounding"
    arm: str = "bm25"
    layout: str = "flat"
    params: str = "anserini"
    lucene_norms: bool = False
    model: str = ""  # non-BM25 arms: the model (name or path) the arm uses
    proximity: float = 0.0  # weight of the term-proximity bonus (0: off)
    typos: bool = False  # typo-tolerant term matching

    @property
    def k1(self) -> float | None:
        return PRESETS[self.params][0] if self.params in PRESETS else None

    @property
    def b(self) -> float | None:
        return PRESETS[self.params][1] if self.params in PRESETS else None

    @property
    def name(self) -> str:
        if self.arm != "bm25":  # e.g. sounding.dense.all-minilm-l6-v2 or sounding.hybrid.wrrf.all-minilm-l6-v2
            parts = [self.engine, self.arm] + [p for p in (self.params, model_slug(self.model)) if p]
            return ".".join(parts)
        return ".".join([self.engine, self.arm, self.layout, self.params]
                        + (["lucene-norms"] if self.lucene_norms else [])
                        + ([f"prox{self.proximity:g}"] if self.proximity else [])
                        + (["typos"] if self.typos else []))

    def describe(self) -> dict:
        return {**asdict(self), "k1": self.k1, "b": self.b, "setting": self.name}

    def bm25(self, k: int) -> BM25Params:
        """The BM25 search of this setting, top k (its Lucene rows with Anserini's tie handling: Pyserini's runs)."""
        return BM25Params.preset(self.params, layout=self.layout, lucene_norms=self.lucene_norms,
                                 anserini_ties=self.lucene_norms, proximity=self.proximity, typos=self.typos, k=k)


def parse_list(value: str | list[str] | tuple[str, ...] | None, allowed: tuple[str, ...], what: str) -> list[str]:
    """'a,b' or ['a', 'b'] → checked list (order kept, duplicates dropped)."""
    if value is None:
        return list(allowed)
    items = value.split(",") if isinstance(value, str) else [v for x in value for v in x.split(",")]
    items = list(dict.fromkeys(i.strip() for i in items if i.strip()))
    bad = [i for i in items if i not in allowed]
    if bad:
        raise SoundingError(f"unknown {what} {', '.join(bad)}; choose from: {', '.join(allowed)}")
    return items


PEER_LAYOUT = LAYOUTS[0]  # the one layout comparator engines search: one field, title + text (Pyserini's "flat")
DEFAULT_PROXIMITY = 0.05  # chosen by the sweep in docs/relevance.md (BM25F: every set at or above no-bonus)
VARIANTS = ("proximity", "typos")
# Arithmetic of Sounding's BM25 rows: "exact" (real-valued lengths, float64), "lucene" (Lucene's one-byte
# norms and float arithmetic with Anserini's tie handling: Pyserini's runs), or "both", side by side.
NORMS = ("both", "exact", "lucene")


def grid(engines: list[str], layouts: list[str], params: list[str], norms: str | bool = "exact",
         variants: list[str] = ()) -> list[Setting]:
    """Sounding runs every layout × parameter set in the asked arithmetic(s) (plus each requested
    variant beside the plain run); comparator engines run the flat layout only. BM25F has no Lucene
    form, so it always runs in exact arithmetic."""
    if isinstance(norms, bool):
        norms = "lucene" if norms else "exact"
    if norms not in NORMS:
        raise SoundingError(f"unknown arithmetic {norms!r}; choose from: {', '.join(NORMS)}")
    out = []
    for engine in engines:
        for layout in layouts if engine == "sounding" else [PEER_LAYOUT]:
            if engine != "sounding" and PEER_LAYOUT not in layouts:
                continue
            lucene_ok = engine == "sounding" and KINDS[layout].lucene
            kinds = {"exact": [False], "lucene": [True], "both": [False, True]}[norms] if lucene_ok else [False]
            for p in params:
                for lucene in kinds:
                    out.append(Setting(engine, "bm25", layout, p, lucene))
                    if engine == "sounding" and "proximity" in variants:
                        out.append(Setting(engine, "bm25", layout, p, lucene, proximity=DEFAULT_PROXIMITY))
                    if engine == "sounding" and "typos" in variants:
                        out.append(Setting(engine, "bm25", layout, p, lucene, typos=True))
    return out


__all__ = ["DEFAULT_PROXIMITY", "NORMS", "VARIANTS", "Setting", "grid", "model_slug", "parse_list", "LAYOUTS", "PRESETS"]
