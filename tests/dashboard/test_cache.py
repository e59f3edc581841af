"""The result cache without a browser (rmsc.dashboard.cache): bounded by entries and bytes."""

import numpy as np
import scipy.sparse as sp

from rmsc import dashboard as dash


def test_result_cache_is_lru_bounded_by_entries_and_bytes():
    cache = dash.ResultCache(max_entries=3, max_bytes=10_000)
    for k in "abc":
        cache.put(k, np.zeros(10))
    assert cache.get("a") is not None  # a becomes most recent
    cache.put("d", np.zeros(10))
    assert "b" not in cache and "a" in cache and len(cache) == 3
    cache.put("big", np.zeros(1000))  # 8000 bytes: fits with two small ones (3 entries)
    assert "big" in cache and "c" not in cache and len(cache) == 3
    cache.put("big2", np.zeros(1000))  # 16 000 bytes together: the older big one goes
    assert "big2" in cache and "big" not in cache and cache.total_bytes <= 10_000
    cache.put("huge", np.zeros(5000))  # larger than the budget alone: kept, others evicted
    assert list(cache._items) == ["huge"]


def test_nbytes_counts_arrays_sparse_and_containers():
    A = np.zeros((10, 10))
    S = sp.random(50, 50, density=0.1, format="csr", random_state=0)
    assert dash.nbytes(A) == 800
    assert dash.nbytes(S) == S.data.nbytes + S.indices.nbytes + S.indptr.nbytes
    assert dash.nbytes({"x": A, "y": [A, A]}) == 2400
