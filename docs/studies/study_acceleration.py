"""Fewer iterations to the same optimum? RMSC's safeguarded accelerations against the plain solver.

    python docs/studies/study_acceleration.py [--datasets ...] [--methods ...] [--cap 300]
    python docs/studies/study_acceleration.py --smoke        # tiny data, seconds (the tests)

For RMSC and RMSC-WV at their defaults (``rmsc.get_method(name, n_clusters=c,
random_state=0)``) on every dataset of the repository (those of
``docs/studies/study_stability.py``), fitted in one run, one after the other:

* "converged": the plain solver run on to convergence as ``bench_stability.py`` does (the
  objective's relative decrease ``tol=1e-6``, at most ``--cap`` iterations);
* "plain": the defaults with ``acceleration="none"`` (the plain Algorithm 1; the
  consensus's relative change <= 3e-3, at most 200 iterations);
* each candidate of :data:`CANDIDATES` (``acceleration="extrapolate"``, ``"anderson"``; the
  same stopping rule, and the extrapolation at ``tol=1e-3``);
* "former": the fit before the stability study (the paper's model, tol 1e-4, at most 30 iterations),
  the time target's yardstick (the speed round: a default Digit fit at most 1.5x its time).

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

from sklearn.metrics import adjusted_rand_score  # noqa: E402

ROOT = _preamble.ROOT

import rmsc  # noqa: E402
from rmsc.metrics import evaluate_runs  # noqa: E402
from rmsc.preprocessing import normalize_l2  # noqa: E402

from bench_stability import BEFORE, REFERENCE_TOL, smoke_data  # noqa: E402
from study_stability import DATASETS, load  # noqa: E402

CACHE = _preamble.OUT / "study_acceleration.json"

METHODS = ("RMSC", "RMSC-WV")

#: The fits compared, by name: the parameters set on top of the defaults.
CANDIDATES = {
    "plain": {"acceleration": "none"},
    "extrapolate": {"acceleration": "extrapolate"},
    "anderson": {"acceleration": "anderson"},
    "extrapolate, tol 1e-3": {"acceleration": "extrapolate", "tol": 1e-3},
    "former": {**BEFORE, "acceleration": "none"},
}


def fit(method, views, labels, c, **params):
    est = rmsc.get_method(method, n_clusters=c, random_state=0, **params)
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


def measure(method, views, labels, c, cap, candidates, row=None):
    """Every fit of one dataset and method that ``row`` (a cached row) lacks: the converged
    reference, then the candidates (None for an acceleration on the kernel form)."""
    if row is None:
        row = {"n": int(views[0].shape[0]), "kernel": kernel_form(views)}
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


def table(results, candidates, cap):
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
    lines.append(f"converged: the plain solver to the objective's relative decrease "
                 f"{REFERENCE_TOL:g}, at most {cap} iterations; it (accepted): iterations, and "
                 "how many accelerated candidates were kept.")
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
    _preamble.add_argument(ap)
    args = ap.parse_args(argv)
    candidates = list(dict.fromkeys(["plain"] + list(args.candidates)))
    if args.smoke:
        views, labels, c = smoke_data()
        results = [(("smoke", m), measure(m, views, labels, c, 30, candidates))
                   for m in args.methods]
        print(table(results, candidates, 30))
        return 0
    cache = json.loads(CACHE.read_text()) if CACHE.exists() and not args.fresh else {}
    sig = signature(args.cap)
    results = []
    for name in args.datasets:
        data = None
        for method in args.methods:
            key = f"{name}|{method}"
            hit = cache.get(key)
            row = hit["row"] if hit is not None and hit.get("signature") == sig else None
            if row is None or any(c not in row for c in ["converged"] + candidates):
                if data is None:
                    data = load(name)
                row = measure(method, *data, args.cap, candidates, row)
                cache[key] = {"signature": sig, "row": row}
                CACHE.parent.mkdir(parents=True, exist_ok=True)
                CACHE.write_text(json.dumps(cache))
            results.append(((name, method), cache[key]["row"]))
            print(f"{name} {method} done", file=sys.stderr, flush=True)
    print(table(results, candidates, args.cap))
    return 0


if __name__ == "__main__":
    sys.exit(main())
