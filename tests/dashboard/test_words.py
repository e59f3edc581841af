"""The library's messages in the pages' words without a browser (rmsc.dashboard.words): β's
advice in the sliders' symbols, a failed fit, progress, the Data page's introduction."""

import numpy as np
import pytest

import rmsc
from rmsc import dashboard as dash
from tests.support import union_of_subspaces

#: What a page must never show: the estimator's argument and attribute spellings.
CODE_WORDS = ("beta=", "lam=", "beta_rel=", "beta_max_", "beta='auto'", "n_clusters", "beta ",
              " lam ")


def test_page_words_turn_the_advice_of_a_failed_beta_into_the_sliders_symbols():
    # both branches of the library's advice, from measured emptying betas
    column_betas = np.linspace(0.01, 1.0, 100)
    for beta in (0.5, 0.02):
        text, suggested = rmsc.rmsc.beta_advice(1.0, beta, column_betas, 0.25, 0.8227)
        assert "beta_max_" in text and f"beta={beta:.4g}" in text  # the library's own words
        page = dash.page_words(text)
        assert not [w for w in CODE_WORDS if w in page], page
        assert f"Measured on these data with λ = 1: at β = {beta:.4g}, " in page
        assert "and β ≥ 0.8227 empties Z*." in page and "β ≤ " in page
        assert f"Try β = {suggested:.3g}" in page
    assert "(β = auto with β_rel = 0.25)" in dash.page_words(
        rmsc.rmsc.beta_advice(1.0, 0.5, column_betas, 0.25)[0])
    assert "Here β = auto (β_rel = 0.25) would not be below the failed β, so step down" in dash.page_words(
        rmsc.rmsc.beta_advice(1.0, 0.001, column_betas, 0.25)[0])


def test_a_failed_fit_says_it_in_the_pages_words(small):
    with pytest.raises(rmsc.DegenerateSolutionError) as raised:
        rmsc.RMSC(n_clusters=3, beta=1000.0).fit(small.views)
    assert str(raised.value).startswith("beta=1000 is so large")  # the library keeps its own
    out = dash.fit_rmsc(small, dash.Params(beta=1000.0))
    assert isinstance(out, dash.FitFailure)
    assert out.message.startswith("β = 1000 is so large that the consensus Z* is all zero")
    assert not [w for w in CODE_WORDS if w in out.message], out.message


def test_progress_and_plain_words_are_left_as_people_read_them(small):
    messages = []
    rmsc.experiments.sensitivity_grid(small, [0.2], [0.02], progress=lambda d, t, m:
                                      messages.append(m))
    assert messages[0] == "small: RMSC lam=0.2, beta=0.02"  # the library's progress ...
    assert dash.page_words(messages[0]) == "small: RMSC λ = 0.2, β = 0.02"  # ... on a page
    assert dash.page_words("n_clusters=11 exceeds the number of samples (10). n_clusters must "
                           "be at least 2. Lower beta or raise lam.") == (
        "c = 11 exceeds the number of samples (10). The number of clusters c must be at least "
        "2. Lower β or raise λ.")
    # words that merely contain a name, and everything else, stay
    for text in ("lambda and beta_scale_ stay", "iteration 3 of at most 30", "betas", ""):
        assert dash.page_words(text) == text
    assert dash.page_words(None) is None


def test_the_data_pages_introduction_is_written_from_the_data(small):
    text = dash.data_intro(small)
    assert "**small** has 45 samples, each seen through 2 views: A and B. They belong to " \
           "3 classes." in text
    assert "coloured by class" in text and "Digit" not in text
    many = small.replace(views=small.views * 5, view_names=[f"v{k}" for k in range(10)])
    assert "10 views: v0 to v9." in dash.data_intro(many)
    bare = small.replace(labels=None)
    assert "This dataset has no labels." in dash.data_intro(bare)
    assert "coloured by class" not in dash.data_intro(bare)
    assert "Load one below" in dash.data_intro(None)


