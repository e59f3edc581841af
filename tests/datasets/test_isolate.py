"""The isolated .mat reader (rmsc.datasets._isolate) as users meet it.

``rmsc.datasets.load`` reads MATLAB files in a child program (``python -m
rmsc.datasets._isolate``), so that a crash of scipy's or HDF5's compiled reader on a
corrupt file ends only the child. The child must never import the caller's
``__main__``: a plain script without a ``__main__`` guard, ``python - < script``, an
interactive session and the dashboard's upload each load a v5 and a v7.3 file, with
the script's body run once and nothing on stderr.
"""

import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import psutil
import pytest
import scipy.io

from rmsc import datasets
from rmsc.datasets import DataLoadError, _isolate, load

from tests.support import cell  # noqa: E402
from tests.support import named, write_mat73  # noqa: E402

#: Every subprocess here gets this long before it counts as hung (a busy machine).
HANG = 180

#: The script a user would write: a side effect, then two loads (no __main__ guard).
SCRIPT = """\
import psutil, rmsc
with open("body_ran.txt", "a") as f:
    f.write("ran\\n")
print("script body ran")
for file in ("v5.mat", "v73.mat"):
    ds = rmsc.datasets.load(file)
    print(file, ds.n_samples, ds.n_views, ds.labels.max() + 1)
print("children", [" ".join(p.cmdline()[1:]) for p in psutil.Process().children()])
"""


@pytest.fixture
def mat_files(tmp_path):
    """v5.mat (scipy.io.savemat) and v73.mat (HDF5, MATLAB's layout) with the same data."""
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((12, 3)), rng.integers(0, 5, (12, 4)).astype(np.uint8)
    y = np.repeat([1, 2, 3], 4)
    scipy.io.savemat(tmp_path / "v5.mat", {"X": cell(A, B), "Y": y})
    write_mat73(tmp_path / "v73.mat", {"X": cell(A, B), "Y": y.reshape(-1, 1).astype(float)})
    return tmp_path


def _check_run(out, folder, stderr):
    assert stderr == "", stderr
    assert (folder / "body_ran.txt").read_text() == "ran\n"  # the body ran exactly once
    assert out.count("script body ran") == 1
    assert "v5.mat 12 2 3" in out and "v73.mat 12 2 3" in out
    # the reader is a program of its own, not a multiprocessing child
    children = out.split("children", 1)[1]
    assert "-m rmsc.datasets._isolate" in children
    assert "multiprocessing" not in children


def test_a_script_without_a_main_guard_runs_once(mat_files):
    script = mat_files / "user_script.py"
    script.write_text(SCRIPT)
    r = subprocess.run([sys.executable, str(script)], cwd=mat_files, capture_output=True,
                       text=True, timeout=HANG)
    assert r.returncode == 0, r.stderr
    _check_run(r.stdout, mat_files, r.stderr)


def test_a_script_on_stdin_runs_once(mat_files):
    r = subprocess.run([sys.executable, "-"], input=SCRIPT, cwd=mat_files, capture_output=True,
                       text=True, timeout=HANG)
    assert r.returncode == 0, r.stderr
    _check_run(r.stdout, mat_files, r.stderr)


def test_an_interactive_session(mat_files):
    # python -i prints its prompts on stderr; nothing else may appear there
    lines = SCRIPT.splitlines()  # a blank line ends each compound statement
    session = "\n".join(lines[:3] + [""] + lines[3:7] + [""] + lines[7:]) + "\n"
    r = subprocess.run([sys.executable, "-i", "-q"], input=session, cwd=mat_files,
                       capture_output=True, text=True, timeout=HANG)
    assert r.returncode == 0, r.stderr
    _check_run(r.stdout, mat_files, r.stderr.replace(">>> ", "").replace("... ", "").strip())


UPLOAD = """\
import sys, threading
from streamlit.proto.Common_pb2 import FileURLs
from streamlit.runtime.uploaded_file_manager import UploadedFile, UploadedFileRec
import rmsc

print("script body ran")
results = []

def page_run(file):
    # what pages/data.py does with st.file_uploader's value, on a script thread of the server
    with open(file, "rb") as f:
        upload = UploadedFile(UploadedFileRec("id-" + file, file, "application/octet-stream",
                                              f.read()), FileURLs())
    data = rmsc.datasets.load(upload, name=None)
    results.append(f"{file} {data.name} {data.n_samples} {data.n_views}")

busy = threading.Event()
def server_thread():  # the server's other threads keep running meanwhile
    while not busy.is_set():
        sum(range(1000))
other = threading.Thread(target=server_thread)
other.start()
threads = [threading.Thread(target=page_run, args=(f,)) for f in ("v5.mat", "v73.mat")]
for t in threads:
    t.start()
for t in threads:
    t.join()
busy.set()
other.join()
print("\\n".join(sorted(results)))
"""


