"""Measure names: what a measure *means*, separate from the code that computes it (ir_measures style).

Canonical names are ir_measures' notation: `nDCG@10`, `R@100`, `P@10`, `RR@100`, `RR`, `AP`, `AP@100`,
`Success@100`, `judged@10`, plus the two pool-bias measures `nDCG'@10` (nDCG on the judged-only list,
trec_eval -J; ir_measures' `nDCG(judged_only=True)@10`) and `bpref` (no cutoff). Common spellings map onto
them: `ndcg@10`, `ndcg_cut_10`, `ndcg_cut.10`, `recall@100`, `recall_100`, `MRR@100`, `recip_rank`, `map`,
`map_cut_100`, `success_10`, `Judged@10`, `ndcg'@10`, `nDCG(judged_only=True)@10`, `Bpref`.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import SoundingError

# family -> (does it need a cutoff? True: yes, None: optional, False: none allowed; pytrec_eval name pattern or None)
_FAMILIES: dict[str, tuple[bool | None, str | None]] = {
    "nDCG": (None, "ndcg_cut_{k}"),  # None: cutoff optional (nDCG = trec_eval `ndcg`, whole ranking)
    "nDCG'": (None, "ndcg_cut_{k}"),  # the same on the judged-only list (trec_eval -J)
    "bpref": (False, "bpref"),
    "R": (True, "recall_{k}"),
    "P": (True, "P_{k}"),
    "RR": (None, "recip_rank"),  # RR@k: recip_rank on the run cut to its top k (trec_eval -M k)
    "AP": (None, "map_cut_{k}"),
    "Success": (True, "success_{k}"),
    "judged": (True, None),  # not a trec_eval measure
}

_ALIASES = {
    "ndcg": "nDCG", "ndcg_cut": "nDCG",
    "r": "R", "recall": "R",
    "p": "P", "precision": "P",
    "rr": "RR", "mrr": "RR", "recip_rank": "RR",
    "ap": "AP", "map": "AP", "map_cut": "AP",
    "success": "Success",
    "judged": "judged",
    "ndcg'": "nDCG'",
    "bpref": "bpref",
}

_PATTERN = re.compile(r"^([A-Za-z_]+?'?)(?:[@._](\d+))?$")
_JUDGED_ONLY = re.compile(r"\(\s*judged_only\s*=\s*true\s*\)", re.IGNORECASE)  # ir_measures: nDCG(judged_only=True)@10


@dataclass(frozen=True, order=True)
class Measure:
    """One measure: a family (`nDCG`, `R`, ...) and an optional rank cutoff `k`."""

    name: str
    k: int | None = None

    def __str__(self) -> str:
        return self.name if self.k is None else f"{self.name}@{self.k}"

    @property
    def pytrec_eval_name(self) -> str | None:
        """The pytrec_eval measure that computes this one (RR@k needs the run cut to k first)."""
        pattern = _FAMILIES[self.name][1]
        if pattern is None:
            return None
        if self.k is None:
            return {"nDCG": "ndcg", "nDCG'": "ndcg", "AP": "map", "RR": "recip_rank", "bpref": "bpref"}[self.name]
        return pattern.format(k=self.k)

    @property
    def judged_only(self) -> bool:
        """Whether trec_eval computes this measure with -J (unjudged hits removed before ranking)."""
        return self.name == "nDCG'"


def valid_measures() -> str:
    return "nDCG@k, nDCG, nDCG'@k, nDCG', bpref, R@k, P@k, RR@k, RR, AP, AP@k, Success@k, judged@k"


def parse_measure(text: str | Measure) -> Measure:
    """Parse `nDCG@10`, `ndcg_cut_10`, `MRR@100`, `recall.100`, `nDCG'@10`, `bpref`, ... into a canonical Measure."""
    if isinstance(text, Measure):
        return text
    m = _PATTERN.match(_JUDGED_ONLY.sub("'", text.strip(), count=1))
    family = _ALIASES.get(m.group(1).lower()) if m else None
    if family is None:
        raise SoundingError(f"unknown measure {text!r}; valid: {valid_measures()}")
    k = int(m.group(2)) if m.group(2) is not None else None
    needs_k = _FAMILIES[family][0]
    if k is not None and k < 1:
        raise SoundingError(f"measure {text!r}: the cutoff must be at least 1")
    if needs_k is False and k is not None:
        raise SoundingError(f"measure {text!r}: {family} takes no cutoff; valid: {valid_measures()}")
    if needs_k and k is None:
        raise SoundingError(f"measure {text!r} needs a cutoff, e.g. {family}@10; valid: {valid_measures()}")
    return Measure(family, k)


def parse_measures(texts: Iterable[str | Measure]) -> list[Measure]:
    """Parse several names, keeping their order and dropping repeats (`ndcg@10` and `nDCG@10` are one)."""
    if isinstance(texts, (str, Measure)):
        texts = [texts]  # one name, not a sequence of characters
    out: list[Measure] = []
    for t in texts:
        m = parse_measure(t)
        if m not in out:
            out.append(m)
    if not out:
        raise SoundingError(f"no measures given; valid: {valid_measures()}")
    return out


DEFAULT_MEASURES = ("nDCG@10", "R@100", "RR@100", "judged@10")
