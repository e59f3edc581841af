"""The package as a user gets it: build the wheel, install it into a fresh venv, use it elsewhere.

One slow test: the wheel holds the library, the dashboard and the bundled data and nothing
else; installing it prints no deprecation warning; from a folder outside the repository every
bundled dataset loads, the installed app renders its first page (AppTest), and
``rmsc dashboard`` serves until its health endpoint answers.

The fresh venv gets the wheel from pip (``--no-deps``) and its dependencies linked from the
environment running the tests: exactly the distributions the wheel's own ``Requires-Dist``
names, and theirs in turn (markers and extras evaluated), each at a version its requirement
accepts, and nothing else. A module the installed code imports from an undeclared
distribution is missing there, as in a venv pip filled from the index, at a fraction of the
cost (pip unpacking the scientific stack was most of this test's time).
"""
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from email.parser import Parser
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
#: Left out of the copy the wheel is built from (caches, environments, build leftovers).
NOT_SOURCE = (".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
              ".hypothesis", "screenshots", "out", ".reproduce-cache.json")

CHECK_INSTALLED = r"""
import sys
from pathlib import Path

import rmsc
from rmsc import _resources, datasets

here = Path(rmsc.__file__).resolve()
assert here.is_relative_to(Path(sys.prefix).resolve()), here  # the wheel, not the repository
assert _resources.app_dir() == here.parent / "_app", _resources.app_dir()
for name in datasets.bundled_names():
    d = datasets.load_bundled(name)
    print(name, d.n_samples, d.n_views, len(set(d.labels.tolist())))

from streamlit.testing.v1 import AppTest

at = AppTest.from_file(str(_resources.app_script()), default_timeout=120)
at.run()
assert not at.exception, [e.message for e in at.exception]
print("app:", [t.value for t in at.title])
"""


def _run(cmd, **kw):
    """Run a command that must succeed; return (stdout, stdout + stderr)."""
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert done.returncode == 0, f"{cmd}\n{done.stdout}\n{done.stderr}"
    return done.stdout, done.stdout + done.stderr


def _dependencies(requires):
    """The installed distributions a distribution with the requirements ``requires``
    (``Requires-Dist`` lines) needs, with theirs in turn: their markers evaluated here, with
    the extras asked for; each one installed at a version its requirement accepts."""
    found, todo = {}, [(r, ()) for r in requires]
    while todo:
        line, extras = todo.pop()
        req = Requirement(line)
        if req.marker is not None and not any(req.marker.evaluate({"extra": e})
                                              for e in (*extras, "")):
            continue
        name = canonicalize_name(req.name)
        dist = metadata.distribution(req.name)  # PackageNotFoundError: not installed here
        assert req.specifier.contains(dist.version, prereleases=True), (line, dist.version)
        asked = tuple(sorted(req.extras))
        if (name, asked) in found:
            continue
        found[(name, asked)] = dist
        todo += [(r, asked) for r in dist.requires or ()]
    return {name: dist for (name, _), dist in found.items()}


def _link_dependencies(wheel, venv):
    """Link the wheel's dependencies (:func:`_dependencies` of its metadata) file by file
    from this environment into ``venv``'s site-packages; their names."""
    with zipfile.ZipFile(wheel) as zf:
        (meta,) = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
        requires = Parser().parsestr(zf.read(meta).decode()).get_all("Requires-Dist") or []
    deps = _dependencies(requires)
    (site,) = venv.glob("lib/python*/site-packages")
    for dist in deps.values():
        for file in dist.files or ():
            if file.parts[0] == "..":
                continue  # scripts in bin/ (not run here)
            target = site / file
            target.parent.mkdir(parents=True, exist_ok=True)
            if not target.exists():
                target.symlink_to(dist.locate_file(file))
    return set(deps)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_wheel_installs_data_and_dashboard_into_a_fresh_venv(tmp_path):
    src, dist, venv, elsewhere = (tmp_path / p for p in ("src", "dist", "venv", "elsewhere"))
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}

    # Build: the backend says nothing deprecated (the licence is an SPDX string).
    _, log = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(dist), str(src)],
               env=env)
    assert "deprecat" not in log.lower(), log
    (wheel,) = dist.glob("rmsc-*.whl")

    # Contents: the library, the dashboard and the bundled data, nothing else; the licence
    # in the metadata.
    with zipfile.ZipFile(wheel) as zf:
        names = {n for n in zf.namelist() if not n.startswith("rmsc-")}
        licence = zf.read("rmsc-0.1.0.dist-info/licenses/LICENSE").decode()
    assert licence == (ROOT / "LICENSE").read_text()
    library = {p.relative_to(ROOT).as_posix() for p in (ROOT / "rmsc").rglob("*.py")}
    app = {f"rmsc/_app/{p.relative_to(ROOT).as_posix()}" for p in
           [ROOT / "app.py", *(ROOT / "ui").glob("*.py"), ROOT / ".streamlit" / "config.toml",
            ROOT / "sample_data" / "README.md", ROOT / "sample_data" / "lesson.yaml",
            *(ROOT / "pages").glob("*.py"),
            *(ROOT / "sample_data").glob("*.npz")]}
    assert {"rmsc/_app/sample_data/digit.npz", "rmsc/_app/sample_data/reuter.npz",
            "rmsc/_app/sample_data/3sources.npz", "rmsc/_app/pages/data.py"} <= app
    assert names == library | app

    # A fresh venv holding the wheel (installed by pip) and the distributions it declares
    # (linked from here: see the module docstring), nothing else.
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], env=env)
    python, rmsc_cmd = venv / "bin" / "python", venv / "bin" / "rmsc"
    linked = _link_dependencies(wheel, venv)
    assert {"numpy", "scipy", "streamlit", "distributed", "segno"} <= linked
    assert not {"pytest", "hypothesis", "playwright", "ruff"} & linked  # the test extras
    _, log = _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                   str(wheel)], env=env, cwd=elsewhere)
    assert "deprecat" not in log.lower(), log
    listed, _ = _run([sys.executable, "-m", "pip", "--python", str(python), "list",
                      "--format=freeze"], env=env, cwd=elsewhere)
    assert {canonicalize_name(line.split("==")[0]) for line in listed.split()} == \
        linked | {"rmsc"}  # nothing else (no pip either)

    # From another folder: every bundled dataset loads, the app renders its first page.
    out, _ = _run([str(python), "-c", CHECK_INSTALLED], env=env, cwd=elsewhere, timeout=300)
    loaded = {line.split()[0]: line.split()[1:] for line in out.splitlines()
              if line and not line.startswith("app:")}
    assert loaded["Digit"] == ["2000", "6", "10"]
    assert loaded["Reuter"] == ["1200", "5", "6"]
    assert loaded["3-Sources"] == ["169", "3", "6"]
    assert "app: ['Data']" in out

    # rmsc dashboard serves until its health endpoint answers, then stops on SIGTERM.
    port = _free_port()
    server = subprocess.Popen([str(rmsc_cmd), "dashboard", "--port", str(port)], env=env,
                              cwd=elsewhere, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
    try:
        deadline, health = time.monotonic() + 90, None
        while time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://localhost:{port}/_stcore/health",
                                            timeout=2) as r:
                    health = r.read().decode()
                break
            except OSError:
                time.sleep(0.5)
        assert health == "ok", server.stdout.read() if server.poll() is not None else health
    finally:
        server.terminate()
        output = server.communicate(timeout=30)[0]
    assert f"rmsc dashboard: http://localhost:{port}" in output
    assert "Traceback" not in output
