"""On-disk index layout: one folder per index, committed atomically by generation.

    INDEX/CURRENT               name of the live generation ("gen-000001"), replaced by os.replace
    INDEX/gen-000001/manifest.json
    INDEX/gen-000001/*.npy      contiguous arrays, opened with np.load(mmap_mode="r")
    INDEX/gen-000001/terms.txt  vocabulary, sorted, one term per line (id = line number)
    INDEX/gen-000001/docids.txt external document ids in internal order

A build writes a new generation beside the live one and flips CURRENT last, so an interrupted
build never touches the index readers use (Lucene's segments_N idea, one level simpler).
Arrays: `offsets` (n_fields, n_terms + 1) int64, each term's postings (fields follow one another);
`lengths` (n_fields, n_docs) uint32 analysed token counts; `docid_rank` (n_docs) uint32, each id's
rank in byte order, for trec_eval's docid tie order. The postings themselves, by the manifest's
`postings`: "packed" (index/packed.py: blocks of 128 bit-packed document gaps and term
frequencies, ~1.5 bytes a posting) or "raw" (`docs` uint32 and `tfs` uint16, or uint32 when a
term frequency exceeds 65,535, indexed by `offsets`: 6 bytes a posting).
"""
from __future__ import annotations

import json
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import SoundingError
from ..io import atomic_write, seal_holds, sealed_json

FORMAT_NAME = "sounding-index"
FORMAT_VERSION = 3  # 2: the manifest names its postings layout (raw or packed); 3: it carries its own digest
POSTINGS = ("packed", "raw")
ARRAYS = ("offsets", "docs", "tfs", "lengths", "docid_rank")  # a raw index's
PACKED_ARRAYS = ("offsets", "blk_last", "blk_start", "blk_width", "packed", "lengths", "docid_rank")
TEXT_FILES = ("terms.txt", "docids.txt")


@dataclass
class FieldStats:
    doc_count: int  # documents with at least one token in the field (Lucene's docCount)
    sum_length: int  # total analysed tokens in the field (Lucene's sumTotalTermFreq)
    postings: int


@dataclass
class Manifest:
    analyzer: str
    n_docs: int
    n_terms: int
    fields: list[str]
    field_stats: dict[str, FieldStats]
    positions: bool = False
    empty_docs: int = 0
    docs_without_title: int = 0
    source: str = ""
    content_hash: str = ""  # sha256 of the analysed input stream: equal corpora, equal hash
    checksums: dict[str, str] = field(default_factory=dict)  # file → crc32 (hex)
    postings: str = "raw"  # "raw" or "packed" (see the module's docstring)
    format: str = FORMAT_NAME
    version: int = FORMAT_VERSION
    digest: str = ""  # sha256 of the manifest's own content (io.sealed_json): a changed statistic is found

    def to_json(self) -> str:
        """The manifest's JSON, sealed: its "digest" is the sha256 of the rest (checked by `from_json`)."""
        return sealed_json(asdict(self))

    @classmethod
    def from_json(cls, text: str, where: Path) -> "Manifest":
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as e:
            raise SoundingError(f"{where}: damaged index manifest ({e.msg})") from None
        if not isinstance(raw, dict) or raw.get("format") != FORMAT_NAME:
            raise SoundingError(f"{where}: not a Sounding index")
        if not isinstance(raw.get("version"), int):
            raise SoundingError(f"{where}: damaged index manifest (version {raw.get('version')!r})")
        if raw["version"] > FORMAT_VERSION:
            raise SoundingError(
                f"{where}: index format version {raw['version']} is newer than this Sounding "
                f"understands ({FORMAT_VERSION}); upgrade Sounding or rebuild the index"
            )
        if raw.get("version") != FORMAT_VERSION:
            source = raw.get("source") or "CORPUS"
            raise SoundingError(
                f"{where.parent}: index format version {raw.get('version')} is older than this Sounding reads "
                f"({FORMAT_VERSION}); rebuild it: sounding index {source} --out {where.parent}"
            )
        if not seal_holds(raw):
            raise SoundingError(f"{where.parent}: damaged index: manifest.json does not match its digest (a statistic, "
                                f"count or checksum in it was changed); rebuild the index")
        if raw.get("postings") not in POSTINGS:
            raise SoundingError(f"{where}: damaged index manifest (postings {raw.get('postings')!r})")
        try:
            raw["field_stats"] = {k: FieldStats(**v) for k, v in raw["field_stats"].items()}
            return cls(**raw)
        except (TypeError, AttributeError, KeyError) as e:
            raise SoundingError(f"{where}: damaged index manifest ({e})") from None


def array_names(manifest: "Manifest") -> tuple[str, ...]:
    """The .npy arrays (without the suffix) an index with this manifest holds."""
    names = PACKED_ARRAYS if manifest.postings == "packed" else ARRAYS
    return names + (("pos_offsets", "positions") if manifest.positions else ())


def write_npy_header(out, dtype, shape: tuple) -> None:
    """Write to the file `out` the .npy header np.save gives an array of this dtype and shape, for the
    array's bytes to be streamed after it (the file is then byte for byte what np.save writes)."""
    import numpy as np

    np.lib.format.write_array_header_1_0(out, {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
                                               "fortran_order": False, "shape": shape})


def crc32_file(path: Path) -> str:
    crc = 0
    buf = bytearray(1 << 20)  # one buffer, whatever the file's size
    view = memoryview(buf)
    with open(path, "rb", buffering=0) as f:
        while n := f.readinto(buf):
            crc = zlib.crc32(view[:n], crc)
    return f"{crc:08x}"


def live_generation(root: Path) -> Path:
    """The folder of the committed generation, or a one-line error saying what is wrong."""
    root = Path(root)
    current = root / "CURRENT"
    if not current.is_file():
        if not root.exists():
            raise SoundingError(f"{root}: no such index (build one with `sounding index`)")
        raise SoundingError(f"{root}: not a Sounding index (no CURRENT file); was the build interrupted before its first commit?")
    gen = root / current.read_text().strip()
    if not (gen / "manifest.json").is_file():
        raise SoundingError(f"{root}: damaged index: generation {gen.name} has no manifest")
    return gen


def verified_stamp(generation: str) -> str:
    """Name of the file, beside the generations, that records the state (size, mtime) of a generation's
    files when their checksums last matched (index/reader.py); it goes with its generation."""
    return f".verified-{generation}"


def commit_generation(root: Path, built: Path) -> Path:
    """Make `built` (a finished folder inside `root`) the live generation, then drop older ones."""
    old = (root / "CURRENT").read_text().strip() if (root / "CURRENT").is_file() else None
    atomic_write(root / "CURRENT", built.name + "\n")  # the atomic step
    if old and old != built.name:
        remove_tree(root / old)
        (root / verified_stamp(old)).unlink(missing_ok=True)
    return built


def next_generation_name(root: Path) -> str:
    gens = [int(p.name[4:]) for p in Path(root).glob("gen-*") if p.name[4:].isdigit()]
    return f"gen-{max(gens, default=0) + 1:06d}"


def remove_tree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)
