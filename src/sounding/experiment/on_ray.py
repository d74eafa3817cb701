"""`sounding run --ray`: the grid on a Ray cluster, writing the run files of the one-process run.

What runs where:

* each dataset's BM25 index is a sharded index built by Ray tasks (one per shard, merged
  statistics), in `OUT/indexes/<dataset>-<key>-<N>shards/`, beside the one-process index, so
  neither run clobbers the other's;
* every BM25 setting of a dataset is searched by the same shard actors (one per shard, started
  once per dataset), their top k merged exactly on the driver: byte-identical run files;
* the hybrid and rerank arms' BM25 first stage uses those actors too;
* the dense arm's corpus vectors (also the hybrid arm's dense half) are encoded by a Ray Data job
  (`encode_corpus_ray`: one actor per GPU, else per CPU) into the same `OUT/vectors/` store, file
  for file, that the run without Ray writes; the sparse arm's chunks likewise
  (`build_impact_index_ray`), its postings built on the driver. Either run finds the other's
  vectors. The shard actors are stopped before such a job (they would hold the CPUs) and
  restarted at the next BM25 search;
* on the driver, as without Ray: query encoding and the dense / sparse searches, the rerank arm
  (its model scores BM25's top 100 per query), and comparator engines.

Refused (one line, before any work): the proximity and typos variants, which a sharded search
cannot reproduce exactly. Ray itself is imported only when `--ray` is given.
"""
from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

from ..datasets import Dataset
from ..errors import SoundingError
from ..index import FORMAT_VERSION as INDEX_FORMAT
from ..index import Index
from ..pipeline import default_analyzer
from ..io import atomic_write_json as _write_json
from ..io import digest as _digest
from ..io import file_sha256 as _file_sha256
from .settings import Setting

NOT_ON_SHARDS = ("proximity", "typos")  # variants whose results a sharded search cannot reproduce


def check_settings(settings: list[Setting]) -> None:
    """Refuse, before any work, the settings that would give other numbers on shards."""
    bad = sorted({v for s in settings for v in NOT_ON_SHARDS if getattr(s, v)})
    if bad:
        raise SoundingError(f"--ray: the {' and '.join(bad)} variant(s) cannot run on a sharded index with the "
                            "same results; run them without --ray")


def address_kind(address: str) -> str:
    """What results.json records of the address: the kind, not the host."""
    return address if address in ("local", "auto") else "cluster"


class RayGrid:
    """One `sounding run --ray`: the Ray session, each dataset's sharded index, and the shard actors
    of the dataset being searched (`searching`), which every setting of that dataset reuses."""

    def __init__(self, address: str, shards: int | None, log):
        from ..scale.ray_backend import require_ray

        self.ray = require_ray()  # a missing Ray is one line, before anything runs
        self.address, self.shards, self.log = address, shards, log
        self.searcher = None  # the shard actors of the dataset being searched
        self._index_dir: Path | None = None
        self.info: dict = {}
        self._stack = contextlib.ExitStack()

    def __enter__(self):
        from ..scale.ray_backend import ray_session

        self._stack.enter_context(ray_session(self.address))
        cpus = int(self.ray.cluster_resources().get("CPU", 1))
        # Default: one shard per cluster CPU; at least 2, so that a --ray run always goes through the merge.
        self.shards = self.shards or max(2, cpus)
        self.info = {"address": address_kind(self.address), "shards": self.shards, "cluster_cpus": cpus,
                     "ray_version": self.ray.__version__}
        self.log(f"Ray ({self.info['address']}): {cpus} CPUs, {self.shards} shards per index")
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()  # the Ray session (shut down only if this run started or joined it)

    # -- indexing --------------------------------------------------------------------------------
    def ensure_index(self, ds: Dataset, out: Path, phase: str) -> tuple[Path, dict]:
        """The dataset's sharded index, built by Ray tasks unless a finished one is there."""
        from ..scale import CorpusFile
        from ..scale.ray_backend import build_shards_ray
        from ..scale.shards import FORMAT_VERSION as SHARDS_FORMAT

        analyzer = default_analyzer(ds.language)
        key = _digest(_file_sha256(ds.corpus_path), analyzer, f"index-format-{INDEX_FORMAT}",
                      f"shards-format-{SHARDS_FORMAT}", f"shards-{self.shards}")
        index_dir = out / "indexes" / f"{ds.name}-{key[:12]}-{self.shards}shards"
        info_file = index_dir / "build.json"  # written after shards.json: the index is complete
        if info_file.is_file():
            return index_dir, json.loads(info_file.read_text())
        if phase == "search":
            raise SoundingError(f"{ds.name}: no {self.shards}-shard index in {out / 'indexes'}; run `sounding run "
                                f"--ray ... --shards {self.shards} --phase index` first (or give the --shards it used)")
        self.log(f"indexing {ds.name} ({analyzer}) into {self.shards} shards on Ray")
        shard_set = build_shards_ray(CorpusFile(str(Path(ds.corpus_path).resolve())), index_dir, self.shards,
                                     analyzer=analyzer, source=str(ds.corpus_path))
        info = {"key": key, "analyzer": analyzer, "n_docs": shard_set.n_docs, "shards": shard_set.n_shards,
                "index_seconds": shard_set.build["seconds"] + shard_set.build.get("commit_seconds", 0.0),
                "index_bytes": sum(s.bytes for s in shard_set.shards), "backend": "ray"}
        _write_json(info_file, info)
        return index_dir, info

    @staticmethod
    def docids(index_dir: Path) -> list[str]:
        """Every document id of a sharded index (for the judged-documents check)."""
        from ..scale import ShardSet

        shard_set = ShardSet.read(index_dir)
        return [d for s in shard_set.shards for d in Index(index_dir / s.path, verify=False).docids]

    # -- searching -------------------------------------------------------------------------------
    @contextlib.contextmanager
    def searching(self, index_dir: Path) -> Iterator[RayGrid]:
        """Shard actors for one dataset, started at its first search (a rerun whose rows are all cached
        starts none). They are stopped before the next dataset's build: actors reserve the cluster's
        CPUs, and build tasks waiting for them would never start."""
        self._index_dir = index_dir
        try:
            yield self
        finally:
            if self.searcher is not None:
                self.searcher.close()
            self.searcher = self._index_dir = None

    def release_actors(self) -> None:
        """Stop the shard actors (restarted at the next search): an encoding job needs the CPUs."""
        if self.searcher is not None:
            self.searcher.close()
            self.searcher = None

    # -- encoding ----------------------------------------------------------------------------------
    def encode_vectors(self, ct, encoder, root: Path, *, batch_size: int | None = None, log=None):
        """`sounding.dense.encode_corpus` as a Ray Data job (same store, same files): an `EncodeReport`."""
        from ..scale.ray_backend import encode_corpus_ray

        return encode_corpus_ray(ct, encoder, root, batch_size=batch_size, log=log, before_job=self.release_actors)

    def build_impacts(self, ct, model, root: Path, *, bits: int = 8, log=None):
        """`sounding.sparse.build_impact_index` with its chunks encoded by a Ray Data job (same files)."""
        from ..scale.ray_backend import build_impact_index_ray

        return build_impact_index_ray(ct, model, root, bits=bits, log=log, before_job=self.release_actors)

    def search(self, queries, params, /, *, threads: int = 1):
        """`Searcher.search` arguments; the exact merge of the shard actors' results."""
        if self.searcher is None:
            from ..scale.ray_backend import RayShardedSearcher

            self.searcher = RayShardedSearcher(self._index_dir)
        return self.searcher.search(queries, params, threads=threads)
