"""The downloads without a browser (rmsc.dashboard.downloads): labels and configuration
round-trip and rebuild the estimator; a download that finds its stored result damaged says
so, and the result becomes a miss."""

import io
import json
import logging

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import rmsc
from rmsc import dashboard as dash
from rmsc._deferred import unread
from rmsc.dashboard import store

from tests.support import damage_file


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


def test_a_download_that_finds_its_stored_result_damaged_says_so(fitted, small, tmp_path,
                                                                 monkeypatch, caplog):
    monkeypatch.setattr(store, "LAZY_BYTES", 1024)  # the affinity is read when touched
    disk = store.DiskStore(tmp_path / "results", cap=1 << 30, types=dash.RESULT_TYPES)
    assert disk.put(fitted.key, fitted)
    cache = dash.ResultCache(4, 1 << 30, disk=disk)
    back = cache.get(fitted.key)  # as a restarted server reads it: the affinity unread
    assert "affinity" in unread(back)
    damage_file(disk.path(fitted.key), "flipped", fitted.affinity.data.tobytes())
    guard, reruns = dash.DownloadGuard(), []
    made = {label: guard.maker(label, make, after=lambda: reruns.append(1)) for label, make in
            [("labels (CSV)", lambda: dash.labels_csv(back, small.labels)),
             ("affinity (.npz)", lambda: dash.affinity_npz(back))]}
    # a file made of what was read is made as before
    assert made["labels (CSV)"]() == dash.labels_csv(fitted, small.labels)
    assert reruns == [] and guard.take() == []
    # the affinity's file is damaged: a clear error (not the store's), the page asked to run
    # again, the failure kept for it once, and the result a miss (fitted again)
    with caplog.at_level(logging.WARNING, logger="rmsc.dashboard"):
        with pytest.raises(dash.DownloadFailed, match=r"affinity \(\.npz\): .*damaged"):
            made["affinity (.npz)"]()
    assert any("discarded the cached result" in r.getMessage() for r in caplog.records)
    assert reruns == [1] and guard.take() == ["affinity (.npz)"] and guard.take() == []
    assert fitted.key not in cache and cache.get(fitted.key) is None
    assert not disk.path(fitted.key).exists()
    assert back.density == fitted.density  # what was read stays usable
    with pytest.raises(dash.DownloadFailed):  # clicked again: the same, said once
        made["affinity (.npz)"]()
    assert guard.take() == ["affinity (.npz)"]
    # what the page says: what happened and what to do, with and without the automatic run
    said = dash.damaged_download_message("affinity (.npz)", autorun=True)
    assert "affinity (.npz)" in said and "damaged" in said and "fits these settings again" in said
    assert "Press **Run**" in dash.damaged_download_message("affinity (.npz)", autorun=False)


def test_a_page_says_which_stored_result_was_damaged_and_what_follows():
    current = dash.damaged_result_message("current", autorun=True)
    assert "result of these settings" in current and "damaged" in current
    assert "fits these settings again now" in current
    assert "Press **Run**" in dash.damaged_result_message("current", autorun=False)
    previous = dash.damaged_result_message("previous")
    assert "previous result" in previous and "current settings goes on" in previous
    clean = dash.damaged_result_message("clean", autorun=False)
    assert "clean data" in clean and "button below" in clean and "Press" not in clean
    with pytest.raises(KeyError):
        dash.damaged_result_message("other")
