"""The code's layout rules (CONTRIBUTING.md): no import cycle, imports inside functions only where
a reason is written down, no crowded module without a reason. Over the library (``rmsc/``)
and the app code (``ui/``, ``pages/``, ``app.py``) alike."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: A module longer than this must say why in its docstring (a paragraph starting "Why").
MAX_LINES = 600

#: The only imports of the project's own modules inside functions, and why each is there.
#: Anything else is imported at the top of its module, so that a cycle cannot hide.
FUNCTION_LEVEL_IMPORTS = {
    # `python app.py` imports what the first visitor's page needs before the server starts;
    # the pages' package is imported in a script run only (app.py is also imported bare).
    ("app", "rmsc.dashboard"), ("app", "rmsc.datasets"), ("app", "rmsc.figures"),
    ("app", "rmsc.spectral"), ("app", "ui"),
    # a module that imports distributed (an optional dependency) when it is imported
    ("rmsc.dashboard.workers", "rmsc.dashboard._worker_setup"),
    # plotly (slow to import) only when the reproduction draws its figures
    ("rmsc.experiments.report_figures", "rmsc.figures"),
    # `rmsc lesson` only: the lesson's module imports the dashboard's logic (dask)
    ("rmsc.cli", "rmsc.dashboard"), ("rmsc.cli", "rmsc.dashboard.lesson"),
    # the estimator, when a suggestion is made
    ("rmsc.selection", "rmsc.rmsc"),
}


def _modules():
    """Every module of the project: dotted name -> path."""
    out = {}
    paths = [*sorted((ROOT / "rmsc").rglob("*.py")), *sorted((ROOT / "ui").rglob("*.py")),
             *sorted((ROOT / "pages").glob("*.py")), ROOT / "app.py"]
    for path in paths:
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name, path, modules):
    """``[(module imported, inside a function?)]``: every import of a project module that
    ``name`` makes, at its top level or anywhere in a function."""
    is_pkg = path.name == "__init__.py"
    tree = ast.parse(path.read_text())
    inside = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inside.update(id(sub) for sub in ast.walk(node) if sub is not node)
    out = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_pkg else name.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            targets = [target] + [f"{target}.{a.name}" for a in node.names]
        for target in targets:
            # the module itself or, for a name inside it, the innermost module that holds it
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target:
                out.append((target, id(node) in inside))
    return out


def _graph():
    modules = _modules()
    graph = {}
    for m, p in modules.items():
        # A submodule's own package is executed before it: that edge is not a dependency.
        graph[m] = {d for d, _ in _imports(m, p, modules)
                    if d != m and not m.startswith(d + ".")}
    return graph


def _cycles(graph):
    state, stack, cycles = {}, [], []

    def visit(u):
        state[u] = "open"
        stack.append(u)
        for v in sorted(graph.get(u, ())):
            if state.get(v) == "open":
                cycles.append(stack[stack.index(v):] + [v])
            elif v not in state:
                visit(v)
        stack.pop()
        state[u] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m)
    return cycles


def test_no_import_cycle_counting_imports_inside_functions():
    graph = _graph()
    assert {"rmsc.dashboard.jobs", "ui.runtime", "pages.solve", "app"} <= set(graph)
    assert "rmsc.dashboard.sender" in graph["rmsc.dashboard.prefetch"]
    assert "rmsc.dashboard._worker_setup" in graph["rmsc.dashboard.workers"]  # inside a function
    assert not _cycles(graph), f"import cycles: {_cycles(graph)}"
    # The check can see a cycle: the old jobs <-> workers pair would be one.
    assert _cycles({"a": {"b"}, "b": {"a"}}) == [["a", "b", "a"]]


def test_imports_inside_functions_are_the_listed_ones():
    modules = _modules()
    found = {(m, d) for m, p in modules.items() for d, inside in _imports(m, p, modules)
             if inside and not m.startswith(d + ".")}
    assert found == FUNCTION_LEVEL_IMPORTS, (
        f"new: {sorted(found - FUNCTION_LEVEL_IMPORTS)}; "
        f"gone: {sorted(FUNCTION_LEVEL_IMPORTS - found)}")


#: The CLI's commands about the dashboard's content, which import it in their function.
DASHBOARD_COMMANDS = {("rmsc.cli", "rmsc.dashboard"), ("rmsc.cli", "rmsc.dashboard.lesson")}


def test_the_library_never_imports_streamlit_or_the_app():
    modules = _modules()
    for name, path in modules.items():
        if not name.startswith("rmsc"):
            continue
        text = path.read_text()
        tree = ast.parse(text)
        imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
                    for a in n.names}
        imported |= {n.module.split(".")[0] for n in ast.walk(tree)
                     if isinstance(n, ast.ImportFrom) and n.module and not n.level}
        assert not imported & {"streamlit", "ui", "pages", "app"}, name
    # and the CLI and the reproduction do not reach into the dashboard, except for the one
    # command about the dashboard's own content: `rmsc lesson` (checks a lesson, computes its
    # results into the dashboard's result cache), importing it inside its function only
    graph = _graph()
    reach, todo = set(), ["rmsc.cli", "rmsc.experiments"]
    while todo:
        m = todo.pop()
        if m not in reach:
            reach.add(m)
            todo.extend(d for d in graph[m] if (m, d) not in DASHBOARD_COMMANDS)
    assert not {m for m in reach if m.startswith("rmsc.dashboard")}


def test_long_modules_say_why():
    long = {}
    for name, path in _modules().items():
        n = len(path.read_text().splitlines())
        if n > MAX_LINES:
            doc = ast.get_docstring(ast.parse(path.read_text())) or ""
            if not any(par.startswith("Why") for par in doc.split("\n\n")):
                long[name] = n
    assert not long, f"modules over {MAX_LINES} lines without a 'Why ...' paragraph: {long}"


def test_the_contributing_module_map_is_current():
    """CONTRIBUTING.md's module map is what ``tools/module_map.py`` writes from the modules'
    docstrings: a module added, removed or redescribed without rerunning it fails here."""
    import subprocess
    import sys

    run = subprocess.run([sys.executable, str(ROOT / "tools" / "module_map.py"), "--check"],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, ("CONTRIBUTING.md's module map is stale; run "
                                 "`python tools/module_map.py`:\n" + run.stdout + run.stderr)


def test_no_text_names_an_issue_of_the_project_tracker():
    """Users have no issue tracker: code, messages and docs name the document and section
    (docs/stability.md, "the stability study"), never our tracker's numbers. Another project's issue
    (Streamlit's) may be cited by its number."""
    import re
    import subprocess

    files = subprocess.run(["git", "ls-files"], capture_output=True, text=True, cwd=ROOT,
                           check=True).stdout.split()
    pattern = re.compile(r"(?<!Streamlit's )\bissues? \d+", re.IGNORECASE)
    found = []
    for name in files:
        path = ROOT / name
        if path.suffix not in (".py", ".md", ".sh", ".yaml", ".toml", ".txt") or not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                found.append(f"{name}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_the_tests_mirror_the_package_and_contributing_lists_their_folders():
    """Every test file sits in a folder of ``tests/`` (none at its top, where only the shared
    fixtures and helpers are), every folder is a package (so that a test module is
    ``tests.<folder>.test_x`` and cannot shadow the app's ``ui`` or ``app``), and
    CONTRIBUTING.md's "Where the tests are" names every folder."""
    tests = ROOT / "tests"
    assert not sorted(p.name for p in tests.glob("test_*.py")), "a test file at the top of tests/"
    folders = sorted({p.parent for p in tests.rglob("test_*.py")})
    assert all((f / "__init__.py").is_file() for f in [tests, *folders]), folders
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text.split("## Where the tests are", 1)[1].split("\n## ", 1)[0]
    missing = [f"tests/{f.relative_to(tests).as_posix()}/" for f in folders
               if f"`tests/{f.relative_to(tests).as_posix()}/`" not in section]
    assert not missing, f"CONTRIBUTING.md's \"Where the tests are\" does not name {missing}"


def test_make_tests_browser_half_collects_every_file_with_browser_tests():
    """``make test`` runs the browser tests over the files its ``BROWSER_TESTS`` names (not
    the whole suite, collected to keep a few): every test file that marks a test ``browser``
    is among them, so that none is left out of ``make test``."""
    line = next(x for x in (ROOT / "Makefile").read_text().splitlines()
                if x.startswith("BROWSER_TESTS :="))
    listed = [ROOT / p for p in line.split(":=", 1)[1].split()]
    assert listed and all(p.exists() for p in listed), line
    marks = re.compile(r"^\s*(@|pytestmark\b).*\bmark\.browser\b", re.MULTILINE)
    marked = [p for p in (ROOT / "tests").rglob("test_*.py")
              if marks.search(p.read_text(encoding="utf-8"))]
    assert marked
    left_out = [str(p.relative_to(ROOT)) for p in marked
                if not any(p == q or q in p.parents for q in listed)]
    assert not left_out, f"the Makefile's BROWSER_TESTS leaves out {left_out}"
