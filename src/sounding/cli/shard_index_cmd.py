"""CLI command: `sounding shard-index` (sharded indexes, optionally on Ray); `sounding search` searches them."""
from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from .app import app

console = Console(stderr=True)

RAY_HELP = ("run on Ray: 'local' (start a local instance, see --num-cpus), 'auto' (the cluster `ray start` "
            "made here) or a cluster address (host:6379, ray://host:10001); without it, one process")


def _corpus_of(dataset: str, data_dir: Path | None, analyzer: str | None):
    """(picklable corpus callable, analyzer, source) for a registry name, dataset folder or corpus file."""
    from ..analysis import DEFAULT_ANALYZER
    from ..datasets import load_dataset
    from ..errors import SoundingError
    from ..analysis import default_analyzer
    from ..scale import CorpusFile

    path = Path(dataset)
    if path.is_file():
        return CorpusFile(str(path.resolve())), analyzer or DEFAULT_ANALYZER, str(path)
    ds = load_dataset(dataset, data_dir=data_dir)
    if ds.corpus_path is None:
        raise SoundingError(f"{ds.root}: no corpus file in this dataset folder")
    return CorpusFile(str(Path(ds.corpus_path).resolve())), analyzer or default_analyzer(ds.language), str(ds.corpus_path)


@app.command("shard-index")
def shard_index_cmd(
    dataset: str = typer.Argument(..., help="dataset name (see `sounding datasets`), dataset folder, or corpus file"),
    out: Path = typer.Option(..., "--out", "-o", help="folder of the sharded index (shards.json + shard-NNN/)"),
    shards: int = typer.Option(..., "--shards", "-n", min=1, help="number of shards (documents assigned by crc32 of the id)"),
    analyzer: str = typer.Option(None, help="analyzer name (default: the dataset language's Lucene-parity chain)"),
    data_dir: Path = typer.Option(None, "--data-dir", help="folder holding local dataset copies"),
    ray: str = typer.Option(None, "--ray", help=RAY_HELP),
    num_cpus: int = typer.Option(None, "--num-cpus", help="CPUs of a local Ray instance (--ray local)"),
    max_retries: int = typer.Option(3, "--max-retries", help="Ray: times a shard is redone after its worker dies"),
) -> None:
    """Build a sharded BM25 index: N normal indexes plus merged statistics, so that sharded scores
    equal single-index scores exactly."""
    corpus, analyzer, source = _corpus_of(dataset, data_dir, analyzer)
    if ray:
        from ..scale.ray_backend import build_shards_ray, ray_session

        with ray_session(ray, num_cpus=num_cpus):
            shard_set = build_shards_ray(corpus, out, shards, analyzer=analyzer, source=source, max_retries=max_retries,
                                         progress=lambda done, n: console.print(f"shard {done}/{n} built"))
    else:
        from ..scale import build_shards

        shard_set = build_shards(corpus, out, shards, analyzer=analyzer, source=source)
    sizes = ", ".join(f"{s.n_docs:,}" for s in shard_set.shards)
    console.print(f"indexed {shard_set.n_docs:,} documents into {shard_set.n_shards} shards ({sizes}) in "
                  f"{shard_set.build.get('seconds', 0):.1f} s on {shard_set.build.get('backend')} → {out}")
