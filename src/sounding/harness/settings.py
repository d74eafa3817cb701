"""The settings grid of `sounding run`: which engine, arm, layout and BM25 parameters make a run."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from ..errors import SoundingError
from ..io import slug as model_slug
from ..search.bm25 import PRESETS
from ..search.layouts import LAYOUTS


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


DEFAULT_PROXIMITY = 0.05  # chosen by the sweep in docs/relevance.md (BM25F: every set at or above no-bonus)
VARIANTS = ("proximity", "typos")


def grid(engines: list[str], layouts: list[str], params: list[str], lucene_norms: bool,
         variants: list[str] = ()) -> list[Setting]:
    """Sounding runs every layout × parameter set (plus each requested variant beside the plain
    run); comparator engines run the flat layout only."""
    out = []
    for engine in engines:
        for layout in layouts if engine == "sounding" else ["flat"]:
            if engine != "sounding" and "flat" not in layouts:
                continue
            for p in params:
                norms = lucene_norms and engine == "sounding" and layout != "bm25f"
                out.append(Setting(engine, "bm25", layout, p, norms))
                if engine == "sounding" and "proximity" in variants:
                    out.append(Setting(engine, "bm25", layout, p, norms, proximity=DEFAULT_PROXIMITY))
                if engine == "sounding" and "typos" in variants:
                    out.append(Setting(engine, "bm25", layout, p, norms, typos=True))
    return out


__all__ = ["DEFAULT_PROXIMITY", "VARIANTS", "Setting", "grid", "model_slug", "parse_list", "LAYOUTS", "PRESETS"]
