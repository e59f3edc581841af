"""Does RMSC's clustering depend on where its iterations stop?

    python docs/studies/study_stability.py run [--datasets ...] [--methods ...]
                                             [--candidates ...] [--jobs N] [--cap 300]
    python docs/studies/study_stability.py table [--cap 300]      # the docs' tables
    python docs/studies/study_stability.py run --smoke            # tiny data, seconds (the tests)

Every run is one trajectory of Algorithm 1 to convergence (tol = 1e-6, at most ``--cap``
iterations; the cap is recorded when hit) of the whole estimator (``RMSC``, its defaults
for everything not named: colmax affinity, placement, 20 k-means runs, random_state=0),
with a callback that watches it:

* every iteration: the objective, the relative change of Z*
  (||Z*_t - Z*_{t-1}||_F / ||Z*_t||_F) and its density;
* every ``EVERY`` iterations: a quick clustering (:func:`rmsc.tracking.quick_clustering`)
  and its agreement with the previous one (ARI, samples that changed cluster);
* at fixed iterations (:data:`CHECKPOINTS`) and wherever a candidate stopping rule
  (:data:`RULES`) first fires: the estimator's own clustering of that iterate
  (:func:`rmsc.rmsc.embed_and_cluster`, the same affinity, placement and seeds), scored
  by ACC and NMI (means over the 20 k-means runs, %).

The iterates do not depend on the stopping rule, so one trajectory gives every rule's
result exactly: what ``RMSC(...)`` with that rule would have returned. Candidates
(:data:`CANDIDATES`) are models (the paper's; the scaled model of
:mod:`rmsc.solver._weights` with its view factor's power and gamma) times
``beta_rel`` (beta in units of the data's 5 % emptying-beta quantile, measured under
that model) times lambda. Datasets: every one the repository has (:data:`DATASETS`),
with Digit also with 10 % of its samples replaced in PIX and FOU.

Each run is cached as one JSON file under ``benchmarks/out/study_stability/`` (git
ignores it; ``--out`` names another folder), so a rerun resumes; ``--jobs`` runs them in
parallel processes, one thread each.

``run --smoke`` runs :func:`smoke_configs` (Subspaces, both methods, the paper's model
and the default scaled one, two beta_rel, at most :data:`SMOKE_CAP` iterations) into a
temporary folder (or ``--out``) and prints their long table; its numbers mean nothing
(benchmarks/_preamble.py). ``study_stability_tables.py --smoke`` and
``study_suggestion.py --smoke`` go through the same runs.

Measured: the tables of docs/stability.md were written at commit a827151 (2026-11-26), on
that commit's code. Rerun it to update them (smoke-tested: tests/benchmarks/test_benchmarks.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, --smoke, one thread)

_preamble.one_thread()  # before numpy

import argparse  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from concurrent.futures import ProcessPoolExecutor, as_completed  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
import scipy.sparse.linalg  # noqa: E402,F401

ROOT = _preamble.ROOT

import rmsc  # noqa: E402
from rmsc import solver  # noqa: E402
from rmsc.metrics import evaluate_runs  # noqa: E402
from rmsc.preprocessing import normalize_l2  # noqa: E402
from rmsc.rmsc import embed_and_cluster  # noqa: E402
from rmsc.spectral import affinity_from_coefficients  # noqa: E402
from rmsc.selection import graph_criterion  # noqa: E402
from rmsc.tracking import agreement, quick_clustering  # noqa: E402


from study_stability_tables import OUT, print_long, print_tables, read_results  # noqa: E402

#: Iterations at which the estimator's clustering is scored on every trajectory.
CHECKPOINTS = (1, 3, 5, 10, 20, 30, 50, 75, 100, 150, 200, 250, 300, 400, 500, 750, 1000, 1500,
               2000)

#: Iterations between two quick clusterings (the clustering-stability rules' clock).
EVERY = 5

#: The reference: the objective's relative decrease at most this (or the cap).
REFERENCE_TOL = 1e-6

#: Candidate stopping rules (name -> kind, threshold); each also stops at the cap.
#: "obj": the objective's relative decrease in one iteration <= t (today's rule, 1e-4);
#: "dz": ||Z*_t - Z*_{t-1}||_F / ||Z*_t||_F <= t; "ari": the quick clustering's ARI with
#: the one EVERY iterations before >= t, once ("ari") or at two checks in a row ("ari2").
RULES = {
    "obj 1e-3": ("obj", 1e-3), "obj 1e-4": ("obj", 1e-4), "obj 1e-5": ("obj", 1e-5),
    "dz 1e-2": ("dz", 1e-2), "dz 3e-3": ("dz", 3e-3), "dz 1e-3": ("dz", 1e-3),
    "ari 0.99": ("ari", 0.99), "ari2 0.99": ("ari2", 0.99), "ari2 0.999": ("ari2", 0.999),
}

#: Models: name -> RMSC keyword arguments. "paper": the paper's absolute losses (today).
#: "s0": the scaled model (loss_scale="median"), view factor power 0 (a typical sample
#: weighs about 1 in every view); "s0 g1e-2" etc.: with a larger gamma (in the views'
#: units, so the weight cap 1/sqrt(gamma) is relative to a typical sample's 1);
#: "s.5": power 1/2 = the paper's weights with gamma relative to each view's unit;
#: "s1": power 1, every loss divided by its view's unit.
MODELS = {
    "paper": {"loss_scale": None, "gamma": 1e-5},
    "paper g1e-2": {"loss_scale": None, "gamma": 1e-2},
    "s0": {"loss_scale": "median", "scale_power": 0.0, "gamma": 1e-5},
    "s0 g1e-2": {"loss_scale": "median", "scale_power": 0.0, "gamma": 1e-2},
    "s0 g1e-1": {"loss_scale": "median", "scale_power": 0.0, "gamma": 1e-1},
    "s0 g1": {"loss_scale": "median", "scale_power": 0.0, "gamma": 1.0},
    "s.5": {"loss_scale": "median", "scale_power": 0.5, "gamma": 1e-5},
    "s.5 g1e-2": {"loss_scale": "median", "scale_power": 0.5, "gamma": 1e-2},
    "s1": {"loss_scale": "median", "scale_power": 1.0, "gamma": 1e-5},
    "s1 g1e-2": {"loss_scale": "median", "scale_power": 1.0, "gamma": 1e-2},
}

BETA_RELS = (0.125, 0.25, 0.5, 1.0)

#: lambda per method: its default and one alternative.
LAMS = {"RMSC": (1.0, 3.0), "RMSC-WV": (3.0, 1.0)}

WEIGHTING = {"RMSC": "sample", "RMSC-WV": "view"}

#: The study's datasets: every dataset the repository has (benchmarks/_preamble.py).
DATASETS = _preamble.DATASETS

#: Rough cost of a run per dataset (Digit = 1), to start the longest first.
COST = {"Subspaces": 0.05, "Digit-small": 0.1, "3-Sources": 0.1, "Synthetic-300": 0.1,
        "Synthetic-1000": 0.5, "Digit": 1.0, "Digit+outliers": 1.0, "Reuter": 4.0}


#: ``(views, labels, n_clusters)`` of a study dataset.
load = _preamble.load_dataset


def key_of(config):
    text = json.dumps(config, sort_keys=True)
    return hashlib.blake2b(text.encode(), digest_size=10).hexdigest()


#: The plan of the study's large datasets, in the order run (each stage: Digit,
#: Digit+outliers, Synthetic-1000, then Reuter, the slowest): the paper's model at today's
#: defaults; the scaled model "s1 g1e-2" at each method's lambda, beta_rel 0.25 and 0.5;
#: then, without Reuter, the paper's model at beta_rel 0.5, "s1" at 0.5 and "s.5" at 0.25.
LARGE = ("Digit", "Digit+outliers", "Synthetic-1000", "Reuter")

STAGES = (("paper", (0.25,), True), ("s1 g1e-2", (0.25, 0.5), True),
          ("paper", (0.5,), False), ("s1", (0.5,), False), ("s.5", (0.25,), False))


def plan_large():
    out = []
    for model, rels, with_reuter in STAGES:
        for name in LARGE:
            if name == "Reuter" and not with_reuter:
                continue
            for method in WEIGHTING:
                out += [{"dataset": name, "method": method, "model": model, "beta_rel": rel,
                         "lam": LAMS[method][0]} for rel in rels]
    return out


#: The smoke runs' datasets, models, beta_rels and iteration cap (see the module docstring).
SMOKE_DATASETS = ("Subspaces",)
SMOKE_MODELS = ("paper", "s1 g1e-2")
SMOKE_BETA_RELS = (0.25, 0.5)
SMOKE_CAP = 5


def smoke_configs():
    """The smoke run's grid: each method at its default lambda, :data:`SMOKE_MODELS` x
    :data:`SMOKE_BETA_RELS`, on :data:`SMOKE_DATASETS`."""
    return grid(SMOKE_DATASETS, tuple(WEIGHTING), SMOKE_MODELS, SMOKE_BETA_RELS, False)


def run_smoke(out):
    """Run :func:`smoke_configs` (at most :data:`SMOKE_CAP` iterations) into the folder
    ``out``, one process; returns their results."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    for c in smoke_configs():
        _say(_worker(c, SMOKE_CAP, out)[1], t0)
    return read_results(out, SMOKE_CAP)


