"""Products of a dense factor with a sparse (or dense-ish) consensus, within a memory budget."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


#: Most memory for the dense intermediate of one column block, in bytes.
BLOCK_BYTES = 64 * 2**20


#: Above this fraction of nonzeros, R @ Z uses dense BLAS (:func:`sparse_right_product`;
#: where the sparse product stops winning: docs/measurements.md, "Measured once, by hand").
_DENSE_PRODUCT_DENSITY = 0.1


def sparse_right_product(A, Z, AT=None):
    """A @ Z for dense A (r x n) and sparse Z (n x k), as a dense array.

    ``AT``, a C-contiguous copy of A.T, saves scipy a copy when given.
    """
    if Z.nnz == 0:
        return np.zeros((A.shape[0], Z.shape[1]))
    cells = Z.shape[0] * Z.shape[1]
    if Z.nnz > _DENSE_PRODUCT_DENSITY * cells and 8 * cells <= BLOCK_BYTES:
        return A @ Z.toarray()  # dense BLAS beats the sparse kernel on dense-ish Z
    return np.asarray((sp.csr_matrix(Z.T) @ (A.T if AT is None else AT)).T)
