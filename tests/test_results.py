"""Typed results: ResultRow round-trips results.json's rows, carries the schema, and one definition of
matched settings serves the gate and the report."""
import json

import pytest

from sounding.experiment import gate_failures, run_experiment
from sounding.results import RESULTS_SCHEMA, ResultRow, match_key

from test_harness import make_beir


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    root = tmp_path_factory.mktemp("results")
    return run_experiment([str(make_beir(root / "toy"))], root / "out", layouts=["flat", "bm25f"],
                          params=["anserini"], norms="exact", log=lambda m: None)


def test_rows_round_trip_and_carry_the_schema(result):
    stored = json.loads((result.out / "results.json").read_text())
    assert stored == result.to_dicts() and all(r["schema"] == RESULTS_SCHEMA for r in stored)
    typed = result.rows
    assert all(isinstance(r, ResultRow) for r in typed) and [ResultRow.from_dict(r) for r in stored] == typed
    flat = typed[0]
    assert (flat.setting, flat.layout, flat.k1, flat.b) == ("sounding.bm25.flat.anserini", "flat", 0.9, 0.4)
    # raw (own hits kept) has its own field; no "/raw" key is left among the BEIR-convention measures
    assert set(flat.raw_metrics) == {"nDCG@10"} and not any(m.endswith("/raw") for m in flat.metrics)
    assert flat.value("nDCG@10/raw") == flat.raw_metrics["nDCG@10"] and flat.value("nDCG@10") == flat.metrics["nDCG@10"]
    assert flat.value("nDCG@20/raw") is None
    assert flat.extra["proximity"] == 0.0 and "pool" in flat.extra  # what only some rows have stays by name
    assert json.loads((result.out / "run.json").read_text())["version"] == RESULTS_SCHEMA


def test_an_older_results_folder_is_refused(result, tmp_path):
    from sounding.errors import SoundingError

    (tmp_path / "run.json").write_text(json.dumps({"format": "sounding-run", "version": RESULTS_SCHEMA - 1}))
    with pytest.raises(SoundingError, match="another Sounding format"):
        run_experiment(["x"], tmp_path, log=lambda m: None)


def test_matched_settings_one_definition(result):
    ours = result.to_dicts()[0]
    twin = {**ours, "engine": "bm25s", "setting": "bm25s.bm25.flat.anserini",
            "metrics": {**ours["metrics"], "nDCG@10": ours["metrics"]["nDCG@10"] + 0.05}}
    other_b = {**twin, "b": 0.75}
    user = {**twin, "engine": "user", "arm": "user", "layout": None, "k1": None, "b": None}
    assert match_key(ours) == match_key(twin) == match_key(ResultRow.from_dict(twin)) != match_key(other_b)
    failures = gate_failures([ours, twin, other_b, user])
    assert len(failures) == 1 and "below bm25s" in failures[0]


def test_to_pandas(result):
    pd = pytest.importorskip("pandas", reason="to_pandas needs pandas")
    frame = result.to_pandas()
    assert isinstance(frame, pd.DataFrame) and len(frame) == len(result.rows)
    assert {"dataset", "setting", "nDCG@10", "nDCG@10/raw", "R@100", "qps"} <= set(frame.columns)
