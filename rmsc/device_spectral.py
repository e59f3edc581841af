"""The spectral step on the device, for a device fit's dense consensus.

:mod:`rmsc.spectral` and :mod:`rmsc.placement` come here for arrays of another array-API
library (torch, CuPy, array_api_strict), so that a device fit clusters where it ran:

* :func:`scale_and_symmetrize`, :func:`keep_mass_xp`, :func:`keep_top_k_xp` - the
  affinity S = (|Z*| + |Z*^T|)/2 and its post-processing, by the rules of
  :func:`rmsc.spectral.affinity_from_coefficients`;
* :func:`spectral_embedding_xp` - the NJW embedding: the leading eigenvectors of
  D^-1/2 S D^-1/2 by :func:`leading_eigenvectors`, a block Krylov iteration with
  Rayleigh-Ritz (only products with S, QR of thin blocks and an eigendecomposition of a
  small matrix), never a full n x n eigendecomposition (an ``eigh`` of a 20,000^2 matrix
  takes seconds even on a GPU); the n x c embedding then goes to the host for k-means;
* :func:`connected_pieces_xp` - the count of connected pieces of S's graph;
  :func:`submatrix_xp` - S restricted to some samples (the anchors of
  :func:`rmsc.placement.place_weak_samples`).

Agreement with the host path: the eigenvectors are those ``scipy.sparse.linalg.eigsh``
finds, up to a rotation within the c-dimensional subspace (signs, for distinct
eigenvalues), which row normalisation and k-means do not see; the iteration stops at the
same residual scale as eigsh's ``tol=1e-10`` in float64 (:data:`TOL`). The random start
consumes the same draws of ``random_state`` as the host path, so the k-means seeds after
it are the same.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils import check_random_state

from ._array_api import device_of, free_bytes, from_numpy, namespace, row_blocks, to_numpy
from ._spectral_shared import DENSE_EIGH_MAX, warn_isolated
from .memory import MemoryBudgetError, format_bytes

#: Residual tolerance ||S_n u - theta u|| of every wanted Ritz pair, by precision (S_n the
#: normalised affinity, whose eigenvalues lie in [-1, 1]): eigsh's tol=1e-10 in float64;
#: float32 products with S (the small work is float64, see :func:`leading_eigenvectors`)
#: reach ~3e-8 on Digit.
TOL = {"float64": 1e-10, "float32": 2e-6}

#: Columns of the Krylov block beyond the eigenvectors wanted, and blocks per restart.
OVERSAMPLE = 8
DEPTH = 6

#: Most restarts (each DEPTH products with S) before the iteration gives up with a warning.
MAX_RESTARTS = 60

#: Restarts in a row without a 10 % better residual after which the iteration stops (the
#: rounding floor of the operator), with a warning.
STALL = 4


def scale_and_symmetrize(A, scale_columns):
    """S = (A + A^T) / 2 after dividing each column of A by its maximum (when asked).

    ``A`` (|Z*|, already post-processed) is scaled in place; one more n x n array is made.
    """
    xp = namespace(A)
    if scale_columns:
        colmax = xp.max(A, axis=0)
        pos = colmax > 0
        inv = xp.where(pos, 1.0 / xp.where(pos, colmax, xp.ones_like(colmax)),
                       xp.zeros_like(colmax))
        A *= inv[None, :]
    S = A + A.T
    del A
    S /= 2.0
    return S


def _check_sort_fits(A):
    """The column sorts of keep_mass / top_k hold about five more n x n arrays (two of
    int64 indices): refuse before them when the device lacks the memory."""
    xp = namespace(A)
    n = A.shape[0]
    need = n * n * (2 * 8 + 3 * (xp.finfo(A.dtype).bits // 8))
    have = free_bytes(xp, device_of(A))
    if have is not None and need > have:
        raise MemoryBudgetError(
            f"keep_mass / top_k on {device_of(A)} sort every column of the {n} x {n} "
            f"consensus, which needs {format_bytes(need)} more, but only "
            f"{format_bytes(have)} is free. Leave keep_mass and top_k at None (the paper's "
            "affinity), subsample, or fit on the CPU."
        )


def _descending_ranks(A, xp):
    """order (the rows of each column by decreasing value, ties in row order) and its
    inverse, each of shape (n, n)."""
    order = xp.argsort(A, axis=0, descending=True, stable=True)
    return order, xp.argsort(order, axis=0)


def keep_mass_xp(A, keep_mass):
    """Elhamifar & Vidal's ``thrC`` rule on a device array: the rule of
    :func:`rmsc.spectral._keep_mass_per_column` (each column sorted by decreasing value,
    ties in row order, entries kept while the sum before them is below ``keep_mass``
    times the column's sum)."""
    xp = namespace(A)
    _check_sort_fits(A)
    n = A.shape[0]
    order, back = _descending_ranks(A, xp)
    vals = xp.take_along_axis(A, order, axis=0)
    del order
    csum = xp.cumulative_sum(vals, axis=0)
    del vals
    before = xp.concat([xp.zeros((1, n), dtype=A.dtype, device=device_of(A)), csum[:-1, :]],
                       axis=0)
    keep = before < keep_mass * csum[-1:, :]
    del before, csum
    keep = xp.take_along_axis(keep, back, axis=0)
    return xp.where(keep, A, xp.zeros((), dtype=A.dtype, device=device_of(A)))


def keep_top_k_xp(A, k):
    """The ``k`` largest entries of every column of a device array (ties to the lower row)."""
    xp = namespace(A)
    n = A.shape[0]
    if k >= n:
        return A
    _check_sort_fits(A)
    _, rank = _descending_ranks(A, xp)
    return xp.where(rank < k, A, xp.zeros((), dtype=A.dtype, device=device_of(A)))


def submatrix_xp(S, index):
    """S[index][:, index] of a device array, a block of rows at a time (one new array of
    len(index)^2 and a small block beside S)."""
    xp = namespace(S)
    dev = device_of(S)
    idx = from_numpy(np.asarray(index, dtype=np.int64), xp, dev)
    m, n = idx.shape[0], S.shape[0]
    out = xp.empty((m, m), dtype=S.dtype, device=dev)
    for a, b in row_blocks(m, n):
        out[a:b, :] = xp.take(xp.take(S, idx[a:b], axis=0), idx, axis=1)
    return out


def connected_pieces_xp(S, exclude=None):
    """Connected pieces of the graph with an edge where S_ij > 0, the samples ``exclude``
    left out (as scipy's ``connected_components`` of the remaining submatrix).

    Minimum-label propagation with pointer jumping, a block of rows at a time (memory:
    5 bytes an entry of a block of :data:`rmsc._array_api.BLOCK_ENTRIES`), until no label changes:
    a few passes over S for a well-linked consensus.
    """
    xp = namespace(S)
    dev = device_of(S)
    n = S.shape[0]
    keep_host = np.ones(n, dtype=bool)
    if exclude is not None and len(exclude):
        keep_host[np.asarray(exclude, dtype=np.int64)] = False
    keep = from_numpy(keep_host, xp, dev)
    index = xp.arange(n, dtype=xp.int32, device=dev)
    labels = index
    none = xp.asarray(n, dtype=xp.int32, device=dev)
    while True:
        parts = []
        for a, b in row_blocks(n, n):
            edges = (S[a:b, :] > 0) & keep[None, :]
            nearest = xp.min(xp.where(edges, labels[None, :], none), axis=1)
            parts.append(xp.minimum(labels[a:b], nearest))
        new = xp.concat(parts) if len(parts) > 1 else parts[0]
        while True:  # pointer jumping: a label is a sample of the same piece
            jumped = xp.take(new, new)
            if bool(xp.all(jumped == new)):
                break
            new = jumped
        if bool(xp.all(new == labels)):
            break
        labels = new
    return int(xp.count_nonzero((labels == index) & keep))


def leading_eigenvectors(matvec, start, n_wanted, xp, device, dtype, *, tol=None,
                         oversample=OVERSAMPLE, depth=DEPTH, max_restarts=MAX_RESTARTS):
    """The ``n_wanted`` largest eigenpairs of a symmetric operator, by block Krylov with
    Rayleigh-Ritz and restarts.

    Every restart builds the orthonormal basis Q = [V, S V, S^2 V, ...] (``depth`` blocks,
    each projected out of the earlier ones twice and orthonormalised by QR), takes the
    Ritz pairs of Q^T S Q, stops when every wanted pair's residual ||S u - theta u|| is at
    most ``tol``, and restarts from the leading Ritz vectors otherwise. It also stops,
    with a warning, when :data:`STALL` restarts in a row did not improve the best
    residual by 10 % (the operator's rounding floor is above ``tol``).

    The blocks, the QRs, the Ritz pairs and the residuals are float64 whatever the
    operator's precision: only the products with S are in ``dtype``. (In float32 all
    through, the residual's floor on Digit was 1.5e-6, next to the float32 tolerance
    2e-6: on a GPU the iteration could stall there to :data:`MAX_RESTARTS`; with the
    small work in float64 the floor of a float32 S is ~3e-8.)

    Parameters
    ----------
    matvec : callable(V) -> S V
        V of shape (n, b), float64 on the device; returns float64.
    start : ndarray of shape (n, b)
        The host start block (b = n_wanted + oversample).
    n_wanted : int
    xp, device :
        Where to compute.
    dtype :
        The precision of the products with S (sets the default ``tol``).
    tol : float or None
        Residual tolerance; None: :data:`TOL` for ``dtype``.

    Returns
    -------
    eigenvalues : array of shape (n_wanted,), ascending, float64
    vectors : array of shape (n, n_wanted), float64
    info : dict
        ``products`` (calls of matvec), ``restarts``, ``residual`` (the largest).
    """
    if tol is None:
        tol = TOL["float32" if dtype == xp.float32 else "float64"]
    V = xp.linalg.qr(from_numpy(start, xp, device, xp.float64)).Q
    b = V.shape[1]
    products = 0
    best, stalled = np.inf, 0
    for restart in range(1, max_restarts + 1):
        blocks, images = [V], []
        for j in range(depth):
            W = matvec(blocks[-1])
            products += 1
            images.append(W)
            if j + 1 == depth:
                break
            Q = xp.concat(blocks, axis=1)
            W = W - Q @ (Q.T @ W)
            W = W - Q @ (Q.T @ W)
            W = xp.linalg.qr(W).Q
            W = W - Q @ (Q.T @ W)  # the directions QR made up for a rank-deficient block
            blocks.append(xp.linalg.qr(W).Q)
        Q = xp.concat(blocks, axis=1)
        SQ = xp.concat(images, axis=1)
        H = Q.T @ SQ
        theta, Y = xp.linalg.eigh((H + H.T) / 2.0)
        top = Y[:, -n_wanted:]
        U, values = Q @ top, theta[-n_wanted:]
        residual = float(xp.max(xp.linalg.vector_norm(SQ @ top - U * values[None, :], axis=0)))
        if residual <= tol:
            break
        stalled = stalled + 1 if residual > 0.9 * best else 0
        best = min(best, residual)
        if stalled >= STALL:
            warnings.warn(
                f"The spectral step's eigensolver stopped at a residual of {residual:.2g} "
                f"(wanted {tol:.1g}): {STALL} restarts did not improve it, the rounding "
                "floor of the affinity's precision; the embedding may be inexact.",
                UserWarning,
                stacklevel=3,
            )
            break
        V = Q @ Y[:, -b:]
    else:
        warnings.warn(
            f"The spectral step's eigensolver stopped after {max_restarts} restarts with a "
            f"residual of {residual:.2g} (wanted {tol:.1g}); the embedding may be inexact.",
            UserWarning,
            stacklevel=3,
        )
    return values, U, {"products": products, "restarts": restart, "residual": residual}


def spectral_embedding_xp(S, n_components, *, random_state=None, return_eigenvalues=False):
    """:func:`rmsc.spectral.spectral_embedding` of a device array, computed there.

    The same NJW embedding and the same choice of solver by size as the host path: a
    dense ``eigh`` up to :data:`rmsc._spectral_shared.DENSE_EIGH_MAX` samples, else
    :func:`leading_eigenvectors` started from the host path's random start vector (the
    same draw of ``random_state``) and a fixed-seed block beside it.

    Returns
    -------
    embedding : ndarray of shape (n_samples, n_components)
        A NumPy float64 array (for k-means on the host).
    eigenvalues : ndarray of shape (n_components + 1,)
        Only with ``return_eigenvalues=True``; NumPy.
    """
    xp = namespace(S)
    dev = device_of(S)
    n = S.shape[0]
    deg = xp.astype(xp.sum(S, axis=1), xp.float64, copy=False)
    isolated = deg <= 0
    count = int(xp.count_nonzero(isolated))
    if count:
        warn_isolated(count, stacklevel=4)
    d = xp.where(isolated, xp.zeros_like(deg), 1.0 / xp.sqrt(xp.where(isolated,
                                                                     xp.ones_like(deg), deg)))
    k = min(n_components + 1, n) if return_eigenvalues else n_components
    if n <= DENSE_EIGH_MAX or k >= n - 1:
        w, U = xp.linalg.eigh(S * d[:, None] * d[None, :])
        w, U = w[n - k:], U[:, n - k:]
    else:
        rng = check_random_state(random_state)
        v0 = rng.uniform(-1, 1, n)
        b = k + OVERSAMPLE
        start = np.column_stack([v0, np.random.default_rng(0).uniform(-1, 1, (n, b - 1))])
        w, U, _ = leading_eigenvectors(
            lambda V: d[:, None] * xp.astype(S @ xp.astype(d[:, None] * V, S.dtype, copy=False),
                                             xp.float64, copy=False),
            start, k, xp, dev, S.dtype)
    U = U[:, U.shape[1] - n_components:]
    norms = xp.linalg.vector_norm(U, axis=1)
    pos = norms > 0
    emb = xp.where(pos[:, None], U / xp.where(pos, norms, xp.ones_like(norms))[:, None],
                   xp.zeros_like(U))
    emb = to_numpy(emb).astype(np.float64)
    return (emb, to_numpy(w).astype(np.float64)) if return_eigenvalues else emb
