"""Tables of the stability study (``python docs/studies/study_stability.py table``).

    python docs/studies/study_stability_tables.py [--cap 300] [--long] [--without ...]
    python docs/studies/study_stability_tables.py --smoke     # tiny data, seconds (the tests)

Reads the cached trajectories of :mod:`study_stability` (:data:`OUT`) and prints, for
every candidate (model, beta_rel, lambda) x stopping rule (tolerance, max_iter), the
scores at the rule's stop against the converged ones, dataset by dataset; run as a
script, the same as ``study_stability.py table``. ``--smoke`` first runs
``study_stability.py run --smoke`` (a process of its own, so that this module imports
nothing of the study's) into a temporary folder and prints the tables of those runs; their
numbers mean nothing (benchmarks/_preamble.py).

Measured: the tables of docs/stability.md (the tables this prints) were written at commit
a827151 (2026-11-26), on that commit's code. Rerun it to update them (smoke-tested:
tests/benchmarks/test_benchmarks.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, --smoke, one thread)

import argparse
import json
import math
import subprocess
import tempfile
from collections import defaultdict

HERE = Path(__file__).resolve().parent

#: The study's cache: one JSON file per run (written by ``study_stability.py run``).
OUT = _preamble.OUT / "study_stability"

#: Today's defaults: the paper's model, beta_rel 0.25, each method's lambda, the
#: objective's relative decrease <= 1e-4, at most 30 iterations.
TODAY = {"model": "paper", "beta_rel": 0.25, "rule": "obj 1e-4", "max_iter": 30}
TODAY_LAM = {"RMSC": 1.0, "RMSC-WV": 3.0}

#: Stopping rules combined with these iteration budgets.
#: (Below the study's cap of 300: a rule that always ran to the cap would equal the
#: reference by construction.)
MAX_ITERS = (30, 50, 100, 150, 200)
FIXED = (10, 30, 50, 100, 150, 200)

DATASET_ORDER = ("Subspaces", "Digit-small", "3-Sources", "Synthetic-300", "Synthetic-1000",
                 "Digit", "Digit+outliers", "Reuter")


def read_results(folder, cap=None):
    """The runs cached in ``folder`` (with this iteration ``cap``; every one when None)."""
    out = []
    for path in sorted(Path(folder).glob("*.json")):
        r = json.loads(path.read_text())
        if cap is None or r.get("cap") == cap:
            out.append(r)
    return out


def stop_of(run, rule, max_iter):
    """The iteration at which ``rule`` (or "fixed") with ``max_iter`` stops this run."""
    n = run["n_iter"]
    if rule == "fixed":
        return min(max_iter, n)
    it = run["stops"].get(rule)
    it = math.inf if it is None else it
    return int(min(it, max_iter, n))


def score_at(run, it):
    """(acc, nmi) of the estimator stopped at iteration ``it``; None when not recorded."""
    if it >= run["n_iter"] and run.get("final"):
        return run["final"]["acc"], run["final"]["nmi"]
    cell = run["full"].get(str(it))
    return None if cell is None else (cell["acc"], cell["nmi"])


def converged_score(run):
    if not run.get("final"):
        return None
    return run["final"]["acc"], run["final"]["nmi"]


def index(results):
    """(method, model, beta_rel, lam) -> dataset -> run."""
    out = defaultdict(dict)
    for r in results:
        if "f" not in r:
            continue
        out[(r["method"], r["model"], r["beta_rel"], r["lam"])][r["dataset"]] = r
    return out


def rules_of(results):
    rules = set()
    for r in results:
        rules.update(r.get("stops", {}))
    return sorted(rules)


def evaluate_candidate(runs, rule, max_iter, today):
    """Per dataset: stop, (acc, nmi) at the stop, converged, today's; and the summary."""
    rows = {}
    worst_gap = worst_loss = 0.0
    missing = False
    for name, run in runs.items():
        it = stop_of(run, rule, max_iter)
        at = score_at(run, it)
        conv = converged_score(run)
        base = today.get(name)
        if at is None or conv is None:
            missing = True
            continue
        gap = max(abs(at[0] - conv[0]), abs(at[1] - conv[1]))
        worst_gap = max(worst_gap, gap)
        loss = 0.0
        if base is not None:
            loss = max(base[0] - min(at[0], conv[0]), base[1] - min(at[1], conv[1]), 0.0)
        worst_loss = max(worst_loss, loss)
        rows[name] = {"stop": it, "at": at, "conv": conv, "n_iter": run["n_iter"],
                      "capped": not run["converged"], "gap": gap, "loss": loss}
    return rows, worst_gap, worst_loss, missing


def today_scores(idx, method):
    runs = idx.get((method, TODAY["model"], TODAY["beta_rel"], TODAY_LAM[method]), {})
    out = {}
    for name, run in runs.items():
        it = stop_of(run, TODAY["rule"], TODAY["max_iter"])
        s = score_at(run, it)
        if s is not None:
            out[name] = s
    return out


