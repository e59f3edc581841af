"""Every recurring benchmark (benchmarks/), every study of docs/studies/ that is meant to be
rerun, and tools/calibrate_costs.py run: a smoke run of each (tiny inputs, seconds), so that
none can break unseen. A one-off study (the record of one run, not meant to be rerun) is not
run, and says so in its docstring.

Each script runs as a user runs it (``python benchmarks/NAME.py ...``: as ``__main__`` in
a process of its own; the quick ones forked from a helper that has imported the library
once, see :data:`RUNNER`) with ``--smoke`` where it has one (the same code on Digit-small, 3-Sources or Subspaces,
one setting, one repeat; benchmarks/_preamble.py) or small arguments of its own. Its numbers
mean nothing; the test asserts that it ends cleanly and prints its table. The runs that
start a Dask cluster or a browser take tens of seconds and are marked ``slow``.
"""

import ast
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"
STUDIES = ROOT / "docs" / "studies"
#: A smoke run that takes longer than this has hung (a bound, not a wait: at load 20 a
#: Dask smoke run took more than 300 s).
HANG = 600

#: What a one-off study's docstring says (it is not smoke-tested: see the module docstring).
ONE_OFF = "Not smoke-tested"

#: script (path from the repository's root) -> list of (argument list, text its output
#: must contain).
SMOKE = {
    "benchmarks/bench_data.py": [
        (["--smoke", "--repeat", "1", "--data-dir", "{paper_mats}"],
         "| 3sources.mat | load(.mat) | 169 | 3 |")],
    "benchmarks/bench_estimates.py": [
        (["--per-method", "--datasets", "3sources", "--methods", "RMSC", "SSC-AVG"],
         "ratios within")],
    "benchmarks/bench_fit.py": [
        (["--data", "3-Sources", "--settings", "1,0.1", "--baseline", "HEAD"], "| 1 | 0.1 |"),
        (["--targets", "--smoke"], "| RMSC-WV | extrapolate, clustering stop | ")],
    "benchmarks/bench_methods.py": [(["--smoke"], "| DiMSC |")],
    "benchmarks/bench_robustness.py": [
        (["--smoke", "--kinds", "replace", "--fractions", "0.1", "--seeds", "0", "--methods",
          "RMSC", "--json", "{tmp}/rows.json"], "| replace | 10 | 0 | RMSC |"),
        (["--summarize", "{tmp}/rows.json"], "| replace | 10 | RMSC | 1 |")],
    "benchmarks/bench_scale.py": [(["--sizes", "200"], "| 200 | in-memory |")],
    "benchmarks/bench_solver.py": [
        (["--smoke", "--iters", "2", "--repeat", "1"], "paper form (reference)"),
        (["--smoke", "--settings", "--iters", "2", "--repeat", "1", "--baseline", "HEAD"],
         "| 0.3 | 0.3 |"),
        (["--smoke", "--breakdown", "--iters", "2", "--repeat", "1"], "| 0.3 | 0.3 |")],
    "benchmarks/check_defaults.py": [(["--smoke"], "| Subspaces | 150 | RMSC | 100.00 |")],
    "benchmarks/check_consistency.py": [
        (["--smoke"], "every surface agrees on every method: yes")],
    "benchmarks/digit_scores.py": [
        (["--smoke", "--methods", "RMSC", "SSC-BSV"], "| SSC-BSV = ")],
    "tools/calibrate_costs.py": [(["--smoke"], "'rmsc_iter'"),
                                 (["--lam-only", "--smoke"], "| median ratio to 1x |"),
                                 (["--criterion-only", "--smoke"], "| samples | clusters |"),
                                 (["--parallel-only", "--smoke"], "| median | RMSC | |")],
    # the studies meant to be rerun
    "docs/studies/study_affinity.py": [(["--smoke"], "Subspaces|RMSC|0.3|0.25")],
    "docs/studies/study_acceleration.py": [
        (["--smoke", "--methods", "RMSC", "--candidates", "extrapolate"],
         "| smoke | 60 | RMSC | extrapolate | ")],
    "docs/studies/study_defaults.py": [(["--smoke"], "label-free suggestion")],
    "docs/studies/study_stability.py": [
        (["run", "--smoke"], "| Subspaces | RMSC-WV | s1 g1e-2 | 0.5 | 3 |")],
    "docs/studies/study_stability_tables.py": [
        (["--smoke"], "candidate x rule pairs meet both targets")],
    "docs/studies/study_suggestion.py": [(["--smoke"], "| **mean** | | | **")],
    "docs/studies/study_weights.py": [(["--smoke"], "| Digit-small | defaults, rule |"),
                                      (["--smoke", "--models", "consensus"],
                                       "| Digit-small | consensus |"),
                                      (["--smoke", "--models", "two_level", "--converged-only"],
                                       "| Digit-small | two_level |")],
}

