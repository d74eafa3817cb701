"""Dense rows as MTEB results: `ExperimentResult.to_mteb(folder)` writes MTEB's result files, so the numbers drop
into MTEB's tooling (its results cache, `mteb.load_results`, the leaderboard's loaders).

The layout is MTEB's (mteb 2.x, `mteb/results/task_result.py` and its results cache):

    FOLDER/<model name, '/' as '__'>/<model revision, or no_revision_available>/<Task>.json
    {"dataset_revision": ..., "task_name": "SciFact", "mteb_version": null, "evaluation_time": seconds,
     "kg_co2_emissions": null, "date": unix time,
     "scores": {"test": [{"ndcg_at_10": ..., "map_at_10": ..., "recall_at_100": ..., "precision_at_1": ...,
                          "mrr_at_10": ..., "hit_rate_at_5": ..., "main_score": <ndcg_at_10>,
                          "hf_subset": "default", "languages": ["eng-Latn"]}]},
     "sounding": {"version": ..., "setting": ..., "dataset": ..., "run_file": ...}}

Every score is computed here from the row's run file and the dataset's qrels with Sounding's trec_eval-exact
measures (nDCG@k, AP@k as map_at_k, R@k, P@k, RR@k as mrr_at_k, Success@k as hit_rate_at_k) at k = 1, 3, 5,
10, 20, 100, 1000, with the BEIR convention the row's own numbers use (a hit on the query's own id dropped),
rounded to 6 decimals as MTEB stores them; `main_score` is nDCG@10, the row's. `mteb_version` is null: MTEB
did not make these numbers (MTEB reads null as a version-less current file). `dataset_revision` is the revision
of the Hugging Face dataset MTEB's task reads (the same BEIR / Mr. TyDi data), for the tasks below; another
dataset is written under its own name with "dataset revision not available".
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from ..eval import per_query_arrays, read_run
from ..eval.measures import parse_measures

# Sounding's dataset -> (MTEB task, its dataset revision on the Hugging Face hub, split): from MTEB's task
# definitions (mteb/tasks/retrieval/eng/*.py, multilingual/mr_tidy_retrieval.py)
TASKS = {
    "scifact": ("SciFact", "d56462d0e63a25450459c4f213e49ffdb866f7f9", "test"),
    "nfcorpus": ("NFCorpus", "ec0fa4fe99da2ff19ca1214b7966684033a58814", "test"),
    "arguana": ("ArguAna", "c22ab2a51041ffd869aaddef7af8d8215647e41a", "test"),
    "trec-covid": ("TRECCOVID", "bb9466bac8153a0349341eb1b22e06409e78ef4e", "test"),
    "fiqa": ("FiQA2018", "27a168819829fe9bcd655c2df245fb19452e8e06", "test"),
    "scidocs": ("SCIDOCS", "f8c2fcf00f625baaa80f62ec5bd9e1fff3b8ae88", "test"),
    "webis-touche2020": ("Touche2020", "a34f9a33db75fa0cbb21bb5cfc3dae8dc8bec93f", "test"),
    "quora": ("QuoraRetrieval", "e4e08e0b7dbe3c8700f0daef558ff32256715259", "test"),
    "dbpedia-entity": ("DBPedia", "c0f706b76e590d620bd6618b3ca8efdd34e2d659", "test"),
    "nq": ("NQ", "b774495ed302d8c44a3a7ea25c90dbce03968f31", "test"),
    "hotpotqa": ("HotpotQA", "ab518f4d6fcca38d87c25209f94beba119d02014", "test"),
    "fever": ("FEVER", "bea83ef9e8fb933d90a2f1d5515737465d613e12", "test"),
    "climate-fever": ("ClimateFEVER", "47f2ac6acb640fc46020b02a5b59fdda04d39380", "test"),
    "msmarco": ("MSMARCO", "c5a29a104738b98a9e76336939199e264163d4a0", "dev"),
    **{f"cqadupstack-{forum}": (f"CQADupstack{forum.capitalize()}Retrieval", rev, "test") for forum, rev in {
        "android": "9be4c0e46342e8e3aff577a89b9a1ec9bc6b4af3", "english": "ad9991cb51e31e31e430383c75ffb2885547b5f0",
        "gaming": "4885aa143210c98657558c04aaf3dc47cfb54340", "gis": "5003b3064772da1887988e05400cf3806fe491f2",
        "mathematica": "90fceea13679c63fe563ded68f3b6f06e50061de", "physics": "79531abbd1fb92d06c6d6315a0cbbbf5bb247ea4",
        "programmers": "6184bc1440d2dbc7612be22b50686b8826d22b32", "stats": "65ac3a16b8e91f9cee4c9828cc7c335575432a2a",
        "tex": "46989137a86843e03a6195de44b09deda022eec7", "unix": "6c6430d3a6d36f8d2a829195bc5dc94d7e063e53",
        "webmasters": "160c094312a0e1facb97e55eeddb698c0abe3571",
        "wordpress": "4ffe81d471b1924886b33c7567bfb200e9eec5c4"}.items()},
}
MRTIDY = ("MrTidyRetrieval", "fc24a3ce8f09746410daee3d5cd823ff7a0675b7", "test")  # one task, a subset per language
LANGUAGES = {  # ISO 639-1 -> (MTEB's language code, Mr. TyDi's subset name)
    "en": ("eng-Latn", "english"), "ar": ("ara-Arab", "arabic"), "bn": ("ben-Beng", "bengali"),
    "fi": ("fin-Latn", "finnish"), "id": ("ind-Latn", "indonesian"), "ja": ("jpn-Jpan", "japanese"),
    "ko": ("kor-Kore", "korean"), "ru": ("rus-Cyrl", "russian"), "sw": ("swa-Latn", "swahili"),
    "te": ("tel-Telu", "telugu"), "th": ("tha-Thai", "thai"),
}
CUTOFFS = (1, 3, 5, 10, 20, 100, 1000)
NAMES = {"nDCG": "ndcg", "AP": "map", "R": "recall", "P": "precision", "RR": "mrr", "Success": "hit_rate"}
NO_REVISION = "no_revision_available"


def scores(qrels, run) -> dict:
    """MTEB's retrieval scores of one run (see the module docstring), rounded to 6 decimals."""
    ms = parse_measures([f"{family}@{k}" for family in NAMES for k in CUTOFFS])
    _, values = per_query_arrays(qrels, run, ms, remove_self_hits=True)
    out = {f"{NAMES[m.name]}_at_{m.k}": round(m.aggregate(values[str(m)]), 6) for m in ms}
    out["main_score"] = out["ndcg_at_10"]
    return out


