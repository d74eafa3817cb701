"""What the CLI does at start-up for speed: numba's BLAS probe answered without importing scipy.linalg
(and nothing else kept from scipy), Python's collector set for a command's many acyclic objects."""
import subprocess
import sys

import pytest

from sounding.cli.app import _NoBlasProbe

PROBE_FILE = "site-packages/numba/np/arraymath.py"


def _probe_frame_call(name: str, function: str = "_check_blas", filename: str = PROBE_FILE):
    """find_spec(name) called from a function named `function` compiled as if in `filename`."""
    code = compile(f"def {function}(finder, name):\n    return finder.find_spec(name)\n", filename, "exec")
    space = {}
    exec(code, space)
    return space[function](_NoBlasProbe(), name)


def test_the_finder_answers_only_numbas_blas_probe(monkeypatch):
    for name in ("scipy", "scipy.linalg", "scipy.linalg.cython_blas"):
        monkeypatch.delitem(sys.modules, name, raising=False)
        with pytest.raises(ImportError, match="BLAS probe"):
            _probe_frame_call(name)
        assert _probe_frame_call(name, function="ensure_blas") is None  # numba's own check before np.dot
        assert _probe_frame_call(name, filename="mine/arraymath.py") is None  # another file's _check_blas
        assert _NoBlasProbe().find_spec(name) is None  # any other caller: imports as usual
    assert _probe_frame_call("numpy.linalg") is None  # other names: never


def test_a_command_loads_kernels_without_scipy_linalg_and_scipy_still_imports_after(tmp_path):
    script = (
        "import sys\n"
        "from sounding.cli.app import _skip_blas_probe\n"
        "_skip_blas_probe(); _skip_blas_probe()\n"
        "assert sum(type(f).__name__ == '_NoBlasProbe' for f in sys.meta_path) == 1\n"
        "import numba, numpy as np\n"
        "f = numba.njit(lambda a: a.sum() * 2)\n"
        "assert f(np.arange(4.0)) == 12.0\n"  # numba's CPU target loaded: its BLAS probe ran
        "import numba.np.arraymath as am\n"
        "print('blas', am._HAVE_BLAS, 'linalg' , 'scipy.linalg' in sys.modules)\n"
        "import scipy.linalg\n"
        "print('later', scipy.linalg.norm(np.array([3.0, 4.0])))\n"
    )
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "blas False linalg False" in r.stdout and "later 5.0" in r.stdout


def test_the_program_sets_a_higher_young_collection_threshold():
    script = ("import gc, sys\nfrom sounding.cli import main\nsys.argv = ['sounding', 'version']\n"
              "print(gc.get_threshold()[0], file=sys.stderr)\nmain()\n")
    before = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert before.returncode == 0 and before.stderr.strip() == "700"  # Python's default before main runs
    r = subprocess.run([sys.executable, "-c", "import gc, sys\nfrom sounding.cli import main\n"
                        "sys.argv = ['sounding', 'version']\nmain()\nprint(gc.get_threshold()[0])"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.split()[-1] == "50000", r.stdout
