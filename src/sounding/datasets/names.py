"""Dataset names: Sounding's registry names and ir_datasets ids, resolved in one place.

    lookup("scifact")                  -> DatasetRef(scifact, split None, ir_datasets id beir/scifact/test)
    lookup("beir/scifact/test")        -> the same dataset, split "test"
    lookup("beir/cqadupstack/android") -> cqadupstack-android, split "test"
    lookup("mr-tydi/ja/test")          -> mrtydi-ja, split "test"
    lookup("beir/msmarco/dev")         -> msmarco, split "dev"

An ir_datasets id of a registry dataset is that dataset (the same folder, the same counts, the same identity),
with the split the id names; the dataset-level id (`beir/nfcorpus`, `mr-tydi/ja`) means its test split, as
Sounding's own names do. Any other ir_datasets id (`lookup` returns a ref without `info`) is loaded through
the `ir_datasets` package when it is installed (datasets/irds.py). A name that is neither is an error
naming close matches.

The ids follow ir_datasets' catalogue: BEIR datasets with one split keep their qrels at the top
(`beir/arguana`, `beir/nq`; Touché is `beir/webis-touche2020/v2`, the qrels BEIR's zip holds), the others
one id per split (`beir/scifact/test`); Mr. TyDi is `mr-tydi/<lang>/<split>` (ir_datasets serves v1.0 of
the corpus; Sounding's registry pins v1.1, whose test topics and qrels have the same counts).
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass

from ..errors import SoundingError
from .registry import REGISTRY, DatasetInfo

IRDS_PREFIXES = ("beir/", "mr-tydi/")  # the ir_datasets families Sounding's registry holds


@dataclass(frozen=True)
class DatasetRef:
    """What a dataset name stands for: a registry entry (or None: an ir_datasets id outside the registry),
    the split the name names (None: the caller's default), and the ir_datasets id of that dataset and split."""

    text: str
    info: DatasetInfo | None
    split: str | None
    irds_id: str | None

    def split_or(self, split: str | None) -> str:
        """The split to load: the one asked for, or the name's, or "test"; a name and a request that
        disagree are an error."""
        if split is not None and self.split is not None and split != self.split:
            raise SoundingError(f"{self.text} names the {self.split} split, but split {split!r} was asked for")
        return split or self.split or "test"


def irds_id(info: DatasetInfo, split: str = "test") -> str | None:
    """ir_datasets' id of a registry dataset's split (None where ir_datasets has none: the closed BEIR sets)."""
    if info.kind == "mrtydi":
        return f"mr-tydi/{info.language}/{split}"
    if not info.downloadable or info.name == "cqadupstack":
        return None
    if info.parent:
        return f"beir/{info.short}" if split == "test" else None
    if info.name == "webis-touche2020":
        return "beir/webis-touche2020/v2" if split == "test" else None
    if list(info.splits) == ["test"]:
        return f"beir/{info.name}" if split == "test" else None
    return f"beir/{info.name}/{split}" if split in info.splits else None


def _by_id() -> dict[str, tuple[str, str]]:
    """ir_datasets id -> (registry name, split), every split's id and the dataset-level ones."""
    out: dict[str, tuple[str, str]] = {}
    for info in REGISTRY.values():
        for split in info.splits:
            got = irds_id(info, split)
            if got:
                out[got] = (info.name, split)
        level = irds_id(info, "test")
        if level and level.count("/") == 2 and level.endswith("/test"):
            out.setdefault(level[: -len("/test")], (info.name, "test"))  # beir/scifact, mr-tydi/ja: the test split
    return out


def lookup(text: str) -> DatasetRef | None:
    """The dataset a name stands for, or None when it is no dataset name Sounding knows of (perhaps a path,
    or an ir_datasets id outside the registry: see `is_irds_id`)."""
    name = str(text).strip()
    info = REGISTRY.get(name) or REGISTRY.get(name.lower())
    if info is not None:
        return DatasetRef(name, info, None, irds_id(info))
    hit = _by_id().get(name.lower())
    if hit is not None:
        return DatasetRef(name, REGISTRY[hit[0]], hit[1], irds_id(REGISTRY[hit[0]], hit[1]))
    return None


def is_irds_id(text: str) -> bool:
    """Whether `text` is shaped like an ir_datasets id (family/name[/subset]: lower-case words and slashes)."""
    parts = str(text).split("/")
    return len(parts) >= 2 and all(p and p.replace("-", "").replace("_", "").replace(".", "").isalnum()
                                   and p == p.strip() for p in parts)


def get_info(name: str) -> DatasetInfo:
    """The registry entry a name or an ir_datasets id stands for; an unknown one is a one-line error naming
    close matches."""
    ref = lookup(name)
    if ref is None:
        raise unknown(name)
    return ref.info


def unknown(text: str, also: str = "") -> SoundingError:
    """The one-line error for a name that is no dataset: the splits of the dataset an id starts with, or close
    matches among names and ids, or where to look; `also` adds a clause (what else was tried)."""
    ids = _by_id()
    close = difflib.get_close_matches(str(text).lower(), list(REGISTRY) + list(ids), n=3, cutoff=0.75)
    head = "/".join(str(text).lower().split("/")[:2])
    splits = sorted(i for i in ids if i.startswith(head + "/") and i.count("/") == 2) if "/" in head else []
    if close:
        hint = f"; did you mean {', '.join(close)}?"
    elif splits:
        hint = f"; {head} has {', '.join(splits[:6])}{', …' if len(splits) > 6 else ''}"
    else:
        hint = "; `sounding datasets` lists them"
    return SoundingError(f"unknown dataset {str(text)!r}{also}{hint}")
