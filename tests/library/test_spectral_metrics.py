"""Metrics against hand-worked cases; the spectral protocol on known structure."""

import numpy as np
import pytest
import scipy.sparse as sp

from rmsc.metrics import (accuracy_split, best_view, clustering_accuracy, evaluate,
                          evaluate_runs, purity)
from rmsc.spectral import (
    affinity_from_coefficients,
    kmeans_runs,
    spectral_clustering,
    spectral_embedding,
)


def test_accuracy_hand_worked():
    y = [0, 0, 0, 1, 1, 2]
    # Clusters renamed: a perfect clustering.
    assert clustering_accuracy(y, [2, 2, 2, 0, 0, 1]) == 1.0
    # Best matching: cluster 5 -> class 0 (2 right), 7 -> class 1 (2 right), 9 -> class 2 (1 right).
    assert clustering_accuracy(y, [5, 5, 7, 7, 7, 9]) == pytest.approx(5 / 6)
    # Everything in one cluster: only the largest class can be matched.
    assert clustering_accuracy(y, [1] * 6) == pytest.approx(3 / 6)


def test_accuracy_split_uses_the_whole_labellings_matching():
    # clusters 7 -> class 0 (3 of 4 agree), 9 -> class 1 (3 of 4): ACC 6/8
    y = [0, 0, 0, 1, 1, 1, 1, 0]
    p = [7, 7, 7, 9, 9, 9, 7, 9]
    mask = [True, False, False, True, False, False, True, True]
    # in the mask: 0->7 right, 1->9 right, 1->7 wrong, 0->9 wrong: 2 of 4; the rest 4 of 4
    assert accuracy_split(y, p, mask) == (0.5, 1.0)
    # matched on the mask alone, its four would score 2 of 4 too, but a mask of the two
    # wrong ones scores 0 here (matched on its own it would score 1)
    two = [False] * 6 + [True, True]
    assert accuracy_split(y, p, two) == (0.0, 1.0)
    assert clustering_accuracy([1, 0], [7, 9]) == 1.0
    # the two parts, weighted by size, give the whole ACC; an empty part is NaN
    a, b = accuracy_split(y, p, mask)
    assert (4 * a + 4 * b) / 8 == clustering_accuracy(y, p)
    assert np.isnan(accuracy_split(y, p, [False] * 8)[0])
    with pytest.raises(ValueError, match="mask has 3 entries for 8 samples"):
        accuracy_split(y, p, [True] * 3)


def test_purity_hand_worked():
    y = [0, 0, 0, 1, 1, 2]
    assert purity(y, [1] * 6) == pytest.approx(3 / 6)
    assert purity(y, [0, 1, 2, 3, 4, 5]) == 1.0  # singletons are pure
    assert purity(y, [5, 5, 7, 7, 7, 9]) == pytest.approx((2 + 2 + 1) / 6)


def test_nmi_and_ari_hand_worked():
    y = [0, 0, 1, 1]
    perfect = evaluate(y, [1, 1, 0, 0])
    assert perfect == {"acc": 1.0, "nmi": pytest.approx(1.0), "ari": pytest.approx(1.0), "purity": 1.0}
    # Independent labelling: I(Y;C) = 0 for a balanced 2x2 split.
    ind = evaluate(y, [0, 1, 0, 1])
    assert ind["nmi"] == pytest.approx(0.0, abs=1e-12)
    assert ind["ari"] == pytest.approx(-0.5)  # (0 - 0.5 * 0.5 / 1... ) hand value for this table
    # Geometric NMI: y = [0,0,0,1], c = [0,0,1,1]; H(y)=0.8113, H(c)=1, I=0.3113 bits.
    h = lambda p: -sum(q * np.log(q) for q in p if q > 0)  # noqa: E731
    I = h([3 / 4, 1 / 4]) + h([1 / 2, 1 / 2]) - h([2 / 4, 1 / 4, 1 / 4])
    expected = I / np.sqrt(h([3 / 4, 1 / 4]) * h([1 / 2, 1 / 2]))
    assert evaluate([0, 0, 0, 1], [0, 0, 1, 1])["nmi"] == pytest.approx(expected)


def test_evaluate_runs_mean_and_std():
    y = [0, 0, 1, 1]
    out = evaluate_runs(y, [[0, 0, 1, 1], [0, 1, 1, 1]])
    assert out["acc_mean"] == pytest.approx((1.0 + 0.75) / 2)
    assert out["acc_std"] == pytest.approx(0.125)
    assert out["n_runs"] == 2


