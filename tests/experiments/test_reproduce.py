"""The reproduction harness: search grids, caching, selection and the tables it writes."""

import json

import numpy as np
import pytest

from rmsc import experiments
from rmsc.experiments import Cache, Record


def test_every_paper_method_has_a_grid_within_the_same_budget():
    assert set(experiments.SEARCH) == set(experiments.PAPER_TABLE1)
    for method in experiments.SEARCH:
        n = len(experiments.settings(method))
        assert n == experiments.SEARCH_BUDGET, (method, n)
    # The grid is the Cartesian product of the declared values.
    rmsc_grid = experiments.settings("RMSC")
    assert len(rmsc_grid) == np.prod([len(v) for v in experiments.SEARCH["RMSC"].values()])
    assert {"lam": 0.3, "beta": "auto", "beta_rel": 0.1} in rmsc_grid


def test_every_grid_holds_the_registry_default_and_every_budget_keeps_it():
    import rmsc
    for method in experiments.SEARCH:
        i = experiments.registry_default_index(method)
        assert i is not None, method
        setting = experiments.settings(method)[i]
        default = rmsc.get_method(method)
        fitted = rmsc.get_method(method, **setting)
        if method in ("RMSC", "RMSC-WV"):  # None resolves to the weighting's own value
            assert fitted._lam() == default._lam() and fitted._beta_rel() == default._beta_rel()
            assert fitted.beta == default.beta == "auto"
        else:
            assert fitted.get_params() == default.get_params(), method
        for budget in (1, 2, 3, 4, 12):
            assert setting in experiments.settings(method, budget=budget), (method, budget)


def test_paper_table_is_transcribed_for_the_four_datasets():
    for method, rows in experiments.PAPER_TABLE1.items():
        assert set(rows) == set(experiments.DATASETS)
        for acc, acc_sd, nmi, nmi_sd in rows.values():
            assert 0 < acc < 100 and 0 < nmi < 100 and acc_sd >= 0 and nmi_sd >= 0
    assert experiments.PAPER_TABLE1["RMSC"]["Digit"] == (97.91, 0.03, 94.98, 0.08)
    assert experiments.PAPER_TABLE1["SSC-AVG"]["3-Sources"][0] == 69.82


def test_cache_round_trip_and_resume(tmp_path):
    path = tmp_path / "runs.json"
    c = Cache(path)
    rec = Record("D", "RMSC", {"lam": 1.0, "beta": 0.1}, 0.9, 0.01, 0.8, 0.02, 1.5)
    c.put(rec)
    again = Cache(path)
    got = again.get("D", "RMSC", {"beta": 0.1, "lam": 1.0})  # key order does not matter
    assert got == rec
    assert again.get("D", "RMSC", {"lam": 2.0, "beta": 0.1}) is None
    path.write_text("{not json")
    with pytest.raises(ValueError, match="cannot be read.*delete it"):
        Cache(path)


def test_search_runs_each_setting_once_and_picks_the_best(subspaces, monkeypatch):
    views, y = subspaces
    monkeypatch.setitem(experiments.SEARCH, "RMSC", {"lam": [1.0], "beta": [0.02, 1e3]})
    cache = Cache()
    seen = []
    recs = experiments.search("toy", views, y, ["RMSC"], cache,
                            progress=lambda i, n, msg: seen.append((i, n)))
    assert len(recs) == 2
    good, empty = recs
    assert good.acc_mean >= 0.95 and good.error is None
    # beta = 1000 empties Z*: recorded as a failure with the estimator's explanation.
    assert empty.acc_mean is None and "beta" in empty.error
    assert experiments.best(recs)["RMSC"] is good
    # A second search finds everything in the cache and fits nothing.
    monkeypatch.setattr(experiments.protocol, "run_one", lambda *a, **k: pytest.fail("refitted"))
    assert experiments.search("toy", views, y, ["RMSC"], cache) == recs
    assert seen[-1] == (2, 2)


