"""The package's imports point one way: cli → experiment/report → scale → retrieval → index → analysis/datasets/eval →
errors/types/io. Read from the source (every import statement, function-level ones included), not by
importing, so an optional dependency cannot hide an edge."""
import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "sounding"

LAYERS = {  # a module may import its own layer (without cycles) and the layers below
    0: {"errors", "escape", "types", "io", "validate", "results", "provenance"},
    1: {"analysis", "datasets", "eval"},
    2: {"index"},
    3: {"search", "dense", "sparse", "fusion", "rerank", "engines", "pipeline", "retrievers", "pyterrier"},
    4: {"scale"},
    5: {"experiment", "report"},
    6: {"cli", "__main__"},
}
LAYER = {pkg: n for n, pkgs in LAYERS.items() for pkg in pkgs}


def _modules() -> dict[str, Path]:
    out = {}
    for p in SRC.rglob("*.py"):
        parts = p.relative_to(SRC.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = p
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                full = f"{target}.{alias.name}"
                found.add(full if full in modules else target)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return {m for m in found if m in modules and m != name}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {m: _imports(m, p, modules) for m, p in modules.items()}


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_every_package_has_a_layer():
    assert {_top(m) for m in _graph() if _top(m)} <= set(LAYER), "give a new package a layer in LAYERS"


def test_nothing_outside_cli_imports_the_cli():
    offenders = [m for m, deps in _graph().items()
                 if _top(m) not in ("cli", "__main__") and any(_top(d) == "cli" for d in deps)]
    assert not offenders


def test_imports_point_down_the_layers():
    wrong = [(m, d) for m, deps in _graph().items() for d in deps
             if _top(m) and _top(d) and LAYER[_top(d)] > LAYER[_top(m)]]
    assert not wrong, wrong


def test_no_import_cycles():
    graph = _graph()
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not cycles, cycles
