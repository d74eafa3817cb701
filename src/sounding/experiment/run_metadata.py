"""The ir_metadata header of a `sounding run` run file (`--metadata`): one setting on one dataset, described
with sounding.provenance's blocks — the setting's retrieval steps, the analyzer, the dataset's name, ir_datasets
id and the sha256 of its corpus, topics and qrels, the machine and the command."""
from __future__ import annotations

from .. import provenance
from ..datasets import Dataset
from ..datasets.counts import split_files


def setting_header(ds: Dataset, analyzer: str | None, corpus_sha256: str | None, command: str, s, k: int) -> str:
    """The header lines for setting `s` (a Setting: its `describe()` is the retrieval step) at depth `k`."""
    files, _ = split_files(ds.root, ds.split, ds.info)
    data = provenance.test_collection(ds.name, ir_datasets=ds.irds_id, split=ds.split,
                                      files={"topics": files.queries, "qrels": files.qrels})
    if corpus_sha256:
        data["test collection"]["corpus sha256"] = corpus_sha256
    step = {"name": s.name, **s.describe(), "hits": k}
    step.pop("setting", None)
    method = provenance.retrieval_method(analyzer, [step])
    return provenance.header(provenance.run_metadata(tag=s.name, method=method, data=data, command=command or None))
