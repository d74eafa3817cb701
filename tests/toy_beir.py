"""A four-document BEIR-layout collection for tests that need a dataset folder (no real data)."""
import json
from pathlib import Path

DOCS = [("d1", "Virus replication", "The virus replicates inside host cells."),
        ("d2", "Protein folding", "Chaperones help proteins fold correctly."),
        ("d3", "Tumor growth", "Tumor cells divide quickly and need nutrients."),
        ("d4", "", "Gene expression changes when cells are stressed.")]
QUERIES = [("q1", "how do viruses replicate"), ("q2", "protein folding chaperones"), ("q3", "tumor cells")]
QRELS = [("q1", "d1", 1), ("q2", "d2", 2), ("q3", "d3", 1), ("q3", "d4", 0)]


def write_beir(root: Path, splits=("test",)) -> Path:
    """corpus.jsonl, queries.jsonl and qrels/<split>.tsv (the same judgements for each split) under `root`."""
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps({"_id": i, "title": t, "text": x}) + "\n" for i, t, x in DOCS))
    (root / "queries.jsonl").write_text("".join(json.dumps({"_id": q, "text": t}) + "\n" for q, t in QUERIES))
    for split in splits:
        (root / "qrels" / f"{split}.tsv").write_text(
            "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t{g}\n" for q, d, g in QRELS))
    return root
