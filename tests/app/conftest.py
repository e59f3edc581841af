"""Fixtures of the AppTest tests of the pages alone."""

import pytest

from tests.app_support import cancel_jobs, open_app, wait_fit


@pytest.fixture
def fitted_app():
    at = open_app({"data": "Subspaces", "beta": "0.01"}, page="solve")
    wait_fit(at)
    yield at
    cancel_jobs(at)