def test_evaluate_runs_scores_repeated_labellings_as_each_run_alone(monkeypatch):
    """Runs that repeat a labelling (k-means' restarts often agree) weigh as many times as
    they occur; a labelling equal up to the clusters' names is still scored on its own."""
    import rmsc.metrics as metrics

    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 40)
    rows = [rng.integers(0, 3, 40) for _ in range(3)]
    runs = np.array([rows[0], rows[1], rows[0], rows[2], (rows[0] + 1) % 3, rows[0]])
    out = evaluate_runs(y, runs)
    each = [evaluate(y, r) for r in runs]
    for name in ("acc", "nmi", "ari", "purity"):
        vals = np.array([e[name] for e in each])
        assert out[f"{name}_mean"] == vals.mean() and out[f"{name}_std"] == vals.std(), name
    assert out["n_runs"] == 6
    calls = []
    monkeypatch.setattr(metrics, "evaluate", lambda t, p: calls.append(p) or evaluate(t, p))
    assert metrics.evaluate_runs(y, runs) == out
    assert len(calls) == 4  # the four distinct labellings, each once
    # labels that are not integers: scored run by run, as before
    named = np.array(["a", "b", "c"])[runs]
    assert metrics.evaluate_runs(y, named) == out and len(calls) == 4 + 6


def test_best_view_uses_the_labels():
    y = np.array([0, 0, 1, 1])
    runs = np.array([[[0, 1, 0, 1]], [[1, 1, 0, 0]]])
    best, per_view = best_view(y, runs)
    assert best == 1 and per_view[1]["acc_mean"] == 1.0


def test_metric_input_errors():
    with pytest.raises(ValueError, match="same samples"):
        evaluate([0, 1], [0, 1, 1])


def test_affinity_paper_form_and_postprocessing():
    Z = np.array([[0.0, 2.0, -1.0], [0.5, 0.0, 0.0], [-4.0, 1.0, 0.0]])
    S = affinity_from_coefficients(Z)
    assert np.allclose(S, (np.abs(Z) + np.abs(Z).T) / 2)
    top1 = affinity_from_coefficients(Z, top_k=1)
    kept = np.array([[0, 2, 1], [0, 0, 0], [4, 0, 0]], dtype=float)  # largest |.| per column
    assert np.allclose(top1, (kept + kept.T) / 2)
    scaled = affinity_from_coefficients(Z, scale_columns=True)
    A = np.abs(Z) / np.abs(Z).max(axis=0)
    assert np.allclose(scaled, (A + A.T) / 2)
    # Sparse in, sparse out, same values.
    for kw in ({}, {"top_k": 1}, {"scale_columns": True}):
        Ss = affinity_from_coefficients(sp.csc_matrix(Z), **kw)
        assert sp.issparse(Ss)
        assert np.allclose(Ss.toarray(), affinity_from_coefficients(Z, **kw))


