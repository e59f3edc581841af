"""The server's result cache as the pages use it: memory over a folder on disk, and the
result types an entry on disk may rebuild.

Every kind of result the pages cache (a fit or its failure, Compare's tables, the
Sensitivity and views tables, a suggestion) goes through one
:class:`~rmsc.dashboard.ResultCache`; with a :class:`~rmsc.dashboard.store.DiskStore`
under it, a result computed once answers later sessions and later runs of the server.
"""

from __future__ import annotations

from ..rmsc import RMSC
from ..selection import Suggestion
from .cache import ResultCache
from .fitting import FitFailure, FitResult
from .params import Params
from .store import DiskStore
from .suggest import SuggestionRun

#: The classes an entry on disk may rebuild (any other class in a file discards it):
#: results, their parameters, and the fitted estimator a fit result carries.
RESULT_TYPES = (FitResult, FitFailure, Params, SuggestionRun, Suggestion, RMSC)


def open_result_cache(max_entries, max_bytes, disk=True):
    """The server's :class:`ResultCache`: ``max_entries`` / ``max_bytes`` in memory, over
    the folder ``RMSC_CACHE_DIR`` names (:func:`rmsc.dashboard.store.default_folder`,
    capped at ``RMSC_CACHE_BYTES``) unless ``disk`` is False or the variable says "off"."""
    store = DiskStore.from_env(RESULT_TYPES) if disk else None
    return ResultCache(max_entries=max_entries, max_bytes=max_bytes, disk=store)
