"""``--smoke``: a benchmark's seconds-long run, to check that it still works.

``tests/benchmarks/test_benchmarks.py`` runs every script of ``benchmarks/`` this way (with
``--smoke`` where a script has it, else with small arguments of its own). A smoke
run goes through the same code as the default run on tiny inputs (Digit-small
instead of Digit, the first setting of a grid, one repeat) and writes nothing under
``benchmarks/out/``; its numbers mean nothing. Without ``--smoke`` a script
measures what its docstring says, unchanged.
"""

HELP = ("a seconds-long run on tiny inputs, to check that the script works "
        "(tests/benchmarks/test_benchmarks.py); its numbers mean nothing")


def add_argument(parser):
    """``--smoke`` (see this module)."""
    parser.add_argument("--smoke", action="store_true", help=HELP)


def digit(smoke):
    """Digit, or in a smoke run Digit-small (300 samples: still more than any view has
    features, so the solver runs the same factor form)."""
    from rmsc import datasets

    return datasets.load_digit_small() if smoke else datasets.load_digit()


def first(items, smoke, k=1):
    """``items``, or in a smoke run its first ``k``."""
    return list(items)[:k] if smoke else items