def test_table1_puts_ours_beside_the_paper_with_the_difference():
    rec = Record("Digit", "RMSC", {}, 0.9791 + 0.01, 0.001, 0.9498 - 0.02, 0.002, 3.0)
    md = experiments.table1({"Digit": {"RMSC": rec}}, ["RMSC", "MSC"])
    acc_row = [l for l in md.splitlines() if l.startswith("| RMSC |")][0]
    assert "98.91 ± 0.10 (97.91; +1.00)" in acc_row
    assert "n/a: data unavailable (paper 33.14 ± 1.01)" in acc_row  # Animal is not available
    assert "not run (paper 78.37)" in acc_row
    nmi_row = [l for l in md.splitlines() if l.startswith("| RMSC |")][1]
    assert "92.98 ± 0.20 (94.98; -2.00)" in nmi_row
    assert "| MSC | not run (paper 94.68)" in md


def test_sensitivity_and_search_table():
    recs = [Record("D", "A", {"x": 1}, 0.5, 0, 0.4, 0, 1.0),
            Record("D", "A", {"x": 2}, 0.9, 0, 0.8, 0, 1.0),
            Record("D", "A", {"x": 3}, error="beta too large"),
            Record("D", "A", {"x": 4}, 0.7, 0, 0.6, 0, 1.0)]
    s = experiments.sensitivity(recs)["A"]
    assert s == {"best": 0.9, "median": 0.7, "worst": 0.5, "settings": 4, "failed": 1}
    md = experiments.search_table(recs)
    assert "| D | A | x=3 | failed: beta too large |" in md
    assert "| D | A | x=2 | 90.00 ± 0.00 | 80.00 ± 0.00 | 1.0 |  |" in md


def test_unknown_method_is_refused_with_the_list():
    with pytest.raises(ValueError, match="Unknown method 'Kmeans'; available methods: .*RMSC"):
        experiments.check_methods(["RMSC", "Kmeans"])
    assert experiments.check_methods(["rmsc", "ssc-avg"]) == ["SSC-AVG", "RMSC"]


def test_best_single_view_methods_are_scored_like_the_paper(subspaces):
    """SSC-BSV: the view of highest mean ACC, chosen with the labels, as the paper reports."""
    from rmsc.metrics import best_view
    views, y = subspaces
    views = [views[0], np.random.default_rng(0).standard_normal(views[1].shape)]  # view 1 is noise
    scores, est = experiments.run_one("SSC-BSV", {"beta": 0.01}, views, y)
    v, per_view = best_view(y, est.view_label_runs_)
    assert v == 0 and scores["note"] == "best view 0 (chosen with labels); without labels view 0"
    assert scores["acc_mean"] == per_view[0]["acc_mean"] >= 0.9


def test_shared_solves_give_identical_scores_and_solve_once(subspaces):
    """SSC-BSV and SSC-AVG share their per-view SSC solves; a post-processing variant
    re-uses RMSC's solve; the scores are exactly those of independent fits."""
    from rmsc import solver, ssc
    views, y = subspaces
    jobs = [("SSC-BSV", {"beta": 0.01}), ("SSC-AVG", {"beta": 0.01}),
            ("RMSC", {"lam": 1.0, "beta": 0.02}),
            ("RMSC", {"lam": 1.0, "beta": 0.02, "top_k": 5, "scale_columns": True})]
    plain = [experiments.run_one(m, p, views, y)[0] for m, p in jobs]
    originals = (ssc.ssc_admm, solver.solve)
    with experiments.SharedSolves() as shared:
        memo = [experiments.run_one(m, p, views, y)[0] for m, p in jobs]
        assert ssc.ssc_admm is not originals[0]
    assert (ssc.ssc_admm, solver.solve) == originals  # restored
    # 2 views solved by SSC once (SSC-AVG hits both), RMSC solved once (the variant hits).
    assert shared.misses == 3 and shared.hits == 3
    for a, b in zip(plain, memo):
        for k in ("acc_mean", "acc_std", "nmi_mean", "nmi_std", "objective"):
            assert a[k] == b[k], k
    # The post-processing really changed the affinity, not the representation.
    assert plain[2]["objective"] == plain[3]["objective"]


