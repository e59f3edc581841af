"""Fewer iterations to the same optimum? RMSC's safeguarded accelerations against the plain solver.

    python docs/studies/study_acceleration.py [--datasets ...] [--methods ...] [--cap 300] [--jobs N]
    python docs/studies/study_acceleration.py --references [--datasets ...]   # once, on a GPU
    python docs/studies/study_acceleration.py --references-table
    python docs/studies/study_acceleration.py --smoke        # tiny data, seconds (the tests)

For RMSC and RMSC-WV at their defaults (``rmsc.get_method(name, n_clusters=c,
random_state=0)``) on every dataset of the repository (those of
``docs/studies/study_stability.py``), fitted in one run, one after the other:

* "converged": the plain solver run on until it has truly converged, read from
  ``benchmarks/out/acceleration_references.json`` (git ignores it), which ``--references``
  computes once: the plain solver (``acceleration="none"``) at the defaults' model, stopped
  only when the consensus's relative change is at most ``1e-10`` or after ``--ref-cap``
  (15,000) iterations, in float64, on a CUDA GPU when torch sees one (Digit: about 30 s a
  fit on an H200; hours on a CPU), with the clustering at a few checkpoints on the way
  (``--references-table`` prints them). Without a stored reference (and in ``--smoke``)
  the reference is the stability study's: the objective's relative decrease ``tol=1e-6``,
  at most ``--cap`` iterations;
* "plain": the defaults with ``acceleration="none"`` (the plain Algorithm 1; the
  consensus's relative change <= 3e-3, at most 200 iterations);
* each candidate of :data:`CANDIDATES` (``acceleration="extrapolate"``, ``"anderson"``; the
  same stopping rule, and the extrapolation at ``tol=1e-3``);
* "..., clustering stop": the same, with :class:`rmsc.tracking.ClusteringStop` as the
  callback (every 5 iterations a quick clustering of Z*; stop after two checks in a row
  with ARI >= 0.99 to the previous one), whichever rule stops first;
* "former": ``bench_stability.py``'s ``BEFORE`` (the paper's model, tol 1e-4, at most 30
  iterations; it keeps the rule for uninformative samples, which the fits before the
  stability study did not have: ``bench_fit.py --targets`` times the exact former fit).

Per fit: iterations (and how many accelerated candidates were kept), seconds of the whole
``fit`` (one thread; the machine is shared, so only the ratios within one run mean
anything), the adjusted Rand index of its labels with the converged fit's and with the plain
fit's, ACC / NMI (means over the 20 k-means runs, %) and their difference from the
converged fit's. "same answer": ARI with the converged clustering at least the plain
defaults' and |Δ ACC|, |Δ NMI| at most max(1, the plain defaults'), the stability study's
bound (docs/stability.md §5). On datasets where the solver runs its kernel form (text views)
the accelerations do not apply and the fit is the plain one, which the table says.

Results are cached in ``benchmarks/out/study_acceleration.json`` (per dataset, method,
fit and parameters; ``--fresh`` ignores it).

Measured: the tables of docs/acceleration.md were written at commit 01aee68 (2026-11-28), on
that commit's code. Rerun it to update them (smoke-tested: tests/benchmarks/test_benchmarks.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, --smoke, one thread)

_preamble.one_thread()  # before numpy

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
from sklearn.metrics import adjusted_rand_score  # noqa: E402

ROOT = _preamble.ROOT

import rmsc  # noqa: E402
from rmsc.metrics import evaluate_runs  # noqa: E402
from rmsc.tracking import ClusteringStop  # noqa: E402
from rmsc.preprocessing import normalize_l2  # noqa: E402

from bench_stability import BEFORE, REFERENCE_TOL, smoke_data  # noqa: E402
from study_stability import DATASETS, load  # noqa: E402

CACHE = _preamble.OUT / "study_acceleration.json"

#: The truly converged references (``--references`` writes them; git ignores the folder).
REFERENCES = CACHE.parent / "acceleration_references.json"

#: The references' stopping: the consensus's relative change, and the iteration cap.
TRUE_TOL, TRUE_CAP = 1e-10, 15000

#: Iterations at which the reference run's clustering is recorded on the way.
CHECKPOINTS = (30, 161, 300, 1000, 3000, 6000, 10000)

METHODS = ("RMSC", "RMSC-WV")

#: The fits compared, by name: the parameters set on top of the defaults.
CANDIDATES = {
    "plain": {"acceleration": "none"},
    "extrapolate": {"acceleration": "extrapolate"},
    "anderson": {"acceleration": "anderson"},
    "extrapolate, tol 1e-3": {"acceleration": "extrapolate", "tol": 1e-3},
    "plain, clustering stop": {"acceleration": "none", "stop": "clustering"},
    "extrapolate, clustering stop": {"acceleration": "extrapolate", "stop": "clustering"},
    "former": {**BEFORE, "acceleration": "none"},
}


def fit(method, views, labels, c, stop=None, **params):
    est = rmsc.get_method(method, n_clusters=c, random_state=0, **params)
    if stop == "clustering":
        est.set_params(callback=ClusteringStop(c, keep_mass=est.keep_mass, top_k=est.top_k,
                                               scale_columns=est.scale_columns))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        est.fit(views)
        seconds = time.perf_counter() - t0
    s = evaluate_runs(labels, est.label_runs_)
    return {"acc": 100 * s["acc_mean"], "nmi": 100 * s["nmi_mean"], "n_iter": int(est.n_iter_),
            "accepted": int(getattr(est, "n_accelerated_", 0)),
            "converged": bool(est.converged_), "seconds": seconds,
            "objective": float(est.objective_[-1]), "labels": [int(x) for x in est.labels_]}


def kernel_form(views):
    """Whether the solver runs these views in its kernel form (no acceleration there)."""
    factors = rmsc.solver.gram_factors([normalize_l2(X) for X in views])
    return bool(rmsc.solver.use_kernel_form(factors))


def measure(method, views, labels, c, cap, candidates, row=None, reference=None):
    """Every fit of one dataset and method that ``row`` (a cached row) lacks: the converged
    reference (``reference`` when given), then the candidates (None for an acceleration on
    the kernel form)."""
    if row is None:
        row = {"n": int(views[0].shape[0]), "kernel": kernel_form(views)}
    if reference is not None:
        row["converged"] = reference
    if "converged" not in row:
        row["converged"] = fit(method, views, labels, c, stop_on="objective",
                               tol=REFERENCE_TOL, max_iter=cap, acceleration="none")
    for name in candidates:
        if name in row:
            continue
        params = CANDIDATES[name]
        if row["kernel"] and params.get("acceleration", "none") != "none":
            row[name] = None  # the plain iteration, by construction (see the table's note)
        else:
            row[name] = fit(method, views, labels, c, **params)
    return row


def reference_fit(method, views, labels, c, cap=TRUE_CAP, checkpoints=CHECKPOINTS):
    """The plain solver run on to ``TRUE_TOL`` (or ``cap`` iterations) in float64, on a
    CUDA GPU when torch sees one, with the clustering at each of ``checkpoints`` on the way
    (the fit's own post-processing and spectral step on the consensus and P there)."""
    import scipy.sparse as sp

    from rmsc.device import to_numpy
    from rmsc.rmsc import embed_and_cluster
    from rmsc.spectral import affinity_from_coefficients

    seen, trajectory = {}, []

    def record(it, f, P, consensus=None):
        if it % 100 == 0:
            trajectory.append((it, float(f)))
        if it in checkpoints:
            seen[it] = (to_numpy(consensus).astype(float), to_numpy(P).astype(float), float(f))
        return False

    record.needs_consensus = True
    est = rmsc.get_method(method, n_clusters=c, random_state=0, stop_on="zstar", tol=TRUE_TOL,
                          max_iter=cap, acceleration="none", callback=record)
    fit_views, context = views, None
    try:
        import torch
        if torch.cuda.is_available():
            import sklearn
            fit_views = [torch.as_tensor(X.toarray() if sp.issparse(X) else np.asarray(X, float),
                                         dtype=torch.float64, device="cuda") for X in views]
            context = sklearn.config_context(array_api_dispatch=True)
    except ImportError:
        pass
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        if context is None:
            est.fit(fit_views)
        else:
            with context:
                est.fit(fit_views)
        seconds = time.perf_counter() - t0
    runs = [to_numpy(r) for r in est.label_runs_]
    s = evaluate_runs(labels, runs)
    out = {"n_iter": int(est.n_iter_), "converged": bool(est.converged_), "seconds": seconds,
           "objective": float(to_numpy(est.objective_)[-1]),
           "change": float(to_numpy(est.changes_)[-1]), "accepted": 0,
           "acc": 100 * s["acc_mean"], "nmi": 100 * s["nmi_mean"],
           "labels": [int(x) for x in to_numpy(est.labels_)], "traj": trajectory,
           "device": "cuda" if context is not None else "cpu", "ck": {}}
    host_views = [normalize_l2(X, view=v) for v, X in enumerate(views)]
    for it, (Z, P, f) in sorted(seen.items()):
        A = affinity_from_coefficients(sp.csr_matrix(Z), keep_mass=est.keep_mass,
                                       top_k=est.top_k, scale_columns=est.scale_columns)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = embed_and_cluster(A, host_views, P, c, placement=est.placement,
                                  n_init=est.n_init, random_state=0)[2]
        sc = evaluate_runs(labels, r.runs)
        out["ck"][str(it)] = {"objective": f, "acc": 100 * sc["acc_mean"],
                              "nmi": 100 * sc["nmi_mean"], "labels": [int(x) for x in r.labels]}
    return out


def references_table(refs):
    """Where the plain iterates' clustering goes on the way to the reference."""
    lines = ["| dataset | method | iteration | objective | ACC / NMI | ARI to the last |",
             "|---|---|---:|---:|---|---:|"]
    for key, ref in refs.items():
        name, method = key.split("|")
        for it, ck in sorted(ref["ck"].items(), key=lambda kv: int(kv[0])):
            lines.append(f"| {name} | {method} | {it} | {ck['objective']:.2f} | "
                         f"{ck['acc']:.2f} / {ck['nmi']:.2f} | {_ari(ck, ref):.4f} |")
        lines.append(f"| {name} | {method} | {ref['n_iter']}{'' if ref['converged'] else ' (cap)'}"
                     f" | {ref['objective']:.2f} | {ref['acc']:.2f} / {ref['nmi']:.2f} | 1 |")
    lines.append("")
    lines.append(f"The plain solver to the consensus's relative change {TRUE_TOL:g} or "
                 f"{TRUE_CAP} iterations (float64; the last change: " + "; ".join(
                     f"{k} {r['change']:.1e}" for k, r in refs.items()) + ").")
    return "\n".join(lines)


def _ari(a, b):
    return adjusted_rand_score(a["labels"], b["labels"])


def rows_of(name, method, r, candidates):
    """The table's rows of one dataset and method, and how many candidates gave the same answer."""
    conv, plain = r["converged"], r.get("plain")
    base_gap = (max(abs(plain["acc"] - conv["acc"]), abs(plain["nmi"] - conv["nmi"]))
                if plain else None)
    base_ari = _ari(plain, conv) if plain else None
    lines, verdicts = [], {}
    for cand in candidates:
        if cand not in r:
            continue
        f, note = r[cand], ""
        if f is None:
            f, note = plain, " (kernel form: plain)"
        dacc, dnmi = f["acc"] - conv["acc"], f["nmi"] - conv["nmi"]
        ari_conv = _ari(f, conv)
        same = ""
        if cand not in ("plain", "former") and plain is not None:
            ok = (ari_conv >= base_ari - 1e-12
                  and max(abs(dacc), abs(dnmi)) <= max(1.0, base_gap) + 1e-9)
            verdicts[cand] = ok
            same = "yes" if ok else "**no**"
        ratio = f"{f['seconds'] / plain['seconds']:.2f}" if plain else ""
        it = f"{f['n_iter']}" + (f" ({f['accepted']})" if f["accepted"] else "")
        lines.append(
            f"| {name} | {r['n']} | {method} | {cand}{note} | {it} | {f['seconds']:.1f} | "
            f"{ratio} | {ari_conv:.4f} | {_ari(f, plain) if plain else float('nan'):.4f} | "
            f"{f['acc']:.2f} / {f['nmi']:.2f} | {dacc:+.2f} / {dnmi:+.2f} | {same} |")
    cap_mark = "" if conv["converged"] else " (cap)"
    lines.append(f"| {name} | {r['n']} | {method} | converged | {conv['n_iter']}{cap_mark} | "
                 f"{conv['seconds']:.1f} | | 1 | {_ari(conv, plain) if plain else float('nan'):.4f} | "
                 f"{conv['acc']:.2f} / {conv['nmi']:.2f} | | |")
    return lines, verdicts


def table(results, candidates, cap, true_refs=False):
    lines = [
        "| dataset | n | method | fit | it (accepted) | s | × plain | ARI to converged | "
        "ARI to plain | ACC / NMI | Δ ACC / Δ NMI vs converged | same answer |",
        "|---|---:|---|---|---:|---:|---:|---:|---:|---|---|---|",
    ]
    tally = {}
    for (name, method), r in results:
        rows, verdicts = rows_of(name, method, r, candidates)
        lines += rows
        for cand, ok in verdicts.items():
            tally.setdefault(cand, []).append(ok)
    lines.append("")
    if true_refs:
        lines.append(f"converged: the plain solver to the consensus's relative change "
                     f"{TRUE_TOL:g}, at most {TRUE_CAP} iterations ({REFERENCES.name}; its "
                     "seconds: on the machine that computed it); it (accepted): iterations, "
                     "and how many accelerated candidates were kept.")
    else:
        lines.append(f"converged: the plain solver to the objective's relative decrease "
                     f"{REFERENCE_TOL:g}, at most {cap} iterations; it (accepted): iterations, "
                     "and how many accelerated candidates were kept.")
    for cand, oks in tally.items():
        lines.append(f"{cand}: the same answer on {sum(oks)} of {len(oks)} rows.")
    # iterations and seconds summed over the rows (kernel-form rows: the plain fit's)
    sums = {}
    for (_, _), r in results:
        for cand in candidates:
            f = r.get(cand) or r.get("plain") if cand in r else None
            if f is not None:
                s = sums.setdefault(cand, [0, 0.0])
                s[0] += f["n_iter"]
                s[1] += f["seconds"]
    if sums:
        lines.append("Total over the rows: " + "; ".join(
            f"{cand} {it} iterations, {sec:.1f} s" for cand, (it, sec) in sums.items()) + ".")
    return "\n".join(lines)


def _measure_row(job):
    """One (dataset, method) row's missing fits (a worker process's task for ``--jobs``)."""
    name, method, cap, candidates, row, ref = job
    return measure(method, *load(name), cap, candidates, row, reference=ref)


def signature(cap):
    est = {m: {k: v for k, v in rmsc.get_method(m).get_params().items()
               if k not in ("callback", "n_clusters", "random_state", "acceleration")}
           for m in METHODS}  # every fit sets its acceleration: the default plays no part
    return json.dumps({"est": est, "cap": cap, "candidates": CANDIDATES}, sort_keys=True,
                      default=str)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS))
    ap.add_argument("--methods", nargs="+", default=list(METHODS))
    ap.add_argument("--candidates", nargs="+", default=list(CANDIDATES),
                    choices=list(CANDIDATES))
    ap.add_argument("--cap", type=int, default=300)
    ap.add_argument("--fresh", action="store_true", help="ignore the cache")
    ap.add_argument("--references", action="store_true",
                    help="compute the truly converged references (a CUDA GPU when torch sees "
                         "one) into " + str(REFERENCES.relative_to(ROOT)) + ", then stop")
    ap.add_argument("--ref-cap", type=int, default=TRUE_CAP)
    ap.add_argument("--jobs", type=int, default=1,
                    help="fit the (dataset, method) rows in this many processes at once (one "
                         "thread each; a row's fits stay one after the other in its process)")
    ap.add_argument("--references-table", action="store_true",
                    help="print the references' clusterings on the way, then stop")
    _preamble.add_argument(ap)
    args = ap.parse_args(argv)
    candidates = list(dict.fromkeys(["plain"] + list(args.candidates)))
    if args.smoke:
        views, labels, c = smoke_data()
        results = [(("smoke", m), measure(m, views, labels, c, 30, candidates))
                   for m in args.methods]
        print(table(results, candidates, 30))
        return 0
    refs = json.loads(REFERENCES.read_text()) if REFERENCES.exists() else {}
    if args.references:
        for name in args.datasets:
            views, labels, c = load(name)
            for method in args.methods:
                refs[f"{name}|{method}"] = r = reference_fit(method, views, labels, c,
                                                             cap=args.ref_cap)
                REFERENCES.parent.mkdir(parents=True, exist_ok=True)
                REFERENCES.write_text(json.dumps(refs))
                print(f"{name} {method}: {r['n_iter']} iterations, {r['seconds']:.1f} s on "
                      f"{r['device']}, ACC / NMI {r['acc']:.2f} / {r['nmi']:.2f}", flush=True)
        return 0
    if args.references_table:
        print(references_table({k: refs[k] for k in refs
                                if k.split("|")[0] in args.datasets
                                and k.split("|")[1] in args.methods}))
        return 0
    cache = json.loads(CACHE.read_text()) if CACHE.exists() and not args.fresh else {}
    sig = signature(args.cap)
    keys = [(name, method) for name in args.datasets for method in args.methods]
    todo = {}
    for name, method in keys:
        key = f"{name}|{method}"
        hit = cache.get(key)
        row = hit["row"] if hit is not None and hit.get("signature") == sig else None
        ref = refs.get(key)
        if row is not None and ref is not None:
            row["converged"] = ref
        if row is None or any(c not in row for c in ["converged"] + candidates):
            todo[key] = (name, method, row, ref)
        else:
            cache[key] = {"signature": sig, "row": row}
    jobs = [(name, method, args.cap, candidates, row, ref)
            for name, method, row, ref in todo.values()]
    if args.jobs > 1 and len(jobs) > 1:
        from concurrent.futures import ProcessPoolExecutor
        with ProcessPoolExecutor(min(args.jobs, len(jobs))) as pool:
            done = pool.map(_measure_row, jobs)
    else:
        done = map(_measure_row, jobs)
    for (name, method, *_), row in zip(jobs, done):
        cache[f"{name}|{method}"] = {"signature": sig, "row": row}
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        CACHE.write_text(json.dumps(cache))
        print(f"{name} {method} done", file=sys.stderr, flush=True)
    results = [((name, method), cache[f"{name}|{method}"]["row"]) for name, method in keys]
    print(table(results, candidates, args.cap,
                true_refs=all(f"{n}|{m}" in refs for n in args.datasets for m in args.methods)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
