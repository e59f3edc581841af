"""What the host and the device spectral steps (:mod:`rmsc.spectral`,
:mod:`rmsc.device_spectral`) share: the size below which the embedding takes a dense
eigensolver, and the warning about samples with no affinity to any other."""

from __future__ import annotations

import warnings

#: Below this many samples the embedding uses a dense eigensolver.
DENSE_EIGH_MAX = 600


def warn_isolated(count, stacklevel=3):
    """The warning about ``count`` samples with no affinity to any other."""
    warnings.warn(
        f"{count} sample(s) have zero affinity to every other sample; "
        "they cannot be placed by spectral clustering and get an arbitrary cluster.",
        UserWarning,
        stacklevel=stacklevel,
    )
