"""The dataset registry: names, official URLs, checksums, expected counts, licence notes.

Every number here has a source named beside it; a count we could not verify is None,
never a guess. Sources (all read from public copies):

* BEIR zip MD5s and sizes: `beir-cellar/beir` README "Available Datasets" table, and
  `allenai/ir_datasets` `ir_datasets/etc/downloads.json` (`beir/...` entries,
  commit 02a8f21c0f51d330124c30f1257d3fcb5866f3eb). The two agree on every MD5.
* BEIR zip SHA-256s (scifact, nfcorpus, arguana, fiqa, scidocs only): not published by
  BEIR; each value appears in several unrelated public projects that pin the same
  download, and the scifact/arguana values are also recorded in shared/datasets/SOURCES.md.
* BEIR counts: `allenai/ir_datasets` `ir_datasets/etc/metadata.json` (commit
  0526f71732c84618f32a916d7f0109da18033c7e): docs, queries and qrels per split; for
  scifact/nfcorpus/arguana they equal shared/datasets/PINS.tsv COUNTS rows. The four
  closed sets: docs from Anserini's regression configs (`index_stats.documents` in
  `src/main/resources/regression/beir-v1.0.0-<name>.flat.yaml`), test queries from the
  BEIR README table; their qrels line counts are unverified (None).
* Mr. TyDi v1.1: URLs from the `castorini/mr.tydi` README; castorini publishes no
  checksum for the v1.1 tarballs (ir_datasets pins only v1.0), so md5/sha256 are None.
  Docs from Anserini `regression/mrtydi-v1.1-<lang>.yaml` (`index_stats.documents`);
  test/dev queries and qrels lines from PINS.tsv (files byte-identical to
  castorini/anserini-tools).
"""
from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from ..errors import SoundingError
from ..validate import DEFAULT_HITS


def cache_home(home: str | Path | None = None) -> Path:
    """Where fetched datasets live: `home`, else $SOUNDING_HOME, else the user's cache folder."""
    return Path(home or os.environ.get("SOUNDING_HOME") or platformdirs.user_cache_dir("sounding")).expanduser()

BEIR_URL = "https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets/{name}.zip"
MRTYDI_URL = "https://git.uwaterloo.ca/jimmylin/mr.tydi/-/raw/master/data/mrtydi-v1.1-{language}.tar.gz"

_MD5_SRC = "BEIR README table + ir_datasets etc/downloads.json (agree)"
_SHA_SRC = "; sha256 from several unrelated public pins of the same zip (not published by BEIR)"
_IRDS_COUNTS = "ir_datasets etc/metadata.json"
_BEIR_LICENCE = ("BEIR redistribution (HF cards BeIR/*: cc-by-sa-4.0); BEIR disclaims the licence: "
                 "check the original dataset's terms")


@dataclass(frozen=True)
class Split:
    """Expected size of one split: judged queries and qrels lines (None = not verified)."""

    queries: int | None = None
    qrels: int | None = None


@dataclass(frozen=True)
class DatasetInfo:
    name: str
    kind: str  # "beir" | "mrtydi"
    language: str  # ISO 639-1
    url: str | None = None
    md5: str | None = None
    sha256: str | None = None
    checksum_source: str = "none published"
    size: int | None = None  # archive bytes, a hint (progress display), not a check
    docs: int | None = None
    splits: dict[str, Split] = field(default_factory=dict)
    counts_source: str = ""
    downloadable: bool = True
    licence: str = _BEIR_LICENCE
    parent: str | None = None  # cqadupstack sub-forums live inside cqadupstack.zip
    archive_root: str | None = None  # top folder inside the archive (default: the name)
    note: str = ""
    depth: int = DEFAULT_HITS  # hits per query a run is made and scored at (BEIR 1000; Mr. TyDi's MRR@100: 100)

    @property
    def test_queries(self) -> int | None:
        return self.splits.get("test", Split()).queries

    @property
    def test_qrels(self) -> int | None:
        return self.splits.get("test", Split()).qrels

    @property
    def short(self) -> str:
        """Name inside its family folder: `scifact`, `cqadupstack/android`, `sw`."""
        if self.kind == "mrtydi":
            return self.language
        if self.parent:
            return f"{self.parent}/{self.name[len(self.parent) + 1:]}"
        return self.name

    @property
    def cache_subpath(self) -> str:
        """Where the dataset lives under a data root (the shared layout: beir/scifact, mrtydi/sw)."""
        return f"{self.kind}/{self.short}"