def test_shared_solves_never_share_between_different_beta_rules(subspaces):
    """beta="auto" reaches the solver as a closure over beta_rel: the memo keys it by what
    it computes, so other beta_rels are solved anew (a key on the closure's repr, its
    address, once let a later rule reuse an earlier one's solve) and equal ones share."""
    import gc
    views, y = subspaces
    jobs = [("RMSC", {"lam": 1.0, "beta": "auto", "beta_rel": r}) for r in (0.1, 0.25, 0.5)]
    plain = [experiments.run_one(m, p, views, y)[0] for m, p in jobs]
    assert len({a["objective"][-1] for a in plain}) == 3
    with experiments.SharedSolves() as shared:
        memo = []
        for m, p in jobs + jobs:
            memo.append(experiments.run_one(m, p, views, y)[0])
            gc.collect()  # free each rule, so that its address can be reused
    assert shared.misses == 3 and shared.hits == 3
    for a, b in zip(plain + plain, memo):
        assert a["objective"] == b["objective"]
    from rmsc.experiments.shared import _digest, Unkeyable
    import hashlib
    with pytest.raises(Unkeyable):
        _digest(object(), hashlib.blake2b())


def test_postprocessing_variants_apply_to_every_self_representation_method_alike(subspaces):
    for method in experiments.SEARCH:
        plain, ssc = experiments.settings(method, "none"), experiments.settings(method, "ssc")
        assert len(plain) == len(ssc) == experiments.SEARCH_BUDGET
        if method in experiments.SELF_REPRESENTATION:
            assert all(s == {**p, "top_k": 10, "scale_columns": True} for p, s in zip(plain, ssc))
        else:
            assert plain == ssc
    with pytest.raises(ValueError, match="Unknown post-processing 'x'"):
        experiments.settings("RMSC", "x")
    assert experiments.count_jobs(["MSC", "RMSC"], ("none", "ssc")) == 12 + 24


def test_search_with_two_variants_fits_graph_methods_once(subspaces, monkeypatch):
    views, y = subspaces
    monkeypatch.setitem(experiments.SEARCH, "RMSC", {"lam": [1.0], "beta": [0.02]})
    monkeypatch.setitem(experiments.SEARCH, "MSC", {"r": [3.0]})
    calls = []
    real = experiments.run_one
    monkeypatch.setattr(experiments.protocol, "run_one",
                        lambda m, p, *a, **k: calls.append((m, dict(p))) or real(m, p, *a, **k))
    recs = experiments.search("toy", views, y, ["MSC", "RMSC"], Cache(),
                            postprocessing=("none", "ssc"))
    assert calls == [("MSC", {"r": 3.0}), ("RMSC", {"lam": 1.0, "beta": 0.02}),
                     ("RMSC", {"lam": 1.0, "beta": 0.02, "top_k": 10, "scale_columns": True})]
    assert recs["none"][0] is recs["ssc"][0]  # the same MSC record serves both tables
    assert recs["none"][1].params != recs["ssc"][1].params


def test_thin_keeps_evenly_spaced_settings_first_and_last():
    items = list(range(12))
    assert experiments.thin(items, 4) == [0, 4, 7, 11]
    assert experiments.thin(items, 2) == [0, 11]
    assert experiments.thin(items, 1) == [0]
    assert experiments.thin(items, None) == items and experiments.thin(items, 12) == items
    assert experiments.thin(items, 30) == items
    assert experiments.thin(items, 6) == [0, 2, 4, 7, 9, 11]
    with pytest.raises(ValueError, match="positive whole number"):
        experiments.thin(items, 0)
    # a position to keep replaces the nearest chosen one
    assert experiments.thin(items, 4, keep=5) == [0, 5, 7, 11]
    assert experiments.thin(items, 4, keep=4) == [0, 4, 7, 11]
    assert experiments.thin(items, 1, keep=6) == [6]
    assert experiments.thin(items, 2, keep=3) == [3, 11]


