"""The dashboard's results on disk (rmsc.dashboard.store): every result kind round-trips, the
key follows every parameter, the data and the code version, the folder stays under its cap,
and a damaged or foreign file is discarded with a log line, never loaded."""

import dataclasses
import json
import logging
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import rmsc
from rmsc import dashboard as dash
from rmsc import datasets
from rmsc._deferred import unread
from rmsc.dashboard import store

from tests.support import damage_file

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def subspaces_data():
    return datasets.load_bundled("Subspaces")


@pytest.fixture(scope="module")
def fitted(subspaces_data):
    return dash.fit_rmsc(subspaces_data, dash.Params(beta=0.01))


@pytest.fixture
def disk(tmp_path):
    return store.DiskStore(tmp_path / "results", cap=1 << 30, types=dash.RESULT_TYPES)


def assert_same_fit(a, b):
    assert type(a) is type(b) and a.key == b.key and a.params == b.params
    for name in ("labels", "label_runs", "weights", "embedding", "objective", "changes"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        assert getattr(a, name).dtype == getattr(b, name).dtype
    for name in ("consensus", "affinity"):
        x, y = getattr(a, name), getattr(b, name)
        assert type(x) is type(y) and x.shape == y.shape and (x != y).nnz == 0
    assert a.terms.keys() == b.terms.keys()
    for k in a.terms:
        np.testing.assert_array_equal(a.terms[k], b.terms[k])
    for name in ("n_iter", "converged", "beta", "beta_max", "scores", "chosen_scores",
                 "diagnostics", "trace", "device", "stop_on", "fit_time"):
        assert getattr(a, name) == getattr(b, name), name
    # the fitted estimator the Weights / Affinity pages read
    assert type(a.model) is type(b.model)
    assert a.model.get_params() == b.model.get_params()
    np.testing.assert_array_equal(a.model.view_factors_, b.model.view_factors_)
    np.testing.assert_array_equal(a.placed, b.placed)


def test_a_fit_round_trips_and_its_arrays_are_stored_once(disk, fitted):
    assert disk.put(fitted.key, fitted)
    back = disk.get(fitted.key)
    assert_same_fit(fitted, back)
    # what the result and its estimator both hold (labels, consensus, affinity...) is
    # stored once: no two arrays in the file are equal, and the file's arrays are no more
    # than the result's memory with each shared buffer counted once (dash.nbytes); the
    # consensus stored a second time would exceed it by its own size
    with np.load(disk.path(fitted.key), allow_pickle=False) as z:
        stored = [z[name] for name in z.files if name != "__header__"]
    contents = {(a.dtype.str, a.shape, a.tobytes()) for a in stored}
    assert len(contents) == len(stored)
    assert sum(a.nbytes for a in stored) <= dash.nbytes(fitted)
    if sp.issparse(back.model.consensus_):  # one array in memory after loading, too
        assert np.shares_memory(back.consensus.data, back.model.consensus_.data)
    # the pages' computations work on it as on the fresh one
    data = datasets.load_bundled("Subspaces")
    assert dash.weight_shares(back, data) == dash.weight_shares(fitted, data)


def test_a_failure_round_trips(disk, fitted):
    failure = dash.FitFailure(key=fitted.key, params=fitted.params, message="β too large",
                              degenerate=True, beta_max=2.5)
    disk.put(failure.key, failure)
    assert disk.get(failure.key) == failure


def test_compare_sensitivity_and_suggestion_results_round_trip(disk, subspaces_data):
    compare = dash.run_compare({"clean": subspaces_data}, ["SC-BSV", "SSC-AVG"])
    sens = dash.run_sensitivity(subspaces_data, [1.0], [0.01, 0.02])
    suggestion = dash.run_suggestion(subspaces_data, dash.Params(), lams=(1.0,),
                                     beta_rels=(0.25,))
    for key, value in ((("compare", 1), compare), (("sens", 2), sens),
                       (("suggest", 3), suggestion)):
        assert disk.put(key, value), key
        back = disk.get(key)
        if isinstance(value, dict):
            assert back.keys() == value.keys()
            for name in value:
                pd.testing.assert_frame_equal(back[name], value[name])
        elif isinstance(value, pd.DataFrame):
            pd.testing.assert_frame_equal(back, value)
        else:
            assert back == value
    assert any(isinstance(p, dict) for p in compare["clean"]["params"])  # objects kept


def test_the_key_follows_every_parameter_the_data_and_the_code(tmp_path, fitted):
    data = datasets.load_bundled("Subspaces")
    base = dash.Params(beta=0.01)
    # every field of the Solve page's parameters, each changed in a way the fit depends on
    # (top_k and keep_mass count only under the post-processing that uses them)
    changed = {"lam": {"lam": 0.5}, "beta": {"beta": 0.02}, "gamma": {"gamma": 0.02},
               "weighting": {"weighting": "view"}, "max_iter": {"max_iter": 50},
               "tol": {"tol": 1e-4}, "post": {"post": "rho+scale"},
               "top_k": {"post": "top_k", "top_k": 5}, "keep_mass": {"post": "rho+scale",
                                                                    "keep_mass": 0.5},
               "placement": {"placement": not base.placement}, "n_clusters": {"n_clusters": 4},
               "seed": {"seed": 1}, "beta_rel": {"beta": "auto", "beta_rel": 0.5},
               "view_balance": {"view_balance": "balanced"},
               "loss_scale": {"loss_scale": None}, "uninformative": {"uninformative": None}}
    assert set(changed) == {f.name for f in dataclasses.fields(dash.Params)}
    disk = store.DiskStore(tmp_path / "a", types=dash.RESULT_TYPES, version="1+aaa")
    paths = {disk.path(dash.fit_key(base, data)),
             disk.path(dash.fit_key(dash.Params(beta="auto"), data)),
             disk.path(dash.fit_key(dataclasses.replace(base, post="top_k"), data))}
    assert len(paths) == 3
    for name, change in changed.items():
        key = dash.fit_key(dataclasses.replace(base, **change), data)
        assert disk.path(key) not in paths, name
        paths.add(disk.path(key))
    views = [v.copy() for v in data.views]
    views[0][0, 0] += 1.0  # one number of the data changed
    other = dataclasses.replace(data, views=tuple(views))
    other.__dict__.pop("_fingerprint", None)
    assert other.fingerprint != data.fingerprint
    assert disk.path(dash.fit_key(base, other)) not in paths
    # another version of the code: another file, and nothing served from the first
    disk.put(fitted.key, fitted)
    newer = store.DiskStore(tmp_path / "a", types=dash.RESULT_TYPES, version="1+bbb")
    assert newer.path(fitted.key) != disk.path(fitted.key)
    assert fitted.key not in newer and newer.get(fitted.key) is None
    assert disk.get(fitted.key) is not None
    # the default version digests the library's source
    assert store.code_version().startswith(rmsc.__version__ + "+")


def test_the_folder_stays_under_its_cap_least_recently_used_first(tmp_path):
    disk = store.DiskStore(tmp_path / "c", cap=1 << 30)
    values = {("k", i): np.full(25_000, i, dtype=np.float64) for i in range(4)}  # 200 kB each
    for t, (key, value) in enumerate(values.items()):
        disk.put(key, value)
        os.utime(disk.path(key), (1000 + t, 1000 + t))
    one = os.path.getsize(disk.path(("k", 0)))
    assert disk.get(("k", 0)) is not None  # used now: the most recent
    disk.cap = int(2.5 * one)
    disk.put(("k", 4), np.zeros(25_000))
    assert disk.total_bytes <= disk.cap
    kept = {key for key in [*values, ("k", 4)] if key in disk}
    assert kept == {("k", 0), ("k", 4)}
    # a value larger than the cap is not written at all
    assert not disk.put(("big",), np.zeros(200_000))
    assert ("big",) not in disk and disk.total_bytes <= disk.cap


# ---------------------------------------------------------------------------------------
# Large arrays read when touched
# ---------------------------------------------------------------------------------------

@pytest.fixture
def reads(monkeypatch):
    """The names of the arrays read from entry files, in order (every read goes through
    NumPy's npz reader)."""
    names = []
    real = np.lib.npyio.NpzFile.__getitem__

    def spy(self, key):
        names.append(key)
        return real(self, key)

    monkeypatch.setattr(np.lib.npyio.NpzFile, "__getitem__", spy)
    return names


def _stored(disk, key):
    """The header and the arrays of ``key``'s file."""
    with np.load(disk.path(key), allow_pickle=False) as z:
        header = json.loads(str(z["__header__"][()]))
        return header, {n: z[n] for n in z.files if n != "__header__"}


def _big_arrays(disk, fitted, monkeypatch):
    """``fitted`` stored with Subspaces' Z* and affinity counted as large (the threshold
    lowered below them), and the names of the arrays read on demand."""
    smallest = min(a.nbytes for m in (fitted.consensus, fitted.affinity)
                   for a in (m.data, m.indices))
    monkeypatch.setattr(store, "LAZY_BYTES", smallest)
    assert disk.put(fitted.key, fitted)
    header, arrays = _stored(disk, fitted.key)
    big = set(header["deferred"])
    assert big == {n for n, a in arrays.items() if a.nbytes >= smallest} and big
    return big, arrays


def test_a_reopened_fit_reads_its_large_arrays_only_when_touched(disk, fitted, reads,
                                                                 monkeypatch):
    big, arrays = _big_arrays(disk, fitted, monkeypatch)
    reads.clear()
    cache = dash.ResultCache(4, 1 << 30, disk=disk)
    back = cache.get(fitted.key)
    read_at_open = set(reads)
    assert read_at_open and not read_at_open & big  # the header and the small arrays only
    # what the Solve page shows reads none of them
    shown = (back.scores, back.n_iter, back.converged, back.fit_time, back.density,
             back.beta_max, back.diagnostics, back.trace, back.metrics_table(),
             back.objective, back.weights.mean(axis=1))
    assert shown[4] == fitted.density
    assert not set(reads) & big
    assert {"consensus", "affinity"} <= unread(back)
    assert {"consensus_", "affinity_matrix_"} <= unread(back.model)
    # memory counts what is read: the large arrays are not in it yet
    before = dash.nbytes(back)
    assert cache.total_bytes == before
    assert before + sum(arrays[n].nbytes for n in big) <= dash.nbytes(fitted) + 1024
    # Z* is read when touched, and with it the estimator's (the same arrays, read once)
    assert (back.consensus != fitted.consensus).nnz == 0
    assert set(reads) & big and "affinity" in unread(back)
    assert np.shares_memory(back.consensus.data, back.model.consensus_.data)
    assert len(reads) == len(set(reads))  # nothing read twice
    # the rest on touching: the values are the fitted ones, each array read once
    assert_same_fit(fitted, dash.read_all(back))
    assert set(reads) == read_at_open | big and len(reads) == len(set(reads))
    assert not unread(back) and not unread(back.model)
    after = dash.nbytes(back)  # now with the large arrays, and the matrices' small indptr
    assert after == before + sum(arrays[n].nbytes for n in big) + sum(
        m.indptr.nbytes for m in (back.consensus, back.affinity))
    assert cache.total_bytes == after  # measured again


def test_a_reopened_fit_still_reads_after_its_file_is_evicted(disk, fitted, monkeypatch):
    _big_arrays(disk, fitted, monkeypatch)
    back = disk.get(fitted.key)
    disk.clear()  # evicted (or replaced) meanwhile: the file read is the one opened
    assert not disk.path(fitted.key).exists()
    # sent to a worker (pickled): every attribute read first
    model = pickle.loads(pickle.dumps(back.model))
    assert (model.consensus_ != fitted.model.consensus_).nnz == 0
    assert_same_fit(fitted, back)


@pytest.mark.parametrize("how", ["flipped", "cut"])
def test_a_large_array_damaged_before_it_is_touched_discards_the_entry(disk, fitted, how,
                                                                       monkeypatch, caplog):
    _big_arrays(disk, fitted, monkeypatch)
    cache = dash.ResultCache(4, 1 << 30, disk=disk)
    back = cache.get(fitted.key)
    assert back is not None and len(cache) == 1
    path = disk.path(fitted.key)
    damage_file(path, how, fitted.affinity.data.tobytes())
    assert back.density == fitted.density  # what was read stays usable
    with caplog.at_level(logging.WARNING, logger="rmsc.dashboard"):
        with pytest.raises(store.CorruptEntry, match="discarded"):
            back.affinity
    assert any("discarded the cached result" in r.getMessage() for r in caplog.records)
    assert not path.exists()
    assert len(cache) == 0 and fitted.key not in cache  # a miss now: fitted again
    with pytest.raises(store.CorruptEntry):  # and the same clear error, never a misread
        dash.read_all(back)
    assert cache.get(fitted.key) is None


def test_a_damaged_old_copy_spares_the_result_computed_again_since(disk, fitted, monkeypatch):
    _big_arrays(disk, fitted, monkeypatch)
    old = disk.get(fitted.key)  # a session still shows it, its large arrays unread
    path = disk.path(fitted.key)
    damage_file(path, "flipped", fitted.affinity.data.tobytes())
    cache = dash.ResultCache(4, 1 << 30, disk=disk)
    cache.put(fitted.key, fitted)  # computed again meanwhile: a new file in its place
    with pytest.raises(store.CorruptEntry):
        old.affinity  # noqa: B018
    assert path.exists() and cache.get(fitted.key) is fitted  # neither is discarded
    assert_same_fit(fitted, disk.get(fitted.key))


def test_a_damaged_entry_is_discarded_with_a_log_line(disk, fitted, caplog):
    disk.put(fitted.key, fitted)
    path = disk.path(fitted.key)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # cut off, as by a full disk
    with caplog.at_level(logging.WARNING, logger="rmsc.dashboard"):
        assert disk.get(fitted.key) is None
    assert not path.exists()
    assert any("discarded the cached result" in r.getMessage() for r in caplog.records)


def _write_npz(path, header, **arrays):
    with open(path, "wb") as f:
        np.savez(f, __header__=np.array(json.dumps(header)), **arrays)


def test_a_foreign_entry_is_rejected_and_nothing_in_it_runs(disk, fitted, tmp_path, caplog):
    key = fitted.key
    path = disk.path(key)
    good = {"magic": "rmsc-result", "schema": store.SCHEMA, "version": disk.version,
            "key": store.encode(key)[0]}
    ran = tmp_path / "ran"
    cases = {
        # another key's result under this key's name
        "another key": ({**good, "key": store.encode(("fit", "other"))[0], "value": 1}, {}),
        # a class the store does not rebuild (would run os.system if it were called)
        "a foreign class": ({**good, "value": {"@": "dc", "cls": "os.system",
                                               "f": {"command": f"touch {ran}"}}}, {}),
        # a pickle inside (an object array): np.load refuses it
        "a pickle": ({**good, "value": {"@": "nd", "a": "a0"}},
                     {"a0": np.array([print], dtype=object)}),
        # another program's file
        "no magic": ({"value": 1}, {}),
        "another schema": ({**good, "schema": store.SCHEMA + 1, "value": 1}, {}),
        # the former format (every array read with the entry) under this key
        "the former schema": ({**good, "schema": 1, "value": 1}, {}),
        # arrays read on demand that the file does not hold
        "unknown deferred arrays": ({**good, "value": 1, "deferred": ["a7"]}, {}),
    }
    for why, (header, arrays) in cases.items():
        caplog.clear()
        _write_npz(path, header, **arrays)
        with caplog.at_level(logging.WARNING, logger="rmsc.dashboard"):
            assert disk.get(key) is None, why
        assert not path.exists(), why
        assert any("discarded" in r.getMessage() for r in caplog.records), why
    assert not ran.exists()
    # a file that is not an archive at all
    path.write_bytes(b"#!/bin/sh\necho hi\n")
    assert key not in disk and not path.exists()


def test_an_unsafe_folder_is_not_used(tmp_path, monkeypatch, caplog):
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o777)
    monkeypatch.setenv(store.CACHE_DIR_ENV, str(folder))
    with caplog.at_level(logging.WARNING, logger="rmsc.dashboard"):
        assert store.DiskStore.from_env() is None
    assert any("may be written by other users" in r.getMessage() for r in caplog.records)
    monkeypatch.setenv(store.CACHE_DIR_ENV, "off")
    assert store.DiskStore.from_env() is None
    monkeypatch.setenv(store.CACHE_DIR_ENV, str(tmp_path / "mine"))
    made = store.DiskStore.from_env()
    assert made is not None and (made.folder.stat().st_mode & 0o777) == 0o700


