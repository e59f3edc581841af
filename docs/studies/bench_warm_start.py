"""Would a slider move's fit give the same answer if it started from the nearest finished fit?

    python docs/studies/bench_warm_start.py [--datasets Subspaces Digit-small 3-Sources]
                                          [--digit-steps 1] [--smoke]

For every point of the Solve page's two sliders (λ on ``LAM_GRID`` at the default β_rel,
β_rel on ``BETA_REL_GRID`` at the default λ; everything else at the dashboard's defaults,
``rmsc.dashboard.Params()``), a cold fit (Algorithm 1 from its usual start) is compared with a
warm fit of the same setting started from each slider neighbour's finished fit: its Z*, the
Z^v of that Z*, and its weights P (the first Z*-step weighs with them); β ("auto"), the loss
scale and the view factors are the setting's own, computed before the iterations as in a cold
fit. Both fits run the factor form (the kernel form gives the same iterates and has no warm
start here). Reported per dataset: the adjusted Rand index between the warm and the cold
clustering (lowest, and how many pairs fall below 0.99), the largest ACC difference, and the
iterations each needed. The decision in docs/warm_starts.md rests on this table.

``--datasets`` with Digit or Reuter fits a subgrid: ``--digit-steps`` slider steps either side
of the defaults (each Digit fit takes tens of seconds on the project's 2 shared cores).
The warm start is set up here by wrapping two names of ``rmsc.solver._algorithm`` for the
length of a fit (the solver itself has no warm start: this measures whether it should).

Measured: the tables of docs/warm_starts.md were written at commit d9de237 (2026-11-28), on
that commit's code. Not smoke-tested: a one-off, kept as the record of that run; later code
may not run it unchanged (to rerun it, check out that commit).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, --smoke, one thread)

import argparse
import contextlib
import statistics
import time

import numpy as np
import scipy.sparse as sp
from sklearn.metrics import adjusted_rand_score


from rmsc import dashboard as dash  # noqa: E402
from rmsc import datasets  # noqa: E402
from rmsc.dashboard.params import BETA_REL_GRID, LAM_GRID  # noqa: E402
from rmsc.methods import get_method  # noqa: E402
from rmsc.metrics import evaluate  # noqa: E402
from rmsc.solver import _algorithm as alg  # noqa: E402

#: Datasets fitted on a subgrid around the defaults (slow on 2 cores).
LARGE = ("Digit", "Reuter")


@contextlib.contextmanager
def factor_form(start=None):
    """Fits inside run the factor form; with ``start`` (an RMSC fitted before), the first
    Z*-step starts from its Z*, the Z^v of that Z* and its weights P."""
    form, units, kernel = alg.FactorForm, alg.model_units, alg.use_kernel_form
    alg.use_kernel_form = lambda *a, **k: False
    seen = {}

    def model_units(*args, **kwargs):
        out = units(*args, **kwargs)
        seen["factors"] = out[1]
        return out

    class WarmForm(form):
        first = True

        def zstar_step(self, Zref, W, lam, beta, with_colmax):
            if self.first:
                self.first = False
                Z0 = sp.csc_matrix(start.consensus_)
                # Z^v-step at Z0 (eq. update_z_v): the views' representations of that Z*
                self.Ts = [v.R - np.asarray((Z0.T @ v.R.T).T) for v in self.views]
                self.zv_step()
                Zref = Z0
                W = alg.consensus_weights(np.asarray(start.weights_), seen["factors"])
            return super().zstar_step(Zref, W, lam, beta, with_colmax)

    if start is not None:
        alg.FactorForm, alg.model_units = WarmForm, model_units
    try:
        yield
    finally:
        alg.FactorForm, alg.model_units, alg.use_kernel_form = form, units, kernel


def fit(data, params, start=None):
    est = get_method(params.method, **dash.estimator_params(params, data))
    t0 = time.perf_counter()
    with factor_form(start):
        est.fit(list(data.views))
    return est, time.perf_counter() - t0


def axes(steps=None):
    """The two sliders' points: [(axis, Params)] in slider order, per axis; with ``steps``,
    only that many either side of the default."""
    base = dash.Params()
    out = {}
    for name, grid, value in (("λ", LAM_GRID, base.resolved_lam),
                              ("β_rel", BETA_REL_GRID, base.resolved_beta_rel)):
        grid = sorted(set(grid) | {value})
        k = grid.index(value)
        if steps is not None:
            grid = grid[max(0, k - steps):k + steps + 1]
        key = "lam" if name == "λ" else "beta_rel"
        out[name] = [base.replace(**{key: v}) for v in grid]
    return out


def measure(data, points, log):
    """Every point cold, and warm from each neighbour on its slider: rows of the table."""
    rows = []
    for axis, settings in points.items():
        cold = []
        for p in settings:
            try:
                cold.append(fit(data, p))
            except Exception as exc:  # a degenerate setting: no clustering to compare
                cold.append((None, repr(exc)))
        for i, p in enumerate(settings):
            est, secs = cold[i]
            if est is None:
                continue
            for j in (i - 1, i + 1):
                if not 0 <= j < len(settings) or cold[j][0] is None:
                    continue
                try:
                    warm, wsecs = fit(data, p, start=cold[j][0])
                except Exception as exc:
                    log(f"  {axis} {p.resolved_lam:g}/{p.resolved_beta_rel:g} warm: {exc!r}")
                    continue
                ari = adjusted_rand_score(est.labels_, warm.labels_)
                accs = [100 * evaluate(data.labels, e.labels_)["acc"] for e in (est, warm)]
                rows.append(dict(axis=axis, lam=p.resolved_lam, beta_rel=p.resolved_beta_rel,
                                 ari=ari, acc_cold=accs[0], acc_warm=accs[1],
                                 it_cold=est.n_iter_, it_warm=warm.n_iter_, s_cold=secs,
                                 s_warm=wsecs))
                r = rows[-1]
                log(f"  {axis}: λ={r['lam']:g} β_rel={r['beta_rel']:g} from "
                    f"{'left' if j < i else 'right'}: ARI {ari:.4f}, ACC {accs[0]:.2f} / "
                    f"{accs[1]:.2f}, iterations {r['it_cold']} / {r['it_warm']}")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["Subspaces", "Digit-small", "3-Sources"])
    ap.add_argument("--digit-steps", type=int, default=1,
                    help="slider steps either side of the defaults for Digit and Reuter")
    _preamble.add_argument(ap)
    args = ap.parse_args()
    if args.smoke:
        args.datasets, args.digit_steps = ["Subspaces"], 1

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    table = []
    for name in args.datasets:
        data = datasets.load_bundled(name)
        steps = args.digit_steps if (name in LARGE or args.smoke) else None
        log(f"{name}: {'full sliders' if steps is None else f'{steps} step(s) either side'}")
        rows = measure(data, axes(steps), log)
        table.append((name, steps, rows))

    print("Warm start from a slider neighbour's finished fit against a cold fit "
          "(rmsc.dashboard.Params() defaults; `python docs/studies/bench_warm_start.py "
          + " ".join(sys.argv[1:]) + "`)")
    print()
    print("| dataset | sliders | pairs | lowest ARI warm vs cold | pairs ARI < 0.99 | "
          "largest |ΔACC| points | median iterations cold | median iterations warm | "
          "seconds cold / warm (total) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for name, steps, rows in table:
        if not rows:
            print(f"| {name} | — | 0 | — | — | — | — | — | — |")
            continue
        grid = "full" if steps is None else f"±{steps} step(s)"
        low = min(r["ari"] for r in rows)
        below = sum(r["ari"] < 0.99 for r in rows)
        dacc = max(abs(r["acc_cold"] - r["acc_warm"]) for r in rows)
        print(f"| {name} | {grid} | {len(rows)} | {low:.4f} | {below} | {dacc:.2f} | "
              f"{statistics.median(r['it_cold'] for r in rows):g} | "
              f"{statistics.median(r['it_warm'] for r in rows):g} | "
              f"{sum(r['s_cold'] for r in rows):.1f} / {sum(r['s_warm'] for r in rows):.1f} |")
    worst = sorted((r for _, _, rows in table for r in rows), key=lambda r: r["ari"])[:5]
    if worst:
        print()
        print("Lowest agreements:")
        print()
        print("| slider | λ | β_rel | ARI | ACC cold % | ACC warm % | iterations cold / warm |")
        print("|---|---:|---:|---:|---:|---:|---|")
        for r in worst:
            print(f"| {r['axis']} | {r['lam']:g} | {r['beta_rel']:g} | {r['ari']:.4f} | "
                  f"{r['acc_cold']:.2f} | {r['acc_warm']:.2f} | {r['it_cold']} / "
                  f"{r['it_warm']} |")


if __name__ == "__main__":
    main()
