"""Typo-tolerant term matching: index terms within a typo budget of a query term.

Budget by term length (Meilisearch's rule): 0 typos under 5 characters, 1 up to 8, 2 beyond.
Lookups use SymSpell's symmetric-delete index (symspellpy): candidates come from precomputed
deletions, never from a scan of the vocabulary. Distance is Damerau (optimal string alignment),
so a swapped pair of letters is one typo.
"""
from __future__ import annotations

from functools import cached_property

from ...errors import SoundingError


def typo_budget(term: str) -> int:
    n = len(term)
    return 0 if n < 5 else 1 if n <= 8 else 2


class TypoMatcher:
    """Nearby vocabulary terms for a query term, built once per index (lazily)."""

    def __init__(self, terms: list[str]):
        self._terms = terms

    @cached_property
    def _symspell(self):
        try:
            from symspellpy import SymSpell
        except ImportError:
            raise SoundingError("typo tolerance needs symspellpy: pip install symspellpy") from None
        sym = SymSpell(max_dictionary_edit_distance=2, prefix_length=7)
        for t in self._terms:
            sym.create_dictionary_entry(t, 1)
        return sym

    def variants(self, term: str) -> list[tuple[str, int]]:
        """(index term, typos) pairs other than `term` itself, within the term's budget, sorted."""
        budget = typo_budget(term)
        if budget == 0:
            return []
        from symspellpy import Verbosity

        found = self._symspell.lookup(term, Verbosity.ALL, max_edit_distance=budget)
        return sorted((s.term, s.distance) for s in found if s.term != term and s.distance > 0)
