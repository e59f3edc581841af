"""MATLAB v5 .mat files, read with scipy.io.loadmat.

scipy's compiled reader can crash on a corrupt file; :func:`rmsc.datasets.load` therefore
calls this reader in a child process (:mod:`rmsc.datasets._isolate`).
"""

from __future__ import annotations

import io
import warnings

from ._errors import DataLoadError, _short


def _read_mat5(raw, fname):
    import scipy.io

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            data = scipy.io.loadmat(io.BytesIO(raw), squeeze_me=False, chars_as_strings=True)
    except MemoryError:
        raise DataLoadError(
            f"{fname} could not be read: it declares arrays larger than the memory available "
            "(the file may be corrupt)."
        ) from None
    except Exception as exc:
        raise DataLoadError(
            f"{fname} could not be read as a MATLAB v5 .mat file ({_short(exc)}); it is "
            "corrupt, truncated or not a .mat file. Save it again in MATLAB "
            "(save(file, 'X', 'Y') or save(file, 'X', 'Y', '-v7.3'))."
        ) from None
    variables = {k: v for k, v in data.items() if not k.startswith("__")}
    for key, value in variables.items():
        if isinstance(value, str) and value.startswith("Read error:"):  # scipy's note
            reason = value[len("Read error:"):].strip()
            raise DataLoadError(
                f"{fname}: the variable {key} could not be read ({reason}); the file is "
                "corrupt. Save it again in MATLAB."
            )
    return variables