def _beir(name, md5, size, docs, splits, sha256=None, **kw) -> DatasetInfo:
    return DatasetInfo(
        name=name, kind="beir", language="en", url=BEIR_URL.format(name=name), md5=md5, sha256=sha256,
        checksum_source=_MD5_SRC + (_SHA_SRC if sha256 else ""), size=size, docs=docs,
        splits={k: Split(*v) for k, v in splits.items()}, counts_source=kw.pop("counts_source", _IRDS_COUNTS),
        **kw,
    )


def _closed(name, docs, queries, licence) -> DatasetInfo:
    return DatasetInfo(
        name=name, kind="beir", language="en", docs=docs, splits={"test": Split(queries, None)},
        counts_source="docs: Anserini regression index_stats; queries: BEIR README; qrels lines unverified",
        downloadable=False, licence=licence,
        note="not openly downloadable: BEIR gives no zip; rebuild it from the original source "
             "(beir-cellar/beir examples/dataset) and import it with `sounding fetch NAME --from PATH`",
    )


_BEIR = [
    _beir("msmarco", "444067daf65d982533ea17ebd59501e4", 1082258632, 8841823,
          {"test": (43, 9260), "dev": (6980, 7437), "train": (502939, 532751)},
          licence="MS MARCO terms of use (Microsoft, non-commercial research); check before use",
          note="BEIR reports MS MARCO on the dev split; its test split is TREC DL 2019 (43 queries)"),
    _beir("trec-covid", "ce62140cb23feb9becf6270d0d1fe6d1", 73876720, 171332, {"test": (50, 66336)}),
    _beir("nfcorpus", "a89dba18a62ef92f7d323ec890a0d38d", 2448432, 3633,
          {"test": (323, 12334), "dev": (324, 11385), "train": (2590, 110575)},
          sha256="efe5be03f8c5b86a5870102d0599d227c8c6e2484328e68c6522560385671b0b",
          counts_source=_IRDS_COUNTS + " = PINS.tsv",
          licence=_BEIR_LICENCE + "; NFCorpus (Boteva et al., ECIR 2016): see its site for terms"),
    _beir("nq", "d4d3d2e48787a744b6f6e691ff534307", 498307926, 2681468, {"test": (3452, 4201)}),
    _beir("hotpotqa", "f412724f78b0d91183a0e86805e16114", 654025350, 5233329,
          {"test": (7405, 14810), "dev": (5447, 10894), "train": (85000, 170000)}),
    _beir("fiqa", "17918ed23cd04fb15047f73e6c3bd9d9", 17948027, 57638,
          {"test": (648, 1706), "dev": (500, 1238), "train": (5500, 14166)},
          sha256="32c7df99ed21252fdfb2cf3f5673502a8d245ee0c44c4a133570d92ce2b3ad02"),
    _beir("arguana", "8ad3e3c2a5867cdced806d6503f29b99", 3773617, 8674, {"test": (1406, 1406)},
          sha256="cfdf79adce27a401b3cd3ea267903134dbfab2c6afeb95d7fe5724a00bf7557b",
          counts_source=_IRDS_COUNTS + " = PINS.tsv"),
    # BEIR's current zip is Touché v2 (ir_datasets `beir/webis-touche2020/v2`, same URL and md5).
    _beir("webis-touche2020", "46f650ba5a527fc69e0a6521c5a23563", 227132363, 382545, {"test": (49, 2214)},
          note="v2 qrels (the BEIR zip since 2021); v1 scored about 0.6 nDCG@10"),
    _beir("cqadupstack", "4e41456d7df8ee7760a7f866133bda78", None, None, {},
          counts_source="see the 12 cqadupstack-* sub-forums",
          note="a bundle of 12 sub-forums; load cqadupstack-<forum>; the BEIR score is the mean of "
               "the 12 sub-forum means"),
    _beir("quora", "18fb154900ba42a600f84b839c173167", 15853968, 522931,
          {"test": (10000, 15675), "dev": (5000, 7626)}),
    _beir("dbpedia-entity", "c2a39eb420a3164af735795df012ac2c", 639285131, 4635922,
          {"test": (400, 43515), "dev": (67, 5673)}),
    _beir("scidocs", "38121350fc3a4d2f48850f6aff52e4a9", 142471588, 25657, {"test": (1000, 29928)},
          sha256="96640201687767c9b1fcc5af7a80b90fb325b37fa25329c2586c25edcfa17ef1"),
    _beir("fever", "5a818580227bfb4b35bb6fa46d9b6c03", 1236988269, 5416568,
          {"test": (6666, 7937), "dev": (6666, 8079), "train": (109810, 140085)}),
    _beir("climate-fever", "8b66f0a9126c521bae2bde127b4dc99d", 1228666652, 5416593, {"test": (1535, 4681)}),
    _beir("scifact", "5f7d1de60b170fc8027bb7898e2efca1", 2816079, 5183,
          {"test": (300, 339), "train": (809, 919)},
          sha256="536e14446a0ba56ed1398ab1055f39fe852686ecad24a6306c80c490fa8e0165",
          counts_source=_IRDS_COUNTS + " = PINS.tsv",
          licence=_BEIR_LICENCE + "; SciFact: annotations CC BY 4.0, abstracts (S2ORC) ODC-By 1.0"),
    _closed("bioasq", 14914603, 500, "BioASQ: registration and terms at bioasq.org"),
    _closed("signal1m", 2866315, 97, "Signal-1M: licence agreement with Signal AI"),
    _closed("trec-news", 594589, 57, "TREC Washington Post collection: licence from NIST"),
    _closed("robust04", 528036, 249, "TREC disks 4 and 5: licence from NIST"),
]