@pytest.mark.parametrize("weighting", ["sample", "view"])
def test_the_view_balance_sentence_says_what_the_fit_did(weighting):
    """balance_constrains (the sentence's and the Weights page's "no cap") agrees with the
    fitted weights: constrained models give every view's weights the sum n under RMSC, and
    RMSC-WV ignores them (its weights are those of view_balance=None)."""
    views, _ = union_of_subspaces(n_per=10, n_clusters=3, dims=(3, 12), seed=0)
    n = views[0].shape[0]

    def fit(view_balance):
        return rmsc.RMSC(3, weighting=weighting, view_balance=view_balance, max_iter=5,
                         random_state=0).fit(views)

    plain = np.asarray(fit(None).weights_)
    for value in rmsc.solver.VIEW_BALANCES:
        est = fit(value)
        P = np.asarray(est.weights_)
        sentence = dash.view_balance_sentence(value, weighting)
        assert f"**{dash.view_balance_name(value)}**" in sentence
        assert dash.view_balance_words(value) in sentence
        if dash.balance_constrains(value, weighting):
            # the sums the library holds fixed (n, or n / c_v for "consensus"), not the
            # unconstrained fit's; under two levels the weights within each view (the
            # stored weight over the view's weight q_v)
            if value == "two_level":
                P = P / np.asarray(est.view_weights_)[:, None]
            target = rmsc.solver.balance_targets(value, len(views), n, est.view_factors_)
            np.testing.assert_allclose(P.sum(axis=1), target, rtol=1e-8)
            assert not np.allclose(plain.sum(axis=1), target)
        if weighting == "view" and dash.balance_constrains(value):
            np.testing.assert_allclose(P, plain)  # ignored, and the sentence says so
            assert "the fit ignores it" in sentence
        else:
            assert "ignores" not in sentence
    assert dash.balance_constrains("balanced") and not dash.balance_constrains(None)


def test_the_at_the_cap_sentence_follows_the_model():
    """The Weights page's "at the cap" sentence: γ's cap for the paper's P-step, no cap
    under the balanced models, only the view's weight capped under two levels (a two-level
    fit's view weights q_v stay at most 1/√γ while its stored weights q·p may exceed it)."""
    assert "at most γ = 0.01" in dash.at_cap_words(None, "sample", 0.01)
    assert "caps no weight" in dash.at_cap_words("balanced", "sample", 0.01)
    assert "view's weight has a cap" in dash.at_cap_words("two_level", "sample", 0.01)
    assert "at most γ = 0.01" in dash.at_cap_words("balanced", "view", 0.01)  # ignored there
    views, _ = union_of_subspaces(n_per=10, n_clusters=3, dims=(3, 12), seed=0)
    est = rmsc.RMSC(3, view_balance="two_level", max_iter=5, random_state=0).fit(views)
    q = np.asarray(est.view_weights_)
    assert np.all(q <= 1 / np.sqrt(est.gamma) + 1e-12)


def test_the_outlier_tables_columns_have_readable_headings():
    # every number column rmsc.outliers.evaluate returns gets a heading and a tooltip, so a
    # renamed column in the library is not left as a raw name on the pages
    from rmsc import outliers

    mask = np.zeros((2, 6), bool)
    mask[0, :2] = True
    scores = np.array([[0.9, 0.8, 0.1, 0.2, 0.3, 0.1], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]])
    table = outliers.evaluate(scores, mask, view_names=["A", "B"])
    assert set(table.columns) - {"view"} == set(dash.OUTLIER_COLUMNS)
    assert table.loc[0, "roc_auc"] == 1.0  # the two corrupted samples score highest
    for label, why in dash.OUTLIER_COLUMNS.values():
        assert "_" not in label and why


def test_a_sliders_label_says_when_its_evenly_spaced_stops_hold_uneven_values():
    # the lesson's β_rel: 0.05, 0.25, 1 sit at equal distances on the track
    assert dash.stops_label("β_rel", [0.05, 0.25, 1.0]) == (
        "β_rel: 3 stops, 0.05 → 0.25 → 1 (evenly spaced stops, values not: ×5, then ×4)")
    assert dash.stops_label("λ", [0.1, 1, 10, 100]) == (
        "λ: 4 stops, 0.1 → 1 → 10 → 100 (evenly spaced stops; each value ×10 the one before)")
    assert dash.stops_label("λ", [1, 2, 3]) == "λ: 3 stops, 1 → 2 → 3 (evenly spaced)"
    assert dash.stops_label("β", [0, 0.1, 1]) == (
        "β: 3 stops, 0 → 0.1 → 1 (evenly spaced stops, values not)")
    assert dash.stops_label("β", [0.1, 1]) == "β: 2 stops, 0.1 → 1"
