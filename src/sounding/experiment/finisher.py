"""Finishing `sounding run`'s settings in a second thread while the next one is searched."""
from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

from .settings import Setting


class Finisher:
    """Finishes a Sounding BM25 setting (run file, scores, cross-check, row) in a second thread while the next
    setting is searched: the search kernels and the run-file formatting run outside Python's lock, so on two
    cores a setting costs about the longer of its search and its finishing, not their sum. At most one
    setting is finished at a time and at most one waits (memory: two settings' hits); rows come out in the
    settings' order. Every other setting (and --ray's) runs whole in the calling thread, after the
    finishing in flight: a user system's row reads the reference row's per-query file."""

    def __init__(self, *, enabled: bool):
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="sounding-finish") if enabled else None
        self._done: list = []  # (setting, row or Future), in order

    def later(self, s: Setting):
        """The executor to finish setting `s` on, or None (finish it here, after what is in flight)."""
        if self._pool is not None and s.arm == "bm25" and s.engine == "sounding":
            return self
        self.wait()
        return None

    def submit(self, finish):
        self.wait()  # the previous setting is finished before this one starts finishing
        return self._pool.submit(finish)

    def add(self, s: Setting, got) -> None:
        self._done.append((s, got))

    def wait(self) -> None:
        for _, got in self._done:
            if isinstance(got, Future):
                got.result()

    def rows(self):
        return [(s, got.result() if isinstance(got, Future) else got) for s, got in self._done]

    def __enter__(self) -> "Finisher":
        return self

    def __exit__(self, *exc) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)  # an error in the search still lets the file in progress complete
