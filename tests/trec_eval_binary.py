"""A trec_eval 10 binary as a test oracle: from $SOUNDING_TREC_EVAL or `trec_eval` on PATH (tests that need it
skip, saying so, without one). A stock build prints 4 decimals, so its values are matched to half a unit of
the 4th; a build printing `%.17g` (meas_print_single.c) is matched to 1e-12: `binary_tolerance` probes which."""
import functools
import os
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path

import pytest


def trec_eval_binary() -> str | None:
    env = os.environ.get("SOUNDING_TREC_EVAL")
    if env:
        return env if os.access(env, os.X_OK) else None
    return shutil.which("trec_eval")


TREC_EVAL = trec_eval_binary()
needs_trec_eval = pytest.mark.skipif(
    TREC_EVAL is None,
    reason="no trec_eval binary: set SOUNDING_TREC_EVAL to a trec_eval 10 build or put trec_eval on PATH "
           "(pytrec_eval and the hand-computed cases still ran)")


def write_trec(qrels, run, folder: Path) -> tuple[Path, Path]:
    qf, rf = folder / "qrels", folder / "run"
    qf.write_text("".join(f"{q} 0 {d} {g}\n" for q, j in qrels.items() for d, g in j.items()))
    rf.write_text("".join(f"{q} Q0 {d} 0 {s!r} t\n" for q, h in run.items() for d, s in h.items()))
    return qf, rf


def run_trec_eval_files(args: list[str], qrels_file, run_file, *, summary: bool = False) -> dict[tuple[str, str], str]:
    """{(measure, qid): printed value} of `trec_eval -q -c ARGS QRELS RUN` (the "all" lines with summary)."""
    done = subprocess.run([TREC_EVAL, "-q", "-c", *args, str(qrels_file), str(run_file)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, f"trec_eval {' '.join(args)} failed: {done.stderr.strip()}"
    values = {}
    for line in done.stdout.splitlines():
        measure, qid, value = line.split()
        if summary or qid != "all":
            values[(measure, qid)] = value
    return values


def run_trec_eval(args: list[str], qrels, run, *, summary: bool = False) -> dict[tuple[str, str], str]:
    """`run_trec_eval_files` on these qrels and run dicts."""
    with tempfile.TemporaryDirectory() as tmp:
        qf, rf = write_trec(qrels, run, Path(tmp))
        return run_trec_eval_files(args, qf, rf, summary=summary)


@functools.cache
def binary_tolerance() -> float:
    """1e-12 when the binary prints full precision, else half a unit of its last printed decimal (probed on a
    bpref of exactly 1/3); a tolerance looser than 1e-12 is said in a warning."""
    printed = run_trec_eval(["-m", "bpref"], {"q": {"a": 1, "b": 1, "c": 1}}, {"q": {"a": 1.0}})[("bpref", "q")]
    assert printed.startswith("0.333"), printed
    decimals = len(printed.partition(".")[2])
    if decimals >= 15:
        return 1e-12
    warnings.warn(f"{TREC_EVAL} prints {decimals} decimals: matched to half a unit of the last one; a build that "
                  f"prints %.17g is matched to 1e-12")
    return 0.5 * 10.0**-decimals + 1e-15