def write_mteb(result, folder: str | Path, arms=("dense",)) -> list[Path]:
    """Write the rows of `arms` of an ExperimentResult as MTEB result files under `folder`; the paths written."""
    from .. import __version__

    folder = Path(folder)
    files: dict[Path, dict] = {}
    for row in result.rows:
        if row.arm not in arms:
            continue
        ds = result.datasets[row.dataset]
        model = row.model if isinstance(row.model, dict) else {"name": str(row.model or row.setting)}
        lang = ds.info.language if ds.info else ds.language
        if ds.info is not None and ds.info.kind == "mrtydi":
            (task, revision, split), subset = MRTIDY, LANGUAGES.get(lang, (None, lang))[1]
        else:
            task, revision, split = TASKS.get(ds.info.name if ds.info else "", (ds.name, "dataset revision not available",
                                                                                   ds.split))
            subset = "default"
        entry = {**scores(ds.qrels, read_run(result.out / row.run_file)), "hf_subset": subset,
                 "languages": [LANGUAGES.get(lang, (lang, lang))[0]]}
        name = str(model.get("name") or row.setting).replace("/", "__").replace(" ", "_")
        path = folder / name / str(model.get("revision") or NO_REVISION) / f"{task}.json"
        doc = files.setdefault(path, {
            "dataset_revision": revision, "task_name": task, "mteb_version": None, "scores": {split: []},
            "evaluation_time": 0.0, "kg_co2_emissions": None, "date": time.time(),
            "sounding": {"version": __version__, "setting": row.setting, "datasets": []}})
        doc["scores"].setdefault(split, []).append(entry)
        doc["evaluation_time"] += (row.search_seconds or 0.0) + float(row.extra.get("encode_seconds") or 0.0)
        doc["sounding"]["datasets"].append({"dataset": row.dataset, "run_file": row.run_file,
                                            **({"ir_datasets": ds.irds_id} if ds.irds_id else {})})
    for path, doc in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return list(files)
