"""What `sounding run` says while it runs and at the end: progress steps (a log line each without a terminal,
rich bars on one, "compiling kernels (first run only)" while a set-up lasts), each warning once per dataset
naming its settings, and the verdict printed last."""
from __future__ import annotations

import io
import time

from rich.console import Console

from sounding.cli import main
from sounding.cli.progress import COMPILE_QUIET, RichSteps
from sounding.experiment.progress import COMPILING, LogSteps
from sounding.report import ResultTable
from sounding.report.sections.run import input_warnings


def test_rich_steps_show_compiling_only_when_it_lasts():
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=120)
    with RichSteps(console) as steps:
        steps.settings("scifact", 2)
        steps.setting("scifact", "sounding.bm25.flat.anserini")
        with steps.compiling("scifact", "sounding.bm25.flat.anserini"):
            pass  # set up from numba's cache: nothing drawn
        assert not any(COMPILING in t.description for t in steps.bar.tasks)
        with steps.compiling("scifact", "sounding.bm25.flat.anserini"):
            time.sleep(COMPILE_QUIET + 0.3)
            assert any(t.description.startswith(COMPILING) for t in steps.bar.tasks)
        assert not any(COMPILING in t.description for t in steps.bar.tasks)
        steps.finished("scifact", "sounding.bm25.flat.anserini")
        steps.finished("scifact", "sounding.bm25.flat.lucene")
    assert COMPILING in buffer.getvalue() and "scifact: 2 settings in" in buffer.getvalue()


def test_log_steps_say_a_slow_set_up_was_compiling():
    said = []
    steps = LogSteps(said.append)
    with steps.compiling("scifact", "s1"):
        pass
    assert said == []
    steps_slow = LogSteps(said.append)
    import sounding.experiment.progress as progress

    old, progress.SLOW_SETUP = progress.SLOW_SETUP, 0.0
    try:
        with steps_slow.compiling("scifact", "s1"):
            pass
    finally:
        progress.SLOW_SETUP = old
    assert len(said) == 1 and COMPILING in said[0] and "not counted as search time" in said[0]


def test_a_warning_is_said_once_per_dataset_naming_its_settings():
    rows = [{"dataset": "nfcorpus", "setting": f"sounding.bm25.s{i}", "metrics": {"nDCG@10": 0.3},
             "queries_without_hits": 15, "n_queries": 323} for i in range(14)]
    rows.append({"dataset": "nfcorpus", "setting": "user.mine", "metrics": {"nDCG@10": 0.2}, "n_queries": 323})
    rows.append({"dataset": "scifact", "setting": "sounding.bm25.s0", "metrics": {"nDCG@10": 0.6},
                 "queries_without_hits": 2, "n_queries": 300})
    texts = [p.text for p in input_warnings(ResultTable(rows))]
    assert texts == [
        "nfcorpus: 15 of 323 queries got no hits in 14 of 15 settings (all but user.mine) (for BM25: no query "
        "term is in the index); they score 0.",
        "scifact: 2 of 300 queries got no hits in sounding.bm25.s0 (for BM25: no query term is in the index); "
        "they score 0."]


def test_sounding_run_prints_the_verdict_last(tmp_path, capsys):
    from test_harness import make_beir

    data = make_beir(tmp_path / "toy")
    assert main(["run", str(data), "--out", str(tmp_path / "out"), "--layouts", "flat", "--gate"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.strip()]
    assert "No configuration of this run has a published figure" in " ".join(lines[-3:])
    assert out.index("Gate passed") > out.index("reports:") > out.index("set-up kept out of q/s")
    assert out.count("toy: sounding.bm25.flat.anserini\n") == 1  # one log line per setting