#: Scripts whose smoke run is a test file of its own, which checks their tables cell by
#: cell (not run again here): script -> that file.
OWN_TEST = {
    "benchmarks/bench_device.py": "tests/benchmarks/test_bench_device.py",
    "benchmarks/bench_stability.py": "tests/benchmarks/test_bench_stability.py",
}

#: Scripts whose smoke run starts a Dask cluster (tens of seconds).
SLOW = {
    "benchmarks/bench_estimates.py": [(["--smoke"], "buttons within 1.5x"),
                                      (["--parts", "--smoke"], "| Suggest | worker | 1 | 1 |")],
    "benchmarks/bench_page_runs.py": [(["--smoke"], "| β moved back (in memory) | 1 |")],
    "benchmarks/bench_lesson_runs.py": [(["--smoke"], "| 4. slider beta_rel = 0.25 | 1 |")],
}

#: Scripts that start a browser (tens of seconds).
BROWSER = {
    "benchmarks/bench_dashboard.py": [(["--smoke"], "first page load (fresh server)")],
    "benchmarks/bench_load.py": [
        (["--smoke", "--browser-nice", "0"], "1 results fitted again in-process: 1 equal as shown"),
        (["--lesson", "--smoke", "--browser-nice", "0"], "N=1: 1 of 1 sessions walked every step")],
}


def _docstring(path):
    """The module docstring of ``path``, its whitespace runs made single spaces."""
    return " ".join((ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "").split())


def test_every_benchmark_script_has_a_smoke_run():
    """Every script of benchmarks/ (a recurring benchmark) and of tools/ that measures
    (calibrate_costs.py) is smoke-run."""
    scripts = {str(p.relative_to(ROOT)) for p in BENCH.glob("*.py") if not p.name.startswith("_")}
    scripts.add("tools/calibrate_costs.py")
    ran = set(SMOKE) | set(SLOW) | set(BROWSER) | set(OWN_TEST)
    assert scripts == {s for s in ran if not s.startswith("docs/studies/")}


def test_every_study_is_smoke_run_or_says_it_is_a_one_off():
    """A study of docs/studies/ is either meant to be rerun (smoke-run here, and its docstring
    does not say otherwise) or a one-off whose docstring says it is not smoke-tested and names
    the commit it measured."""
    studies = sorted(STUDIES.glob("*.py"))
    assert studies
    for path in studies:
        name = str(path.relative_to(ROOT))
        doc = _docstring(path)
        assert "commit" in doc, f"{name} does not name the commit it measured"
        if name in SMOKE:
            assert ONE_OFF not in doc, f"{name} is smoke-run but says it is not"
        else:
            assert ONE_OFF in doc, f"{name} is not smoke-run: its docstring must say so"


@pytest.mark.parametrize("name", sorted(OWN_TEST))
def test_a_script_with_its_own_smoke_test_is_run_there_with_smoke(name):
    """The file of :data:`OWN_TEST` exists, names the script and has a test that runs it
    with ``--smoke`` (that test is what runs it; here only that it is there)."""
    path = ROOT / OWN_TEST[name]
    assert path.is_file(), f"{OWN_TEST[name]} (the smoke test of {name}) is missing"
    tree = ast.parse(path.read_text())

    def strings(node):
        return {n.value for n in ast.walk(node)
                if isinstance(n, ast.Constant) and isinstance(n.value, str)}

    script = Path(name).name
    assert script in strings(tree), f"{OWN_TEST[name]} does not name {name}"
    tests = [f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name.startswith("test")]
    assert any("--smoke" in strings(f) for f in tests), \
        f"no test of {OWN_TEST[name]} runs {name} with --smoke"


#: Environment of every smoke run: one thread per library (the machine running the suite
#: is shared, and the numbers of a smoke run mean nothing anyway).
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
       "MKL_NUM_THREADS": "1", "PYTHONWARNINGS": "ignore"}

#: The quick runs share their imports: a helper process imports numpy, scikit-learn and
#: rmsc once, then forks a child per run, which runs the script as ``python script.py args``
#: would (``__main__``, its argv, its folder first on sys.path, output to files) and exits
#: with its status; an alarm ends a hung one. Every run gets a fresh copy of the helper.
RUNNER = r"""
import atexit, json, os, runpy, signal, sys, traceback
import numpy, pandas, scipy.io, scipy.sparse, sklearn.cluster  # noqa: F401 - warm imports
import rmsc, rmsc.dashboard, rmsc.experiments, rmsc.rmsc, rmsc.ssc, rmsc.dimsc  # noqa: F401
import rmsc.multiview_spectral, rmsc.datasets._load  # noqa: F401
print("ready", flush=True)
for line in sys.stdin:
    req = json.loads(line)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            signal.alarm(req["timeout"])
            os.chdir(req["cwd"])
            for fd, path in ((1, req["stdout"]), (2, req["stderr"])):
                os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
            sys.argv = [req["script"], *req["args"]]
            sys.path[0] = os.path.dirname(req["script"])
            try:
                runpy.run_path(req["script"], run_name="__main__")
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
                if not isinstance(exc.code, (int, type(None))):
                    print(exc.code, file=sys.stderr)
            except BaseException:
                traceback.print_exc()
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    print(json.dumps(os.waitstatus_to_exitcode(status)), flush=True)
"""


