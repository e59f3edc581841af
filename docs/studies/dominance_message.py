"""The Weights page's dominance message as it reads now, and what its reason costs.

    python docs/studies/dominance_message.py [--data Digit Reuter ...]

For each bundled dataset named (Digit by default), one RMSC fit at the dashboard's defaults
(:class:`rmsc.dashboard.params.Params`, :func:`rmsc.dashboard.fit_rmsc`, what the Weights
page shows), and :func:`rmsc.preprocessing.spread_directions` of each view (the PC1 share
and participation ratio the message's reason rests on, with the seconds they took: the
page computes them once per dataset per server, and only when a view dominates,
``ui.view_spread``); then the message (:func:`rmsc.dashboard.weight_shares` with the
spread: :func:`rmsc.dominance.dominance_message`).

Not smoke-tested: a one-off, its output quoted in docs/stability.md, section 6 ("The message
now"), measured on branch w-reason at commit 5edd1cc (2026-11-29, 2 shared cores).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, one thread)

_preamble.one_thread()

from rmsc import dashboard as dash  # noqa: E402
from rmsc import datasets  # noqa: E402
from rmsc.preprocessing import spread_directions  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="+", default=["Digit"])
    args = ap.parse_args(argv)
    for name in args.data:
        data = datasets.load_bundled(name)
        result = dash.fit_rmsc(data, dash.Params())
        start = time.perf_counter()
        spread = [spread_directions(X) for X in data.views]
        seconds = time.perf_counter() - start
        print(f"\n### {name} ({data.n_samples} samples), the dashboard's defaults\n")
        print("| view | features | PC1 % | participation ratio |\n|---|---:|---:|---:|")
        for view, X, s in zip(data.view_names, data.views, spread):
            print(f"| {view} | {X.shape[1]} | {100 * s['pc1']:.1f} | {s['directions']:.2f} |")
        print(f"\nspread_directions of every view: {seconds:.2f} s")
        message = dash.weight_shares(result, data, spread)[1]
        print(f"\nMessage: {message or '(none: no view carries most of the weight)'}")


if __name__ == "__main__":
    main()