def print_tables(results, top=12, without=()):
    results = [r for r in results if r.get("dataset") not in without]
    idx = index(results)
    rules = rules_of(results)
    for method in ("RMSC", "RMSC-WV"):
        today = today_scores(idx, method)
        names = [d for d in DATASET_ORDER if d in today]
        print(f"\n### {method}: today's defaults (paper model, beta_rel 0.25, lam "
              f"{TODAY_LAM[method]:g}, obj 1e-4, max 30) at their stop and converged\n")
        runs = idx.get((method, "paper", 0.25, TODAY_LAM[method]), {})
        print("| dataset | stop | ACC / NMI at stop | converged (iterations) | Δ ACC / NMI |")
        print("|---|---:|---|---|---|")
        for name in names:
            run = runs[name]
            it = stop_of(run, TODAY["rule"], TODAY["max_iter"])
            a = score_at(run, it)
            c = converged_score(run)
            cap = " cap" if not run["converged"] else ""
            print(f"| {name} | {it} | {a[0]:.2f} / {a[1]:.2f} | {c[0]:.2f} / {c[1]:.2f} "
                  f"({run['n_iter']}{cap}) | {c[0] - a[0]:+.2f} / {c[1] - a[1]:+.2f} |")
        # every candidate x rule
        cands = []
        for (m, model, rel, lam), runs in idx.items():
            if m != method or any(n not in runs for n in names):
                continue
            runs = {n: runs[n] for n in names}
            options = [(r, mi) for r in rules for mi in MAX_ITERS] + [("fixed", k) for k in FIXED]
            for rule, mi in options:
                rows, gap, loss, missing = evaluate_candidate(runs, rule, mi, today)
                if missing:
                    continue
                mean_iter = sum(r["stop"] for r in rows.values()) / len(rows)
                mean_acc = sum(r["at"][0] for r in rows.values()) / len(rows)
                cands.append((max(gap, loss) <= 1.0, gap, loss, mean_iter, model, rel, lam,
                              rule, mi, rows, mean_acc))
        ok = [c for c in cands if c[0]]
        print(f"\n### {method}: {len(ok)} of {len(cands)} candidate x rule pairs meet both "
              "targets (|stop − converged| <= 1 and no more than 1 below today, ACC and NMI, "
              "every dataset)\n")
        _print_candidates(sorted(ok, key=lambda c: (-c[10], c[3]))[:top], names,
                          "meeting both, best mean ACC at the stop first")
        _print_candidates(sorted(ok, key=lambda c: (c[3], -c[10]))[:top], names,
                          "meeting both, fewest iterations first")
        _print_candidates(sorted(cands, key=lambda c: (max(c[1], c[2]), c[3]))[:top], names,
                          "all, by the worse of the two targets")


def _print_candidates(cands, names, title):
    print(f"\n{title}:\n")
    print("| model | β_rel | λ | rule | max_iter | worst gap | worst loss vs today | mean stop | "
          "mean ACC | " + " | ".join(names) + " |")
    print("|---|---|---|---|---|---|---|---|---|" + "---|" * len(names))
    for c in cands:
        _, gap, loss, mean_iter, model, rel, lam, rule, mi, rows, mean_acc = c
        cells = [f"{rows[n]['at'][0]:.1f}→{rows[n]['conv'][0]:.1f}" for n in names]
        print(f"| {model} | {rel:g} | {lam:g} | {rule} | {mi} | {gap:.2f} | {loss:.2f} | "
              f"{mean_iter:.0f} | {mean_acc:.2f} | " + " | ".join(cells) + " |")


def print_long(results, at=(30, 100, 300, 1000)):
    """One row per run: ACC / NMI at a few iterations and at its end (the long runs)."""
    print("| dataset | method | model | β_rel | λ | " + " | ".join(f"{k} it" for k in at)
          + " | end (iterations) | Z* density at the end |")
    print("|---|---|---|---|---|" + "---|" * len(at) + "---|---|")
    for r in sorted(results, key=lambda r: (r["dataset"], r["method"], r["model"],
                                            r["beta_rel"])):
        if not r.get("final"):
            continue
        cells = []
        for k in at:
            c = r["full"].get(str(k))
            cells.append("–" if c is None else f"{c['acc']:.1f} / {c['nmi']:.1f}")
        cap = "" if r["converged"] else ", cap"
        print(f"| {r['dataset']} | {r['method']} | {r['model']} | {r['beta_rel']:g} | "
              f"{r['lam']:g} | " + " | ".join(cells)
              + f" | {r['final']['acc']:.2f} / {r['final']['nmi']:.2f} ({r['n_iter']}{cap}) | "
              f"{100 * r['density'][-1]:.1f} % |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cap", type=int, default=300)
    ap.add_argument("--long", action="store_true",
                    help="one row per run: scores at 30/100/300/1000 iterations and at the end")
    ap.add_argument("--without", nargs="+", default=(),
                    help="leave these datasets out (e.g. while their runs are missing)")
    _preamble.add_argument(ap, "the tables of study_stability.py run --smoke, run now into a "
                               "temporary folder")
    args = ap.parse_args(argv)
    if args.smoke:
        with tempfile.TemporaryDirectory() as tmp:
            sys.stdout.flush()
            subprocess.run([sys.executable, str(HERE / "study_stability.py"), "run", "--smoke",
                            "--out", tmp], check=True, stdout=subprocess.DEVNULL)
            results = read_results(tmp)
    else:
        results = read_results(OUT, args.cap)
    if args.long:
        print_long(results)
    else:
        print_tables(results, without=tuple(args.without))


if __name__ == "__main__":
    main()