def grid(datasets, methods, models, beta_rels, lams_all):
    out = []
    for name in datasets:
        for method in methods:
            lams = LAMS[method] if lams_all else LAMS[method][:1]
            for model in models:
                for rel in beta_rels:
                    for lam in lams:
                        out.append({"dataset": name, "method": method, "model": model,
                                    "beta_rel": rel, "lam": lam})
    return out


class Watcher:
    """The study's callback (see the module docstring)."""

    needs_consensus = True

    def __init__(self, views, labels, c, cap):
        self.views, self.labels, self.c, self.cap = views, labels, c, cap
        self.f, self.dz, self.density = [], [], []
        self.quick = []
        self.full = {}
        self.stops = {}
        self._prev_Z = None
        self._prev_labels = None
        self._streak = 0
        self.watch_seconds = 0.0

    def full_eval(self, it, Z, P):
        if it in self.full:
            return
        S = affinity_from_coefficients(Z, scale_columns=True)
        isolated = int(np.count_nonzero(S.getnnz(axis=1) == 0))
        n = Z.shape[0]
        if isolated > n // 2 or Z.nnz == 0:
            self.full[it] = {"acc": 0.0, "nmi": 0.0, "isolated": isolated, "placed": 0}
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, placed, runs = embed_and_cluster(S, self.views, P, self.c, random_state=0)
        s = evaluate_runs(self.labels, runs.runs)
        self.full[it] = {"acc": 100 * s["acc_mean"], "nmi": 100 * s["nmi_mean"],
                         "isolated": isolated, "placed": int(placed.size),
                         "inertia": float(np.min(runs.inertia)),
                         **label_free(S, runs.labels, runs.runs, self.c)}

    def __call__(self, it, f, P, consensus=None):
        t0 = time.perf_counter()
        Z = solver.to_csc(consensus).tocsr().astype(np.float64)
        Z.sort_indices()
        fprev = self.f[-1] if self.f else None
        self.f.append(float(f))
        norm = float(sp.linalg.norm(Z)) if Z.nnz else 0.0
        if self._prev_Z is None:
            dz = 1.0
        else:
            diff = float(sp.linalg.norm(Z - self._prev_Z))
            dz = diff / norm if norm > 0 else (0.0 if diff == 0 else 1.0)
        self.dz.append(dz)
        self.density.append(Z.nnz / Z.shape[0] ** 2)
        self._prev_Z = Z
        fired = []
        if it == 1 or it % EVERY == 0:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                lab = quick_clustering(Z, self.c, previous=self._prev_labels)
            ari = changed = None
            if self._prev_labels is not None:
                ari, changed = agreement(self._prev_labels, lab)
            q = rmsc.evaluate(self.labels, lab)
            self.quick.append({"it": it, "ari": ari, "changed": changed,
                               "acc": 100 * q["acc"], "nmi": 100 * q["nmi"]})
            self._prev_labels = lab
            if ari is not None:
                self._streak = self._streak + 1 if ari >= 0.99 else 0
                for name, (kind, t) in RULES.items():
                    if name in self.stops:
                        continue
                    if kind == "ari" and ari >= t:
                        fired.append(name)
                    if kind == "ari2" and ari >= t and len(self.quick) >= 3 and \
                            (self.quick[-2]["ari"] or 0) >= t:
                        fired.append(name)
        for name, (kind, t) in RULES.items():
            if name in self.stops:
                continue
            if kind == "obj" and fprev is not None and abs(fprev - f) <= t * abs(fprev):
                fired.append(name)
            if kind == "dz" and it > 1 and dz <= t:
                fired.append(name)
        for name in fired:
            self.stops[name] = it
        if fired or it in CHECKPOINTS:
            self.full_eval(it, Z, P)
        self.watch_seconds += time.perf_counter() - t0
        return False


