"""The downloads without a browser (rmsc.dashboard.downloads): labels and configuration
round-trip and rebuild the estimator."""

import io
import json

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import rmsc
from rmsc import dashboard as dash


@pytest.fixture
def fitted(small):
    return dash.fit_rmsc(small, dash.Params(max_iter=5, beta=0.01, seed=2))


def test_downloads_round_trip(fitted, small):
    labels = pd.read_csv(io.StringIO(dash.labels_csv(fitted, small.labels)))
    assert labels.columns.tolist() == ["sample", "cluster", "class"]
    np.testing.assert_array_equal(labels["cluster"], fitted.labels)
    weights = pd.read_csv(io.StringIO(dash.weights_csv(fitted, small.view_names)))
    assert weights.columns.tolist() == ["sample", "A", "B"]
    np.testing.assert_allclose(weights[["A", "B"]].to_numpy().T, fitted.weights)
    S = sp.load_npz(io.BytesIO(dash.affinity_npz(fitted)))
    assert abs(S - fitted.affinity).max() == 0


def test_config_json_reproduces_the_estimator(fitted, small):
    spec = dash.OutlierSpec(views=("A",), fraction=0.1)
    cfg = json.loads(dash.config_json(fitted, small, spec))
    assert cfg["method"] == "RMSC" and cfg["dataset"]["fingerprint"] == small.fingerprint
    assert cfg["outliers"]["views"] == ["A"]
    est = rmsc.get_method(cfg["method"], **cfg["estimator_params"])
    ref = rmsc.get_method("RMSC", **dash.estimator_params(fitted.params, small))
    assert est.get_params() == ref.get_params()
    assert cfg["result"]["scores"]["acc_mean"] == fitted.scores["acc_mean"]
