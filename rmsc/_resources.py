"""Where the files that ship beside the library are: the dashboard and the bundled data.

In the repository they live at the top level (``app.py``, ``ui/``, ``pages/``,
``.streamlit/config.toml``, ``sample_data/``). A wheel carries the same files
inside the package, as ``rmsc/_app/`` (``setup.py`` maps them there), so an
installed rmsc finds them without the repository. An editable install or a
checkout on ``sys.path`` has no ``rmsc/_app/`` and uses the repository's.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def app_dir():
    """Folder holding ``app.py``, ``ui/``, ``pages/``, ``.streamlit/`` and ``sample_data/``."""
    packaged = _PACKAGE / "_app"
    if (packaged / "app.py").is_file():
        return packaged
    return _PACKAGE.parent


def sample_data_dir():
    """Folder of the bundled datasets (``digit.npz``, ``reuter.npz``, ``3sources.npz``)."""
    return app_dir() / "sample_data"


def app_script():
    """The dashboard's entry script (``streamlit run`` it, or run it with python)."""
    return app_dir() / "app.py"
