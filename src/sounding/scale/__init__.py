"""Scale-out: sharded indexes with merged global statistics, exact fan-out search, Ray backend.

    build_shards(corpus, out, n_shards)      pure Python, one shard after another
    ShardedSearcher(out).search(queries)     every shard with the merged statistics, exact top-k merge
    ShardSet.read(out)                       what DIR/shards.json says
    ray_backend.build_shards_ray / RayShardedSearcher / encode_corpus_ray   the same on Ray (optional extra)

Run files from a sharded search are byte-identical to the single index's (docs/scale.md).
"""
from .shards import (
    CorpusFile,
    MergedResults,
    ShardedSearcher,
    ShardHits,
    ShardSearcher,
    ShardSet,
    ShardStats,
    build_shard,
    build_shards,
    merge_topk,
    shard_of,
)

__all__ = [
    "CorpusFile", "MergedResults", "ShardedSearcher", "ShardHits", "ShardSearcher", "ShardSet", "ShardStats",
    "build_shard", "build_shards", "merge_topk", "shard_of",
]