def test_reduced_budget_is_the_same_for_every_method():
    for method in experiments.SEARCH:
        full = experiments.settings(method)
        for budget in (1, 3, 4, 12):
            got = experiments.settings(method, budget=budget)
            assert len(got) == min(budget, len(full))
            keep = experiments.registry_default_index(method)
            assert got == [full[i] for i in experiments.thin(range(len(full)), budget, keep)]
        # Variants add the same post-processing to the same thinned settings.
        plain = experiments.settings(method, "none", 4)
        for variant in experiments.POSTPROCESSING:
            got = experiments.settings(method, variant, 4)
            assert [{k: v for k, v in s.items() if k not in ("keep_mass", "top_k", "scale_columns")}
                     for s in got] == plain
    # The thinned RMSC grid spans both parameters' ranges.
    rmsc4 = experiments.settings("RMSC", budget=4)
    assert rmsc4[0] == {"lam": 0.3, "beta": "auto", "beta_rel": 0.1}
    assert rmsc4[-1] == {"lam": 10.0, "beta": "auto", "beta_rel": 0.5}
    assert experiments.count_jobs(["MSC", "RMSC"], ("none", "ssc"), budget=4) == 4 + 8
    assert experiments.check_budgets({"Reuter": 4}) == {"Reuter": 4}
    for bad in (0, -1, 2.5, "x"):
        with pytest.raises(ValueError, match="budget of Reuter must be a positive whole"):
            experiments.check_budgets({"Reuter": bad})


def test_search_with_a_budget_fits_only_the_thinned_settings(subspaces, monkeypatch):
    views, y = subspaces
    monkeypatch.setitem(experiments.SEARCH, "RMSC", {"lam": [0.3, 1.0, 3.0], "beta": [0.01, 0.02]})
    calls = []
    real = experiments.run_one
    monkeypatch.setattr(experiments.protocol, "run_one",
                        lambda m, p, *a, **k: calls.append(dict(p)) or real(m, p, *a, **k))
    recs = experiments.search("toy", views, y, ["RMSC"], Cache(), budget=2)
    assert calls == [{"lam": 0.3, "beta": 0.01}, {"lam": 3.0, "beta": 0.02}]
    assert [r.params for r in recs] == calls


def test_run_applies_dataset_budgets_case_insensitively(subspaces, monkeypatch):
    from rmsc.datasets import MultiViewDataset

    views, y = subspaces
    monkeypatch.setattr(experiments.reproduce, "load_for_reproduction",
                        lambda name, path: MultiViewDataset(name=name, views=views, labels=y))
    monkeypatch.setitem(experiments.SEARCH, "RMSC", {"lam": [0.3, 1.0, 3.0], "beta": [0.02]})
    monkeypatch.setitem(experiments.SEARCH, "MSC", {"r": [2, 3, 5]})
    result = experiments.run(["Digit", "3-Sources"], ["MSC", "RMSC"], postprocessing=("none",),
                           views=False, sensitivity=False, budgets={"digit": 2})
    digit, three = result.datasets
    assert digit.budget == 2 and three.budget is None
    assert [r.params for r in digit.records["none"]] == [
        {"r": 2}, {"r": 5}, {"lam": 0.3, "beta": 0.02}, {"lam": 3.0, "beta": 0.02}]
    assert len(three.records["none"]) == 6
    # The document's compute total: every distinct fit's recorded time, counted once.
    fits = {r.key: r.fit_time for ds in (digit, three) for r in ds.records["none"]}
    assert len(fits) == 10 and result.fit_seconds == pytest.approx(sum(fits.values()))
    text = experiments.report(result, command="rmsc reproduce")
    assert "**Reduced search** — Digit: 2 settings per method, for every method alike" in text
    assert experiments.to_json(result)["protocol"]["dataset_budget"] == {"Digit": 2}
    # Hand-written notes come right after the Table 1 they discuss, before the search.
    text = experiments.report(result, command="rmsc reproduce", notes="## Discussion\n\nwhy")
    assert text.rindex("## Table 1") < text.index("## Discussion") < text.index("## The search")
    # Without a reduction the document does not claim one.
    full = experiments.run(["Digit"], ["MSC"], postprocessing=("none",), views=False,
                         sensitivity=False, budgets={})
    assert "Reduced search" not in experiments.report(full, command="rmsc reproduce")


def test_cli_budget_option_is_checked():
    import io

    from rmsc.cli import main

    err = io.StringIO()
    code = main(["reproduce", "--budget", "Reuter=few"], out=io.StringIO(), err=err)
    assert code == 2 and "--budget takes DATASET=N" in err.getvalue()
    assert "Traceback" not in err.getvalue()


