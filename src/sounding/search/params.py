"""BM25 settings as one value: layout, k1, b, arithmetic, proximity, typos, ties and depth, checked once.

As Lucene's `BM25Similarity` holds and validates k1 and b in its constructor, `BM25Params` is made (and
checked) once, at the boundary, and travels as it is: `Searcher.search`, `search_to_run`, the sharded and
Ray searchers, `BM25Retriever`, the engine adapter and the experiment's settings all take it, and nothing
downstream checks or defaults a value again. The defaults live here: Anserini's k1 = 0.9, b = 0.4 (PRESETS)
and the depth of `validate.DEFAULT_HITS`. The depth is `k` in Python and `--hits` on the command line.

    BM25Params()                                             flat, Anserini 0.9/0.4, top 1000
    BM25Params.preset("lucene", layout="bm25f", k=100)       Lucene's 1.2/0.75
    params.replace(lucene_norms=True, anserini_ties=True)    a checked copy with other values
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

from .. import validate
from ..errors import SoundingError
from .layouts import KINDS, Layout

PRESETS: dict[str, tuple[float, float]] = {"anserini": (0.9, 0.4), "lucene": (1.2, 0.75)}
DEFAULT_PRESET = "anserini"
DEFAULT_K1, DEFAULT_B = PRESETS[DEFAULT_PRESET]


@dataclass(frozen=True)
class BM25Params:
    """One BM25 setting of a search, checked when made (a bad value is a one-line `SoundingError`).

    `layout`: a `Layout` or a layout name (with `title_weight` for the name's title weight);
    `lucene_norms`: Lucene's one-byte length norms and float32 arithmetic (not bm25f);
    `proximity` > 0: weight × a term-proximity bonus over `window` positions added to the top k;
    `typos`: index terms within a typo budget match too, each typo multiplying the weight by `typo_factor`;
    `anserini_ties`: Pyserini's tie handling and "%.6f" scores; `lucene_ties`: of documents tied at the cut,
    those first in docid byte order (Lucene's); `k`: hits per query (the index may cap it at its size).
    """

    layout: Layout = Layout.named("flat")
    k1: float = DEFAULT_K1
    b: float = DEFAULT_B
    lucene_norms: bool = False
    proximity: float = 0.0
    window: int = 5
    typos: bool = False
    typo_factor: float = 0.5
    anserini_ties: bool = False
    lucene_ties: bool = False
    k: int = validate.DEFAULT_HITS
    title_weight: dataclasses.InitVar[float | None] = None

    def __post_init__(self, title_weight: float | None):
        # Checked here, before any compiled kernel sees them: a negative k1 or b outside [0, 1] can make the
        # pruning bounds meaningless (endless loops), and a huge k allocates for hits that cannot exist.
        k1, b = validate.bm25(self.k1, self.b)
        k = validate.integer("hits (k)", self.k)
        proximity = validate.weight("proximity weight", self.proximity)
        window = validate.integer("proximity window", self.window)
        typo_factor = validate.finite("typo factor", self.typo_factor, low=0.0, high=1.0)
        layout = self.layout if isinstance(self.layout, Layout) else Layout.named(self.layout, title_weight=title_weight)
        for name, value in (("k1", k1), ("b", b), ("k", k), ("proximity", proximity), ("window", window),
                            ("typo_factor", typo_factor), ("layout", layout),
                            *((flag, bool(getattr(self, flag))) for flag in
                              ("lucene_norms", "typos", "anserini_ties", "lucene_ties"))):
            object.__setattr__(self, name, value)
        if self.lucene_norms and not layout.kind.lucene:
            raise SoundingError(f"lucene_norms applies to Lucene's BM25 layouts "
                                f"({', '.join(n for n, kind in KINDS.items() if kind.lucene)}), not {layout.name}")
        if self.lucene_ties and self.proximity:
            raise SoundingError("lucene_ties cuts the kernels' top k in Lucene's order; a proximity bonus reorders it "
                                "afterwards (anserini_ties re-picks the ties from the top 2k then)")

    @classmethod
    def preset(cls, name: str, **values) -> "BM25Params":
        """The parameter set `name` of PRESETS (k1 and b), with any other field given."""
        if name not in PRESETS:
            raise SoundingError(f"unknown BM25 parameters {name!r}; choose one of: {', '.join(PRESETS)}")
        k1, b = PRESETS[name]
        return cls(k1=k1, b=b, **values)

    @classmethod
    def of(cls, params: "BM25Params | None" = None, **values) -> "BM25Params":
        """`params` with `values` in place of its own (checked), or a new one of `values` (the defaults for the rest).
        The same values give the same (immutable) value: a query-at-a-time caller passing options by name
        has them checked once, not per query."""
        if params is None:
            try:
                return _of_values(cls, tuple((k, type(v), v) for k, v in sorted(values.items())))
            except TypeError:  # an unhashable value (a Layout): made and checked anew
                return cls(**values)
        if not isinstance(params, cls):
            raise SoundingError(f"BM25 settings must be a BM25Params, not {type(params).__name__}")
        return params.replace(**values) if values else params

    def replace(self, **values) -> "BM25Params":
        """A copy with other values, checked as a new one is (`title_weight` remakes the layout by its name)."""
        if values.get("title_weight") is not None and "layout" not in values:
            values["layout"] = self.layout.name
        return dataclasses.replace(self, **values)

    @property
    def setting_key(self) -> tuple:
        """What the arrays of a BM25 setting depend on (norms, impacts, block maxima)."""
        return self.layout.key, self.k1, self.b, self.lucene_norms

    def describe(self) -> dict:
        """The settings a search reports (`Results.settings`), k as asked."""
        return dict(layout=self.layout.name, k1=self.k1, b=self.b, k=self.k, lucene_norms=self.lucene_norms,
                    weights=self.layout.weights, proximity=self.proximity, window=self.window, typos=self.typos,
                    anserini_ties=self.anserini_ties)


@functools.lru_cache(maxsize=64)
def _of_values(cls, items: tuple) -> BM25Params:
    """BM25Params of (name, type, value) items: the type is part of the key (True == 1, but k=True is refused)."""
    return cls(**{name: value for name, _, value in items})
