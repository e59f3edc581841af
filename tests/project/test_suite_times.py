"""tools/suite_times.py: the lines RMSC_TEST_TIMES writes, summed, and two runs side by side."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "suite_times.py"


def _write(path, rows):
    # the columns tests/conftest.py writes: node id, wall s, CPU s, load, xdist worker
    path.write_text("".join(f"{n}\t{w}\t{c}\t3.0\tgw0\n" for n, w, c in rows))
    return path


def _run(*args):
    done = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_one_run_sums_each_file(tmp_path):
    t = _write(tmp_path / "t.tsv", [("tests/a/test_x.py::one", 2.0, 1.5),
                                    ("tests/a/test_x.py::two", 4.0, 0.5),
                                    ("tests/b/test_y.py::three", 10.0, 9.0)])
    out = _run(t)
    assert "3 tests: 16 s of test wall time, 11 CPU s" in out
    assert "| tests/b/test_y.py | 1 | 10.0 | 9.0 | 62% |" in out
    assert "| tests/a/test_x.py | 2 | 6.0 | 2.0 | 38% |" in out


def test_two_runs_side_by_side(tmp_path):
    before = _write(tmp_path / "before.tsv", [("tests/a/test_x.py::one", 50, 40.0),
                                              ("tests/a/test_x.py::two", 5, 4.0),
                                              ("tests/a/test_x.py::gone", 5, 3.0)])
    after = _write(tmp_path / "after.tsv", [("tests/a/test_x.py::one", 20, 10.0),
                                            ("tests/a/test_x.py::two", 5, 6.0),
                                            ("tests/a/test_x.py::new", 1, 1.0)])
    out = _run(after, "--against", before)
    # only the tests both runs hold are summed
    assert "2 tests in both: 44 CPU s before, 16 after (0.36)" in out
    assert "| tests/a/test_x.py | 2 | 44.0 | 16.0 | 0.36 |" in out
    assert "| tests/a/test_x.py::one | 40.0 | 10.0 | 0.25 |" in out
    assert "| tests/a/test_x.py::two | 4.0 | 6.0 | 1.50 |" in out
    assert "only before: tests/a/test_x.py::gone" in out
    assert "only after: tests/a/test_x.py::new" in out
