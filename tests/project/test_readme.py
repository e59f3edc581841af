"""The README's Python examples run as written (a block that uses Dask is skipped: it needs a
cluster; docs/library.md's Dask example has its own test, tests/library/test_backends.py)."""

import re
from pathlib import Path

import numpy as np
import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def python_blocks():
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_examples():
    assert len(python_blocks()) >= 2


@pytest.mark.slow
def test_readme_examples_run(tmp_path, monkeypatch):
    import rmsc

    # The data example reads "my_views.mat": give it one (the Subspaces set, saved as .mat).
    import scipy.io

    sub = rmsc.datasets.load_bundled("Subspaces")
    cell = np.empty((1, sub.n_views), dtype=object)
    for v, X in enumerate(sub.views):
        cell[0, v] = X
    scipy.io.savemat(tmp_path / "my_views.mat", {"X": cell, "Y": sub.labels[:, None]})
    monkeypatch.chdir(tmp_path)
    env = {}
    ran = 0
    for block in python_blocks():
        if "dask" in block:
            continue
        exec(compile(block, "README.md", "exec"), env)
        ran += 1
    assert ran >= 2
    # The data example's last line: the replaced samples of view 0 are found (AUC well above chance).
    table = rmsc.outliers.evaluate(rmsc.outliers.scores(env["model"]), env["dirty"].outlier_mask)
    assert env["dirty"].outlier_mask[0].sum() == 15
    assert table.loc[0, "roc_auc"] > 0.8