def label_free(S, best, all_runs, c):
    """Label-free criteria of a clustering (the suggestion's candidates, docs/stability.md):
    the graph's eigengap at c, isolated samples and pieces (:func:`graph_criterion`),
    the c + 1 leading eigenvalues, the k-means runs' agreement with the chosen run (mean
    ARI) and the chosen run's inertia."""
    from sklearn.metrics import adjusted_rand_score

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        crit = graph_criterion(S, c, random_state=0)
        from rmsc.spectral import spectral_embedding
        _, w = spectral_embedding(S, c + 1, random_state=0, return_eigenvalues=True)
    agree = float(np.mean([adjusted_rand_score(best, r) for r in all_runs]))
    return {"eigengap": crit.eigengap, "pieces": crit.pieces, "eig": [float(x) for x in w],
            "kmeans_ari": agree, "density": float(S.nnz) / S.shape[0] ** 2}


def run_one(config, cap):
    warnings.simplefilter("ignore")
    views, labels, c = load(config["dataset"])
    model = dict(MODELS[config["model"]])
    nviews = [normalize_l2(X, view=v) for v, X in enumerate(views)]
    watcher = Watcher(nviews, labels, c, cap)
    est = rmsc.RMSC(n_clusters=c, lam=config["lam"], beta="auto", beta_rel=config["beta_rel"],
                    weighting=WEIGHTING[config["method"]], tol=REFERENCE_TOL, max_iter=cap,
                    stop_on="objective", random_state=0, callback=watcher, **model)
    t0 = time.perf_counter()
    out = dict(config, cap=cap)
    try:
        est.fit(views)
    except rmsc.DegenerateSolutionError as exc:
        out.update(error=str(exc)[:200])
    seconds = time.perf_counter() - t0
    final = None
    if hasattr(est, "label_runs_"):
        s = evaluate_runs(labels, est.label_runs_)
        final = {"acc": 100 * s["acc_mean"], "nmi": 100 * s["nmi_mean"],
                 "placed": int(est.placed_.size)}
        final.update(label_free(est.affinity_matrix_, est.labels_, est.label_runs_, c))
        P = est.weights_
        W = solver.consensus_weights(P, est.view_factors_)
        out.update(view_share=(W.sum(axis=1) / W.sum()).tolist(),
                   at_cap=(P >= 0.5 / np.sqrt(est.gamma)).mean(axis=1).tolist(),
                   loss_scale=None if est.loss_scale_ is None else est.loss_scale_.tolist())
    out.update(
        n_iter=len(watcher.f), converged=bool(getattr(est, "converged_", False)),
        seconds=seconds, watch_seconds=watcher.watch_seconds,
        beta=float(getattr(est, "beta_", float("nan"))),
        f=watcher.f, dz=watcher.dz, density=watcher.density, quick=watcher.quick,
        full={str(k): v for k, v in watcher.full.items()}, stops=watcher.stops, final=final)
    return out


