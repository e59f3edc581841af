"""Fixtures of the dashboard's page-logic tests (``tests/dashboard/``) alone."""

import pytest

from rmsc.datasets import MultiViewDataset
from tests.support import union_of_subspaces


@pytest.fixture
def small():
    views, labels = union_of_subspaces(n_per=15, n_clusters=3, dims=(8, 12), seed=1)
    return MultiViewDataset(name="small", views=views, labels=labels, view_names=("A", "B"))

