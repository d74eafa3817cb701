"""Files on disk, safely: atomic writes, OS errors as one-line user errors, output checks made before
the work starts, and one writer at a time per output folder.

* `atomic_write(path, data)` / `atomic_file(path)`: a temp file beside `path`, then `os.replace` —
  readers see the old file or the whole new one, never half; a failed write leaves no temp file behind.
* `os_error(e, path)`: an `OSError` as a `SoundingError` naming the path and what went wrong
  ("No space left on device", "Read-only file system", …).
* `check_output_file(path)` / `check_output_dir(path)`: can this be written? Asked before a long
  search or build, so a bad `--run` or `--out` fails in a second, not after the work.
* `sealed_json(fields)` / `seal_holds(raw)`: JSON that carries the sha256 of its own content (an index
  manifest's statistics, a shard set's merged ones), so a changed value is found when the file is read.
* `inside(root, relative)`: a path read from a file (results.json's `run_file`), refused unless it
  stays inside `root`.
* `writer_lock(folder)`: an advisory lock (`fcntl.flock`) held while a process writes an index or
  an experiment folder; a second writer fails at once, naming the first one's pid. Readers take no
  lock: they read committed generations and whole files only.
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import shutil
from pathlib import Path
from typing import BinaryIO, Iterator

from .errors import SoundingError

LOCK_FILE = ".sounding-writer.lock"


def os_error(e: OSError, path: str | Path | None = None, doing: str = "") -> SoundingError:
    """A one-line error for an OS fault on `path` (or the path the error names)."""
    where = path if path is not None else (e.filename or "")
    if e.errno is None and "requested and" in str(e) and "written" in str(e):
        e = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # numpy's short write: the disk filled up
    what = e.strerror or (errno.errorcode.get(e.errno, "") if e.errno else "") or str(e)
    hint = {errno.ENOSPC: "; free some space or choose another place",
            errno.EROFS: "; choose a writable place", errno.EACCES: "; check the permissions",
            errno.EDQUOT: "; free some space or choose another place"}.get(e.errno or 0, "")
    return SoundingError(f"{where}: {'cannot ' + doing + ': ' if doing else ''}{what}{hint}")


def temp_path(path: Path) -> Path:
    """The temp file a write of `path` goes through (hidden, beside it, one per process)."""
    return path.with_name(f".{path.name}.tmp-{os.getpid()}")


@contextlib.contextmanager
def atomic_file(path: str | Path) -> Iterator[BinaryIO]:
    """A binary file to write `path` through: a temp file beside it, synced and renamed over `path`
    when the block ends; on any failure the temp file is removed (an OS error becomes one line)."""
    path = Path(path)
    tmp = temp_path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(e, OSError):
            raise os_error(e, path, "write") from None
        raise


def atomic_write(path: str | Path, data: bytes | str) -> Path:
    """Write `data` to `path` via a temp file and rename; on failure nothing is left behind."""
    with atomic_file(path) as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)
    return Path(path)


def atomic_write_json(path: str | Path, data) -> Path:
    return atomic_write(path, json.dumps(data, indent=1) + "\n")


def pid_alive(pid: int) -> bool:
    """Whether process `pid` still runs (a temp file named after a dead one is left over)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


_PID = re.compile(r"(?:tmp-|partial-)(\d+)$|\.(\d+)\.tmp$")


def remove_stale(folder: Path, pattern: str) -> None:
    """Remove the temp files and folders matching `pattern` (named …tmp-<pid>, …partial-<pid> or
    ….<pid>.tmp) whose process is gone: what a killed writer left behind."""
    for p in Path(folder).glob(pattern):
        m = _PID.search(p.name)
        if m and not pid_alive(int(m.group(1) or m.group(2))):
            shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)


def digest(*parts: str) -> str:
    """sha256 (hex) of strings, each ended by a NUL: a content key for caches."""
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()


SEAL = "digest"  # the member of a sealed JSON object that holds its digest


