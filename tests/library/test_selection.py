"""Label-free parameter suggestion: the graph criterion and rmsc.suggest_parameters."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import adjusted_rand_score

import rmsc
from rmsc.selection import GraphCriterion, graph_criterion, suggest_parameters


def _blocks(sizes, within=1.0, between=0.0, seed=0):
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    S = np.full((n, n), between)
    start = 0
    for s in sizes:
        S[start:start + s, start:start + s] = within
        start += s
    S = S * (0.5 + rng.random((n, n)))
    S = (S + S.T) / 2
    np.fill_diagonal(S, 0.0)
    return S


def test_eigengap_of_separated_blocks_is_large_and_of_mixed_blocks_small():
    sep = graph_criterion(sp.csr_matrix(_blocks([10, 12, 8])), 3)
    assert sep.pieces == 3 and sep.isolated == 0
    # c disconnected pieces: lambda_c = 0, lambda_{c+1} of a dense block is close to 1.
    assert sep.eigengap > 0.8
    mixed = graph_criterion(_blocks([10, 12, 8], between=0.9), 3)
    assert mixed.pieces == 1 and mixed.eigengap < 0.2
    # Asked for 2 clusters of 3 separated blocks: lambda_2 = lambda_3 = 0, no gap.
    assert graph_criterion(_blocks([10, 12, 8]), 2).eigengap == pytest.approx(0.0, abs=1e-8)


def test_eigengap_matches_the_laplacian_spectrum():
    S = _blocks([6, 7], between=0.2, seed=3)
    d = S.sum(axis=1)
    L = np.eye(len(d)) - S / np.sqrt(np.outer(d, d))
    ev = np.linalg.eigvalsh(L)
    assert graph_criterion(S, 2).eigengap == pytest.approx(ev[2] - ev[1], abs=1e-8)


def test_isolated_samples_and_excess_pieces_rank_below_a_connected_graph():
    S = _blocks([10, 10])
    S_iso = S.copy()
    S_iso[0, :] = S_iso[:, 0] = 0.0
    good, iso = graph_criterion(S, 2), graph_criterion(S_iso, 2)
    assert iso.isolated == 1 and iso.pieces == 3
    assert good.rank_key() < iso.rank_key()
    many = GraphCriterion(eigengap=0.99, isolated=0, pieces=5, n_clusters=2)
    assert good.rank_key() < many.rank_key()  # connectivity before the gap


def test_clustering_agreement_on_hand_worked_runs():
    from rmsc.selection import clustering_agreement

    labels = [0, 0, 1, 1]
    assert clustering_agreement(labels, [[1, 1, 0, 0], [0, 0, 1, 1]]) == 1.0  # same partition
    mixed = clustering_agreement(labels, [[0, 0, 1, 1], [0, 1, 0, 1]])
    assert mixed == pytest.approx((1.0 + adjusted_rand_score(labels, [0, 1, 0, 1])) / 2)
    assert mixed < 1.0
    key = GraphCriterion(0.1, 0, 2, 2, agreement=0.9).rank_key("agreement")
    assert key == (0, 0, -0.9)
    with pytest.raises(ValueError, match="criterion must be one of"):
        GraphCriterion(0.1, 0, 2, 2).rank_key("silhouette")


@pytest.mark.parametrize("criterion", ["eigengap", "agreement"])
def test_suggest_parameters_picks_the_best_connected_setting(subspaces, criterion):
    views, y = subspaces
    out = suggest_parameters(views, 3, lams=(0.3, 3.0), beta_rels=(0.25, 1.0), max_iter=10,
                             criterion=criterion)
    assert len(out.table) == 4
    ok = [r for r in out.table if "error" not in r]
    chosen = out.table[out.best]
    keys = [(r["isolated"], max(0, r["pieces"] - 3), -r[criterion]) for r in ok]
    assert (chosen["isolated"], max(0, chosen["pieces"] - 3), -chosen[criterion]) == min(keys)
    # each row's agreement is its fit's k-means runs' mean ARI with the run kept
    m0 = rmsc.RMSC(3, random_state=0, max_iter=10, lam=ok[0]["lam"],
                   beta_rel=ok[0]["beta_rel"]).fit(views)
    assert ok[0]["agreement"] == pytest.approx(
        np.mean([adjusted_rand_score(m0.labels_, r) for r in m0.label_runs_]))
    assert out.params == {"lam": chosen["lam"], "beta": "auto", "beta_rel": chosen["beta_rel"]}
    # The suggestion is an ordinary setting: refitting it gives the same model.
    m = rmsc.RMSC(3, random_state=0, max_iter=10, **out.params).fit(views)
    assert m.beta_ == pytest.approx(out.beta)
    assert np.array_equal(m.labels_, out.model.labels_)
    assert rmsc.evaluate(y, m.labels_)["acc"] >= 0.9


def test_suggest_parameters_says_when_nothing_works(subspaces):
    views, _ = subspaces
    with pytest.raises(rmsc.DegenerateSolutionError, match="None of the 1 settings"):
        suggest_parameters(views, 3, lams=(1.0,), beta_rels=(1e6,), max_iter=3)