def test_keep_mass_hand_worked_columns():
    # Column 0, |c| = [0.5, 0.3, 0.1, 0.1] in rows 1-4 (l1 norm 1.0). With keep_mass=0.7 the
    # running sums, largest first, are 0.5 (< 0.7), then 0.8 (>= 0.7): the 0.5 and the -0.3
    # are kept (the 0.3 crosses 0.7 and is kept with it) and both 0.1s are dropped.
    # Column 2, |c| = [0.5, 0.25, 0.125, 0.125] in rows 1, 3, 0, 4 (binary fractions, so
    # every sum is exact): running sums 0.5, 0.75, 0.875, 1.0. Column 4: one coefficient.
    Z = np.zeros((5, 5))
    Z[1:, 0] = [0.5, -0.3, 0.1, 0.1]
    Z[[0, 1, 3, 4], 2] = [-0.125, 0.5, 0.25, 0.125]  # rows 0 and 4 tie at 0.125
    Z[0, 4] = 2.0

    def affinity_of(kept):
        K = np.zeros((5, 5))
        for (i, j), v in kept.items():
            K[i, j] = v
        return (K + K.T) / 2

    col0 = {(1, 0): 0.5, (2, 0): 0.3}
    col4 = {(0, 4): 2.0}
    # keep_mass=0.7: column 0 as above; column 2 reaches 0.7 at its second entry (0.75).
    want = affinity_of({**col0, (1, 2): 0.5, (3, 2): 0.25, **col4})
    assert np.array_equal(affinity_from_coefficients(Z, keep_mass=0.7), want)
    # keep_mass=0.75: column 2's second running sum equals 0.75 exactly; >= keeps it.
    assert np.array_equal(affinity_from_coefficients(Z, keep_mass=0.75), want)
    # keep_mass=0.5: the first entry alone reaches 0.5 in columns 0 and 2.
    want = affinity_of({(1, 0): 0.5, (1, 2): 0.5, **col4})
    assert np.array_equal(affinity_from_coefficients(Z, keep_mass=0.5), want)
    # keep_mass=0.8: column 0 still stops at 0.8; column 2 needs 0.875, i.e. one of the tied
    # 0.125s: the earlier row (0) is taken, row 4 dropped.
    want = affinity_of({**col0, (0, 2): 0.125, (1, 2): 0.5, (3, 2): 0.25, **col4})
    assert np.array_equal(affinity_from_coefficients(Z, keep_mass=0.8), want)
    # Then top_k and scale_columns act on what is left: top_k=1 leaves each column's
    # largest (0.5, 0.5, 2.0), which scaling turns into 1.
    want = affinity_of({(1, 0): 1.0, (1, 2): 1.0, (0, 4): 1.0})
    got = affinity_from_coefficients(Z, keep_mass=0.8, top_k=1, scale_columns=True)
    assert np.array_equal(got, want)
    # Scaling after thresholding: keep_mass=0.7 then colmax divides column 0 by 0.5.
    got = affinity_from_coefficients(Z, keep_mass=0.7, scale_columns=True)
    assert np.array_equal(got, affinity_of({(1, 0): 1.0, (2, 0): 0.6, (1, 2): 1.0,
                                            (3, 2): 0.5, (0, 4): 1.0}))


def _thrc_loop(Z, keep_mass):
    """Elhamifar & Vidal's thrC rule, one column and one coefficient at a time."""
    A = np.abs(np.asarray(Z, dtype=float))
    out = np.zeros_like(A)
    for j in range(A.shape[1]):
        rows = sorted(range(A.shape[0]), key=lambda i: -A[i, j])  # stable: ties in row order
        l1 = sum(A[i, j] for i in rows)
        running = 0.0
        for i in rows:
            if l1 == 0:
                break
            running += A[i, j]
            out[i, j] = A[i, j]
            if running >= keep_mass * l1:
                break
    return out


def _random_coefficients(rng, n, density, ties=False):
    Z = rng.standard_normal((n, n)) * (rng.uniform(size=(n, n)) < density)
    if ties:  # few distinct magnitudes: many ties, sums landing exactly on the threshold
        Z = np.round(Z * 4) / 4
    Z[:, rng.integers(n)] = 0.0  # an empty column
    np.fill_diagonal(Z, 0.0)
    return Z


@pytest.mark.parametrize("ties", [False, True])
def test_keep_mass_matches_a_per_column_loop_dense_and_sparse(ties):
    rng = np.random.default_rng(7)
    for n, density in ((6, 0.9), (30, 0.3), (80, 0.1), (80, 1.0)):
        Z = _random_coefficients(rng, n, density, ties)
        for keep_mass in (0.05, 0.3, 0.5, 0.7, 0.75, 0.9, 0.99):
            K = _thrc_loop(Z, keep_mass)
            expected = (K + K.T) / 2
            dense = affinity_from_coefficients(Z, keep_mass=keep_mass)
            assert np.array_equal(dense, expected), (n, density, keep_mass)
            for fmt in (sp.csc_matrix, sp.csr_matrix, sp.coo_matrix):
                sparse = affinity_from_coefficients(fmt(Z), keep_mass=keep_mass)
                assert sp.issparse(sparse)
                assert np.array_equal(sparse.toarray(), expected), (n, density, keep_mass, fmt)
                # Only kept coefficients are stored: the sparse result is as sparse as K.
                assert sparse.nnz == np.count_nonzero(expected)
            # Followed by top_k and scale_columns (top_k's argpartition breaks ties
            # differently for dense and sparse input, so only on data without ties).
            if not ties:
                both = dict(keep_mass=keep_mass, top_k=3, scale_columns=True)
                assert np.array_equal(
                    affinity_from_coefficients(sp.csc_matrix(Z), **both).toarray(),
                    affinity_from_coefficients(Z, **both))


