"""Field layouts: which index fields a query searches, how their scores combine, which kernel searches them.

flat            one field (title + text)                      — Pyserini "flat"
multifield      title and text scored separately, summed      — Pyserini "multifield", BEIR paper
multifield-max  the larger of the weighted field scores       — Elasticsearch best_fields
bm25f           one saturation over weighted, per-field normalised tf (title weight 3 by default)

A layout's behaviour is its `LayoutKind`, one row of `KINDS`: the searcher, the clause builder and the
setting build read its attributes, never its name. Adding a layout is a row here (and, if no kernel in
`dispatch.KERNELS` fits it, a kernel there). Nothing here loads numpy or numba.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import validate
from ..errors import SoundingError


@dataclass(frozen=True)
class LayoutKind:
    """What a layout does, apart from its weights."""

    name: str
    fields: tuple[str, ...]  # the index fields it reads, in clause order
    title_weight: float | None  # the title's weight when none is given (None: the layout has no title field)
    grouped: bool  # clauses summed per group in the query's order (the grouped kernel); else one sum, heaviest first
    by_field: bool  # a document scores its largest field sum (one group per field)
    merged_tf: bool  # one saturation of the weighted, per-field normalised tf (BM25F): norms 1/B_f, per-field b,
    #                 no Lucene arithmetic
    kernel: str  # the row of dispatch.KERNELS that searches it

    @property
    def lucene(self) -> bool:
        """Whether Lucene's one-byte norms and float arithmetic apply (Lucene's BM25 layouts)."""
        return not self.merged_tf


KINDS: dict[str, LayoutKind] = {kind.name: kind for kind in (
    LayoutKind("flat", ("flat",), None, grouped=False, by_field=False, merged_tf=False, kernel="sum"),
    LayoutKind("multifield", ("title", "text"), 1.0, grouped=False, by_field=False, merged_tf=False, kernel="sum"),
    LayoutKind("multifield-max", ("title", "text"), 1.0, grouped=True, by_field=True, merged_tf=False, kernel="max"),
    LayoutKind("bm25f", ("title", "text"), 3.0, grouped=True, by_field=False, merged_tf=True, kernel="bm25f"),
)}
LAYOUTS = tuple(KINDS)


def kind_of(name: str) -> LayoutKind:
    """The kind of the layout called `name`, or a one-line error naming the layouts there are."""
    kind = KINDS.get(name) if isinstance(name, str) else None
    if kind is None:
        raise SoundingError(f"unknown layout {name!r}; choose one of: {', '.join(LAYOUTS)}")
    return kind


@dataclass(frozen=True)
class Layout:
    """A layout with its field weights (and, for BM25F, per-field b: None is the search's b), checked when made."""

    name: str
    weights: dict[str, float] = field(default_factory=dict)  # field name → weight, in clause order
    field_b: dict[str, float | None] = field(default_factory=dict)

    def __post_init__(self):
        kind_of(self.name)
        for name, w in self.weights.items():
            validate.weight(f"{name} weight", w)
        for name, fb in self.field_b.items():
            if fb is not None:
                validate.finite(f"{name} b", fb, low=0.0, high=1.0)

    @property
    def kind(self) -> LayoutKind:
        return KINDS[self.name]

    @property
    def key(self) -> tuple:
        """What makes two layouts score alike (a BM25 setting's key)."""
        return self.name, tuple(self.weights.items()), tuple(sorted(self.field_b.items()))

    @classmethod
    def named(cls, name: str, *, title_weight: float | None = None, text_weight: float = 1.0,
              field_b: dict[str, float] | None = None) -> "Layout":
        if title_weight is not None:
            title_weight = validate.weight("title weight", title_weight)
        text_weight = validate.weight("text weight", text_weight)
        kind = kind_of(name)
        if kind.title_weight is None:
            return cls(name, {f: 1.0 for f in kind.fields})
        weights = {"title": kind.title_weight if title_weight is None else title_weight, "text": text_weight}
        return cls(name, weights, dict(field_b or {}) if kind.merged_tf else {})
