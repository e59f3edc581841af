"""benchmarks/bench_stability.py --smoke: the table the closing note pastes, on tiny data."""

import importlib.util
import re
import sys
from pathlib import Path

import rmsc

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_stability.py"


def _load():
    sys.path.insert(0, str(BENCH.parent))
    spec = importlib.util.spec_from_file_location("bench_stability", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def test_smoke_prints_one_row_per_method_with_its_own_differences(capsys):
    bench = _load()
    assert bench.main(["--smoke", "--baseline"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| smoke |")]
    assert [_cells(r)[2] for r in rows] == ["RMSC", "RMSC-WV"]
    worst = 0.0
    for r in rows:
        c = _cells(r)
        stop_it, (acc, nmi) = int(c[3]), map(float, c[4].split(" / "))
        ref_it = int(c[6].split()[0])
        ref_acc, ref_nmi = map(float, c[7].split(" / "))
        d_acc, d_nmi = map(float, c[9].split(" / "))
        # the differences are the converged minus the default stop, as printed
        assert abs(d_acc - (ref_acc - acc)) < 0.011 and abs(d_nmi - (ref_nmi - nmi)) < 0.011
        worst = max(worst, abs(d_acc), abs(d_nmi))
        # the default stops within the estimator's budget, the reference within the cap
        est = rmsc.get_method(c[2])
        assert 1 <= stop_it <= est.max_iter and stop_it <= ref_it <= 300
        # the baseline columns: the pre-issue-29 defaults, at most 30 iterations
        assert 1 <= int(c[10]) <= 30 and float(c[13]) > 0
    line = re.search(r"Largest \|Δ\| .*: ([0-9.]+) points", out)
    assert line and abs(float(line.group(1)) - worst) < 0.011
