"""Finding datasets on disk, downloading them (resumable, checksum-verified) and importing local copies.

Cache layout (under $SOUNDING_HOME, default platformdirs.user_cache_dir("sounding")) mirrors
the shared data layout: `beir/<name>`, `beir/cqadupstack/<forum>`, `mrtydi/<lang>`, with
downloads in `downloads/<file>.part` until verified. A dataset folder appears only by an
atomic rename of a fully unpacked temp folder beside it, so a folder that exists is whole.
"""
from __future__ import annotations

import hashlib
import http.client
import json
import os
import shutil
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

from .. import __version__
from ..errors import SoundingError
from ..io import remove_stale
from .beir import is_beir
from .counts import check_counts
from .mrtydi import is_mrtydi
from .names import get_info, is_irds_id, lookup
from .registry import REGISTRY, DatasetInfo, cache_home

MANIFEST = ".sounding-source.json"
Progress = Callable[[int, int | None], None]  # (bytes so far, total bytes or None)


def _timeout() -> float:
    # Short by default: without network we want a fast, helpful failure, not a hang.
    return float(os.environ.get("SOUNDING_TIMEOUT", "15"))


def _children(info: DatasetInfo) -> list[DatasetInfo]:
    return [i for i in REGISTRY.values() if i.parent == info.name]


# ---------------------------------------------------------------- lookup


def _candidates(base: Path, info: DatasetInfo) -> list[Path]:
    """Where a dataset may sit under a data root: flat (`scifact`) or shared (`beir/scifact`, `mrtydi/sw`)."""
    c = [base / info.name, base / info.cache_subpath, base / info.short]
    if info.archive_root:
        c.append(base / info.archive_root)  # an unpacked castorini tarball: mrtydi-v1.1-swahili
    return c


def find_local(info: DatasetInfo, *, data_dir: str | Path | None = None, home: str | Path | None = None) -> Path | None:
    bases = [Path(data_dir).expanduser()] if data_dir else []
    env = os.environ.get("SOUNDING_DATA")
    bases += [Path(p).expanduser() for p in env.split(os.pathsep) if p] if env else []
    for base in bases[1 if data_dir else 0:]:
        if not base.is_dir():  # a typo here would otherwise send the user to download
            raise SoundingError(f"SOUNDING_DATA names {base}, which is not a folder; fix or unset it")
    for base in bases:
        for cand in _candidates(base, info):
            if cand.is_dir():
                return cand
    cached = cache_home(home) / info.cache_subpath
    return cached if _installed(cached, info) else None


def _installed(target: Path, info: DatasetInfo) -> bool:
    # A bundle (cqadupstack) folder may exist holding one imported forum; only its manifest says "whole".
    return (target / MANIFEST).is_file() if _children(info) else target.is_dir()


def resolve(name_or_dir: str | Path, *, data_dir: str | Path | None = None, home: str | Path | None = None,
            download: bool = True, progress: Progress | None = None) -> Path:
    """The folder of a dataset: an existing folder as is; else data_dir, $SOUNDING_DATA, the cache, a download."""
    p = Path(name_or_dir).expanduser()
    if p.is_dir():
        return p
    name = str(name_or_dir)
    if lookup(name) is None:
        if is_irds_id(name):  # an ir_datasets id outside the registry: through ir_datasets, copied once
            from .irds import cached, materialize

            found = materialize(name, home) if download else cached(name, home)
            if found is None:
                raise SoundingError(f"{name} is not on this machine; run `sounding fetch {name}`")
            return found
        if os.sep in name or name.startswith((".", "~")):
            raise SoundingError(f"{name}: no such folder")
    if data_dir is not None and not Path(data_dir).expanduser().is_dir():
        raise SoundingError(f"data dir {data_dir}: no such folder")
    info = get_info(name)
    found = find_local(info, data_dir=data_dir, home=home)
    if found is not None:
        return found
    if not download:
        raise SoundingError(f"{info.name} is not on this machine; run `sounding fetch {info.name}`")
    return fetch(info, home=home, progress=progress)


# ---------------------------------------------------------------- download


def _offline_hint(info: DatasetInfo) -> str:
    return (f"Without network, point Sounding at a local copy: `--data-dir DIR` or `SOUNDING_DATA=DIR` "
            f"(holding {info.cache_subpath} or {info.name}), or `sounding fetch {info.name} --from PATH` "
            f"(a zip or folder)")


