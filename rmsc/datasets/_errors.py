"""The loaders' error type and the helpers every file format shares."""

from __future__ import annotations

from .. import memory


class DataLoadError(ValueError):
    """A file could not be turned into a multi-view dataset.

    The message names the file, the key or column concerned, what was found and
    what was expected.
    """


def _guard(n_rows, n_cols, fname, what, itemsize=8):
    """The memory guard (:mod:`rmsc.memory`), reported as a load error."""
    need = memory.dense_bytes(n_rows, n_cols, itemsize=itemsize)
    have = memory.available_bytes()
    if have is not None and need > have:
        raise DataLoadError(
            f"{fname}: {what} needs {memory.format_bytes(need)}, but only "
            f"{memory.format_bytes(have)} of memory is available. The file is too large for "
            "this machine (or corrupt, declaring absurd sizes); subsample the data before "
            "loading it."
        )


def _short(exc):
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:200]
