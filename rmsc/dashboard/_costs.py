"""Constants of the cost model (:mod:`rmsc.dashboard.estimates`), in multiply-adds at the
probe's speed. Placeholder values until ``benchmarks/calibrate_costs.py --write`` rewrites
this file."""

COSTS = {
    "spectral": {"const": 1e6, "eigh": 1.0, "lanczos": 5.0, "kmeans": 50.0},
    "gram": {"eigh": 2.0, "cov": 1.0},
    "rmsc_iter": {"const": 1e5, "product": 1.0, "passes": 20.0, "views": 5.0},
    "rmsc_typical_iters": 15,
    "rmsc_min_iters": 5,
    "rmsc_extra_iters": 1.0,
    "ssc_iter": {"const": 1e5, "product": 1.0, "passes": 20.0},
    "ssc_extra_iters": 2.0,
    "ssc_low_fraction": 0.25,
    "dimsc_sweep": {"const": 1e6, "product": 20.0, "passes": 300.0},
    "dimsc_typical_sweeps": 3,
    "graph": {name: {"const": 1e6, "knn": 1.0, "eigh": 2.0, "sparse_eig": 50.0}
              for name in ("SC-BSV", "MSC", "CO-PAIRWISE", "CO-CENTROID", "CO-TRAINING")},
    "graph_spread": 1.5,
}
