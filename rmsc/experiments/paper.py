"""What the paper reports and uses: Table 1, its datasets and view names, its figures' settings."""

from __future__ import annotations

#: Table 1 of the paper: method -> dataset -> (ACC mean, ACC std, NMI mean, NMI std), in %.
PAPER_TABLE1 = {
    "SC-BSV": {"Digit": (94.52, 3.48, 91.24, 0.87), "Reuter": (33.88, 0.43, 18.60, 0.58),
               "Animal": (25.85, 1.06, 15.90, 0.61), "3-Sources": (61.89, 0.68, 61.04, 1.02)},
    "MSC": {"Digit": (94.68, 2.80, 90.34, 1.15), "Reuter": (30.49, 3.34, 21.87, 1.18),
            "Animal": (28.39, 1.04, 19.06, 0.84), "3-Sources": (65.59, 3.62, 68.23, 3.69)},
    "Co-Pairwise": {"Digit": (96.16, 0.02, 91.89, 0.03), "Reuter": (31.14, 2.75, 21.69, 0.96),
                    "Animal": (25.96, 0.67, 16.08, 0.50),
                    "3-Sources": (61.48, 0.54, 60.14, 1.54)},
    "Co-Centroid": {"Digit": (96.65, 0.00, 93.71, 0.00), "Reuter": (29.42, 2.83, 21.44, 0.85),
                    "Animal": (29.52, 1.69, 19.28, 0.89),
                    "3-Sources": (65.44, 2.60, 64.99, 1.98)},
    "Co-Training": {"Digit": (85.39, 0.12, 85.44, 0.11), "Reuter": (32.91, 1.91, 23.13, 0.75),
                    "Animal": (29.63, 1.10, 18.92, 0.61),
                    "3-Sources": (61.95, 5.30, 64.30, 2.81)},
    "SSC-BSV": {"Digit": (93.02, 3.42, 88.05, 1.02), "Reuter": (49.36, 1.15, 33.27, 0.55),
                "Animal": (27.36, 0.87, 15.49, 0.62), "3-Sources": (67.16, 1.53, 57.84, 1.72)},
    "SSC-AVG": {"Digit": (85.87, 4.35, 87.89, 0.93), "Reuter": (50.18, 1.69, 31.60, 0.70),
                "Animal": (30.10, 0.91, 17.52, 0.99), "3-Sources": (69.82, 1.89, 67.95, 1.13)},
    "DiMSC": {"Digit": (90.79, 3.71, 84.46, 1.33), "Reuter": (53.01, 1.24, 39.20, 0.21),
              "Animal": (31.83, 0.68, 19.29, 0.59), "3-Sources": (65.47, 0.98, 60.23, 2.30)},
    "RMSC-WV": {"Digit": (95.35, 0.00, 90.65, 0.00), "Reuter": (55.05, 1.06, 37.70, 0.43),
                "Animal": (31.87, 0.66, 19.70, 0.61), "3-Sources": (74.56, 1.80, 67.17, 1.95)},
    "RMSC": {"Digit": (97.91, 0.03, 94.98, 0.08), "Reuter": (57.50, 0.39, 40.80, 0.20),
             "Animal": (33.14, 1.01, 20.02, 0.64), "3-Sources": (78.37, 0.52, 70.53, 0.71)},
}


#: The paper's datasets: name -> its .mat file, read from ``--data-dir`` when one is given
#: (otherwise the copy bundled with rmsc is used); None: not available at all.
DATASETS = {
    "Digit": "digit_handwritten.mat",
    "Reuter": "reuters_1200.mat",
    "Animal": None,  # AwA features: not available anywhere reachable (see the results doc)
    "3-Sources": "3sources.mat",
}


#: The paper's Figure 1: methods compared as views are added, and on which datasets.
VIEWS_METHODS = ("SSC-AVG", "RMSC-WV", "RMSC")


VIEWS_DATASETS = ("Digit", "Reuter")


#: The paper's Figure 3 (convergence) datasets.
CONVERGENCE_DATASETS = ("Digit", "Reuter")


#: The paper's Figure 4: RMSC over a (lambda, beta) grid on Digit; 3-Sources too (it is
#: small, and the grid shows where RMSC's best setting lies beyond the search's grid).
SENSITIVITY_DATASETS = ("Digit", "3-Sources")


SENSITIVITY_LAMS = (0.03, 0.1, 0.3, 1.0, 3.0, 10.0)


SENSITIVITY_BETAS = (0.01, 0.03, 0.1, 0.3, 1.0)


#: Input weightings of count views a dataset name may carry ("3-Sources+log1p"):
#: :mod:`rmsc.preprocessing`'s, applied to every view before the protocol's unit-L2 scaling.
INPUT_WEIGHTINGS = ("tfidf", "log1p")


def input_weighting(name):
    """``(base, weighting)`` of a name "BASE+WEIGHTING" (:data:`INPUT_WEIGHTINGS`), else
    ``(name, None)``."""
    base, _, weighting = str(name).rpartition("+")
    return (base, weighting) if base and weighting in INPUT_WEIGHTINGS else (name, None)


def paper_dataset(name):
    """The paper's dataset a run stands for: "3-Sources+log1p" (an input weighting of it)
    is "3-Sources"."""
    base, weighting = input_weighting(name)
    return base if weighting and base in DATASETS else name