def test_the_dashboard_upload_path(mat_files):
    """pages/data.py hands st.file_uploader's UploadedFile to rmsc.datasets.load, on a script
    thread of a multi-threaded server; two sessions upload at once."""
    r = subprocess.run([sys.executable, "-c", UPLOAD], cwd=mat_files, capture_output=True,
                       text=True, timeout=HANG)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    assert r.stdout.count("script body ran") == 1
    assert "v5.mat v5 12 2" in r.stdout and "v73.mat v73 12 2" in r.stdout


def test_the_reader_program_ends_with_its_caller(mat_files):
    code = ("import os, psutil, rmsc; rmsc.datasets.load('v5.mat'); "
            "print(*[p.pid for p in psutil.Process().children()])")
    r = subprocess.run([sys.executable, "-c", code], cwd=mat_files, capture_output=True,
                       text=True, timeout=HANG)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    pids = [int(p) for p in r.stdout.split()]
    assert pids  # the idle reader, kept for the next file
    deadline = time.monotonic() + 60
    while any(psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE
              for p in pids):
        assert time.monotonic() < deadline, "the reader program outlived its caller"
        time.sleep(0.1)


def test_a_crashed_reader_is_replaced_and_loads_go_on(mat_files):
    from tests.support import _segfault

    good = (mat_files / "v5.mat").read_bytes()
    with pytest.raises(DataLoadError, match="crashed"):
        _isolate.run_isolated(_segfault, good, "x.mat", what="MATLAB v5")
    assert load(named(good, "again.mat")).n_samples == 12


def test_concurrent_loads_from_threads_each_get_their_answer(mat_files):
    raws = {f: (mat_files / f).read_bytes() for f in ("v5.mat", "v73.mat")}
    results, errors = {}, []

    def one(k, f):
        try:
            results[k] = load(named(raws[f], f)).fingerprint
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(k, f)) for k, f in enumerate(list(raws) * 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(HANG)
    assert not errors, errors
    expected = {f: load(named(raw, f), isolate=False).fingerprint for f, raw in raws.items()}
    assert results == {k: expected[f] for k, f in enumerate(list(raws) * 3)}


def _warns(raw, fname):
    warnings.warn(f"{fname}: odd but readable", UserWarning)
    return len(raw)


def test_warnings_of_the_reader_reach_the_caller():
    with pytest.warns(UserWarning, match="w.mat: odd but readable"):
        assert _isolate.run_isolated(_warns, b"abc", "w.mat") == 3


def test_no_child_program_reads_in_this_process_with_a_warning(monkeypatch, mat_files):
    monkeypatch.setattr(_isolate, "_IDLE", [])
    monkeypatch.setattr(sys, "executable", "")
    with pytest.warns(RuntimeWarning, match="Could not start a process to read v5.mat"):
        data = load(mat_files / "v5.mat")
    assert data.n_samples == 12


def test_in_process_reading_on_request_starts_no_program(mat_files, monkeypatch):
    def refuse():
        raise AssertionError("a reader program was started")

    monkeypatch.setattr(_isolate, "_take", refuse)
    for f in ("v5.mat", "v73.mat"):
        assert load(mat_files / f, isolate=False).n_samples == 12


def test_a_function_of_the_running_script_is_refused():
    def local(raw, fname):
        return 0

    with pytest.raises(ValueError, match="module-level function of an importable module"):
        _isolate.run_isolated(local, b"", "x.mat")


def test_the_package_imports_nothing_heavy_until_used():
    """The reader program starts from ``import rmsc.datasets._isolate``: no pandas, no
    scikit-learn, no estimator (so a load costs no second import of the whole library)."""
    code = ("import sys, rmsc.datasets._isolate, rmsc.datasets._matlab; "
            "print(sorted(m for m in ('pandas', 'sklearn', 'rmsc.rmsc', 'rmsc.datasets._load') "
            "if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=HANG)
    assert r.returncode == 0 and r.stdout.strip() == "[]", (r.stdout, r.stderr)
    assert datasets.load is load  # and the public names still resolve