def test_the_memory_layer_outlives_clear_through_the_disk(tmp_path, monkeypatch, fitted):
    monkeypatch.setenv(store.CACHE_DIR_ENV, str(tmp_path / "r"))
    cache = dash.open_result_cache(4, 1 << 30)
    cache.put(fitted.key, fitted)
    cache.put(("unstorable",), lambda: None)  # kept in memory only, nothing raised
    cache.clear()  # the last session left
    assert len(cache) == 0
    assert fitted.key in cache and ("unstorable",) not in cache
    assert_same_fit(cache.get(fitted.key), fitted)
    assert len(cache) == 1  # back in memory


def test_a_new_process_over_the_same_folder_serves_the_result(tmp_path, monkeypatch, fitted):
    folder = tmp_path / "restart"
    monkeypatch.setenv(store.CACHE_DIR_ENV, str(folder))
    dash.open_result_cache(4, 1 << 30).put(fitted.key, fitted)
    code = ("import sys, json; from rmsc import dashboard as dash;"
            "key = eval(sys.argv[1]); out = dash.open_result_cache(4, 1 << 30).get(key);"
            "print(json.dumps([type(out).__name__, out.labels.tolist(), out.n_iter]))")
    env = {**os.environ, store.CACHE_DIR_ENV: str(folder), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code, repr(fitted.key)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    name, labels, n_iter = json.loads(done.stdout.strip().splitlines()[-1])
    assert name == "FitResult" and labels == fitted.labels.tolist() and n_iter == fitted.n_iter


def test_codec_round_trips_plain_values():
    value = {"a": (1, 2.5, None, True, "x"), 3: [np.float32(1.5), np.int64(7)],
             "m": sp.csc_matrix(np.eye(3)), "nan": float("nan"),
             "df": pd.DataFrame({"x": [1.0, np.nan], "s": ["a", None]}, index=[3, 5])}
    tree, arrays = store.encode(value)
    json.dumps(tree)
    back = store.decode(tree, arrays)
    assert back["a"] == value["a"] and back[3] == value[3]
    assert type(back[3][0]) is np.float32 and type(back[3][1]) is np.int64
    assert (back["m"] != value["m"]).nnz == 0 and back["m"].format == "csc"
    assert np.isnan(back["nan"])
    pd.testing.assert_frame_equal(back["df"], value["df"])
    with pytest.raises(store.NotStorable):
        store.encode({"f": print})


# ---------------------------------------------------------------------------------------
# The dashboard: a later session, after the server's memory is gone, fits nothing
# ---------------------------------------------------------------------------------------

from tests.app_support import cancel_jobs, goto, no_trouble, open_app, wait_fit  # noqa: E402


@pytest.mark.usefixtures("steady_state_navigation", "fresh_caches")
def test_a_later_session_after_a_restart_is_answered_from_disk(tmp_path, monkeypatch):
    import streamlit as st

    monkeypatch.setenv(store.CACHE_DIR_ENV, str(tmp_path / "results"))
    monkeypatch.setattr(store, "LAZY_BYTES", 4096)  # Subspaces' Z* and affinity count as large
    query = {"data": "Subspaces", "beta": "0.01"}
    at = open_app(query, page="solve")
    assert at.session_state["slots"]["fit"].latest is not None  # the first session fits
    wait_fit(at)
    no_trouble(at)
    shown = {m.label: m.value for m in at.metric}
    assert "ACC" in shown
    cancel_jobs(at)
    # The last tab closed and the server restarted: everything it held in memory is gone.
    st.cache_resource.clear()
    later = open_app(query, page="solve")
    no_trouble(later)
    assert later.session_state["slots"]["fit"].latest is None  # no fit was started
    assert {m.label: m.value for m in later.metric} == shown
    assert not any("Running for" in c.value for c in later.caption)
    # Solve showed it without reading Z* or the affinity; the pages drawing them read them
    import ui

    kept = [v for v in ui.result_cache()._items.values() if isinstance(v, dash.FitResult)]
    assert len(kept) == 1 and {"consensus", "affinity"} <= unread(kept[0])
    assert {"consensus_", "affinity_matrix_"} <= unread(kept[0].model)
    # its file damaged on disk before they are read: the Affinity page treats it as a miss
    # (the log says so), no traceback, and the fit runs again
    (path,) = (tmp_path / "results").glob("*.npz")
    with np.load(path, allow_pickle=False) as z:  # Z*'s values, not read yet
        (inside,) = [z[n].tobytes() for n in json.loads(str(z["__header__"][()]))["deferred"]
                     if z[n].shape == (kept[0].consensus_nnz,) and z[n].dtype == np.float64]
    damage_file(path, "flipped", inside)
    goto(later, "affinity")
    no_trouble(later)
    assert not path.exists()
    assert later.session_state["slots"]["fit"].latest is not None  # fitted again
    wait_fit(later)
    for page in ("affinity", "weights"):
        goto(later, page)
        no_trouble(later)
        (fresh,) = [v for v in ui.result_cache()._items.values()
                    if isinstance(v, dash.FitResult)]
        assert not unread(fresh) and not unread(fresh.model), page


def test_a_side_file_lives_in_the_safe_folder_only(tmp_path, caplog):
    from rmsc.dashboard.store import read_json, side_file, write_json

    path = side_file("pace.json", tmp_path / "results")
    assert path == tmp_path / "results" / "pace.json"
    assert read_json(path) is None                     # nothing written yet
    assert write_json(path, {"a": [1, 2.5]}) and read_json(path) == {"a": [1, 2.5]}
    assert not list(path.parent.glob(".tmp-*"))       # written atomically, nothing left over
    open_folder = tmp_path / "shared"
    open_folder.mkdir(mode=0o777)
    open_folder.chmod(0o777)
    with caplog.at_level("WARNING", logger="rmsc.dashboard"):
        assert side_file("pace.json", open_folder) is None
    assert "may be written by other users" in caplog.text
