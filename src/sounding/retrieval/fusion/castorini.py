"""castorini's Mr. TyDi hybrid of a BM25 run and a dense run, as linear fusion.

castorini's Mr. TyDi hybrid (`castorini/mr.tydi:scripts/hybrid.py`, run as the README's
"BM25+mDPR hybrid" step with `--weight-on-dense --normalization`) scores, per query,

    score(d) = n_sparse(d) + α_lang · n_dense(d),   n(s) = (s − (min + max)/2) / (max − min)

over each run's hits, and a document missing from one run takes that run's minimum score. α is on
the dense side but the sparse weight is **1, not 1 − α**: with en and ko (α = 1.0) the hybrid is an
equal-weight sum, not dense alone. Centring the min-max scale shifts every document by the same
constant, so this ranks exactly like

    (1 − a)·minmax(lexical) + a·minmax(dense)  with  a = α / (1 + α)

which is `linear` (linear.py) (docs/definitions.md, "Fusion": min-max to [0, 1], a document missing from
an arm gets 0 from it). `hybrid_linear` calls it with that `a`; its scores equal castorini's up to the
positive affine map  castorini = (1 + α)·ours − (1 + α)/2, so rankings and every metric agree.
Two edge cases differ on purpose: an arm whose hits all score the same (e.g. a single hit) maps to 1
here (linear.minmax), while castorini zeroes it, and castorini tests the *sparse* span before
normalising the dense scores (a dense run with equal scores divides by zero there).
"""
from __future__ import annotations

from typing import Mapping

from ...errors import SoundingError
from .linear import linear

# castorini/mr.tydi:scripts/hybrid.py `lang2alpha` (keyed there by language name), weight on the dense
# run with --weight-on-dense, as the README's hybrid command uses it. Tuned on the dev sets.
MRTYDI_HYBRID_ALPHA: dict[str, float] = {
    "ar": 0.77, "bn": 0.71, "en": 1.0, "fi": 0.77, "id": 0.9, "ja": 0.99,
    "ko": 1.0, "ru": 0.93, "sw": 0.56, "te": 0.73, "th": 0.84,
}
MRTYDI_HYBRID_ALPHA_SOURCE = ("castorini/mr.tydi:scripts/hybrid.py (lang2alpha), used with --weight-on-dense "
                              "--normalization in the README's 'BM25+mDPR hybrid' step; docs/baselines.md 2a")


def effective_alpha(lang: str) -> float:
    """The (1 − a, a) weight on the dense side that ranks like castorini's `sparse + α·dense`: α / (1 + α)."""
    try:
        alpha = MRTYDI_HYBRID_ALPHA[lang]
    except KeyError:
        raise SoundingError(f"no Mr. TyDi hybrid α for language {lang!r}; known: {', '.join(MRTYDI_HYBRID_ALPHA)}") from None
    return alpha / (1.0 + alpha)


def hybrid_linear(lexical_run: Mapping[str, Mapping[str, float]], dense_run: Mapping[str, Mapping[str, float]],
                  lang: str, *, depth: int | None = None, k_out: int | None = 100) -> dict[str, dict[str, float]]:
    """castorini's Mr. TyDi hybrid of a BM25 run and a dense run (qid → {docid: score}) for `lang`.

    Per query: min-max normalise each run's hits (the top `depth`, all by default), a document missing
    from a run gets 0 from it, score = (1 − a)·lexical + a·dense with a = α_lang / (1 + α_lang); keep
    the top `k_out` (100, Mr. TyDi's depth; None keeps all), ties by document id descending.
    """
    return linear(lexical_run, dense_run, effective_alpha(lang), depth=depth, k_out=k_out)


__all__ = ["MRTYDI_HYBRID_ALPHA", "MRTYDI_HYBRID_ALPHA_SOURCE", "effective_alpha", "hybrid_linear"]
