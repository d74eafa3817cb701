"""Parameter checks at the API boundary: compiled kernels never see a value that can loop, divide
by zero or index out of bounds. Each check raises a one-line `SoundingError` naming the parameter,
the value and the allowed range (Lucene's own rules for BM25: k1 finite and ≥ 0, b in [0, 1])."""
from __future__ import annotations

import math
import numbers
import re

from .errors import SoundingError

# -- identifiers --------------------------------------------------------------------------------------------
ID_RULE = "ids are non-empty strings without whitespace, control characters or surrogates"
# Unicode whitespace (a TREC line could not hold it as one field), C0/DEL/C1 controls, lone surrogates
# (valid in a JSON string, not encodable as UTF-8)
BAD_ID_CHAR = re.compile(r"[\s\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_BAD_IN_JOINED = re.compile(r"[^\S\n]|[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff]")  # BAD_ID_CHAR but "\n"
_ID_BYTES = bytes(range(0x21, 0x7F)) + b"\n"  # printable ASCII but space, and the joining newline
MAX_LINE = 64 << 10  # bytes of one run or qrels line: a longer one is refused before it is held whole
MAX_RECORD = 64 << 20  # bytes of one corpus or queries line (a whole document)


def id_problem(value, what: str = "id") -> str | None:
    """Why `value` cannot be an id (a query, document or system id), in one phrase; None when it can.

    The rule, everywhere ids come in (corpus, queries, qrels, run files, retrievers' results): a non-empty
    `str` without whitespace, control characters or lone surrogates. Nothing is rewritten: `1` and `"1"`,
    `"d "` and `"d"` would otherwise become the same id."""
    if type(value) is str and value.isascii() and value.isprintable() and " " not in value and value:
        return None  # the usual case, without the regular expression (a third of its time)
    if not isinstance(value, str):
        name = type(value).__name__
        return f"{what} {value!r} is {'an' if name[0] in 'aeiou' else 'a'} {name}, not a string ({ID_RULE})"
    if not value:
        return f"{what} is empty ({ID_RULE})"
    m = BAD_ID_CHAR.search(value)
    if m is None:
        return None
    ch = m.group()
    kind = ("a lone surrogate" if "\ud800" <= ch <= "\udfff" else "whitespace" if ch.isspace()
            else "a control character")
    return f"{what} {value!r} holds {kind} (U+{ord(ch):04X}; {ID_RULE})"


def first_bad_id(ids: list) -> int:
    """The position of the first id in `ids` that breaks the rule, or -1. One regular-expression pass over
    the ids joined by newlines, for batches (an id holding a newline shows in the count of newlines)."""
    try:
        joined = "\n".join(ids)
    except TypeError:  # a non-string
        joined = None
    if (joined is not None and "\n\n" not in f"\n{joined}\n" and joined.count("\n") == len(ids) - 1
            and not (joined.encode("ascii").translate(None, _ID_BYTES) if joined.isascii()
                     else _BAD_IN_JOINED.search(joined))):
        return -1
    return next((i for i, v in enumerate(ids) if id_problem(v) is not None), -1)


def _number(name: str, value) -> float:
    if type(value) is float or type(value) is int:  # the common case, without the ABC check's cost
        return float(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise SoundingError(f"{name} must be a number, not {value!r}")
    return float(value)


def finite(name: str, value, *, low: float | None = None, high: float | None = None) -> float:
    """`value` as a float, finite and inside [low, high] (either bound may be open-ended)."""
    v = _number(name, value)
    if not math.isfinite(v):
        raise SoundingError(f"{name} must be a finite number, not {value!r}")
    if (low is not None and v < low) or (high is not None and v > high):
        span = (f"in [{low:g}, {high:g}]" if low is not None and high is not None
                else f"≥ {low:g}" if low is not None else f"≤ {high:g}")
        raise SoundingError(f"{name} must be {span}, not {value!r}")
    return v


def bm25(k1, b) -> tuple[float, float]:
    """Lucene's BM25Similarity rules: k1 finite and ≥ 0, b in [0, 1]."""
    return finite("k1", k1, low=0.0), finite("b", b, low=0.0, high=1.0)


def weight(name: str, value) -> float:
    """A field, fusion or bonus weight: finite and ≥ 0."""
    return finite(name, value, low=0.0)


def integer(name: str, value, *, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise SoundingError(f"{name} must be a whole number, not {value!r}")
    if value < low:
        raise SoundingError(f"{name} must be at least {low}, not {value}")
    return int(value)


DEFAULT_HITS = 1000  # hits per query unless a caller or a dataset's registry entry says otherwise (BEIR's depth)


def hits(k, n_docs: int) -> tuple[int, bool]:
    """Hits per query: at least 1, capped at the number of documents (more cannot be returned;
    allocating for them could exhaust memory). Returns (k, whether it was capped)."""
    k = integer("hits (k)", k)
    n = max(1, int(n_docs))
    return (n, True) if k > n else (k, False)


def threads(value) -> int:
    """Search threads: None means 1; otherwise a whole number ≥ 1."""
    return 1 if value is None else integer("threads", value)


__all__ = ["BAD_ID_CHAR", "DEFAULT_HITS", "ID_RULE", "MAX_LINE", "MAX_RECORD", "bm25", "finite", "first_bad_id",
           "hits", "id_problem", "integer", "threads", "weight"]
