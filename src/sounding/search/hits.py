"""`Results`: a batch's top k per query as arrays (internal document numbers, float32 scores), and what
turns them into ids, a run or a run file without a Python object per hit where it can."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


def hit_ids(docids, docs: np.ndarray, counts: np.ndarray) -> list[str]:
    """The ids of every hit, row by row (the first counts[i] of row i): for ids kept as docids.txt's bytes,
    gathered by compiled code and decoded in one call, not one Python call an id."""
    mask = np.arange(docs.shape[1]) < np.asarray(counts)[:, None]
    hit_docs = docs[mask]
    if not isinstance(getattr(docids, "blob", None), bytes) or not len(hit_docs):
        return [docids[d] for d in hit_docs.tolist()]
    from ..eval._fastscan import join_fields

    starts = np.asarray(docids.starts).astype(np.int64, copy=False)
    blob = np.frombuffer(docids.blob, np.uint8)
    return join_fields(blob, starts[hit_docs], starts[hit_docs + 1] - 1)[:-1].tobytes().decode("utf-8").split("\n")


@dataclass
class Results:
    """Top-k per query: internal doc numbers (-1 padded) and float32 scores, best first."""

    qids: list[str]
    docs: np.ndarray
    scores: np.ndarray
    counts: np.ndarray
    docids: list[str]
    seconds: float = 0.0
    settings: dict = field(default_factory=dict)
    rank: np.ndarray | None = None  # each document's place in docid byte order (trec_eval's tie order)
    setup_seconds: float = 0.0  # building the BM25 setting and compiling (or loading) kernels: not in `seconds`

    def hits(self, i: int, *, remove_self_hits: bool = False) -> list[tuple[str, float]]:
        qid, ids = self.qids[i], self.docids
        out = [(ids[d], float(s)) for d, s in zip(self.docs[i, : self.counts[i]].tolist(),
                                                    self.scores[i, : self.counts[i]].tolist())]
        return [h for h in out if h[0] != qid] if remove_self_hits else out

    def to_run(self, *, remove_self_hits: bool = False) -> dict[str, dict[str, float]]:
        """qid → {docid: score} (the Run type of sounding.eval); own hits dropped if asked."""
        scores, counts = self.scores.tolist(), self.counts.tolist()  # one C call each
        ids = hit_ids(self.docids, self.docs, self.counts)
        run, at = {}, 0
        for q, s, n in zip(self.qids, scores, counts):
            hits = dict(zip(ids[at : at + n], s[:n]))
            at += n
            if remove_self_hits:
                hits.pop(q, None)
            run[q] = hits
        return run

    def write_run(self, path, *, tag: str = "sounding", remove_self_hits: bool = False):
        """Write the TREC run file `write_run(self.to_run(...), path, tag)` writes, byte for byte, from the
        arrays (compiled formatting, no Python object per hit); `.gz` names write gzip. Returns the path."""
        from ..eval.runfile import write_results

        return write_results(self, path, tag=tag, remove_self_hits=remove_self_hits)

    @property
    def queries_per_second(self) -> float:
        return len(self.qids) / self.seconds if self.seconds else float("inf")
