"""A thread-safe LRU cache of results, bounded by entries and by bytes."""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict

import numpy as np
import pandas as pd
import scipy.sparse as sp


def nbytes(obj):
    """Approximate memory of a result: numpy arrays, sparse matrices, containers."""
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if sp.issparse(obj):
        obj = obj.tocsr() if not hasattr(obj, "data") else obj
        return sum(getattr(obj, a).nbytes for a in ("data", "indices", "indptr")
                   if hasattr(obj, a))
    if isinstance(obj, pd.DataFrame):
        return int(obj.memory_usage(deep=True).sum())
    if isinstance(obj, dict):
        return sum(nbytes(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(nbytes(v) for v in obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return sum(nbytes(getattr(obj, f.name)) for f in dataclasses.fields(obj))
    if hasattr(obj, "get_params"):  # a fitted estimator: its fitted attributes
        return 64 + sum(nbytes(v) for k, v in vars(obj).items() if k.endswith("_"))
    return 64


class ResultCache:
    """A thread-safe least-recently-used cache bounded by entries and by bytes."""

    def __init__(self, max_entries=24, max_bytes=1 << 30):
        self.max_entries = int(max_entries)
        self.max_bytes = int(max_bytes)
        self._lock = threading.Lock()
        self._items = OrderedDict()
        self._sizes = {}

    def get(self, key, default=None):
        with self._lock:
            if key not in self._items:
                return default
            self._items.move_to_end(key)
            return self._items[key]

    def __contains__(self, key):
        with self._lock:
            return key in self._items

    def __len__(self):
        with self._lock:
            return len(self._items)

    @property
    def total_bytes(self):
        with self._lock:
            return sum(self._sizes.values())

    def put(self, key, value):
        size = nbytes(value)
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            self._sizes[key] = size
            while len(self._items) > 1 and (len(self._items) > self.max_entries
                                            or sum(self._sizes.values()) > self.max_bytes):
                old, _ = self._items.popitem(last=False)
                self._sizes.pop(old, None)
        return value

    def clear(self):
        with self._lock:
            self._items.clear()
            self._sizes.clear()
