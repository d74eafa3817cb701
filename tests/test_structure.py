"""The package's shape, counted from the source (ast over src/): no private name imported across modules, no file
over 600 lines, no plain-Python function over 100 lines (compiled kernels excepted), layouts told apart by their
kind rather than their name, BM25 defaults in one place, and one file name per concept.

A known exception names the engineer whose work removes it; the coordinator deletes the line when that lands.
"""
import ast
from collections import Counter
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "sounding"
LAYOUT_NAMES = {"flat", "multifield", "multifield-max", "bm25f"}
LAYOUT_DEFINITIONS = {"retrieval/search/layouts.py"}  # where the names are defined
FIELDS_NOT_LAYOUTS = ("index/",)  # the index names its fields (one is "flat"); it knows no layout
COMPILING_DECORATORS = {"njit", "jit", "overload", "intrinsic", "generated_jit", "vectorize", "guvectorize", "cfunc",
                        "register_jitable", "overload_method"}

MAX_LINES, MAX_FUNCTION = 600, 100
KNOWN_LONG_FILES: dict[str, str] = {}  # none: a file over the limit is split where it is written
KNOWN_LONG_FUNCTIONS: dict[str, str] = {}
KNOWN_SAME_NAMES: dict[str, str] = {}  # none: a name used twice is one concept at two levels (below)
SAME_CONCEPT_TWO_LEVELS = {  # each file's docstring names the other: the same concept at two levels
    "sparse.py": ("retrieval/sparse.py", "retrieval/retrievers/sparse.py"),
    "pyterrier.py": ("pyterrier.py", "retrieval/retrievers/pyterrier.py"),
    "progress.py": ("cli/progress.py", "experiment/progress.py"),
    "significance.py": ("eval/significance.py", "report/sections/significance.py"),
}


def _files() -> dict[str, ast.Module]:
    return {p.relative_to(SRC).as_posix(): ast.parse(p.read_text(encoding="utf-8")) for p in sorted(SRC.rglob("*.py"))}


def _decorator(d) -> str:
    while isinstance(d, ast.Call):
        d = d.func
    return d.attr if isinstance(d, ast.Attribute) else d.id if isinstance(d, ast.Name) else ""


def _compiled_by_hand(tree: ast.Module) -> set[str]:
    """Functions handed to numba as code objects (`jit(FunctionType(f.__code__, ...))`): compiled kernels too."""
    return {n.value.id for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "__code__"
            and isinstance(n.value, ast.Name)}


def private_imports() -> list[str]:
    out = []
    for rel, tree in _files().items():
        for n in ast.walk(tree):
            if isinstance(n, ast.ImportFrom) and n.module != "__future__" and (n.level or (n.module or "").startswith("sounding")):
                out += [f"{rel}:{n.lineno} {a.name}" for a in n.names if a.name.startswith("_") and not a.name.startswith("__")]
    return out


def long_files() -> dict[str, int]:
    lengths = {p.relative_to(SRC).as_posix(): len(p.read_text(encoding="utf-8").splitlines()) for p in SRC.rglob("*.py")}
    return {f: n for f, n in lengths.items() if n > MAX_LINES}


def long_functions() -> dict[str, int]:
    out = {}
    for rel, tree in _files().items():
        by_hand = _compiled_by_hand(tree)
        for n in ast.walk(tree):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name not in by_hand \
                    and not any(_decorator(d) in COMPILING_DECORATORS for d in n.decorator_list):
                length = n.end_lineno - n.lineno + 1
                if length > MAX_FUNCTION:
                    out[f"{rel}:{n.name}"] = length
    return out


def _layoutish(node, names: set[str]) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in LAYOUT_NAMES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(isinstance(e, ast.Constant) and e.value in LAYOUT_NAMES for e in node.elts)
    return isinstance(node, (ast.Name, ast.Attribute)) and getattr(node, "id", getattr(node, "attr", None)) in names


def layout_name_comparisons() -> list[str]:
    """Comparisons with a layout's name (a literal, a tuple of them, or a name bound to either) outside the layout
    definitions: the behaviour of a layout belongs to its kind (layouts.KINDS), not to `if name == ...`."""
    files = _files()
    bound = {t.id for tree in files.values() for n in ast.walk(tree) if isinstance(n, ast.Assign)
             and _layoutish(n.value, set()) for t in n.targets if isinstance(t, ast.Name)}
    out = []
    for rel, tree in files.items():
        if rel in LAYOUT_DEFINITIONS or rel.startswith(FIELDS_NOT_LAYOUTS):
            continue
        out += [f"{rel}:{n.lineno} {ast.unparse(n)}" for n in ast.walk(tree)
                if isinstance(n, ast.Compare) and any(_layoutish(x, bound) for x in [n.left, *n.comparators])]
    return out


def bm25_literal_defaults() -> list[str]:
    """Signatures giving k1 or b a number of their own (the defaults live in retrieval/search/params.py)."""
    out = []
    for rel, tree in _files().items():
        for n in ast.walk(tree):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = n.args
                pos = a.posonlyargs + a.args
                pairs = list(zip(pos[len(pos) - len(a.defaults):], a.defaults)) + \
                    [(x, d) for x, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
                out += [f"{rel}:{n.lineno} {n.name}({x.arg}={d.value})" for x, d in pairs
                        if x.arg in ("k1", "b") and isinstance(d, ast.Constant) and type(d.value) in (int, float)]
    return out


def same_file_names() -> dict[str, list[str]]:
    names = Counter(p.name for p in SRC.rglob("*.py") if p.name != "__init__.py")
    return {n: sorted(p.relative_to(SRC).as_posix() for p in SRC.rglob(n)) for n, c in names.items() if c > 1}


def test_no_private_name_is_imported_across_modules():
    assert private_imports() == []


def test_no_file_over_600_lines_but_the_known_ones():
    long = long_files()
    assert set(long) <= set(KNOWN_LONG_FILES), {f: n for f, n in long.items() if f not in KNOWN_LONG_FILES}


def test_no_plain_function_over_100_lines_but_the_known_ones():
    long = long_functions()
    assert set(long) <= set(KNOWN_LONG_FUNCTIONS), {f: n for f, n in long.items() if f not in KNOWN_LONG_FUNCTIONS}


def test_layouts_are_told_apart_by_kind():
    found = layout_name_comparisons()
    assert len(found) <= 2, found


def test_bm25_defaults_live_in_one_place():
    found = bm25_literal_defaults()
    assert len(found) <= 2, found


def test_a_file_name_is_one_concept():
    dup = same_file_names()
    unexplained = {n: paths for n, paths in dup.items() if n not in KNOWN_SAME_NAMES and n not in SAME_CONCEPT_TWO_LEVELS}
    assert not unexplained, unexplained
    for name, paths in SAME_CONCEPT_TWO_LEVELS.items():
        assert dup.get(name) == sorted(paths), (name, dup.get(name))
        for rel in paths:
            doc = ast.get_docstring(ast.parse((SRC / rel).read_text(encoding="utf-8"))) or ""
            others = [o.split("/", 1)[-1] if o.count("/") > 1 else o for o in paths if o != rel]
            assert all(o in doc for o in others), f"{rel}: its docstring says which other {name} it goes with"


def test_the_search_package_and_its_settings_load_lazily():
    import subprocess
    import sys

    code = ("import sys; from sounding.retrieval.search import BM25Params, LAYOUTS; BM25Params(layout='bm25f', k=10); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'numpy')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