def download(url: str, dest: Path, *, info: DatasetInfo | None = None, timeout: float | None = None,
             progress: Progress | None = None) -> Path:
    """Download `url` into `dest`.part, resuming from what the .part file already holds (HTTP Range)."""
    part = dest.with_name(dest.name + ".part")
    part.parent.mkdir(parents=True, exist_ok=True)
    have = part.stat().st_size if part.exists() else 0
    headers = {"User-Agent": f"sounding/{__version__}"}
    if have:
        headers["Range"] = f"bytes={have}-"
    label = info.name if info else url
    try:
        resp = urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout or _timeout())
    except ValueError as e:  # not a URL urllib can open
        raise SoundingError(f"download of {label} failed: bad URL {url!r} ({e})") from None
    except urllib.error.HTTPError as e:
        if e.code == 416 and have:  # nothing left to send: the .part file is already whole
            return part
        raise SoundingError(f"download of {label} failed: {url} answered HTTP {e.code} {e.reason}") from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        if urllib.parse.urlparse(url).scheme == "file":
            raise SoundingError(f"download of {label} failed: {reason}") from None
        hint = _offline_hint(info) if info else "check the network"
        raise SoundingError(f"cannot download {label} from {url} ({reason}). {hint}") from None
    with resp:
        status = getattr(resp, "status", None) or resp.getcode()
        if have and status == 206:
            start = resp.headers.get("Content-Range", "").replace("bytes ", "").split("-")[0]
            if start.strip() != str(have):
                raise SoundingError(f"download of {label}: server resumed at byte {start!r}, not {have}; "
                                    f"delete {part} and try again")
            mode = "ab"
        else:  # no Range support (200): start over
            mode, have = "wb", 0
        length = resp.headers.get("Content-Length")
        total = have + int(length) if length and length.isdigit() else None
        done = have
        try:
            with open(part, mode) as f:
                while chunk := resp.read(1 << 20):
                    f.write(chunk)
                    done += len(chunk)
                    if progress:
                        progress(done, total)
        except (http.client.IncompleteRead, OSError) as e:
            raise SoundingError(f"download of {label} was interrupted after {done:,} bytes ({type(e).__name__}); "
                                f"run the same command again to resume from {part.name}") from None
    if total is not None and done != total:  # the connection closed early without an exception
        raise SoundingError(f"download of {label} was interrupted after {done:,} of {total:,} bytes; "
                            f"run the same command again to resume from {part.name}")
    return part


def file_hashes(path: Path) -> tuple[str, str]:
    md5, sha = hashlib.md5(), hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            md5.update(block)
            sha.update(block)
    return md5.hexdigest(), sha.hexdigest()


def verify(path: Path, info: DatasetInfo) -> tuple[str, str]:
    """Check the registry's MD5/SHA-256; on mismatch delete the file and say both hashes."""
    md5, sha = file_hashes(path)
    bad = [f"{kind} expected {want}, got {got}"
           for kind, want, got in (("md5", info.md5, md5), ("sha256", info.sha256, sha)) if want and want != got]
    if bad:
        path.unlink(missing_ok=True)
        raise SoundingError(f"checksum mismatch for {info.name} ({info.url}): {'; '.join(bad)}. "
                            f"The download was removed; run the command again, or import a copy you trust "
                            f"with `sounding fetch {info.name} --from PATH`")
    return md5, sha


# ---------------------------------------------------------------- unpack and install


def _extract(archive: Path, into: Path) -> None:
    try:
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as z:
                z.extractall(into)  # zipfile drops absolute and ".." parts of member names
        elif tarfile.is_tarfile(archive):
            with tarfile.open(archive) as t:
                t.extractall(into, filter="data")  # refuses links and paths leaving `into`
        else:
            raise SoundingError(f"{archive}: neither a zip nor a tar archive")
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, zlib.error) as e:
        raise SoundingError(f"{archive}: cannot unpack ({e})") from None


def _is_dataset_dir(d: Path, info: DatasetInfo) -> bool:
    kids = _children(info)
    if kids:  # a bundle: holds its sub-forums
        return any((d / k.short.rsplit("/", 1)[-1]).is_dir() for k in kids)
    return is_beir(d) or is_mrtydi(d) or any(d.glob("topics.*"))


