"""benchmarks/bench_device.py --smoke runs through on any machine (no GPU) and prints its tables.

The GPU numbers come from one run on an accelerator (benchmarks/device_run.sh); here the same
script runs its smoke sizes on array_api_strict's simulated device (CI always has it), so a
broken step shows before that run. No timing is asserted, only that the tables are whole
and that a fit's parts account for it.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def tables(out):
    """{heading: [rows as lists of cells]} of the markdown tables printed."""
    found, heading = {}, None
    for line in out.splitlines():
        if line.startswith("#"):
            heading = line.lstrip("# ").split(",")[0].split(" (")[0]
        elif line.startswith("|") and not line.startswith("|--") and heading is not None:
            found.setdefault(heading, []).append([c.strip() for c in line.split("|")[1:-1]])
    return found


def test_bench_device_smoke_runs_every_step():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_device.py"), "--smoke",
         "--array-library", "array_api_strict"],
        capture_output=True, text=True, timeout=600, cwd=ROOT)
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "[failed" not in out and "[skipped" not in out, out
    assert "array_api_strict Device('device1')" in out
    found = tables(out)
    header, *rows = found["Digit"]
    assert header[:2] == ["precision", "whole fit (s)"]
    assert [r[0] for r in rows] == ["float32", "float64"], out
    for row in rows:
        cells = dict(zip(header, row))
        assert cells["ARI vs CPU"] == "1.0000" and cells["objective never up"] == "yes", row
        assert float(cells["max abs dZ*"]) < (1e-5 if row[0] == "float32" else 1e-12), row
        assert float(cells["ratio"]) > 0
    header, *rows = found["Where a Digit fit's time goes"]
    assert [r[0] for r in rows] == ["float32", "float64"], out
    for row in rows:
        ms = [float(c.split()[0]) for c in row[1:]]
        parts, rest, whole = ms[:-2], ms[-2], ms[-1]
        assert all(p >= 0 for p in parts) and parts[2] > 0, row  # iterations
        # the parts are not counted twice (nested calls) and account for the fit
        assert -1.0 <= rest <= 0.25 * whole, row
    assert "Device calls per iteration" not in out  # torch only
    header, *rows = found["Size sweep"]
    assert [r[0] for r in rows] == ["300", "600"], out
    for row in rows:
        cells = dict(zip(header, row))
        assert cells["ACC (%)"] == "100.00" and float(cells["ratio"]) > 0, row