@pytest.fixture(scope="module")
def runner():
    proc = subprocess.Popen([sys.executable, "-c", RUNNER], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=ENV, cwd=ROOT)
    assert proc.stdout.readline().strip() == "ready"
    yield proc
    proc.stdin.close()
    proc.wait(60)


def run_script(name, runs, tmp_path, paper_mats=None, runner=None):
    out = BENCH / "out"
    before = {p: p.stat().st_mtime for p in out.glob("*")} if out.exists() else {}
    for k, (args, expected) in enumerate(runs):
        args = [a.format(tmp=tmp_path, paper_mats=paper_mats) for a in args]
        where = f"python {name} {' '.join(args)}"
        if runner is None:
            r = subprocess.run([sys.executable, str(ROOT / name), *args], cwd=tmp_path,
                               capture_output=True, text=True, timeout=HANG, env=ENV)
            code, stdout, stderr = r.returncode, r.stdout, r.stderr
        else:
            files = {f: tmp_path / f"run{k}.{f}" for f in ("stdout", "stderr")}
            runner.stdin.write(json.dumps({
                "script": str(ROOT / name), "args": args, "cwd": str(tmp_path),
                "timeout": HANG, **{f: str(p) for f, p in files.items()}}) + "\n")
            runner.stdin.flush()
            code = json.loads(runner.stdout.readline())
            stdout, stderr = files["stdout"].read_text(), files["stderr"].read_text()
        assert code == 0, f"{where} failed ({code}):\n{stdout[-2000:]}\n{stderr[-3000:]}"
        assert expected in stdout, f"{where} printed:\n{stdout[-3000:]}"
        assert "Traceback" not in stderr, stderr[-3000:]
        assert "failed:" not in stdout, stdout[-3000:]
    # a smoke run writes nothing under benchmarks/out/ (the studies' caches)
    assert ({p: p.stat().st_mtime for p in out.glob("*")} if out.exists() else {}) == before


@pytest.mark.parametrize("name", sorted(SMOKE))
def test_smoke(name, tmp_path, paper_mats, runner):
    run_script(name, SMOKE[name], tmp_path, paper_mats, runner)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SLOW))
def test_smoke_with_a_dask_cluster(name, tmp_path):
    run_script(name, SLOW[name], tmp_path)


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("name", sorted(BROWSER))
def test_smoke_in_a_browser(name, tmp_path):
    run_script(name, BROWSER[name], tmp_path)


def test_the_baseline_loader_runs_an_earlier_revision():
    """benchmarks/_baseline.py: the library at a git revision, imported beside this one."""
    code = ("import sys; sys.path.insert(0, 'benchmarks'); import _baseline, json; "
            "old = _baseline.load('HEAD'); d = old.datasets.load_bundled('Subspaces'); "
            "print(json.dumps([old.__name__, d.n_samples, old.RMSC.__module__]))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=HANG)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == ["rmsc_baseline", 150, "rmsc_baseline.rmsc"]


@pytest.mark.parametrize("smoke", [False, True])
def test_bench_estimates_busy_processes_end_with_the_script_even_when_it_is_killed(smoke):
    """A timed-out smoke run is killed outright (no ``finally``): the busy processes it had
    started must not outlive it (one was found burning a core for most of a suite's run)."""
    code = ("import sys, time; sys.path.insert(0, 'benchmarks'); import bench_estimates as b; "
            f"ps = b._burners(2, smoke={smoke}); "
            "print(' '.join(str(p.pid) for p in ps), flush=True); time.sleep(600)")
    script = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE,
                              text=True, env=ENV)
    pids = [int(x) for x in script.stdout.readline().split()]
    assert len(pids) == 2 and all(_alive(p) for p in pids)
    script.kill()
    script.wait()
    t0 = time.monotonic()
    while any(_alive(p) for p in pids):
        assert time.monotonic() - t0 < 60, "a busy process outlived the killed script"
        time.sleep(0.1)


def _alive(pid):
    """Whether ``pid`` runs (a zombie, ended but not yet reaped by init, counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
