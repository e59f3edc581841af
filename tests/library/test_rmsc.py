"""The RMSC estimator: API conventions, behaviour on structured data, and bad input."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

import rmsc
from rmsc import RMSC, DegenerateSolutionError
from tests.support import union_of_subspaces


def test_recovers_union_of_subspaces(subspaces):
    views, y = subspaces
    m = RMSC(3, lam=1.0, beta=0.02, random_state=0).fit(views)
    assert rmsc.evaluate(y, m.labels_)["acc"] >= 0.95
    n = len(y)
    assert m.weights_.shape == (2, n)
    assert m.consensus_.shape == (n, n) and sp.issparse(m.consensus_)
    assert np.all(m.consensus_.diagonal() == 0)
    assert m.label_runs_.shape == (20, n)
    assert m.embedding_.shape == (n, 3)
    assert m.objective_.shape == (m.n_iter_,)
    assert np.all(np.diff(np.concatenate([[m.objective_init_], m.objective_])) <= 1e-9)
    # The default affinity divides each column of |Z*| by its maximum, then symmetrises.
    S = m.affinity_matrix_.toarray()
    A = abs(m.consensus_).toarray()
    A = A / A.max(axis=0)[None, :]
    assert np.allclose(S, S.T) and np.allclose(S, (A + A.T) / 2)
    # scale_columns=False is the paper's (|Z*| + |Z*^T|)/2.
    p = RMSC(3, lam=1.0, beta=0.02, scale_columns=False, random_state=0).fit(views)
    assert np.allclose(p.affinity_matrix_.toarray(),
                       (abs(p.consensus_) + abs(p.consensus_.T)).toarray() / 2)


def test_keep_mass_thresholds_the_consensus_before_the_affinity(subspaces):
    from rmsc.spectral import affinity_from_coefficients

    views, _ = subspaces
    plain = RMSC(3, lam=1.0, beta=0.02, random_state=0).fit(views)
    m = RMSC(3, lam=1.0, beta=0.02, keep_mass=0.7, random_state=0).fit(views)
    # The solve is the same; only the affinity built from Z* changes, as the function says
    # (after keep_mass, the default colmax scaling).
    assert (m.consensus_ != plain.consensus_).nnz == 0
    want = affinity_from_coefficients(m.consensus_, keep_mass=0.7, scale_columns=True)
    assert sp.issparse(m.affinity_matrix_)
    assert np.array_equal(m.affinity_matrix_.toarray(), want.toarray())
    assert m.affinity_matrix_.nnz < plain.affinity_matrix_.nnz
    # RMSC-WV (the registry's RMSC with weighting="view") takes it the same way.
    wv = rmsc.get_method("RMSC-WV", n_clusters=3, lam=1.0, beta=0.002, keep_mass=0.5,
                         scale_columns=False, random_state=0).fit(views)
    assert wv.keep_mass == 0.5 and wv.weighting == "view"
    assert np.array_equal(wv.affinity_matrix_.toarray(),
                          affinity_from_coefficients(wv.consensus_, keep_mass=0.5).toarray())


def test_view_weighting_gives_one_weight_per_view(subspaces):
    views, y = subspaces
    m = RMSC(3, lam=1.0, beta=0.002, weighting="view", random_state=0).fit(views)
    assert np.allclose(m.weights_, m.weights_[:, :1])
    assert np.allclose(m.view_weights_, m.weights_[:, 0])


def test_noisy_view_sample_gets_lower_weight():
    views, y = union_of_subspaces(n_per=25, seed=3)
    rng = np.random.default_rng(0)
    bad = np.arange(0, 75, 7)
    views[1][bad] = rng.standard_normal((bad.size, views[1].shape[1])) * np.abs(views[1]).max()
    m = RMSC(3, lam=1.0, beta=0.02, random_state=0).fit(views)
    good = np.setdiff1d(np.arange(75), bad)
    assert m.weights_[1, bad].mean() < 0.5 * m.weights_[1, good].mean()
    # The clean view does not single those samples out.
    assert m.weights_[0, bad].mean() > 0.5 * m.weights_[0, good].mean()


def test_sklearn_conventions(subspaces):
    views, _ = subspaces
    est = RMSC(3, lam=2.0, beta=0.01, random_state=1)
    c = clone(est)
    assert c.get_params() == est.get_params()
    c.set_params(beta=0.05, weighting="view")
    assert c.beta == 0.05 and est.beta == 0.01
    assert not hasattr(est, "labels_")
    assert est.fit(views) is est
    assert np.array_equal(clone(est).fit_predict(views), est.labels_)  # deterministic seed


def test_sparse_and_dense_input_agree(subspaces):
    views, _ = subspaces
    a = RMSC(3, lam=1.0, beta=0.02, random_state=0, max_iter=5, tol=0).fit(views)
    b = RMSC(3, lam=1.0, beta=0.02, random_state=0, max_iter=5, tol=0).fit(
        [sp.csr_matrix(views[0]), views[1]])
    assert np.allclose(a.consensus_.toarray(), b.consensus_.toarray(), atol=1e-10)


def test_callback_streams_and_stops(subspaces):
    views, _ = subspaces
    calls = []
    m = RMSC(3, lam=1.0, beta=0.02, max_iter=20, tol=0,
             callback=lambda it, f, P: calls.append(it) or it >= 2).fit(views)
    assert calls == [1, 2] and m.n_iter_ == 2


def test_normalization_is_the_papers_and_warns_on_zero_samples(subspaces):
    views, _ = subspaces
    scaled = [10.0 * views[0], views[1]]
    a = RMSC(3, random_state=0, max_iter=3, tol=0).fit(views)
    b = RMSC(3, random_state=0, max_iter=3, tol=0).fit(scaled)
    assert np.allclose(a.consensus_.toarray(), b.consensus_.toarray())
    views0 = [views[0].copy(), views[1]]
    views0[0][4] = 0
    with pytest.warns(UserWarning, match="all zero"):
        RMSC(3, random_state=0, max_iter=2).fit(views0)


@pytest.mark.parametrize(
    "Xs, params, message",
    [
        ([], {}, "empty list"),
        ([np.ones((5, 2)), np.ones((6, 2))], {}, "different numbers of samples"),
        ([np.array([[1.0, np.nan], [1, 2], [3, 4]])], {}, "NaN or infinite.*sample"),
        ([np.ones((5, 0))], {}, "empty"),
        ([np.ones((1, 3))], {"n_clusters": 2}, "at least 2"),
        ([np.eye(4)], {"n_clusters": 1}, "at least 2"),
        ([np.eye(4)], {"n_clusters": 5}, "exceeds the number of samples"),
        ([np.eye(4)], {"n_clusters": 2, "lam": -1}, "lam must be a finite non-negative"),
        ([np.eye(4)], {"n_clusters": 2, "beta": -1}, "beta must be"),
        ([np.eye(4)], {"n_clusters": 2, "gamma": -1}, "gamma must be"),
        ([np.ones((6, 2))], {"n_clusters": 2, "lam": 0}, "singular"),
        ([np.eye(4)], {"n_clusters": 2, "weighting": "both"}, "weighting must be"),
        ([np.eye(4)], {"n_clusters": 2, "keep_mass": 0}, r"keep_mass must be .* \(0, 1\]"),
        ([np.eye(4)], {"n_clusters": 2, "keep_mass": 1.5}, r"keep_mass must be .* \(0, 1\]"),
        (np.eye(4), {"n_clusters": 2}, "not a single array"),
        ([np.array([["a", "b"], ["c", "d"]])], {"n_clusters": 2}, "not numeric"),
    ],
)
def test_bad_input_says_what_and_how(Xs, params, message):
    with pytest.raises(ValueError, match=message):
        RMSC(**params).fit(Xs)


def _advised(message):
    return float(message.split("Try beta=")[1].split(" ")[0])


def test_beta_too_large_is_explained_from_measurement(subspaces):
    views, _ = subspaces
    with pytest.raises(DegenerateSolutionError,
                       match=r"all zero.*Measured on these data.*beta >= ([0-9.e-]+) \(beta_max_\)"
                       ) as err:
        RMSC(3, lam=1.0, beta=1e6).fit(views)
    text = str(err.value)
    bound = float(text.split("beta >= ")[1].split(" ")[0])
    ref = RMSC(3, lam=1.0, random_state=0, max_iter=2).fit(views)
    assert bound == pytest.approx(ref.beta_max_, rel=1e-3)
    # The share and the 5 % value are the measured emptying betas'.
    assert "100% of the samples start with an empty column" in text
    q5 = float(text.split("beta <= ")[1].split(" ")[0])
    assert q5 == pytest.approx(np.quantile(ref.column_betas_, 0.05), rel=1e-3)
    # Just above the bound Z* is empty; the advised value is below the failed one and works.
    with pytest.raises(DegenerateSolutionError, match="all zero"):
        RMSC(3, lam=1.0, beta=1.01 * bound).fit(views)
    advised = _advised(text)
    assert advised < 1e6
    m = RMSC(3, lam=1.0, beta=advised, random_state=0).fit(views)
    assert np.count_nonzero(m.affinity_matrix_.getnnz(axis=1) == 0) == 0


def test_isolating_beta_gets_advice_below_it_that_links_the_samples(subspaces):
    views, y = subspaces
    ref = RMSC(3, lam=1.0, random_state=0, max_iter=2).fit(views)
    # most columns start empty (80 % of the samples): more than half end isolated
    failed = float(np.quantile(ref.column_betas_, 0.8))
    with pytest.raises(DegenerateSolutionError, match="no link to any other") as err:
        RMSC(3, lam=1.0, beta=failed, random_state=0).fit(views)
    text = str(err.value)
    share = np.mean(ref.column_betas_ <= failed)
    assert f"{share:.0%} of the samples start with an empty column" in text
    assert "max_iter" not in text  # beta, not the iterations, unlinks them
    advised = _advised(text)
    assert advised < failed
    m = RMSC(3, lam=1.0, beta=advised, random_state=0).fit(views)
    assert np.count_nonzero(m.affinity_matrix_.getnnz(axis=1) == 0) == 0
    assert rmsc.evaluate(y, m.labels_)["acc"] >= 0.9


def test_degenerate_message_counts_what_a_cut_short_fit_produced():
    # One iteration leaves most of Digit-small unlinked although the start's emptying betas
    # predict none at this beta (on Digit: "0 %" beside 1,883 of 2,000 isolated). The message
    # counts the fit's own Z* beside that share and asks for more iterations first, which
    # is what fixes it. The case occurs under the paper's model (the scaled default model
    # keeps every sample linked after one iteration at this beta).
    from rmsc.rmsc import PAPER_MODEL

    data = rmsc.datasets.load_bundled("Digit-small")
    est = RMSC(10, beta_rel=0.5, max_iter=1, random_state=0, **PAPER_MODEL)
    with pytest.raises(DegenerateSolutionError) as err:
        est.fit(data.views)
    text = str(err.value)
    Z = abs(est.consensus_)
    unlinked = int(np.count_nonzero((Z + Z.T).getnnz(axis=1) == 0))
    share = np.mean(est.column_betas_ <= est.beta_)
    assert unlinked > 150 > 300 * share  # the case: the fit, not the start, unlinks them
    assert f"{share:.0%} of the samples start with an empty column of Z* (this fit ended " \
           f"with {unlinked:,} of 300 samples unlinked)" in text
    assert "stopped at max_iter=1 (1 iteration) before converging" in text
    assert f"raise max_iter (the default is {rmsc.solver.MAX_ITER}) first" in text
    assert "If it still fails after more iterations, " in text
    RMSC(10, beta_rel=0.5, random_state=0, **PAPER_MODEL).fit(data.views)  # the advice works


def test_the_cut_short_advice_only_when_the_iterations_are_behind():
    from rmsc.rmsc import beta_advice

    cb = np.linspace(1.0, 2.0, 100)
    # stopped by a request (the dashboard's Stop) with more unlinked than predicted
    text, _ = beta_advice(1.0, 0.5, cb, fit=(80, 3, False, 30))
    assert text.startswith("This fit was stopped after 3 iterations, before converging")
    assert "(this fit ended with 80 of 100 samples unlinked)" in text
    # cut short, but beta itself unlinks them: no talk of iterations
    text, advised = beta_advice(1.0, 1.9, cb, fit=(80, 30, False, 30))
    assert "max_iter" not in text and text.startswith("Measured on these data")
    assert f"Try beta={advised:.3g}" in text
    # converged
    text, _ = beta_advice(1.0, 0.5, cb, fit=(80, 12, True, 30))
    assert text.startswith("Measured on these data") and "80 of 100" in text


def test_advice_never_names_the_failed_beta():
    from rmsc.rmsc import beta_advice

    column_betas = np.linspace(1.0, 2.0, 101)
    auto = 0.5 * rmsc.rmsc.beta_scale(column_betas)
    for failed in (10.0, 1.5, 0.6, 0.5, 0.1, auto, 1.01 * auto):
        text, advised = beta_advice(1.0, failed, column_betas, beta_rel=0.5)
        assert advised < failed and f"beta={advised:.3g}" in text
    # A failed beta at or below the auto value: a step down, said to be one.
    text, advised = beta_advice(1.0, auto, column_betas, beta_rel=0.5)
    assert "step down" in text and advised == pytest.approx(auto / 3)
    text, _ = beta_advice(1.0, 1.25, column_betas, beta_rel=0.5)
    assert "at beta=1.25, 26% of the samples start with an empty column" in text


def test_lambda_defaults_to_the_weightings_own(subspaces):
    views, y = subspaces
    LAM = rmsc.rmsc.LAM
    assert LAM["view"] != LAM["sample"]
    wv = rmsc.get_method("RMSC-WV", n_clusters=3, random_state=0).fit(views)
    assert wv.lam is None and wv.lam_ == LAM["view"]
    # None is used, not only reported: the same fit as the explicit value, not as the other
    same = RMSC(3, weighting="view", lam=LAM["view"], random_state=0).fit(views)
    other = RMSC(3, weighting="view", lam=LAM["sample"], random_state=0).fit(views)
    assert np.array_equal(wv.objective_, same.objective_)
    assert not np.allclose(wv.objective_[-1], other.objective_[-1])
    assert RMSC(3, weighting="view", lam=0.5, random_state=0).fit(views).lam_ == 0.5


def test_beta_auto_reports_absolute_and_relative(subspaces):
    views, y = subspaces
    m = RMSC(3, random_state=0).fit(views)
    assert m.beta == "auto" and m.lam is None and m.lam_ == rmsc.rmsc.LAM["sample"]
    assert m.beta_rel_ == pytest.approx(rmsc.rmsc.BETA_REL["sample"])
    assert m.beta_scale_ == pytest.approx(np.quantile(m.column_betas_, rmsc.rmsc.BETA_QUANTILE))
    assert m.beta_ == pytest.approx(m.beta_rel_ * m.beta_scale_)
    assert m.beta_max_ == pytest.approx(m.column_betas_.max(), rel=1e-6) or \
        m.beta_max_ > m.column_betas_.max()
    # The absolute beta reproduces the fit exactly, and reports the same relative value.
    a = RMSC(3, beta=m.beta_, random_state=0).fit(views)
    assert a.beta_ == m.beta_ and a.beta_rel_ == pytest.approx(m.beta_rel_)
    assert (a.consensus_ != m.consensus_).nnz == 0
    # beta_rel scales it.
    h = RMSC(3, beta_rel=0.25, random_state=0).fit(views)
    assert h.beta_ == pytest.approx(0.25 * m.beta_scale_)
    with pytest.raises(ValueError, match="'auto'"):
        RMSC(3, beta="big").fit(views)


def test_beta_auto_follows_the_scale_of_the_data():
    # The same structure at 3x the samples: the useful absolute beta moves, the auto one
    # follows it (the unit is measured on the data).
    from rmsc.datasets import make_multiview_subspaces

    betas = []
    for per in (20, 60):
        d = make_multiview_subspaces(n_clusters=3, n_per_cluster=per, random_state=1)
        m = RMSC(3, random_state=0).fit(d.views)
        assert rmsc.evaluate_runs(d.labels, m.label_runs_)["acc_mean"] >= 0.95
        assert np.count_nonzero(m.affinity_matrix_.getnnz(axis=1) == 0) == 0
        betas.append(m.beta_)
    assert betas[0] != pytest.approx(betas[1], rel=0.05)


def test_gamma_zero_with_exactly_reconstructed_sample():
    # Every sample has an exact twin, and a negligible lam lets Z^v copy it: loss 0.
    # (With the paper's P-step for every weight: the default rule holds a repeated
    # sample's weight at its view's typical weight, tests/solver/test_uninformative.py.)
    X = np.repeat(np.eye(3), 2, axis=0)
    with pytest.raises(ValueError, match="gamma = 0 and sample 0 in view 0 is reconstructed exactly"):
        RMSC(3, lam=1e-300, beta=0.0, gamma=0.0, max_iter=3, uninformative=None).fit([X])
    # The same data with the paper's gamma is fine.
    RMSC(3, lam=1e-300, beta=0.0, gamma=1e-5, max_iter=3, random_state=0,
         uninformative=None).fit([X])
    # Every sample repeated: every weight held at the typical one, finite even at gamma = 0
    est = RMSC(3, lam=1e-300, beta=0.0, gamma=0.0, max_iter=3).fit([X])
    assert np.all(np.isfinite(est.weights_)) and np.all(est.weights_ == 1.0)


def test_get_method_knows_the_paper_names():
    assert set(["RMSC", "RMSC-WV", "SSC-BSV", "SSC-AVG"]) <= set(rmsc.available_methods())
    assert rmsc.get_method("RMSC-WV").weighting == "view"
    assert rmsc.get_method("rmsc", beta=0.3).beta == 0.3
    with pytest.raises(ValueError, match="Unknown method.*available methods"):
        rmsc.get_method("K-means")


@pytest.mark.slow
def test_digit_at_the_defaults():
    data = rmsc.datasets.load_digit()
    m = RMSC(10, random_state=0).fit(data.views)
    scores = rmsc.evaluate_runs(data.labels, m.label_runs_)
    # The defaults are chosen for the worst case over every dataset, not for Digit: here they
    # give 93.4 % / 89.1 % at their stop, 92.7 % / 90.0 % run on to 300 iterations
    # (docs/stability.md; the former defaults stopped at 30 iterations with 94.7 % / 90.3 %,
    # 86.3 % / 88.6 % run on).
    assert scores["acc_mean"] >= 0.93 and scores["nmi_mean"] >= 0.885
    assert m.n_iter_ < m.max_iter and m.converged_  # the rule stopped it, not the budget
    assert m.beta == "auto" and m.beta_ == pytest.approx(0.25 * m.beta_scale_)
    f = np.concatenate([[m.objective_init_], m.objective_])
    assert np.all(np.diff(f) <= 1e-9 * np.abs(f).max())
    # Weights: one per sample and view, all positive and finite.
    assert m.weights_.shape == (6, 2000) and np.all(np.isfinite(m.weights_)) and m.weights_.min() > 0


def test_fragmented_consensus_warns(subspaces):
    # On the paper's model with the former stopping rule, 0.8 beta_max leaves a consensus
    # in pieces (under the default scaled model it empties Z* instead: the error above).
    from rmsc.rmsc import FORMER_STOPPING, PAPER_MODEL

    views, _ = subspaces
    paper = {**PAPER_MODEL, **FORMER_STOPPING}
    beta_max = RMSC(3, beta=1e-3, random_state=0, max_iter=2, **PAPER_MODEL).fit(views).beta_max_
    with pytest.warns(UserWarning, match="disconnected pieces.*smaller beta"):
        RMSC(3, beta=0.8 * beta_max, random_state=0, **paper).fit(views)


def test_memory_guard_refuses_before_allocating(subspaces, monkeypatch):
    views, _ = subspaces
    monkeypatch.setenv("RMSC_MEMORY_BUDGET", "20K")  # 60 samples x 20 factor rows x 8 x 8 B = 75 KB
    with pytest.raises(ValueError, match=r"RMSC on 60 samples.*only 20\.0 KB.*Subsample.*PCA"):
        RMSC(3).fit(views)
    wide = np.random.default_rng(0).standard_normal((60, 500))
    monkeypatch.setenv("RMSC_MEMORY_BUDGET", "50K")  # 3 x 60 x 60 x 8 B = 84 KB
    with pytest.raises(ValueError, match=r"Gram matrix of a view with 500 features > 60 samples"):
        rmsc.solver.gram_factor(wide)


def test_view_representations_from_the_fitted_model(subspaces):
    from rmsc.preprocessing import normalize_l2
    views, _ = subspaces
    m = RMSC(3, lam=0.5, random_state=0).fit(views)
    Zs = m.view_representations(views)
    assert len(Zs) == 2 and Zs[0].shape == (60, 60)
    # Each column solves the Z^v-step for the fitted consensus (brute force, a few columns).
    Zstar = m.consensus_.toarray()
    for X, Z in zip(views, Zs):
        Xv = normalize_l2(X).T
        for j in (0, 17, 59):
            keep = np.arange(60) != j
            A = Xv[:, keep]
            z = np.linalg.solve(A.T @ A + 0.5 * np.eye(59), A.T @ Xv[:, j] + 0.5 * Zstar[keep, j])
            assert np.allclose(Z[keep, j], z, atol=1e-9) and Z[j, j] == 0
    with pytest.raises(ValueError, match="fitted on 2 views of 60 samples"):
        m.view_representations(views[:1])
    # the gaps, without forming Z^v, are the formed ones' distances to Z*, relative to Z*
    size = np.linalg.norm(Zstar)
    assert m.consensus_gaps(views) == pytest.approx(
        [np.linalg.norm(Z - Zstar) / size for Z in Zs], rel=1e-8)
    assert m.consensus_gaps(views, which=[1]) == pytest.approx([m.consensus_gaps(views)[1]])
    # an empty Z* (a beta that thresholds every entry) has no size to measure against
    m.consensus_ = sp.csr_matrix(m.consensus_.shape)
    assert m.consensus_gaps(views) == [None, None]
