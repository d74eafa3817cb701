"""`sounding run`'s progress on a terminal: rich bars for the steps run_experiment names (experiment/progress.py).

The display is redrawn when something happens, never by a refresh thread: an index build forks its analysis
workers only when no other thread runs. A step that ends within COMPILE_QUIET seconds (setting up a search
whose kernels are in numba's cache) draws nothing.
"""
from __future__ import annotations

import contextlib
import threading
import time
from typing import Iterator

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from ..escape import terminal
from ..experiment.progress import COMPILING, Steps

COMPILE_QUIET = 0.4  # seconds a search set-up runs before "compiling kernels" is shown
REDRAW = 0.2  # at most this often while an index build reports its documents


class RichSteps(Steps):
    """Steps drawn as a transient rich display; each finished index build and dataset leaves one line."""

    def __init__(self, console: Console):
        self.console = console
        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), console=console, transient=True, auto_refresh=False)
        self._dataset_task: dict[str, int] = {}
        self._started: dict[str, float] = {}

    def __enter__(self) -> "RichSteps":
        self.bar.start()
        return self

    def __exit__(self, *exc) -> None:
        self.bar.stop()

    def _say(self, text: str) -> None:
        self.bar.console.print(Text(terminal(text), style="dim"))

    @contextlib.contextmanager
    def indexing(self, dataset: str, analyzer: str) -> Iterator:
        task = self.bar.add_task(terminal(f"indexing {dataset} ({analyzer})"), total=None)
        self.bar.refresh()
        drawn = [0.0]
        start = time.perf_counter()

        def progress(n: int) -> None:
            self.bar.update(task, completed=n, description=terminal(f"indexing {dataset}: {n:,} documents"))
            if time.monotonic() - drawn[0] > REDRAW:
                drawn[0] = time.monotonic()
                self.bar.refresh()

        try:
            yield progress
        finally:
            self.bar.remove_task(task)
            self._say(f"{dataset}: indexed ({analyzer}) in {time.perf_counter() - start:.1f} s")

    def settings(self, dataset: str, total: int) -> None:
        self._dataset_task[dataset] = self.bar.add_task(terminal(f"{dataset}: settings"), total=total)
        self._started[dataset] = time.perf_counter()
        self.bar.refresh()

    def setting(self, dataset: str, name: str) -> None:
        task = self._dataset_task.get(dataset)
        if task is not None:
            self.bar.update(task, description=terminal(f"{dataset}: {name.removeprefix('sounding.bm25.')}"))
            self.bar.refresh()

    def finished(self, dataset: str, name: str) -> None:  # may come from the thread finishing a setting
        task = self._dataset_task.get(dataset)
        if task is None:
            return
        self.bar.advance(task)
        done = self.bar.tasks[[t.id for t in self.bar.tasks].index(task)]
        if done.finished:
            self.bar.remove_task(task)
            del self._dataset_task[dataset]
            self._say(f"{dataset}: {int(done.total)} settings in {time.perf_counter() - self._started[dataset]:.1f} s")
        self.bar.refresh()

    @contextlib.contextmanager
    def compiling(self, dataset: str, name: str) -> Iterator[None]:
        shown: list[int] = []

        def show() -> None:
            shown.append(self.bar.add_task(f"{COMPILING}: {terminal(name.removeprefix('sounding.bm25.'))}", total=None))
            self.bar.refresh()

        timer = threading.Timer(COMPILE_QUIET, show)
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            timer.cancel()
            timer.join()
            for task in shown:
                self.bar.remove_task(task)
            if shown:
                self.bar.refresh()

    @contextlib.contextmanager
    def step(self, label: str) -> Iterator[None]:
        task = self.bar.add_task(terminal(label), total=None)
        self.bar.refresh()
        try:
            yield
        finally:
            self.bar.remove_task(task)
            self.bar.refresh()

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        self.bar.stop()
        try:
            yield
        finally:
            self.bar.start()