def test_keep_mass_one_is_no_thresholding():
    rng = np.random.default_rng(3)
    Z = _random_coefficients(rng, 40, 0.4)
    for kw in ({}, {"top_k": 5}, {"scale_columns": True}):
        plain = affinity_from_coefficients(Z, **kw)
        assert np.array_equal(affinity_from_coefficients(Z, keep_mass=1, **kw), plain)
        assert np.array_equal(affinity_from_coefficients(Z, keep_mass=1.0, **kw), plain)
        Zs = sp.csc_matrix(Z)
        assert np.array_equal(affinity_from_coefficients(Zs, keep_mass=1.0, **kw).toarray(),
                              affinity_from_coefficients(Zs, **kw).toarray())
    # ... and anything below 1 removes coefficients from these dense columns.
    assert np.count_nonzero(affinity_from_coefficients(Z, keep_mass=0.9)) < \
        np.count_nonzero(affinity_from_coefficients(Z))


@pytest.mark.parametrize("bad", [0, 0.0, -0.2, 1.5, float("nan"), float("inf"), True, "0.7"])
def test_keep_mass_outside_zero_one_is_refused(bad):
    Z = np.array([[0.0, 1.0], [1.0, 0.0]])
    for M in (Z, sp.csc_matrix(Z)):
        with pytest.raises(ValueError, match=r"keep_mass must be a number in \(0, 1\]"):
            affinity_from_coefficients(M, keep_mass=bad)


def _block_affinity(sizes, seed=0, leak=0.01):
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    S = leak * rng.uniform(size=(n, n))
    start = 0
    for s in sizes:
        S[start:start + s, start:start + s] += rng.uniform(0.5, 1.0, size=(s, s))
        start += s
    S = (S + S.T) / 2
    np.fill_diagonal(S, 0)
    return S, np.repeat(np.arange(len(sizes)), sizes)


@pytest.mark.parametrize("n_per", [30, 250])  # dense eigensolver, then eigsh
def test_spectral_clustering_recovers_blocks(n_per):
    S, y = _block_affinity([n_per, n_per + 5, n_per - 5])
    runs, emb = spectral_clustering(sp.csr_matrix(S) if n_per > 100 else S, 3, random_state=0)
    assert emb.shape == (len(y), 3)
    assert np.allclose(np.linalg.norm(emb, axis=1), 1.0)
    assert clustering_accuracy(y, runs.labels) == 1.0
    assert runs.runs.shape == (20, len(y))


def test_eigenvalues_show_the_gap():
    S, _ = _block_affinity([40, 40, 40], leak=0.0)
    _, w = spectral_embedding(S, 3, return_eigenvalues=True)
    assert np.allclose(w[-3:], 1.0) and w[0] < 0.5  # three components: eigenvalue 1, three times


def test_kmeans_runs_is_seeded_and_picks_lowest_inertia():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.3, size=(30, 2)) for c in (0, 5, 10)])
    a = kmeans_runs(X, 3, n_runs=5, random_state=7)
    b = kmeans_runs(X, 3, n_runs=5, random_state=7)
    assert np.array_equal(a.runs, b.runs)
    assert np.array_equal(a.labels, a.runs[np.argmin(a.inertia)])


def test_isolated_samples_warn():
    S, _ = _block_affinity([10, 10], leak=0.0)
    S[0, :] = S[:, 0] = 0
    with pytest.warns(UserWarning, match="zero affinity"):
        emb = spectral_embedding(S, 2)
    assert np.all(emb[0] == 0)


def test_eigengap_of_disjoint_cliques_is_hand_worked():
    # Three disjoint 4-cliques (no self-loops): D^-1/2 S D^-1/2 has eigenvalue 1 three times
    # and -1/3 for the rest, so lambda_4 - lambda_3 of the Laplacian is (1 + 1/3) - 0.
    from rmsc.spectral import eigengap, spectral_embedding

    block = np.ones((4, 4)) - np.eye(4)
    S = sp.csr_matrix(sp.block_diag([block] * 3))
    _, w = spectral_embedding(S, 3, random_state=0, return_eigenvalues=True)
    assert eigengap(w, 3) == pytest.approx(4 / 3, abs=1e-8)
    assert eigengap([0.2, 0.9, 1.0, 1.0], 3) == pytest.approx(0.7)
    assert eigengap([0.9, 1.0], 3) == 0.0  # fewer than c + 1 eigenvalues
