"""State checked before it is trusted, second round: folders copied without following links, output folders
keyed by what made them, resume that verifies before it reuses, and user code that fails in one line. Each
case asserts the exit code, one line naming the path or system, no traceback, and that the files that
existed before the command are unchanged."""
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from sounding.cli import main
from sounding.datasets import REGISTRY, DatasetInfo, Split
from test_faults import mini_dataset, one_line_error
from test_faults_input import snapshot


# -- fetch --from DIR: no folder links followed, a bounded copy -------------------------------------------------
@pytest.fixture
def small_info(monkeypatch):
    """A registry entry whose archive is 20 kB: a copy of more than 2 × 5 × 20 kB stops."""
    info = DatasetInfo(name="tiny-test", kind="beir", language="en", size=20_000, docs=30,
                       splits={"test": Split(None, None)})
    monkeypatch.setitem(REGISTRY, info.name, info)
    return info


def _beir_folder(root: Path) -> Path:
    return mini_dataset(root, n_docs=30)


def test_fetch_from_a_folder_refuses_a_folder_link(tmp_path, capsys, small_info):
    src = _beir_folder(tmp_path / "src" / "tiny-test")
    before = snapshot(src)
    (src / "loop").symlink_to(".")
    (src / "qrels" / "again").symlink_to("..")
    home = tmp_path / "home"
    t0 = time.monotonic()
    assert main(["fetch", "tiny-test", "--from", str(src), "--cache-dir", str(home)]) == 2
    err = capsys.readouterr().err
    one_line_error(err, "is a link to a folder", str(src / "loop"))
    assert len(err) < 600 and time.monotonic() - t0 < 30
    assert not (home / "beir" / "tiny-test").exists()
    assert not [p for p in (home / "beir").iterdir() if ".tmp-" in p.name]
    os.unlink(src / "loop")
    os.unlink(src / "qrels" / "again")
    assert snapshot(src) == before


def test_fetch_from_a_folder_stops_at_twice_the_expected_size(tmp_path, capsys, small_info):
    src = _beir_folder(tmp_path / "src" / "tiny-test")
    (src / "extra.bin").write_bytes(b"\0" * 300_000)
    before = snapshot(tmp_path / "src")
    home = tmp_path / "home"
    assert main(["fetch", "tiny-test", "--from", str(src), "--cache-dir", str(home)]) == 2
    one_line_error(capsys.readouterr().err, f"--from {src}", "stopped after copying", "2 times the 100,000")
    assert snapshot(tmp_path / "src") == before
    assert not (home / "beir" / "tiny-test").exists()
    assert not [p for p in (home / "beir").iterdir() if ".tmp-" in p.name]


@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_fetch_from_a_folder_refuses_what_is_not_a_file(tmp_path, capsys, small_info, kind):
    src = _beir_folder(tmp_path / "src" / "tiny-test")
    if kind == "device":
        (src / "zero").symlink_to("/dev/zero")  # a link to a file would be copied; to a device, never
    else:
        os.mkfifo(src / "zero")  # opening it would wait for a writer for ever
    home = tmp_path / "home"
    assert main(["fetch", "tiny-test", "--from", str(src), "--cache-dir", str(home)]) == 2
    one_line_error(capsys.readouterr().err, str(src / "zero"), "is not a regular file")
    assert not (home / "beir" / "tiny-test").exists()


def test_fetch_from_a_folder_copies_file_links(tmp_path, small_info):
    src = _beir_folder(tmp_path / "src" / "tiny-test")
    shutil.move(src / "corpus.jsonl", tmp_path / "corpus.jsonl")
    (src / "corpus.jsonl").symlink_to(tmp_path / "corpus.jsonl")
    home = tmp_path / "home"
    assert main(["fetch", "tiny-test", "--from", str(src), "--cache-dir", str(home)]) == 0
    copied = home / "beir" / "tiny-test" / "corpus.jsonl"
    assert not copied.is_symlink() and copied.read_bytes() == (tmp_path / "corpus.jsonl").read_bytes()