def _seal_of(fields: dict) -> str:
    canonical = json.dumps({**fields, SEAL: ""}, indent=1, sort_keys=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def sealed_json(fields: dict) -> str:
    """`fields` as JSON text (sorted keys) with one more member, "digest": the sha256 of the same JSON with
    "digest" empty. What reads it back checks `seal_holds`: any changed value (a statistic, a checksum) no
    longer matches. It finds damage and edits by hand, not a forger who recomputes the digest."""
    fields = {k: v for k, v in fields.items() if k != SEAL}
    return json.dumps({**fields, SEAL: _seal_of(fields)}, indent=1, sort_keys=True)


def seal_holds(raw: dict) -> bool:
    """Whether the parsed object of a `sealed_json` text still matches its digest."""
    return isinstance(raw.get(SEAL), str) and raw[SEAL] == _seal_of({k: v for k, v in raw.items() if k != SEAL})


def inside(root: str | Path, relative: str | Path, what: str = "path") -> Path:
    """`root / relative` when it stays inside `root` (no absolute path, no `..` or link leading out);
    a one-line SoundingError naming the value otherwise. For paths read from files a user may edit."""
    root = Path(root)
    rel = Path(str(relative))
    if not str(relative) or rel.is_absolute():
        raise SoundingError(f"{what} {str(relative)!r} is not a path inside {root}")
    path = root / rel
    base = root.resolve()
    if not path.resolve().is_relative_to(base):
        raise SoundingError(f"{what} {str(relative)!r} leads outside {root}")
    return path


def file_sha256(path: str | Path) -> str:
    """sha256 (hex) of a file's bytes, read in 4 MiB blocks; a read error is one line naming the file."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            while chunk := f.read(1 << 22):
                h.update(chunk)
    except OSError as e:
        raise os_error(e, path, "read") from None
    return h.hexdigest()


def slug(name: str) -> str:
    """A file-name-safe short name for a model or system given by hub name or local path."""
    tail = name.rstrip("/").split("/")[-1] if name else ""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", tail).strip("-").lower()


def _first_existing(path: Path) -> Path:
    p = path
    while not p.exists():
        if p.parent == p:
            break
        if p.is_symlink():
            break
        p = p.parent
    return p


def check_output_dir(path: str | Path, *, need_bytes: int = 0) -> Path:
    """Make sure `path` is (or can become) a writable folder with room for about `need_bytes`."""
    path = Path(path)
    base = _first_existing(path)
    if base.exists() and not base.is_dir():
        raise SoundingError(f"{path}: cannot write here: {base} is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".sounding-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise os_error(e, path, "write") from None
    if need_bytes:
        free = shutil.disk_usage(path).free
        if free < need_bytes:
            raise SoundingError(f"{path}: not enough free space: needs about {_size(need_bytes)}, "
                                f"{_size(free)} free; free some space or choose another place")
    return path


def check_output_file(path: str | Path) -> Path:
    """Make sure the file `path` can be written (its folder exists or can be made, and is writable)."""
    path = Path(path)
    if path.is_dir():
        raise SoundingError(f"{path}: is a folder; give a file path")
    check_output_dir(path.parent)
    return path


def _size(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1000
    return f"{n} bytes"  # pragma: no cover


@contextlib.contextmanager
def writer_lock(folder: str | Path, what: str = "") -> Iterator[None]:
    """Hold `folder`'s writer lock for the block; fail at once if another process holds it.

    Hand-written on `fcntl.flock` rather than `filelock`: filelock truncates the lock file on every
    attempt, so the file could not tell a second writer which process holds the lock. The kernel
    drops a flock when its holder dies (kill -9 included): a stale lock file blocks nobody."""
    import fcntl

    folder = Path(folder)
    check_output_dir(folder)
    lock = folder / LOCK_FILE
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise os_error(e, lock, "lock") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            raise SoundingError(f"another sounding process is writing {what or folder} (pid {holder}); "
                                f"wait for it to finish") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


__all__ = ["LOCK_FILE", "SEAL", "atomic_write", "atomic_write_json", "check_output_dir", "check_output_file", "digest",
           "file_sha256", "atomic_file", "inside", "os_error", "pid_alive", "remove_stale", "seal_holds", "sealed_json",
           "slug", "temp_path", "writer_lock"]
