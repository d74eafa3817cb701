"""Search straight into a TREC run file, a batch of queries at a time.

Memory stays that of one batch (its top-k arrays and formatted bytes) whatever the number of queries,
and no Python object is made per hit: the kernel's arrays go to `RunWriter`'s compiled formatter. The
file is byte for byte the one `write_run(searcher.search(queries).to_run(), path)` writes, because
queries are searched in the file's order (sorted qids) and each query's hits do not depend on the
batch it is searched in.
"""
from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

from .params import BM25Params

BATCH = 256  # queries a batch: ~3 MB of top-1000 arrays and ~10 MB of text


@dataclass
class RunStats:
    """What `search_to_run` did: counts and where the time went."""

    path: Path
    queries: int
    lines: int = 0
    bytes: int = 0
    search_seconds: float = 0.0  # the kernels' time (`Results.seconds`, summed)
    setup_seconds: float = 0.0  # BM25 setting (each batch's lists, most made beside the search before it), kernels and
    #                             the run formatter loaded (compiled the first time after install)
    write_seconds: float = 0.0  # formatting and writing the run (compression included), beside the search
    seconds: float = 0.0  # the whole call
    empty_queries: list[str] = field(default_factory=list)
    settings: dict = field(default_factory=dict)

    @property
    def queries_per_second(self) -> float:
        return self.queries / self.search_seconds if self.search_seconds else float("inf")

    @property
    def lines_per_second(self) -> float:
        return self.lines / self.write_seconds if self.write_seconds else float("inf")


def search_to_run(searcher, queries: Mapping[str, str] | Iterable[tuple[str, str]], path: str | os.PathLike,
                  params: BM25Params | None = None, /, *, tag: str = "sounding", remove_self_hits: bool = False,
                  batch: int = BATCH, gz: bool | None = None, threads: int = 1, **options) -> RunStats:
    """Search `queries` with `searcher` for the BM25 setting `params` (and `options`, as `Searcher.search`)
    and write the run to `path` (atomically; gzip for a `.gz` name or `gz=True`). A qid given twice keeps its
    last text, as a dict would."""
    from ..eval.runfile import RunWriter

    start = time.perf_counter()
    items = dict(queries.items() if isinstance(queries, Mapping) else queries)
    order = sorted(items)
    stats = RunStats(Path(path), len(order))
    ix = searcher.index
    params = BM25Params.of(params, **options)
    # no query: the BM25 setting made and the kernels loaded before any thread starts
    checked = searcher.search([], params, threads=threads)
    stats.settings, stats.setup_seconds = dict(checked.settings), checked.setup_seconds

    def write(res) -> None:
        t = time.perf_counter()
        writer.write(res.qids, res.docs, res.scores, res.counts, remove_self_hits=remove_self_hits)
        stats.write_seconds += time.perf_counter() - t

    def emit(formatted) -> None:
        t = time.perf_counter()
        writer.emit(formatted)
        stats.write_seconds += time.perf_counter() - t

    def batch_items(a: int) -> list[tuple[str, str]]:
        return [(q, items[q]) for q in order[a : a + batch]]

    # While a batch is searched (the kernel holds no GIL), one thread formats and writes the one before
    # (compiled code, no GIL; the batches in order) and another prepares the one after: analyses it (Python)
    # and makes the lists of the BM25 setting it reads (compiled, one thread). Making those lists in the
    # searching thread instead cost 0.2-0.6 s of a whole NQ-size search (synthetic, 3,452 queries; medians of
    # 7 and 8 alternated fresh runs 5.23 and 5.09 s against 5.85 and 5.30 s; see docs/benchmarks.md).
    with RunWriter(path, lambda: ix.docids, searcher.rank, tag=tag, gz=gz) as writer, \
            ThreadPoolExecutor(1, thread_name_prefix="sounding-run-writer") as pool, \
            ThreadPoolExecutor(1, thread_name_prefix="sounding-prepare") as ahead:
        # the ids read and the formatter loaded (or compiled) in the writer's thread, beside the first batch: set-up
        warming = pending = pool.submit(writer.warm)
        prepared, formatting, formatted_here = None, False, 0.0
        for i, a in enumerate(range(0, len(order), batch)):
            if prepared is None:  # the first batch: analysed here (its lists made by its search, in all cores)
                searcher.analyse(batch_items(a), params)
            else:
                stats.setup_seconds += prepared.result()
            if a + batch < len(order):
                prepared = ahead.submit(searcher.prepare, batch_items(a + batch), params)
            res = searcher.search(batch_items(a), params, threads=threads)
            stats.search_seconds += res.seconds
            stats.setup_seconds += res.setup_seconds
            if i == 0:
                stats.settings = dict(res.settings)
            stats.empty_queries += res.settings.get("empty_queries", [])
            if pending is not None and formatting and not pending.done():
                # The writer still formats the batch before (formatting outweighs searching, as for many queries
                # over a small collection): this thread formats this batch meanwhile, into the writer's spare
                # buffer (compiled, no GIL), and the writer writes it after the other. scifact × 100 (30,000
                # queries, top 1000, 29.4 M lines), whole command: median of 3 from 10.49 to 7.32 s. A search
                # slower than the writing (NQ size) seldom gets here.
                t = time.perf_counter()
                formatted = writer.format(res.qids, res.docs, res.scores, res.counts,
                                          remove_self_hits=remove_self_hits, spare=True)
                formatted_here += time.perf_counter() - t
                pending.result()
                pending, formatting = pool.submit(emit, formatted), False  # the spare buffer is read until it ends
            else:
                if pending is not None:
                    pending.result()  # at most one batch waits: memory stays that of two batches (and the spare)
                pending, formatting = pool.submit(write, res), True
            del res
        if pending is not None:
            pending.result()
        stats.setup_seconds += warming.result()
        t = time.perf_counter()
    stats.write_seconds += time.perf_counter() - t + formatted_here  # the file's close (gzip's last block) and rename
    stats.lines, stats.bytes = writer.lines, writer.bytes
    stats.settings["empty_queries"] = stats.empty_queries
    stats.seconds = time.perf_counter() - start
    return stats