def test_search_fits_cheap_methods_first_and_reports_in_table_order(subspaces, monkeypatch):
    views, y = subspaces
    monkeypatch.setitem(experiments.SEARCH, "RMSC", {"lam": [1.0], "beta": [0.02]})
    monkeypatch.setitem(experiments.SEARCH, "SSC-AVG", {"beta": [0.01]})
    monkeypatch.setitem(experiments.SEARCH, "MSC", {"r": [3.0]})
    assert set(experiments.RUN_ORDER) == set(experiments.PAPER_TABLE1)
    calls = []
    real = experiments.run_one
    monkeypatch.setattr(experiments.protocol, "run_one",
                        lambda m, p, *a, **k: calls.append(m) or real(m, p, *a, **k))
    methods = experiments.check_methods(["RMSC", "SSC-AVG", "MSC"])
    assert methods == ["MSC", "SSC-AVG", "RMSC"]  # Table 1's order
    recs = experiments.search("toy", views, y, methods, Cache())
    assert calls == ["MSC", "RMSC", "SSC-AVG"]     # SSC-family last
    assert [r.method for r in recs] == methods


def test_excluded_methods_are_not_fitted_and_the_report_says_so(subspaces, monkeypatch):
    from rmsc.datasets import MultiViewDataset

    views, y = subspaces
    monkeypatch.setattr(experiments.reproduce, "load_for_reproduction",
                        lambda name, path: MultiViewDataset(name=name, views=views, labels=y))
    monkeypatch.setitem(experiments.SEARCH, "RMSC", {"lam": [1.0], "beta": [0.02]})
    monkeypatch.setitem(experiments.SEARCH, "MSC", {"r": [3.0]})
    result = experiments.run(["Digit", "3-Sources"], ["MSC", "RMSC"], postprocessing=("none",),
                           views=False, sensitivity=False, budgets={},
                           exclude=[("digit", "msc")])
    digit, three = result.datasets
    assert digit.excluded == ("MSC",) and three.excluded == ()
    assert [r.method for r in digit.records["none"]] == ["RMSC"]
    assert [r.method for r in three.records["none"]] == ["MSC", "RMSC"]
    text = experiments.report(result, command="rmsc reproduce")
    assert "- **Not run** — MSC on Digit (`--exclude`)" in text
    msc_acc = [l for l in text.splitlines() if l.startswith("| MSC |")][0]
    assert msc_acc.split(" | ")[1] == "not run (paper 94.68)"
    assert experiments.to_json(result)["datasets"]["Digit"]["excluded"] == ["MSC"]
    with pytest.raises(ValueError, match="Unknown method 'Nope'"):
        experiments.run(["Digit"], ["MSC"], exclude=[("Digit", "Nope")], views=False,
                      sensitivity=False)


def test_cli_exclude_option_is_checked():
    import io

    from rmsc.cli import main

    err = io.StringIO()
    code = main(["reproduce", "--exclude", "Reuter-DiMSC"], out=io.StringIO(), err=err)
    assert code == 2 and "--exclude takes DATASET:METHOD" in err.getvalue()


def test_shared_solves_reuse_dimsc_steps_exactly(subspaces):
    """The post-processing variant of DiMSC re-uses every memoised step of the first fit,
    and both score exactly as independent fits."""
    views, y = subspaces
    jobs = [("DiMSC", {"beta": 0.01, "lam": 1e3, "outer_iter": 2}),
            ("DiMSC", {"beta": 0.01, "lam": 1e3, "outer_iter": 2, "top_k": 5,
                       "scale_columns": True})]
    plain = [experiments.run_one(m, p, views, y)[0] for m, p in jobs]
    with experiments.SharedSolves() as shared:
        memo = [experiments.run_one(m, p, views, y)[0] for m, p in jobs]
    assert shared.misses > 0 and shared.hits == shared.misses
    for a, b in zip(plain, memo):
        for k in ("acc_mean", "acc_std", "nmi_mean", "nmi_std", "objective"):
            assert a[k] == b[k], k


# ---------------------------------------------------------------------------
# where the data come from: the bundled copies by default, --data-dir overrides
# ---------------------------------------------------------------------------


