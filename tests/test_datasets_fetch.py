"""Fetching against a local HTTP server on 127.0.0.1: verified download, checksum mismatch, resume,
offline message, --from imports, bundles and tarballs; bad inputs through the CLI never print a traceback."""
import gzip
import hashlib
import io
import json
import tarfile
import threading
import zipfile
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from sounding.cli import main
from sounding.datasets import REGISTRY, DatasetInfo, Split, fetch, load_dataset
from sounding.datasets.fetch import MANIFEST
from sounding.errors import SoundingError


# ---------------------------------------------------------------- fixtures


def beir_files(docs=3, corpus=None):
    """A tiny BEIR dataset as {relative path: bytes}: 2 judged test queries, 3 test qrels lines."""
    corpus = corpus if corpus is not None else "".join(
        json.dumps({"_id": f"d{i}", "title": f"t{i}", "text": "word " * 40}) + "\n" for i in range(docs)).encode()
    return {
        "corpus.jsonl": corpus,
        "queries.jsonl": b'{"_id": "1", "text": "a"}\n{"_id": "2", "text": "b"}\n{"_id": "3", "text": "c"}\n',
        "qrels/test.tsv": b"query-id\tcorpus-id\tscore\r\n1\td0\t1\r\n2\td1\t1\r\n2\td2\t1\r\n",
    }


def zip_bytes(files, top):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:  # stored: big enough to cut in half
        for rel, data in files.items():
            z.writestr(f"{top}/{rel}", data)
    return buf.getvalue()


def write_tree(root, files):
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root