def _locate(d: Path, info: DatasetInfo) -> Path:
    """The dataset folder inside an unpacked archive or a given folder (zips wrap it in `<name>/`); a link
    to a folder is not entered."""
    forum = info.short.rsplit("/", 1)[-1] if info.parent else None
    for _ in range(4):
        if _is_dataset_dir(d, info):
            return d
        names = [info.archive_root, info.name, info.parent, forum]
        nxt = next((d / n for n in names if n and _real_dir(d / n)), None)
        if nxt is None:
            subs = [p for p in d.iterdir() if _real_dir(p) and not p.name.startswith((".", "__MACOSX"))]
            if len(subs) != 1:
                return d
            nxt = subs[0]
        d = nxt
    return d


def _real_dir(p: Path) -> bool:
    return p.is_dir() and not p.is_symlink()


COPY_FACTOR = 2  # a folder import stops once it has copied this many times the expected bytes
# Measured on BEIR's scifact, nfcorpus and arguana: unpacked, 2.96, 3.96 and 3.11 times their zip, and 1.6, 2.7
# and 1.4 KB a document (queries and qrels included)
UNPACKED_PER_ARCHIVE_BYTE = 5
BYTES_PER_DOC = 4096


def expected_bytes(info: DatasetInfo) -> int | None:
    """An upper estimate of a whole unpacked copy of `info`: the archive's bytes × UNPACKED_PER_ARCHIVE_BYTE
    where the registry knows them, else BYTES_PER_DOC a document (a bundle: its parts'); None when the
    registry knows neither."""
    if info.size:
        return info.size * UNPACKED_PER_ARCHIVE_BYTE
    docs = info.docs or sum(k.docs or 0 for k in _children(info))
    return docs * BYTES_PER_DOC if docs else None


def _copy_folder(src: Path, dst: Path, limit: int | None, label: str) -> None:
    """Copy the folder `src` to `dst` without following a link to a folder (refused, naming it: a link
    loop would copy without end) and without reading anything but regular files (a device or pipe is
    refused); a link to a file is copied as the file. Stops with one line once more than `limit` bytes
    are copied. (shutil.copytree follows folder links, or copies the links themselves, and has no limit.)"""
    copied = 0
    stack = [(src, dst)]
    while stack:
        here, there = stack.pop()
        there.mkdir()
        with os.scandir(here) as entries:
            for e in sorted(entries, key=lambda e: e.name):
                path = Path(e.path)
                if e.is_symlink() and e.is_dir():
                    raise SoundingError(f"--from {label}: {path} is a link to a folder; Sounding does not follow "
                                        f"folder links when it copies a dataset (copy or move the folder there)")
                if e.is_dir(follow_symlinks=False):
                    stack.append((path, there / e.name))
                    continue
                if not e.is_file():  # a device, a pipe, a socket, a dangling link
                    raise SoundingError(f"--from {label}: {path} is not a regular file; nothing was added to the cache")
                with open(path, "rb") as fin, open(there / e.name, "wb") as fout:
                    while block := fin.read(1 << 20):
                        copied += len(block)
                        if limit is not None and copied > limit:
                            raise SoundingError(
                                f"--from {label}: stopped after copying {copied:,} bytes, {COPY_FACTOR} times "
                                f"the {limit // COPY_FACTOR:,} a whole copy is expected to hold; is this the "
                                f"dataset's folder? Nothing was added to the cache")
                        fout.write(block)