def test_an_input_weighting_is_a_dataset_of_its_own_scored_against_the_papers(tmp_path):
    from rmsc import datasets
    from rmsc.preprocessing import log1p

    assert experiments.resolve_datasets(["3-sources+log1p", "Reuter+tfidf"]) == [
        ("3-Sources+log1p", None), ("Reuter+tfidf", None)]
    d = experiments.load_for_reproduction("3-Sources+log1p", None)
    base = datasets.load_bundled("3-Sources")
    assert d.name == "3-Sources+log1p" and np.array_equal(d.labels, base.labels)
    got = d.views[1].toarray() if hasattr(d.views[1], "toarray") else d.views[1]
    want = log1p(base.views[1])
    np.testing.assert_allclose(got, want.toarray() if hasattr(want, "toarray") else want)
    assert experiments.paper_dataset("3-Sources+log1p") == "3-Sources"
    assert experiments.paper_dataset("my_views") == "my_views"
    with pytest.raises(ValueError, match="neither a dataset of the paper"):
        experiments.resolve_datasets(["3-Sources+sqrt"])
    # views that are not counts (Digit's Karhunen-Loeve coefficients) are refused, saying why
    with pytest.raises(ValueError, match=r"Digit\+log1p: .*non-negative counts.*must be counts"):
        experiments.load_for_reproduction("Digit+log1p", None)


def test_paper_datasets_default_to_the_bundled_copies(paper_mats):
    from rmsc import datasets

    assert experiments.resolve_datasets(["digit", "Reuter", "3-Sources", "Animal"]) == [
        ("Digit", None), ("Reuter", None), ("3-Sources", None), ("Animal", None)]
    for name in ("Reuter", "3-Sources"):
        bundled = experiments.load_for_reproduction(name, None)
        assert bundled.fingerprint == datasets.load_bundled(name).fingerprint
        # --data-dir: the .mat file, named like the bundled copy, holds the same dataset
        ((_, path),) = experiments.resolve_datasets([name], data_dir=paper_mats)
        assert path == paper_mats / experiments.DATASETS[name]
        from_file = experiments.load_for_reproduction(name, path)
        assert from_file.view_names == bundled.view_names
        assert from_file.fingerprint == bundled.fingerprint
        assert "Loaded from " + path.name in from_file.description
    with pytest.raises(ValueError, match="The Animal dataset is not available here"):
        experiments.load_for_reproduction("Animal", None)


def test_cli_reproduce_without_the_data_exits_2_before_any_fit(tmp_path, monkeypatch):
    import io

    from rmsc.cli import main

    monkeypatch.setattr(experiments.protocol, "run_one", lambda *a, **k: pytest.fail("fitted"))
    for argv, message in (
            (["--data-dir", str(tmp_path)],
             f"rmsc: error: Digit: {tmp_path / 'digit_handwritten.mat'} does not exist. Point "
             "--data-dir at the folder holding the paper's .mat files, or leave --data-dir out "
             "to use the copies bundled with rmsc. (nothing was run)\n"),
            (["--datasets", "3-Sources", "Animal"],
             "rmsc: error: The Animal dataset is not available here (see the results "
             "document). (nothing was run)\n")):
        out, err = io.StringIO(), io.StringIO()
        code = main(["reproduce", *argv, "--quiet"], out=out, err=err)
        assert code == 2 and out.getvalue() == "" and err.getvalue() == message


def test_results_json_records_file_names_not_machine_paths(paper_mats, monkeypatch):
    monkeypatch.setitem(experiments.SEARCH, "MSC", {"r": [3.0]})
    spec = str(paper_mats / "3sources.mat")
    result = experiments.run([spec, "3-Sources"], ["MSC"], postprocessing=("none",),
                             views=False, sensitivity=False, budgets={})
    got = experiments.to_json(result)["datasets"]
    assert got["3sources"]["path"] == "3sources.mat"  # a file: its name only
    assert got["3-Sources"]["path"] is None          # the bundled copy
    assert str(paper_mats) not in json.dumps(experiments.to_json(result))
    text = experiments.report(result, command="rmsc reproduce")
    assert "| `3sources.mat` |" in text and "| `bundled` |" in text
