"""Every measure family of this package, found by reading its modules, and the parser of measure names.

A module of this package that defines `FAMILY` is a measure: adding one is adding its file (and its tests).
Names are ir_measures' notation with trec_eval's semantics — `nDCG@10`, `AP(rel=2)@1000`, `P(rel=2)@10`,
`RR@100`, `Judged@10`, `nDCG(judged_only=True)@10` — and trec_eval's own names — `ndcg_cut_10`, `map`,
`P_5`, `recip_rank`, `num_rel_ret`, `iprec_at_recall_0.10`, `11pt_avg` — with the spellings each family lists.
A named set (`official`: what trec_eval prints without -m) stands for its members.

Hand-written rather than ir_measures' parser: the names accepted here include trec_eval's and Sounding's own
(`nDCG'@10`, `judged@10`), ir_measures is not a dependency, and the grammar is one regular expression.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterable
from pathlib import Path

from ...errors import SoundingError
from .base import FAMILIES, Family, Measure, Query
from .sets import SETS

_SKIP = {"base", "catalogue", "sets"}


def _discover(families: dict[str, Family]) -> None:
    for info in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda i: i.name):
        if info.name in _SKIP or info.name.startswith("_"):
            continue
        fam = getattr(importlib.import_module(f"{__package__}.{info.name}"), "FAMILY", None)
        if isinstance(fam, Family):
            assert fam.name not in families, f"measure {fam.name} declared twice"
            families[fam.name] = fam


_discover(FAMILIES)

_SPELLINGS: dict[str, tuple[str, dict]] = {}  # lower-case spelling -> (family, params it implies)
for _fam in FAMILIES.values():
    for _s in (_fam.name, *_fam.spellings):
        assert _s.lower() not in _SPELLINGS, f"measure spelling {_s!r} used twice"
        _SPELLINGS[_s.lower()] = (_fam.name, dict(_fam.implied.get(_s, {})))

# name, then (params), then a cutoff after '@' (or trec_eval's '_' / '.'); the shortest name that lets the
# rest match, so `ndcg_cut_10` is `ndcg_cut` at 10 and `num_rel_ret` a name of its own
_PATTERN = re.compile(r"^(?P<name>[A-Za-z0-9_']+?)(?:\((?P<params>[^()]*)\))?(?:[@._](?P<cut>\d+(?:\.\d+)?))?$")


def valid_measures() -> str:
    """The families' forms in one line, for error messages."""
    forms = []
    for fam in FAMILIES.values():
        if fam.cutoff_param:
            forms.append(f"{fam.name}_x")
        elif fam.cutoff == "required":
            forms.append(f"{fam.name}@k")
        elif fam.cutoff == "optional":
            forms += [f"{fam.name}@k", fam.name]
        else:
            forms.append(fam.name)
    params = sorted({p for fam in FAMILIES.values() for p in fam.params if p != (fam.cutoff_param or "")})
    return f"{', '.join(forms)}; parameters as in AP(rel=2)@1000: {', '.join(params)}; sets: {', '.join(SETS)}"


def parse_measure(text: str | Measure) -> Measure:
    """Parse `nDCG@10`, `AP(rel=2)@1000`, `ndcg_cut_10`, `MRR@100`, `nDCG'@10`, `num_rel_ret`, ... into a Measure.
    A bad name raises SoundingError with one line saying what was wrong."""
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str):
        raise SoundingError(f"a measure is a name such as 'nDCG@10', got {text!r}")
    raw = text.strip()
    m = _PATTERN.match(raw)
    hit = _SPELLINGS.get(m.group("name").lower()) if m else None
    if hit is None:
        raise SoundingError(f"unknown measure {text!r}; valid: {valid_measures()}")
    fam = FAMILIES[hit[0]]
    given = _params(text, fam, m.group("params"))
    params = dict(hit[1])
    for key, value in given.items():
        if key in params and params[key] != value:
            raise SoundingError(f"measure {text!r}: {m.group('name')} means {key}={params[key]!r}, not {value!r}")
        params[key] = value
    k = None
    cut = m.group("cut")
    if fam.cutoff_param:
        if cut is None and fam.cutoff_param not in params:
            raise SoundingError(f"measure {text!r} needs a value after '@', e.g. {fam.name}@0.5")
        if cut is not None:
            params[fam.cutoff_param] = _value(text, fam, fam.cutoff_param, cut)
    elif cut is not None:
        if fam.cutoff == "none":
            raise SoundingError(f"measure {text!r}: {fam.name} takes no cutoff; valid: {valid_measures()}")
        if not cut.isdigit():
            raise SoundingError(f"measure {text!r}: the cutoff must be a whole number, got {cut!r}")
        k = int(cut)
        if k < 1:
            raise SoundingError(f"measure {text!r}: the cutoff must be at least 1")
    elif fam.cutoff == "required":
        raise SoundingError(f"measure {text!r} needs a cutoff, e.g. {fam.name}@10; valid: {valid_measures()}")
    kept = tuple(sorted((key, v) for key, v in params.items() if v != fam.params[key].default))
    return Measure(fam.name, k, kept)


def _params(text: str, fam: Family, inner: str | None) -> dict:
    if inner is None:
        return {}
    out = {}
    for part in filter(None, (p.strip() for p in inner.split(","))):
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or key not in fam.params:
            takes = ", ".join(fam.params) or "no parameters"
            raise SoundingError(f"measure {text!r}: {fam.name} takes {takes}; got {part!r}")
        if key in out:
            raise SoundingError(f"measure {text!r}: parameter {key} given twice")
        out[key] = _value(text, fam, key, value.strip())
    return out


def _value(text: str, fam: Family, key: str, value: str):
    import ast

    p = fam.params[key]
    try:
        got = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        got = value
    if p.type is float and isinstance(got, int) and not isinstance(got, bool):
        got = float(got)
    if type(got) is not p.type:
        kind = {int: "a whole number", float: "a number", bool: "True or False"}[p.type]
        raise SoundingError(f"measure {text!r}: parameter {key} must be {kind}, got {value!r}")
    if (p.low is not None and got < p.low) or (p.high is not None and got > p.high):
        bounds = f"at least {p.low}" if p.high is None else f"between {p.low} and {p.high}"
        raise SoundingError(f"measure {text!r}: parameter {key} must be {bounds}, got {value!r}")
    return got


def parse_measures(texts: Iterable[str | Measure] | str | Measure) -> list[Measure]:
    """Parse several names, keeping their order and dropping repeats (`ndcg@10` and `nDCG@10` are one); a set's
    name (`official`) stands for its members."""
    if isinstance(texts, (str, Measure)):
        texts = [texts]  # one name, not a sequence of characters
    out: list[Measure] = []
    for t in texts:
        members = SETS.get(t.strip().lower()) if isinstance(t, str) else None
        for m in map(parse_measure, members if members is not None else [t]):
            if m not in out:
                out.append(m)
    if not out:
        raise SoundingError(f"no measures given; valid: {valid_measures()}")
    return out


def horizon(measures: Iterable[Measure]) -> float:
    """The rank up to which ties must be resolved so that every one of `measures` is exact."""
    return max((m.horizon for m in measures), default=0.0)


def query_values(measures: list[Measure], judgements, ranks, grades, n: int) -> list[float]:
    """Each measure's value for one query (see base.Query); plain Python: a query has few judged hits."""
    q = Query(judgements, ranks, grades, n)
    return [FAMILIES[m.name].value(q, m) for m in measures]
