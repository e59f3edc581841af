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
    assert dash.nbytes({"x": A, "y": [A, A.copy()]}) == 1600


def test_nbytes_counts_memory_held_twice_once():
    """A fit result and its estimator share their consensus's arrays: the memory cache's
    byte bound counts them once (else a Digit result counted double and evicted the one
    before it: a move back to it read the disk again)."""
    S = sp.random(50, 50, density=0.1, format="csr", random_state=0)
    same = sp.csr_matrix(S)  # another matrix over the same arrays
    assert same.data is not S.data or np.shares_memory(same.data, S.data)
    one = dash.nbytes(S)
    assert dash.nbytes((S, same)) == one
    assert dash.nbytes((S, S.copy())) == 2 * one
    A = np.arange(100.0)
    assert dash.nbytes([A, A[:], A.reshape(10, 10)]) == 800  # views of all of A: once

    def result(seed):  # a result holding one matrix twice, as a fit and its estimator do
        M = sp.random(200, 200, density=0.5, format="csr", random_state=seed)
        return {"consensus": M, "model": {"consensus_": sp.csr_matrix(M)}}

    size = dash.nbytes(result(0))
    cache = dash.ResultCache(max_entries=8, max_bytes=int(2.5 * size))
    cache.put("a", result(1))
    cache.put("b", result(2))
    assert "a" in cache and "b" in cache and len(cache) == 2