def _worker(config, cap, out=OUT):
    path = Path(out) / f"{key_of(dict(config, cap=cap))}.json"
    if path.exists():
        return path, None
    try:
        res = run_one(config, cap)
    except Exception as exc:  # noqa: BLE001 - a failed run is recorded, the study goes on
        res = dict(config, cap=cap, error=f"{type(exc).__name__}: {exc}"[:300])
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(res))
    tmp.replace(path)
    return path, res


def run(args):
    if args.smoke:
        if args.out:
            print_long(run_smoke(args.out))
        else:
            with tempfile.TemporaryDirectory() as tmp:
                print_long(run_smoke(tmp))
        return
    out = Path(args.out) if args.out else OUT
    out.mkdir(parents=True, exist_ok=True)
    if args.plan == "large":
        configs = plan_large()
    else:
        configs = grid(args.datasets, args.methods, args.candidates, args.beta_rels,
                       args.all_lams)
    todo = [c for c in configs if not (out / f"{key_of(dict(c, cap=args.cap))}.json").exists()]
    if args.plan != "large":
        todo.sort(key=lambda c: -COST.get(c["dataset"], 1.0))
    print(f"{len(configs)} runs, {len(todo)} to do, {args.jobs} processes", flush=True)
    t0 = time.time()
    if args.jobs <= 1:
        for c in todo:
            if args.deadline and time.time() - t0 > args.deadline:
                break
            _, res = _worker(c, args.cap, out)
            _say(res, t0)
        return
    with ProcessPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(_worker, c, args.cap, out): c for c in todo}
        for fut in as_completed(futures):
            try:
                _, res = fut.result()
            except Exception as exc:  # noqa: BLE001
                print("failed:", futures[fut], exc, flush=True)
                continue
            _say(res, t0)
            if args.deadline and time.time() - t0 > args.deadline:
                for other in futures:
                    other.cancel()