def _write_manifest(d: Path, info: DatasetInfo, **fields) -> None:
    fields = {"name": info.name, "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **fields}
    (d / MANIFEST).write_text(json.dumps(fields, indent=2) + "\n")


def _install(payload: Path, target: Path) -> None:
    """Rename a whole folder into place (atomic on one file system); merge into a partial bundle folder."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        try:
            os.rename(payload, target)
            return
        except OSError:
            if not target.is_dir():
                raise
    for child in payload.iterdir():  # target is a bundle holding some imported forums: add the rest
        if not (target / child.name).exists():
            os.rename(child, target / child.name)


def _temp_beside(target: Path) -> Path:
    """A fresh work folder beside `target`, named after this process; those of killed processes go."""
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale(target.parent, f".{target.name}.tmp-*")
    tmp = target.parent / f".{target.name}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    return tmp


def fetch(name: str | DatasetInfo, *, source: str | Path | None = None, home: str | Path | None = None,
          progress: Progress | None = None, timeout: float | None = None, unverified: bool = False) -> Path:
    """Put a dataset in the cache (download and verify it, or import `source`) and return its folder.
    `unverified`: import a `source` archive whose checksum differs from the registry's (its manifest
    then says so)."""
    if not isinstance(name, DatasetInfo) and lookup(name) is None and is_irds_id(name) and source is None:
        from .irds import materialize

        return materialize(name, home)
    info = name if isinstance(name, DatasetInfo) else get_info(name)
    home = cache_home(home)
    target = home / info.cache_subpath
    if source is not None:
        return import_local(info, source, home=home, unverified=unverified)
    if _installed(target, info):
        return target
    if info.parent:  # a cqadupstack forum: fetch the whole bundle, the forum is inside
        fetch(REGISTRY[info.parent], home=home, progress=progress, timeout=timeout)
        if not target.is_dir():
            raise SoundingError(f"{info.parent} archive has no {info.short} folder")
        return target
    if not info.downloadable or not info.url:
        raise SoundingError(f"{info.name} is not openly downloadable ({info.licence}); build it from the original "
                            f"source and import it with `sounding fetch {info.name} --from PATH`")
    basename = Path(urllib.parse.urlparse(info.url).path).name or f"{info.name}.zip"
    archive = home / "downloads" / basename
    part = download(info.url, archive, info=info, timeout=timeout, progress=progress)
    md5, sha = verify(part, info)
    os.replace(part, archive)  # verified: no longer partial
    tmp = _temp_beside(target)
    try:
        _extract(archive, tmp)
        payload = _locate(tmp, info)
        checked = "+".join(k for k in ("md5", "sha256") if getattr(info, k)) or "none (no published checksum)"
        _write_manifest(payload, info, source=info.url, md5=md5, sha256=sha, verified=checked)
        _install(payload, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        archive.unlink(missing_ok=True)
    return target


def import_local(info: DatasetInfo, source: str | Path, *, home: str | Path | None = None,
                 unverified: bool = False) -> Path:
    """Copy a local zip/tarball or folder into the cache after checking it against the registry: an
    archive must have the registry's checksum where one is published (unless `unverified`), and
    every copy must have its counts."""
    source = Path(source).expanduser()
    if not source.exists():
        raise SoundingError(f"--from {source}: no such file or folder")
    hashes = file_hashes(source) if source.is_file() else (None, None)
    bad = [f"{kind} expected {want}, found {got}" for kind, want, got in
           (("md5", info.md5, hashes[0]), ("sha256", info.sha256, hashes[1])) if source.is_file() and want and want != got]
    if bad and not unverified:
        raise SoundingError(f"--from {source} is not the registry's {info.name} archive: {'; '.join(bad)}. "
                            f"Nothing was added to the cache; pass --unverified-data to import it anyway")
    if not source.is_file() or not (info.md5 or info.sha256):
        verified = "counts"
    else:
        verified = "unverified: checksum differs, counts match" if bad else "checksum+counts"
    target = cache_home(home) / info.cache_subpath
    if _installed(target, info):
        raise SoundingError(f"{info.name} is already in the cache at {target}; remove that folder to re-import")
    tmp = _temp_beside(target)
    try:
        if source.is_dir():
            payload = tmp / "payload"
            expected = expected_bytes(info)
            _copy_folder(_locate(source, info), payload, expected and COPY_FACTOR * expected, str(source))
        else:
            _extract(source, tmp)
            payload = _locate(tmp, info)
        kids = _children(info)
        problems = ([f"{k.name}: {p}" for k in kids for p in _forum_problems(payload, k)] if kids
                    else check_counts(payload, info))
        if problems:
            raise SoundingError(f"--from {source} does not match the registry's {info.name}: "
                                f"{'; '.join(problems)}. Nothing was added to the cache")
        md5, sha = hashes
        _write_manifest(payload, info, source=str(source.resolve()), md5=md5, sha256=sha, verified=verified)
        _install(payload, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def _forum_problems(bundle: Path, forum: DatasetInfo) -> list[str]:
    d = bundle / forum.short.rsplit("/", 1)[-1]
    return check_counts(d, forum) if d.is_dir() else ["missing"]
