"""The library's layout rules (DEVELOPERS.md): no import cycle, no crowded module without a reason."""

import ast
from pathlib import Path

RMSC = Path(__file__).resolve().parents[1] / "rmsc"
#: A module longer than this must say why in its docstring (a paragraph starting "Why").
MAX_LINES = 600


def _modules():
    out = {}
    for path in sorted(RMSC.rglob("*.py")):
        parts = path.relative_to(RMSC.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _module_level_imports(name, path, modules):
    """rmsc modules ``name`` imports when it is executed (function-level imports excluded)."""
    is_pkg = path.name == "__init__.py"
    deps = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.level:
            base = name.split(".") if is_pkg else name.split(".")[:-1]
            base = base[:len(base) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
            if target in modules:
                deps.add(target)
            deps.update(f"{target}.{a.name}" for a in node.names
                        if f"{target}.{a.name}" in modules)
    return deps


def test_no_import_cycle_in_the_library():
    modules = _modules()
    graph = {m: _module_level_imports(m, p, modules) for m, p in modules.items()}
    # A submodule's own package is executed before it: that edge is not a dependency.
    graph = {m: {d for d in deps if not m.startswith(d + ".") and d != m}
             for m, deps in graph.items()}
    state, stack, cycles = {}, [], []

    def visit(u):
        state[u] = "open"
        stack.append(u)
        for v in sorted(graph[u]):
            if state.get(v) == "open":
                cycles.append(stack[stack.index(v):] + [v])
            elif v not in state:
                visit(v)
        stack.pop()
        state[u] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert not cycles, f"import cycles: {cycles}"
    # The check can see a cycle: the old experiments <-> reproduce pair would be one.
    graph_with_cycle = {"a": {"b"}, "b": {"a"}}
    state.clear()
    graph.update(graph_with_cycle)
    visit("a")
    assert cycles


def test_long_modules_say_why():
    long = {}
    for name, path in _modules().items():
        n = len(path.read_text().splitlines())
        if n > MAX_LINES:
            doc = ast.get_docstring(ast.parse(path.read_text())) or ""
            if not any(par.startswith("Why") for par in doc.split("\n\n")):
                long[name] = n
    assert not long, f"modules over {MAX_LINES} lines without a 'Why ...' paragraph: {long}"
