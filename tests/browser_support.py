"""What the real-browser tests share: the server they open (``streamlit run`` on a free local
port), Debian's Chromium and its flags, the viewport and the time a fit may take. The
fixtures built on them (``server``, ``browser``, ``page``) are in ``conftest.py``."""

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "tests" / "screenshots"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic"]
FIT_TIMEOUT = 240_000  # ms; the machine is shared, Digit fits take seconds to tens of seconds
VIEWPORT = {"width": 1500, "height": 1000}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def log_path(name):
    """Where a server's log goes: ``tests/screenshots/NAME``, with the pytest-xdist worker's
    name before the suffix when the suite runs in parallel (two workers never share one)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        stem, dot, suffix = name.rpartition(".")
        name = f"{stem}_{worker}.{suffix}" if dot else f"{name}_{worker}"
    return SHOTS / name


@contextlib.contextmanager
def serve(log_name="server.log", script="app.py"):
    """``streamlit run app.py`` (or another ``script``) on a free local port; yields its URL,
    stops it on exit."""
    port = free_port()
    SHOTS.mkdir(parents=True, exist_ok=True)
    log_file = log_path(log_name)
    log = open(log_file, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", script, "--server.headless", "true",
         "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"streamlit did not start; see {log_file}")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
