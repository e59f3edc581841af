"""benchmarks/bench_device.py --smoke runs through on any machine (no GPU) and prints its tables.

The GPU numbers come from one run on an accelerator (benchmarks/device_run.sh); here the same
script runs its smoke sizes on array_api_strict's simulated device (CI always has it), so a
broken step shows before that run. No timing is asserted.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bench_device_smoke_runs_every_step():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_device.py"), "--smoke",
         "--backend", "array_api_strict"],
        capture_output=True, text=True, timeout=600, cwd=ROOT)
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "[failed" not in out and "[skipped" not in out, out
    assert "array_api_strict Device('device1')" in out
    rows = [line for line in out.splitlines() if line.startswith("| float")]
    assert [r.split("|")[1].strip() for r in rows] == ["float32", "float64"]
    for row in rows:
        cells = [c.strip() for c in row.split("|")[1:-1]]
        assert cells[8] == "1.0000" and cells[10] == "yes", row  # ARI vs CPU; monotone
        assert float(cells[9]) < (1e-5 if cells[0] == "float32" else 1e-12), row
    sweep = [line for line in out.splitlines() if line.startswith("| 300 ") or
             line.startswith("| 600 ")]
    assert len(sweep) == 2 and all("100.00" in line for line in sweep), out
