"""Field layouts: which index fields a query searches and how their scores combine.

flat            one field (title + text)                      — Pyserini "flat"
multifield      title and text scored separately, summed      — Pyserini "multifield", BEIR paper
multifield-max  the larger of the weighted field scores       — Elasticsearch best_fields
bm25f           one saturation over weighted, per-field normalised tf (title weight 3 by default)
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import validate
from ..errors import SoundingError

LAYOUTS = ("flat", "multifield", "multifield-max", "bm25f")


@dataclass(frozen=True)
class Layout:
    name: str
    # field name → weight; bm25f also takes per-field b (None: the search's b)
    weights: dict[str, float] = field(default_factory=dict)
    field_b: dict[str, float | None] = field(default_factory=dict)

    @classmethod
    def named(cls, name: str, *, title_weight: float | None = None, text_weight: float = 1.0,
              field_b: dict[str, float] | None = None) -> "Layout":
        if title_weight is not None:
            title_weight = validate.weight("title weight", title_weight)
        text_weight = validate.weight("text weight", text_weight)
        if name == "flat":
            return cls(name, {"flat": 1.0})
        if name in ("multifield", "multifield-max"):
            return cls(name, {"title": 1.0 if title_weight is None else title_weight, "text": text_weight})
        if name == "bm25f":
            return cls(name, {"title": 3.0 if title_weight is None else title_weight, "text": text_weight},
                       dict(field_b or {}))
        raise SoundingError(f"unknown layout {name!r}; choose one of: {', '.join(LAYOUTS)}")