# The 12 CQADupStack forums: docs, test queries, test qrels (ir_datasets `beir/cqadupstack/<forum>`).
_CQA = {
    "android": (22998, 699, 1696), "english": (40221, 1570, 3765), "gaming": (45301, 1595, 2263),
    "gis": (37637, 885, 1114), "mathematica": (16705, 804, 1358), "physics": (38316, 1039, 1933),
    "programmers": (32176, 876, 1675), "stats": (42269, 652, 913), "tex": (68184, 2906, 5154),
    "unix": (47382, 1072, 1693), "webmasters": (17405, 506, 1395), "wordpress": (48605, 541, 744),
}
_CQA_ROWS = [
    DatasetInfo(
        name=f"cqadupstack-{forum}", kind="beir", language="en", url=BEIR_URL.format(name="cqadupstack"),
        md5="4e41456d7df8ee7760a7f866133bda78", checksum_source=_MD5_SRC + " (of cqadupstack.zip)",
        docs=docs, splits={"test": Split(q, r)}, counts_source=_IRDS_COUNTS, parent="cqadupstack",
        note="inside cqadupstack.zip (fetching one sub-forum unpacks all 12)",
    )
    for forum, (docs, q, r) in _CQA.items()
]

# Mr. TyDi v1.1: language → (name in the URL, docs, test (queries, qrels), dev (queries, qrels)).
_MRTYDI = {
    "ar": ("arabic", 2106586, (1081, 1257), (3115, 3115)),
    "bn": ("bengali", 304059, (111, 130), (440, 443)),
    "en": ("english", 32907100, (744, 935), (878, 878)),
    "fi": ("finnish", 1908757, (1254, 1451), (1738, 1738)),
    "id": ("indonesian", 1469399, (829, 961), (1224, 1224)),
    "ja": ("japanese", 7000027, (720, 923), (928, 928)),
    "ko": ("korean", 1496126, (421, 492), (303, 307)),
    "ru": ("russian", 9597504, (995, 1168), (1375, 1375)),
    "sw": ("swahili", 136689, (670, 743), (526, 623)),
    "te": ("telugu", 548224, (646, 677), (983, 983)),
    "th": ("thai", 568855, (1190, 1368), (807, 817)),
}
_MRTYDI_ROWS = [
    DatasetInfo(
        name=f"mrtydi-{lang}", kind="mrtydi", language=lang, url=MRTYDI_URL.format(language=word),
        checksum_source="none published: castorini gives no checksum for v1.1 (ir_datasets pins only v1.0)",
        docs=docs, splits={"test": Split(*test), "dev": Split(*dev)},
        counts_source="docs: Anserini regression mrtydi-v1.1 index_stats; queries/qrels: PINS.tsv",
        licence="Apache-2.0 (castorini/mr.tydi README); built on TyDi QA",
        archive_root=f"mrtydi-v1.1-{word}", depth=100,
    )
    for lang, (word, docs, test, dev) in _MRTYDI.items()
]

REGISTRY: dict[str, DatasetInfo] = {d.name: d for d in _BEIR + _CQA_ROWS + _MRTYDI_ROWS}


def register(info: DatasetInfo) -> DatasetInfo:
    """Add (or replace) an entry: a user's own downloadable dataset, or a test fixture."""
    REGISTRY[info.name] = info
    return info


def list_datasets() -> list[DatasetInfo]:
    return list(REGISTRY.values())


def get_info(name: str) -> DatasetInfo:
    """The registry entry for `name`; an unknown name is a one-line error naming close matches."""
    info = REGISTRY.get(name) or REGISTRY.get(name.lower())
    if info is not None:
        return info
    close = difflib.get_close_matches(name.lower(), list(REGISTRY), n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `sounding datasets` lists them"
    raise SoundingError(f"unknown dataset {name!r}{hint}")
