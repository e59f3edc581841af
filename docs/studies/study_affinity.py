"""Two follow-ups of the defaults study: Elhamifar's ρ-threshold affinity, and λ against the
Gram spectrum.

    python docs/studies/study_affinity.py [--only NAME ...] [--table]

The fits are those of ``docs/studies/study_defaults.py`` (same datasets, loading and
clustering protocol, imported from it), at the default beta (``beta="auto"``, the
weighting's default ``beta_rel``) for lambda in {0.3, 1, 3, 10} (Reuter: {1, 3, 10}, its
fits take minutes), RMSC and RMSC-WV, raw input. Each fit's Z* is clustered (spectral
clustering, 20 k-means runs, random_state=0, no placement) with every affinity of
:data:`AFFINITIES`:

* ``raw`` (|Z*| + |Z*ᵀ|)/2, the paper's; ``colmax`` (each column of |Z*| divided by its
  maximum first, the default); ``top10+colmax``;
* ``rho=…+colmax``: Elhamifar & Vidal's ρ-threshold (their code's ``thrC``: each column
  keeps its largest coefficients until they hold the fraction ρ of its ℓ1 mass,
  :func:`rmsc.spectral.affinity_from_coefficients` ``keep_mass``), then colmax, as their
  ``BuildAdjacency`` does.

Table 1 is ACC per dataset and affinity at each method's default lambda, with the
affinity's regret (the best affinity's ACC minus its own). Table 2 puts the lambda that
clustered best (colmax, labels used, ties: every tied lambda) beside measures of each
dataset's Gram spectrum (unit-L2 samples, so trace(XᵀX) = n for every view): the largest
eigenvalue over n and the participation ratio (Σσ)²/Σσ² over n, averaged over the views,
and the spread of the best lambda in each unit: a parameterisation that travels is one
in which the best value moves least between datasets.

Results are cached in ``benchmarks/out/study_affinity.json`` (one entry per fit);
``--table`` prints from the cache.

Measured: the tables of docs/defaults.md, "Follow-ups" were written at commit 6f1a6fd
(2026-11-25), on that commit's code. Rerun it to update them (smoke-tested:
tests/benchmarks/test_benchmarks.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, --smoke, one thread)

import argparse
import json
import time
import warnings


import study_defaults as sd  # noqa: E402  (sets one BLAS thread before numpy loads)


import numpy as np  # noqa: E402

import rmsc  # noqa: E402
from rmsc.preprocessing import normalize_l2  # noqa: E402
from rmsc.rmsc import DegenerateSolutionError  # noqa: E402
from rmsc.spectral import affinity_from_coefficients, spectral_clustering  # noqa: E402

OUT = _preamble.OUT / "study_affinity.json"
LAMS = (0.3, 1.0, 3.0, 10.0)
REUTER_LAMS = (1.0, 3.0, 10.0)
#: beta_rel of beta="auto": the default (0.25 for both weightings) and twice it.
BETA_RELS = (0.25, 0.5)
#: ρ of the threshold: 0.7 as Elhamifar & Vidal's demos, and a gentler 0.9.
RHOS = (0.7, 0.9)
AFFINITIES = {
    "raw": {},
    "colmax": {"scale_columns": True},
    "top10+colmax": {"top_k": 10, "scale_columns": True},
    **{f"rho={r:g}+colmax": {"keep_mass": r, "scale_columns": True} for r in RHOS},
}
NAMES = ("Subspaces", "Digit-small", "3-Sources", "Digit", "Synthetic-300", "Synthetic-1000",
         "Reuter")


def load(name):
    key = sd.datasets().get(name)
    variants, labels, _ = sd.load(key)
    return variants[0], labels


def fit_one(views, labels, method, lam, beta_rel):
    c = int(np.unique(labels).size)
    est = rmsc.RMSC(n_clusters=c, lam=lam, beta_rel=beta_rel, weighting=sd.METHODS[method],
                    random_state=0)
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(views)
    except DegenerateSolutionError as exc:
        return {"degenerate": str(exc)[:120], "seconds": time.perf_counter() - t0}
    scores = {}
    for aff, kw in AFFINITIES.items():
        S = affinity_from_coefficients(est.consensus_, **kw)
        runs, _ = spectral_clustering(S, c, random_state=0)
        ev = rmsc.evaluate_runs(labels, runs.runs)
        scores[aff] = {"acc": ev["acc_mean"], "nmi": ev["nmi_mean"]}
    return {"scores": scores, "beta": est.beta_, "beta_rel": est.beta_rel_,
            "n_iter": int(est.n_iter_), "seconds": time.perf_counter() - t0}


def spectrum(views):
    """n, and the mean over the views of lambda_max(XᵀX)/n and the participation ratio / n."""
    tops, prs = [], []
    for X in views:
        X = normalize_l2(X)
        X = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)
        small = X @ X.T if X.shape[1] >= X.shape[0] else X.T @ X   # same nonzero spectrum
        ev = np.clip(np.linalg.eigvalsh(small), 0.0, None)
        n = X.shape[0]
        tops.append(ev.max() / n)
        prs.append(ev.sum() ** 2 / (ev ** 2).sum() / n)
    return n, float(np.mean(tops)), float(np.mean(prs))


def run(cache, names, smoke=False):
    for name in names:
        views, labels = load(name)
        if "n" not in cache.get(f"{name}|spectrum", {}):
            cache[f"{name}|spectrum"] = dict(zip(("n", "top", "pr"), spectrum(views)))
        for method in sd.METHODS:
            for lam in _preamble.first(REUTER_LAMS if name == "Reuter" else LAMS, smoke):
                for rel in _preamble.first(BETA_RELS, smoke):
                    k = key(name, method, lam, rel)
                    if k in cache:
                        continue
                    cache[k] = fit_one(views, labels, method, lam, rel)
                    OUT.write_text(json.dumps(cache, indent=1))
                    acc = cache[k].get("scores", {}).get("colmax", {}).get("acc", float("nan"))
                    print(f"{k:36s} colmax ACC={acc:.4f} {cache[k]['seconds']:.1f}s", flush=True)
        OUT.write_text(json.dumps(cache, indent=1))


def key(name, method, lam, beta_rel):
    return f"{name}|{method}|{lam:g}|{beta_rel:g}"


def acc(entry, aff):
    return 100 * entry["scores"][aff]["acc"] if "scores" in entry else 0.0


def print_tables(cache):
    names = [n for n in NAMES if f"{n}|spectrum" in cache]
    for method in sd.METHODS:
        lam = rmsc.rmsc.default_lam(sd.METHODS[method])
        print(f"\n## {method} at its defaults (λ = {lam:g}, β = auto): ACC % per affinity "
              "(regret against the best affinity, points)")
        print("| affinity | " + " | ".join(names) + " | worst regret |")
        print("|---|" + "---|" * (len(names) + 1))
        rel = rmsc.rmsc.BETA_REL[sd.METHODS[method]]
        entries = {n: cache.get(key(n, method, lam, rel)) for n in names}
        best = {n: max(acc(e, a) for a in AFFINITIES) for n, e in entries.items() if e}
        for aff in AFFINITIES:
            cells, worst = [], 0.0
            for n in names:
                e = entries[n]
                if e is None:
                    cells.append("not run")
                    continue
                a = acc(e, aff)
                worst = max(worst, best[n] - a)
                cells.append(f"{a:.1f} ({best[n] - a:.1f})")
            print(f"| {aff} | " + " | ".join(cells) + f" | **{worst:.1f}** |")
    print_settings(cache, names)
    print("\n## λ against the Gram spectrum: the λ that clustered best (colmax, default β_rel)")
    print("| dataset | n | λ_max / n | participation ratio / n | best λ RMSC | best λ RMSC-WV |")
    print("|---|---|---|---|---|---|")
    # Units: the absolute λ (trace(XᵀX) = n, so also λ over the mean eigenvalue); λ over
    # the largest eigenvalue of XᵀX (n · λ_max/n); λ over the typical eigenvalue of the
    # effective rank (trace / participation ratio = 1 / (PR/n)).
    spread = {"absolute": [], "/ λ_max(XᵀX)": [], "/ (trace / effective rank)": []}
    for n in names:
        spec = cache[f"{n}|spectrum"]
        cols = []
        for method in sd.METHODS:
            rel = rmsc.rmsc.BETA_REL[sd.METHODS[method]]
            lams = REUTER_LAMS if n == "Reuter" else LAMS
            got = {lam: acc(cache[key(n, method, lam, rel)], "colmax") for lam in lams
                   if key(n, method, lam, rel) in cache}
            if not got:
                cols.append("not run")
                continue
            top = max(got.values())
            tied = [lam for lam, a in got.items() if a >= top - 1e-9]
            cols.append(", ".join(f"{lam:g}" for lam in tied) + f" ({top:.1f})")
            if len(tied) == 1:   # a tie (e.g. 100 % at every λ) says nothing about λ
                spread["absolute"].append(tied[0])
                spread["/ λ_max(XᵀX)"].append(tied[0] / (spec["n"] * spec["top"]))
                spread["/ (trace / effective rank)"].append(tied[0] * spec["pr"])
        print(f"| {n} | {spec['n']} | {spec['top']:.3f} | {spec['pr']:.3f} | "
              + " | ".join(cols) + " |")
    print("\nSpread of the untied best λ (both methods), largest / smallest, in each unit:")
    for unit, vals in spread.items():
        if vals:
            print(f"- λ {unit}: {max(vals) / min(vals):.1f} (from {min(vals):.3g} to "
                  f"{max(vals):.3g}, {len(vals)} values)")


def print_settings(cache, names):
    """Regret of every (λ, β_rel) per method, colmax: the defaults' choice on these fits."""
    for method in sd.METHODS:
        rows = {}
        for n in names:
            for lam in (REUTER_LAMS if n == "Reuter" else LAMS):
                for rel in BETA_RELS:
                    e = cache.get(key(n, method, lam, rel))
                    if e is not None:
                        rows.setdefault((lam, rel), {})[n] = acc(e, "colmax")
        best = {n: max(r[n] for r in rows.values() if n in r) for n in names}
        full = [(max(best[n] - r[n] for n in names), s, r) for s, r in rows.items()
                if all(n in r for n in names)]
        full.sort(key=lambda t: t[0])
        print(f"\n## {method}: regret of each (λ, β_rel) in ACC points, colmax (settings run on "
              "every dataset; best first)")
        print("| λ | β_rel | worst | " + " | ".join(names) + " |")
        print("|---|---|---|" + "---|" * len(names))
        for worst, (lam, rel), r in full:
            print(f"| {lam:g} | {rel:g} | **{worst:.1f}** | "
                  + " | ".join(f"{best[n] - r[n]:.1f}" for n in names) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--table", action="store_true")
    _preamble.add_argument(ap)
    args = ap.parse_args()
    global OUT
    if args.smoke:  # Subspaces, one setting, a throwaway cache
        import tempfile

        args.only = args.only or ["Subspaces"]
        OUT = Path(tempfile.mkdtemp(prefix="study_affinity_")) / OUT.name
    OUT.parent.mkdir(parents=True, exist_ok=True)
    cache = json.loads(OUT.read_text()) if OUT.exists() else {}
    if not args.table:
        run(cache, args.only or NAMES, args.smoke)
    print_tables(cache)


if __name__ == "__main__":
    main()
