"""rmsc.memory: the size guard before dense n x n allocations, and its calls."""

import io

import numpy as np
import pytest

from rmsc import DiMSC, datasets, memory
from rmsc._reference import solve_paper_form
from rmsc.memory import MemoryBudgetError, check_dense_fits
from rmsc.multiview_spectral import top_eigenvectors


def test_format_and_parse_bytes():
    assert memory.format_bytes(512) == "512 B"
    assert memory.format_bytes(3 * 2 ** 30) == "3.0 GB"
    assert memory.format_bytes(1536) == "1.5 KB"
    assert memory.parse_bytes("2G") == 2 * 2 ** 30
    assert memory.parse_bytes("512 MB") == 512 * 2 ** 20
    assert memory.parse_bytes("1.5k") == 1536
    assert memory.parse_bytes("1000") == 1000
    assert memory.parse_bytes("3GiB") == 3 * 2 ** 30
    for bad in ("lots", "-1G", "0"):
        with pytest.raises(ValueError, match="RMSC_MEMORY_BUDGET"):
            memory.parse_bytes(bad)


def test_available_bytes_reads_the_system_and_the_override(monkeypatch):
    monkeypatch.delenv(memory.BUDGET_ENV, raising=False)
    have = memory.available_bytes()
    assert have is not None and have > 10 * 2 ** 20  # this machine has memory
    monkeypatch.setenv(memory.BUDGET_ENV, "64M")
    assert memory.available_bytes() == 64 * 2 ** 20


def test_check_dense_fits_counts_bytes(monkeypatch):
    monkeypatch.setenv(memory.BUDGET_ENV, "1M")
    assert check_dense_fits(100, 100) == 80_000
    assert check_dense_fits(100, 100, count=13) == 1_040_000
    assert check_dense_fits(362, 362) == 362 * 362 * 8  # 1 048 352 bytes <= 1 MiB
    with pytest.raises(MemoryBudgetError) as err:
        check_dense_fits(363, 363, what="Test step")
    msg = str(err.value)
    assert msg.startswith("Test step needs 1 dense 363 x 363 array (1.0 MB), but only 1.0 MB")
    assert "RMSC_MEMORY_BUDGET" in msg and "about 362 samples or fewer would fit" in msg
    assert "Subsample the data" in msg
    with pytest.raises(MemoryBudgetError, match=r"needs 4 dense 100 x 1000 arrays \(3.1 MB\)"):
        check_dense_fits(100, 1000, count=4)
    assert issubclass(MemoryBudgetError, ValueError)


def test_a_truly_huge_allocation_is_refused_without_an_override(monkeypatch):
    monkeypatch.delenv(memory.BUDGET_ENV, raising=False)
    with pytest.raises(MemoryBudgetError, match=r"needs 1 dense 10000000 x 10000000 array "
                                                r"\(727.6 TB\)"):
        check_dense_fits(10 ** 7, 10 ** 7, what="X")


def test_dimsc_refuses_before_its_dense_diversity_step(monkeypatch):
    d = datasets.make_multiview_subspaces(n_per_cluster=20, random_state=0)  # n = 60
    need = 12 * 60 * 60 * 8  # 345.6 KB
    monkeypatch.setenv(memory.BUDGET_ENV, str(need - 1))
    with pytest.raises(MemoryBudgetError, match="DiMSC on 60 samples needs 12 dense 60 x 60"):
        DiMSC(n_clusters=3, lam=0.01).fit(d.views)
    # lam = 0 (SSC-AVG) has no dense diversity step
    monkeypatch.setenv(memory.BUDGET_ENV, str(need - 1))
    DiMSC(n_clusters=3, lam=0.0, random_state=0).fit(d.views)
    monkeypatch.setenv(memory.BUDGET_ENV, str(need))
    DiMSC(n_clusters=3, lam=0.01, outer_iter=1, random_state=0).fit(d.views)


def test_dense_eigendecomposition_and_paper_form_are_guarded(monkeypatch):
    rng = np.random.default_rng(0)
    A = rng.random((50, 50))
    N = (A + A.T) / 2
    monkeypatch.setenv(memory.BUDGET_ENV, str(3 * 50 * 50 * 8 - 1))
    with pytest.raises(MemoryBudgetError, match="dense eigendecomposition of 50 samples"):
        top_eigenvectors(N, 3)
    monkeypatch.setenv(memory.BUDGET_ENV, str(3 * 50 * 50 * 8))
    assert top_eigenvectors(N, 3)[1].shape == (50, 3)
    Xs = [rng.standard_normal((30, 5)), rng.standard_normal((30, 4))]
    monkeypatch.setenv(memory.BUDGET_ENV, str((3 * 2 + 6) * 30 * 30 * 8 - 1))
    with pytest.raises(MemoryBudgetError, match="paper-form RMSC on 30 samples"):
        solve_paper_form(Xs, 0.3, 0.01, 1e-5, max_iter=1)


def test_loaders_report_the_guard_as_a_load_error(monkeypatch):
    buf = io.BytesIO()
    np.savez(buf, a=np.zeros((200, 50)), labels=np.arange(200))
    buf.name = "big.npz"
    monkeypatch.setenv(memory.BUDGET_ENV, "10K")
    with pytest.raises(datasets.DataLoadError, match=r"big.npz: unpacking the archive needs"):
        datasets.load(buf)
