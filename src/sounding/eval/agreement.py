"""How alike two rankings of the same query are: rank-biased overlap (RBO) and Kendall's tau over the union
(KTU), as repro_eval defines them (docs/definitions.md, "Agreement of two rankings").

    rbo(["d1", "d2", "d3"], ["d2", "d1", "d4"], p=0.9, depth=3)   # (0 + 0.9·2/2 + 0.81·2/3) / 2.71 = 0.5314
    ktu(["d1", "d2", "d3"], ["d2", "d1", "d4"])                   # Kendall's tau of [0, 1, 2] and [1, 0, 3] = 1/3

Both take each ranking best first, already in trec_eval's order (`ranking`: score descending, ties by docid
descending, which is repro_eval's `break_ties`). `agreement` computes both for many queries at once from
integer keys, and is the one definition: `rbo` and `ktu` are it applied to one pair of lists.

- RBO at depth d with persistence p (Clarke et al.'s normalised form, repro_eval's `_rbo`): the weighted
  mean over depths i = 1..d of the overlap of the two top-i sets divided by i, with weights p^(i-1);
  a list shorter than d adds nothing past its end.
- KTU (repro_eval's `_KTU`): the union U of the two top-d lists is sorted by docid; each list becomes the
  positions in U of its documents, in its order, and the result is Kendall's tau (tau-b, as scipy's
  `kendalltau`) of the two position sequences, rank by rank. repro_eval compares lists of the same
  length; here, if one list is shorter, both are cut to the shorter length, and with fewer than 2
  documents tau is undefined (NaN, as scipy gives).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

RBO_P = 0.9  # persistence: the weight of depth i is p^(i-1)
DEPTH = 10  # the top 10, as nDCG@10


def ranking(hits: Mapping[str, float], *, depth: int = DEPTH, drop: str | None = None) -> list[str]:
    """The top `depth` docids of one query's hits in trec_eval's order, without `drop` (the query's own id
    under the BEIR convention)."""
    from .metrics import trec_order

    kept = {d: s for d, s in hits.items() if d != drop} if drop is not None else hits
    return trec_order(kept, depth)


def agreement(keys_a: np.ndarray, keys_b: np.ndarray, p: float = RBO_P) -> tuple[np.ndarray, np.ndarray]:
    """(RBO, KTU) per row of two (queries × depth) arrays of document keys, best first: integers whose order
    is the docids' order (for KTU), -1 past a list's end. The depth is the arrays' width."""
    a, b = np.asarray(keys_a, np.int64), np.asarray(keys_b, np.int64)
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(f"agreement needs two arrays of one (queries × depth) shape; got {a.shape} and {b.shape}")
    n, depth = a.shape
    if depth == 0:
        return np.full(n, np.nan), np.full(n, np.nan)
    # overlap of the top-i sets for every i: same[q, r, s] = a[q, r] is b[q, s]; summed over r < i and s < i
    same = (a[:, :, None] == b[:, None, :]) & (a[:, :, None] >= 0)
    both = same.cumsum(axis=1).cumsum(axis=2)
    overlap = both[:, np.arange(depth), np.arange(depth)]  # (queries × depth)
    weights = p ** np.arange(depth)
    rbo = (weights * overlap / np.arange(1, depth + 1)).sum(axis=1) / weights.sum()
    # KTU: pairs of ranks (i < j) within the shorter list's length
    length = np.minimum((a >= 0).sum(axis=1), (b >= 0).sum(axis=1))
    sa = np.sign(a[:, :, None] - a[:, None, :])
    sb = np.sign(b[:, :, None] - b[:, None, :])
    upper = np.triu(np.ones((depth, depth), bool), k=1)
    inside = upper[None] & (np.arange(depth)[None, None, :] < length[:, None, None])
    concordance = (sa * sb * inside).sum(axis=(1, 2))
    pairs = length * (length - 1) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        ktu = np.where(pairs > 0, concordance / np.where(pairs > 0, pairs, 1), np.nan)
    return rbo, ktu


def keys(*lists: Sequence[str], depth: int | None = None) -> list[np.ndarray]:
    """Lists of docids as key arrays for `agreement`: each docid's place in the sorted union (-1 padding)."""
    depth = depth if depth is not None else max((len(x) for x in lists), default=0)
    order = {d: i for i, d in enumerate(sorted({d for x in lists for d in x[:depth]}))}
    out = []
    for x in lists:
        row = np.full((1, depth), -1, np.int64)
        row[0, : min(len(x), depth)] = [order[d] for d in x[:depth]]
        out.append(row)
    return out


def rbo(a: Sequence[str], b: Sequence[str], *, p: float = RBO_P, depth: int = DEPTH) -> float:
    """Rank-biased overlap of two rankings (docids, best first) at `depth`."""
    ka, kb = keys(a, b, depth=depth)
    return float(agreement(ka, kb, p)[0][0])


def ktu(a: Sequence[str], b: Sequence[str], *, depth: int = DEPTH) -> float:
    """Kendall's tau over the union of the two top-`depth` rankings (NaN with fewer than 2 documents)."""
    ka, kb = keys(a, b, depth=depth)
    return float(agreement(ka, kb)[1][0])


__all__ = ["DEPTH", "RBO_P", "agreement", "keys", "ktu", "ranking", "rbo"]
