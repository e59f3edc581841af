"""Which RMSC / RMSC-WV parameters travel across data: the study behind the defaults.

    python docs/studies/study_defaults.py [--only NAME ...] [--skip-reuter] [--table] [--smoke]

Every dataset the repository has (bundled Digit, Digit-small, Subspaces, Reuter,
3-Sources; synthetic subspaces at n = 300 and 1000; larger n in
benchmarks/check_defaults.py) is fitted by RMSC and
RMSC-WV over a small grid of lambda and beta, beta given in two relative units:

* ``q`` — a multiple of the 5 % quantile of the per-sample emptying betas
  (:func:`rmsc.solver.column_betas`: column j of Z* is empty at the start for any
  beta above its value), i.e. "beta such that about 5 % of samples start unlinked";
* ``max`` — a fraction of ``beta_max_`` (the beta that empties all of Z*).

plus the old absolute defaults (lam = 0.3, beta = 0.3; RMSC-WV beta = 0.005). Each fit's
Z* is clustered with three affinities: ``raw`` (|Z*| + |Z*^T|)/2, ``colmax`` (each
column of |Z*| divided by its maximum first) and ``top10+colmax``. 3-Sources, whose
views are term counts, is also fitted on tf-idf and log1p(counts) inputs. ACC and NMI
are the means over the 20 k-means runs (the paper's protocol); a degenerate fit
(``DegenerateSolutionError``) scores ACC 0.

Results are cached in ``benchmarks/out/study_defaults.json`` (one entry per fit), so
the script resumes where it stopped; ``--table`` prints from the cache only. The
table printed last is the regret of every setting: for each dataset, its best ACC
minus the setting's ACC, in points; the defaults are the setting whose worst regret
over the datasets is smallest.

Reuter (1200 x 5 views of 2000 features; 25-190 s a fit on the shared machine) gets a
reduced grid: lam in {1, 3, 10} x beta in {0.25 q, 0.5 q, 1 q, 0.03 max}, plus the old
default. ``--scales`` prints, per dataset and lam, beta_max beside the quantiles of the
emptying betas (why the units differ).

Measured: the tables of docs/defaults.md were written at commit 4694e94 (2026-11-24), on
that commit's code. Rerun it to update them (smoke-tested: tests/benchmarks/test_benchmarks.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, --smoke, one thread)

_preamble.one_thread()  # before numpy

import argparse  # noqa: E402
import json
import time
import warnings

import numpy as np

ROOT = _preamble.ROOT

import rmsc  # noqa: E402
from rmsc.preprocessing import normalize_l2, tfidf  # noqa: E402
from rmsc.rmsc import DegenerateSolutionError  # noqa: E402
from rmsc.selection import graph_criterion  # noqa: E402
from rmsc.spectral import affinity_from_coefficients, spectral_clustering  # noqa: E402

OUT = _preamble.OUT / "study_defaults.json"
LAMS = (0.3, 1.0, 3.0, 10.0)
BETAS = (("q", 0.25), ("q", 0.5), ("q", 1.0), ("max", 0.03), ("max", 0.1))
REUTER_LAMS = (1.0, 3.0, 10.0)
REUTER_BETAS = (("q", 0.25), ("q", 0.5), ("q", 1.0), ("max", 0.03))
AFFINITIES = {"raw": (None, False), "colmax": (None, True), "top10+colmax": (10, True)}
METHODS = {"RMSC": "sample", "RMSC-WV": "view"}
OLD_DEFAULT = {"RMSC": (0.3, 0.3), "RMSC-WV": (0.3, 0.005)}
QUANTILE = 0.05
GAMMA = 1e-5


def synthetic(n):
    return rmsc.datasets.make_multiview_subspaces(
        n_clusters=10, n_per_cluster=n // 10, n_views=3, view_dims=(80, 100, 120),
        subspace_dim=5, noise=0.05, random_state=0)


def datasets(skip_reuter=False):
    """name -> (views as the estimator receives them, labels)."""
    out = {}
    for name in ("Subspaces", "Digit-small", "Digit", "3-Sources", "Reuter"):
        if name == "Reuter" and skip_reuter:
            continue
        out[name] = name
    for n in (300, 1000):
        out[f"Synthetic-{n}"] = n
    return out


def load(key):
    if isinstance(key, int):
        d = synthetic(key)
        return [d.views], d.labels, ("raw",)
    d = rmsc.datasets.load_bundled(key)
    if key == "3-Sources":
        logs = [np.log1p(X) for X in d.views]
        return [d.views, [tfidf(X) for X in d.views], logs], d.labels, ("raw", "tfidf", "log1p")
    return [d.views], d.labels, ("raw",)


def settings(name):
    if name == "Reuter":
        return [(lam, kind, r) for lam in REUTER_LAMS for kind, r in REUTER_BETAS]
    return [(lam, kind, r) for lam in LAMS for kind, r in BETAS]


def evaluate(Z, labels, c):
    out = {}
    for aff, (top_k, scale) in AFFINITIES.items():
        S = affinity_from_coefficients(Z, top_k=top_k, scale_columns=scale)
        crit = graph_criterion(S, c)  # the label-free criterion of rmsc.suggest_parameters
        runs, _ = spectral_clustering(S, c, random_state=0)
        ev = rmsc.evaluate_runs(labels, runs.runs)
        out[aff] = {"acc": ev["acc_mean"], "nmi": ev["nmi_mean"], "isolated": crit.isolated,
                    "pieces": crit.pieces, "eigengap": crit.eigengap}
    return out


def fit_one(views, labels, method, lam, beta):
    c = int(np.unique(labels).size)
    est = rmsc.RMSC(n_clusters=c, lam=lam, beta=beta, gamma=GAMMA, weighting=METHODS[method],
                    random_state=0)
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(views)
    except DegenerateSolutionError as exc:
        return {"degenerate": str(exc)[:120], "seconds": time.perf_counter() - t0}
    Z = est.consensus_
    res = evaluate(Z, labels, c)
    return {"scores": res, "beta_max": est.beta_max_, "n_iter": int(est.n_iter_),
            "links": Z.nnz / Z.shape[0], "seconds": time.perf_counter() - t0}


def run(cache, names, skip_reuter, done=(), smoke=False):
    for name, key in datasets(skip_reuter).items():
        if names and name not in names:
            continue
        variants, labels, inputs = load(key)
        for inp, raw_views in zip(inputs, variants):
            if inp != "raw" and name != "3-Sources":
                continue
            views = [normalize_l2(X) for X in raw_views]
            factors = rmsc.solver.gram_factors(views)
            for method, weighting in METHODS.items():
                if name == "Reuter" and inp != "raw":
                    continue
                anchors = {}
                grid = [(OLD_DEFAULT[method][0], "abs", OLD_DEFAULT[method][1])] + _preamble.first(
                    settings(name), smoke)
                for lam, kind, r in grid:
                    k = f"{name}|{inp}|{method}|{lam:g}|{kind}|{r:g}"
                    if k in cache or k in done:
                        continue
                    if kind == "abs":
                        beta = r
                    else:
                        if lam not in anchors:
                            cb = rmsc.solver.column_betas(factors, lam, GAMMA, weighting=weighting)
                            anchors[lam] = {"q": float(np.quantile(cb, QUANTILE)),
                                            "max": float(cb.max())}
                        beta = r * anchors[lam][kind]
                    res = fit_one(raw_views, labels, method, lam, beta)
                    res["beta"] = beta
                    cache[k] = res
                    OUT.write_text(json.dumps(cache, indent=1))
                    acc = res.get("scores", {}).get("colmax", {}).get("acc", float("nan"))
                    print(f"{k:45s} beta={beta:.3g} colmax ACC={acc:.4f} "
                          f"{res['seconds']:.1f}s", flush=True)


def acc_of(entry, aff):
    if "scores" not in entry:
        return 0.0
    return entry["scores"][aff]["acc"]


def table(cache, method):
    """Regret (points of ACC) of every (lam, beta-unit, affinity, input) setting."""
    rows = {}
    best = {}
    for k, e in cache.items():
        name, inp, meth, lam, kind, r = k.split("|")
        if meth != method:
            continue
        for aff in AFFINITIES:
            ds = name if name != "3-Sources" else "3-Sources"
            acc = acc_of(e, aff)
            best[ds] = max(best.get(ds, 0.0), acc)
            setting = (lam, kind, r, aff, inp)
            rows.setdefault(setting, {})[ds] = max(rows.get(setting, {}).get(ds, -1), acc)
    names = sorted(best)
    # A setting's input weighting only applies to count views; elsewhere the raw entry.
    full = {}
    for (lam, kind, r, aff, inp), accs in rows.items():
        if inp != "raw":
            base = rows.get((lam, kind, r, aff, "raw"), {})
            accs = {**base, **accs}
        full[(lam, kind, r, aff, inp)] = accs
    scored = []
    for s, accs in full.items():
        if any(n not in accs for n in names):
            continue  # not run on every dataset (e.g. outside Reuter's reduced grid)
        regrets = {n: 100 * (best[n] - accs[n]) for n in names}
        scored.append((max(regrets.values()), s, regrets, accs))
    scored.sort(key=lambda t: t[0])
    return names, best, scored


def print_tables(cache):
    for method in METHODS:
        names, best, scored = table(cache, method)
        short = [n.replace("Synthetic-", "Syn") for n in names]
        print(f"\n## {method}: regret in ACC points (dataset best - setting), worst first column")
        print(f"settings run on every dataset: {len(scored)}")
        head = "| lam | beta | affinity | input | worst | " + " | ".join(short) + " |"
        print(head)
        print("|" + "---|" * (5 + len(names)))
        print("| best ACC | | | | | " + " | ".join(f"{100 * best[n]:.1f}" for n in names) + " |")
        for worst, (lam, kind, r, aff, inp), regrets, _ in scored[:12]:
            unit = f"{r} x {kind}" if kind != "abs" else f"{r} (absolute)"
            print(f"| {lam} | {unit} | {aff} | {inp} | **{worst:.1f}** | "
                  + " | ".join(f"{regrets[n]:.1f}" for n in names) + " |")
        old = [t for t in scored if t[1][1] == "abs" and t[1][3] == "raw" and t[1][4] == "raw"]
        for worst, (lam, kind, r, aff, inp), regrets, _ in old:
            print(f"| {lam} | {r} (old default) | {aff} | {inp} | **{worst:.1f}** | "
                  + " | ".join(f"{regrets[n]:.1f}" for n in names) + " |")


def suggestion_table(cache, method):
    """The label-free choice (rmsc.suggest_parameters' criterion) against the labelled best.

    Over the settings ``suggest_parameters`` tries (lam in SUGGEST_LAMS x beta_rel in
    SUGGEST_BETA_RELS, beta in units of the data's scale, raw input, the default
    affinity), per dataset: the setting the criterion picks, its ACC/NMI, the best of
    the same settings chosen with the labels, and the distance in points.
    """
    from rmsc.rmsc import BETA_QUANTILE, SCALE_COLUMNS
    from rmsc.selection import SUGGEST_BETA_RELS, SUGGEST_LAMS, GraphCriterion

    aff = "colmax" if SCALE_COLUMNS else "raw"
    unit = "max" if BETA_QUANTILE >= 1 else "q"
    rows = []
    names = sorted({k.split("|")[0] for k in cache})
    for name in names:
        cands = []
        for lam in SUGGEST_LAMS:
            for rel in SUGGEST_BETA_RELS:
                e = cache.get(f"{name}|raw|{method}|{lam:g}|{unit}|{rel:g}")
                if e is None or "scores" not in e:
                    continue
                sc = e["scores"][aff]
                crit = GraphCriterion(sc["eigengap"], sc["isolated"], sc["pieces"],
                                      n_clusters=_classes(name))
                cands.append((crit.rank_key(), lam, rel, sc))
        if not cands:
            continue
        pick = min(cands, key=lambda t: t[0])
        best_acc = max(cands, key=lambda t: t[3]["acc"])
        best_nmi = max(t[3]["nmi"] for t in cands)
        rows.append((name, len(cands), pick, best_acc, best_nmi))
    print(f"\n## {method}: label-free suggestion (eigengap at c, connectivity) vs labelled best")
    print("| dataset | settings | suggested λ, β_rel | ACC % | NMI % | labelled best λ, β_rel "
          "| best ACC % | best NMI % | ACC distance | NMI distance |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, k, pick, best, best_nmi in rows:
        _, lam, rel, sc = pick
        _, blam, brel, bsc = best
        print(f"| {name} | {k} | {lam:g}, {rel:g} | {100 * sc['acc']:.1f} | {100 * sc['nmi']:.1f} "
              f"| {blam:g}, {brel:g} | {100 * bsc['acc']:.1f} | {100 * best_nmi:.1f} | "
              f"{100 * (bsc['acc'] - sc['acc']):.1f} | {100 * (best_nmi - sc['nmi']):.1f} |")


_CLASSES = {}


def _classes(name):
    if name not in _CLASSES:
        key = datasets().get(name)
        if key is None:
            key = name
        _, labels, _ = load(key)
        _CLASSES[name] = int(np.unique(labels).size)
    return _CLASSES[name]


def print_scales():
    """beta_max against the quantiles of the per-sample emptying betas, per dataset and lam."""
    print("| dataset | n | λ | β_max | 1 % quantile | 5 % quantile | median | β_max / 5 % |")
    print("|---|---|---|---|---|---|---|---|")
    for name in ("Subspaces", "Digit-small", "3-Sources", "Digit", "Reuter"):
        d = rmsc.datasets.load_bundled(name)
        factors = rmsc.solver.gram_factors([normalize_l2(X) for X in d.views])
        for lam in LAMS:
            cb = rmsc.solver.column_betas(factors, lam, GAMMA)
            q1, q5, med = np.quantile(cb, [0.01, 0.05, 0.5])
            print(f"| {name} | {cb.size} | {lam:g} | {cb.max():.3g} | {q1:.3g} | {q5:.3g} | "
                  f"{med:.3g} | {cb.max() / q5:.1f} |")


def main():
    warnings.simplefilter("ignore")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=None,
                    help="dataset names to run (cached in a file of their own, so that two "
                         "runs can go side by side; the tables merge every cache file)")
    ap.add_argument("--skip-reuter", action="store_true")
    ap.add_argument("--table", action="store_true", help="print from the cache only")
    ap.add_argument("--scales", action="store_true",
                    help="print beta_max and the emptying betas' quantiles per dataset, only")
    _preamble.add_argument(ap)
    args = ap.parse_args()
    if args.scales:
        print_scales()
        return
    global OUT
    if args.smoke:  # Subspaces, one setting beside the old default, a throwaway cache
        import tempfile

        args.only = args.only or ["Subspaces"]
        OUT = Path(tempfile.mkdtemp(prefix="study_defaults_")) / OUT.name
    if args.only:
        OUT = OUT.with_name(f"study_defaults-{'-'.join(args.only)}.json")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    cache = json.loads(OUT.read_text()) if OUT.exists() else {}

    def merged_caches():
        merged = {}
        for path in sorted(OUT.parent.glob("study_defaults*.json")):
            merged.update(json.loads(path.read_text()))
        return merged

    if not args.table:
        run(cache, args.only, args.skip_reuter, done=set(merged_caches()), smoke=args.smoke)
    merged = merged_caches()
    print_tables(merged)
    for method in METHODS:
        suggestion_table(merged, method)


if __name__ == "__main__":
    main()
