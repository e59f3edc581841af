"""A thread-safe LRU cache of results, bounded by entries and by bytes, over an optional
disk layer (:class:`rmsc.dashboard.store.DiskStore`) that outlives sessions and restarts."""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._deferred import state, unread


def nbytes(obj, _seen=None):
    """Approximate memory of a result: numpy arrays, sparse matrices, containers.

    A buffer held twice (a fit result's consensus and its estimator's share their arrays;
    a result read from disk holds each stored array once) is counted once. An attribute a
    result read from disk has not read yet (:mod:`rmsc._deferred`) counts nothing."""
    seen = set() if _seen is None else _seen
    if isinstance(obj, np.ndarray):
        return _buffer_bytes(obj, seen)
    if sp.issparse(obj):
        obj = obj.tocsr() if not hasattr(obj, "data") else obj
        return sum(_buffer_bytes(getattr(obj, a), seen) for a in ("data", "indices", "indptr")
                   if isinstance(getattr(obj, a, None), np.ndarray))
    if isinstance(obj, pd.DataFrame):
        return int(obj.memory_usage(deep=True).sum())
    if isinstance(obj, dict):
        return sum(nbytes(v, seen) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(nbytes(v, seen) for v in obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        later = unread(obj)
        return sum(nbytes(getattr(obj, f.name), seen) for f in dataclasses.fields(obj)
                   if f.name not in later)
    if hasattr(obj, "get_params"):  # a fitted estimator: its fitted attributes
        return 64 + sum(nbytes(v, seen) for k, v in state(obj).items() if k.endswith("_"))
    return 64


def _buffer_bytes(a, seen):
    """``a.nbytes``, or 0 when the same memory (start and length) was counted already."""
    where = (a.__array_interface__["data"][0], a.nbytes)
    if a.nbytes and where in seen:
        return 0
    seen.add(where)
    return a.nbytes


class ResultCache:
    """A thread-safe least-recently-used cache bounded by entries and by bytes.

    With ``disk`` (a :class:`~rmsc.dashboard.store.DiskStore`), every result put is also
    written there, and a key missing from memory is looked up there (and kept in memory
    again): :meth:`clear` empties the memory only, so what was computed outlives the
    sessions and the server. A result read from disk counts what it has read so far (its
    large arrays are read when touched): the sizes are measured again before evicting.
    """

    def __init__(self, max_entries=24, max_bytes=1 << 30, disk=None):
        self.max_entries = int(max_entries)
        self.max_bytes = int(max_bytes)
        self.disk = disk
        self._lock = threading.Lock()
        self._items = OrderedDict()
        self._sizes = {}
        if disk is not None:
            disk.on_discard(self.forget)

    def get(self, key, default=None):
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        if self.disk is None:
            return default
        value = self.disk.get(key)
        if value is None:
            return default
        self._remember(key, value)
        return value

    def __contains__(self, key):
        with self._lock:
            if key in self._items:
                return True
        return self.disk is not None and key in self.disk

    def __len__(self):
        with self._lock:
            return len(self._items)

    @property
    def total_bytes(self):
        with self._lock:
            self._measure()
            return sum(self._sizes.values())

    def _measure(self):
        for key, value in self._items.items():
            self._sizes[key] = nbytes(value)

    def forget(self, key, value=None):
        """Drop ``key`` from memory (its entry on disk turned out damaged: see
        :meth:`~rmsc.dashboard.store.DiskStore.on_discard`); with ``value``, only if that
        is what memory holds (not a result computed again since)."""
        with self._lock:
            if value is not None and self._items.get(key) is not value:
                return
            self._items.pop(key, None)
            self._sizes.pop(key, None)

    def put(self, key, value):
        """Keep ``value`` (in memory, and on disk when there is a disk layer); returns it."""
        self._remember(key, value)
        if self.disk is not None:
            self.disk.put(key, value)
        return value

    def _remember(self, key, value):
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            self._measure()  # this value, and what the others have read since
            while len(self._items) > 1 and (len(self._items) > self.max_entries
                                            or sum(self._sizes.values()) > self.max_bytes):
                old, _ = self._items.popitem(last=False)
                self._sizes.pop(old, None)

    def clear(self):
        """Empty the memory (the disk layer keeps its results: see ``disk.clear``)."""
        with self._lock:
            self._items.clear()
            self._sizes.clear()
