"""Build step: the dashboard and the bundled data go into the wheel, in ``rmsc/_app/``.

The repository keeps them at the top level (``app.py``, ``ui/``, ``pages/``,
``.streamlit/config.toml``, ``sample_data/``). A wheel copies exactly the files of
:data:`APP_FILES` into ``rmsc/_app/``, where :mod:`rmsc._resources` finds them; an
editable install uses the repository's own. Everything else is in pyproject.toml
(and MANIFEST.in takes the same files into the sdist).
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent

#: Files beside the library that ship with it (globs, relative to the repository).
APP_FILES = ("app.py", "ui/*.py", ".streamlit/config.toml", "pages/*.py",
             "sample_data/*.npz", "sample_data/README.md", "sample_data/lesson.yaml")


class BuildPyWithApp(build_py):
    """``build_py``, then the files of APP_FILES copied to ``rmsc/_app/``."""

    def run(self):
        super().run()
        if self.editable_mode:  # the repository's own files are used in place
            return
        target = Path(self.build_lib) / "rmsc" / "_app"
        for pattern in APP_FILES:
            sources = sorted(ROOT.glob(pattern))
            if not sources:
                raise FileNotFoundError(f"{pattern}: no such file to put into the wheel")
            for src in sources:
                dest = target / src.relative_to(ROOT)
                self.mkpath(str(dest.parent))
                self.copy_file(str(src), str(dest))


setup(cmdclass={"build_py": BuildPyWithApp})
