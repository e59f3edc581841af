"""What every benchmark (and every study of docs/studies/) starts with, in one place.

``import _preamble`` first, before the library: it puts this checkout's root first on
``sys.path`` (so the code measured is this checkout's, installed or not). A script of
``benchmarks/`` finds this module beside it; a study of ``docs/studies/`` puts
``benchmarks/`` on ``sys.path`` first (two lines, the only copy). Then:

* :func:`one_thread` (before numpy is imported): one BLAS/OpenMP thread, for scripts whose
  fits run side by side or whose numbers must not depend on the machine's other load;
* :func:`parser`: the command line, with ``--smoke`` (below);
* :func:`machine`: the line that says what the numbers were measured on (CPUs, load);
* :func:`row`: one line of a Markdown table;
* :data:`OUT`: the folder of the studies' caches (``benchmarks/out/``, not tracked);
* :func:`load_dataset` / :data:`DATASETS`: every dataset the repository has, by name.

``--smoke``: a script's seconds-long run, to check that it still works.
``tests/benchmarks/test_benchmarks.py`` runs every script of ``benchmarks/`` this way (with ``--smoke``
where a script has it, else with small arguments of its own), and the studies of
``docs/studies/`` that are meant to be rerun. A smoke run goes through the same code as the
default run on tiny inputs (Digit-small instead of Digit, the first setting of a grid, one
repeat) and writes nothing under ``benchmarks/out/``; its numbers mean nothing. Without
``--smoke`` a script measures what its docstring says, unchanged.
"""

import argparse
import os
import sys
from pathlib import Path

#: The checkout's root.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path[:1]:
    sys.path.insert(0, str(ROOT))

#: Where the scripts' caches go (git ignores it; a smoke run writes nothing there).
OUT = ROOT / "benchmarks" / "out"

HELP = ("a seconds-long run on tiny inputs, to check that the script works "
        "(tests/benchmarks/test_benchmarks.py); its numbers mean nothing")

_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def one_thread():
    """One thread per BLAS/OpenMP library, unless the environment says otherwise. Call it
    before numpy is imported (the libraries read these variables when they load)."""
    for var in _THREAD_VARIABLES:
        os.environ.setdefault(var, "1")


def add_argument(parser, what=None):
    """``--smoke`` (see this module); ``what``: what this script's smoke run does, in a few
    words (default: tiny inputs)."""
    help = HELP if what is None else HELP.replace("on tiny inputs", f"({what})")
    parser.add_argument("--smoke", action="store_true", help=help)


def parser(doc, smoke=True, whole_doc=False):
    """The script's command line: its docstring's first line as the description (the whole
    docstring with ``whole_doc``), and ``--smoke`` unless ``smoke`` is False."""
    if whole_doc:
        ap = argparse.ArgumentParser(description=doc,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    else:
        ap = argparse.ArgumentParser(description=doc.strip().splitlines()[0])
    if smoke:
        add_argument(ap)
    return ap


def load_average():
    """The machine's 1-, 5- and 15-minute load averages, as printed (``"0.4 0.6 0.7"``)."""
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def machine():
    """What the numbers were measured on, in one line: CPUs and load averages."""
    return f"{os.cpu_count()} CPUs, load average {load_average()}"


def row(*cells):
    """One line of a Markdown table."""
    return "| " + " | ".join(str(c) for c in cells) + " |"


def digit(smoke):
    """Digit, or in a smoke run Digit-small (300 samples: still more than any view has
    features, so the solver runs the same factor form)."""
    from rmsc import datasets

    return datasets.load_digit_small() if smoke else datasets.load_digit()


def first(items, smoke, k=1):
    """``items``, or in a smoke run its first ``k``."""
    return list(items)[:k] if smoke else items


#: Every dataset the repository has, by the name :func:`load_dataset` takes, cheapest
#: first: the bundled data, synthetic subspaces at n = 300 and 1000, Digit with outliers.
DATASETS = ("Subspaces", "Digit-small", "3-Sources", "Synthetic-300", "Synthetic-1000",
            "Digit", "Digit+outliers", "Reuter")


def load_dataset(name):
    """``(views, labels, n_clusters)`` of a dataset of :data:`DATASETS`: ``Synthetic-N``
    is ``make_multiview_subspaces`` (10 clusters of 5-dimensional subspaces, views of
    80/100/120 features, noise 0.05, seed 0); ``Digit+outliers`` is Digit with 10 % of its
    samples replaced in PIX and FOU (seed 0); any other name is a bundled dataset."""
    import numpy as np

    from rmsc import datasets

    if name.startswith("Synthetic-"):
        n = int(name.split("-")[1])
        d = datasets.make_multiview_subspaces(
            n_clusters=10, n_per_cluster=n // 10, n_views=3, view_dims=(80, 100, 120),
            subspace_dim=5, noise=0.05, random_state=0)
    elif name == "Digit+outliers":
        d = datasets.inject(datasets.load_bundled("Digit"), ["PIX", "FOU"], 0.1,
                            kind="replace", random_state=0)
    else:
        d = datasets.load_bundled(name)
    return list(d.views), np.asarray(d.labels), int(d.n_clusters)
