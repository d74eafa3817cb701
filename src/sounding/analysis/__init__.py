"""Text analysis: named analyzer chains (tokenise → normalise → stop → stem), recorded in every index.

An analyzer is a callable `text -> list[str]` with a stable `name`; queries are analysed with the
analyzer named in the index manifest, so a query can never be analysed differently from its index.
Register new chains with `register(name, factory, description)`.
"""
from __future__ import annotations

from ..errors import SoundingError
from .analyzers import DEFAULT_ANALYZER, Analyzer, AnalyzerInfo, instance, register, registered


def get_analyzer(name: str = DEFAULT_ANALYZER) -> Analyzer:
    """The analyzer registered under `name` (one shared instance: analyzers cache their stems)."""
    _load_builtin()
    return instance(name)


def default_analyzer(language: str | None) -> str:
    """The analyzer Anserini uses for a language (English: the Lucene-parity chain)."""
    if not language or language == "en":
        return DEFAULT_ANALYZER
    from .languages import MRTYDI_ANALYZERS

    if language not in MRTYDI_ANALYZERS:
        raise SoundingError(f"no analyzer for language {language!r}; pass --analyzer")
    return MRTYDI_ANALYZERS[language]


def list_analyzers() -> list[AnalyzerInfo]:
    _load_builtin()
    return registered()


def _load_builtin() -> None:
    # Imported lazily so that `import sounding` stays light; each module registers its chains.
    # Optional segmenters (Japanese, Korean, Thai) are imported inside their factories, not here.
    from . import english, languages  # noqa: F401


__all__ = ["DEFAULT_ANALYZER", "Analyzer", "AnalyzerInfo", "default_analyzer", "get_analyzer", "list_analyzers", "register"]
