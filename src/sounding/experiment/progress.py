"""What `run_experiment` says about its work while it runs: each step as it starts, advances and ends.

The runner calls a `Steps` object; this module's `LogSteps` turns the calls into the plain log lines
`sounding run` has always printed (one per index build and per setting), and the command line supplies
its own, which draws rich progress bars on a terminal (cli/progress.py: the same steps, drawn). A step that can take more than a
couple of seconds is one of these calls: an index build (with the documents indexed so far), a dataset's
settings (one advance per finished row), setting a search up (compiling its kernels the first time),
and any other step named by `step`.
"""
from __future__ import annotations

import contextlib
import time
from typing import Callable, Iterator

COMPILING = "compiling kernels (first run only)"
SLOW_SETUP = 1.0  # seconds: a set-up this long was compiling, and the log says so


class Steps:
    """The calls the runner makes; every one does nothing here (subclasses say or draw something)."""

    @contextlib.contextmanager
    def indexing(self, dataset: str, analyzer: str) -> Iterator[Callable[[int], None] | None]:
        """An index build; yields a callback taking the number of documents indexed so far, or None."""
        yield None

    def settings(self, dataset: str, total: int) -> None:
        """A dataset's `total` settings are about to run."""

    def setting(self, dataset: str, name: str) -> None:
        """A setting starts (its row was not reused)."""

    def finished(self, dataset: str, name: str) -> None:
        """A setting's row is ready (computed or reused)."""

    @contextlib.contextmanager
    def compiling(self, dataset: str, name: str) -> Iterator[None]:
        """A setting's search is set up and its kernels compiled (or loaded from numba's cache) outside its
        timing: a warm-up search of one query."""
        yield

    @contextlib.contextmanager
    def step(self, label: str) -> Iterator[None]:
        """Any other step, named."""
        yield

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """A step that draws its own progress (an arm's encoding): nothing else is drawn meanwhile."""
        yield


class LogSteps(Steps):
    """One log line per index build and per setting run."""

    def __init__(self, log: Callable[[str], None]):
        self.log = log

    @contextlib.contextmanager
    def indexing(self, dataset: str, analyzer: str) -> Iterator[None]:
        self.log(f"indexing {dataset} ({analyzer})")
        yield None

    def setting(self, dataset: str, name: str) -> None:
        self.log(f"{dataset}: {name}")

    @contextlib.contextmanager
    def compiling(self, dataset: str, name: str) -> Iterator[None]:
        start = time.perf_counter()
        yield
        seconds = time.perf_counter() - start
        if seconds >= SLOW_SETUP:
            self.log(f"{dataset}: {name} set up in {seconds:.1f} s ({COMPILING}; not counted as search time)")


__all__ = ["COMPILING", "LogSteps", "Steps"]
