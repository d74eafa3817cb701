"""Which device a torch model (dense, sparse and rerank encoders) runs on, and what follows from it.

    resolve_device("auto")   -> "cuda" where torch sees a CUDA GPU, else "mps" (Apple silicon), else "cpu"
    resolve_device("cuda")   -> "cuda", or one line saying why it cannot (no CUDA in this torch, or no GPU)

On a GPU the model runs in half precision (float16: twice the throughput and half the memory of float32 on
tensor cores; vectors come back as float32 and are L2-normalised as on CPU), and the batch is larger
(`batch_size`), since a GPU is only busy with many texts at once. Vectors made in half precision differ from
float32 ones in their last bits, so an encoder's `model_id` names its precision and such vectors are stored
apart (dense/vectors.py keys stores by model_id). ONNX and model2vec encoders run on the CPU whatever is asked.
"""
from __future__ import annotations

from ..errors import SoundingError

DEVICES = ("auto", "cpu", "cuda", "mps")
BATCH_SIZE = {"cpu": 32, "mps": 64, "cuda": 128}  # texts per batch when none is asked for


def check_device(device: str | None) -> str:
    """The device's name, normalised, without asking torch; one line for a name that is none of DEVICES."""
    device = (device or "auto").strip().lower()
    kind, _, number = device.partition(":")
    if kind not in DEVICES or (number and (kind != "cuda" or not number.isdigit())):
        raise SoundingError(f"--device {device!r}: choose auto, cpu, cuda (or cuda:N) or mps")
    return device


def resolve_device(device: str | None = "auto") -> str:
    """The device to run on: `auto` (or None) picks the best available; `cuda` may name a GPU (`cuda:1`)."""
    device = check_device(device)
    kind = device.split(":", 1)[0]
    if kind == "cpu":
        return "cpu"
    try:
        import torch
    except ImportError:
        if kind == "auto":
            return "cpu"
        raise SoundingError(f"--device {device}: torch is not installed (pip install 'sounding[dense]')") from None
    cuda, mps = torch.cuda.is_available(), _mps(torch)
    if kind == "auto":
        return "cuda" if cuda else "mps" if mps else "cpu"
    if kind == "cuda" and not cuda:
        why = "this torch has no CUDA support (a CPU build)" if torch.version.cuda is None else "no CUDA GPU is visible"
        raise SoundingError(f"--device {device}: {why}; use --device auto or cpu")
    if kind == "mps" and not mps:
        raise SoundingError(f"--device mps: torch sees no Apple-silicon GPU (MPS); use --device auto or cpu")
    return device


def _mps(torch) -> bool:
    backend = getattr(getattr(torch, "backends", None), "mps", None)
    return bool(backend is not None and backend.is_available())


def half_precision(device: str) -> bool:
    """Whether models run in float16 on this (resolved) device: on CUDA GPUs."""
    return device.startswith("cuda")


def batch_size(device: str, asked: int | None) -> int:
    """The batch asked for, or the device's default."""
    return int(asked) if asked else BATCH_SIZE[device.split(":", 1)[0]]
