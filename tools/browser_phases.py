"""Where a browser test's time goes: the wall seconds of each call of the browser tests' helpers (opening the app, a page, a fit's wait, the charts', the cut-text detector, a screenshot), as a pytest plugin, summed.

    RMSC_PHASES=/tmp/p.tsv PYTHONPATH=$PWD:$PWD/tools .venv/bin/python -m pytest -q \\
        -p no:cacheprovider -p browser_phases tests/browser/test_clipping.py
    python tools/browser_phases.py /tmp/p.tsv        # calls and wall seconds per helper

Each call appends a line to ``$RMSC_PHASES``: the clock, the helper (nested calls indented:
a ``settle`` inside a ``nav``), its first argument, its wall seconds and the load average.
The helpers are wrapped at ``pytest_configure``, before the test modules import them.
"""

import functools
import os
import sys
import time
from collections import defaultdict

PHASES_ENV = "RMSC_PHASES"
#: The helpers timed, by module.
HELPERS = {
    "tests.browser_support": ("open_app", "nav", "settle", "wait_charts", "open_details",
                              "upload_file", "steady", "shot"),
    "tests.clipping_support": ("wait_fitted", "findings", "keep_shot"),
}
_depth = [0]


def _wrap(module, name, path):
    func = getattr(module, name)

    @functools.wraps(func)
    def timed(*args, **kwargs):
        start = time.monotonic()
        _depth[0] += 1
        try:
            return func(*args, **kwargs)
        finally:
            _depth[0] -= 1
            what = str(args[1])[:60] if len(args) > 1 and isinstance(args[1], (str, int)) else ""
            with open(path, "a") as f:
                f.write(f"{time.strftime('%H:%M:%S')}\t{'  ' * _depth[0]}{name}\t{what}\t"
                        f"{time.monotonic() - start:.1f}\t{os.getloadavg()[0]:.1f}\n")

    setattr(module, name, timed)


def pytest_configure(config):
    import importlib

    path = os.environ.get(PHASES_ENV)
    if not path:
        return
    for module_name, names in HELPERS.items():
        module = importlib.import_module(module_name)
        for name in names:
            _wrap(module, name, path)


def summary(path):
    """{helper: [calls, wall seconds]} of the outermost calls (a nested call's time is in
    its caller's)."""
    out = defaultdict(lambda: [0, 0.0])
    with open(path) as f:
        for line in f:
            _, helper, _, seconds, _ = line.rstrip("\n").split("\t")
            if not helper.startswith(" "):
                out[helper][0] += 1
                out[helper][1] += float(seconds)
    return dict(out)


if __name__ == "__main__":
    rows = sorted(summary(sys.argv[1]).items(), key=lambda kv: -kv[1][1])
    print("| helper | calls | wall s |\n|---|---:|---:|")
    for helper, (calls, seconds) in rows:
        print(f"| {helper} | {calls} | {seconds:.1f} |")
