"""Resident memory: read-once mapped arrays let go of their pages (madvise), the heap its free blocks."""
from __future__ import annotations

import ctypes
import mmap
from functools import lru_cache

import numpy as np


def release_pages(view: np.ndarray) -> None:
    """Drop this process's resident pages of a read-only file mapping (reads fault them back in
    from the page cache): for arrays read once, so that they do not stay in the resident set."""
    if not _maps_file(view):
        return
    page = mmap.PAGESIZE
    start = -(-view.ctypes.data // page) * page  # whole pages inside the view only
    end = (view.ctypes.data + view.nbytes) // page * page
    madvise = getattr(_libc(), "madvise", None)
    if end > start and madvise is not None:
        madvise(ctypes.c_void_p(start), ctypes.c_size_t(end - start), 4)  # MADV_DONTNEED


def _maps_file(view: np.ndarray) -> bool:
    base = view
    while isinstance(base, np.ndarray):
        if isinstance(base, np.memmap):
            return True
        base = base.base
    return isinstance(base, mmap.mmap)


@lru_cache(maxsize=1)
def _libc():
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:  # pragma: no cover - no C library to load (Windows)
        return None


def trim_heap() -> None:
    """Hand the C heap's free memory back to the system (glibc's malloc_trim). Blocks freed after a
    phase (postings held before a spill, an analyzer's cache) otherwise stay resident, and the next
    phase's large arrays come on top of them."""
    trim = getattr(_libc(), "malloc_trim", None)
    if trim is not None:
        trim(0)
