"""Shared fixtures. Real-data tests use ../shared/datasets (or $SOUNDING_DATA) and skip, saying why, without it."""
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def shared_data_dir() -> Path | None:
    env = os.environ.get("SOUNDING_DATA")
    for cand in ([Path(env)] if env else []) + [REPO.parent / "shared" / "datasets"]:
        if (cand / "beir").is_dir() or (cand / "mrtydi").is_dir():
            return cand.resolve()
    return None


@pytest.fixture(scope="session")
def shared_data() -> Path:
    d = shared_data_dir()
    if d is None:
        pytest.skip("real data not found: set SOUNDING_DATA or place ../shared/datasets beside the checkout")
    return d


@pytest.fixture(scope="session")
def beir_dir(shared_data):
    """Folder of one BEIR dataset in the shared data, or a skip naming what is missing."""

    def get(name: str) -> Path:
        p = shared_data / "beir" / name
        if not (p / "corpus.jsonl.gz").exists():
            pytest.skip(f"BEIR {name} not in {shared_data}")
        return p

    return get