class Server:
    """Serves `files` with HTTP Range support; `cut` makes the next N responses stop half way."""

    def __init__(self):
        self.files, self.requests, self.cut, self.ranges = {}, [], 0, True
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                data = server.files.get(self.path)
                server.requests.append((self.path, self.headers.get("Range")))
                if data is None:
                    self.send_error(404)
                    return
                start, status = 0, 200
                rng = self.headers.get("Range")
                if rng and server.ranges:
                    start, status = int(rng.split("=")[1].split("-")[0]), 206
                    if start >= len(data):
                        self.send_error(416)
                        return
                body = data[start:]
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                if status == 206:
                    self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
                self.end_headers()
                if server.cut:
                    server.cut -= 1
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = Server()
    yield s
    s.close()


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("SOUNDING_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("SOUNDING_DATA", raising=False)
    monkeypatch.setenv("SOUNDING_TIMEOUT", "5")


@pytest.fixture
def tiny(server, monkeypatch):
    """A registry entry `tiny` served by the local server, with its true MD5 and SHA-256."""
    data = zip_bytes(beir_files(docs=40), "tiny")
    server.files["/tiny.zip"] = data
    info = DatasetInfo(name="tiny", kind="beir", language="en", url=f"{server.url}/tiny.zip",
                       md5=hashlib.md5(data).hexdigest(), sha256=hashlib.sha256(data).hexdigest(),
                       docs=40, splits={"test": Split(2, 3)})
    monkeypatch.setitem(REGISTRY, "tiny", info)
    return info


def leftovers(cache):
    """Anything partial left in the cache: .part files, temp folders, archives."""
    if not cache.exists():
        return []
    return [p for p in cache.rglob("*") if p.name.endswith(".part") or ".tmp-" in p.name or p.suffix == ".zip"]


# ---------------------------------------------------------------- downloads


def test_fetch_downloads_verifies_unpacks(tiny, tmp_path):
    cache = tmp_path / "cache"
    path = fetch("tiny")
    assert path == cache / "beir" / "tiny"
    manifest = json.loads((path / MANIFEST).read_text())
    assert manifest["verified"] == "md5+sha256" and manifest["md5"] == tiny.md5
    assert len(load_dataset("tiny").queries) == 2
    assert leftovers(cache) == []
    assert fetch("tiny") == path  # cached: no second download


def test_checksum_mismatch_shows_both_hashes_and_leaves_nothing(tiny, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(REGISTRY, "tiny", replace(tiny, md5="0" * 32, sha256=None))
    assert main(["fetch", "tiny"]) == 2
    err = capsys.readouterr().err
    assert "checksum mismatch" in err and "0" * 32 in err and tiny.md5 in err
    assert "Traceback" not in err
    assert leftovers(tmp_path / "cache") == [] and not (tmp_path / "cache" / "beir" / "tiny").exists()


def test_interrupted_download_resumes_from_part_file(tiny, server, tmp_path, capsys):
    server.cut = 1  # the first response stops half way, then the connection closes
    assert main(["fetch", "tiny"]) == 2
    err = capsys.readouterr().err
    assert "interrupted" in err and "resume" in err and "Traceback" not in err
    part = tmp_path / "cache" / "downloads" / "tiny.zip.part"
    half = part.stat().st_size
    assert 0 < half < len(server.files["/tiny.zip"])
    assert main(["fetch", "tiny"]) == 0
    assert server.requests[-1] == ("/tiny.zip", f"bytes={half}-")  # resumed, not restarted
    assert capsys.readouterr().out.strip().endswith("tiny")
    assert leftovers(tmp_path / "cache") == []


def test_server_without_range_support_restarts_cleanly(tiny, server, tmp_path):
    server.cut, server.ranges = 1, False
    with pytest.raises(SoundingError, match="interrupted"):
        fetch("tiny")
    assert fetch("tiny").is_dir()
    assert server.requests[-1][1] is not None  # asked for a range, got the whole file (200): rewritten


def test_offline_fails_fast_with_local_copy_hint(tiny, monkeypatch, capsys):
    monkeypatch.setitem(REGISTRY, "tiny", replace(tiny, url="http://127.0.0.1:9/tiny.zip"))  # nothing listens
    assert main(["fetch", "tiny"]) == 2
    err = capsys.readouterr().err
    assert "cannot download tiny" in err and "--data-dir" in err and "SOUNDING_DATA" in err and "--from" in err
    assert "Traceback" not in err


def test_http_error_is_one_line(tiny, monkeypatch, capsys):
    monkeypatch.setitem(REGISTRY, "tiny", replace(tiny, url=tiny.url.replace("tiny.zip", "gone.zip")))
    assert main(["fetch", "tiny"]) == 2
    assert "HTTP 404" in capsys.readouterr().err


def test_file_url_works(tmp_path, monkeypatch):
    data = zip_bytes(beir_files(), "filey")
    (tmp_path / "filey.zip").write_bytes(data)
    monkeypatch.setitem(REGISTRY, "filey", DatasetInfo(name="filey", kind="beir", language="en",
                                                       url=(tmp_path / "filey.zip").as_uri(),
                                                       md5=hashlib.md5(data).hexdigest()))
    assert (fetch("filey") / "qrels" / "test.tsv").is_file()


def test_bundle_forum_fetch_unpacks_the_whole_bundle(server, tmp_path, monkeypatch):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for forum in ("a", "b"):
            for rel, data in beir_files().items():
                z.writestr(f"bundle/{forum}/{rel}", data)
    server.files["/bundle.zip"] = buf.getvalue()
    url, md5 = f"{server.url}/bundle.zip", hashlib.md5(buf.getvalue()).hexdigest()
    monkeypatch.setitem(REGISTRY, "bundle", DatasetInfo(name="bundle", kind="beir", language="en", url=url, md5=md5))
    for forum in ("a", "b"):
        monkeypatch.setitem(REGISTRY, f"bundle-{forum}", DatasetInfo(
            name=f"bundle-{forum}", kind="beir", language="en", url=url, md5=md5, parent="bundle"))
    assert fetch("bundle-b") == tmp_path / "cache" / "beir" / "bundle" / "b"
    assert len(load_dataset("bundle-a").qrels) == 2
    assert [r[0] for r in server.requests] == ["/bundle.zip"]  # one download for both forums


def test_mrtydi_tarball_without_checksum_warns_and_loads(server, monkeypatch, capsys):
    buf = io.BytesIO()
    files = {"topic.test.tsv": b"1\tJe?\n", "qrels.test.txt": b"1 Q0 5#1 1\n",
             "collection/docs.jsonl.gz": gzip.compress(b'{"id": "5#1", "contents": "Kenya"}\n')}
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for rel, data in files.items():
            ti = tarfile.TarInfo(f"mrtydi-v1.1-swahili/{rel}")
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))
    server.files["/mrtydi-v1.1-swahili.tar.gz"] = buf.getvalue()
    monkeypatch.setitem(REGISTRY, "mrtydi-sw", replace(REGISTRY["mrtydi-sw"], url=f"{server.url}/mrtydi-v1.1-swahili.tar.gz"))
    assert main(["fetch", "mrtydi-sw"]) == 0
    err = capsys.readouterr().err
    assert "no published checksum" in err and hashlib.sha256(buf.getvalue()).hexdigest() in err
    with pytest.raises(SoundingError, match="expected 136,689, found 1"):  # one document is not Mr. TyDi sw
        load_dataset("mrtydi-sw")
    ds = load_dataset("mrtydi-sw", unverified=True)
    assert ds.language == "sw" and [d.text for d in ds.corpus()] == ["Kenya"] and not ds.verified


