"""An earlier revision of the library beside this checkout's, in the same process.

``load(rev)`` extracts ``rmsc/`` and ``sample_data/`` at git revision ``rev`` of
this repository into a temporary folder, under the package name
``rmsc_baseline`` (every import inside rmsc is relative, so the copy runs as
it did then), and imports it. A benchmark can then time the same call with
both, interleaved, so that the before/after ratios come from one run on the
same (shared, noisy) machine.

:data:`BEFORE` is the revision the speed work started from.
"""

import importlib
import io
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: main before the speed work: "today" in the benchmarks' before/after columns.
BEFORE = "40e5f8f"


def add_argument(parser):
    """``--baseline REV`` (default :data:`BEFORE`; ``none`` skips the comparison)."""
    parser.add_argument("--baseline", default=BEFORE,
                        help=f"git revision to compare with (default {BEFORE}, the code before "
                             "the speed work); 'none' skips it")


def load(rev):
    """The ``rmsc`` package as it was at ``rev``, imported as ``rmsc_baseline`` (or None)."""
    if rev is None or str(rev).lower() == "none":
        return None
    tmp = Path(tempfile.mkdtemp(prefix="rmsc-baseline-"))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "rmsc", "sample_data"],
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(tmp, filter="data")
    (tmp / "rmsc").rename(tmp / "rmsc_baseline")
    sys.path.insert(0, str(tmp))
    return importlib.import_module("rmsc_baseline")


def checkout(rev):
    """The repository's whole tree at ``rev`` in a temporary folder: its servers and its
    scripts run there (``bench_dashboard.py --before``, ``bench_page_runs.py --before``)."""
    folder = Path(tempfile.mkdtemp(prefix="rmsc-bench-before-"))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True,
                             check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def rekey(folder, folder_before, root):
    """The results of ``folder`` written again into ``folder_before`` by the tree at
    ``root``, in its format and under its code version: the same fits, which that tree's
    servers then find (a result is keyed by its code's version and its store's schema, so
    they would miss this checkout's entries). The values travel to that tree's process as
    a pickle in a temporary file of this run's own (as a task travels to a worker)."""
    import json
    import pickle

    import numpy as np

    from rmsc import dashboard as dash
    from rmsc.dashboard import store

    ours = store.DiskStore(folder, types=dash.RESULT_TYPES)
    values = []
    for path in sorted(Path(folder).glob("*.npz")):
        with np.load(path, allow_pickle=False) as z:
            key = store.decode(json.loads(str(z["__header__"][()]))["key"], {})
        values.append((key, ours.get(key)))
    code = ("import pickle, sys\n"
            "from rmsc import dashboard as dash\n"
            "from rmsc.dashboard import store\n"
            "theirs = store.DiskStore(sys.argv[1], types=dash.RESULT_TYPES)\n"
            "with open(sys.argv[2], 'rb') as f:\n"
            "    values = pickle.load(f)\n"
            "for key, value in values:\n"
            "    assert theirs.put(key, value), 'an entry could not be written again'\n")
    with tempfile.TemporaryDirectory(prefix="rmsc-rekey-") as tmp:
        pickled = Path(tmp) / "values.pickle"
        pickled.write_bytes(pickle.dumps(values))  # every attribute read (rmsc._deferred)
        subprocess.run([sys.executable, "-c", code, str(folder_before), str(pickled)],
                       cwd=root, check=True, env={**os.environ, "PYTHONPATH": str(root)})