def _say(res, t0):
    if res is None:
        return
    fin = res.get("final") or {}
    print(f"[{time.time() - t0:6.0f} s] {res['dataset']} {res['method']} {res['model']} "
          f"rel={res['beta_rel']} lam={res['lam']}: {res.get('n_iter')} it, "
          f"{fin.get('acc', float('nan')):.2f}/{fin.get('nmi', float('nan')):.2f}, "
          f"{res.get('seconds', 0):.1f} s {res.get('error', '')}", flush=True)


def load_results(cap, out=OUT):
    """The study's cached runs with this ``cap`` (in ``out``)."""
    return read_results(out, cap)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--datasets", nargs="+", default=list(DATASETS))
    r.add_argument("--methods", nargs="+", default=list(WEIGHTING))
    r.add_argument("--candidates", nargs="+", default=list(MODELS))
    r.add_argument("--beta-rels", nargs="+", type=float, default=list(BETA_RELS))
    r.add_argument("--all-lams", action="store_true", help="also each method's other lambda")
    r.add_argument("--jobs", type=int, default=1)
    r.add_argument("--cap", type=int, default=300)
    r.add_argument("--plan", choices=("grid", "large"), default="grid",
                   help="'large': the plan of the large datasets (plan_large) instead of the grid")
    r.add_argument("--deadline", type=float, default=0,
                   help="seconds after which no new run starts (0: none)")
    r.add_argument("--out", default=None,
                   help="the folder of the runs' JSON files (default: benchmarks/out/study_stability)")
    _preamble.add_argument(r, "the smoke runs (smoke_configs) into a temporary folder or --out")
    t = sub.add_parser("table")
    t.add_argument("--cap", type=int, default=300)
    t.add_argument("--long", action="store_true",
                   help="one row per run: scores at 30/100/300/1000 iterations and at the end")
    t.add_argument("--without", nargs="+", default=(),
                   help="leave these datasets out (e.g. while their runs are missing)")
    t.add_argument("--out", default=str(OUT), help="the folder of the runs' JSON files")
    args = ap.parse_args()
    if args.cmd == "run":
        run(args)
    elif args.long:
        print_long(load_results(args.cap, args.out))
    else:
        print_tables(load_results(args.cap, args.out), without=tuple(args.without))


if __name__ == "__main__":
    main()