# ---------------------------------------------------------------- --from imports


def test_from_zip_and_folder_import_after_count_check(tiny, tmp_path, capsys):
    (tmp_path / "tiny.zip").write_bytes(zip_bytes(beir_files(docs=40), "tiny"))
    assert main(["fetch", "tiny", "--from", str(tmp_path / "tiny.zip")]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "cache" / "beir" / "tiny")
    other = tmp_path / "other"
    write_tree(other / "tiny", beir_files(docs=40))
    assert main(["fetch", "tiny", "--from", str(other), "--cache-dir", str(tmp_path / "c2")]) == 0
    assert (tmp_path / "c2" / "beir" / "tiny" / "corpus.jsonl").is_file()


def test_from_with_wrong_counts_leaves_nothing(tiny, tmp_path, capsys):
    src = write_tree(tmp_path / "src", beir_files(docs=39))
    assert main(["fetch", "tiny", "--from", str(src)]) == 2
    err = capsys.readouterr().err
    assert "does not match" in err and "docs: expected 40, found 39" in err and "Traceback" not in err
    assert leftovers(tmp_path / "cache") == [] and not (tmp_path / "cache" / "beir" / "tiny").exists()


def test_corrupt_corpus_line_names_file_and_line(tiny, tmp_path, capsys):
    corpus = beir_files(docs=3)["corpus.jsonl"] + b'{"_id": "d3", "text": oops}\n'
    src = write_tree(tmp_path / "src", beir_files(corpus=corpus))
    assert main(["fetch", "tiny", "--from", str(src)]) == 2
    err = capsys.readouterr().err
    assert "corpus.jsonl:4: bad JSON" in err and "Traceback" not in err
    assert main(["check-data", str(src)]) == 2
    assert "corpus.jsonl:4:" in capsys.readouterr().err


def test_truncated_gz_gives_one_line_error(tmp_path, capsys):
    files = beir_files(docs=500)
    full = gzip.compress(files.pop("corpus.jsonl"))
    src = write_tree(tmp_path / "src", {**files, "corpus.jsonl.gz": full[: len(full) // 2]})
    assert main(["check-data", str(src)]) == 2
    err = capsys.readouterr().err
    assert "corpus.jsonl.gz: gzip data is truncated" in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_from_missing_source_and_closed_dataset(tmp_path, capsys):
    assert main(["fetch", "scifact", "--from", str(tmp_path / "nope.zip")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    assert main(["fetch", "signal1m"]) == 2
    err = capsys.readouterr().err
    assert "not openly downloadable" in err and "--from" in err
